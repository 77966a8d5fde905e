"""One game over relays that are open to strangers, late, restarted, or not the same for both players, with the real
commands (``network.host``, ``join``, ``watch``, ``export``, ``resume``) and bot seats.

- An open broker as public brokers run (Mosquitto, anonymous, no ACL at all: anyone publishes anywhere, the players'
  topics too; retained messages kept on disk) beside an embedded relay, while a stranger on the open broker erases,
  replaces and floods the game's topics.
- A relay that is down when the game starts and comes up on its port later.
- Both relays restarted mid-game, one at a time: keeping their store (``--data``), or coming back empty.
- A guest whose relays differ from the host's but for one.

After each game, a watcher and an exporter given one relay alone get the whole game, and it verifies. Every relay
runs on a free 127.0.0.1 port, started and stopped (processes by their PID) by the test that needs it; every wait is
bounded.

Each attack here fails on a client or relay that lets it through: live junk on a player's topic must not spend the
restores of every line of its own (so that an erasure later is still put back); a finished runner's count timer must
not hold its seat locked in the process; ``olixono relay`` must heed SIGTERM while a client is sending.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from network_helpers import Addressed, Both, Seat, game_id_of, on_the_chain, started, transcript
from relay_fixtures import WRITER, Relay, RelayProcess, needs_mosquitto, signed_line

from client.flows import network
from client.frontends.plain import bot_front
from client.shell.journal import Journal, JournalError
from harness.mqtt import bare_client
from olixono.bots import Analysis, make_bot
from protocol import GameSession, Identity, game_filter, verify_transcript
from protocol.topics import GAMES
from relay.mosquitto import MosquittoProcess, free_port
from relay.rules import AUTOSAVE_CHANGES

pytestmark = pytest.mark.network

PAUSE = 0.12
"""Seconds a bot takes over each move: an Oxono game (~30 moves) lasts ~4 s, an Olix game (~90 moves) ~11 s."""
GAME_SECONDS = 45.0
"""The most one game may take, from the host's offer to both players' exit."""
LOOK_SECONDS = 30.0
"""The most a watcher or an exporter may take to read a finished game from one relay."""


class RelayLacksLines(AssertionError):
    """A relay alone does not hold the whole game."""


# -- seats, games and what each relay alone holds ---------------------------------------------------------------
async def until(check: Callable[[], bool], timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        await asyncio.sleep(0.02)


async def ended(tasks: list[asyncio.Task[Any]], seconds: float = 20.0) -> None:
    """The tasks a test started (its seats, its strangers), cancelled until each has ended, at most ``seconds``: on
    Python 3.11 a task blocked in an MQTT request may swallow one cancellation and carry on (CPython gh-86296), so
    it is cancelled again."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    pending = {task for task in tasks if not task.done()}
    while pending and loop.time() < deadline:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=1.0)
    for task in tasks:  # what they raised, retrieved (a test that failed has said why already)
        if task.done() and not task.cancelled():
            task.exception()
    assert not pending, f"still running {seconds:g} s after being cancelled: {pending}"


async def bounded(work: Coroutine[Any, Any, int], seconds: float, what: str) -> int:
    """What a command (``work``) returns, in a task of its own, which is cancelled should it take over ``seconds``."""
    task = asyncio.create_task(work)
    try:
        await finished(task, seconds, what)
        return task.result()
    finally:
        await ended([task])


async def finished(task: asyncio.Task[Any], seconds: float, what: str) -> None:
    """Until ``task`` ends by itself, at most ``seconds`` (not cancelled on the way: :func:`ended` does that)."""
    done, _ = await asyncio.wait([task], timeout=seconds)
    assert done, f"not within {seconds:g} s: {what}"
    task.result()


def seat_held(seat: Seat, game: str) -> bool:
    """Whether this process still holds ``seat``'s journal of ``game`` (its lock)."""
    journal = Journal.open(game, seat.options.journal_dir)
    try:
        journal.lock()
    except JournalError:
        return True
    finally:
        journal.close()
    return False


