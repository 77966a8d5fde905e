"""What the bots know about Olix: wins in one, an evaluation, and which squares are worth searching.

The engine keeps every player's best formations up to date as stones are
pushed and popped, so the bots work on a copy of the board (:class:`OlixSearch`)
and ask it (``formations``, ``outcome``). What the engine does not offer is
computed here on bitboards:

* :func:`runs_through` – for every empty square at once, whether a stone
  there would make an unbroken line of at least ``k`` in one direction
  (shifts and ANDs, as in :func:`olixono.bot_oxono.completions`);
* :func:`win_candidates` – a superset of the squares where a stone would win
  at once (exact for ``I`` and ``X``, a cheap necessary condition for ``L``
  and ``O``); each candidate is then checked by pushing it;
* :meth:`OlixSearch.evaluate` – the scoreboard as it stands (markers, their
  fields, the best values) plus the lines of eight still open to each player;
* :func:`ordered_moves` – the squares for the tree search, most promising
  first: a threat to block alone, else squares that make or cut long lines
  or lengthen an ``L`` (:func:`l_extensions`), then the rest.

A search move is a square number; :func:`board_move` gives the engine's move.

The functions here are the reference. The search calls the bitboard functions
through a :class:`Backend`: :data:`PYTHON` (them) or :data:`C` (the same in C,
``olixono/_olix_fast.c``, where it was built), :data:`BACKEND` being the one
chosen. With the C backend the tree search works on :class:`FastOlixSearch`:
the position kept in C, with the engine's push and pop, and the wins in one,
threats, evaluation and move order computed there, with the same results
(``tests/test_olix_fast.py``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from olixono import backends
from olixono.mcts import Mcts
from olixono.olix import BOARD, FIELDS, KINDS, MOVES, PLAYERS, WIDTH, OlixBoard, OlixMove

if TYPE_CHECKING:
    from olixono._olix_fast import Position

_FILE_A = sum(1 << (r * WIDTH) for r in range(WIDTH))
_FILE_K = _FILE_A << (WIDTH - 1)
# Directions as (step, mask after ``<< step``, mask after ``>> step``): the masks drop bits that wrapped.
_DIRECTIONS = (
    (1, BOARD & ~_FILE_A, BOARD & ~_FILE_K),  # east
    (WIDTH, BOARD, BOARD),  # north
    (WIDTH + 1, BOARD & ~_FILE_A, BOARD & ~_FILE_K),  # north-east
    (WIDTH - 1, BOARD & ~_FILE_K, BOARD & ~_FILE_A),  # north-west
)
_TOP = tuple(FIELDS[k][-1] for k in KINDS)
_FIRST = tuple(FIELDS[k][0] for k in KINDS)
_POSITION = tuple({v: i + 1 for i, v in enumerate(FIELDS[k])} for k in KINDS)
WIN_RUN = 8
"""An unbroken line of eight (``I`` or ``X``) wins at once."""
SEARCH_WIDTH = 12
"""How many squares of each position the tree search considers (the next ones only if all of those lose)."""
EVAL_SCALE = 30.0
"""Evaluation points that make a leaf value of tanh(1) ≈ 0.76."""
EXPLORATION = 0.2
"""UCT's exploration constant for Olix (the search's default is 1.0): its leaves are the evaluation, not playouts,
so their values are steady and the search does best trusting them. Against the baseline mcts at 0.1 s a
move (40 games each, random openings): 0.1 scored 61%, 0.2 60%, 0.35 54%, 1.0 46% (``BENCHMARKS.md``)."""
# Weight of an open line of eight holding n own stones (and none of the opponent's).
_WINDOW_WEIGHT = (0.0, 0.0, 0.1, 0.4, 1.0, 2.5, 6.0, 14.0, 0.0)


def _windows() -> tuple[int, ...]:
    out = []
    for step, up_ok, _ in _DIRECTIONS:
        for start in range(WIDTH * WIDTH):
            w, s, ok = 0, start, True
            for k in range(WIN_RUN):
                w |= 1 << s
                if k < WIN_RUN - 1:
                    nxt = (1 << s) << step & up_ok
                    if not nxt:
                        ok = False
                        break
                    s += step
            if ok:
                out.append(w)
    return tuple(out)


WINDOWS = _windows()
"""Every line of eight squares: orthogonal and diagonal."""


def board_move(square: int) -> OlixMove:
    return MOVES[square]


def _grow(bb: int) -> int:
    """``bb`` and its eight neighbours."""
    out = bb
    for step, up_ok, down_ok in _DIRECTIONS:
        out |= ((bb << step) & up_ok) | ((bb >> step) & down_ok)
    return out


def runs_through(stones: int, length: int) -> list[int]:
    """``out[k]`` for k in 1..length: squares where one more stone makes a line of at least k (any direction).

    Squares already taken are included; mask them out as needed.
    """
    out = [BOARD, BOARD] + [0] * (length - 1)
    for step, up_ok, down_ok in _DIRECTIONS:
        fwd = [BOARD]  # fwd[j]: the j squares after q (one way) are all stones
        bwd = [BOARD]
        for _j in range(1, length):
            fwd.append(((stones & fwd[-1]) >> step) & down_ok)
            bwd.append(((stones & bwd[-1]) << step) & up_ok)
        for k in range(2, length + 1):
            acc = 0
            for a in range(k):
                acc |= fwd[a] & bwd[k - 1 - a]
            out[k] |= acc
    return out


def _runs_at_least(stones: int, length: int, directions: int = 4) -> int:
    """Squares where one more stone makes an unbroken line of at least ``length`` along one of the first
    ``directions`` of :data:`_DIRECTIONS` (2: the orthogonal ones)."""
    out = 0
    for step, up_ok, down_ok in _DIRECTIONS[:directions]:
        fwd, bwd = BOARD, BOARD
        fs, bs = [BOARD], [BOARD]
        for _ in range(length - 1):
            fwd = ((stones & fwd) >> step) & down_ok
            bwd = ((stones & bwd) << step) & up_ok
            fs.append(fwd)
            bs.append(bwd)
        for a in range(length):
            out |= fs[a] & bs[length - 1 - a]
    return out


def win_candidates(stones: int, empty: int) -> int:
    """Empty squares where one more stone might win at once; every real one is included.

    Exact for ``I`` and ``X`` (a line of eight). An ``L`` of 9 has arms of at
    least 3 adding up to 10, so one arm holds 5 or more: the stone makes a
    line of five (it is on that arm), or such a line stands already and the
    stone makes an arm of three. An ``O`` of 10 is the whole boundary of a
    rectangle of 2 × 5, 3 × 4 or more (a 3 × 3 with its centre is worth 9,
    and a stone inside a whole boundary comes too late: the boundary has won
    already), so the stone goes on that boundary, between two orthogonal
    neighbours of its own, and on one of its long sides (it makes a line of
    four) unless those stand already.
    """
    count = stones.bit_count()
    if count < WIN_RUN - 1:
        return 0
    cands = _runs_at_least(stones, WIN_RUN)
    orthogonal = 2  # the first two directions: east, north
    if count >= 8:
        five = _runs_at_least(stones, 5, orthogonal)
        cands |= _runs_at_least(stones, 3, orthogonal) if five & stones else five
    if count >= 9:
        a, b = (stones << 1) & _DIRECTIONS[0][1], (stones >> 1) & _DIRECTIONS[0][2]
        c, d = (stones << WIDTH) & BOARD, stones >> WIDTH
        four = _runs_at_least(stones, 4, orthogonal)
        cands |= ((a & (b | c | d)) | (b & (c | d)) | (c & d)) & (BOARD if four & stones else four)
    return cands & empty


def _window_score(own: int, opp: int) -> float:
    score = 0.0
    weight = _WINDOW_WEIGHT
    for w in WINDOWS:
        if not opp & w:
            score += weight[(own & w).bit_count()]
    return score


def _track_score(mine: tuple[int, ...], theirs: tuple[int, ...]) -> float:
    """Markers (docs/olix.md, rule 9) and formation sizes, mine minus theirs."""
    score = 0.0
    for k in range(4):
        a, b = mine[k], theirs[k]
        if a >= _FIRST[k] and a >= b:
            score += 10.0 + 2.0 * _POSITION[k].get(a, 4)
        if b >= _FIRST[k] and b >= a:
            score -= 10.0 + 2.0 * _POSITION[k].get(b, 4)
        score += 0.8 * (min(a, _TOP[k]) - min(b, _TOP[k]))
    return score


# -- the backends: the bitboard functions above, or the same in C --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Backend:
    """What the search calls, from one place: the bitboard functions above (:data:`PYTHON`) or the C helpers'
    (:data:`C`), which return the same; with the C helpers, the search's view is :class:`FastOlixSearch`, the
    position kept in C too (``position``)."""

    name: str
    runs_through: Callable[[int, int], list[int]]
    runs_at_least: Callable[[int, int, int], int]
    win_candidates: Callable[[int, int], int]
    window_score: Callable[[int, int], float]
    position: type[Position] | None
    """The position in C that :class:`FastOlixSearch` keeps, or ``None``: the search's view is :class:`OlixSearch`."""

    def __repr__(self) -> str:
        return f"<bot_olix backend {self.name}>"


