"""Oxono's tree search in C (``_oxono_fast.Tree``, driven by ``bot_oxono.FastMcts``) against what it must do.

It runs :class:`~olixono.mcts.Mcts`'s algorithm with a shuffle of its own (Fisher-Yates on ``random()``): given the
Python search that shuffle, the two give the same statistics, bit for bit. Besides, what the algorithm guarantees is
checked (wins in one taken and proven, wins in two not allowed where they can be avoided, proofs exact, the budget
honoured, the tree kept between moves, determinism for a seed), and that hostile inputs give errors, never a crash.
Every test uses fixed seeds and iteration budgets (no timing).
"""

from __future__ import annotations

import contextlib
import math
import random
import time
import tracemalloc
from typing import TYPE_CHECKING

import pytest
from engine_helpers import analysis_of, outcome_of
from extensions import require_extension
from test_bots_fast import FULL
from test_search import ALLOWS_WIN_IN_TWO, assert_proofs_exact, endgame, midgame, minimax, wins_in_two

from olixono import bot_oxono
from olixono.bots import MctsBot, make_bot
from olixono.games import new_board
from olixono.mcts import Mcts
from olixono.oxono import PAWNS_IN_ALL, OxonoBoard

fast = require_extension("olixono._oxono_fast")
if TYPE_CHECKING:
    from olixono._oxono_fast import Tree
assert bot_oxono.C is not None  # built, as the extension is
C: bot_oxono.Backend = bot_oxono.C


def view_of(board: OxonoBoard) -> bot_oxono.OxonoSearch:
    """The search's view of ``board`` on the C helpers (whatever ``OLIXONO_PURE_PYTHON`` chose for the bots)."""
    return bot_oxono.OxonoSearch(board, C)


def searcher(seed: int, *, solver: bool = True, check: int = bot_oxono.CHECKS) -> bot_oxono.FastMcts:
    """The bot's search with the C loop (``solver=False``: no root solver, so that the tree itself proves)."""
    return bot_oxono.FastMcts(
        random.Random(seed),
        solver=bot_oxono.OxonoSearch.solve if solver else None,
        check=check,
        new_table=fast.Table,
        **bot_oxono.FAST_SEARCH,
    )


def tree_of(board: OxonoBoard, **changes) -> Tree:
    """A C tree of ``board`` with the bot's settings (or ``changes``)."""
    settings = {
        "exploration": 1.0,
        "refute_new": True,
        "plies": bot_oxono.PLAYOUT_PLIES,
        "tries": bot_oxono.PLAYOUT_TRIES,
    } | changes
    tree: Tree = fast.Tree(
        bot_oxono.state_of(board),
        settings["exploration"],
        settings["refute_new"],
        settings["plies"],
        settings["tries"],
        *([settings["most"]] if "most" in settings else []),
    )
    return tree


def run(tree: Tree, seed: int, iterations: int, deadline: float = math.inf, check_line: bool = True) -> int:
    return tree.run(random.Random(seed).random, iterations, deadline, check_line, time.perf_counter)


def positions_with_a_win(count: int, seed: int) -> list[OxonoBoard]:
    """Positions of random games where the player to move can win at once."""
    rng = random.Random(seed)
    found: list[OxonoBoard] = []
    for _ in range(100 * count):
        if len(found) == count:
            break
        board = OxonoBoard()
        for _ in range(PAWNS_IN_ALL + 1):  # a ply places one pawn: no game is longer than PAWNS_IN_ALL plies
            if board.outcome() is not None:
                break
            if bot_oxono.winning_move(bot_oxono.state_of(board)) is not None:
                found.append(board.copy())
                break
            board.push(board.random_move(rng))
        else:
            raise AssertionError(f"a game went on after {PAWNS_IN_ALL} plies: {board!r}")
    assert len(found) == count, f"{len(found)} of {count} positions with a win in {100 * count} games"
    return found


