"""Unexplained seconds between honest players: prints one figure a line as ``name: value``.

    python bench/clock.py [--games 100] [--jitter 0,20,100] [--quick]

Timed games (``clock:120+2``) between two honest bots (``mcts``, a small iteration budget, so that each move takes a
little thought), each player's client behind the chaos proxy (``harness/chaos.py``: every packet waits ``--delay``
ms plus up to the jitter, in order as TCP keeps it) in front of the embedded relay, all in this process on loopback.
For each jitter: how many seconds of thinking the receipts leave unexplained a game (the mean, the 95th percentile
and the most, both players together), and the moves measured. Target: under 1 s a game at 20 ms of jitter.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client import network  # noqa: E402
from client.journal import Journal  # noqa: E402
from harness.chaos import Chaos, ChaosProxy  # noqa: E402
from protocol import GameSession, Identity  # noqa: E402
from protocol.clock import TimeControl  # noqa: E402
from relay.embedded import EmbeddedRelay, RelaySettings, quiet_amqtt  # noqa: E402

CONTROL = TimeControl.parse("2+2")
CONCURRENT = 4
"""Games played at once (each its two clients)."""


def _options(url: str, folder: Path, seed: int, lines: list[str]) -> network.Options:
    return network.Options(relay=url, identity=Identity.generate(), journal_dir=folder, write=lines.append,
                           timeout=60, bot="mcts", iterations=150, seed=seed, control=CONTROL)


async def one_game(url: str, folder: Path, seed: int) -> tuple[float, int]:
    """One game between two honest bots; its unexplained seconds and the moves measured."""
    host_lines: list[str] = []
    host = _options(url, folder / "host", seed, host_lines)
    guest = _options(url, folder / "guest", seed + 1, [])
    guest.control = None
    hosting = asyncio.create_task(network.host("oxono", host))
    try:
        game = ""
        for _ in range(1000):
            game = next((line.split("olixono join ")[1].split()[0] for line in host_lines if "olixono join " in line), "")
            if game:
                break
            await asyncio.sleep(0.01)
        async with asyncio.timeout(240):
            await network.join(game, guest)
            await hosting
    finally:
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)
    lines = Journal.open(game, folder / "host").lines()
    session = GameSession.restore(lines, game_id=game)
    used = session.time_used()
    return sum(side.unexplained for side in used.values()) / 1000, sum(side.measured for side in used.values())


async def run(jitters: list[int], games: int, delay: int) -> None:
    quiet_amqtt()
    relay = EmbeddedRelay(RelaySettings(host="127.0.0.1", port=0))
    await relay.start()
    assert relay.port is not None
    try:
        for jitter in jitters:
            async with ChaosProxy(relay.port, Chaos(seed=jitter, delay=delay / 1000, jitter=jitter / 1000)) as proxy:
                url = f"mqtt://127.0.0.1:{proxy.port}"
                started = time.perf_counter()
                results: list[tuple[float, int]] = []
                with tempfile.TemporaryDirectory(prefix="olixono-clock-") as folder:
                    for first in range(0, games, CONCURRENT):
                        batch = [one_game(url, Path(folder) / f"g{n}", 1000 * jitter + 2 * n)
                                 for n in range(first, min(games, first + CONCURRENT))]
                        results += await asyncio.gather(*batch)
                seconds = sorted(result[0] for result in results)
                p95 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.95))]
                print(f"unexplained_s_per_game_mean_jitter_{jitter}ms: {statistics.fmean(seconds):.3f}")
                print(f"unexplained_s_per_game_p95_jitter_{jitter}ms: {p95:.3f}")
                print(f"unexplained_s_per_game_max_jitter_{jitter}ms: {seconds[-1]:.3f}")
                print(f"moves_measured_per_game_jitter_{jitter}ms: {statistics.fmean(r[1] for r in results):.1f}")
                print(f"games_jitter_{jitter}ms: {len(results)} in {time.perf_counter() - started:.0f} s")
    finally:
        await relay.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games a jitter (default 100)")
    parser.add_argument("--jitter", default="0,20,100", help="jitters to try, ms, comma-separated (default 0,20,100)")
    parser.add_argument("--delay", type=int, default=5, help="fixed delay a packet, ms (default 5)")
    parser.add_argument("--quick", action="store_true", help="8 games a jitter")
    args = parser.parse_args()
    jitters = [int(item) for item in args.jitter.split(",")]
    asyncio.run(run(jitters, 8 if args.quick else args.games, args.delay))
    return 0


if __name__ == "__main__":
    sys.exit(main())
