"""How far the analysis's values can be trusted: self-play at the analysis's own budget, each value set beside the
game's result.

    python bench/analysis.py                     # 40 Oxono and 10 Olix games at the default budget (long)
    python bench/analysis.py --games 10 --game oxono --iterations 1000

Each game opens with ``--opening`` legal moves drawn at random (two by default, seeded by the game's number: without
them Olix's games would all be one, for its search draws nothing at random), then is played by the analysis itself:
every position is searched as ``olixono analyze`` searches it (:func:`olixono.analysis.evaluate`, game ``i`` with
seed ``i``) and its best move is played. Every position the
search did not prove is kept with its value for the player to move; at the end, whether that player won. It prints,
for each band of values, how many positions fell in it and how often the player to move went on to win (a draw
counts half), then figure lines: ``oxono_won_value_score`` (the score of the player to move over the positions
valued at least ``WON_VALUE``, which the analysis calls won without a proof), ``oxono_lost_value_score`` (the same at
most ``-WON_VALUE``), the share of positions proven, and the seconds a position.
"""

from __future__ import annotations

import sys
import time
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.levels import opened
from harness import options
from harness.figures import Figure, mean, print_figures
from olixono.analysis import DEFAULT_ITERATIONS, WON_VALUE, Budget, evaluate

BANDS = (-1.0, -0.95, -0.9, -0.8, -0.6, -0.3, 0.3, 0.6, 0.8, 0.9, 0.95, 1.0001)
MAX_PLIES = 400


def self_play(kind: str, game: int, budget: Budget, opening: int) -> tuple[list[tuple[float, float]], int, int, float]:
    """One game played by the analysis after its random opening: (value, score of the player to move) for each
    unproven position, the positions proven, all positions, and the seconds spent."""
    board = opened(kind, opening, game)
    valued: list[tuple[float, str]] = []
    proven = searched = 0
    start = time.perf_counter()
    for _ in range(MAX_PLIES):
        if board.outcome() is not None:
            break
        position = evaluate(board, budget, seed=game, index=len(board.move_stack))
        searched += 1
        if position.evaluation.proven:
            proven += 1
        else:
            valued.append((position.evaluation.value, board.turn))
        assert position.best is not None
        board.push(board.parse_move(position.best))
    outcome = board.outcome()
    winner = None if outcome is None else outcome.winner
    scores = [(value, 0.5 if winner is None else float(winner == player)) for value, player in valued]
    return scores, proven, searched, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--games", type=int, help="games (default 40 Oxono, 10 Olix)")
    options.add_game(parser)
    parser.add_argument(
        "--iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        help=f"iterations a position (default {DEFAULT_ITERATIONS}, the analysis's)",
    )
    options.add_opening(parser, 2, "default 2")
    args = parser.parse_args(argv)
    budget = Budget(args.iterations)
    figures: list[Figure] = []
    for kind in options.games(args.game):
        games = args.games or (40 if kind == "oxono" else 10)
        scores: list[tuple[float, float]] = []
        proven = searched = 0
        seconds = 0.0
        for game in range(games):
            more, more_proven, more_searched, spent = self_play(kind, game, budget, args.opening)
            scores += more
            proven, searched, seconds = proven + more_proven, searched + more_searched, seconds + spent
        print(
            f"{kind}: {games} games, {searched} positions ({proven} proven), {args.iterations:,} iterations a position"
        )
        print(f"  {'value':<15} {'positions':>9} {'mover scored':>12}")
        for low, high in pairwise(BANDS):
            band = [score for value, score in scores if low <= value < high]
            if band:
                print(f"  {low:+.2f} to {min(high, 1.0):+.2f} {len(band):>9} {sum(band) / len(band):>12.2f}")
        won = [score for value, score in scores if value >= WON_VALUE]
        lost = [score for value, score in scores if value <= -WON_VALUE]
        figures += [
            (f"{kind}_won_value_score", f"{mean(won):.3f} ({len(won)} positions)" if won else "none"),
            (f"{kind}_lost_value_score", f"{mean(lost):.3f} ({len(lost)} positions)" if lost else "none"),
            (f"{kind}_proven_share", proven / searched, 3),
            (f"{kind}_seconds_a_position", seconds / searched, 3),
        ]
    print_figures(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
