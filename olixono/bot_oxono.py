"""What the bots know about Oxono: moves, wins in one, playouts and a one-move evaluation, on plain ints.

A search state is a tuple from the mover's side, as in the engine's own fast
helpers: ``(own, opp, xs, tx, to, own_lx, own_lo, opp_lx, opp_lo)`` – the
mover's pawns, the opponent's pawns, the pawns marked ``X``, the squares of
the ``X`` and ``O`` totems, and the pawns of each symbol each side has left.
A move is ``(symbol, dest, pawn)``. Nothing here touches an
:class:`~olixono.oxono.OxonoBoard`; :func:`state_of` reads one and
:func:`board_move` turns a move back into an :class:`~olixono.oxono.OxonoMove`.

The one tool everything else rests on is :func:`completions`: every square
where one more pawn of a set would complete a line of four, computed for the
whole board at once with shifts. With it a win in one is a few ANDs
(:func:`winning_move`), so playouts can take every win they are offered and
the search can see at once that a move hands the opponent a win.

These functions are the reference. The search calls them through a :class:`Backend`: :data:`PYTHON` (them) or
:data:`C` (the same in C, ``olixono/_oxono_fast.c``, where it was built), :data:`BACKEND` being the one chosen.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from olixono import backends
from olixono.mcts import Mcts, SearchResult, SearchTree, SearchView
from olixono.oxono import (
    ALL_WINDOWS,
    BOARD,
    NEIGHBOURS,
    PAWNS_IN_ALL,
    SYMBOLS,
    WIDTH,
    O,
    OxonoBoard,
    OxonoMove,
    X,
    adjacent,
    line_made,
    reachable,
)

if TYPE_CHECKING:
    from olixono._oxono_fast import Tree

State: TypeAlias = tuple[int, int, int, int, int, int, int, int, int]
Move: TypeAlias = tuple[int, int, int]

_FILES = [sum(1 << (r * WIDTH + f) for r in range(WIDTH)) for f in range(WIDTH)]
_EAST_OK = [BOARD & ~sum(_FILES[:k]) for k in range(4)]
"""After ``<< k`` (k squares east): drop the bits that wrapped onto files a.. (k files)."""
_WEST_OK = [BOARD & ~sum(_FILES[WIDTH - k :]) for k in range(4)]
"""After ``>> k`` (k squares west): drop the bits that wrapped onto the last k files."""


def state_of(board: OxonoBoard) -> State:
    """The search state of ``board`` (from the side of the player to move)."""
    return board.raw_state()


def board_move(move: Move) -> OxonoMove:
    """The engine's move for a search move."""
    symbol, dest, pawn = move
    return OxonoMove(SYMBOLS[symbol], dest, pawn)


def completions(s: int) -> int:
    """Squares where one more pawn would complete a line of four whose other three squares are in ``s``."""
    e1 = (s << 1) & _EAST_OK[1]  # bit q: q - 1 is in s (same rank)
    e2 = (s << 2) & _EAST_OK[2]
    e3 = (s << 3) & _EAST_OK[3]
    w1 = (s >> 1) & _WEST_OK[1]  # bit q: q + 1 is in s
    w2 = (s >> 2) & _WEST_OK[2]
    w3 = (s >> 3) & _WEST_OK[3]
    n1 = (s << WIDTH) & BOARD  # bit q: the square below q is in s
    n2 = (s << 2 * WIDTH) & BOARD
    n3 = (s << 3 * WIDTH) & BOARD
    s1 = s >> WIDTH
    s2 = s >> 2 * WIDTH
    s3 = s >> 3 * WIDTH
    return (e1 & e2 & (e3 | w1)) | (w1 & w2 & (w3 | e1)) | (n1 & n2 & (n3 | s1)) | (s1 & s2 & (s3 | n1))


def _totem(state: State, symbol: int) -> tuple[int, int, int]:
    """For the totem ``symbol``: its destinations, the free squares around it, and its square."""
    pawns = state[0] | state[1]
    square, other = (state[3], state[4]) if symbol == X else (state[4], state[3])
    occupied = pawns | (1 << other)
    return reachable(square, occupied), BOARD & ~occupied, square


