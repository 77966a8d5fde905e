"""Monte Carlo tree search (UCT) with a win-in-one solver, for any game with a small search view.

A search view (``OxonoSearch``, ``OlixSearch``) offers ``moves()``,
``push(move) -> result`` (how the game ended for the move's mover: 1 won, 0
drawn, -1 lost, ``None`` while it goes on),
``pop()``, ``winning_move()`` (a win in one for the player to move, if any),
``leaf_value(rng)`` (a playout or evaluation, in -1..1, for the player to
move) and ``board_move(move)``; with the options that use them, ``solve``
(an exact search, :data:`Solver`) and ``refuted()`` (whether the player to
move has a short forced win: the move before it is then lost).

Three pieces of game knowledge make the tree sharp at little cost:

* a node whose player to move can win at once is decided the moment it is
  created: it is a loss for the player who moved into it, so a move that
  hands the opponent a win in one is refuted after one visit;
* decided results propagate (MCTS-Solver): a move that wins makes its parent
  lost for the player before, and a node whose moves are all decided takes
  the best of them (won, drawn or lost);
* the moves the search prefers are checked with ``refuted()`` (the
  principal variation during the search, the best moves at the end), so a
  short forced loss it did not see is not played.

The tree of one search can be handed to the next (``tree``) when the game
went on by moves it holds. A tree is :class:`Node`'s here; a search kept
elsewhere (Oxono's in C: ``bot_oxono.FastMcts``) hands out nodes of its own
that offer what :class:`SearchTree` asks.

Values are kept from the side of the player who made the node's move. The
budget is a number of iterations, a wall time checked between iterations, or
both (whichever ends first).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from olixono.common import MoveLike

EXPLORATION = 1.0
"""UCT's exploration constant for values in -1..1."""
PV_MIN_VISITS = 2
"""A principal variation stops at a node visited fewer times than this."""

ViewMove = TypeVar("ViewMove")
"""A search view's own move type (``bot_oxono.Move``, a square number for Olix)."""


class SearchView(Protocol[ViewMove]):
    """What the search asks of a game (``OxonoSearch``, ``OlixSearch``): see the module's docstring."""

    def moves(self) -> list[ViewMove]: ...

    def push(self, move: ViewMove) -> int | None: ...

    def pop(self) -> None: ...

    def winning_move(self) -> ViewMove | None: ...

    def leaf_value(self, rng: random.Random) -> float: ...

    def refuted(self) -> bool: ...

    def board_move(self, move: ViewMove) -> MoveLike: ...


class SearchTree(Protocol):
    """What the result and the bots ask of a node of a search's tree (:class:`Node`, or a node of a tree kept in C):
    its move (``None`` at the root), visits, proven value, mean value, and the moves tried below it."""

    @property
    def move(self) -> Any: ...

    @property
    def visits(self) -> int: ...

    @property
    def proven(self) -> float | None: ...

    @property
    def children(self) -> Sequence[SearchTree]: ...

    def mean(self) -> float: ...


class Node:
    """One move in the tree, seen from the player who made it."""

    __slots__ = ("checked", "children", "move", "parent", "proven", "q", "reserve", "total", "u", "untried", "visits")

    def __init__(self, move: Any, parent: Node | None) -> None:
        self.move = move
        self.parent = parent
        self.children: list[Node] = []
        self.untried: list[Any] | None = None  # filled on the first visit past the node
        self.reserve: list[Any] = []  # moves beyond the search width, tried only if every other move loses
        self.visits = 0
        self.total = 0.0
        self.proven: float | None = None  # 1: the move wins, -1: it loses, 0: it draws (exact results only)
        self.checked = False  # whether ``view.refuted`` was asked of this move
        self.q = 0.0  # total / visits, and 1 / sqrt(visits): kept by the backup for the selection (once visited)
        self.u = 0.0

    def mean(self) -> float:
        if self.proven is not None:
            return self.proven
        return self.total / self.visits if self.visits else 0.0


