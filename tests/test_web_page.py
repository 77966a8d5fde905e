"""The watching page in a real browser (headless Chromium, driven by Playwright by its path): a game watched live on
each relay to its result, a late watcher, a relayed illegal move shown as refused and not applied, an equivocation
shown with its proof, the page over TLS, and the lobby. Every figure the page shows is compared with what the Python
client makes of the same lines."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import needs_browser
from network_helpers import Seat, game_id_of, transcript
from protocol_helpers import board_of, result_of
from relay_fixtures import Relay, make_tls, needs_mosquitto

from client.flows import network
from client.words.board import clock_left_text
from protocol import GameSession, decode, topic_for
from protocol.clock import TimeControl
from protocol.topics import held_copy_topic

ROOT = Path(__file__).resolve().parent.parent
VECTORS = json.loads((ROOT / "protocol" / "vectors" / "vectors.json").read_text())

pytestmark = [needs_browser, pytest.mark.network]


async def web_relay(tmp_path, kind: str = "embedded", tls: bool = False) -> Relay:
    relay = Relay(kind, tmp_path / f"relay-{kind}", web=True, tls=make_tls(tmp_path) if tls else None)
    relay.workdir.mkdir(parents=True)
    return await relay.start()


@contextlib.asynccontextmanager
async def page_for(tmp_path, relay: Relay):
    """The page's address for a game on ``relay``: ``link(game)``. An embedded relay serves the page itself; for
    Mosquitto (whose http_dir sends no Content-Type, so browsers refuse the page's modules) an embedded relay serves
    it, the link naming Mosquitto's websockets (``#relay=``), as a site of one's own would."""
    if relay.kind == "embedded":
        yield lambda game: f"{relay.page}#game={game}"
        return
    server = await web_relay(tmp_path / "page", "embedded")
    try:
        yield lambda game: f"{server.page}#game={game}&relay=ws://127.0.0.1:{relay.web_port}/mqtt"
    finally:
        await server.stop()


async def shown(tab, timeout: float = 60.0) -> dict[str, Any]:
    """What the page shows once its result is there (waited for)."""
    await tab.wait_for_selector("#result[data-code]", state="attached", timeout=timeout * 1000)
    state: dict[str, Any] = await tab.evaluate("""() => ({
      code: document.querySelector("#result").dataset.code,
      result: document.querySelector("#result").textContent,
      moves: [...document.querySelectorAll("#moves li")].map((li) => li.textContent),
      rejected: [...document.querySelectorAll(".rejected")].map((node) => node.dataset.code),
      proofs: [...document.querySelectorAll("#proofs li")].map((li) => li.textContent),
      squares: document.querySelectorAll("#board [data-square]").length,
      players: [...document.querySelectorAll("#players li")].map((li) => li.textContent),
    })""")
    return state


def expected(lines: list[str], game: str) -> GameSession:
    watcher = GameSession(game)
    for line in lines:
        watcher.receive(line)
    return watcher


async def published(relay: Relay, lines: list[str]) -> None:
    async with relay.client() as client:
        for line in lines:
            await client.publish(topic_for(decode(line)), line.encode(), qos=1, retain=True)


@contextlib.asynccontextmanager
async def vector_game(tmp_path, name: str, tls: bool = False):
    """A relay with its web listener (and TLS) holding the vector game ``name`` (``oxono-game``): the relay, the
    game's id and its lines."""
    lines = (ROOT / "protocol" / "vectors" / f"{name}.txt").read_text().splitlines()
    relay = await web_relay(tmp_path, tls=tls)
    try:
        await published(relay, lines)
        yield relay, decode(lines[1]).game, lines
    finally:
        await relay.stop()


async def bot_game(tmp_path, relay: Relay, kind: str, tab, link) -> tuple[Seat, str]:
    """Two bots play a timed game to its end while the page watches it from its start."""
    host = Seat(tmp_path, "host", relay, bot="random", seed=3, control=TimeControl.parse("5+0"))
    guest = Seat(tmp_path, "guest", relay, bot="random", seed=4)
    hosting = asyncio.create_task(network.host(kind, host.options))
    game = await game_id_of(host)
    await tab.goto(link(game))
    async with asyncio.timeout(90):
        assert await network.join(game, guest.options) == 0
        assert await hosting == 0
    return host, game


@pytest.mark.parametrize("relay_kind", ["embedded", pytest.param("mosquitto", marks=needs_mosquitto)])
@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_a_bot_game_watched_live_from_the_page_and_by_a_late_watcher(tmp_path, browser, relay_kind, kind):
    relay = await web_relay(tmp_path, relay_kind)
    try:
        async with page_for(tmp_path, relay) as link:
            tab = await browser.new_page()
            host, game = await bot_game(tmp_path, relay, kind, tab, link)
            session = GameSession.restore(transcript(host, game))
            live = await shown(tab)
            assert live["code"] == result_of(session).code() and live["result"].endswith(
                f"({result_of(session).code()})"
            )
            assert [item.split()[-1] for item in live["moves"]] == [m.move for m in session.standing()]
            assert live["rejected"] == [] and live["squares"] == board_of(session).WIDTH ** 2
            clocks = session.clocks  # both clocks, as the record has them at the end (a timed game)
            assert clocks is not None
            assert live["players"] == [
                f"{player} {session.seats[player].fingerprint}, "
                f"{'here' if session.present(session.seats[player]) else 'away'}, "
                f"{clock_left_text(clocks[player])} left"
                for player in board_of(session).PLAYERS
            ]
            late = await browser.new_page()
            await late.goto(link(game))
            assert await shown(late) == live
    finally:
        await relay.stop()


async def test_a_relayed_illegal_move_is_shown_refused_and_not_applied(tmp_path, browser):
    case = next(case for case in VECTORS["cases"] if case["code"] == "illegal-move")
    relay = await web_relay(tmp_path)
    try:
        await published(relay, case["lines"])
        game = decode(case["lines"][1]).game
        tab = await browser.new_page()
        await tab.goto(f"{relay.page}#game={game}")
        await tab.wait_for_selector('.rejected[data-code="illegal-move"]', state="attached", timeout=30_000)
        moves = await tab.evaluate('() => document.querySelectorAll("#moves li").length')
        assert moves == len(expected(case["lines"][:-1], game).standing())
    finally:
        await relay.stop()


async def test_an_equivocation_is_shown_with_its_proof(tmp_path, browser):
    forfeit = VECTORS["forfeits"][0]
    relay = await web_relay(tmp_path)
    try:
        record = forfeit["record"]
        game = decode(record[1]).game
        python = expected(record, game)
        first, second = python.proofs[0].first, python.proofs[0].second
        holder = next(key for key in (python.host, python.guest) if key is not None and key != python.proofs[0].key)
        await published(relay, [line for line in record if line != second])
        async with relay.client() as client:  # the other line of the pair, as the other player's copy of it
            await client.publish(
                held_copy_topic(game, holder, decode(second).hash), second.encode(), qos=1, retain=True
            )
        tab = await browser.new_page()
        await tab.goto(f"{relay.page}#game={game}")
        page = await shown(tab)
        from client.words.record import proof_text

        assert page["code"] == result_of(python).code() and first != second
        assert page["proofs"] == [proof_text(python, proof, python.name_of) for proof in python.proofs]
    finally:
        await relay.stop()


async def test_the_page_over_tls_watches_a_finished_game(tmp_path, browser):
    async with vector_game(tmp_path, "oxono-game", tls=True) as (relay, game, lines):
        context = await browser.new_context(ignore_https_errors=True)  # the test's own self-signed certificate
        tab = await context.new_page()
        await tab.goto(f"{relay.page}#game={game}")
        assert relay.page.startswith("https://")
        page = await shown(tab)
        assert page["code"] == result_of(expected(lines, game)).code() and page["rejected"] == []


@needs_mosquitto
async def test_the_lobby_lists_only_games_whose_offer_verifies(tmp_path, browser):
    """On an open Mosquitto (as public brokers run: anyone publishes anything), beside a verified game: a forged offer
    and junk on an offer's topic, which the page must leave out."""
    lines = (ROOT / "protocol" / "vectors" / "olix-game.txt").read_text().splitlines()
    relay = await web_relay(tmp_path, "mosquitto")
    try:
        await published(relay, lines[:3])
        offer = decode(lines[0])
        forged = lines[0][:-5] + ("AAAAA" if not lines[0].endswith("AAAAA") else "BBBBB")
        async with relay.client() as client:
            await client.publish(f"olixono/1/games/{'F' * 22}/{offer.signer.text}/offer", forged.encode(), retain=True)
            await client.publish("olixono/1/games/junk/junk/offer", b"<b>junk</b>", retain=True)
        async with page_for(tmp_path, relay) as link:
            tab = await browser.new_page()
            await tab.goto(link("x").replace("game=x&", ""))  # the front page, reading Mosquitto
            await tab.wait_for_selector(
                f'#games li[data-game="{offer.game}"][data-state="in progress"]', state="attached", timeout=20_000
            )
            await asyncio.sleep(1)
            assert await tab.evaluate('() => document.querySelectorAll("#games li").length') == 1
    finally:
        await relay.stop()


async def test_on_a_phone_the_page_fits_its_width_and_a_bad_link_says_so(tmp_path, browser):
    async with vector_game(tmp_path, "olix-game") as (relay, game, _):
        phone = await browser.new_page(viewport={"width": 390, "height": 844})
        await phone.goto(f"{relay.page}#game={game}")
        await shown(phone)
        assert await phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        board = await phone.evaluate("() => document.querySelector('#board svg').getBoundingClientRect().width")
        assert 300 <= board <= 390
        for fragment, said in (("#game=%3Cscript%3E", "no game id"), (f"#game={game}&relay=http://x/", "not a relay")):
            tab = await browser.new_page()
            await tab.goto(f"{relay.page}{fragment}")
            await tab.wait_for_function(f"() => document.querySelector('#status').textContent.includes({said!r})")
            assert await tab.evaluate("() => document.querySelector('#game').hidden")


async def test_the_watchers_talk_is_shown_beside_the_game_as_text_and_a_forged_line_never(tmp_path, browser):
    from protocol import Identity
    from protocol.messages import encode, encode_text

    async with vector_game(tmp_path, "oxono-game") as (relay, game, _):
        watcher = Identity.generate()
        said = encode("talk", [("game", game), ("seq", "1"), ("text", encode_text("nice <b>move</b>"))], watcher)
        forged = said[:-4] + ("AAAA" if not said.endswith("AAAA") else "BBBB")
        async with relay.client() as client:
            await client.publish(f"olixono/1/games/{game}/{watcher.public.text}/talk/1", said.encode(), retain=True)
            await client.publish(f"olixono/1/games/{game}/{watcher.public.text}/talk/2", forged.encode())
        tab = await browser.new_page()
        await tab.goto(f"{relay.page}#game={game}")
        await shown(tab)
        await tab.wait_for_function("() => document.querySelectorAll('#talk li').length === 1")
        talk = await tab.evaluate("() => document.querySelector('#talk li').textContent")
        assert talk == f"watcher {watcher.public.fingerprint}: nice <b>move</b>"
        assert await tab.evaluate("() => document.querySelectorAll('#talk b, #chat b').length") == 0


async def test_a_terminal_watcher_is_told_the_link_where_the_relay_serves_the_page(tmp_path):
    """The relay says where its page is (retained on olixono/1/page, which no client may set): ``watch`` says the
    link, built on the host it reached the relay at; a stranger's address there changes nothing."""
    from protocol.topics import PAGE_TOPIC

    async with vector_game(tmp_path, "oxono-game") as (relay, game, _):
        async with relay.client() as stranger:
            await stranger.publish(PAGE_TOPIC, b"http://127.0.0.1:1/", qos=1, retain=True)
        watcher = Seat(tmp_path, "watcher", relay, plain=True)
        assert await network.watch(game, watcher.options) == 0
        link = f"Anyone can watch it in a browser, every move checked there: {relay.page}#game={game}"
        assert link in watcher.lines


@needs_mosquitto
async def test_bytes_that_are_no_utf8_on_an_open_broker_are_refused_as_such(tmp_path, browser):
    """An open Mosquitto passes anything: the page judges the bytes as they came (as the terminal does), and a line
    that is no UTF-8 is refused as bad-utf8, beside the game, which stands."""
    lines = (ROOT / "protocol" / "vectors" / "oxono-game.txt").read_text().splitlines()
    relay = await web_relay(tmp_path, "mosquitto")
    try:
        await published(relay, lines)
        game = decode(lines[1]).game
        async with relay.client() as stranger:
            await stranger.publish(f"olixono/1/games/{game}/x/1", b"olixono/1 move \xff\xfe", retain=True)
        async with page_for(tmp_path, relay) as link:
            tab = await browser.new_page()
            await tab.goto(link(game))
            await tab.wait_for_selector('.rejected[data-code="bad-utf8"]', state="attached", timeout=20_000)
            page = await shown(tab)
            assert page["code"] == result_of(expected(lines, game)).code()
    finally:
        await relay.stop()
