"""Unexplained seconds between honest players: prints one figure a line as ``name: value``.

    python bench/clock.py [--games 100] [--jitter 0,20,100] [--quick]

Timed games (``clock:120+2``) between two honest bots (``mcts``, a small iteration budget, so that each move takes a
little thought), each player in a process of its own, behind the chaos proxy (``harness/chaos.py``: every packet
waits ``--delay`` ms plus up to the jitter, in order as TCP keeps it) in front of a relay in its own process
(Mosquitto by default), on loopback.
For each jitter: how many seconds of thinking the receipts leave unexplained a game (the mean, the 95th percentile
and the most, both players together), and the moves measured. Target: under 1 s a game at 20 ms of jitter.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # before bench/ itself: bench/protocol.py is no package

from client.flows import network
from client.shell.journal import Journal
from harness import options
from harness.chaos import Chaos, ChaosProxy
from harness.clients import offered_game
from harness.figures import mean, percentile, print_figures
from harness.relays import RelayProcess
from protocol import GameSession, Identity
from protocol.clock import TimeControl

CONTROL = TimeControl.parse("2+2")
CONCURRENT = 2
"""Games played at once (each its two client processes)."""


def _options(url: str, folder: Path, seed: int, lines: list[str], control: TimeControl | None) -> network.Options:
    return network.Options(
        relay=url,
        identity=Identity.generate(),
        journal_dir=folder,
        write=lines.append,
        timeout=60,
        bot="mcts",
        iterations=150,
        seed=seed,
        control=control,
    )


def host_process(url: str, folder: str, seed: int, ids: Any) -> None:
    """The host, in a process of its own (as a player is): it hosts, tells the game id, and plays."""
    lines: list[str] = []
    options = _options(url, Path(folder) / "host", seed, lines, CONTROL)

    async def run() -> None:
        hosting = asyncio.create_task(network.host("oxono", options))
        for _ in range(2000):
            game = offered_game(lines)
            if game:
                ids.put(game)
                break
            await asyncio.sleep(0.01)
        await hosting

    asyncio.run(run())


def guest_process(url: str, folder: str, seed: int, game: str) -> None:
    asyncio.run(network.join(game, _options(url, Path(folder) / "guest", seed, [], None)))


async def one_game(url: str, folder: Path, seed: int) -> tuple[float, int] | None:
    """One game between two honest bots, each in its own process; its unexplained seconds and the moves measured
    (``None``: it did not finish in time)."""
    context = multiprocessing.get_context("spawn")
    ids = context.Queue()
    loop = asyncio.get_running_loop()
    host = context.Process(target=host_process, args=(url, str(folder), seed, ids), daemon=True)
    host.start()
    game = await loop.run_in_executor(None, ids.get, True, 60)
    guest = context.Process(target=guest_process, args=(url, str(folder), seed + 1, game), daemon=True)
    guest.start()
    for process in (guest, host):
        await loop.run_in_executor(None, process.join, 240)
    if host.is_alive() or guest.is_alive():
        for process in (guest, host):
            if process.is_alive():
                process.terminate()
        print(f"game {game} (seed {seed}) did not finish in 240 s", file=sys.stderr)
        return None
    session = GameSession.restore(Journal.open(game, folder / "host").lines(), game_id=game)
    used = session.time_used()
    return sum(side.unexplained for side in used.values()) / 1000, sum(side.measured for side in used.values())


async def run(jitters: list[int], games: int, delay: int, relay_port: int) -> None:
    for jitter in jitters:
        async with ChaosProxy(relay_port, Chaos(seed=jitter, delay=delay / 1000, jitter=jitter / 1000)) as proxy:
            url = f"mqtt://127.0.0.1:{proxy.port}"
            started = time.perf_counter()
            results: list[tuple[float, int] | None] = []
            with tempfile.TemporaryDirectory(prefix="olixono-clock-") as folder:
                for first in range(0, games, CONCURRENT):
                    batch = [
                        one_game(url, Path(folder) / f"g{n}", 1000 * jitter + 2 * n)
                        for n in range(first, min(games, first + CONCURRENT))
                    ]
                    results += await asyncio.gather(*batch)
            finished = [result for result in results if result is not None]
            seconds = sorted(result[0] for result in finished)
            spent = time.perf_counter() - started
            print_figures(
                [
                    (f"unexplained_s_per_game_mean_jitter_{jitter}ms", mean(seconds), 3),
                    (f"unexplained_s_per_game_p95_jitter_{jitter}ms", percentile(seconds, 0.95), 3),
                    (f"unexplained_s_per_game_max_jitter_{jitter}ms", seconds[-1], 3),
                    (f"moves_measured_per_game_jitter_{jitter}ms", mean(r[1] for r in finished), 1),
                    (f"games_jitter_{jitter}ms", f"{len(finished)} of {len(results)} finished, in {spent:.0f} s"),
                ]
            )


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--games", type=int, default=100, help="games a jitter (default 100)")
    parser.add_argument("--jitter", default="0,20,100", help="jitters to try, ms, comma-separated (default 0,20,100)")
    parser.add_argument("--delay", type=int, default=5, help="fixed delay a packet, ms (default 5)")
    options.add_relay(parser, "mosquitto")
    options.add_quick(parser, "8 games a jitter")
    args = parser.parse_args()
    jitters = [int(item) for item in args.jitter.split(",")]
    with (
        tempfile.TemporaryDirectory(prefix="olixono-relay-") as folder,
        RelayProcess(args.relay, Path(folder)) as relay,
    ):
        asyncio.run(run(jitters, 8 if args.quick else args.games, args.delay, relay.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
