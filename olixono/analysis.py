"""A game weighed move by move: every position searched, each move played set beside the search's best.

Pure computation: the client's ``olixono analyze``, the replay's analysis pane and ``hint`` print what this module
returns. ``docs/analysis.md`` says the same for people.

Each position is searched by the ``mcts`` bot (:func:`olixono.bots.make_bot`) with one :class:`Budget` (4,000
iterations by default), its random generator seeded by the analysis's seed and the position's number, so that an
iteration budget gives the same analysis on any machine, and a position's search never depends on another's.

The words, for the player to move (a move's *before* and *after* are both seen from the player who made it):

* **value**: the search's value of its best move, from -1 (lost) to +1 (won): the mean of what the search found
  below it (its playouts and evaluations: ``docs/search.md``). It is a score, not a probability.
* **won**, **lost**, **drawn**, when **proven**: by the rules (the game is over) or by the search's solvers: a move
  that wins by force (every reply loses), every legal move (each one searched) losing or drawing by force. A move
  the search proved to win, lose or draw also proves the position it makes.
* Otherwise **won** when the value is at least :data:`WON_VALUE`, **lost** when it is at most ``-WON_VALUE``
  (judged by value: ``proven`` is false), and **unclear** between. ``bench/analysis.py`` measures how often
  self-play goes the way such a value says.
* **blunder**: a move that turns a won position into a lost or drawn one.
* **missed win**: a move from a won position to an unclear one whose value dropped by at least :data:`MISS_DROP`
  (a smaller drop between two searches is their noise), or a move that does not win at once where a move did (a
  win in one not taken); a blunder is not counted again as a missed win.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from olixono.bots import make_bot, winning_moves
from olixono.common import Board
from olixono.games import new_board

DEFAULT_ITERATIONS = 4_000
"""The search's iterations a position, when no budget is given: twice the ``normal`` level's."""
WON_VALUE = 0.9
"""A value at least this (for the player to move) counts a position as won when the search proved nothing; at most
its negative, as lost."""
MISS_DROP = 0.2
"""How far the value must drop, from a won position to an unclear one, to count the move as a missed win."""
SCHEMA = "olixono-analysis/1"
"""The JSON form's name and version (:meth:`GameAnalysis.to_json`); a change that breaks a reader changes it."""


class Standing(enum.StrEnum):
    """How a position stands for a player."""

    WON = "won"
    LOST = "lost"
    DRAWN = "drawn"
    UNCLEAR = "unclear"

    def flipped(self) -> Standing:
        return {Standing.WON: Standing.LOST, Standing.LOST: Standing.WON}.get(self, self)


class Mark(enum.StrEnum):
    """What a move is marked with."""

    BLUNDER = "blunder"
    MISSED_WIN = "missed win"


@dataclass(frozen=True, slots=True)
class Budget:
    """The search's budget for each position: iterations, seconds, or both (whichever ends first)."""

    iterations: int | None = DEFAULT_ITERATIONS
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("an analysis needs a budget: iterations, seconds or both")
        for name, value in (("iterations", self.iterations), ("seconds", self.seconds)):
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, not {value!r}")


DEFAULT_BUDGET = Budget()
""":data:`DEFAULT_ITERATIONS` a position."""


@dataclass(frozen=True, slots=True)
class Evaluation:
    """A position's worth to one player: its value (-1..1), its standing, and whether that standing is proven."""

    value: float
    standing: Standing
    proven: bool = False

    @classmethod
    def of_value(cls, value: float) -> Evaluation:
        """The standing a value gives when nothing is proven (:data:`WON_VALUE`), rounded to three decimals."""
        value = round(max(-1.0, min(1.0, value)), 3)
        standing = Standing.WON if value >= WON_VALUE else Standing.LOST if value <= -WON_VALUE else Standing.UNCLEAR
        return cls(value, standing)

    @classmethod
    def proof(cls, standing: Standing) -> Evaluation:
        """A proven standing: its value is exact (+1, 0 or -1)."""
        return cls({Standing.WON: 1.0, Standing.LOST: -1.0}.get(standing, 0.0), standing, True)

    def flipped(self) -> Evaluation:
        """The same position, worth to the other player."""
        return Evaluation(-self.value + 0.0, self.standing.flipped(), self.proven)

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "standing": str(self.standing), "proven": self.proven}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Evaluation:
        return cls(float(data["value"]), Standing(data["standing"]), bool(data["proven"]))


