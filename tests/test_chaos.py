"""Games through the chaos proxy (harness/chaos.py): a lost delivery, a relay that withholds, a half-open connection.

A relay (or a bridge) that drops one line on its way to one player must not stall the game, in silence or
otherwise. Each test here plays whole bot games between two clients in this process, one or both behind the proxy,
against a real relay of each kind, and fails on a client that waits for ever on a line it will never be sent.
"""

from __future__ import annotations

import asyncio
import random
import threading

import aiomqtt
import pytest
from network_helpers import Seat, Via, game_id_of, transcript
from relay_fixtures import Relay, needs_mosquitto, port_of

from client.flows import network
from harness.chaos import DOWN, UP, Chaos, ChaosProxy
from harness.mqtt import bare_client
from protocol import Identity, verify_transcript
from protocol.clock import TimeControl

pytestmark = needs_mosquitto


async def play_through(
    relay: Relay,
    tmp_path,
    chaos: Chaos,
    *,
    kind: str = "oxono",
    seed: int = 1,
    both: bool = False,
    timeout: float = 45.0,
    host_identity: Identity | None = None,
    control: TimeControl | None = None,
) -> tuple[Seat, Seat, str, ChaosProxy]:
    """A whole bot game (``control``: timed): the host on the relay itself (or behind the proxy too, ``both``), the
    guest behind it."""
    async with ChaosProxy(relay.port, chaos) as proxy:
        host = Seat(tmp_path, "host", Via(proxy.port) if both else relay, bot="random", seed=seed, control=control)
        if host_identity is not None:
            host.identity = host.options.identity = host_identity
        guest = Seat(tmp_path, "guest", Via(proxy.port), bot="random", seed=seed + 1)
        hosting = asyncio.create_task(network.host(kind, host.options))
        try:
            game = await game_id_of(host, timeout=20)
            try:
                async with asyncio.timeout(timeout):
                    assert await network.join(game, guest.options) == 0, guest.text()
                    assert await hosting == 0, host.text()
            except TimeoutError:
                raise AssertionError(
                    f"the game did not finish in {timeout:g} s ({proxy.counts.text()}):\n"
                    f"host:\n{host.text()[-3000:]}\nguest:\n{guest.text()[-3000:]}"
                ) from None
        finally:
            hosting.cancel()
            await asyncio.gather(hosting, return_exceptions=True)
    lines = transcript(host, game)
    assert lines == transcript(guest, game)
    session, _, problem = verify_transcript(lines)
    assert problem is None and session.result is not None
    return host, guest, game, proxy


async def test_the_proxy_loses_what_it_is_told_to_and_acknowledges_it():
    """The harness itself: a lost QoS 1 line is acknowledged to its publisher (it never hangs) and never arrives."""
    from relay.embedded import running

    async with (
        running() as embedded,
        ChaosProxy(port_of(embedded), Chaos(drop=lambda c, d, n, t: d == UP and n == 2)) as proxy,
    ):

        def client(port: int) -> aiomqtt.Client:
            return bare_client(port, timeout=5)

        async with client(port_of(embedded)) as reader, client(port_of(proxy)) as writer:
            await reader.subscribe("olixono/1/x/#", qos=1)
            for n in range(1, 4):
                await writer.publish(f"olixono/1/x/{n}", b"line", qos=1)
            got = []
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.5):
                    async for message in reader.messages:
                        got.append(str(message.topic))
    assert got == ["olixono/1/x/1", "olixono/1/x/3"]
    assert proxy.counts.dropped == 1


