"""One game over several relays (:class:`client.shell.links.Links`), through real relays: every line goes to each relay,
what arrives from any reaches the game once, and a relay that is down, or comes up late, costs the others nothing."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator

import pytest
from network_helpers import Both, on_the_chain, started
from relay_fixtures import WRITER, Relay, game_id, gather_messages, signed_line, silent_relay, topic_of

from client.shell.links import Links
from client.shell.transport import Link, RelayAddress
from relay.mosquitto import free_port

GAME = game_id("L")


def factory(url: str) -> functools.partial[Link]:
    return functools.partial(Link, RelayAddress.parse(url))


class Heard:
    """What the game behind a :class:`Links` was given, and what it was told of the relays."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, bytes]] = []
        self.told: list[tuple[bool, str]] = []
        self.connected: list[str] = []

    async def line(self, topic: str, payload: bytes, retained: bool) -> None:
        self.lines.append((topic, payload))

    def state(self, up: bool, sentence: str) -> None:
        self.told.append((up, sentence))

    async def connect(self, link: Link) -> None:
        self.connected.append(link.address.url)

    async def until(self, check, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not check():
                await asyncio.sleep(0.02)


def links_to(urls: list[str], heard: Heard) -> Links:
    return Links([factory(url) for url in urls], on_line=heard.line, on_state=heard.state, on_connect=heard.connect)


@contextlib.asynccontextmanager
async def linked_to_two(tmp_path, second_kind: str) -> AsyncIterator[tuple[Relay, Relay, Heard, Links]]:
    """An embedded relay and another, and a Links to both subscribed to the game, once both are connected."""
    first, second = await started(tmp_path, "a"), await started(tmp_path, "b", second_kind)
    heard = Heard()
    links = links_to([first.url, second.url], heard)
    try:
        await links.subscribe(f"olixono/1/games/{GAME}/#")
        async with links:
            await heard.until(lambda: len(heard.connected) == 2)
            yield first, second, heard, links
    finally:
        await first.stop()
        await second.stop()


@pytest.mark.network
async def test_a_line_goes_to_every_relay_and_comes_back_once(tmp_path):
    topic, line = topic_of(GAME, WRITER, "chat-1"), signed_line(WRITER, GAME, "chat-1")
    other_topic, other = topic_of(GAME, WRITER, "chat-2"), signed_line(WRITER, GAME, "chat-2")
    async with linked_to_two(tmp_path, "mosquitto") as (first, second, heard, links):
        assert links.send(topic, line.decode())
        async with second.client() as stranger:  # a line only the second relay has: it comes once
            await stranger.publish(other_topic, other, qos=1, retain=True)
        await heard.until(lambda: (other_topic, other) in heard.lines and (topic, line) in heard.lines)
        await asyncio.sleep(0.3)  # the echo of our line from the other relay too
        assert heard.lines.count((topic, line)) == 1 and heard.lines.count((other_topic, other)) == 1
        for relay in (first, second):  # each relay keeps our line
            async with relay.client() as late:
                await late.subscribe(topic, qos=1)
                assert (await gather_messages(late, topic, count=1)).get(topic) == line


async def test_a_relay_down_at_the_start_costs_nothing_and_is_seeded_when_it_comes_up(tmp_path):
    first = await started(tmp_path, "a")
    late_port = free_port()
    heard = Heard()
    late_url = f"mqtt://127.0.0.1:{late_port}"
    links = links_to([first.url, late_url], heard)
    topic, line = topic_of(GAME, WRITER, "chat-1"), signed_line(WRITER, GAME, "chat-1")
    late = None
    try:
        await links.subscribe(f"olixono/1/games/{GAME}/#")
        async with links:
            await heard.until(lambda: heard.connected == [first.url])
            assert links.connected and links.send(topic, line.decode())
            await heard.until(lambda: (topic, line) in heard.lines)
            late = await started(tmp_path, "b", port=late_port)  # it comes up: its link connects by itself
            await heard.until(lambda: late_url in heard.connected, timeout=40)
            assert any("relay back: R2" in said for _, said in heard.told)
            await first.stop()  # and the first goes: the game plays on through the second
            await heard.until(
                lambda: any("relay lost: R1" in said and "playing on through R2" in said for _, said in heard.told),
                timeout=40,
            )
            assert links.connected
            topic2, line2 = topic_of(GAME, WRITER, "chat-2"), signed_line(WRITER, GAME, "chat-2")
            assert links.send(topic2, line2.decode())
            await heard.until(lambda: (topic2, line2) in heard.lines)
    finally:
        await first.stop()
        if late is not None:
            await late.stop()


@pytest.mark.network
async def test_a_line_asked_for_again_reaches_the_game_again(tmp_path):
    """The game asks a relay for its lines again when it dropped some (a resync): what the relays send from their
    store then reaches it, though the same lines came before."""
    topic, line = topic_of(GAME, WRITER, "chat-1"), signed_line(WRITER, GAME, "chat-1")
    async with linked_to_two(tmp_path, "embedded") as (_, _, heard, links):
        links.send(topic, line.decode())
        await heard.until(lambda: (topic, line) in heard.lines)
        await asyncio.sleep(0.3)
        before = heard.lines.count((topic, line))
        await links.resubscribe(f"olixono/1/games/{GAME}/#")
        await heard.until(lambda: heard.lines.count((topic, line)) > before)


async def test_a_relay_given_up_on_ends_that_relay_only(tmp_path):
    """``--timeout``: a relay unreachable that long is given up on; the game goes on through the other, and only when
    every relay has ended does the block end, with the error."""
    from client.shell.transport import RelayError

    first = await started(tmp_path, "a")
    dead = f"mqtt://127.0.0.1:{free_port()}"
    heard = Heard()
    links = Links(
        [functools.partial(Link, RelayAddress.parse(url), give_up=0.5) for url in (first.url, dead)],
        on_line=heard.line,
        on_state=heard.state,
        on_connect=heard.connect,
    )
    topic, line = topic_of(GAME, WRITER, "chat-1"), signed_line(WRITER, GAME, "chat-1")
    ended: RelayError | None = None
    try:
        await links.subscribe(f"olixono/1/games/{GAME}/#")
        async with links:
            await heard.until(
                lambda: any("relay lost: R2" in said and "given up" in said for _, said in heard.told), timeout=20
            )
            assert links.send(topic, line.decode())
            await heard.until(lambda: (topic, line) in heard.lines)
            await first.stop()  # the last one goes: the block ends (cancelled), and raises the relays' error
            await asyncio.sleep(60)
    except RelayError as error:
        ended = error
    finally:
        await first.stop()
    assert ended is not None and "stayed unreachable" in str(ended)
    assert any("relay lost: R1" in said for _, said in heard.told)


async def test_two_players_on_two_relays_play_on_when_one_dies_and_either_relay_alone_has_the_game(tmp_path):
    from network_helpers import Seat, game_id_of, transcript

    from client.flows import network
    from protocol import GameSession, verify_transcript

    first, second = await started(tmp_path, "a"), await started(tmp_path, "b", "mosquitto")
    try:
        host = Seat(tmp_path, "host", Both(first, second), bot="random", seed=7)
        hosting = asyncio.create_task(network.host("olix", host.options))
        game = await game_id_of(host)
        assert f"olixono join {game} --relay {first.url} --relay {second.url}" in host.text()
        guest = Seat(tmp_path, "guest", Both(first, second), bot="random", seed=8)
        joining = asyncio.create_task(network.join(game, guest.options))
        async with asyncio.timeout(30):
            while len(transcript(host, game)) < 12:
                await asyncio.sleep(0.02)
        await first.stop()  # the embedded relay dies mid-game: it plays on through Mosquitto
        async with asyncio.timeout(90):
            assert await joining == 0 and await hosting == 0
        assert transcript(host, game) == transcript(guest, game)
        assert any(f"relay back: R2 ({second.url})" in line for line in host.lines)  # said as it is, once
        async with second.client() as late:  # a watcher on the surviving relay alone gets the whole game
            await late.subscribe(f"olixono/1/games/{game}/#", qos=1)
            kept = await gather_messages(late, f"olixono/1/games/{game}/#", timeout=2)
        watcher = GameSession(game)
        for payload in kept.values():
            watcher.receive(payload)
        session, _, problem = verify_transcript([line.encode() for line in watcher.transcript])
        assert problem is None and session.result is not None
        assert on_the_chain(watcher.transcript) == transcript(host, game)
        await first.start()  # the dead relay comes back on its port, empty: it has none of the game
        exporter = Seat(tmp_path, "exporter", Both(first, second))  # no journal: the record from the relays
        assert await network.export(game, exporter.options) == 0
        exported = on_the_chain(exporter.lines[-1].split("\n"))
        assert exported == transcript(host, game)  # every relay that answers is waited for, the empty one too
    finally:
        await first.stop()
        await second.stop()


@pytest.mark.parametrize("trouble", ["withholds the host's lines", "delays everything by 2 s"])
async def test_a_relay_that_withholds_or_delays_changes_nothing_while_another_works(tmp_path, trouble):
    """One of two relays, behind the chaos proxy, never forwards the host's lines live, or holds every packet 2 s:
    the lines come through the other, and the game ends as it would on one good relay, without asking again."""
    from network_helpers import Seat, Via, game_id_of, transcript

    from client.flows import network
    from harness.chaos import Chaos, ChaosProxy

    first, second = await started(tmp_path, "a"), await started(tmp_path, "b", "mosquitto")
    chaos = Chaos(seed=3, delay=2.0 if "delays" in trouble else 0.0)
    try:
        async with ChaosProxy(first.port, chaos) as proxy:
            relays = Both(Via(proxy.port), second)
            host = Seat(tmp_path, "host", relays, bot="random", seed=3)
            guest = Seat(tmp_path, "guest", relays, bot="random", seed=4)
            hosting = asyncio.create_task(network.host("oxono", host.options))
            try:
                game = await game_id_of(host, timeout=20)
                if "withholds" in trouble:
                    chaos.withhold = host.identity.public.text
                async with asyncio.timeout(120):
                    assert await network.join(game, guest.options) == 0, guest.text()
                    assert await hosting == 0, host.text()
            finally:
                hosting.cancel()
                await asyncio.gather(hosting, return_exceptions=True)
        assert transcript(host, game) == transcript(guest, game)
        assert "asked the relay again" not in guest.text()  # the other relay brought every line in time
        if "withholds" in trouble:
            assert proxy.counts.withheld > 0
    finally:
        await first.stop()
        await second.stop()


async def test_logging_in_asks_every_relay_at_once_and_a_silent_one_is_a_warning(tmp_path):
    """The relays are asked at once, and one that accepts connections and never answers (a firewall, a hostile host)
    is a warning while another answers, never the whole command's failure after every relay was asked in turn."""
    from client.flows import network
    from protocol import Identity

    first = await started(tmp_path, "a")

    warned: list[str] = []
    try:
        async with silent_relay() as port:
            options = network.Options(relay=f"{first.url} mqtt://127.0.0.1:{port}", warn=warned.append, environ={})
            address, _ = network.relay_address(options)
            await network.log_in(options, address, Identity.generate())
            assert len(warned) == 1 and f"127.0.0.1:{port}" in warned[0] and "playing through the other" in warned[0]
            options.relay = f"mqtt://127.0.0.1:{port}"
            with pytest.raises(network.Failure):
                await network.log_in(options, network.relay_address(options)[0], Identity.generate())
    finally:
        await first.stop()
