"""The soak: bot games by the thousand through both relays and the chaos proxy, with kills and a flood.

    python -m harness.soak --games 1000                 # 250 games in each of four phases (below)
    python -m harness.soak --quick                      # 8 games in a minute or two, relays killed: what CI runs

Phases, one after the other, each ``--games / 4`` games: the embedded relay with ``--data`` and without, Mosquitto
with persistence and without. In each, the relay runs as its own process behind a :class:`harness.chaos.ChaosProxy`
(loss, duplication, reordering, jitter, the odd cut connection), ``--concurrent`` games at a time between two
random bots in this process (each game from an address of its own in 127.0.0.0/8, so the relay's per-address limits
apply as to people), Oxono and Olix in turn. At random, a player is killed (its runner stopped without a goodbye, its
journal closed) and resumed from its journal; every ``--relay-kill-every`` s the relay is killed (SIGKILL) and
started again on the same port (what it had on disk, or nothing). A stranger (127.0.0.2) floods the games the whole
time with junk lines.

``--second-relay``: each game also travels over a second relay at once (:class:`client.shell.links.Links`), of the
other kind (Mosquitto beside the embedded relay, and the embedded relay beside Mosquitto), with the same ``--data``
or not, reached directly (not through the proxy); each relay kill picks one of the two at random.

Figures (one a line, ``name: value``): games finished, moves lost (a move a player journaled that the final record
lacks: must be 0), games stuck (not over for both players within ``--game-timeout``: must be 0), false proofs (an
equivocation proof against an honest bot: must be 0), p50/p99 move latency (submitted to applied by the opponent),
the relay's memory and this process's at the end. The exit status is 1 unless lost, stuck and false proofs are 0.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import functools
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt

from client.cores.intents import Intent, IntentKind
from client.cores.network_game import Connection, GameCore, Notice
from client.shell.journal import Journal, JournalMeta
from client.shell.links import Links
from client.shell.runner import GameRunner
from client.shell.transport import Link, LinkFactory, RelayAddress
from harness import options
from harness.chaos import Chaos, ChaosProxy
from harness.figures import median, memory_mib, percentile, print_figures
from harness.mqtt import bare_client
from harness.relays import RelayProcess
from protocol import EquivocationDetected, GameSession, Identity, MoveApplied, verify_transcript
from protocol.keys import b64
from protocol.messages import encode

PHASES = (("embedded", True), ("embedded", False), ("mosquitto", True), ("mosquitto", False))


@dataclass
class Tally:
    finished: int = 0
    stuck: int = 0
    lost: int = 0
    false_proofs: int = 0
    player_kills: int = 0
    latencies: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class Seat:
    """One bot player of one game: plays, is killed and resumed, until its game is over."""

    def __init__(
        self,
        soak: Soak,
        game: str,
        kind: str,
        role: str,
        identity: Identity,
        bind: str,
        folder: Path,
        rng: random.Random,
    ) -> None:
        self.soak, self.game, self.kind, self.role, self.identity = soak, game, kind, role, identity
        self.bind, self.folder, self.rng = bind, folder, rng
        self.core: GameCore | None = None
        self.journal: Journal | None = None
        self.sent: dict[int, float] = {}  # seq: when submitted (this player's moves)
        self.applied: dict[int, float] = {}  # seq: when the opponent's move was applied here
        self.signed: set[str] = set()  # every line of this player's journal, from every run
        self.proofs = 0
        self.last: GameRunner | None = None
        self.notices: collections.deque[str] = collections.deque(maxlen=12)  # the latest, for a stuck game's report

    def link(self) -> LinkFactory:
        ports = [self.soak.proxy.port] + ([self.soak.second.port] if self.soak.second is not None else [])
        links = [
            functools.partial(Link, RelayAddress(False, "127.0.0.1", port), bind_address=self.bind, keepalive=5)
            for port in ports
        ]
        return links[0] if len(links) == 1 else functools.partial(Links, links)  # type: ignore[return-value]

    def runner(self, offer: Any = None) -> GameRunner:
        if self.role == "host" and self.journal is None:
            core, step = GameCore.hosting(self.kind, self.identity) if offer is None else offer
            self.journal = Journal.create(
                JournalMeta(self.game, self.kind, "host", self.identity.public.text, "mqtt://soak"), self.folder
            )
            for line in step.journal:
                self.journal.append(line)
        elif self.journal is not None or (self.folder / f"{self.game}.json").exists():
            self.journal = Journal.open(self.game, self.folder)
            session, _ = self.journal.restore(self.identity)
            core = GameCore(session)
        else:
            core = GameCore(GameSession(self.game, self.identity))
        self.core = core
        return GameRunner(core, self.link(), self.journal)

    async def front(self, runner: GameRunner) -> int:
        core = runner.core
        loop = asyncio.get_running_loop()
        if self.role == "guest" and not core.playing:
            while core.session.phase.name == "WAITING":
                await asyncio.sleep(0.01)
            if core.session.guest is None and core.me not in core.session.joins:
                self.journal = Journal.create(
                    JournalMeta(self.game, self.kind, "guest", self.identity.public.text, "mqtt://soak"), self.folder
                )
                runner.attach(self.journal)
                await runner.apply(core.join())
        while not core.session.over:
            event = None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.5):  # not wait_for, which may swallow a cancellation (CPython gh-86296)
                    event = await runner.events.get()
            while event is not None:
                if isinstance(event, MoveApplied) and core.session.seats.get(event.player) != core.me:
                    self.applied.setdefault(event.seq, loop.time())
                if isinstance(event, EquivocationDetected):
                    self.proofs += 1
                if isinstance(event, (Notice, Connection)):
                    self.notices.append(f"{loop.time() - self.soak.started:.1f} {event}")
                event = runner.events.get_nowait() if not runner.events.empty() else None
            if core.my_turn and core.board is not None:
                seq = core.session.next_seq
                self.sent.setdefault(seq, loop.time())
                with contextlib.suppress(Exception):
                    await runner.act(Intent(IntentKind.MOVE, self.rng.choice(core.board.legal_moves()).text()))
        return 0

    async def play(self, deadline: float, offer: Any = None) -> None:
        loop = asyncio.get_running_loop()
        first = True
        while loop.time() < deadline:
            runner = self.runner(offer if first else None)
            first = False
            self.last = runner
            task = asyncio.create_task(runner.run(self.front))
            kill_at = self.rng.uniform(0.5, 6.0) if self.rng.random() < self.soak.kill_share else None
            done, _ = await asyncio.wait({task}, timeout=min(kill_at or 1e9, max(0.0, deadline - loop.time())))
            self.note(runner)
            if task in done:
                with contextlib.suppress(Exception):
                    task.result()
                if runner.core.session.over:
                    return
                continue
            # killed, as a process is: nothing more of it runs (no goodbye, no copies sent); its journal keeps
            # what it wrote
            runner._goodbye = _nothing  # type: ignore[method-assign]
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=10)
            if not done:  # cancelled while in aiomqtt, which may ignore it (CPython gh-86296): end its link too
                self.soak.tally.problems.append(
                    f"a {self.role}'s runner ignored its cancellation: " + " > ".join(_awaiting(task))
                )
                runner.link.stop()
                done, _ = await asyncio.wait({task}, timeout=20)
            if not done:
                self.soak.tally.problems.append(f"a {self.role}'s runner did not stop within 30 s of being killed")
            if self.journal is not None:
                self.journal.close()
            self.soak.tally.player_kills += 1
            await asyncio.sleep(self.rng.uniform(0.1, 1.0))

    def state(self) -> str:
        """What this seat was doing when its game was judged (for a stuck game's report)."""
        if self.core is None or self.last is None:
            return f"{self.role} never started"
        session, link = self.core.session, self.last.link
        links = getattr(link, "links", [link])
        return (
            f"{self.role} {session.phase.value} at seq {session.next_seq} "
            f"({'its' if self.core.my_turn else 'not its'} turn), "
            f"{'connected' if link.connected else 'disconnected'} "
            f"({'+'.join(str(one.connections) for one in links)} connections), "
            f"waiting on {self.last.liveness.waiting} acks, {len(session.proofs)} proofs; latest: "
            + " | ".join(self.notices)
        )

    def note(self, runner: GameRunner) -> None:
        if self.journal is not None:
            me = self.identity.public.text
            self.signed.update(line for line in self.journal.lines() if f" by={me} " in line and " chat " not in line)


async def _nothing() -> None:
    return None


class Soak:
    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args, self.folder = args, folder
        self.tally = Tally()
        self.kill_share = args.kill_share
        self.proxy: ChaosProxy
        self.second: RelayProcess | None = None  # ``--second-relay``: the phase's other relay
        self.rng = random.Random(args.seed)
        self.started = time.monotonic()
        self.live: set[str] = set()  # the games being played, which the stranger floods

    async def game(self, number: int) -> None:
        kind = "oxono" if number % 2 else "olix"
        rng = random.Random(f"{self.args.seed}/{number}")
        host_id, guest_id = Identity.generate(), Identity.generate()
        offer = GameCore.hosting(kind, host_id)
        game = offer[0].session.game_id or ""
        self.live.add(game)
        bind = f"127.{1 + number // 60000 % 200}.{number // 250 % 240}.{number % 250 + 2}"
        folder = self.folder / "games" / f"{number}"
        seats = [
            Seat(self, game, kind, role, identity, bind, folder / role, rng)
            for role, identity in (("host", host_id), ("guest", guest_id))
        ]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.args.game_timeout
        try:
            await asyncio.gather(seats[0].play(deadline, offer), seats[1].play(deadline))
        finally:
            self.live.discard(game)
        self.judge(number, seats)

    def judge(self, number: int, seats: list[Seat]) -> None:
        tally = self.tally
        cores = [seat.core for seat in seats]
        if any(core is None or not core.session.over for core in cores):
            tally.stuck += 1
            tally.problems.append(f"game {number} stuck: " + ", ".join(seat.state() for seat in seats))
            return
        host, guest = (core.session for core in cores if core is not None)
        record = [line for line in host.transcript if " confirm " not in line[:20]]
        if record != [line for line in guest.transcript if " confirm " not in line[:20]]:
            tally.problems.append(f"game {number}: the players' records differ")
        session, _, problem = verify_transcript(host.transcript)
        if problem is not None:
            tally.problems.append(f"game {number}: the record does not verify: {problem.code}")
        tally.finished += 1
        chain = {message.line for message in session.chain}
        for seat in seats:
            tally.lost += sum(1 for line in seat.signed if " move " in line[:16] and line not in chain)
            tally.false_proofs += seat.proofs
        tally.false_proofs += len(session.proofs)
        for seat, other in ((seats[0], seats[1]), (seats[1], seats[0])):
            for seq, when in seat.sent.items():
                if seq in other.applied and other.applied[seq] >= when:
                    tally.latencies.append(other.applied[seq] - when)

    async def flood(self, port: int, stop: asyncio.Event) -> int:
        """A stranger publishing junk into live games' topics until ``stop``: lines sent."""
        sent = 0
        key = Identity.generate()
        while not stop.is_set():
            try:
                async with bare_client(port, bind_address="127.0.0.2", timeout=5) as client:
                    while not stop.is_set():
                        game = self.rng.choice(sorted(self.live)) if self.live else b64(os.urandom(16))
                        n = self.rng.randrange(1, 500)
                        line = encode(
                            "chat", [("game", game), ("seq", str(n)), ("prev", b64(bytes(32))), ("text", "junk")], key
                        ).encode()
                        await client.publish(
                            f"olixono/1/games/{game}/{key.public.text}/chat-{n}", line, qos=0, retain=True
                        )
                        await client.publish(
                            f"olixono/1/games/{game}/{key.public.text}/1", b"garbage", qos=0, retain=True
                        )
                        sent += 2
                        await asyncio.sleep(self.args.flood_pause)
            except (aiomqtt.MqttError, OSError):
                await asyncio.sleep(0.5)
        return sent

    async def phase(self, kind: str, data: bool, games: int, first: int) -> dict[str, float]:
        # the relay's per-address limits apply to each game's address, as to people
        relay = RelayProcess(kind, self.folder / f"relay-{kind}-{'data' if data else 'memory'}", limits=True, data=data)
        await asyncio.to_thread(relay.start)
        relays = [relay]
        if self.args.second_relay:
            other = "mosquitto" if kind == "embedded" else "embedded"
            self.second = RelayProcess(
                other, self.folder / f"second-{other}-{'data' if data else 'memory'}", limits=True, data=data
            )
            await asyncio.to_thread(self.second.start)
            relays.append(self.second)
        chaos = Chaos(seed=self.args.seed, loss=0.01, duplicate=0.01, reorder=0.01, jitter=0.005, disconnect=0.0005)
        stop = asyncio.Event()
        started = time.monotonic()
        async with ChaosProxy(relay.port, chaos) as proxy:
            self.proxy = proxy
            flooding = asyncio.create_task(self.flood(relay.port, stop))

            async def killer() -> None:
                wait = self.args.first_relay_kill or self.args.relay_kill_every
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(wait):
                            await stop.wait()
                    wait = self.args.relay_kill_every
                    if stop.is_set():
                        return
                    killed = self.rng.choice(relays)  # either of two
                    await asyncio.to_thread(killed.kill)
                    await asyncio.sleep(self.rng.uniform(0.2, 2.0))
                    await asyncio.to_thread(killed.start)

            killing = asyncio.create_task(killer())
            slots = asyncio.Semaphore(self.args.concurrent)

            async def bounded(number: int) -> None:
                async with slots:
                    await self.game(number)

            try:
                await asyncio.gather(*(bounded(first + n) for n in range(games)))
            finally:
                stop.set()
                flood_lines = await flooding
                await killing
            relay_mib = memory_mib(relay.pid)
            for each in relays:
                await asyncio.to_thread(each.stop)
            self.second = None
        return {
            "seconds": time.monotonic() - started,
            "relay_mib": relay_mib,
            "relay_kills": sum(each.kills for each in relays),
            "flood_lines": flood_lines,
            "proxy": proxy.counts.text(),  # type: ignore[dict-item]
        }


def _awaiting(task: asyncio.Task[Any]) -> list[str]:
    """Where a task waits, outermost first (file:line of each coroutine down its chain of awaits)."""
    where: list[str] = []
    awaited: Any = task.get_coro()
    for _ in range(50):
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is None:
            where.append(repr(awaited)[:80])
            break
        where.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} {frame.f_code.co_name}")
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
        if awaited is None:
            break
    return where