def moves_of(seat: Seat) -> int:
    """The moves this seat has printed (``move 7 black …``)."""
    return sum(line.startswith("move ") for line in seat.lines)


def said(seat: Seat, text: str) -> int:
    return sum(text in line for line in seat.lines)


class Paced:
    """A random bot that takes ``pause`` seconds over each move (in the bot's thread, as a searching bot would), so
    that a game lasts long enough for things to happen to its relays mid-game, however soon it is decided."""

    level = "random"
    analysis: Analysis | None = None

    def __init__(self, seed: int, pause: float) -> None:
        self.bot, self.pause = make_bot("random", seed=seed), pause

    def choose(self, board: Any) -> Any:
        time.sleep(self.pause)
        return self.bot.choose(board)

    def answer_end(self, board: Any, player: str) -> bool:
        return self.bot.answer_end(board, player)


def bot_seat(tmp_path: Path, name: str, relays: Addressed, seed: int, pause: float = PAUSE) -> Seat:
    """A seat held by a paced random bot (the same front end as ``--bot``, given the bot)."""
    seat = Seat(tmp_path, name, relays)
    seat.options.console = bot_front(Paced(seed, pause), seat.options.write)
    return seat


async def played_to_the_end(
    hosting: asyncio.Task[int],
    joining: asyncio.Task[int],
    host: Seat,
    guest: Seat,
    game: str,
    timeout: float = GAME_SECONDS,
) -> list[str]:
    """Both seats end with status 0, the game over, with the same transcript, which verifies; that transcript."""
    try:
        await finished(joining, timeout, "the guest's end of the game")
        assert joining.result() == 0, guest.text()
        await finished(hosting, 20, "the host's end of the game")
        assert hosting.result() == 0, host.text()
    finally:
        await ended([hosting, joining])
    played = transcript(host, game)
    assert played == transcript(guest, game)
    session, _, problem = verify_transcript([line.encode() for line in played])
    assert problem is None and session.result is not None
    result = f"result: {session.result.sentence()}"
    assert result in host.text() and result in guest.text()
    return played


async def whole_game_on(tmp_path: Path, name: str, relay: Addressed, played: list[str]) -> None:
    """An exporter, then a watcher, given ``relay`` alone (no journal) get the whole game ``played``, and it
    verifies; :class:`RelayLacksLines` when the relay's record is shorter or other."""
    session = GameSession.restore(played)
    assert session.result is not None
    exporter = Seat(tmp_path, f"export-{name}", relay)
    try:
        status = await bounded(
            network.export(session.game_id or "", exporter.options), LOOK_SECONDS, f"export ({name})"
        )
    except network.Failure as failure:
        raise RelayLacksLines(f"{name}: {failure}") from None
    assert status == 0, exporter.text()
    record = exporter.lines[-1].split("\n")
    kept = on_the_chain(record)
    if kept != played:
        raise RelayLacksLines(f"{name} holds {len(kept)} of the game's {len(played)} lines")
    verified, _, problem = verify_transcript([line.encode() for line in record])
    assert problem is None and verified.result is not None and verified.result.code() == session.result.code()
    watcher = Seat(tmp_path, f"watch-{name}", relay, plain=True)
    watching = network.watch(session.game_id or "", watcher.options)
    assert await bounded(watching, LOOK_SECONDS, f"watch ({name})") == 0, watcher.text()
    assert moves_of(watcher) == session.moves, watcher.text()
    assert f"result: {session.result.sentence()}" in watcher.text()