def test_the_bots_search_on_the_c_helpers_is_the_c_one():
    view, search = bot_oxono.searcher(OxonoBoard(), random.Random(1), C)
    assert isinstance(search, bot_oxono.FastMcts)
    result = search.search(view, iterations=50)
    assert isinstance(result.tree, bot_oxono.TreeNode)


def test_the_search_on_the_python_reference_is_python_s():
    _, search = bot_oxono.searcher(OxonoBoard(), random.Random(1), bot_oxono.PYTHON)
    assert type(search) is Mcts


class SameShuffle(Mcts):
    """The Python search, its moves shuffled as the C search shuffles them (and tried in the same order)."""

    def _expand(self, node, view) -> None:
        moves = view.moves()
        for i in range(len(moves) - 1, 0, -1):
            j = min(int(self.rng.random() * (i + 1)), i)
            moves[i], moves[j] = moves[j], moves[i]
        moves.reverse()  # popped from the end
        node.untried = moves


@pytest.mark.parametrize("plies, left", [(2, None), (7, None), (12, None), (None, 12), (None, 7)])
def test_the_c_search_is_the_python_search(plies, left):
    """With the same shuffle, the same settings and seed: the same candidates, values, proofs and line, and the same
    again when both go on from their kept trees after the move and reply they expected."""
    for seed in range(4):
        board = midgame(plies, seed=seed * 10) if plies is not None else endgame(seed, left)
        settings = {
            "solver": bot_oxono.OxonoSearch.solve if left is None else None,  # endgames: the tree's proofs
            "check": bot_oxono.CHECKS,
            "new_table": fast.Table,
            **bot_oxono.FAST_SEARCH,
        }
        python, c = SameShuffle(random.Random(seed), **settings), bot_oxono.FastMcts(random.Random(seed), **settings)
        ours = c.search(view_of(board), iterations=1000)
        theirs = python.search(view_of(board), iterations=1000)
        assert (ours.candidates, ours.pv, ours.iterations) == (theirs.candidates, theirs.pv, theirs.iterations)
        line = ours.pv[:2]
        if len(line) < 2 or _ends(board, line):
            continue
        trees = []
        for result in (ours, theirs):
            node = result.tree
            assert node is not None
            for move in line:
                node = next(ch for ch in node.children if bot_oxono.board_move(ch.move) == move)
            trees.append(node)
        for move in line:
            board.play(move.text())
        ours = c.search(view_of(board), iterations=300, tree=trees[0])
        theirs = python.search(view_of(board), iterations=300, tree=trees[1])
        assert ours.candidates == theirs.candidates and ours.pv == theirs.pv
        if ours.iterations:  # (not a position decided at once: a win in one, or the solver's)
            assert sum(c.visits for c in ours.candidates) > ours.iterations  # the kept subtree came along


def _ends(board: OxonoBoard, line) -> bool:
    """Whether the game ends within ``line``'s moves."""
    done = 0
    for move in line:
        board.push(move)
        done += 1
        if board.outcome() is not None:
            break
    ended = board.outcome() is not None
    for _ in range(done):
        board.pop()
    return ended


def test_a_win_in_one_is_never_missed_and_is_proven():
    """By the tree itself (no root solver, no win looked for before: the node of the winning move is proven at once,
    and proves the root), and by the bot's search."""
    for i, board in enumerate(positions_with_a_win(12, 1)):
        tree = tree_of(board)
        done = run(tree, i, 100_000)
        root = bot_oxono.TreeNode(tree, 0)
        assert root.proven == -1.0 and done < 100_000  # the search stops: the root is decided
        won = [ch for ch in root.children if ch.proven == 1.0]
        assert won and won[0].move is not None
        board.push(bot_oxono.board_move(won[0].move))
        assert board.outcome() is not None and outcome_of(board).winner is not None
        board.pop()
        mover = board.turn
        result = searcher(i).search(view_of(board), iterations=50)
        assert result.candidates[0].proven == "won"
        board.play(result.move.text())
        assert board.outcome() is not None and outcome_of(board).winner == mover