def _dump() -> None:
    """On SIGUSR1: where every task waits (one line each), to find what holds a soak up."""
    for task in asyncio.all_tasks():
        print(" > ".join(_awaiting(task)), file=sys.stderr)


async def soak(args: argparse.Namespace) -> int:
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, _dump)
    folder = Path(tempfile.mkdtemp(prefix="olixono-soak-"))
    try:
        return await _soak(args, folder)
    finally:
        if args.keep:
            print(f"kept: {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


async def _soak(args: argparse.Namespace, folder: Path) -> int:
    runner = Soak(args, folder)
    phases = [PHASES[int(n)] for n in args.phases.split(",")]
    per_phase = max(1, args.games // len(phases))
    figures: list[tuple[str, Any]] = []
    for index, (kind, data) in enumerate(phases):
        result = await runner.phase(kind, data, per_phase, index * per_phase)
        name = f"{kind}_{'data' if data else 'memory'}"
        figures += [
            (f"{name}_seconds", result["seconds"]),
            (f"{name}_relay_mib", result["relay_mib"]),
            (f"{name}_relay_kills", result["relay_kills"]),
            (f"{name}_flood_lines", result["flood_lines"]),
            (f"{name}_proxy", result["proxy"]),
        ]
        print(f"phase {name}: done, {runner.tally.finished} games finished so far", file=sys.stderr, flush=True)
    tally = runner.tally
    figures = [
        ("games", per_phase * len(phases)),
        ("games_finished", tally.finished),
        ("moves_lost", tally.lost),
        ("games_stuck", tally.stuck),
        ("false_proofs", tally.false_proofs),
        ("player_kills", tally.player_kills),
        ("move_latency_p50_ms", median(tally.latencies) * 1000),
        ("move_latency_p99_ms", percentile(tally.latencies, 0.99) * 1000),
        ("client_process_peak_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        ("client_process_end_mib", memory_mib(os.getpid())),
        *figures,
    ]
    print_figures(figures, digits=1)
    for problem in tally.problems[:20]:
        print(f"problem: {problem}", flush=True)
    return 0 if tally.lost == tally.stuck == tally.false_proofs == 0 and not tally.problems else 1


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--games", type=int, default=1000, help="games in all, shared by the four phases")
    parser.add_argument("--concurrent", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--phases",
        default="0,1,2,3",
        help="which phases, by number (0: embedded with --data, "
        "1: embedded in memory, 2: Mosquitto persistent, 3: Mosquitto in memory)",
    )
    parser.add_argument("--kill-share", type=float, default=0.1, help="chance that a player's run is killed")
    parser.add_argument("--relay-kill-every", type=float, default=45.0, help="seconds between relay kills")
    parser.add_argument(
        "--first-relay-kill",
        type=float,
        default=0.0,
        help="seconds into each phase of its first relay kill (default: --relay-kill-every)",
    )
    parser.add_argument("--game-timeout", type=float, default=240.0, help="seconds before a game counts as stuck")
    parser.add_argument("--flood-pause", type=float, default=0.01, help="seconds between two junk lines")
    parser.add_argument(
        "--second-relay",
        action="store_true",
        help="every game over a second relay too (of the other kind), either relay killed at random",
    )
    parser.add_argument("--keep", action="store_true", help="keep the games' journals and the relays' logs")
    options.add_quick(
        parser,
        "8 games, 4 at a time, a relay killed 0.25 s into each phase (and every 20 s), half the players killed once "
        "or more: a minute or two, for CI",
    )
    args = parser.parse_args()
    if args.quick:
        args.games, args.concurrent, args.kill_share = 8, 4, 0.5
        args.first_relay_kill, args.relay_kill_every = 0.25, 20.0  # a quick phase's two games may be over in 1 s
    return asyncio.run(soak(args))


if __name__ == "__main__":
    sys.exit(main())