# -- an open broker and a stranger on it -----------------------------------------------------------------------
class OpenBroker:
    """Mosquitto as public brokers run it: anonymous, no ACL at all (anyone publishes anywhere, the players' topics
    too), retained messages kept on disk. Its configuration is written here, not by ``relay.mosquitto``."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.process: MosquittoProcess | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def config(self) -> Path:
        data = self.workdir / "data"
        data.mkdir(parents=True, exist_ok=True)
        conf = self.workdir / "mosquitto.conf"
        conf.write_text(
            "\n".join(
                [
                    "# an open broker: anyone connects, reads and publishes anywhere (no password_file, no acl_file)",
                    "user root",  # read only when started as root: keeps the data folder ours
                    f"listener {self.port} 127.0.0.1",
                    "allow_anonymous true",
                    "persistence true",
                    f"persistence_location {data}/",
                    "autosave_on_changes true",
                    f"autosave_interval {AUTOSAVE_CHANGES}",
                    "log_dest stderr",
                    "",
                ]
            )
        )
        return conf

    async def start(self) -> OpenBroker:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.process = await asyncio.to_thread(MosquittoProcess(self.config(), self.port).start)
        return self

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            await asyncio.to_thread(process.stop)

    def client(self) -> aiomqtt.Client:
        return bare_client(self.port)


@contextlib.asynccontextmanager
async def open_broker_beside_an_embedded_relay(
    tmp_path: Path,
) -> AsyncIterator[tuple[OpenBroker, Relay, list[asyncio.Task[Any]]]]:
    """An open broker and an embedded relay, started, and a list for the tasks the test starts: on the way out,
    those tasks are ended, then both relays stopped."""
    broker = await OpenBroker(tmp_path / "open").start()
    other: Relay | None = None
    tasks: list[asyncio.Task[Any]] = []
    try:
        other = await started(tmp_path, "embedded")
        yield broker, other, tasks
    finally:
        try:
            await ended(tasks)
        finally:
            if other is not None:
                await other.stop()
            await broker.stop()


class Stranger:
    """A hostile client of the open broker, reading the game's topics: each line a player leaves there it erases (an
    empty retained payload), replaces with other bytes, or replaces with a line signed by its own key, in turn, at
    most ``reactions`` times; meanwhile it floods the game's topics (its own and the players') with junk and forged
    lines, retained or not, ``flood`` of them at most; until told to stop."""

    def __init__(self, broker: OpenBroker, game: str, *, reactions: int = 300, flood: int = 500, seed: int = 0) -> None:
        self.broker, self.game = broker, game
        self.most = {"react": reactions, "flood": flood}
        self.identity = Identity.generate()
        self.rng = random.Random(seed)
        self.players: list[str] = []  # the keys seen holding lines in the game
        self.done = {"erased": 0, "replaced": 0, "forged": 0, "junk": 0}
        self.spent = {"react": 0, "flood": 0}
        self.stop = asyncio.Event()
        self._mine: set[bytes] = set()

    async def run(self, timeout: float = GAME_SECONDS) -> None:
        async with self.broker.client() as client:
            await client.subscribe(game_filter(self.game), qos=1)
            tasks = [asyncio.create_task(self._react(client)), asyncio.create_task(self._flood(client))]
            try:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await self.stop.wait()
            finally:
                await ended(tasks, 10)

    async def _publish(
        self, client: aiomqtt.Client, budget: str, kind: str, topic: str, payload: bytes, retain: bool
    ) -> None:
        """One publication: QoS 1 for what it does to the players' lines, QoS 0 for the flood (no wait for each)."""
        self.spent[budget] += 1
        self.done[kind] += 1
        self._mine.add(payload)
        await client.publish(topic, payload, qos=1 if budget == "react" else 0, retain=retain)

    def _forged(self, slot: str) -> bytes:
        """A line signed by the stranger for ``slot`` (a move's seq, a chat, a presence; else a chat line)."""
        text = str(self.rng.random())
        if slot.isdigit() or slot == "presence" or (slot.startswith("chat-") and slot[5:].isdigit()):
            return signed_line(self.identity, self.game, slot, text)
        return signed_line(self.identity, self.game, f"chat-{self.rng.randint(1, 200)}", text)

    async def _react(self, client: aiomqtt.Client) -> None:
        turn = 0
        async for message in client.messages:
            if self.spent["react"] >= self.most["react"]:
                return
            topic = message.topic.value
            parts, payload = topic.split("/"), bytes(message.payload)
            if len(parts) < 6 or not payload or payload in self._mine or parts[4] == self.identity.public.text:
                continue
            if parts[4] not in self.players:
                self.players.append(parts[4])
            turn += 1
            if turn % 3 == 1:
                await self._publish(client, "react", "erased", topic, b"", True)
            elif turn % 3 == 2:
                junk = b"olixono/1 move game=" + self.game.encode() + b" junk"
                await self._publish(client, "react", "replaced", topic, junk, True)
            else:
                await self._publish(client, "react", "forged", topic, self._forged(parts[-1]), True)

    async def _flood(self, client: aiomqtt.Client) -> None:
        me = self.identity.public.text
        while self.spent["flood"] < self.most["flood"]:
            for _ in range(20):
                key = self.rng.choice([me, *self.players])
                slot = self.rng.choice(
                    [
                        str(self.rng.randint(1, 120)),
                        f"chat-{self.rng.randint(1, 50)}",
                        "presence",
                        f"copy/{self.rng.randbytes(4).hex()}",
                        f"confirm-{self.rng.randint(1, 3)}",
                    ]
                )
                if self.rng.random() < 0.5:
                    kind, payload = "forged", self._forged(slot.rsplit("/", 1)[-1])
                else:
                    kind, payload = (
                        "junk",
                        self.rng.choice(
                            [
                                b"\xff\xfe garbage",
                                b"olixono/1 move game=" + self.game.encode(),
                                self.rng.randbytes(40),
                                b"x" * self.rng.randint(1, 3000),
                            ]
                        ),
                    )
                retain = key == me or self.rng.random() < 0.2
                await self._publish(client, "flood", kind, f"{GAMES}/{self.game}/{key}/{slot}", payload, retain)
            await asyncio.sleep(0.02)


