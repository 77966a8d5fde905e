"""A stranger floods a live game on the embedded relay: prints one figure a line as ``name: value``.

    python bench/flood.py [--seconds 40] [--connections 60] [--quick]

The relay runs as its own process (``python -m relay``, its default limits). From 127.0.0.2, ``--connections``
connections each subscribe to the game and publish junk on topics of their own under it, as fast as the relay reads
them: ~2 kB lines, half validly signed chat lines of a key of its own (the relay keeps such a line until a cap), half
garbage, QoS 1 and QoS 0, all retained; a tenth of them subscribe again and again (each subscription sends the
game's retained lines). Meanwhile two players (each a process of its own, from 127.0.0.1) play an Olix game, a move
every ``--pace`` s; a new client (127.0.0.3) connects every 0.25 s and times one QoS 1 round trip; and half-way
through a late watcher (``olixono watch GAME --plain``, a process) joins and follows the game to its end.

Figures: the relay's peak memory, the new clients' round trips (p50, p99), whether the game finished (both players'
transcripts the same and verified), the players' and the watcher's peak memory, what the flood published and what the
relay kept of it (what a late subscriber to the finished game is sent: lines in all, and those under no player's key).
Targets: relay under 300 MB, round trip p50 under 20 ms, the game finishes, the watcher under 150 MB.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiomqtt  # noqa: E402

from client.cores.intents import Intent  # noqa: E402
from client.cores.network_game import GameCore  # noqa: E402
from client.shell.journal import Journal, JournalMeta  # noqa: E402
from client.shell.runner import GameRunner  # noqa: E402
from client.shell.transport import Link, RelayAddress  # noqa: E402
from harness import options  # noqa: E402
from harness.clients import home_env  # noqa: E402
from harness.figures import median, memory_mib, percentile, print_figures  # noqa: E402
from harness.mqtt import bare_client  # noqa: E402
from harness.relays import RelayProcess  # noqa: E402
from protocol import GameSession, Identity, verify_transcript  # noqa: E402
from protocol.keys import b64  # noqa: E402
from protocol.messages import encode  # noqa: E402

FLOOD_FROM, PROBE_FROM = "127.0.0.2", "127.0.0.3"


# -- the players ---------------------------------------------------------------------------------------
async def play(role: str, port: int, pace: float, folder: Path, ids: Any) -> dict[str, Any]:
    rng = random.Random(role)
    address = RelayAddress(False, "127.0.0.1", port)
    identity = Identity.generate()
    if role == "host":
        core, offer = GameCore.hosting("olix", identity)
        game = core.session.game_id or ""
        journal: Journal | None = Journal.create(
            JournalMeta(game, "olix", "host", identity.public.text, address.url), folder
        )
        assert journal is not None
        for line in offer.journal:
            journal.append(line)
        ids.put(game)
    else:
        game = ids.get()
        core, journal = GameCore(GameSession(game, identity)), None
    runner = GameRunner(core, functools.partial(Link, address), journal)

    async def front(runner: GameRunner) -> int:
        if role == "guest":
            while core.session.phase.name == "WAITING":
                await asyncio.sleep(0.01)
            runner.attach(Journal.create(JournalMeta(game, "olix", "guest", identity.public.text, address.url), folder))
            await runner.apply(core.join())
        while not core.session.over:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(runner.events.get(), 0.2)
            while not runner.events.empty():
                runner.events.get_nowait()
            if core.my_turn:
                await asyncio.sleep(pace)
                if core.my_turn:
                    assert core.session.board is not None
                    await runner.act(Intent("move", rng.choice(core.session.board.legal_moves()).text()))
        return 0

    started = time.monotonic()
    async with asyncio.timeout(600):
        await runner.run(front)
    return {
        "game": game,
        "transcript": list(core.session.transcript),
        "seconds": time.monotonic() - started,
        "notices": runner.ignored.lines,
        "key": identity.public.text,
    }


def player_process(role: str, port: int, pace: float, folder: str, ids: Any, results: Any) -> None:
    outcome = asyncio.run(play(role, port, pace, Path(folder), ids))
    outcome["peak_mib"] = memory_mib(os.getpid(), "VmHWM")
    results.put((role, outcome))


# -- the flood --------------------------------------------------------------------------------------------
async def flood_connection(port: int, game: str, number: int, until: float, counts: dict[str, int]) -> None:
    key = Identity.generate()
    text = "%21" * 500  # the longest chat text: ~1.6 kB of the line
    resubscriber = number % 10 == 0
    try:
        async with bare_client(port, bind_address=FLOOD_FROM, timeout=30) as client:
            client.pending_calls_threshold = 10_000
            await client.subscribe(f"olixono/1/games/{game}/#", qos=1)
            reader = asyncio.create_task(drain(client, counts))
            n = 0
            try:
                while time.monotonic() < until:
                    n += 1
                    topic = f"olixono/1/games/{game}/{key.public.text}/chat-{n}"
                    if n % 2:
                        payload = encode(
                            "chat", [("game", game), ("seq", str(n)), ("prev", b64(bytes(32))), ("text", text)], key
                        ).encode()
                    else:
                        payload = os.urandom(1000).hex().encode()
                    await client.publish(topic, payload, qos=n % 2, retain=True)
                    counts["published"] += 1
                    if resubscriber and n % 20 == 0:
                        await client.unsubscribe(f"olixono/1/games/{game}/#")
                        await client.subscribe(f"olixono/1/games/{game}/#", qos=1)
                        counts["resubscribed"] += 1
            finally:
                reader.cancel()
    except aiomqtt.MqttError:
        counts["lost"] += 1


async def drain(client: aiomqtt.Client, counts: dict[str, int]) -> None:
    async for _ in client.messages:
        counts["received"] += 1


def flood_process(port: int, game: str, connections: int, seconds: float, results: Any) -> None:
    counts = {"published": 0, "received": 0, "resubscribed": 0, "lost": 0}

    async def main() -> None:
        until = time.monotonic() + seconds
        await asyncio.gather(*(flood_connection(port, game, n, until, counts) for n in range(connections)))

    asyncio.run(main())
    results.put(("flood", counts))


# -- the new clients -------------------------------------------------------------------------------------
async def probe(port: int, until: float) -> tuple[list[float], list[float], int]:
    trips, connects, failed = [], [], 0
    n = 0
    while time.monotonic() < until:
        n += 1
        topic = f"olixono/1/probe/{n}"
        started = time.perf_counter()
        try:
            async with asyncio.timeout(10):
                async with bare_client(port, bind_address=PROBE_FROM, timeout=10) as client:
                    connects.append(time.perf_counter() - started)
                    await client.subscribe(topic, qos=1)
                    sent = time.perf_counter()
                    await client.publish(topic, b"ping", qos=1)
                    async for _ in client.messages:
                        trips.append(time.perf_counter() - sent)
                        break
        except (aiomqtt.MqttError, TimeoutError):
            failed += 1
        await asyncio.sleep(0.25)
    return trips, connects, failed


async def catch_up(port: int, game: str, players: set[str]) -> tuple[int, int]:
    """What a late subscriber to the game is sent once it is over: lines in all, and those not under a player's key."""
    topics: set[str] = set()
    async with bare_client(port, bind_address=PROBE_FROM, timeout=30) as client:
        await client.subscribe(f"olixono/1/games/{game}/#", qos=1)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(120):
                while True:
                    async with asyncio.timeout(2.0):  # two quiet seconds: the catch-up is over
                        message = await anext(client.messages)
                    topics.add(message.topic.value)
    return len(topics), sum(1 for topic in topics if topic.split("/")[4] not in players)


