"""Bot strength: round robins between bot levels, seats swapped every game, fixed seeds.

    python bench/strength.py                 # the full run: 100 games a pairing, both games (long)
    python bench/strength.py --quick         # 10 games a pairing
    python bench/strength.py --games 40 --game olix --pairs mcts-greedy

For each game and pairing it prints a table (wins, draws, losses of the first
bot; the share of games it won and its score, each with a 95% Wilson
interval; the reasons the games ended), then
``name: value`` figure lines, e.g. ``oxono_mcts_vs_greedy_score: 0.82``, and
the speed of the search: ``oxono_mcts_iterations_per_s`` and ``oxono_mcts_seconds_per_move``
over full searches from fixed positions (searches in games stop early once a
result is proven, so their own rate, ``…_mcts_iterations_per_s`` per pairing,
runs higher).
The score counts a draw as half a win. Game ``i`` of a pairing seeds the
first bot with ``1000 + i`` and the second with ``2000 + i``; the first bot
takes the first seat in even games and the second seat in odd games.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from olixono.bots import make_bot  # noqa: E402
from olixono.games import new_board  # noqa: E402

PAIRS = ("greedy-random", "mcts-random", "mcts-greedy")
MAX_PLIES = 400


@dataclass
class Tally:
    """Results of one pairing, from the first bot's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    reasons: Counter = field(default_factory=Counter)
    plies: int = 0
    iterations: int = 0
    search_seconds: float = 0.0
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def score(self) -> float:
        """Wins plus half the draws, per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def interval(self, rate: float | None = None) -> tuple[float, float]:
        """The 95% Wilson score interval of ``rate`` (the score by default) over the games played."""
        n, p, z = self.games, self.score() if rate is None else rate, 1.96
        if not n:
            return 0.0, 1.0
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def bot_of(spec: str, seed: int, iterations: int):
    return make_bot(spec, seed=seed, iterations=iterations if spec == "mcts" else None)


def play_game(kind: str, first, second) -> tuple[object, int, int, float]:
    """Play one game; return the outcome, plies, and the search iterations and seconds of both bots."""
    board = new_board(kind)
    bots = {board.PLAYERS[0]: first, board.PLAYERS[1]: second}
    iterations, search = 0, 0.0
    for _ in range(MAX_PLIES):
        if board.outcome() is not None:
            break
        bot = bots[board.turn]
        move = bot.choose(board)
        board.play(move)  # the validated path: an illegal move raises here
        if bot.level == "mcts":
            iterations += bot.analysis.iterations
            search += bot.analysis.seconds
    return board.outcome(), len(board.move_stack), iterations, search


def run_pairing(kind: str, a: str, b: str, games: int, iterations: int, log) -> Tally:
    tally = Tally()
    start = time.perf_counter()
    for i in range(games):
        bot_a, bot_b = bot_of(a, 1000 + i, iterations), bot_of(b, 2000 + i, iterations)
        a_first = i % 2 == 0
        first, second = (bot_a, bot_b) if a_first else (bot_b, bot_a)
        outcome, plies, its, secs = play_game(kind, first, second)
        seat_a = new_board(kind).PLAYERS[0 if a_first else 1]
        if outcome is None or outcome.winner is None:
            tally.draws += 1
        elif outcome.winner == seat_a:
            tally.wins += 1
        else:
            tally.losses += 1
        tally.reasons[outcome.reason if outcome else "unfinished"] += 1
        tally.plies += plies
        tally.iterations += its
        tally.search_seconds += secs
        log(f"  {kind} {a}-{b} game {i + 1}/{games}: {outcome} ({plies} plies) "
            f"running {tally.wins}-{tally.draws}-{tally.losses}")
    tally.seconds = time.perf_counter() - start
    return tally


def search_speed(kind: str, iterations: int, positions: int = 6) -> tuple[float, float]:
    """Mean seconds per move and iterations per second of full ``iterations`` searches.

    The positions come from seeded random games (plies 4, 8, …), skipping any
    where the player to move can win at once (the search would stop early).
    """
    import random

    rng = random.Random(7)
    board, total_seconds, total_iterations, searched = new_board(kind), 0.0, 0, 0
    plies = 4
    while searched < positions:
        if board.outcome() is not None:
            board = new_board(kind)
        if len(board.move_stack) >= plies:
            bot = make_bot("mcts", seed=searched, iterations=iterations)
            bot.choose(board)
            if bot.analysis.iterations == iterations:
                total_seconds += bot.analysis.seconds
                total_iterations += iterations
                searched += 1
                plies += 4 if kind == "oxono" else 10
        board.push(board.random_move(rng))
    return total_seconds / positions, total_iterations / total_seconds


def table(kind: str, rows: list[tuple[str, Tally]]) -> str:
    head = (f"{kind}: first bot vs second       games   W   D   L   won   95% interval     "
            "score  95% interval     ended by")
    lines = [head, "-" * len(head)]
    for name, t in rows:
        win_low, win_high = t.interval(t.win_rate())
        low, high = t.interval()
        reasons = ", ".join(f"{r} {n}" for r, n in t.reasons.most_common())
        lines.append(
            f"{name:<32}{t.games:>5} {t.wins:>3} {t.draws:>3} {t.losses:>3}   {t.win_rate():.2f}  "
            f"[{win_low:.3f}, {win_high:.3f}]   {t.score():.3f}  [{low:.3f}, {high:.3f}]   {reasons}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, help="games per pairing (default 100, or 10 with --quick)")
    parser.add_argument("--quick", action="store_true", help="10 games a pairing")
    parser.add_argument("--game", choices=["oxono", "olix", "both"], default="both")
    parser.add_argument("--pairs", default=",".join(PAIRS), help="comma-separated pairings, e.g. mcts-greedy (default: all three)")
    parser.add_argument("--iterations", type=int, default=2000, help="mcts iterations per move (default 2000)")
    parser.add_argument("--verbose", action="store_true", help="a line per game on stderr")
    args = parser.parse_args()
    games = args.games or (10 if args.quick else 100)
    kinds = ["oxono", "olix"] if args.game == "both" else [args.game]
    pairs = [p.split("-") for p in args.pairs.split(",")]

    def log(text: str) -> None:
        if args.verbose:
            print(text, file=sys.stderr, flush=True)

    print(f"python: {sys.version.split()[0]}; games per pairing: {games}; mcts iterations: {args.iterations}")
    for kind in kinds:
        per_move, rate = search_speed(kind, args.iterations)
        print(f"{kind}_mcts_seconds_per_move: {per_move:.3f}")
        print(f"{kind}_mcts_iterations_per_s: {rate:.0f}", flush=True)
    for kind in kinds:
        rows, figures = [], []
        for a, b in pairs:
            tally = run_pairing(kind, a, b, games, args.iterations, log)
            name = f"{a} vs {b}"
            rows.append((name, tally))
            low, high = tally.interval()
            key = f"{kind}_{a}_vs_{b}"
            win_low, win_high = tally.interval(tally.win_rate())
            figures += [
                (f"{key}_wdl", f"{tally.wins}-{tally.draws}-{tally.losses}"),
                (f"{key}_won", f"{tally.win_rate():.3f}"),
                (f"{key}_won_95", f"{win_low:.3f}-{win_high:.3f}"),
                (f"{key}_score", f"{tally.score():.3f}"),
                (f"{key}_score_95", f"{low:.3f}-{high:.3f}"),
                (f"{key}_mean_plies", f"{tally.plies / tally.games:.1f}"),
                (f"{key}_seconds", f"{tally.seconds:.1f}"),
            ]
            if tally.iterations:
                figures.append((f"{key}_mcts_iterations_per_s", f"{tally.iterations / tally.search_seconds:.0f}"))
        print()
        print(table(kind, rows))
        for name, value in figures:
            print(f"{name}: {value}", flush=True)


if __name__ == "__main__":
    main()