@needs_mosquitto
@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_a_game_through_an_open_broker_and_another_relay_while_a_stranger_attacks_it(tmp_path, kind):
    """The game goes through an open broker and an embedded relay, while a stranger on the open broker erases,
    replaces and floods the game's lines (hundreds) from the offer on, and stops a few moves in. Asserted: both
    players finish with the same game, which verifies; the embedded relay alone holds all of it (watcher, exporter).
    The open broker alone holds all of it once a player takes the finished game up again (``resume`` publishes what
    a relay lacks): what the players put back during the game is not asserted here (the stranger clears lines as
    fast as they come back: a player stops after a while, see the next test)."""
    async with open_broker_beside_an_embedded_relay(tmp_path) as (broker, other, tasks):
        relays = Both(broker, other)
        host, guest = bot_seat(tmp_path, "host", relays, 11), bot_seat(tmp_path, "guest", relays, 12)
        hosting = asyncio.create_task(network.host(kind, host.options))
        tasks.append(hosting)
        game = await game_id_of(host, timeout=20)
        stranger = Stranger(broker, game, seed=13)
        attacking = asyncio.create_task(stranger.run())
        tasks.append(attacking)
        await until(lambda: stranger.spent["flood"] >= 250, 20, "the stranger's first 250 lines")  # then the guest
        joining = asyncio.create_task(network.join(game, guest.options))
        tasks.append(joining)
        stop_at = 4 if kind == "oxono" else 12
        await until(lambda: moves_of(host) >= stop_at or hosting.done(), GAME_SECONDS, f"move {stop_at}")
        stranger.stop.set()
        await finished(attacking, 30, "the stranger's leaving")
        assert not hosting.done(), "the game ended while the stranger was at it"
        played = await played_to_the_end(hosting, joining, host, guest, game)
        assert len(stranger.players) == 2, stranger.players
        assert stranger.spent["flood"] >= 250 and stranger.spent["react"] >= 20, stranger.spent
        assert all(stranger.done.values()), stranger.done
        assert said(host, "line rejected") + said(host, "ignored ") > 0  # its lines came to the players, refused
        await whole_game_on(tmp_path, "embedded", other, played)
        assert not seat_held(host, game), "the host's seat is still held by this process after network.host returned"
        resumed = Seat(tmp_path, "host", relays, plain=True)  # the host's journal folder and identity: over, it
        # publishes what each relay lacks and leaves
        resumed.identity = resumed.options.identity = host.identity
        assert await bounded(network.resume(game, resumed.options), GAME_SECONDS, "resume") == 0, resumed.text()
        await whole_game_on(tmp_path, "open", broker, played)


