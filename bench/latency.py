"""Network play latency: prints one figure a line as ``name: value``.

    python bench/latency.py [--relay embedded|mosquitto|both|two] [--moves 1000] [--quick]

For each relay (the embedded relay as its own process, ``python -m relay``; Mosquitto from the generated
configuration), on loopback:

- ``raw_rtt_*``: the MQTT QoS 1 round trip between two bare aiomqtt clients (TCP_NODELAY) in two processes, as the
  players are: one publishes a retained line, the other publishes it back on receipt;
- ``move_*``: a move's trip from the player submitting it (``GameRunner.act``: checked, signed, written to the
  journal, handed to the MQTT client; the journal's flush to disk follows) to the opponent's client having
  verified and applied it (its front end reading the ``MoveApplied`` event), in full games between two
  ``GameRunner``\\s in two processes (the monotonic clock is the machine's), each move sent as soon as the previous
  one was applied (random legal moves, chosen before the clock starts).

Targets: ``move_p50_ms`` at most half the raw trip plus 0.5 ms; ``move_p99_ms`` under 5 ms. Then, once:
``join_to_prompt_s``, the time from starting ``olixono join GAME`` in a terminal (a pty that answers the console's
cursor-position request, as a terminal does) to its prompt drawn again after the board (target under 0.5 s), and
``watched_game_kib``, the memory one watched game holds (a finished Olix game, tracemalloc).

``--relay two``: the same games over two relays at once (one game over both, :class:`client.shell.links.Links`), to set
beside one relay alone (target: as fast as through the faster one): ``two_relays_move_*`` over the embedded relay
and Mosquitto, ``two_mosquittos_*`` over two Mosquittos (what the second relay costs the clients themselves),
``two_one_slow_*`` with every packet of the second held 50 ms (the chaos proxy), ``two_one_killed_*`` with the
second stopped 1 s in (``move_max_ms``: a dead relay costs no pause), and ``mosquitto_alone_move_p50_ms``.
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import gc
import multiprocessing
import os
import pty
import random
import select
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from client.cores.intents import Intent  # noqa: E402
from client.cores.network_game import GameCore  # noqa: E402
from client.shell.identity import save_identity  # noqa: E402
from client.shell.journal import Journal, JournalMeta  # noqa: E402
from client.shell.links import Links  # noqa: E402
from client.shell.runner import GameRunner  # noqa: E402
from client.shell.transport import Link, LinkFactory, RelayAddress  # noqa: E402
from harness import options  # noqa: E402
from harness.clients import home_env, offered_game  # noqa: E402
from harness.figures import median, percentile, print_figures  # noqa: E402
from harness.mqtt import bare_client  # noqa: E402
from harness.relays import RelayProcess  # noqa: E402
from protocol import GameSession, Identity, MoveApplied  # noqa: E402

# -- the raw round trip ------------------------------------------------------------------------------------
PING, PONG = "olixono/1/bench/ping", "olixono/1/bench/pong"  # not a game's topics: the relay checks no line here


async def pong(port: int, ready: Any) -> None:
    """The far client: publishes back every line it receives (QoS 1, retained, as game lines are)."""
    async with bare_client(port, timeout=10) as client:
        await client.subscribe(PING, qos=1)
        ready.set()
        async for message in client.messages:
            if message.payload == b"stop":
                return
            await client.publish(PONG, message.payload, qos=1, retain=True)


def pong_process(port: int, ready: Any) -> None:
    asyncio.run(pong(port, ready))


async def raw_trips(port: int, count: int) -> list[float]:
    """Ping-pong between two bare aiomqtt clients in two processes (as the players are): one publishes a line,
    the other publishes it back on receipt. Each is a full QoS 1 round trip; half of it is one line's way across."""
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    far = context.Process(target=pong_process, args=(port, ready))
    far.start()
    payload = b"x" * 300  # about a move line
    trips: list[float] = []
    try:
        await asyncio.to_thread(ready.wait, 30)
        async with bare_client(port, timeout=10) as client:
            await client.subscribe(PONG, qos=1)
            await asyncio.sleep(0.2)
            back = client.messages
            for _ in range(count + 20):
                start = time.perf_counter()
                await client.publish(PING, payload, qos=1, retain=True)
                await back.__anext__()
                trips.append(time.perf_counter() - start)
            await client.publish(PING, b"stop", qos=1)
    finally:
        far.join(10)
        if far.is_alive():
            far.kill()
    return trips[20:]  # after a warm-up