@dataclass(frozen=True, slots=True)
class Candidate:
    """A move the search considered: its visits, its mean value for the mover (-1..1), and ``won``/``lost``
    when the search proved it."""

    move: MoveLike
    visits: int
    value: float
    proven: str | None = None

    def text(self) -> str:
        tail = f" {self.proven}" if self.proven else ""
        return f"{self.move.text()} {self.visits} {self.value:+.3f}{tail}"


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The chosen move, the root's moves best first, the principal variation, and the effort."""

    move: MoveLike
    candidates: tuple[Candidate, ...]
    pv: tuple[MoveLike, ...]
    iterations: int
    seconds: float
    tree: SearchTree | None = field(default=None, repr=False, compare=False)
    """The root of the tree searched (for :meth:`Mcts.search`'s ``tree`` on a later move)."""


def _prove_parent(node: Node, parent: Node) -> bool:
    """``node`` (a move of ``parent``'s) is proven: whether that proves ``parent`` (a winning move makes it lost for
    the player who moved into it; when every move is proven, it takes the best of them)."""
    if node.proven == 1.0:
        parent.proven = -1.0
    elif not parent.untried and not parent.reserve and all(ch.proven is not None for ch in parent.children):
        parent.proven = -max(ch.proven or 0.0 for ch in parent.children)
    return parent.proven is not None


def _proven_name(value: float | None) -> str | None:
    names: dict[float, str] = {1.0: "won", -1.0: "lost", 0.0: "drawn"}
    return names.get(value) if value is not None else None


Solver = Callable[[Any, dict[Any, Any], int, float, int], "tuple[float, Any] | None"]
"""An exact search: ``solver(view, table, nodes, deadline, most_plies)`` gives a proven value of the view's position
for the player to move (1, 0 or -1) and a move that reaches it, or ``None``. Oxono solves the game to its end when
at most ``most_plies`` plies are left and the proof fits in ``nodes`` positions before ``deadline``, else looks for
a win in two; Olix looks for a win by continuous threats. ``table`` holds what it proved, for the next call."""

ROOT_SOLVE_PLIES = 16
"""The root is given to the solver when at most this many plies are left (Oxono: pawns to place)."""
ROOT_SOLVE_NODES = 1
"""The root solver's budget: this many positions an iteration of the search's budget (a position of the solver costs
a little less than an iteration)."""
ROOT_SOLVE_SHARE = 0.35
"""With a time budget, the share of it the root solver may spend."""
CHECK_EVERY = 64
"""With ``check``: every this many iterations, the principal variation's moves are checked (``view.refuted``)..."""
CHECK_DEPTH = 3
"""... this deep ..."""
CHECK_VISITS = 8
"""... each once it has this many visits."""
TABLE_LIMIT = 1_000_000
"""The solver's table is emptied when it holds more positions than this."""