class Clearer:
    """A stranger on the open broker that first sends ``junk`` live (not retained) lines on the host's offer topic,
    which leaves what the broker retains as it was, then one retained, which replaces the offer there; then erases the
    next line the host publishes on its chain, and the guest's copy of it, once each; and nothing more."""

    def __init__(self, broker: OpenBroker, game: str, host: Identity, guest: Identity, junk: int = 25) -> None:
        self.broker, self.game, self.host, self.guest, self.junk = broker, game, host, guest, junk
        self.go = asyncio.Event()
        self.erased: bytes | None = None

    async def run(self, timeout: float = GAME_SECONDS) -> None:
        host_topics = f"{GAMES}/{self.game}/{self.host.public.text}/"
        async with self.broker.client() as client:
            async with asyncio.timeout(timeout):
                await self.go.wait()
                for n in range(self.junk):
                    await client.publish(host_topics + "offer", f"junk {n}".encode(), qos=1, retain=False)
                await client.publish(host_topics + "offer", b"junk kept", qos=1, retain=True)
                await asyncio.sleep(0.5)
                await client.subscribe(game_filter(self.game), qos=1)
                async for message in client.messages:
                    topic, payload = message.topic.value, bytes(message.payload)
                    if message.retain or not payload:
                        continue  # what the broker held before: only lines published from now on
                    if self.erased is None and topic.startswith(host_topics) and topic.rsplit("/", 1)[1].isdigit():
                        self.erased = payload  # the host's next line on the chain: gone from the broker
                        await client.publish(topic, b"", qos=1, retain=True)
                    elif self.erased is not None and payload == self.erased and "/copy/" in topic:
                        await client.publish(topic, b"", qos=1, retain=True)  # and the guest's copy of it
                        return


@needs_mosquitto
async def test_a_line_erased_once_on_an_open_broker_is_put_back_while_the_players_are_connected(tmp_path):
    """A stranger sends junk live on the host's offer topic (the broker keeps the offer: nothing is lost), then once
    retained (the broker keeps the junk in its place), then erases one of the host's lines, and the guest's copy of
    it, once each, and stops, early in a long game that both players play to its end connected to the broker. The open
    broker alone should then hold the whole game."""
    async with open_broker_beside_an_embedded_relay(tmp_path) as (broker, other, tasks):
        relays = Both(broker, other)
        host, guest = bot_seat(tmp_path, "host", relays, 21), bot_seat(tmp_path, "guest", relays, 22)
        hosting = asyncio.create_task(network.host("olix", host.options))
        tasks.append(hosting)
        game = await game_id_of(host, timeout=20)
        joining = asyncio.create_task(network.join(game, guest.options))
        clearer = Clearer(broker, game, host.identity, guest.identity)
        clearing = asyncio.create_task(clearer.run())
        tasks += [joining, clearing]
        await until(lambda: moves_of(host) >= 4, GAME_SECONDS, "move 4")
        clearer.go.set()
        await finished(clearing, GAME_SECONDS, "the stranger's junk and erasures")
        assert not hosting.done() and moves_of(host) < 40, "the stranger was done late in the game"
        played = await played_to_the_end(hosting, joining, host, guest, game)
        assert clearer.erased is not None and clearer.erased.decode() in played
        assert said(host, "relay lost: R") == 0 and said(guest, "relay lost: R") == 0  # connected to the end, both
        assert said(host, "no more this connection") == 0  # junk the broker did not keep spent no restore
        await whole_game_on(tmp_path, "embedded", other, played)
        await whole_game_on(tmp_path, "open", broker, played)


