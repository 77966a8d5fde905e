"""The C helpers of the Oxono bot (``olixono/_oxono_fast.c``) against their reference, ``olixono/bot_oxono.py``.

Every function must give the same result from both, over the positions of many random games, and draw the same
random numbers; a whole seeded search must make the same move with the same statistics on either backend
(``bot_oxono.C``, ``bot_oxono.PYTHON``).
"""

from __future__ import annotations

import math
import random

import pytest
from extensions import require_extension

from olixono import backends, bot_oxono
from olixono.bot_oxono import PYTHON
from olixono.mcts import Mcts
from olixono.oxono import OxonoBoard

fast = require_extension("olixono._oxono_fast")


assert bot_oxono.C is not None  # built, as the extension is
C: bot_oxono.Backend = bot_oxono.C


def positions(games: int, seed: int) -> list[bot_oxono.State]:
    """Every position of ``games`` random games (enclosed and relocated totems, wins and full boards come up)."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        board = OxonoBoard()
        while board.outcome() is None:
            found.append(bot_oxono.state_of(board))
            board.push(board.random_move(rng))
    return found


def test_every_helper_gives_what_the_reference_gives():
    for state in positions(200, 1):
        assert fast.legal_moves(state) == bot_oxono.legal_moves(state)
        assert fast.winning_move(state) == bot_oxono.winning_move(state)
        assert fast.threatens(state) == bot_oxono._threatens(state)
        assert fast.evaluate(state) == bot_oxono.evaluate(state)
        assert fast.completions(state[0] | state[2]) == bot_oxono.completions(state[0] | state[2])
        for move in bot_oxono.legal_moves(state)[::5]:
            assert fast.play(state, move) == bot_oxono.play(state, move)


def test_random_moves_and_playouts_draw_the_same_numbers():
    for i, state in enumerate(positions(60, 2)):
        if bot_oxono.winning_move(state) is not None:
            continue
        ours, theirs = random.Random(i), random.Random(i)
        assert fast.random_move(state, ours.random) == bot_oxono.random_move(state, theirs.random)
        for plies, tries in ((8, 3), (40, 1)):
            assert fast.playout(state, ours.random, plies, tries) == bot_oxono.playout(
                state, theirs.random, plies, tries
            )
        assert ours.random() == theirs.random()  # as many numbers drawn


def test_forced_wins_and_the_solver_agree():
    states = positions(120, 3)
    for state in states[::5]:
        assert fast.forced_win(state) == bot_oxono.forced_win(state)
        assert fast.forced_win(state, 1) == bot_oxono.forced_win(state, 1)
    solved = 0
    for state in states:
        if bot_oxono.pawns_left(state) <= 11 and bot_oxono.winning_move(state) is None:
            table = C.new_table()
            assert isinstance(table, fast.Table)
            assert C.best_move(state, table, 50_000, math.inf) == PYTHON.best_move(state, {}, 50_000, math.inf)
            assert C.solve(state, C.new_table(), 300, math.inf) == PYTHON.solve(state, {}, 300, math.inf)  # often None
            solved += 1
    assert solved > 20


def test_a_seeded_search_is_the_same_with_the_c_helpers_or_without():
    rng = random.Random(4)
    for _ in range(6):
        board = OxonoBoard()
        for _ in range(rng.randrange(0, 12)):
            board.push(board.random_move(rng))
        if board.outcome() is not None:
            continue
        results = []
        for backend in (C, PYTHON):  # the search as the C helpers make it, on either backend
            search = Mcts(
                random.Random(9),
                solver=bot_oxono.OxonoSearch.solve,
                check=bot_oxono.CHECKS,
                new_table=backend.new_table,
                **bot_oxono.FAST_SEARCH,
            )
            results.append(search.search(bot_oxono.OxonoSearch(board, backend), iterations=400))
        ours, theirs = results
        assert ours.move == theirs.move and ours.candidates == theirs.candidates and ours.pv == theirs.pv


def test_the_solver_stops_at_its_deadline():
    """Both solvers (the reference checked its deadline never: ``budget & 1023 == 0`` was ``budget & False``)."""
    import time

    state = bot_oxono.state_of(OxonoBoard())  # the whole game from the start: far beyond a few milliseconds
    for backend in (C, PYTHON):
        start = time.perf_counter()
        assert backend.solve(state, backend.new_table(), 1 << 62, start + 0.05) is None
        assert time.perf_counter() - start < 5  # (a bound for a loaded machine; it stops in about 0.05 s)


@pytest.mark.parametrize(
    "bad",
    [
        (),
        (1, 2, 3),
        (*range(9), 0),
        ("a",) * 9,
        (1 << 40,) + (0,) * 8,
        (0, 0, 0, 36, 0, 8, 8, 8, 8),
        (-1,) + (0,) * 8,
        [0] * 9,
        # states no game reaches: a square of both players', more pawns than the game has,
        # an X on no pawn, a pawn under a totem, both totems on one square, counts off
        (1, 1, 0, 2, 3, 8, 8, 7, 8),
        ((1 << 33) - 1, 0, 0, 34, 35, 0, 0, 0, 0),
        (0, 0, 1, 2, 3, 8, 8, 8, 8),
        (1 << 2, 0, 0, 2, 3, 8, 8, 7, 8),
        (0, 0, 0, 2, 2, 8, 8, 8, 8),
        (0, 0, 0, 2, 3, 9, 7, 8, 8),
        (0, 0, 0, 2, 3, 8, 8, 8, 7),
    ],
)
def test_bad_states_are_refused_with_an_error_not_a_crash(bad):
    with pytest.raises((TypeError, ValueError, OverflowError)):
        fast.legal_moves(bad)
    with pytest.raises((TypeError, ValueError, OverflowError)):
        fast.play(bad, (0, 0, 0))
    state = bot_oxono.state_of(OxonoBoard())
    with pytest.raises((TypeError, ValueError, OverflowError)):
        fast.play(state, (2, 0, 0))
    with pytest.raises(TypeError):
        fast.solve(state, {}, 10)  # the C solver takes its own table only
    with pytest.raises(ZeroDivisionError):
        fast.playout(state, lambda: 1 / 0, 8, 3)  # the caller's random number generator failing is its error


# A full board: every pawn placed, nobody's line (a draw): no search may be asked from it.
FULL = (64296062473, 4412928496, 62717758384, 1, 23, 0, 0, 0, 0)
ONE_SIDE_SHORT = (1, 0, 0, 2, 3, 8, 8, 8, 7)  # 32 pawns in all, but 17 and 15 a side: refused too


@pytest.mark.parametrize("random_number", [1.0, -0.5, -1.0, float("nan"), 1e300])
def test_a_random_number_outside_0_1_is_an_error_not_a_square_off_the_board(random_number):
    state = bot_oxono.state_of(OxonoBoard())
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        fast.random_move(state, lambda: random_number)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        fast.playout(state, lambda: random_number, 8, 3)


def test_what_no_search_asks_is_refused_or_bounded():
    """Inputs a hostile caller could give: each is refused or bounded, never a crash, a hang, a read of memory never
    written, or an answer the reference does not give."""
    state = bot_oxono.state_of(OxonoBoard())
    assert bot_oxono.pawns_left(FULL) == 0
    with pytest.raises(ValueError, match="no pawn left"):
        fast.random_move(FULL, random.Random(1).random)
    with pytest.raises(ValueError, match="no pawn left"):
        fast.playout(FULL, random.Random(1).random, 8, 1)
    for solver in (fast.solve, fast.best_move):
        with pytest.raises(ValueError, match="board is full"):
            solver(FULL, fast.Table(), 100)
    with pytest.raises(ValueError):
        fast.legal_moves(ONE_SIDE_SHORT)
    with pytest.raises(ValueError, match="tries"):
        fast.playout(state, random.Random(1).random, 10**18, 0)  # looped for ever on unwritten memory
    with pytest.raises(ValueError, match="tries"):
        fast.playout(state, random.Random(1).random, -1, 3)
    assert fast.solve(state, fast.Table(), -(2**63)) is None  # no nodes (the count wrapped round: no end)
    assert fast.solve(state, fast.Table(), 10**6, -math.inf) is None  # a deadline long past (it was never looked at)
    with pytest.raises(ValueError, match="off the board"):
        fast.completions(1 << 40)
    deep = next(s for s in positions(60, 5) if fast.forced_win(s, 3) is not None)
    assert fast.forced_win(deep, 2**32 + 1) == fast.forced_win(deep, 32)  # not cut to 1


def test_a_long_solve_stops_for_ctrl_c():
    """The solver looks for signals at its checkpoints, as the Python reference is interrupted between bytecodes."""
    import signal

    state = bot_oxono.state_of(OxonoBoard())
    previous = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(KeyboardInterrupt):
            fast.solve(state, fast.Table(), 1 << 62)  # the whole game: far beyond 0.05 s
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_backend_is_chosen_once_the_c_helpers_where_built_unless_asked_for_python():
    assert bot_oxono.BACKEND is backends.choose(PYTHON, C)
    assert backends.choose(PYTHON, C, {}) is C
    assert backends.choose(PYTHON, C, {backends.PURE_PYTHON: "1"}) is PYTHON
    assert backends.choose(PYTHON, C, {backends.PURE_PYTHON: ""}) is C
    assert backends.choose(PYTHON, None, {}) is PYTHON  # not built
    assert PYTHON.play is bot_oxono.play and C.play is fast.play  # the functions a reader sees, or the C ones
    view, search = bot_oxono.searcher(OxonoBoard(), random.Random(1), PYTHON)
    assert view.backend is PYTHON and type(search) is Mcts and isinstance(search.table, dict)
    view, search = bot_oxono.searcher(OxonoBoard(), random.Random(1), C)
    assert view.backend is C and isinstance(search, bot_oxono.FastMcts) and isinstance(search.table, fast.Table)
    with pytest.raises(ValueError, match="C helpers"):
        search.search(bot_oxono.OxonoSearch(OxonoBoard(), PYTHON), iterations=10)