def watcher(port: int, game: str, home: Path) -> tuple[int, float, str]:
    """``olixono watch GAME --plain`` to the end of the game: its status, peak memory, and what it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "client", "watch", game, "--plain", "--relay", f"mqtt://127.0.0.1:{port}"],
        env=home_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    output = b""
    stdout = process.stdout
    assert stdout is not None
    for chunk in iter(lambda: stdout.read(65536), b""):
        output += chunk
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_maxrss / 1024, output.decode("utf-8", "replace")


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--seconds", type=float, default=40.0, help="how long the flood lasts (default 40)")
    parser.add_argument("--connections", type=int, default=60)
    parser.add_argument("--pace", type=float, default=0.3, help="seconds a player waits before each move")
    options.add_quick(parser, "a 6 s flood of 20 connections (CI)")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.connections, args.pace = 6.0, 20, 0.05
    folder = Path(tempfile.mkdtemp(prefix="olixono-flood-"))
    relay = RelayProcess("embedded", folder, limits=True).start()  # its default limits: the flood is a stranger
    port = relay.port
    try:
        context = multiprocessing.get_context("spawn")
        ids, results = context.Queue(), context.Queue()
        players = [
            context.Process(target=player_process, args=(role, port, args.pace, str(folder / role), ids, results))
            for role in ("host", "guest")
        ]
        players[0].start()
        game = ids.get(timeout=30)
        ids.put(game)
        flood = context.Process(target=flood_process, args=(port, game, args.connections, args.seconds, results))
        flood.start()
        time.sleep(1.0)  # the flood under way before the game starts
        players[1].start()
        until = time.monotonic() + args.seconds - 1.0
        watched: dict[str, Any] = {}

        def watch_later() -> None:
            time.sleep(args.seconds / 2)
            watched["status"], watched["peak_mib"], watched["output"] = watcher(port, game, folder / "watcher")

        watching = threading.Thread(target=watch_later)
        watching.start()
        trips, connects, failed = asyncio.run(probe(port, until))
        relay_peak = memory_mib(relay.pid, "VmHWM")
        outcomes = dict(results.get(timeout=900) for _ in range(3))
        for process in (*players, flood):
            process.join(60)
        watching.join(600)
        caught_up, strangers_kept = asyncio.run(
            catch_up(port, outcomes["host"]["game"], {outcomes[role]["key"] for role in ("host", "guest")})
        )
        relay_peak = max(relay_peak, memory_mib(relay.pid, "VmHWM"))
    finally:
        relay.stop()
    host, guest, counts = outcomes["host"], outcomes["guest"], outcomes["flood"]
    same = host["transcript"] == guest["transcript"]
    session, _, problem = verify_transcript(host["transcript"])
    finished = same and problem is None and session.result is not None
    junk_kept = sum(1 for line in relay.log.read_text().splitlines() if "refused" in line)
    figures = {
        "flood_seconds": args.seconds,
        "flood_connections": args.connections,
        "flood_published": counts["published"],
        "flood_resubscriptions": counts["resubscribed"],
        "relay_peak_mib": relay_peak,
        "new_client_rtt_p50_ms": median(trips) * 1000,
        "new_client_rtt_p99_ms": percentile(trips, 0.99) * 1000,
        "new_client_connect_p50_ms": median(connects) * 1000,
        "new_client_failures": failed,
        "game_finished": int(finished),
        "game_plies": session.moves,
        "game_seconds": max(host["seconds"], guest["seconds"]),
        "host_peak_mib": host["peak_mib"],
        "guest_peak_mib": guest["peak_mib"],
        "host_ignored_lines": host["notices"],
        "watcher_status": watched.get("status", -1),
        "watcher_peak_mib": watched.get("peak_mib", float("nan")),
        "watcher_saw_result": int("result: " in watched.get("output", "")),
        "watcher_output_lines": len(watched.get("output", "").splitlines()),
        "relay_log_refusal_lines": junk_kept,
        "late_catch_up_lines": caught_up,
        "late_catch_up_strangers_lines": strangers_kept,
    }
    print_figures(figures.items(), digits=1)
    return 0 if finished and watched.get("status") == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
