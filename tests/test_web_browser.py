"""The page's JavaScript in a real browser: headless Chromium (Debian's, driven by Playwright with its
``executable_path``: no browser download), on the pages a relay's web listener serves.

In Chromium, under the page's Content-Security-Policy, from the relay's own origin (a secure context on 127.0.0.1, so
WebCrypto's Ed25519 is there): the protocol's line layer reaches Python's verdict on every vector line and on damaged
ones, the judge verifies every vector transcript as ``olixono verify`` does, and the vendored mqtt.js reads a game's
retained lines over the relay's MQTT over WebSocket, each verified."""

from __future__ import annotations

from pathlib import Path

import aiomqtt
import pytest
from browser_helpers import needs_browser

from protocol import RemoteProtocolError, decode, topic_for
from protocol.transcript import verify_transcript
from relay.embedded import RelaySettings, running

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"

pytestmark = needs_browser


@pytest.fixture
async def relay_page(browser):
    """A relay with its web listener, and a browser tab on its origin (a page of its own: the page's headers)."""
    async with running(RelaySettings(port=0, web_port=0)) as relay:
        tab = await browser.new_page()
        response = await tab.goto(f"{relay.web_url}vendor/mqtt.VERSION.txt")
        assert response is not None and response.ok
        yield relay, tab


def python_verdict(line: str) -> list[str]:
    try:
        message = decode(line)
    except RemoteProtocolError as error:
        return ["refused", str(error.code)]
    return ["ok", message.type.value, message.hash]


DECODE_IN_THE_PAGE = """async (lines) => {
  const protocol = await import("/js/protocol.js");
  const verdicts = [];
  for (const line of lines) {
    try {
      const message = await protocol.decode(line);
      verdicts.push(["ok", message.type, message.hash]);
    } catch (error) {
      verdicts.push(["refused", String(error.code)]);
    }
  }
  return verdicts;
}"""


def damaged(line: str, n: int) -> str:
    """``line`` with one character changed (in turn: the signature, a field's value, the signer)."""
    at = [len(line) - 5, line.index("=") + 2, line.index(" by=") + 8][n % 3]
    return line[:at] + ("A" if line[at] != "A" else "B") + line[at + 1 :]


VERIFY_IN_THE_PAGE = """async (files) => {
  const protocol = await import("/js/protocol.js");
  const verdicts = [];
  for (const lines of files) {
    const { session, number, problem } = await protocol.verifyTranscript(lines);
    verdicts.push([number, problem?.code ?? null, session.phase, session.result?.code() ?? null, session.position,
      session.transcript.length]);
  }
  return verdicts;
}"""


async def test_the_judge_in_chromium_verifies_every_vector_transcript_as_python_does(relay_page):
    _, tab = relay_page
    files = [path.read_text().splitlines() for path in sorted(VECTORS.glob("*.txt"))]
    verdicts = await tab.evaluate(VERIFY_IN_THE_PAGE, files)
    expected = []
    for lines in files:
        session, number, problem = verify_transcript(lines)
        expected.append(
            [
                number,
                None if problem is None else str(problem.code),
                session.phase.value,
                None if session.result is None else session.result.code(),
                session.position,
                len(session.transcript),
            ]
        )
    assert verdicts == expected
    assert all(verdict[3] is not None for verdict in verdicts)  # every vector game is over, and the page says how


async def test_the_line_layer_in_chromium_reaches_pythons_verdict_on_every_vector_line(relay_page):
    _, tab = relay_page
    lines = [line for path in sorted(VECTORS.glob("*.txt")) for line in path.read_text().splitlines() if line]
    lines += [damaged(line, n) for n, line in enumerate(lines[:120])]
    assert len(lines) > 300
    verdicts = await tab.evaluate(DECODE_IN_THE_PAGE, lines)
    expected = [python_verdict(line) for line in lines]
    assert verdicts == expected
    assert {verdict[0] for verdict in verdicts} == {"ok", "refused"}


READ_IN_THE_PAGE = """async ([url, filter, count]) => {
  const { default: mqtt } = await import("/vendor/mqtt.esm.js");
  const protocol = await import("/js/protocol.js");
  const client = mqtt.connect(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 });
  const hashes = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(), 10000);
    client.on("error", (error) => { clearTimeout(timer); reject(error); });
    client.on("connect", () => client.subscribe(filter, { qos: 1 }));
    client.on("message", async (topic, payload) => {
      const message = await protocol.decode(new Uint8Array(payload));
      hashes.push(message.hash);
      if (hashes.length === count) { clearTimeout(timer); resolve(); }
    });
  });
  client.end(true);
  return hashes;
}"""


async def test_mqtt_js_in_chromium_reads_a_game_over_the_relays_websocket_and_verifies_each_line(relay_page):
    relay, tab = relay_page
    lines = (VECTORS / "olix-game.txt").read_text().splitlines()
    messages = [decode(line) for line in lines if line]
    async with aiomqtt.Client("127.0.0.1", relay.port) as player:
        for message in messages:
            await player.publish(topic_for(message), message.line.encode(), qos=1, retain=True)
    game = messages[1].game
    hashes = await tab.evaluate(READ_IN_THE_PAGE, [relay.websocket_url, f"olixono/1/games/{game}/#", len(messages)])
    assert sorted(hashes) == sorted(message.hash for message in messages)