@needs_mosquitto
async def test_a_player_who_counted_a_strangers_lines_lets_go_of_its_seat_when_the_game_ends(tmp_path):
    """A stranger on the open broker sends junk to both players' topics (live, not retained) all game long, so that
    each player counts refused lines until the end. Once ``host`` has returned, this process should hold its seat no
    more: ``resume`` (or another seat's command in the same process) can take it at once."""
    broker = await OpenBroker(tmp_path / "open").start()
    tasks: list[asyncio.Task[Any]] = []
    try:
        host, guest = bot_seat(tmp_path, "host", broker, 61, 0.05), bot_seat(tmp_path, "guest", broker, 62, 0.05)
        hosting = asyncio.create_task(network.host("oxono", host.options))
        tasks.append(hosting)
        game = await game_id_of(host, timeout=20)
        joining = asyncio.create_task(network.join(game, guest.options))
        tasks.append(joining)

        async def junk() -> None:
            async with broker.client() as stranger, asyncio.timeout(GAME_SECONDS):
                while not hosting.done():
                    for seat in (host, guest):
                        topic = f"{GAMES}/{game}/{seat.identity.public.text}/chat-999"
                        await stranger.publish(topic, b"junk", qos=1)
                    await asyncio.sleep(0.05)

        tasks.append(asyncio.create_task(junk()))
        await played_to_the_end(hosting, joining, host, guest, game)
        assert said(host, "ignored ") > 0  # it counted refused lines
        if seat_held(host, game):
            raise AssertionError("the host's seat is still held by this process after network.host returned")
    finally:
        try:
            await ended(tasks)
        finally:
            await broker.stop()


# -- a relay that comes up late -------------------------------------------------------------------------------
async def test_a_relay_that_comes_up_mid_game_gets_the_whole_game(tmp_path):
    """The game starts with one relay up; the second (its port chosen before) comes up a few moves in: the players
    connect to it by themselves, publish there what it lacks, and finish; that late relay alone then holds the whole
    game."""
    first = await started(tmp_path, "first")
    late = Relay("embedded", tmp_path / "late", port=free_port())
    late.workdir.mkdir()
    tasks: list[asyncio.Task[Any]] = []
    try:
        relays = Both(first, late)
        host, guest = bot_seat(tmp_path, "host", relays, 31), bot_seat(tmp_path, "guest", relays, 32)
        hosting = asyncio.create_task(network.host("olix", host.options))
        tasks.append(hosting)
        game = await game_id_of(host, timeout=20)
        joining = asyncio.create_task(network.join(game, guest.options))
        tasks.append(joining)
        await until(lambda: moves_of(host) >= 4, GAME_SECONDS, "move 4")
        await late.start()
        late_back = f"relay back: R2 ({late.url})"
        await until(
            lambda: (said(host, late_back) > 0 and said(guest, late_back) > 0) or hosting.done(),
            GAME_SECONDS,
            "both players on the late relay",
        )
        assert not hosting.done(), "the game ended before the players reached the late relay"
        played = await played_to_the_end(hosting, joining, host, guest, game)
        await whole_game_on(tmp_path, "late", late, played)
        await whole_game_on(tmp_path, "first", first, played)
    finally:
        try:
            await ended(tasks)
        finally:
            await first.stop()
            await late.stop()


# -- relays restarted mid-game --------------------------------------------------------------------------------
async def restarted(
    relay: RelayProcess, name: str, at: int, *, host: Seat, guest: Seat, hosting: asyncio.Task[int]
) -> None:
    """At move ``at``, ``relay`` (``name``, as the players number it) killed and started again on its port; until
    both players are connected to it again, mid-game."""
    back = f"relay back: {name} ({relay.url})"
    await until(lambda: moves_of(host) >= at, GAME_SECONDS, f"move {at}")
    before = said(host, back), said(guest, back)
    await relay.stop(kill=True)
    await asyncio.sleep(0.3)
    await relay.start()
    await until(
        lambda: (said(host, back) > before[0] and said(guest, back) > before[1]) or hosting.done(),
        GAME_SECONDS,
        f"both players back on {name}",
    )
    assert not hosting.done(), f"the game ended before the players were back on {name}"