def legal_moves(state: State) -> list[Move]:
    """Every legal move of a game in progress, in the engine's order."""
    out = []
    for symbol in (X, O):
        if not state[5 + symbol]:
            continue
        dests, free, _ = _totem(state, symbol)
        while dests:
            d = dests & -dests
            dests ^= d
            dest = d.bit_length() - 1
            places = NEIGHBOURS[dest] & free or free & ~d
            while places:
                p = places & -places
                places ^= p
                out.append((symbol, dest, p.bit_length() - 1))
    return out


def play(state: State, move: Move) -> tuple[State, int | None]:
    """The state after ``move`` and how the game ended for its mover: 1 won, 0 drawn, ``None`` not yet."""
    own, opp, xs, tx, to, lx, lo, olx, olo = state
    symbol, dest, pawn = move
    p = 1 << pawn
    new_own = own | p
    pawns = new_own | opp
    if symbol == X:
        xs |= p
        tx = dest
        lx -= 1
        line = line_made(pawn, new_own, xs)
    else:
        to = dest
        lo -= 1
        line = line_made(pawn, new_own, pawns & ~xs)
    after = (opp, new_own, xs, tx, to, olx, olo, lx, lo)
    if line:
        return after, 1
    if pawns.bit_count() == PAWNS_IN_ALL:
        return after, 0
    return after, None


def winning_move(state: State) -> Move | None:
    """A move that wins at once for the player to move, if there is one (lowest destination, then pawn)."""
    own, opp, xs = state[0], state[1], state[2]
    pawns = own | opp
    colour = completions(own)
    for symbol in (X, O):
        if not state[5 + symbol]:
            continue
        marked = xs if symbol == X else pawns & ~xs
        targets = (colour | completions(marked)) & ~pawns
        if not targets:
            continue
        dests, free, _ = _totem(state, symbol)
        targets &= free
        if not targets:
            continue
        # The pawn goes next to the totem's destination, or anywhere when that has no free neighbour.
        if not adjacent(dests) & targets and not dests & ~adjacent(free):
            continue
        while dests:
            d = dests & -dests
            dests ^= d
            dest = d.bit_length() - 1
            hit = (NEIGHBOURS[dest] & free or free & ~d) & targets
            if hit:
                return (symbol, dest, (hit & -hit).bit_length() - 1)
    return None


def _pick(bb: int, index: int) -> int:
    """The square of the ``index``-th lowest set bit of ``bb``."""
    for _ in range(index):
        bb &= bb - 1
    return (bb & -bb).bit_length() - 1


def random_move(state: State, random: Callable[[], float]) -> Move:
    """A legal move: a usable totem at random, then a destination, then a pawn square (not uniform over moves)."""
    if state[5] and state[6]:
        symbol = X if random() < 0.5 else O
    else:
        symbol = X if state[5] else O
    dests, free, _ = _totem(state, symbol)
    dest = _pick(dests, int(random() * dests.bit_count()))
    places = NEIGHBOURS[dest] & free or free & ~(1 << dest)
    return (symbol, dest, _pick(places, int(random() * places.bit_count())))


PLAYOUT_TRIES = 3
"""How many random moves a playout draws, at most, looking for one that does not hand the opponent a win in one."""
PLAYOUT_PLIES = 8
"""A playout stops after this many plies; the evaluation judges the position it reached."""
PLAYOUT_SCALE = 10.0
"""Evaluation points that make a playout's value tanh(1) ≈ 0.76."""


def playout(state: State, random: Callable[[], float], plies: int = PLAYOUT_PLIES, tries: int = PLAYOUT_TRIES) -> float:
    """A short playout's value, in -1..1, for the player to move, who has no win in one.

    Each player takes a win in one when it has one; otherwise it draws random moves until one does not let the
    opponent win at once (at most ``tries``; the last one drawn is played). A game that ends gives 1, 0 or -1;
    after ``plies`` plies, :func:`evaluate` judges the position reached.
    """
    sign = 1.0
    for _ in range(plies):
        for _ in range(tries):
            after, result = play(state, random_move(state, random))
            if result is not None:  # a random move can complete a line too, or fill the board
                return sign * result
            threat = winning_move(after)
            if threat is None:
                break
        state = after
        if threat is not None:  # the opponent takes it
            return -sign
        sign = -sign
    return sign * math.tanh(evaluate(state) / PLAYOUT_SCALE)