PYTHON = Backend(
    "python",
    runs_through=runs_through,
    runs_at_least=_runs_at_least,
    win_candidates=win_candidates,
    window_score=_window_score,
    position=None,
)
"""The functions of this module: the reference."""


def _c_backend() -> Backend | None:
    """The C helpers (``olixono/_olix_fast.c``) as a backend, where they were built."""
    try:
        from olixono import _olix_fast as fast
    except ImportError:  # not built (no compiler where the package was installed): the Python reference serves
        return None
    return Backend(
        "c",
        runs_through=fast.runs_through,
        runs_at_least=fast.runs_at_least,
        win_candidates=fast.win_candidates,
        window_score=fast.window_score,
        position=fast.Position,
    )


C = _c_backend()
"""The C helpers, or ``None`` where they were not built."""
BACKEND = backends.choose(PYTHON, C)
"""The backend the bots search with: :data:`C` where it was built and ``OLIXONO_PURE_PYTHON`` is not set, else
:data:`PYTHON` (:func:`olixono.backends.choose`)."""


class OlixSearch:
    """The search's view of an Olix game: a private copy of the board, moves as square numbers, ``backend``'s
    bitboard functions."""

    def __init__(self, board: OlixBoard, backend: Backend = BACKEND) -> None:
        self.board = board.copy()
        self.backend = backend

    def moves(self) -> list[int]:
        return [m.square for m in self.board.legal_moves()]

    def push(self, square: int) -> int | None:
        """Place a stone; how the game ended for its player: 1 won, 0 drawn, -1 lost, ``None`` not yet."""
        board = self.board
        mover = board.turn
        board.push(MOVES[square])
        outcome = board.outcome()
        if outcome is None:
            return None
        if outcome.winner is None:
            return 0
        return 1 if outcome.winner == mover else -1

    def pop(self) -> None:
        self.board.pop()

    def sides(self) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]:
        """The mover's stones, the opponent's, and their best values (O L I X)."""
        board = self.board
        me, them = board.turn, PLAYERS[1 - PLAYERS.index(board.turn)]
        mine = tuple(f.value for f in board.formations(me).values())
        theirs = tuple(f.value for f in board.formations(them).values())
        return board.stones(me), board.stones(them), mine, theirs

    def stones(self) -> tuple[int, int]:
        """The mover's stones and the opponent's (:meth:`sides` without the formations)."""
        board = self.board
        return board.stones(board.turn), board.stones(PLAYERS[1 - PLAYERS.index(board.turn)])

    def winning_squares(self, first_only: bool = False) -> list[int]:
        """Squares where the player to move wins at once (checked by pushing each candidate)."""
        own, opp = self.stones()
        cands = self.backend.win_candidates(own, BOARD & ~(own | opp))
        found = []
        while cands:
            low = cands & -cands
            cands ^= low
            square = low.bit_length() - 1
            if self.push(square) == 1:
                found.append(square)
            self.pop()
            if found and first_only:
                break
        return found

    def threat_squares(self) -> list[int]:
        """Squares where the opponent would win at once if it were their move (the squares to block).

        Each candidate is checked by pushing a stone of ours elsewhere, then
        theirs on it: only the opponent's own stones make their formations, so
        where our stone goes does not matter, as long as it does not end the
        game. A candidate that cannot be checked so (the game ends whatever we
        play) is kept.
        """
        own, opp = self.stones()
        empty = BOARD & ~(own | opp)
        untested = self.backend.win_candidates(opp, empty)
        found = []
        for ours in (empty & ~untested, untested):  # a non-candidate square first
            while ours and untested:
                low = ours & -ours
                ours ^= low
                if self.push(low.bit_length() - 1) is not None:
                    self.pop()
                    continue
                rest = untested & ~low
                untested &= low
                for c in _bits(rest):
                    square = c.bit_length() - 1
                    if self.push(square) == 1:
                        found.append(square)
                    self.pop()
                self.pop()
        found += [c.bit_length() - 1 for c in _bits(untested)]
        return sorted(found)

    def winning_move(self) -> int | None:
        found = self.winning_squares(first_only=True)
        return found[0] if found else None

    def best_ls(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The mover's best ``L`` and the opponent's, each as (value, squares): the squares the engine reports."""
        board = self.board
        me, them = board.turn, PLAYERS[1 - PLAYERS.index(board.turn)]
        mine, theirs = board.formations(me)["L"], board.formations(them)["L"]
        return (mine.value, mine.squares), (theirs.value, theirs.squares)

    def evaluate(self) -> float:
        """The position for the player to move, in evaluation points (see :data:`EVAL_SCALE`)."""
        own, opp, mine, theirs = self.sides()
        window_score = self.backend.window_score
        return _track_score(mine, theirs) + window_score(own, opp) - window_score(opp, own)

    def leaf_value(self, rng: random.Random) -> float:
        """The evaluation squashed into -1..1 (no playout: Olix games are long and a random one says little)."""
        return math.tanh(self.evaluate() / EVAL_SCALE)

    def refuted(self) -> bool:
        """Whether the player to move (after the move to check) has a win by continuous threats
        (:func:`forced_win`)."""
        return forced_win(self) is not None

    @staticmethod
    def board_move(square: int) -> OlixMove:
        return MOVES[square]


class OlixView(Protocol):
    """What the functions below ask of a search view (:class:`OlixSearch`, :class:`FastOlixSearch`)."""

    @property
    def backend(self) -> Backend: ...

    def moves(self) -> list[int]: ...

    def push(self, square: int) -> int | None: ...

    def pop(self) -> None: ...

    def sides(self) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]: ...

    def stones(self) -> tuple[int, int]: ...

    def best_ls(self) -> tuple[tuple[int, int], tuple[int, int]]: ...

    def winning_squares(self, first_only: bool = False) -> list[int]: ...

    def threat_squares(self) -> list[int]: ...

    def winning_move(self) -> int | None: ...

    def evaluate(self) -> float: ...


class FastOlixSearch:
    """:class:`OlixSearch` with the position kept in C (``_olix_fast.Position``): the engine's push and pop (the same
    incremental formations, the same ``L`` where several tie, the same endings: automatic win, all stones placed,
    settled), and the wins in one, the opponent's threats, the evaluation and :func:`ordered_moves` computed there,
    each giving what :class:`OlixSearch` and the functions of this module give (their reference). Only with the C
    helpers built (:data:`C`)."""

    def __init__(self, board: OlixBoard, backend: Backend | None = C) -> None:
        if backend is None or backend.position is None:
            raise ValueError(f"the position in C needs the C helpers, not {backend!r}")
        self.backend = backend
        shapes = [board.formations(player)["L"].squares for player in PLAYERS]
        self.position = backend.position(
            board.stones(PLAYERS[0]), board.stones(PLAYERS[1]), shapes[0], shapes[1], board.outcome() is not None
        )

    def moves(self) -> list[int]:
        return self.position.moves()

    def push(self, square: int) -> int | None:
        """Place a stone; how the game ended for its player: 1 won, 0 drawn, -1 lost, ``None`` not yet."""
        return self.position.push(square)

    def pop(self) -> None:
        self.position.pop()

    def sides(self) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]:
        """The mover's stones, the opponent's, and their best values (O L I X)."""
        return self.position.sides()

    def stones(self) -> tuple[int, int]:
        """The mover's stones and the opponent's."""
        return self.position.stones()

    def best_ls(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The mover's best ``L`` and the opponent's, each as (value, squares): the squares the engine reports."""
        return self.position.best_ls()

    def winning_squares(self, first_only: bool = False) -> list[int]:
        """Squares where the player to move wins at once (:meth:`OlixSearch.winning_squares`)."""
        return self.position.winning_squares(first_only)

    def threat_squares(self) -> list[int]:
        """Squares where the opponent would win at once if it were their move (:meth:`OlixSearch.threat_squares`)."""
        return self.position.threat_squares()

    def winning_move(self) -> int | None:
        return self.position.winning_move()

    def ordered_moves(self) -> list[int]:
        """:func:`ordered_moves` of this view."""
        return self.position.ordered_moves()

    def evaluate(self) -> float:
        """The position for the player to move, in evaluation points (:meth:`OlixSearch.evaluate`)."""
        return self.position.evaluate()

    def leaf_value(self, rng: random.Random) -> float:
        """The evaluation squashed into -1..1 (:meth:`OlixSearch.leaf_value`)."""
        return math.tanh(self.position.evaluate() / EVAL_SCALE)

    def refuted(self) -> bool:
        """Whether the player to move has a win by continuous threats (:func:`forced_win`)."""
        return forced_win(self) is not None

    @staticmethod
    def board_move(square: int) -> OlixMove:
        return MOVES[square]