# -- moves between two runners, each in its own process ---------------------------------------------------
async def play_games(
    role: str, ports: tuple[int, ...], games: int, seed: int, folder: Path, ids: Any
) -> dict[str, list[Any]]:
    """One player's side of ``games`` games in a row (the host offers each and sends its id over ``ids``; the guest
    joins it), through the relay on each of ``ports`` (several: one game over all of them, :class:`Links`): when each
    own move was submitted, and when each of the opponent's moves was applied (monotonic)."""
    rng = random.Random(seed)
    addresses = [RelayAddress(False, "127.0.0.1", port) for port in ports]
    address = addresses[0]
    connect: LinkFactory = (
        functools.partial(Link, address)
        if len(addresses) == 1
        # a Links stands in for one Link (client/flows/network.py makes the runner's the same way)
        else cast(LinkFactory, functools.partial(Links, [functools.partial(Link, one) for one in addresses]))
    )
    identity = Identity.generate()
    sent: list[tuple[str, int, float]] = []
    applied: list[tuple[str, int, float]] = []
    for number in range(games):
        kind = "oxono" if number % 2 else "olix"
        if role == "host":
            core, offer = GameCore.hosting(kind, identity)
            game = core.session.game_id or ""
            journal = Journal.create(JournalMeta(game, kind, "host", identity.public.text, address.url), folder)
            for line in offer.journal:
                journal.append(line)
            ids.put(game)
        else:
            game = await asyncio.to_thread(ids.get)
            core = GameCore(GameSession(game, identity))
            journal = None
        runner = GameRunner(core, connect, journal)

        async def front(runner: GameRunner) -> int:
            core = runner.core
            if role == "guest":
                while core.session.phase.name == "WAITING":
                    await asyncio.sleep(0.005)
                runner.attach(
                    Journal.create(JournalMeta(game, kind, "guest", identity.public.text, address.url), folder)
                )
                await runner.apply(core.join())
            while not core.session.over:
                event = await runner.events.get()
                while True:  # everything already queued is read (and timed) before this player moves
                    if isinstance(event, MoveApplied) and core.session.seats.get(event.player) != core.me:
                        applied.append((game, event.seq, time.perf_counter()))
                    if runner.events.empty():
                        break
                    event = runner.events.get_nowait()
                if core.my_turn:
                    assert core.session.board is not None
                    move = rng.choice(core.session.board.legal_moves()).text()
                    sent.append((game, core.session.next_seq, time.perf_counter()))
                    await runner.act(Intent("move", move))
            return 0

        async with asyncio.timeout(120):
            await runner.run(front)
    return {"sent": sent, "applied": applied}


def player_process(
    role: str, ports: tuple[int, ...], games: int, seed: int, folder: str, ids: Any, results: Any
) -> None:
    results.put((role, asyncio.run(play_games(role, ports, games, seed, Path(folder), ids))))


def game_trips(ports: int | tuple[int, ...], games: int, folder: Path) -> list[float]:
    """Each move's trip, from its player submitting it to the opponent's client having applied it (through the relay
    on ``ports``, or every relay on them)."""
    ports = (ports,) if isinstance(ports, int) else ports
    context = multiprocessing.get_context("spawn")
    ids, results = context.Queue(), context.Queue()
    players = [
        context.Process(target=player_process, args=(role, ports, games, seed, str(folder / role), ids, results))
        for seed, role in enumerate(("host", "guest"))
    ]
    for process in players:
        process.start()
    sides = dict(results.get(timeout=600) for _ in players)
    for process in players:
        process.join(30)
    sent = {(game, seq): t for game, seq, t in sides["host"]["sent"] + sides["guest"]["sent"]}
    applied = {(game, seq): t for game, seq, t in sides["host"]["applied"] + sides["guest"]["applied"]}
    return [applied[key] - sent[key] for key in applied if key in sent]