CHECKS = 8
"""How many of the search's best moves are checked at the end for a win in two they would allow the opponent."""


def _threatens(state: State) -> bool:
    """Whether the player who just moved into ``state`` could win at once if it were its move again."""
    own, opp, xs, tx, to, lx, lo, olx, olo = state
    return winning_move((opp, own, xs, tx, to, olx, olo, lx, lo)) is not None


def forced_win(state: State, moves: int = 2) -> Move | None:
    """A move that wins within ``moves`` moves of the player to move whatever the opponent plays, found among the
    moves that threaten a win in one (a win in one itself when there is one); ``None`` if there is none such."""
    win = winning_move(state)
    if win is not None or moves <= 1:
        return win
    for move in legal_moves(state):
        after, result = play(state, move)
        if result is not None or winning_move(after) is not None or not _threatens(after):
            continue  # a draw (a full board), or the opponent wins at once, or no threat to answer
        for reply in legal_moves(after):
            reached, ended = play(after, reply)
            if ended is not None or forced_win(reached, moves - 1) is None:
                break
        else:
            return move
    return None


def allows_forced_win(state: State, moves: int = 2) -> bool:
    """Whether the player to move in ``state`` has a :func:`forced_win` within ``moves`` moves."""
    return forced_win(state, moves) is not None


class _OutOfBudget(Exception):
    """The solver's node budget or deadline ran out."""


def pawns_left(state: State) -> int:
    """Pawns still to place, both players together: the plies left at most."""
    return PAWNS_IN_ALL - (state[0] | state[1]).bit_count()


def solve(state: State, table: dict[State, tuple[int, int]], nodes: int, deadline: float = math.inf) -> int | None:
    """The exact value of ``state`` for the player to move (1 win, 0 draw, -1 loss), by alpha-beta to the end
    of the game; ``None`` when it needs more than ``nodes`` positions or runs past ``deadline``.

    ``table`` keeps bounds proven for positions (``(low, high)``), for this and later calls.
    """
    budget = [nodes]
    try:
        return _solve(state, -1, 1, table, budget, deadline)
    except _OutOfBudget:
        return None


def _solve(
    state: State, alpha: int, beta: int, table: dict[State, tuple[int, int]], budget: list[int], deadline: float
) -> int:
    budget[0] -= 1
    if budget[0] < 0 or ((budget[0] & 1023) == 0 and time.perf_counter() > deadline):
        raise _OutOfBudget
    if winning_move(state) is not None:
        return 1
    low, high = table.get(state, (-1, 1))
    if low >= beta or low == high:
        return low
    if high <= alpha:
        return high
    a0, b0 = max(alpha, low), min(beta, high)
    best = -1
    for move in legal_moves(state):
        after, result = play(state, move)
        value = 0 if result == 0 else -_solve(after, -b0, -max(a0, best), table, budget, deadline)
        if value > best:
            best = value
            if best >= b0:
                break
    if best <= a0:
        high = best
    elif best >= b0:
        low = best
    else:
        low = high = best
    table[state] = (low, high)
    return best


def best_move(
    state: State, table: dict[State, tuple[int, int]], nodes: int, deadline: float = math.inf
) -> tuple[int, Move] | None:
    """The exact value of ``state`` for the player to move and a move that reaches it, or ``None`` (:func:`solve`)."""
    budget = [nodes]
    try:
        _solve(state, -1, 1, table, budget, deadline)  # the moves' values below come from the table, mostly
        win = winning_move(state)
        if win is not None:
            return 1, win
        best, choice = -2, None
        for move in legal_moves(state):
            after, result = play(state, move)
            value = 0 if result == 0 else -_solve(after, -1, 1, table, budget, deadline)
            if value > best:
                best, choice = value, move
                if best == 1:
                    break
    except _OutOfBudget:
        return None
    assert choice is not None
    return best, choice