@dataclass(frozen=True, slots=True)
class Position:
    """One position's search, for the player to move: its evaluation, the search's move and line (``None`` and
    empty once the game is over), the moves it proved (move text to how it stands for the mover), the moves that win
    at once, and the iterations spent."""

    evaluation: Evaluation
    best: str | None = None
    pv: tuple[str, ...] = ()
    proofs: Mapping[str, Standing] = field(default_factory=dict)
    wins_in_one: tuple[str, ...] = ()
    iterations: int = 0


def evaluate(board: Board[Any], budget: Budget = DEFAULT_BUDGET, seed: int = 0, index: int = 0) -> Position:
    """Search ``board`` (left as it was) for the player to move; ``index`` (the position's number in its game) and
    ``seed`` seed the search."""
    board = board.copy()  # the wins in one are tried on it: another thread may be drawing the original
    outcome = board.outcome()
    if outcome is not None:
        standing = (
            Standing.DRAWN
            if outcome.winner is None
            else Standing.WON
            if outcome.winner == board.turn
            else Standing.LOST
        )
        return Position(Evaluation.proof(standing))
    bot = make_bot(
        "mcts", rng=random.Random(f"analysis {seed} {index}"), iterations=budget.iterations, seconds=budget.seconds
    )
    bot.choose(board)
    thought = bot.analysis
    assert thought is not None and thought.candidates
    candidates = thought.candidates
    proofs = {c.move.text(): Standing(c.proven) for c in candidates if c.proven is not None}
    best = candidates[0]
    every_move = len(candidates) == len(board.legal_moves())
    if best.proven == Standing.WON:
        evaluation = Evaluation.proof(Standing.WON)
    elif every_move and all(c.proven in (Standing.LOST, Standing.DRAWN) for c in candidates):
        drawn = any(c.proven == Standing.DRAWN for c in candidates)
        evaluation = Evaluation.proof(Standing.DRAWN if drawn else Standing.LOST)
    else:
        evaluation = Evaluation.of_value(best.value)
    wins = tuple(move.text() for move in winning_moves(board))
    return Position(evaluation, best.move.text(), tuple(m.text() for m in thought.pv), proofs, wins, thought.iterations)