async def test_the_pages_policy_refuses_inline_script(relay_page):
    from playwright.async_api import Error  # installed: the fixture has a page

    _, tab = relay_page
    with pytest.raises(Error):
        await tab.add_script_tag(content="window.injected = true;")
    assert await tab.evaluate("() => window.injected === undefined")


RENDER_IN_THE_PAGE = """async ([kind, moves, chat]) => {
  const rules = await import(`/js/${kind}.js`);
  const { render } = await import("/js/view.js");
  const Board = kind === "olix" ? rules.OlixBoard : rules.OxonoBoard;
  const board = new Board();
  const played = moves.map((text) => {
    const player = board.turn;
    const move = board.parseMove(text);
    board.play(text);
    return { player, text, move };
  });
  const root = document.createElement("main");
  for (const [tag, id] of [["div", "board"], ["ol", "moves"], ["p", "turn"], ["ul", "players"], ["p", "result"],
                           ["ul", "chat"], ["ul", "rejections"], ["ul", "proofs"], ["table", "scoreboard"]]) {
    const node = document.createElement(tag);
    node.id = id;
    root.append(node);
  }
  document.body.append(root);
  const snapshot = {
    game: "G", kind, board, moves: played, turn: board.turn,
    players: [{ player: board.players[0], fingerprint: "1a2b-3c4d", present: true, clock: "4:59" },
              { player: board.players[1], fingerprint: "5e6f-7a8b", present: false, clock: null }],
    result: null, chat: [{ who: board.players[0], text: chat }],
    rejected: [{ code: "bad-signature", detail: chat }, { code: "illegal-move", detail: "f6 is taken" }], proofs: [],
  };
  render(document, root, snapshot);
  const before = root.querySelector("#moves li");
  snapshot.moves = played.slice(0, -1);  // a takeback: the last item goes, the others stay as they were
  render(document, root, snapshot);
  const kept = root.querySelector("#moves li") === before;
  snapshot.moves = played;
  snapshot.result = { code: `${board.players[1]}-resigned`, sentence: "a sentence" };
  render(document, root, snapshot);
  return {
    kept,
    moves: [...root.querySelectorAll("#moves li")].map((li) => li.textContent),
    result: [root.querySelector("#result").dataset.code, root.querySelector("#result").hidden],
    rejected: [...root.querySelectorAll(".rejected")].map((node) => node.dataset.code),
    markup: root.querySelectorAll("img, script").length + (window.injected === undefined ? 0 : 100),
    chat: root.querySelector("#chat li").textContent,
    last: [...root.querySelectorAll(".square.last")].map((node) => node.dataset.square).sort(),
    pieces: [...root.querySelectorAll("[data-piece]")].length,
    holds: root.querySelectorAll(".stone.holds").length,
    players: [...root.querySelectorAll("#players li")].map((li) => li.textContent),
    scoreboard: [...root.querySelectorAll("#scoreboard tr")].map((tr) => tr.textContent),
    caption: root.querySelector("#scoreboard caption")?.textContent ?? null,
  };
}"""

HOSTILE = '<img src=x onerror="window.injected=1"><script>window.injected=2</script>'


@pytest.mark.parametrize(
    "kind, moves, last, pieces",
    [
        ("olix", ["f6", "a1", "f7", "a2", "g6", "a3", "g7"], ["g7"], 7),
        ("oxono", ["Oc6c5", "Xd2d1"], ["d1", "d2"], 4),  # two pawns and the two totems
    ],
)
async def test_the_view_draws_the_board_moves_result_and_refusals_and_shows_network_text_as_text(
    relay_page, kind, moves, last, pieces
):
    _, tab = relay_page
    shown = await tab.evaluate(RENDER_IN_THE_PAGE, [kind, moves, HOSTILE])
    assert shown["kept"]
    assert len(shown["moves"]) == len(moves) and shown["moves"][-1].endswith(moves[-1])
    assert shown["result"][0].endswith("-resigned") and shown["result"][1] is False
    assert shown["rejected"] == ["bad-signature", "illegal-move"]
    assert shown["markup"] == 0 and shown["chat"].endswith(HOSTILE)  # as text: no element, no script ran
    assert shown["last"] == last and shown["pieces"] == pieces
    assert shown["players"][0].endswith(", here, 4:59") and shown["players"][1].endswith(", away")
    if kind == "olix":
        assert shown["holds"] == 4  # first's O (f6 f7 g6 g7) holds a marker: its four stones are ringed
        assert shown["scoreboard"] == ["O4 first689", "L5678", "I4567", "X4567"]  # as the terminal's board
        assert shown["caption"] == "markers 1 to 0: first leads"
    else:
        assert shown["scoreboard"] == [] and shown["caption"] is None