def measure(kind_of_relay: str, moves: int, folder: Path) -> dict[str, float]:
    relay = RelayProcess(kind_of_relay, folder / kind_of_relay).start()
    try:
        raw = asyncio.run(raw_trips(relay.port, moves))
        trips = game_trips(relay.port, max(2, moves // 50), folder / f"{kind_of_relay}-games")
    finally:
        relay.stop()
    raw_p50 = median(raw) * 1000
    return {
        "raw_rtt_p50_ms": raw_p50,
        "raw_rtt_p99_ms": percentile(raw, 0.99) * 1000,
        "move_p50_ms": median(trips) * 1000,
        "move_p99_ms": percentile(trips, 0.99) * 1000,
        "move_p90_ms": percentile(trips, 0.90) * 1000,
        "move_max_ms": max(trips) * 1000,
        "moves": len(trips),
        "move_p50_target_ms": raw_p50 / 2 + 0.5,
    }


# -- joining, as a person sees it ---------------------------------------------------------------------------
def measure_two(
    moves: int,
    folder: Path,
    kinds: tuple[str, str] = ("embedded", "mosquitto"),
    delay: float = 0.0,
    kill_after: float | None = None,
) -> dict[str, float]:
    """Moves through two relays at once (one game over both: by default the embedded relay and Mosquitto), as
    through either alone; ``delay``: every packet of the second held that long (the chaos proxy); ``kill_after``:
    the second stopped that many seconds into the games (its players play on through the first)."""
    relays = [
        RelayProcess(kind, folder / f"two-{number}-{kind}-{delay}-{kill_after}", delay=delay if number else 0.0).start()
        for number, kind in enumerate(kinds)
    ]
    killer = threading.Timer(kill_after, relays[1].stop) if kill_after is not None else None
    try:
        if killer is not None:
            killer.start()
        trips = game_trips(
            tuple(relay.port for relay in relays),
            max(2, moves // 50),
            folder / f"two-games-{kinds[0]}-{delay}-{kill_after}",
        )
    finally:
        if killer is not None:
            killer.cancel()
            killer.join()
        for relay in relays:
            relay.stop()
    return {
        "move_p50_ms": median(trips) * 1000,
        "move_p90_ms": percentile(trips, 0.90) * 1000,
        "move_p99_ms": percentile(trips, 0.99) * 1000,
        "move_max_ms": max(trips) * 1000,
        "moves": len(trips),
    }


TWO = {  # the cases of ``--relay two``: (relays, the second's delay, when the second is killed)
    "two_relays": (("embedded", "mosquitto"), 0.0, None),
    "two_mosquittos": (("mosquitto", "mosquitto"), 0.0, None),
    "two_one_slow": (("mosquitto", "mosquitto"), 0.05, None),
    "two_one_killed": (("mosquitto", "mosquitto"), 0.0, 1.0),
}


def prompt_after_board(seen: bytes) -> bool:
    """The line console's board printed, and its prompt drawn again after it (the cursor shown)."""
    board = b"   a  b  c  d  e  f"
    return board in seen and b"\x1b[?25h" in seen.split(board)[-1]


def join_to_prompt(
    folder: Path,
    extra: tuple[str, ...] = ("--line",),
    ready: Callable[[bytes], bool] = prompt_after_board,
    size: tuple[int, int] | None = None,
) -> float:
    """Seconds from starting ``olixono join`` (with ``extra`` options) in a pty of ``size`` (rows, columns) until
    ``ready`` says so of what it wrote: by default its prompt with the board shown (best of 3)."""
    relay = RelayProcess("mosquitto", folder / "join-relay").start()
    url = f"mqtt://127.0.0.1:{relay.port}"
    best = float("inf")
    try:
        for attempt in range(3):
            homes = {}
            for name in ("host", f"guest{attempt}"):
                key = folder / name / "config" / "olixono" / "identity"
                if not key.exists():
                    save_identity(Identity.generate(), key)
                homes[name] = home_env(folder / name, TERM="xterm")
            host = subprocess.Popen(
                [sys.executable, "-m", "client", "host", "oxono", "--relay", url, "--bot", "random"],
                env=homes["host"],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            assert host.stdout is not None
            game = offered_game(host.stdout)
            if not game:
                raise RuntimeError("the host offered no game")
            primary, secondary = pty.openpty()
            if size is not None:
                fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
            start = time.perf_counter()
            guest = subprocess.Popen(
                [sys.executable, "-m", "client", "join", game, "--relay", url, *extra],
                env=homes[f"guest{attempt}"],
                cwd=ROOT,
                stdin=secondary,
                stdout=secondary,
                stderr=secondary,
                close_fds=True,
            )
            os.close(secondary)
            seen = b""
            deadline = start + 20
            done = False
            while time.perf_counter() < deadline and not done:
                readable, _, _ = select.select([primary], [], [], 0.05)
                if readable:
                    try:
                        chunk = os.read(primary, 65536)
                    except OSError:
                        break
                    seen += chunk
                    for _ in range(chunk.count(b"\x1b[6n")):  # answer the cursor position request, as a terminal
                        os.write(primary, b"\x1b[1;1R")
                    done = ready(seen)
            elapsed = time.perf_counter() - start
            if done:
                best = min(best, elapsed)
            for process in (guest, host):
                process.kill()
                process.wait(10)
            os.close(primary)
    finally:
        relay.stop()
    return best


def watched_game_kib() -> float:
    """What one watched game holds: a spectator's core fed a finished Olix game (tracemalloc, KiB)."""
    host_id, guest_id = Identity.from_seed(bytes([1]) * 32), Identity.from_seed(bytes([2]) * 32)
    host, offer = GameSession.offer("olix", host_id)
    guest = GameSession(host.game_id, guest_id)
    guest.receive(offer.line)
    host.receive(guest.join().line)
    guest.receive(host.accept(guest_id.public).line)
    host.receive(guest.reveal().line)
    rng = random.Random(1)
    while not host.over:
        mover, other = (host, guest) if host.actor == host_id.public else (guest, host)
        assert mover.board is not None
        other.receive(mover.move(rng.choice(mover.board.legal_moves()).text()).line)
    lines = list(host.transcript)
    gc.collect()
    tracemalloc.start()
    watcher = GameCore(GameSession(host.game_id), watching=True)
    for line in lines:
        watcher.feed(line)
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return held / 1024


def main() -> None:
    parser = options.parser(__doc__)
    options.add_relay(
        parser, options.BOTH, both=True, more=("two",), what="which relay, or both in turn, or two: one game over both"
    )
    parser.add_argument("--moves", type=int, default=1000, help="moves measured per relay (default 1000)")
    options.add_quick(parser, "200 moves per relay")
    args = parser.parse_args()
    moves = 200 if args.quick else args.moves
    relays = options.relays(args.relay)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        if args.relay == "two":
            for prefix, (kinds, delay, kill_after) in TWO.items():
                figures = measure_two(moves, folder, kinds, delay, kill_after)
                print_figures(figures.items(), digits=3, prefix=f"{prefix}_")
            print_figures([("mosquitto_alone_move_p50_ms", measure("mosquitto", moves, folder)["move_p50_ms"])], 3)
            return
        for relay in relays:
            print_figures(measure(relay, moves, folder).items(), digits=3, prefix=f"{relay}_")
        print_figures([("join_to_prompt_s", join_to_prompt(folder))], digits=3)
    print_figures([("watched_game_kib", watched_game_kib())], digits=0)


if __name__ == "__main__":
    main()
