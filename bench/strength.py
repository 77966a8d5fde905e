"""Bot strength: round robins between bot levels, seats swapped every game, fixed seeds.

    python bench/strength.py                 # the full run: 100 games a pairing, both games (long)
    python bench/strength.py --quick         # 10 games a pairing
    python bench/strength.py --games 40 --game olix --pairs mcts-greedy
    python bench/strength.py --seconds 0.1 --pairs mcts-old,mcts-oldx10   # against the mcts of --baseline

A bot is ``random``, ``greedy``, ``mcts`` (this tree's) or ``old`` (the ``mcts`` of the commit ``--baseline``,
default 40e475b, the baseline mcts: UCT with a win-in-one solver; exported with ``git archive`` into a temporary
directory and driven in a subprocess through its text engine, ``python -m client engine``, with ``setposition`` and
``genmove``, so no copy of the baseline's code is kept). A suffix ``xK`` multiplies a bot's budget by K (``oldx10``:
ten times the time). With ``--seconds`` every ``mcts``/``old`` bot gets that wall time a move (times its K) instead
of an iteration budget; the engine's round trip is not counted against the old bot.

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

Games begin from seeded random openings (``--opening``, by default :data:`OPENING` legal moves drawn at random,
seeded by ``i // 2`` as in ``bench/levels.py``), the same for games ``2j`` and ``2j + 1``, so each opening is
played once from either seat. Olix needs them: its search
draws no random numbers, so two searches play the same few games again and again from the empty board (without
openings, 40 games a pairing, exploration constants of 0.2 and 0.4 scored 93% and 19% against the old bot; with
openings 60% and 54%). ``…_distinct_games`` counts the different games a pairing played.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.levels import opened
from harness import options
from harness.figures import Results, print_figures
from olixono.bots import make_bot
from olixono.common import Outcome
from olixono.games import new_board

PAIRS = ("greedy-random", "mcts-random", "mcts-greedy")
MAX_PLIES = 400
OPENING = {"oxono": 0, "olix": 4}
"""Random plies before the bots take over, by game (``--opening``): Oxono's search shuffles its moves, so its games
differ already (and its figures before the openings stay comparable)."""
BASELINE = "40e475b"
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Tally(Results):
    """Results of one pairing, from the first bot's side."""

    reasons: Counter[str] = field(default_factory=Counter)
    plies: int = 0
    iterations: int = 0
    search_seconds: float = 0.0
    seconds: float = 0.0
    distinct: set[tuple[str, ...]] = field(default_factory=set)  # the games' move lists


@dataclass
class Budget:
    """Every searching bot's budget a move: iterations, or wall seconds when ``seconds`` is set."""

    iterations: int
    seconds: float | None = None

    def times(self, k: float) -> Budget:
        return Budget(round(self.iterations * k), None if self.seconds is None else self.seconds * k)

    def word(self) -> str:
        """The budget as the engine's ``genmove`` takes it."""
        return f"{self.seconds:g}s" if self.seconds is not None else str(self.iterations)


def parse_spec(spec: str) -> tuple[str, float]:
    """``oldx10`` → (``old``, 10.0): a level and its budget's multiplier."""
    name, _, k = spec.partition("x")
    if name not in ("random", "greedy", "mcts", "old") or (k and name not in ("mcts", "old")):
        raise SystemExit(f"unknown bot {spec!r}: random, greedy, mcts or old, mcts and old with an optional xK")
    return name, float(k) if k else 1.0


class EngineBot:
    """The ``mcts`` of another checkout, driven through its text engine (one process for a whole pairing)."""

    level = "old"

    def __init__(self, checkout: Path, kind: str, seed: int, budget: Budget) -> None:
        self.budget = budget
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "client", "engine", "--game", kind, "--seed", str(seed)],
            cwd=checkout,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.analysis = None
        self.iterations = 0
        self.seconds = 0.0

    def ask(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            text = self.proc.stdout.readline()
            if not text:
                raise RuntimeError(f"the baseline engine stopped after {line!r}")
            if text == "\n":
                break
            lines.append(text.rstrip("\n"))
        reply = "\n".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"the baseline engine refused {line!r}: {reply}")
        return reply[2:] if len(reply) > 1 else ""

    def choose(self, board):
        self.ask(f"setposition {board.position()}")
        move = self.ask(f"genmove mcts {self.budget.word()}")
        summary = self.ask("analyze").split("\n")[0].split()  # mcts MOVE iterations N seconds S
        self.iterations += int(summary[3])
        self.seconds += float(summary[5])
        return move

    def close(self) -> None:
        self.ask("quit")
        self.proc.wait(timeout=10)