@pytest.mark.parametrize("data", [True, False], ids=["keeping-its-store", "coming-back-empty"])
async def test_both_relays_restarted_mid_game_each_hold_the_whole_game(tmp_path, data):
    """Two relays, each its own process (``olixono relay``): a few moves in, the first is killed and started again on
    its port, then, once both players are back on it, the second. With ``--data`` each comes back with its store
    (what its writer had put on disk); without, it comes back empty. The players reconnect, publish again what each
    lacks, and finish; each relay alone then holds the whole game. (Killed, SIGKILL, in both cases: what a crash
    leaves; a SIGTERM is tested below.)"""
    relays = [RelayProcess(free_port(), tmp_path / f"data-{n}" if data else None) for n in (1, 2)]
    tasks: list[asyncio.Task[Any]] = []
    try:
        for relay in relays:
            await relay.start()
        both = Both(*relays)
        host, guest = bot_seat(tmp_path, "host", both, 41), bot_seat(tmp_path, "guest", both, 42)
        hosting = asyncio.create_task(network.host("olix", host.options))
        tasks.append(hosting)
        game = await game_id_of(host, timeout=20)
        joining = asyncio.create_task(network.join(game, guest.options))
        tasks.append(joining)
        for number, relay in enumerate(relays, start=1):
            await restarted(relay, f"R{number}", 6 * number, host=host, guest=guest, hosting=hosting)
        played = await played_to_the_end(hosting, joining, host, guest, game)
        assert said(host, "relay lost: R1") and said(host, "relay lost: R2")
        assert all(relay.process is not None and relay.process.poll() is None for relay in relays)
        for number, relay in enumerate(relays, start=1):
            await whole_game_on(tmp_path, f"R{number}", relay, played)
    finally:
        try:
            await ended(tasks)
        finally:
            for relay in relays:
                await relay.stop(kill=True)


