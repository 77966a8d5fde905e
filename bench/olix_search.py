"""Olix's tree search: iterations a second on the engine-backed view and on the view in C.

    python bench/olix_search.py                  # 1,000 iterations on each of eight positions
    python bench/olix_search.py --iterations 300

The same seeded search of ``bot_olix.searcher`` runs from the same mid-game positions (clustering games after 10 to
52 plies whose root is searched the whole budget) three ways: in pure Python (``bot_olix.PYTHON``: the engine's
board behind ``OlixSearch``), on ``OlixSearch`` with the C bitboard functions (``bot_olix.C``), and on
``FastOlixSearch`` (the position in C too: ``bot_olix.searcher`` on ``bot_olix.C``). Times are CPU time
(``time.process_time``, steady on a shared machine); the fast search, short, is timed over five runs. Every search
must give the same move and candidates. Prints one line a position and the totals as ``name: value``; results are
recorded in ``BENCHMARKS.md``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import olix_reference as ref  # noqa: E402  (tests/olix_reference.py: the seeded random games)

from harness import options  # noqa: E402
from harness.figures import print_figures  # noqa: E402
from olixono import bot_olix  # noqa: E402
from olixono.mcts import Mcts  # noqa: E402
from olixono.olix import MOVES, OlixBoard  # noqa: E402

PLIES = (10, 16, 22, 28, 34, 40, 46, 52)
SEED = 7
FAST_REPEATS = 5
C = bot_olix.C


def c_helpers() -> bot_olix.Backend:
    """:data:`C`, which :func:`main` checks is there (the C helpers are built)."""
    assert C is not None
    return C


def positions(iterations: int) -> list[OlixBoard]:
    """For each of :data:`PLIES`: the first clustering game (seeds 1, 2, ...) that reaches it going on, and whose
    search runs its whole budget (no win found at the root)."""
    found = []
    seed = 0
    for plies in PLIES:
        while True:
            seed += 1
            board = OlixBoard()
            for square in ref.random_squares("clustering", seed, plies):
                board.push(MOVES[square])
                if board.outcome() is not None:
                    break
            if board.outcome() is None:
                view, search = bot_olix.searcher(board, random.Random(SEED), c_helpers())
                if search.search(view, iterations=iterations).iterations == iterations:
                    found.append(board)
                    break
    return found


def run(kind: str, board: OlixBoard, iterations: int) -> tuple[float, Any]:
    """CPU seconds of one search (of ``kind``) and its result."""
    repeats = FAST_REPEATS if kind == "fast" else 1
    start = time.process_time()
    for _ in range(repeats):
        rng = random.Random(SEED)
        view: Any
        if kind == "pure":
            view, search = bot_olix.searcher(board, rng, bot_olix.PYTHON)
        elif kind == "engine":
            view = bot_olix.OlixSearch(board, c_helpers())
            search = Mcts(
                rng,
                exploration=bot_olix.EXPLORATION,
                order=bot_olix.ordered_moves,
                width=bot_olix.SEARCH_WIDTH,
                solver=bot_olix.solve,
                check=bot_olix.CHECKS,
            )
        else:
            view, search = bot_olix.searcher(board, rng, c_helpers())
            assert isinstance(view, bot_olix.FastOlixSearch)
        result = search.search(view, iterations=iterations)
    return (time.process_time() - start) / repeats, result


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--iterations", type=int, default=1000)
    args = parser.parse_args()
    if C is None:
        sys.exit("the C helpers are not built")
    kinds = ("pure", "engine", "fast")
    seconds = dict.fromkeys(kinds, 0.0)
    done = dict.fromkeys(kinds, 0)
    for board in positions(args.iterations):
        cells, results = [], []
        for kind in kinds:
            spent, result = run(kind, board, args.iterations)
            seconds[kind] += spent
            done[kind] += result.iterations
            cells.append(f"{kind} {result.iterations / spent:8,.0f}/s")
            results.append((result.move, result.candidates))
        if not results[0] == results[1] == results[2]:
            sys.exit(f"the searches differ at {board.position()}")
        print(f"{len(board.move_stack):3d} plies  " + "  ".join(cells) + f"  (all play {results[0][0]})")
    print_figures(
        [
            *((f"olix_search_{kind}_iterations_per_s", done[kind] / seconds[kind], 0) for kind in kinds),
            ("olix_search_fast_over_pure", seconds["pure"] / seconds["fast"], 1),
            ("olix_search_fast_over_engine", seconds["engine"] / seconds["fast"], 1),
        ]
    )


if __name__ == "__main__":
    main()