def _bits(bb: int) -> Iterator[int]:
    while bb:
        low = bb & -bb
        yield low
        bb ^= low


def greedy_scores(board: OlixBoard, backend: Backend = BACKEND) -> list[tuple[float, int]]:
    """Every legal square with its one-move score for the mover (a win 10,000; a square that leaves the
    opponent a win in one loses 10,000; else the evaluation after it)."""
    view = OlixSearch(board, backend)
    wins = view.winning_squares()
    if wins:
        win_set = set(wins)
        return [(10_000.0 if s in win_set else 0.0, s) for s in view.moves()]
    threats = set(view.threat_squares())
    scored = []
    for square in view.moves():
        result = view.push(square)
        if result is not None:
            score = 10_000.0 * result
        else:
            score = -view.evaluate()
            if threats and (len(threats) > 1 or square not in threats):
                score -= 10_000.0
        view.pop()
        scored.append((score, square))
    return scored


L_WATCH = 6
"""From this value on, the squares that lengthen a player's best ``L`` are searched first."""


def l_extensions(shape: int) -> int:
    """The squares that lengthen an ``L`` (given by its squares) at the far end of either arm."""
    east = (shape << 1) & _DIRECTIONS[0][1]  # bit q: q's west neighbour is in the shape
    west = (shape >> 1) & _DIRECTIONS[0][2]
    north = (shape << WIDTH) & BOARD
    south = shape >> WIDTH
    corner = shape & (east | west) & (north | south)
    arms = shape & ~corner
    return (
        ((arms & east & ~west) << 1 & _DIRECTIONS[0][1])  # an arm running east: one more to the east
        | ((arms & west & ~east) >> 1 & _DIRECTIONS[0][2])
        | ((arms & north & ~south) << WIDTH & BOARD)
        | ((arms & south & ~north) >> WIDTH)
    )