@pytest.mark.parametrize("direction", [DOWN, UP])
@pytest.mark.parametrize("pick", [0, 1, 2])
async def test_one_lost_delivery_never_stops_a_game(any_relay, tmp_path, direction, pick):
    """One PUBLISH lost between the guest and the relay (to it, or from it), somewhere in the game (after the
    catch-up): the game finishes all the same, within seconds."""
    chosen = random.Random(f"{direction}/{pick}").randint(6, 24)
    lost: list[str] = []

    def drop(connection: int, way: str, number: int, topic: str) -> bool:
        if way == direction and number == chosen and not lost:
            lost.append(topic)
            return True
        return False

    loop = asyncio.get_running_loop()
    started = loop.time()
    _host, _guest, _game, proxy = await play_through(any_relay, tmp_path, Chaos(seed=pick, drop=drop), seed=pick + 3)
    assert proxy.counts.dropped == 1, "the game ended before the chosen delivery: choose an earlier one"
    assert loop.time() - started < 30


@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_a_move_lost_on_its_way_to_the_player_who_waits_for_it_is_fetched_again(any_relay, tmp_path, kind):
    """One move of the host's never reaches the guest, though the relay retains it; both see each
    other present. The host sees no copy of it from the guest and sends it again."""
    host_key = Identity.generate()
    lost: list[str] = []

    def drop(connection: int, way: str, number: int, topic: str) -> bool:
        slot = topic.rsplit("/", 1)[-1]
        if way == DOWN and f"/{host_key.public.text}/" in topic and slot.isdigit() and int(slot) >= 6 and not lost:
            lost.append(topic)
            return True
        return False

    host, guest, _, proxy = await play_through(
        any_relay, tmp_path, Chaos(drop=drop), kind=kind, seed=8, host_identity=host_key
    )
    assert lost and proxy.counts.dropped == 1
    assert "sent it again" in host.text() or "asked the relay again" in guest.text()


async def test_a_relay_that_withholds_one_players_live_lines_does_not_stop_the_game(any_relay, tmp_path):
    """The relay keeps the host's lines (retained) but never forwards them live to the guest: the guest asks again
    when the host is quiet though here, and the game finishes. (The asking is the client's own: one relay is enough.)"""
    if any_relay.kind != "embedded":
        pytest.skip("the asking is the client's own, the same on every relay")
    chaos = Chaos(seed=4)
    async with ChaosProxy(any_relay.port, chaos) as proxy:
        host = Seat(tmp_path, "host", any_relay, bot="random", seed=5)
        guest = Seat(tmp_path, "guest", Via(proxy.port), bot="random", seed=6)
        hosting = asyncio.create_task(network.host("oxono", host.options))
        try:
            game = await game_id_of(host)
            chaos.withhold = host.identity.public.text
            async with asyncio.timeout(90):
                assert await network.join(game, guest.options) == 0, guest.text()
                assert await hosting == 0, host.text()
        finally:
            hosting.cancel()
            await asyncio.gather(hosting, return_exceptions=True)
    assert transcript(host, game) == transcript(guest, game)
    assert proxy.counts.withheld > 0
    assert "asked the relay again" in guest.text()


@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_games_finish_through_loss_duplication_reordering_and_jitter(any_relay, tmp_path, kind):
    chaos = Chaos(seed=11, loss=0.03, duplicate=0.05, reorder=0.05, delay=0.002, jitter=0.01)
    _, _, _, proxy = await play_through(any_relay, tmp_path, chaos, kind=kind, both=True, timeout=300)
    assert proxy.counts.dropped and proxy.counts.duplicated and proxy.counts.reordered


async def test_half_open_connections_are_noticed_and_made_again(any_relay, tmp_path):
    """The proxy goes silent both ways now and then, the sockets left open (TCP notices nothing, and the keepalive
    only after 45 s): a line of ours that never comes back, or a request never answered, makes the client connect
    again, and the game finishes. (The client notices alike on either relay: the embedded one is enough here.)"""
    if any_relay.kind != "embedded":
        pytest.skip("the detection is the client's own, the same on every relay")
    chaos = Chaos(seed=3, silence_after=120)
    _, _, _, proxy = await play_through(any_relay, tmp_path, chaos, both=True, timeout=150)
    assert proxy.counts.silenced >= 2