def _line_score(own: int, opp: int) -> int:
    """Lines of four still open to ``own``'s colour, weighted by how full they are."""
    score = 0
    for w in ALL_WINDOWS:
        if not opp & w:
            n = (own & w).bit_count()
            if n >= 2:
                score += n * n
    return score


def evaluate(state: State) -> float:
    """A one-move judgement of a quiet position, from the side of the player to move (about -50..50).

    Squares where a pawn of one's own colour would complete a line are threats
    only their owner can use; lines of four with two or three pawns of one
    colour and none of the other are the next threats.
    """
    own, opp = state[0], state[1]
    free = BOARD & ~(own | opp)
    own_threats = (completions(own) & free).bit_count()
    opp_threats = (completions(opp) & free).bit_count()
    return 6.0 * (own_threats - opp_threats) + 0.5 * (_line_score(own, opp) - _line_score(opp, own))


# -- the backends: the functions above, or the same in C ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Backend:
    """What the search calls, from one place: the functions above (:data:`PYTHON`) or the C helpers' (:data:`C`).

    The C helpers return what the functions above return and draw the same random numbers, faster: a win in one 21
    times, a playout 33, a win in two 103, a list of moves 3 (``BENCHMARKS.md``; ``tests/test_bots_fast.py`` holds
    the two alike). Their solver keeps its proofs in a table of its own (``new_table``), and their search has its
    loop in C too (``tree``: :class:`FastMcts`)."""

    name: str
    winning_move: Callable[[State], Move | None]
    legal_moves: Callable[[State], list[Move]]
    play: Callable[[State, Move], tuple[State, int | None]]
    evaluate: Callable[[State], float]
    forced_win: Callable[[State, int], Move | None]
    playout: Callable[[State, Callable[[], float], int, int], float]
    new_table: Callable[[], Any]
    """A table for ``solve`` and ``best_move`` to keep what they prove in, between calls."""
    solve: Callable[[State, Any, int, float], int | None]
    best_move: Callable[[State, Any, int, float], tuple[int, Move] | None]
    tree: type[Tree] | None
    """The search tree in C that :class:`FastMcts` runs, or ``None``: the search's loop is :class:`Mcts`'s."""

    def __repr__(self) -> str:
        return f"<bot_oxono backend {self.name}>"


PYTHON = Backend(
    "python",
    winning_move=winning_move,
    legal_moves=legal_moves,
    play=play,
    evaluate=evaluate,
    forced_win=forced_win,
    playout=playout,
    new_table=dict,
    solve=solve,
    best_move=best_move,
    tree=None,
)
"""The functions of this module: the reference."""


def _c_backend() -> Backend | None:
    """The C helpers (``olixono/_oxono_fast.c``) as a backend, where they were built."""
    try:
        from olixono import _oxono_fast as fast
    except ImportError:  # not built (no compiler where the package was installed): the Python reference serves
        return None
    return Backend(
        "c",
        winning_move=fast.winning_move,
        legal_moves=fast.legal_moves,
        play=fast.play,
        evaluate=fast.evaluate,
        forced_win=fast.forced_win,
        playout=fast.playout,
        new_table=fast.Table,
        solve=fast.solve,
        best_move=fast.best_move,
        tree=fast.Tree,
    )


C = _c_backend()
"""The C helpers, or ``None`` where they were not built."""
BACKEND = backends.choose(PYTHON, C)
"""The backend the bots search with: :data:`C` where it was built and ``OLIXONO_PURE_PYTHON`` is not set, else
:data:`PYTHON` (:func:`olixono.backends.choose`)."""


def greedy_scores(board: OxonoBoard, backend: Backend = BACKEND) -> list[tuple[float, Move]]:
    """Every legal move with its one-move score for the mover: a win is worth 10,000, a move that lets
    the opponent win at once -10,000 (plus the evaluation, so the least bad is still chosen), a draw 0."""
    state = state_of(board)
    scored = []
    for move in backend.legal_moves(state):
        after, result = backend.play(state, move)
        if result == 1:
            scored.append((10_000.0, move))
            continue
        if result == 0:
            scored.append((0.0, move))
            continue
        score = -backend.evaluate(after)
        if backend.winning_move(after) is not None:
            score -= 10_000.0
        scored.append((score, move))
    return scored