def ordered_moves(view: OlixView) -> list[int]:
    """The squares worth playing, most promising first (the search takes :data:`SEARCH_WIDTH` at a time).

    A threat to block comes alone (any other square loses at once). Otherwise:
    squares that lengthen the mover's lines or cut the opponent's, longest
    first, alternating; then squares next to stones; then the rest. On an empty
    board, the centre alone (all first moves are alike but for their distance
    from the edge).
    """
    threats = view.threat_squares()
    if threats:
        return threats
    own, opp = view.stones()
    empty = BOARD & ~(own | opp)
    if not own | opp:
        return [5 * WIDTH + 5]
    mine = view.backend.runs_through(own, 7)
    theirs = view.backend.runs_through(opp, 7)
    my_l, their_l = view.best_ls()
    chosen: list[int] = []
    taken = 0
    tiers = []
    for k in range(7, 1, -1):
        tiers.append(mine[k] & empty)
        tiers.append(theirs[k] & empty)
        if k == 7:  # a longer L: one short of the automatic win (9) is as sharp as a line of seven
            for value, squares in (my_l, their_l):
                if value >= L_WATCH:
                    tiers.append(l_extensions(squares) & empty)
    tiers.append(_grow(own) & empty)
    tiers.append(_grow(opp) & empty)
    tiers.append(empty)
    for tier in tiers:
        tier &= ~taken
        taken |= tier
        while tier:
            low = tier & -tier
            tier ^= low
            chosen.append(low.bit_length() - 1)
    return chosen


