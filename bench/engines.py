"""Engine speed: prints one figure a line as ``name: value``.

    python bench/engines.py            # the full run (about a minute)
    python bench/engines.py --quick    # under 30 seconds

Figures: ``oxono_perft4_s`` (perft 4 from the start, last ply counted in
closed form), ``oxono_perft4_leafmade_s`` (every leaf made and checked for a
win), ``oxono_playouts_per_s`` (full games, uniform random over all legal
moves); ``olix_games_per_s`` and ``olix_update_us`` (see
``bench/olix_figures.py``). Times are the best of several runs, after one
warm-up run that fills the engine's caches. Results are recorded in
``BENCHMARKS.md``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.olix_figures import figures as olix_figures
from harness import options
from harness.figures import print_figures
from olixono.oxono import OxonoBoard


def best_time(run, repeats: int) -> float:
    """The shortest wall time of ``repeats`` calls of ``run``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def oxono_figures(quick: bool) -> list[tuple[str, float]]:
    board = OxonoBoard()
    assert board.perft(4) == 6_470_416  # also the warm-up
    perft = best_time(lambda: board.perft(4), 2 if quick else 5)
    leaf = best_time(lambda: board.perft(4, leaf_made=True), 1 if quick else 3)
    games = 4_000 if quick else 20_000
    rng = random.Random(2026)
    playout_time = best_time(lambda: [board.playout(rng) for _ in range(games)], 1 if quick else 3)
    return [
        ("oxono_perft4_s", round(perft, 3)),
        ("oxono_perft4_leafmade_s", round(leaf, 3)),
        ("oxono_playouts_per_s", round(games / playout_time)),
    ]


def main() -> None:
    parser = options.parser(__doc__)
    options.add_quick(parser, "a run under 30 seconds")
    args = parser.parse_args()
    print(f"python: {sys.version.split()[0]}")
    print_figures([*oxono_figures(args.quick), *olix_figures(args.quick)])


if __name__ == "__main__":
    main()