class Baseline:
    """The tree of ``rev`` exported into a temporary directory (``git archive``), removed on close."""

    def __init__(self, rev: str) -> None:
        self.rev = subprocess.run(
            ["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout.strip()
        self.tmp = tempfile.TemporaryDirectory(prefix="olixono-baseline-")
        archive = subprocess.run(["git", "archive", self.rev], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", self.tmp.name], input=archive, check=True)
        self.path = Path(self.tmp.name)

    def close(self) -> None:
        self.tmp.cleanup()


def bot_of(spec: str, seed: int, budget: Budget, kind: str = "oxono", baseline: Baseline | None = None):
    name, k = parse_spec(spec)
    if name == "old":
        if baseline is None:
            raise SystemExit("the old bot needs --baseline")
        return EngineBot(baseline.path, kind, seed, budget.times(k))
    if name != "mcts":
        return make_bot(name, seed=seed)
    mine = budget.times(k)
    if mine.seconds is not None:
        return make_bot(name, seed=seed, seconds=mine.seconds)
    return make_bot(name, seed=seed, iterations=mine.iterations)


def play_game(kind: str, first, second, board=None) -> tuple[Outcome | None, int, int, float, tuple[str, ...]]:
    """Play one game (from ``board``, a new board by default); return the outcome, plies, the search iterations
    and seconds of both bots, and the game's moves."""
    board = board if board is not None else new_board(kind)
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
    for bot in (first, second):
        if isinstance(bot, EngineBot):
            iterations += bot.iterations
            search += bot.seconds
    return board.outcome(), len(board.move_stack), iterations, search, tuple(m.text() for m in board.move_stack)


def run_pairing(
    kind: str, a: str, b: str, games: int, budget: Budget, log, baseline: Baseline | None = None, opening_plies: int = 0
) -> Tally:
    tally = Tally()
    start = time.perf_counter()
    for i in range(games):
        bot_a = bot_of(a, 1000 + i, budget, kind, baseline)
        bot_b = bot_of(b, 2000 + i, budget, kind, baseline)
        a_first = i % 2 == 0
        first, second = (bot_a, bot_b) if a_first else (bot_b, bot_a)
        try:
            start_board = opened(kind, opening_plies, i // 2)
            outcome, plies, its, secs, moves = play_game(kind, first, second, start_board)
        finally:
            for bot in (bot_a, bot_b):
                if isinstance(bot, EngineBot):
                    bot.close()
        seat_a = new_board(kind).PLAYERS[0 if a_first else 1]
        tally.count(None if outcome is None else outcome.winner, seat_a)
        tally.reasons[outcome.reason if outcome else "unfinished"] += 1
        tally.plies += plies
        tally.distinct.add(moves)
        tally.iterations += its
        tally.search_seconds += secs
        log(f"  {kind} {a}-{b} game {i + 1}/{games}: {outcome} ({plies} plies) running {tally.wdl()}")
    tally.seconds = time.perf_counter() - start
    return tally


def search_speed(
    kind: str, iterations: int, positions: int = 6, baseline: Baseline | None = None
) -> tuple[float, float]:
    """Mean seconds per move and iterations per second of full ``iterations`` searches (of the old bot's with
    ``baseline``).

    The positions come from seeded random games (plies 4, 8, …; Olix 4, 14, …), skipping any where the search
    stops early (a result proven: the player to move can win at once, say).
    """
    import random

    rng = random.Random(7)
    board, total_seconds, total_iterations, searched = new_board(kind), 0.0, 0, 0
    plies = 4
    while searched < positions:
        if board.outcome() is not None:
            board = new_board(kind)
        if len(board.move_stack) >= plies:
            if baseline is not None:
                bot = EngineBot(baseline.path, kind, searched, Budget(iterations))
                bot.choose(board)
                bot.close()
                done, seconds = bot.iterations, bot.seconds
            else:
                mine = make_bot("mcts", seed=searched, iterations=iterations)
                mine.choose(board)
                assert mine.analysis is not None  # it has chosen
                done, seconds = mine.analysis.iterations, mine.analysis.seconds
            if done == iterations:
                total_seconds += seconds
                total_iterations += iterations
                searched += 1
                plies += 4 if kind == "oxono" else 10
        board.push(board.random_move(rng))
    return total_seconds / positions, total_iterations / total_seconds


def table(kind: str, rows: list[tuple[str, Tally]]) -> str:
    head = (
        f"{kind}: first bot vs second       games   W   D   L   won   95% interval     score  95% interval     ended by"
    )
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
    parser = options.parser(__doc__)
    parser.add_argument("--games", type=int, help="games per pairing (default 100, or 10 with --quick)")
    options.add_quick(parser, "10 games a pairing")
    options.add_game(parser)
    parser.add_argument(
        "--pairs", default=",".join(PAIRS), help="comma-separated pairings, e.g. mcts-greedy (default: all three)"
    )
    parser.add_argument("--iterations", type=int, default=2000, help="mcts iterations per move (default 2000)")
    parser.add_argument("--seconds", type=float, help="mcts wall seconds per move instead of iterations")
    parser.add_argument("--baseline", default=BASELINE, help=f"the commit the old bot is of (default {BASELINE})")
    options.add_opening(parser, None, "the same for each two games; default: oxono 0, olix 4")
    parser.add_argument("--no-speed", action="store_true", help="skip the search-speed figures")
    parser.add_argument("--verbose", action="store_true", help="a line per game on stderr")
    args = parser.parse_args()
    games = args.games or (10 if args.quick else 100)
    kinds = options.games(args.game)
    pairs = [p.split("-") for p in args.pairs.split(",")]

    def log(text: str) -> None:
        if args.verbose:
            print(text, file=sys.stderr, flush=True)

    budget = Budget(args.iterations, args.seconds)
    uses_old = any(parse_spec(spec)[0] == "old" for pair in pairs for spec in pair)
    baseline = Baseline(args.baseline) if uses_old else None
    try:
        run(args, kinds, pairs, games, budget, baseline, log)
    finally:
        if baseline is not None:
            baseline.close()


def run(args, kinds, pairs, games: int, budget: Budget, baseline: Baseline | None, log) -> None:
    spent = f"mcts seconds a move: {budget.seconds:g}" if budget.seconds else f"mcts iterations: {budget.iterations}"
    old = f"; old = mcts of {baseline.rev}" if baseline else ""
    print(f"python: {sys.version.split()[0]}; games per pairing: {games}; {spent}{old}")
    for kind in kinds if not args.no_speed else []:
        per_move, rate = search_speed(kind, args.iterations)
        print_figures([(f"{kind}_mcts_seconds_per_move", per_move, 3), (f"{kind}_mcts_iterations_per_s", rate, 0)])
        if baseline is not None:
            old_move, old_rate = search_speed(kind, args.iterations, baseline=baseline)
            print_figures(
                [(f"{kind}_old_seconds_per_move", old_move, 3), (f"{kind}_old_iterations_per_s", old_rate, 0)]
            )
    for kind in kinds:
        rows, figures = [], []
        for a, b in pairs:
            plies = OPENING[kind] if args.opening is None else args.opening
            tally = run_pairing(kind, a, b, games, budget, log, baseline, plies)
            name = f"{a} vs {b}"
            rows.append((name, tally))
            low, high = tally.interval()
            key = f"{kind}_{a}_vs_{b}"
            win_low, win_high = tally.interval(tally.win_rate())
            figures += [
                (f"{key}_wdl", tally.wdl()),
                (f"{key}_won", f"{tally.win_rate():.3f}"),
                (f"{key}_won_95", f"{win_low:.3f}-{win_high:.3f}"),
                (f"{key}_score", f"{tally.score():.3f}"),
                (f"{key}_score_95", f"{low:.3f}-{high:.3f}"),
                (f"{key}_mean_plies", f"{tally.plies / tally.games:.1f}"),
                (f"{key}_opening_plies", str(plies)),
                (f"{key}_distinct_games", str(len(tally.distinct))),
                (f"{key}_seconds", f"{tally.seconds:.1f}"),
            ]
            if tally.iterations:
                figures.append((f"{key}_search_iterations_per_s", f"{tally.iterations / tally.search_seconds:.0f}"))
        print()
        print(table(kind, rows))
        print_figures(figures)


if __name__ == "__main__":
    main()