@pytest.mark.parametrize("seed", range(3))
def test_a_move_that_allows_a_win_in_two_is_avoided(seed):
    board = OxonoBoard.from_position(ALLOWS_WIN_IN_TWO)
    result = searcher(seed).search(view_of(board), iterations=300)
    board.play(result.move.text())
    assert not bot_oxono.allows_forced_win(bot_oxono.state_of(board))
    assert not any(wins_in_two(board, reply) for reply in board.legal_moves())
    board.pop()
    lost = [c for c in result.candidates if c.proven == "lost"]
    assert lost  # the moves that allow it are proven lost, not merely avoided


@pytest.mark.parametrize("seed", range(6))
def test_proven_values_are_exact(seed):
    """Near the end (few pawns left), with no root solver: every move the tree proves is proven as brute-force
    minimax values it, and the root solver's answer agrees with the tree's best."""
    board = endgame(seed, 5)
    result = searcher(seed, solver=False).search(view_of(board), iterations=3000)
    assert_proofs_exact(board, result.candidates)
    value = minimax(board)
    best = result.candidates[0]
    if best.proven:
        assert {"won": 1, "drawn": 0, "lost": -1}[best.proven] == value
    python = Mcts(random.Random(seed)).search(view_of(board), iterations=3000).candidates[0]
    if python.proven and best.proven:
        assert python.proven == best.proven


def test_the_root_is_visited_once_an_iteration_and_a_seed_gives_one_search():
    board = midgame(6, seed=1)
    results = []
    for _ in range(2):
        tree = tree_of(board)
        done = run(tree, 7, 700)
        assert done == 700
        root = bot_oxono.TreeNode(tree, 0)
        assert root.visits == 700 and sum(ch.visits for ch in root.children) == 700
        results.append([(ch.move, ch.visits, ch.mean(), ch.proven) for ch in root.children])
    assert results[0] == results[1]
    first, again = (searcher(3).search(view_of(board), iterations=500) for _ in range(2))
    assert first.candidates == again.candidates and first.pv == again.pv and first.iterations == 500
    other = searcher(4).search(view_of(board), iterations=500)
    assert other.candidates != first.candidates


def test_a_time_budget_stops_the_search():
    board = midgame(4, seed=2)
    result = searcher(1).search(view_of(board), seconds=0.05)
    assert result.iterations > 0 and result.seconds < 5  # (a bound for a loaded machine: it stops in about 0.05 s)
    tree = tree_of(board)
    assert run(tree, 1, 10**9, deadline=time.perf_counter() - 1) == 1  # a deadline past: one iteration, as Mcts
    assert run(tree, 1, 10**9, deadline=-math.inf) == 1
    assert run(tree, 1, 10**9, deadline=math.nan) == 1


@pytest.mark.skipif(bot_oxono.BACKEND is not C, reason="OLIXONO_PURE_PYTHON is set: the bots search in Python")
def test_the_tree_is_kept_between_moves():
    board = midgame(6, seed=2)
    bot = make_bot("mcts", seed=3, iterations=400)
    assert isinstance(bot, MctsBot)
    board.play(bot.choose(board))
    kept = bot._memory["kept"].root
    assert isinstance(kept, bot_oxono.TreeNode)
    board.play(analysis_of(bot).pv[1].text())  # the reply the search expected
    bot.choose(board)
    assert sum(c.visits for c in analysis_of(bot).candidates) > analysis_of(bot).iterations  # its subtree came along
    with pytest.raises(ValueError, match="searched on"):
        _ = kept.children  # the tree was rerooted below it: the old handle says so
    for _ in range(4):  # and on, move after move, as a game goes
        if board.outcome() is not None:
            break
        board.play(bot.choose(board))
        if board.outcome() is None and len(analysis_of(bot).pv) > 1:
            board.play(analysis_of(bot).pv[1].text())