class Mcts:
    """UCT over a search view; :meth:`search` runs one budget from the view's current position.

    ``order``/``width``: an optional move ordering and how many of its moves to search before the rest.
    ``solver``: an optional exact search (:data:`Solver`), tried at the root before searching; its table of proven
    positions (``table``, made by ``new_table``) lives as long as this object, so a bot that keeps its ``Mcts``
    between moves keeps what it proved.
    ``check``: how many of the best root moves to check at the end with the view's ``refuted`` (a short forced loss
    the search did not see; also asked of the principal variation during the search); 0 for none.
    ``refute_new``: ask ``refuted`` of every new node too, where it is cheap (Oxono's C helpers: a win in two in about
    two microseconds): a move after which the opponent has a short forced win is lost from its first visit.
    """

    def __init__(
        self,
        rng: random.Random,
        *,
        exploration: float = EXPLORATION,
        order: Callable[[Any], list[Any]] | None = None,
        width: int | None = None,
        solver: Solver | None = None,
        check: int = 0,
        new_table: Callable[[], Any] = dict,
        refute_new: bool = False,
        solve_plies: int = ROOT_SOLVE_PLIES,
        solve_nodes: int = ROOT_SOLVE_NODES,
    ) -> None:
        self.rng = rng
        self.exploration = exploration
        self.order = order  # optional: view -> every move worth playing, best first (else all, shuffled)
        self.width = width  # optional: how many of the ordered moves to search before the rest
        self.solver = solver
        self.check = check  # how many of the best moves to check with ``view.refuted`` at the end, at most
        self.solve_plies = solve_plies  # the root solver: from this many plies left, this many positions an iteration
        self.solve_nodes = solve_nodes
        self.refute_new = refute_new  # every new node asked ``view.refuted`` (where that is cheap): lost if so
        self.table: Any = new_table()  # what the solver keeps (a dict, or Oxono's C table: bot_oxono.C.new_table)

    def _expand(self, node: Node, view: SearchView[Any]) -> None:
        """Fill a fresh node's moves to try (the first to try last: they are popped)."""
        if self.order is None:
            moves = view.moves()
            self.rng.shuffle(moves)
            node.untried = moves
            return
        moves = self.order(view)
        if self.width is not None:
            moves, node.reserve = moves[: self.width], moves[self.width :]
        moves.reverse()
        node.untried = moves

    def _widen(self, node: Node) -> None:
        """Every move searched so far is proven and none wins: bring in the next ones."""
        width = self.width or len(node.reserve)
        moves, node.reserve = node.reserve[:width], node.reserve[width:]
        moves.reverse()
        node.untried = moves

    @staticmethod
    def clock() -> float:
        """The search's clock, in seconds (``time.perf_counter``, looked up in this module when called, so that a test
        can put a clock of its own there)."""
        return time.perf_counter()

    def _solve(self, view: SearchView[Any], nodes: int, deadline: float, most_plies: int) -> tuple[float, Any] | None:
        assert self.solver is not None
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        return self.solver(view, self.table, nodes, deadline, most_plies)

    def _decided(
        self,
        view: SearchView[Any],
        iterations: int | None,
        seconds: float | None,
        start: float,
        tree: SearchTree | None,
    ) -> tuple[float, Any] | None:
        """The root's value and move when there is nothing to search: a win in one, or what the solver proves (a win
        or a draw; a proven loss is left to the search, which picks the move that resists best). A search without a
        budget is refused here."""
        if iterations is None and seconds is None:
            raise ValueError("a search needs a budget: iterations, seconds or both")
        win = view.winning_move()
        if win is not None:
            return 1.0, win
        if self.solver is None or (tree is not None and tree.proven is not None):
            return None
        nodes = self.solve_nodes * iterations if iterations is not None else 1 << 62
        share = start + seconds * ROOT_SOLVE_SHARE if seconds is not None else math.inf
        solved = self._solve(view, nodes, share, self.solve_plies)
        return solved if solved is not None and solved[0] >= 0 else None

    def search(
        self,
        view: SearchView[Any],
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        tree: SearchTree | None = None,
    ) -> SearchResult:
        """Search from the view's position for ``iterations`` or ``seconds`` (whichever ends first).

        ``tree``: the node of this position in an earlier search's tree (:attr:`SearchResult.tree`), whose
        statistics the search goes on from; its moves must be the view's. A node of another kind of tree (not a
        :class:`Node`) is not used: the search starts afresh.
        """
        start = self.clock()
        decided = self._decided(view, iterations, seconds, start, tree)
        deadline = start + seconds if seconds is not None else math.inf
        limit = iterations if iterations is not None else 1 << 62
        done = 0
        if decided is not None:  # nothing to search
            value, move = decided
            root = Node(None, None)
            child = Node(move, root)
            child.proven, child.visits, child.total, child.q, child.u = value, 1, value, value, 1.0
            root.children.append(child)
            root.untried, root.proven = [], -value
        else:
            root = tree if isinstance(tree, Node) else Node(None, None)
            root.parent = None
            if root.untried is None:
                self._expand(root, view)
            if not root.untried and not root.children:
                raise ValueError("no legal move to search")
            # Stop before an iteration that would likely end past the deadline (at the mean pace so far).
            now = begun = self.clock()
            while done < limit and root.proven is None and (done == 0 or now + (now - begun) / done < deadline):
                self._iterate(root, view)
                done += 1
                if self.check and not done % CHECK_EVERY:
                    self._check_line(root, view)
                now = self.clock()
        if self.check and root.proven is None:
            self._check(root, view)
        elapsed = self.clock() - start
        return self._result(root, view, done, elapsed)

    def _check_line(self, root: Node, view: Any) -> None:
        """Check the principal variation's moves, from the root down, each once (``view.refuted``): a refuted move is
        lost, and that result goes up the tree as any proof does."""
        node = root
        pushed = 0
        for _ in range(CHECK_DEPTH):
            live = [ch for ch in node.children if ch.proven is None]
            if not live:
                break
            child = max(live, key=lambda ch: ch.visits)
            if child.visits < CHECK_VISITS:
                break
            view.push(child.move)
            pushed += 1
            if not child.checked:
                child.checked = True
                if view.refuted():
                    child.proven = -1.0
                    self._prove_up(child)
                    break
            node = child
        for _ in range(pushed):
            view.pop()

    @staticmethod
    def _prove_up(node: Node) -> None:
        """``node`` was just proven: what that proves above it."""
        while node.parent is not None and node.parent.proven is None and _prove_parent(node, node.parent):
            node = node.parent

    def _check(self, root: Node, view: Any) -> None:
        """Before answering: the best moves, in turn, until one survives ``view.refuted`` (a short forced loss the
        search did not see), each refuted one marked lost."""
        ranked = sorted((ch for ch in root.children if ch.proven is None), key=lambda ch: ch.visits, reverse=True)
        for child in ranked[: self.check]:
            if child.checked:
                return
            child.checked = True
            view.push(child.move)
            refuted = view.refuted()
            view.pop()
            if not refuted:
                return
            child.proven = -1.0
            self._prove_up(child)

    def _iterate(self, root: Node, view: SearchView[Any]) -> None:
        node = root
        depth = 0
        rng = self.rng
        log = math.log
        sqrt = math.sqrt
        c = self.exploration
        while True:
            if node.proven is not None:
                value = node.proven
                break
            if node.untried is None:
                self._expand(node, view)
            if node.untried:
                move = node.untried.pop()
                result = view.push(move)
                depth += 1
                child = Node(move, node)
                node.children.append(child)
                if result is not None:
                    child.proven = float(result)
                    value = child.proven
                elif view.winning_move() is not None or (self.refute_new and view.refuted()):
                    child.proven = -1.0
                    value = -1.0
                    child.checked = True
                else:
                    value = -view.leaf_value(rng)
                node = child
                break
            # Select: UCT among the moves not proven lost; if every move is proven and more wait in reserve, they come
            # in (widening); if every move is lost, this node is won.
            scale = c * sqrt(log(node.visits or 1))
            best, best_score = None, -math.inf
            open_moves = False
            for child in node.children:
                q = child.proven
                if q is None:
                    q = child.q
                    open_moves = True
                elif q == -1.0:
                    continue
                score = q + scale * child.u
                if score > best_score:
                    best, best_score = child, score
            if not open_moves and node.reserve:
                self._widen(node)
                continue
            if best is None:
                node.proven = 1.0
                value = 1.0
                break
            view.push(best.move)
            depth += 1
            node = best
        for _ in range(depth):
            view.pop()
        # Back up: ``value`` is for the player who moved into ``node``.
        climbing: Node | None = node
        while climbing is not None:
            node = climbing
            visits = node.visits = node.visits + 1
            total = node.total = node.total + value
            node.q = total / visits
            node.u = 1.0 / sqrt(visits)
            parent = node.parent
            if parent is not None and parent.proven is None and node.proven is not None:
                _prove_parent(node, parent)
            value = -value
            climbing = parent

    def _result(self, root: SearchTree, view: SearchView[Any], done: int, elapsed: float) -> SearchResult:
        def rank(node: SearchTree) -> tuple[bool, bool, int, float]:
            return (node.proven == 1.0, node.proven != -1.0, node.visits, node.mean())

        children = sorted(root.children, key=rank, reverse=True)
        candidates = tuple(
            Candidate(view.board_move(ch.move), ch.visits, ch.mean(), _proven_name(ch.proven)) for ch in children
        )
        pv: list[MoveLike] = []
        node = children[0]
        while True:
            pv.append(view.board_move(node.move))
            if not node.children:
                break
            node = max(node.children, key=rank)
            if node.visits < PV_MIN_VISITS and node.proven is None:
                break
        return SearchResult(candidates[0].move, candidates, tuple(pv), done, elapsed, root)