class OxonoSearch:
    """The search's view of an Oxono game: a stack of states with push and pop, on ``backend``'s functions."""

    def __init__(self, board: OxonoBoard, backend: Backend = BACKEND) -> None:
        self.backend = backend
        self.stack: list[State] = [state_of(board)]
        self.results: list[int | None] = [-1]

    def moves(self) -> list[Move]:
        return self.backend.legal_moves(self.stack[-1])

    def push(self, move: Move) -> int | None:
        """Play ``move``: 1 if its mover won, 0 for a draw, ``None`` if the game goes on."""
        state, result = self.backend.play(self.stack[-1], move)
        self.stack.append(state)
        self.results.append(result)
        return result

    def pop(self) -> None:
        self.stack.pop()
        self.results.pop()

    def winning_move(self) -> Move | None:
        return self.backend.winning_move(self.stack[-1])

    def leaf_value(self, rng: random.Random) -> float:
        """A short playout's value for the player to move (:func:`playout`)."""
        return self.backend.playout(self.stack[-1], rng.random, PLAYOUT_PLIES, PLAYOUT_TRIES)

    def solve(self, table: dict[Any, Any], nodes: int, deadline: float, most_plies: int) -> tuple[float, Move] | None:
        """The exact value for the player to move and a move that reaches it (:func:`best_move`), if the game has
        at most ``most_plies`` plies left and the proof fits in ``nodes`` positions before ``deadline``; else a win
        in two (:func:`forced_win`), if there is one."""
        state = self.stack[-1]
        found = self.backend.best_move(state, table, nodes, deadline) if pawns_left(state) <= most_plies else None
        if found is not None:
            return float(found[0]), found[1]
        win = self.backend.forced_win(state, 2)
        return None if win is None else (1.0, win)

    def refuted(self) -> bool:
        """Whether the player to move (after the move to check) has a win in two (:func:`forced_win`)."""
        return self.backend.forced_win(self.stack[-1], 2) is not None

    @staticmethod
    def board_move(move: Move) -> OxonoMove:
        return board_move(move)


FAST_SEARCH: dict[str, Any] = {"refute_new": True, "solve_plies": 20, "solve_nodes": 20}
"""What the search does more with the C helpers (:data:`C`), which make it affordable
(:class:`~olixono.mcts.Mcts`'s keywords): every new node is asked whether the player to move has a win in two
(``refute_new``), not only the best moves at the end (measured against the baseline mcts given ten times
the time: 58% with it, 22% without, 40 games each); the root solver from 20 pawns left (the Python solver: 16), with
20 positions for each iteration of an iteration budget (a position costs it about a twentieth of an iteration)."""


class TreeNode:
    """A node of a search tree kept in C (``_oxono_fast.Tree``), as :class:`~olixono.mcts.SearchTree`: what the
    result, the bots' kept tree (``bots._Kept.subtree``) and the next search (``tree=``) ask of it.

    A handle: the tree is rerooted (its nodes renumbered) when a search goes on from one of its nodes, after which
    the handles made before refer to nothing and say so.
    """

    __slots__ = ("generation", "index", "tree")

    def __init__(self, tree: Tree, index: int) -> None:
        self.tree = tree
        self.index = index
        self.generation: int = tree.generation

    def _node(self) -> tuple[Move | None, int, float, float | None, bool]:
        if self.generation != self.tree.generation:
            raise ValueError("a node of a tree searched on from another of its nodes since")
        return self.tree.node(self.index)

    @property
    def move(self) -> Move | None:
        return self._node()[0]

    @property
    def visits(self) -> int:
        return self._node()[1]

    @property
    def proven(self) -> float | None:
        return self._node()[3]

    @property
    def children(self) -> list[TreeNode]:
        self._node()
        return [TreeNode(self.tree, index) for index in self.tree.children(self.index)]

    def mean(self) -> float:
        _, visits, total, proven, _ = self._node()
        if proven is not None:
            return proven
        return total / visits if visits else 0.0