def snapshot(node: bot_oxono.TreeNode) -> tuple[object, ...]:
    """A node's statistics and everything below it, as plain values."""
    return (node.move, node.visits, node.mean(), node.proven, tuple(snapshot(ch) for ch in node.children))


def test_a_rerooted_tree_is_the_subtree_it_was():
    board = midgame(6, seed=5)
    tree = tree_of(board)
    run(tree, 1, 2000)
    root = bot_oxono.TreeNode(tree, 0)
    child = max(root.children, key=lambda ch: ch.visits)
    grandchild = max(child.children, key=lambda ch: ch.visits)
    before = snapshot(grandchild)[1:]  # (its move is the root's None after)
    size, moves = len(tree), (child.move, grandchild.move)
    tree.reroot(grandchild.index)
    assert snapshot(bot_oxono.TreeNode(tree, 0))[1:] == before and len(tree) < size
    for move in moves:
        assert move is not None
        board.push(bot_oxono.board_move(move))
    assert tree.state == bot_oxono.state_of(board)
    assert run(tree, 2, 300) == 300  # and it searches on from there


def test_a_game_against_greedy_runs_to_its_end():
    board = new_board("oxono")
    bots = [make_bot("mcts", seed=1, iterations=150), make_bot("greedy", seed=2)]
    turn = 0
    while board.outcome() is None:
        board.play(bots[turn].choose(board))
        turn ^= 1
    assert board.outcome() is not None


# -- hostile inputs: errors, never a crash ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        (),
        (1, 2, 3),
        ("a",) * 9,
        (1 << 40,) + (0,) * 8,
        [0] * 9,
        (1, 1, 0, 2, 3, 8, 8, 7, 8),
        (0, 0, 0, 2, 2, 8, 8, 8, 8),
        (0, 0, 0, 2, 3, 9, 7, 8, 8),
    ],
)
def test_bad_states_are_refused(bad):
    with pytest.raises((TypeError, ValueError, OverflowError)):
        fast.Tree(bad, 1.0, True, 8, 3)


@pytest.mark.parametrize(
    "settings",
    [
        (math.nan, True, 8, 3),
        (math.inf, True, 8, 3),
        (-1.0, True, 8, 3),
        (1.0, True, -1, 3),
        (1.0, True, 8, 0),
        (1.0, True, 8, 3, 1),
        (1.0, True, 8, 3, fast.MOST_NODES + 1),
    ],
)
def test_bad_settings_are_refused(settings):
    with pytest.raises(ValueError):
        fast.Tree(bot_oxono.state_of(OxonoBoard()), *settings)


@pytest.mark.parametrize("number", [1.0, -0.5, math.nan, 1e300])
def test_a_random_number_outside_0_1_is_an_error(number):
    tree = tree_of(midgame(4, seed=3))
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        tree.run(lambda: number, 100, math.inf, True, time.perf_counter)


def test_a_failing_random_or_clock_is_its_error_and_the_tree_stays_sound():
    board = midgame(4, seed=3)
    tree = tree_of(board)
    rng = random.Random(1)
    calls = [0]

    def failing() -> float:
        calls[0] += 1
        if calls[0] > 500:
            raise ZeroDivisionError
        return rng.random()

    with pytest.raises(ZeroDivisionError):
        tree.run(failing, 10_000, math.inf, True, time.perf_counter)
    with pytest.raises(ZeroDivisionError):
        tree.run(random.Random(1).random, 10, 1e300, True, lambda: 1 / 0)
    with pytest.raises(TypeError):
        tree.run(random.Random(1).random, 10, 1e300, True, lambda: "now")  # type: ignore[arg-type, return-value]  # on purpose
    root = bot_oxono.TreeNode(tree, 0)
    before = root.visits
    assert run(tree, 2, 200) == 200  # it searches on where it stopped
    assert root.visits == before + 200 == sum(ch.visits for ch in root.children)


