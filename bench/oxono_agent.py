"""Our ``mcts`` against an Oxono agent written elsewhere: a public course project's (UCLouvain LINFO1361 style).

    python bench/oxono_agent.py PATH [--module my_agent] [--class MyAgent] [--games 20] [--seconds 0.1] [--odds 1,10,30]

PATH is a checkout of the agent's repository (nothing of it is kept here). Such agents implement
``Agent(player).act(state, remaining_time)`` over the course's ``oxono.State`` (a 6 × 6 grid of ``(symbol, player)``
cells, row 0 the top rank, ``totem_O``/``totem_X`` as ``(row, col)``, the pawns each player has left) and answer an
action ``(totem, (row, col), (row, col))``. This adapter builds that state from our board before each of the
agent's moves and translates its action back to move text, which our engine then checks (an illegal move ends the
run with an error).

Time: our bot gets ``--seconds`` a move; the agent gets ``--odds`` times that. The agent manages a clock of its own
(``remaining_time``, seconds left for the game); the adapter hands it ``remaining_time = T * n / 1.1 + 0.2`` where T
is its time a move and n its pawns left, which the agent of SIMIIIIIII/Oxono-Adversarial-Search (``my_agent.py``)
turns into exactly T a move (it spends ``min(6, 1.1 * (remaining - 0.2) / n)``); the seconds each side really spent
a move are printed, to check. Seats are swapped every game; game ``i`` seeds our bot with ``1000 + i`` and the
agent's module ``random`` with ``2000 + i``.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import options
from harness.figures import Results, mean, print_figures
from olixono.bots import make_bot
from olixono.common import square_name
from olixono.oxono import WIDTH, O, OxonoBoard, X

PAWNS_PER_SYMBOL = 8


def cell(square: int) -> tuple[int, int]:
    """Our square as the course's ``(row, col)``: row 0 is rank 6."""
    return WIDTH - 1 - square // WIDTH, square % WIDTH


def square_of(row: int, col: int) -> int:
    return (WIDTH - 1 - row) * WIDTH + col


def course_state(board: OxonoBoard, state_class: type) -> object:
    """The course's ``State`` of ``board``."""
    grid: list[list[tuple[str, int] | None]] = [[None] * WIDTH for _ in range(WIDTH)]
    pieces_x, pieces_o = [PAWNS_PER_SYMBOL, PAWNS_PER_SYMBOL], [PAWNS_PER_SYMBOL, PAWNS_PER_SYMBOL]
    for square in range(WIDTH * WIDTH):
        bit = 1 << square
        if not board.pawns & bit:
            continue
        player = 0 if board.pink & bit else 1
        symbol = "x" if board.xs & bit else "o"
        row, col = cell(square)
        grid[row][col] = (symbol, player)
        (pieces_x if symbol == "x" else pieces_o)[player] -= 1
    last = cell(board.move_stack[-1].pawn) if board.move_stack else None
    return state_class(grid, cell(board.totems[O]), cell(board.totems[X]), board.turn_index, pieces_x, pieces_o, last)


def move_text(action: tuple[str, tuple[int, int], tuple[int, int]]) -> str:
    totem, dest, pawn = action
    return totem.upper() + square_name(square_of(*dest), WIDTH) + square_name(square_of(*pawn), WIDTH)


class CourseAgent:
    """The agent, seen as one of our bots: ``choose(board)`` gives move text."""

    def __init__(self, module: object, class_name: str, state_class: type, player: int, seconds: float) -> None:
        self.agent = getattr(module, class_name)(player)
        self.state_class = state_class
        self.seconds = seconds
        self.spent = 0.0
        self.moves = 0

    def choose(self, board: OxonoBoard) -> str:
        pawns_left = (
            2 * PAWNS_PER_SYMBOL - (board.pink if board.turn_index == 0 else board.pawns & ~board.pink).bit_count()
        )
        remaining = self.seconds * pawns_left / 1.1 + 0.2
        start = time.perf_counter()
        action = self.agent.act(course_state(board, self.state_class), remaining)
        self.spent += time.perf_counter() - start
        self.moves += 1
        return move_text(action)


def play(
    agent_module: ModuleType, args: argparse.Namespace, odds: float, index: int
) -> tuple[float, float, float, int]:
    """One game; our score (1, 0.5, 0) and our and the agent's seconds spent per move, and the plies."""
    ours_first = index % 2 == 0
    random.seed(2000 + index)  # the agent draws from the module ``random``
    ours = make_bot("mcts", seed=1000 + index, seconds=args.seconds)
    theirs = CourseAgent(
        agent_module,
        args.class_name,
        agent_module.State,
        1 if ours_first else 0,
        args.seconds * odds,
    )
    board = OxonoBoard()
    our_time, our_moves = 0.0, 0
    while board.outcome() is None:
        if (board.turn_index == 0) == ours_first:
            start = time.perf_counter()
            board.play(ours.choose(board))
            our_time += time.perf_counter() - start
            our_moves += 1
        else:
            board.play(theirs.choose(board))
    outcome = board.outcome()
    assert outcome is not None
    our_seat = board.PLAYERS[0 if ours_first else 1]
    score = 0.5 if outcome.winner is None else 1.0 if outcome.winner == our_seat else 0.0
    return score, our_time / max(1, our_moves), theirs.spent / max(1, theirs.moves), len(board.move_stack)


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("path", type=Path, help="a checkout of the agent's repository")
    parser.add_argument("--module", default="my_agent", help="the agent's module (default my_agent)")
    parser.add_argument("--class", dest="class_name", default="MyAgent", help="the agent's class (default MyAgent)")
    parser.add_argument("--games", type=int, default=20, help="games at each time odds (default 20)")
    parser.add_argument("--seconds", type=float, default=0.1, help="our seconds a move (default 0.1)")
    parser.add_argument("--odds", default="1,10,30", help="the agent's time as multiples of ours (default 1,10,30)")
    parser.add_argument("--verbose", action="store_true", help="a line per game on stderr")
    args = parser.parse_args()
    sys.path.insert(0, str(args.path.resolve()))
    module = importlib.import_module(args.module)  # it imports the course's ``State`` from its ``oxono``
    print(
        f"python: {sys.version.split()[0]}; agent: {args.path} {args.module}.{args.class_name}; "
        f"games per odds: {args.games}; our seconds a move: {args.seconds:g}"
    )
    for odds in (float(k) for k in args.odds.split(",")):
        scores, ours, theirs, plies = [], [], [], []
        for i in range(args.games):
            score, our_move, their_move, n = play(module, args, odds, i)
            scores.append(score)
            ours.append(our_move)
            theirs.append(their_move)
            plies.append(n)
            if args.verbose:
                print(
                    f"  odds {odds:g} game {i + 1}: score {score} ({n} plies) running {sum(scores):g}/{len(scores)}",
                    file=sys.stderr,
                    flush=True,
                )
        results = Results(scores.count(1.0), scores.count(0.5), scores.count(0.0))
        key = f"odds_{odds:g}"
        print_figures(
            [
                ("wdl", results.wdl()),
                ("score", results.score(), 3),
                ("our_seconds_per_move", mean(ours), 3),
                ("agent_seconds_per_move", mean(theirs), 3),
                ("mean_plies", mean(plies), 1),
            ],
            prefix=f"{key}_",
        )


if __name__ == "__main__":
    main()