async def exited(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether ``process`` has ended within ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while process.poll() is None and loop.time() < deadline:
        await asyncio.sleep(0.02)
    return process.poll() is not None


async def test_a_relay_process_stops_on_sigterm_while_a_player_is_sending(tmp_path):
    """``olixono relay --data DIR`` is sent SIGTERM while a client subscribed to a game is sending it lines (a player
    mid-game, its relay's deliveries and acknowledgements in flight): it should save its store and exit within
    seconds, each of three times."""
    game = "T" * 21 + "A"
    lines = [
        (f"{GAMES}/{game}/{WRITER.public.text}/chat-{n}", signed_line(WRITER, game, f"chat-{n}")) for n in range(1, 200)
    ]
    for attempt in range(3):
        relay = RelayProcess(free_port(), tmp_path / f"data-{attempt}")
        sending: asyncio.Task[None] | None = None
        try:
            await relay.start()
            process = relay.process
            assert process is not None
            async with bare_client(relay.port) as player:
                await player.subscribe(game_filter(game), qos=1)
                for topic, line in lines[:20]:  # each one delivered back to it: acknowledgements both ways
                    await player.publish(topic, line, qos=1, retain=True)

                async def send() -> None:
                    with contextlib.suppress(aiomqtt.MqttError):
                        for topic, line in lines[20:]:
                            await player.publish(topic, line, qos=1, retain=True)
                            await asyncio.sleep(0.01)

                sending = asyncio.create_task(send())
                await asyncio.sleep(0)
                process.terminate()
                if not await exited(process, 5):
                    raise AssertionError(f"the relay was still running 5 s after SIGTERM (attempt {attempt + 1})")
        finally:
            try:
                if sending is not None:
                    await ended([sending])
            finally:
                await relay.stop(kill=True)


# -- relays that differ -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_players_whose_relays_differ_but_for_one_play_to_the_end(tmp_path, kind):
    """The host names relays A and B, the guest B and C: the game goes through B; each relay alone holds the whole
    game afterwards (A from the host's lines and its copies of the guest's; C the other way round)."""
    a, b, c = [await started(tmp_path, name) for name in "abc"]
    tasks: list[asyncio.Task[Any]] = []
    try:
        host = Seat(tmp_path, "host", Both(a, b), bot="random", seed=51)
        guest = Seat(tmp_path, "guest", Both(b, c), bot="random", seed=52)
        hosting = asyncio.create_task(network.host(kind, host.options))
        tasks.append(hosting)
        game = await game_id_of(host, timeout=20)
        assert f"--relay {a.url} --relay {b.url}" in host.text()
        joining = asyncio.create_task(network.join(game, guest.options))
        tasks.append(joining)
        played = await played_to_the_end(hosting, joining, host, guest, game)
        for name, relay in (("A", a), ("B", b), ("C", c)):
            await whole_game_on(tmp_path, name, relay, played)
    finally:
        try:
            await ended(tasks)
        finally:
            for relay in (a, b, c):
                await relay.stop()


# -- the lobby on an open broker ------------------------------------------------------------------------------------
@needs_mosquitto
@pytest.mark.parametrize("all_games", [False, True], ids=["open-offers", "all-games"])
async def test_the_lobby_on_an_open_broker_lists_only_offers_that_verify(tmp_path, all_games):
    """On the open broker, beside two genuine offers, a stranger leaves retained on the lobby's topics: junk, bytes
    that are no text, a line too long, an offer forged (its text changed after signing), a genuine offer whose
    signature is another key's, a validly signed line that is no offer, a genuine offer again under another game's
    topic and another key's, and lines in the joins' and accepts' slots (junk, and a stranger's validly signed
    accept of a genuine game). ``olixono games`` lists the two games, once each, open, and nothing else."""
    from protocol import topic_for
    from protocol.keys import random_token
    from protocol.messages import encode, line_hash

    broker = await OpenBroker(tmp_path / "open").start()
    try:
        hosts = [Identity.generate(), Identity.generate()]
        offers = [GameSession.offer(kind, host)[1] for kind, host in zip(("oxono", "olix"), hosts, strict=True)]
        real = {out.message.game for out in offers}
        stranger = Identity.generate()
        forged = offers[0].line.replace("kind=oxono", "kind=olix")
        assert forged != offers[0].line
        someone_elses = (
            offers[0].line.rsplit(" ", 1)[0] + " " + GameSession.offer("oxono", stranger)[1].line.rsplit(" ", 1)[1]
        )
        fake_game = "Z" * 21 + "A"
        lobby_slot = f"{GAMES}/{fake_game}/{stranger.public.text}"
        game = offers[0].message.game
        left: list[tuple[str, bytes]] = [(topic_for(out.message), out.line.encode()) for out in offers] + [
            (f"{lobby_slot}/offer", b"junk"),
            (f"{GAMES}/{fake_game}/x/offer", b"\xff\xfe\x00 not text"),
            (f"{GAMES}/{fake_game}/y/offer", b"o" * 300_000),
            (f"{GAMES}/{fake_game}/z/offer", forged.encode()),
            (f"{GAMES}/{game}/{stranger.public.text}/offer", forged.encode()),
            (f"{GAMES}/{fake_game}/w/offer", someone_elses.encode()),
            (f"{lobby_slot}/1", b"junk"),
            (f"{GAMES}/{fake_game}/v/offer", signed_line(stranger, game, "3")),
            (f"{GAMES}/{fake_game}/{stranger.public.text}/offer", offers[1].line.encode()),
            (
                f"{GAMES}/{game}/{stranger.public.text}/2",
                encode(
                    "accept",
                    [  # the host's alone to sign
                        ("game", game),
                        ("seq", "2"),
                        ("prev", line_hash(offers[0].line)),
                        ("guest", stranger.public.text),
                        ("salt", random_token()),
                    ],
                    stranger,
                ).encode(),
            ),
        ]
        async with broker.client() as client:
            for topic, payload in left:
                await client.publish(topic, payload, qos=1, retain=True)
        lobby = Seat(tmp_path, "lobby", broker, all_games=all_games)
        assert await network.games(lobby.options) == 0
        assert lobby.lines[0].split()[:2] == ["GAME", "KIND"], lobby.text()
        listed = [line.split()[0] for line in lobby.lines[1:]]
        assert sorted(listed) == sorted(real), lobby.text()
        for out, host in zip(offers, hosts, strict=True):
            line = next(line for line in lobby.lines if line.startswith(out.message.game))
            assert f"host {host.public.fingerprint}" in line and "open to anyone" in line, line
    finally:
        await broker.stop()