@dataclass(frozen=True, slots=True)
class Ply:
    """One move weighed: who played what, the search's best move there, the position before and after it (both for
    the player who moved), the wins in one it had, and its mark."""

    number: int
    player: str
    move: str
    best: str | None
    before: Evaluation
    after: Evaluation
    wins_in_one: tuple[str, ...] = ()

    @property
    def missed_win_in_one(self) -> bool:
        """A move won at once and this one did not."""
        return bool(self.wins_in_one) and self.move not in self.wins_in_one

    @property
    def loss(self) -> float:
        """How much value the move gave away (never below 0: a move that did better than the search said gave
        nothing away)."""
        return round(max(0.0, self.before.value - self.after.value), 3)

    @property
    def mark(self) -> Mark | None:
        before, after = self.before.standing, self.after.standing
        if before is Standing.WON and after in (Standing.LOST, Standing.DRAWN):
            return Mark.BLUNDER
        if self.missed_win_in_one or (before is Standing.WON and after is Standing.UNCLEAR and self.loss >= MISS_DROP):
            return Mark.MISSED_WIN
        return None

    def to_json(self) -> dict[str, Any]:
        mark = self.mark
        return {
            "ply": self.number,
            "player": self.player,
            "move": self.move,
            "best": self.best,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "loss": self.loss,
            "mark": None if mark is None else str(mark),
            "wins_in_one": list(self.wins_in_one),
            "missed_win_in_one": self.missed_win_in_one,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Ply:
        return cls(
            int(data["ply"]),
            str(data["player"]),
            str(data["move"]),
            None if data["best"] is None else str(data["best"]),
            Evaluation.from_json(data["before"]),
            Evaluation.from_json(data["after"]),
            tuple(map(str, data["wins_in_one"])),
        )


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One player's moves, summed up."""

    player: str
    moves: int
    best_moves: int
    """Moves that were the search's best."""
    blunders: int
    missed_wins: int
    missed_wins_in_one: int
    """Wins in one not taken (blunders among them)."""
    mean_loss: float

    def to_json(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "best_moves": self.best_moves,
            "blunders": self.blunders,
            "missed_wins": self.missed_wins,
            "missed_wins_in_one": self.missed_wins_in_one,
            "mean_loss": self.mean_loss,
        }


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """A game weighed: every move (:class:`Ply`) and how the last position stands for its player to move
    (``final``: ``None`` while it is not searched yet)."""

    kind: str
    players: tuple[str, str]
    plies: tuple[Ply, ...]
    final: Evaluation | None
    budget: Budget
    seed: int

    def summary(self, player: str) -> PlayerSummary:
        mine = [ply for ply in self.plies if ply.player == player]
        marks = [ply.mark for ply in mine]
        return PlayerSummary(
            player,
            len(mine),
            sum(ply.move == ply.best for ply in mine),
            marks.count(Mark.BLUNDER),
            marks.count(Mark.MISSED_WIN),
            sum(ply.missed_win_in_one for ply in mine),
            round(sum(ply.loss for ply in mine) / len(mine), 3) if mine else 0.0,
        )

    def to_json(self) -> dict[str, Any]:
        """The stable form for other programs (``docs/analysis.md`` documents every field)."""
        return {
            "schema": SCHEMA,
            "kind": self.kind,
            "players": list(self.players),
            "budget": {"iterations": self.budget.iterations, "seconds": self.budget.seconds, "seed": self.seed},
            "won_value": WON_VALUE,
            "miss_drop": MISS_DROP,
            "plies": [ply.to_json() for ply in self.plies],
            "final": None if self.final is None else self.final.to_json(),
            "summary": {player: self.summary(player).to_json() for player in self.players},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameAnalysis:
        """Read :meth:`to_json`'s form back (what is derived, the marks and the summary, is computed again);
        ``ValueError`` for another schema."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not an analysis of schema {SCHEMA}: {data.get('schema')!r}")
        budget = data["budget"]
        first, second = data["players"]
        return cls(
            str(data["kind"]),
            (str(first), str(second)),
            tuple(Ply.from_json(ply) for ply in data["plies"]),
            None if data["final"] is None else Evaluation.from_json(data["final"]),
            Budget(budget["iterations"], budget["seconds"]),
            int(budget["seed"]),
        )


def boards_of(kind: str, moves: Sequence[str]) -> list[Board[Any]]:
    """The position before the first of ``moves`` and after each (each checked by the rules: ``ValueError`` for a
    move that is not legal)."""
    board = new_board(kind)
    boards = [board.copy()]
    for move in moves:
        board.play(move)
        boards.append(board.copy())
    return boards


def assemble(boards: Sequence[Board[Any]], positions: Sequence[Position], budget: Budget, seed: int) -> GameAnalysis:
    """The analysis of the game whose positions are ``boards`` (the start and after each move), from the searches of
    its first ``len(positions)`` positions (the moves whose position after is searched are weighed; the rest wait)."""
    last = boards[-1]
    moves = [move.text() for move in last.move_stack]
    evaluations = [position.evaluation for position in positions]
    weighed = range(min(len(moves), len(positions) - 1))
    for index in weighed:
        proof = positions[index].proofs.get(moves[index])
        if proof is not None and not evaluations[index + 1].proven:
            evaluations[index + 1] = Evaluation.proof(proof.flipped())  # the move proven: so is where it leads
    plies = tuple(
        Ply(
            index + 1,
            boards[index].turn,
            moves[index],
            positions[index].best,
            evaluations[index],
            evaluations[index + 1].flipped(),
            positions[index].wins_in_one,
        )
        for index in weighed
    )
    final = evaluations[len(moves)] if len(evaluations) > len(moves) else None
    return GameAnalysis(last.KIND, last.PLAYERS, plies, final, budget, seed)


def analyse(
    boards: Sequence[Board[Any]],
    budget: Budget = DEFAULT_BUDGET,
    *,
    seed: int = 0,
    progress: Callable[[int, int], object] | None = None,
) -> GameAnalysis:
    """Search every one of ``boards`` (:func:`boards_of`) and weigh every move; ``progress(done, total)`` is called
    after each position."""
    positions: list[Position] = []
    for index, board in enumerate(boards):
        positions.append(evaluate(board, budget, seed=seed, index=index))
        if progress is not None:
            progress(index + 1, len(boards))
    return assemble(boards, positions, budget, seed)