CHECKS = 6
"""How many of the search's best moves are checked at the end for a win by continuous threats they would allow."""
VCF_DEPTH = 4
"""How many threats in a row :func:`forced_win` tries, at most."""


def threat_moves(view: OlixView) -> list[int]:
    """Squares where a stone of the player to move may make a win in one for its next turn: a line of seven (one
    short of an automatic ``I``/``X``), or an ``L`` of at least seven made longer (a superset; checked by pushing)."""
    own, opp = view.stones()
    empty = BOARD & ~(own | opp)
    cands = view.backend.runs_at_least(own, 7, 4)
    (value, squares), _ = view.best_ls()
    if value >= 7:
        cands |= l_extensions(squares)
    return [low.bit_length() - 1 for low in _bits(cands & empty)]


def forced_win(view: OlixView, depth: int = VCF_DEPTH) -> int | None:
    """A first move of a win by continuous threats for the player to move, if one is found: every move of the line
    makes a win in one (the opponent must take that square, and has no win in one of its own), and the last makes
    two, or wins. A win in one is itself a forced win."""
    win = view.winning_move()
    if win is not None:
        return win
    if view.threat_squares():  # the opponent threatens: a threat of ours is no longer forcing
        return None
    return _forced_win(view, depth)


def _forced_win(view: OlixView, depth: int) -> int | None:
    for square in threat_moves(view):
        result = view.push(square)
        found = False
        if result == 1:
            found = True
        elif result is None and view.winning_move() is None:
            threats = view.threat_squares()  # ours now, as the opponent is to move
            if len(threats) >= 2:
                found = True
            elif len(threats) == 1 and depth > 1:
                if view.push(threats[0]) is None:
                    found = view.threat_squares() == [] and _forced_win(view, depth - 1) is not None
                view.pop()
        view.pop()
        if found:
            return square
    return None


