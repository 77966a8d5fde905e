"""The levels a person chooses (easy, normal, hard) against each other and against two yardsticks, fixed seeds.

    python bench/levels.py                      # 20 games a pairing, both games, every pairing (long)
    python bench/levels.py --games 10 --game oxono --pairs easy-normal,normal-hard
    python bench/levels.py --scale 0.1          # each level's iteration budget at a tenth (quick; not the levels)

The yardsticks: ``random`` (a legal move drawn at random) and ``greedy`` (takes every win in one and blocks every
threat in one, and sees nothing further: a careful beginner). For each game and pairing it prints the first bot's
wins, draws and losses, its score (a draw counts half) with a 95% Wilson interval and the mean seconds a move of
each bot, then ``name: value`` figure lines (``oxono_normal_vs_easy_score: 0.95``). Game ``i`` of a pairing seeds
the first bot with ``1000 + i`` and the second with ``2000 + i``; the first bot takes the first seat in even games
and the second in odd ones. Each game opens with ``--opening`` legal moves drawn at random (two by default), seeded by
``i // 2``: each opening is played once from each seat. Without them Olix's games would repeat, for its search
draws nothing at random. Each level plays with its iteration budget alone (``hard``'s cap of 5 seconds a move is
dropped), so that a run is the same on any machine.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import options
from harness.figures import Figure, Results, print_figures
from olixono.bots import PEOPLE_LEVELS, Bot, bot_for
from olixono.common import Board
from olixono.games import new_board

PAIRS = ("easy-normal", "normal-hard", "easy-hard", "greedy-easy", "greedy-normal", "random-easy")
MAX_PLIES = 400


@dataclass
class Tally(Results):
    """One pairing's results from its first bot's side, and each bot's thinking time."""

    seconds: tuple[float, float] = (0.0, 0.0)
    moves: tuple[int, int] = (0, 0)

    def per_move(self, side: int) -> float:
        return self.seconds[side] / self.moves[side] if self.moves[side] else 0.0


def level_bot(name: str, seed: int, scale: float) -> Bot:
    """The bot of ``name`` on its iteration budget alone (times ``scale``), with no cap in seconds."""
    level = PEOPLE_LEVELS.get(name)
    if level is None:
        return bot_for(name, seed=seed)
    return bot_for(name, seed=seed, iterations=max(1, round(level.iterations * scale)))


def opened(kind: str, plies: int, seed: int) -> Board[Any]:
    """A new board after ``plies`` legal moves drawn at random (``seed``), the game still going on."""
    rng = random.Random(seed)
    while True:
        board = new_board(kind)
        for _ in range(plies):
            board.push(board.random_move(rng))
            if board.outcome() is not None:
                break
        if board.outcome() is None:
            return board


def play(kind: str, first: str, second: str, game: int, scale: float, opening: int, tally: Tally) -> None:
    """Game ``game`` of a pairing, added to ``tally`` (from ``first``'s side)."""
    bots = [level_bot(first, 1000 + game, scale), level_bot(second, 2000 + game, scale)]
    board = opened(kind, opening, game // 2)
    seat_of_first = board.PLAYERS[game % 2]
    seconds, moves = list(tally.seconds), list(tally.moves)
    for _ply in range(MAX_PLIES):
        if board.outcome() is not None:
            break
        side = 0 if board.turn == seat_of_first else 1
        start = time.perf_counter()
        board.push(bots[side].choose(board))
        seconds[side] += time.perf_counter() - start
        moves[side] += 1
    tally.seconds, tally.moves = (seconds[0], seconds[1]), (moves[0], moves[1])
    outcome = board.outcome()
    tally.count(None if outcome is None else outcome.winner, seat_of_first)


def main(argv: list[str] | None = None) -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--games", type=int, default=20, help="games a pairing (default 20)")
    options.add_game(parser)
    parser.add_argument("--pairs", default=",".join(PAIRS), help=f"pairings, FIRST-SECOND (default {','.join(PAIRS)})")
    parser.add_argument("--scale", type=float, default=1.0, help="each level's iteration budget times this")
    options.add_opening(parser, 2, "default 2")
    args = parser.parse_args(argv)
    pairs = [tuple(pair.split("-")) for pair in args.pairs.split(",")]
    figures: list[Figure] = []
    for kind in options.games(args.game):
        print(f"{kind}, {args.games} games a pairing, budgets x{args.scale}, {args.opening} random opening moves")
        print(f"  {'pairing':<18} {'W-D-L':>9} {'score':>6} {'95% interval':>14} {'s/move':>13}")
        for first, second in pairs:
            tally = Tally()
            for game in range(args.games):
                play(kind, first, second, game, args.scale, args.opening, tally)
            low, high = tally.interval()
            name = f"{first} vs {second}"
            print(
                f"  {name:<18} {tally.wins:>3}-{tally.draws}-{tally.losses:<3} {tally.score():>6.2f} "
                f"{low:>6.2f}-{high:<6.2f} {tally.per_move(0):>6.3f}/{tally.per_move(1):<6.3f}",
                flush=True,
            )
            figures += [
                (f"{kind}_{first}_vs_{second}_score", tally.score(), 2),
                (f"{kind}_{first}_vs_{second}_wdl", tally.wdl()),
            ]
    print_figures(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
