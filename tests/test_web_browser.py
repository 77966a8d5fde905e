"""The page's JavaScript in a real browser: headless Chromium (Debian's, driven by Playwright with its
``executable_path``: no browser download), on the pages a relay's web listener serves.

In Chromium, under the page's Content-Security-Policy, from the relay's own origin (a secure context on 127.0.0.1, so
WebCrypto's Ed25519 is there): the protocol's line layer reaches Python's verdict on every vector line and on damaged
ones, the judge verifies every vector transcript as ``olixono verify`` does, and the vendored mqtt.js reads a game's retained lines over the relay's MQTT over WebSocket, each verified."""

from __future__ import annotations

import shutil
from pathlib import Path

import aiomqtt
import pytest

from protocol import RemoteProtocolError, decode, topic_for
from protocol.transcript import verify_transcript
from relay.embedded import RelaySettings, running
from relay_fixtures import TOOLS_REQUIRED

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

try:
    import playwright.async_api as playwright
except ImportError:  # scripts/test installs it; a bare checkout may not have it
    playwright = None

needs_browser = pytest.mark.skipif(
    (playwright is None or not Path(CHROMIUM).exists()) and not TOOLS_REQUIRED,
    reason="needs Debian's chromium and Playwright (scripts/test installs both, and makes their absence a failure)")
pytestmark = needs_browser


@pytest.fixture
async def browser():
    assert playwright is not None
    async with playwright.async_playwright() as driver:
        launched = await driver.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield launched
        finally:
            await launched.close()


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
    return line[:at] + ("A" if line[at] != "A" else "B") + line[at + 1:]


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
        expected.append([number, None if problem is None else str(problem.code), session.phase.value,
                         None if session.result is None else session.result.code(), session.position,
                         len(session.transcript)])
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
    _, tab = relay_page
    with pytest.raises(playwright.Error):
        await tab.add_script_tag(content="window.injected = true;")
    assert await tab.evaluate("() => window.injected === undefined")