async def test_honest_bots_under_50_ms_of_jitter_leave_no_thinking_unexplained(any_relay, tmp_path):
    """Through the proxy's fixed and jittery latency (both players behind it), every move receipted; what
    the receipts leave unexplained stays within the slack a move allows for jitter."""
    if any_relay.kind != "embedded":
        pytest.skip("the receipts are the clients' own, the same on every relay")
    chaos = Chaos(seed=5, delay=0.005, jitter=0.05)
    host, _guest, game, _ = await play_through(
        any_relay, tmp_path, chaos, kind="olix", both=True, timeout=120, control=TimeControl.parse("3+2")
    )
    session, _, problem = verify_transcript(transcript(host, game))
    used = session.time_used()
    assert problem is None and all(side.measured >= side.moves - 1 > 0 for side in used.values()), used
    assert sum(side.unexplained for side in used.values()) < 1000, used


class Hanging:
    """A bot that stops thinking after ``moves`` moves: its thread waits until ``released`` (the client around it
    goes on: its clock runs out, and it concedes when claimed against)."""

    def __init__(self, bot, moves: int, released: threading.Event) -> None:
        self.bot, self.moves, self.released = bot, moves, released

    def choose(self, board):
        if self.moves == 0:
            self.released.wait(600)
        self.moves -= 1
        return self.bot.choose(board)

    def answer_end(self, board, player):
        return self.bot.answer_end(board, player)


@pytest.mark.parametrize(
    "control, how",
    [
        pytest.param("0:05+1", "hangs", id="5s+1-hangs"),
        pytest.param("3+2", "stops", id="3+2-stops", marks=pytest.mark.slow),
    ],
)
async def test_a_bot_game_ends_on_time_when_one_bot_stops(any_relay, tmp_path, monkeypatch, control, how):
    """Two bots through the proxy's latency; after three moves the guest's bot stops. The host, set up to
    claim (``--claim auto``), flags once the guest's clock and the grace have run out by its watch. A bot that hangs
    in a client that goes on concedes at once (its own clock is out too); a process that stopped answers nothing,
    and the host ends the game when the answer window has passed. A win on time for every reader of the record.
    (CI plays the first, in 0:05+1; a 3+2 game with a stopped process takes four minutes: the long run's.)"""
    if any_relay.kind != "embedded":
        pytest.skip("the claims are the clients' own, the same on every relay")
    from olixono import bots

    released = threading.Event()
    made = bots.make_bot

    def make_bot(level, **kwargs):
        bot = made(level, **kwargs)
        return Hanging(bot, 2, released) if how == "hangs" and kwargs.get("seed") == 5 else bot

    monkeypatch.setattr(bots, "make_bot", make_bot)
    clock = TimeControl.parse(control)
    async with ChaosProxy(any_relay.port, Chaos(seed=9, delay=0.005, jitter=0.02)) as proxy:
        host = Seat(tmp_path, "host", Via(proxy.port), bot="random", seed=4, control=clock, auto_claim=True)
        guest = Seat(tmp_path, "guest", Via(proxy.port), bot="random", seed=5)
        hosting = asyncio.create_task(network.host("olix", host.options))
        joining: asyncio.Task[int] | None = None
        try:
            game = await game_id_of(host, timeout=20)
            joining = asyncio.create_task(network.join(game, guest.options))
            async with asyncio.timeout(30):
                while not any(line.startswith("move 3 ") for line in guest.lines):
                    await asyncio.sleep(0.02)
            if how == "stops":
                joining.cancel()  # the guest's process stops, mid-game
                await asyncio.gather(joining, return_exceptions=True)
            async with asyncio.timeout(clock.base_ms / 1000 + 60):
                assert await hosting == 0, host.text()[-3000:]
        finally:
            released.set()
            for task in (hosting, joining):
                if task is not None:
                    task.cancel()
            await asyncio.gather(hosting, *([joining] if joining else []), return_exceptions=True)
    session, _, problem = verify_transcript(transcript(host, game))
    result = session.result
    assert problem is None and result is not None and result.reason == "time", result
    assert result.winner_key == host.identity.public
    expected = "conceded" if how == "hangs" else "the claim went unanswered"
    assert expected in result.sentence(), result.sentence()
