"""Speed figures of the Olix engine.

* ``olix_games_per_s``: uniformly random full games through the board's
  normal API (``OlixBoard()`` and ``play`` with a move per ply, the outcome
  read after each), with formations, scoreboard values and every ending – the
  settled check included – maintained at every ply. A uniformly random game
  is a random order of the squares, cut where the game ends.
* ``olix_update_us``: the mean cost of one placement's formation update
  (``OlixBoard._add``: the stone into its four lines, and the best O, L, I
  and X – values and squares – from the lines through the new stone), over
  the placements of random games.

``figures(quick)`` returns both; run as a script to print ``name: value`` lines.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import options
from harness.figures import print_figures
from olixono.olix import MOVES, SQUARES, OlixBoard


def _random_games_per_s(seconds: float, seed: int = 1) -> tuple[float, list[list[int]]]:
    """Play random full games for about ``seconds``; games per second, and the squares played."""
    rng = random.Random(seed)
    order = list(range(SQUARES))
    moves = [MOVES[s] for s in order]
    played: list[list[int]] = []
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        rng.shuffle(moves)
        board = OlixBoard()
        for move in moves:
            board.play(move)
            if board.outcome() is not None:
                break
        games += 1
        if len(played) < 200:
            played.append([m.square for m in board.move_stack])
        if games % 20 == 0 and time.perf_counter() > deadline:
            break
    return games / (time.perf_counter() - start), played


def _update_us(games: list[list[int]], repeat: int) -> float:
    """Mean microseconds of one ``_add`` over the placements of ``games``."""
    best = float("inf")
    for _ in range(repeat):
        total = 0.0
        count = 0
        for squares in games:
            board = OlixBoard()
            add = board._add
            players = [i & 1 for i in range(len(squares))]
            start = time.perf_counter()
            for p, s in zip(players, squares, strict=True):
                add(p, s)
            total += time.perf_counter() - start
            count += len(squares)
        best = min(best, total / count * 1e6)
    return best


def figures(quick: bool) -> list[tuple[str, float]]:
    """``olix_games_per_s`` and ``olix_update_us`` (quick: a few seconds in all)."""
    games_per_s, played = _random_games_per_s(2.0 if quick else 10.0)
    update = _update_us(played[: 100 if quick else 200], 3 if quick else 7)
    return [("olix_games_per_s", round(games_per_s, 1)), ("olix_update_us", round(update, 3))]


if __name__ == "__main__":
    parser = options.parser(__doc__)
    options.add_quick(parser, "a few seconds in all")
    print_figures(figures(quick=parser.parse_args().quick))