def solve(
    view: OlixView, table: dict[object, object], nodes: int, deadline: float, most_plies: int
) -> tuple[float, int] | None:
    """The search's solver (:data:`olixono.mcts.Solver`) for Olix: a win by continuous threats (:func:`forced_win`),
    found or not (it proves no loss or draw)."""
    square = forced_win(view)
    return None if square is None else (1.0, square)


def searcher(
    board: OlixBoard, rng: random.Random, backend: Backend = BACKEND
) -> tuple[OlixSearch | FastOlixSearch, Mcts]:
    """The tree search's view of ``board`` and the search itself, on ``backend``: the :data:`SEARCH_WIDTH` most
    promising squares of each position (:func:`ordered_moves`) before the rest, exploring little
    (:data:`EXPLORATION`). With the C helpers, the view is :class:`FastOlixSearch`: the same search, several times the
    iterations a second."""
    view: OlixSearch | FastOlixSearch
    order: Callable[[Any], list[int]]
    if backend.position is None:
        view, order = OlixSearch(board, backend), ordered_moves
    else:
        view, order = FastOlixSearch(board, backend), FastOlixSearch.ordered_moves
    return view, Mcts(rng, exploration=EXPLORATION, order=order, width=SEARCH_WIDTH, solver=solve, check=CHECKS)