def test_budgets_out_of_range():
    tree = tree_of(midgame(4, seed=3))
    with pytest.raises(ValueError, match="at least 0"):
        run(tree, 1, -1)
    with pytest.raises(OverflowError):
        run(tree, 1, 10**30)
    assert run(tree, 1, 0) == 0
    with pytest.raises(TypeError):
        tree.run(random.Random(1).random, 10, "soon", True, time.perf_counter)  # type: ignore[arg-type]  # on purpose
    result = searcher(1).search(view_of(midgame(4, seed=3)), iterations=10**30, seconds=0.02)
    assert result.iterations > 0  # a huge budget is as large as any


def test_the_node_count_is_capped():
    tree = tree_of(midgame(2, seed=3), most=500)
    done = run(tree, 1, 100_000)
    assert 0 < done < 100_000 and len(tree) <= 500
    assert run(tree, 1, 100_000) == 0  # full: nothing more to do, and no error
    root = bot_oxono.TreeNode(tree, 0)
    assert root.visits == done


def test_a_search_within_the_searchs_own_callbacks_is_refused():
    tree = tree_of(midgame(4, seed=3))
    rng = random.Random(1)
    seen: list[Exception] = []

    def meddling() -> float:
        for action in (
            lambda: tree.reroot(1),
            lambda: tree.run(rng.random, 5, math.inf, True, time.perf_counter),
            lambda: tree.check(3),
            lambda: tree.decide((0, 0, 0), 1),
        ):
            try:
                action()
            except RuntimeError as error:
                seen.append(error)
        tree.node(0)  # reading is harmless
        return rng.random()

    run(tree, 1, 30)
    tree.run(meddling, 3, math.inf, True, time.perf_counter)
    assert len(seen) >= 4 and all("being searched" in str(e) for e in seen)


def test_what_a_tree_refuses():
    board = midgame(4, seed=3)
    tree = tree_of(board)
    with pytest.raises(ValueError, match="legal"):
        tree.decide((0, 0, 0) if (0, 0, 0) not in bot_oxono.legal_moves(bot_oxono.state_of(board)) else (1, 0, 0), 1)
    with pytest.raises(ValueError):
        tree.decide(bot_oxono.legal_moves(bot_oxono.state_of(board))[0], 2)
    run(tree, 1, 50)
    with pytest.raises(ValueError, match="not searched yet"):
        tree.decide(bot_oxono.legal_moves(bot_oxono.state_of(board))[0], 1)
    for index in (-1, len(tree), 10**30):
        with pytest.raises((IndexError, OverflowError)):
            tree.node(index)
        with pytest.raises((IndexError, OverflowError)):
            tree.reroot(index)
    untried = len(tree) - 1  # the last node made: a move not tried yet, after 50 iterations of a wide position
    assert tree.node(untried)[1] == 0
    with pytest.raises(ValueError, match="not searched yet"):
        tree.reroot(untried)
    full = fast.Tree(FULL, 1.0, True, 8, 3)
    with pytest.raises(ValueError, match="no legal move"):
        full.run(random.Random(1).random, 10, math.inf, True, time.perf_counter)


def test_a_long_search_stops_for_ctrl_c():
    import signal

    tree = tree_of(OxonoBoard())
    previous = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(KeyboardInterrupt):
            run(tree, 1, 1 << 62)  # far beyond 0.05 s
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_no_memory_is_leaked():
    board = midgame(6, seed=4)
    view = view_of(board)

    def searches() -> None:
        for seed in range(20):
            result = searcher(seed).search(view, iterations=200)
            root = result.tree
            assert root is not None
            for child in root.children:
                child.children, child.mean(), child.move
            with contextlib.suppress(ValueError):
                result.tree.tree.run(lambda: math.nan, 10, math.inf, True, time.perf_counter)  # type: ignore

    searches()  # warm up (caches, interned values)
    tracemalloc.start()
    try:
        searches()
        first = tracemalloc.get_traced_memory()[0]
        searches()
        searches()
        grown = tracemalloc.get_traced_memory()[0] - first
    finally:
        tracemalloc.stop()
    assert grown < 64_000, grown