MOST_ITERATIONS = 1 << 62
"""An iteration budget larger than this is this (no search gets near it): the C search counts in 64 bits."""


class FastMcts(Mcts):
    """:class:`~olixono.mcts.Mcts` with Oxono's settings, its iterations in C (``_oxono_fast.Tree``): the same
    algorithm (no move ordering, the root solver in Python first, every new node asked for a win in two with
    ``refute_new``, the principal variation and the best moves checked), about four times as many iterations a
    second. Its random numbers are drawn from ``rng.random`` as the Python search's are, but it shuffles the moves
    its own way (Fisher-Yates on ``rng.random``), so a seeded search is not :class:`~olixono.mcts.Mcts`'s; given that
    shuffle, the Python search gives the same statistics bit for bit (``tests/test_tree_fast.py``).

    Its trees are C trees, handed out as :class:`TreeNode` handles (``SearchResult.tree``); the nodes are kept until
    the next search goes on from one of them (then only its subtree is kept), at most ``_oxono_fast.MOST_NODES`` of
    them (a search that would need more stops there).
    """

    def search(
        self,
        view: SearchView[Any],
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        tree: SearchTree | None = None,
    ) -> SearchResult:
        """:meth:`Mcts.search`'s budget, result and ``tree`` (a :class:`TreeNode` of an earlier search's, else
        nothing is kept), on an :class:`OxonoSearch` of the C backend (:data:`C`)."""
        assert isinstance(view, OxonoSearch)
        tree_in_c = view.backend.tree
        if tree_in_c is None:
            raise ValueError(f"the search in C needs a view on the C helpers, not on {view.backend!r}")
        start = self.clock()
        decided = self._decided(view, iterations, seconds, start, tree)
        state = view.stack[-1]
        done = 0
        if decided is not None:  # nothing to search
            value, move = decided
            root = self._new_tree(tree_in_c, state)
            root.decide(move, int(value))
        else:
            root = self._tree_from(tree_in_c, tree, state)
            deadline = start + seconds if seconds is not None else math.inf
            limit = min(iterations, MOST_ITERATIONS) if iterations is not None else MOST_ITERATIONS
            done = root.run(self.rng.random, limit, deadline, bool(self.check), self.clock)
        handle = TreeNode(root, 0)
        if self.check and handle.proven is None:
            root.check(self.check)
        return self._result(handle, view, done, self.clock() - start)

    def _new_tree(self, tree_in_c: type[Tree], state: State) -> Tree:
        if self.order is not None or self.width is not None:
            raise ValueError("the search in C searches every move, unordered: no order or width")
        return tree_in_c(state, self.exploration, self.refute_new, PLAYOUT_PLIES, PLAYOUT_TRIES)

    def _tree_from(self, tree_in_c: type[Tree], tree: SearchTree | None, state: State) -> Tree:
        """The C tree to search on: ``tree``'s, rerooted at its node, if it is a live handle of this position's."""
        if isinstance(tree, TreeNode) and tree.generation == tree.tree.generation:
            tree.tree.reroot(tree.index)
            if tree.tree.state == state:
                return tree.tree
        return self._new_tree(tree_in_c, state)


def searcher(board: OxonoBoard, rng: random.Random, backend: Backend = BACKEND) -> tuple[OxonoSearch, Mcts]:
    """The tree search's view of ``board`` and the search itself, on ``backend``: every move searched, short playouts,
    an exact solver for the last plies and wins in two, the best moves (with the C helpers: every new move) checked
    for a win in two they allow. With the C helpers, the search's loop runs in C too (:class:`FastMcts`)."""
    view = OxonoSearch(board, backend)
    if backend.tree is None:
        return view, Mcts(rng, solver=OxonoSearch.solve, check=CHECKS, new_table=backend.new_table)
    return view, FastMcts(rng, solver=OxonoSearch.solve, check=CHECKS, new_table=backend.new_table, **FAST_SEARCH)
