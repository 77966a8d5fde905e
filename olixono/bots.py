"""Computer players for both games: ``random``, ``greedy`` and ``mcts``.

Every bot is built by :func:`make_bot` and has one method, ``choose(board)``,
which returns a legal move for the player to move and leaves the board as it
found it. After each choice, ``bot.analysis`` tells what it considered: the
moves it weighed (with visits and values for ``mcts``, one-move scores for
``greedy``) and, for ``mcts``, the principal variation. Bots are pure and
seeded: the same seed, budget and sequence of positions give the same moves
(a time budget makes ``mcts`` depend on the machine's speed, so reproducible
games use an iteration budget).

* ``random`` – a legal move drawn uniformly.
* ``greedy`` – wins at once when it can; otherwise avoids every move after
  which the opponent can win at once (that is how it blocks); among the rest,
  the best one-move evaluation (lines in Oxono; formations, the scoreboard and
  open lines in Olix).
* ``mcts`` – Monte Carlo tree search (:mod:`olixono.mcts`) with a budget in
  iterations or seconds (default 2,000 iterations). Oxono: short playouts
  that take every win in one and mostly avoid handing one over, judged by
  the evaluation after eight plies; wins in two found and played, an exact
  solver once at most 16 pawns are left. Olix: the twelve most promising
  squares of each position (more only when all of those are proven), an
  evaluation in place of a long playout, wins by continuous threats found
  and played. Both: its best moves are checked for a short forced loss
  before it plays one, and the tree is kept between moves where the game
  went as it expected (``docs/search.md``).

The levels a person chooses (:data:`PEOPLE_LEVELS`, built by :func:`bot_for`,
which also builds the bots above by name) are bots and budgets one can feel
(``docs/levels.md`` has their measured strength):

* ``easy`` – ``mcts`` with 300 iterations that errs: one move in five (when
  it has no win in one) is a legal move drawn at random, and a win in one it
  takes only half the time.
* ``normal`` – ``mcts`` with 2,000 iterations (the ``mcts`` bot as it comes).
* ``hard`` – ``mcts`` with 20,000 iterations, at most 5 seconds a move.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from olixono.common import Board, GameOverError, MoveLike
from olixono.games import game_of
from olixono.mcts import Candidate, Mcts, SearchResult, SearchTree, SearchView

LEVELS = ("random", "greedy", "mcts")
"""The bots, by what they are (``make_bot``'s names)."""
DEFAULT_ITERATIONS = 2_000


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a bot considered for its last move.

    ``candidates`` are the moves it weighed, best first (for ``greedy``,
    ``value`` is the one-move score and ``visits`` 0); ``pv`` is the line of
    play the search expects, starting with the chosen move.
    """

    level: str
    move: MoveLike
    candidates: tuple[Candidate, ...] = ()
    pv: tuple[MoveLike, ...] = ()
    iterations: int = 0
    seconds: float = 0.0

    def text(self, limit: int = 10) -> str:
        """Several lines: a summary, then ``pv …``, then one line per candidate (at most ``limit``)."""
        rate = f" {self.iterations / self.seconds:.0f}/s" if self.iterations and self.seconds > 0 else ""
        lines = [
            f"{self.level} {self.move.text()} iterations {self.iterations} seconds {self.seconds:.3f}{rate}",
            "pv " + " ".join(m.text() for m in (self.pv or (self.move,))),
        ]
        lines += [c.text() for c in self.candidates[:limit]]
        return "\n".join(lines)


class Bot(Protocol):
    """What every bot offers (:func:`make_bot`): a move for the player to move, and an answer to a proposal."""

    level: str
    analysis: Analysis | None

    def choose(self, board: Board[Any]) -> Any:
        """A legal move for the player to move (of ``board``'s own move type); the board is left as it was."""
        ...

    def answer_end(self, board: Board[Any], player: str) -> bool:
        """Whether ``player`` (this bot's seat) agrees to end the game now (Olix: scored now; Oxono: a draw)."""
        ...


def ending_value(board: Board[Any], player: str) -> float:
    """What ending the game now by agreement is worth to ``player``: 1 a win, 0 a draw, -1 a loss (an Olix end is
    scored on the markers; an Oxono end by agreement is a draw)."""
    winner = board.agreed().winner
    return 0.0 if winner is None else 1.0 if winner == player else -1.0


def _answer_without_search(board: Board[Any], player: str) -> bool:
    """A bot that does not search cannot tell what playing on is worth: it ends the game only when that wins."""
    return ending_value(board, player) > 0


def _require_moves(board: Board[Any]) -> None:
    if board.outcome() is not None:
        raise GameOverError(f"no move to choose: the game is over ({board.outcome()})")


@dataclass
class RandomBot:
    """A legal move drawn uniformly (``rng.choice`` over the legal moves)."""

    rng: random.Random
    level: str = "random"
    analysis: Analysis | None = field(default=None, repr=False)

    def choose(self, board: Board[Any]) -> Any:
        _require_moves(board)
        move = self.rng.choice(board.legal_moves())
        self.analysis = Analysis(self.level, move)
        return move

    def answer_end(self, board: Board[Any], player: str) -> bool:
        return _answer_without_search(board, player)


@dataclass
class GreedyBot:
    """Win now, else do not let the opponent win now, else the best one-move evaluation (ties at random)."""

    rng: random.Random
    level: str = "greedy"
    analysis: Analysis | None = field(default=None, repr=False)

    def choose(self, board: Board[Any]) -> Any:
        _require_moves(board)
        start = time.perf_counter()
        game = game_of(board).bots
        scored = game.greedy_scores(board)
        best = max(score for score, _ in scored)
        ties = [move for score, move in scored if score == best]
        move = game.board_move(ties[int(self.rng.random() * len(ties))])
        scored.sort(key=lambda sm: sm[0], reverse=True)
        candidates = tuple(Candidate(game.board_move(m), 0, s) for s, m in scored)
        self.analysis = Analysis(self.level, move, candidates, (move,), 0, time.perf_counter() - start)
        return move

    def answer_end(self, board: Board[Any], player: str) -> bool:
        return _answer_without_search(board, player)


@dataclass
class MctsBot:
    """Monte Carlo tree search with an iteration budget, a time budget, or both (whichever ends first).

    Between moves it keeps its search (``keep``): the tree below the position the game reached, when the moves
    since its last search are in that tree, and what its solver proved. ``keep=False`` searches afresh each time.
    """

    rng: random.Random
    iterations: int | None = DEFAULT_ITERATIONS
    seconds: float | None = None
    level: str = "mcts"
    analysis: Analysis | None = field(default=None, repr=False)
    keep: bool = True
    _memory: dict[str, _Kept] = field(default_factory=dict, repr=False, compare=False)
    """The search kept (under ``"kept"``); shared with the copies :func:`within` makes."""

    def choose(self, board: Board[Any]) -> Any:
        return self._search(board).move

    def answer_end(self, board: Board[Any], player: str) -> bool:
        """Agree when ending now is worth at least what the search expects from playing on."""
        if board.outcome() is not None:
            return False
        best = self._search(board).candidates[0].value  # for the player to move
        expected = best if board.turn == player else -best
        return ending_value(board, player) >= expected

    def _search(self, board: Board[Any]) -> SearchResult:
        _require_moves(board)
        start = time.perf_counter()
        view, search = game_of(board).bots.searcher(board, self.rng)
        tree = None
        kept = self._memory.get("kept")
        if self.keep and kept is not None and kept.kind == board.KIND:
            search = kept.search  # its solver's table goes on
            tree = kept.subtree(board, view)
        budget = None if self.seconds is None else max(0.0, self.seconds - (time.perf_counter() - start))
        result = search.search(view, iterations=self.iterations, seconds=budget, tree=tree)
        if self.keep and result.tree is not None:
            self._memory["kept"] = _Kept(board.KIND, search, result.tree, board.position(), list(board.move_stack))
        self.analysis = Analysis(
            self.level, result.move, result.candidates, result.pv, result.iterations, time.perf_counter() - start
        )
        return result


@dataclass
class _Kept:
    """A bot's search kept between moves: the tree's root, and the position and moves it stood for."""

    kind: str
    search: Mcts
    root: SearchTree
    position: str
    moves: list[Any]

    def subtree(self, board: Board[Any], view: SearchView[Any]) -> SearchTree | None:
        """The node of ``board``'s position, if ``board`` went on from the kept root by moves the tree holds."""
        done = len(self.moves)
        stack = board.move_stack
        if len(stack) < done or stack[:done] != self.moves:
            return None
        node: SearchTree | None = self.root
        for move in stack[done:]:
            assert node is not None
            node = next((ch for ch in node.children if view.board_move(ch.move) == move), None)
            if node is None:
                return None
        if node is None or not node.children:
            return None
        earlier = board.copy()
        for _ in stack[done:]:
            earlier.pop()
        return node if earlier.position() == self.position else None


def within(bot: Bot, seconds: float) -> Bot:
    """``bot``, its search stopped by ``seconds`` (a clock's budget) as well as by its own budget; a bot that does not
    search is as it is. The copy draws from the same random generator."""
    if isinstance(bot, MctsBot):
        return replace(bot, seconds=seconds if bot.seconds is None else min(bot.seconds, seconds))
    if isinstance(bot, ErringBot):
        return replace(bot, inner=within(bot.inner, seconds))
    return bot


def make_bot(
    level: str,
    *,
    seed: int | None = None,
    rng: random.Random | None = None,
    iterations: int | None = None,
    seconds: float | None = None,
) -> Bot:
    """A bot of ``level`` (``random``, ``greedy``, ``mcts``).

    It draws from ``rng`` if given, else from ``random.Random(seed)``. For
    ``mcts``, ``iterations`` and ``seconds`` set the budget (2,000 iterations
    when neither is given); the other levels take no budget.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}: expected one of {', '.join(LEVELS)}")
    for name, value in (("iterations", iterations), ("seconds", seconds)):
        if value is not None and value <= 0:
            raise ValueError(f"{name} must be positive, not {value!r}")
    if level != "mcts" and (iterations is not None or seconds is not None):
        raise ValueError(f"the {level} bot takes no budget")
    rng = rng if rng is not None else random.Random(seed)
    if level == "random":
        return RandomBot(rng)
    if level == "greedy":
        return GreedyBot(rng)
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    return MctsBot(rng, iterations, seconds)


# -- the levels a person chooses ---------------------------------------------------------------------------------


def winning_moves(board: Board[Any]) -> list[Any]:
    """Every move that wins at once for the player to move (tried one by one on ``board``, left as it was)."""
    mover, wins = board.turn, []
    for move in board.legal_moves():
        board.push(move)
        outcome = board.outcome()
        board.pop()
        if outcome is not None and outcome.winner == mover:
            wins.append(move)
    return wins


@dataclass
class ErringBot:
    """``inner``'s move, except that it errs as a beginner does: with chance ``mistakes`` (when it has no win in one)
    a legal move drawn at random, and a win in one taken only with chance ``wins_taken`` (else a move that does not
    win at once, drawn at random)."""

    inner: Bot
    rng: random.Random
    mistakes: float
    wins_taken: float
    level: str = "easy"
    analysis: Analysis | None = field(default=None, repr=False)

    def choose(self, board: Board[Any]) -> Any:
        _require_moves(board)
        wins = winning_moves(board)
        if wins:
            erring = self.rng.random() >= self.wins_taken
            others = [move for move in board.legal_moves() if move not in wins]
        else:
            erring = self.rng.random() < self.mistakes
            others = board.legal_moves()
        if erring and others:
            move = others[int(self.rng.random() * len(others))]
            self.analysis = Analysis(self.level, move)
            return move
        move = self.inner.choose(board)
        thought = self.inner.analysis
        self.analysis = replace(thought, level=self.level) if thought is not None else Analysis(self.level, move)
        return move

    def answer_end(self, board: Board[Any], player: str) -> bool:
        return self.inner.answer_end(board, player)


@dataclass(frozen=True, slots=True)
class Level:
    """A level a person chooses: the ``mcts`` search's budget, and how often the bot errs (:class:`ErringBot`)."""

    name: str
    iterations: int
    seconds: float | None
    mistakes: float = 0.0
    """The share of its moves (with no win in one) that are drawn at random."""
    wins_taken: float = 1.0
    """The share of its wins in one that it takes."""
    summary: str = ""


PEOPLE_LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level(
            "easy",
            300,
            None,
            mistakes=0.2,
            wins_taken=0.5,
            summary="a short search that plays one move in five at random and takes a win in one half the time",
        ),
        Level(
            "normal",
            DEFAULT_ITERATIONS,
            None,
            summary=f"the mcts bot as it comes: {DEFAULT_ITERATIONS:,} iterations a move",
        ),
        Level("hard", 20_000, 5.0, summary="a long search: 20,000 iterations a move, at most 5 seconds"),
    )
}
"""The levels a person chooses (``--level``), weakest first (``docs/levels.md``: the mapping and its measured
strength)."""
BOTS = (*PEOPLE_LEVELS, *LEVELS)
"""Every name a bot is chosen by: the levels a person chooses, then the bots by what they are."""


def bot_for(
    name: str,
    *,
    seed: int | None = None,
    rng: random.Random | None = None,
    iterations: int | None = None,
    seconds: float | None = None,
) -> Bot:
    """A bot by any name in :data:`BOTS`: a level (``easy``, ``normal``, ``hard``) or a bot (:func:`make_bot`'s).

    ``iterations`` and ``seconds`` replace a level's budget (an easy bot still errs as often): an iteration budget
    alone plays the same on any machine.
    """
    level = PEOPLE_LEVELS.get(name)
    if level is None:
        if name not in LEVELS:
            raise ValueError(f"unknown bot level {name!r}: expected one of {', '.join(BOTS)}")
        return make_bot(name, seed=seed, rng=rng, iterations=iterations, seconds=seconds)
    rng = rng if rng is not None else random.Random(seed)
    if iterations is None and seconds is None:
        iterations, seconds = level.iterations, level.seconds
    search = make_bot("mcts", rng=rng, iterations=iterations, seconds=seconds)
    assert isinstance(search, MctsBot)
    search.level = level.name
    if not level.mistakes and level.wins_taken == 1.0:
        return search
    return ErringBot(search, rng, level.mistakes, level.wins_taken, level.name)
