"""The C helpers of the Olix bot (``olixono/_olix_fast.c``) against their references: the engine (``olixono/olix.py``),
the slow reference (``tests/olix_reference.py``) and ``olixono/bot_olix.py``'s own view and functions.

The engine-backed :class:`OlixSearch` on the Python backend (``bot_olix.PYTHON``) and the module's functions are the
reference for :class:`FastOlixSearch` (``bot_olix.C``) at every position of many games, and a whole seeded search
must make the same move with the same statistics on either backend.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from engine_helpers import outcome_of

from olixono import backends, bot_olix
from olixono.bot_olix import PYTHON
from olixono.olix import BOARD, KINDS, MOVES, PLAYERS, OlixBoard

sys.path.insert(0, str(Path(__file__).resolve().parent))
import olix_reference as ref
from extensions import require_extension

fast = require_extension("olixono._olix_fast")

N = ref.N


assert bot_olix.C is not None  # built, as the extension is
C: bot_olix.Backend = bot_olix.C


# -- stone sets: scattered, dense, and planted formations ------------------------------------------------------------


def _on(rank: int, file: int) -> bool:
    return 0 <= rank < N and 0 <= file < N


def _shape(rng: random.Random) -> set[int]:
    """One formation at a random place, about as large as an automatic win: an ``O`` boundary (2 × 5, 3 × 4, 3 × 3
    with its centre, or larger), a long ``L``, a ``T`` or ``+``, a line of seven or eight (any direction)."""
    kind = rng.choice(["O", "O3", "L", "T", "+", "line"])
    cells: list[tuple[int, int]] = []
    r0, f0 = rng.randrange(N), rng.randrange(N)
    if kind in ("O", "O3"):
        h, w = (3, 3) if kind == "O3" else rng.choice(((2, 5), (5, 2), (3, 4), (4, 3), (3, 5), (4, 4), (2, 2), (2, 3)))
        cells = [(r0 + r, f0 + f) for r in range(h) for f in range(w) if r in (0, h - 1) or f in (0, w - 1)]
        if kind == "O3":
            cells.append((r0 + 1, f0 + 1))
    elif kind == "L":
        a, b = rng.randint(3, 8), rng.randint(3, 8)
        dr, df = rng.choice((1, -1)), rng.choice((1, -1))
        cells = [(r0, f0 + df * i) for i in range(a)] + [(r0 + dr * i, f0) for i in range(1, b)]
    elif kind in ("T", "+"):
        a, b = rng.randint(2, 4), rng.randint(2, 5)
        cells = [(r0, f0 + i) for i in range(-a, a + 1)] + [(r0 + i, f0) for i in range(1, b + 1)]
        if kind == "+":
            cells += [(r0 - i, f0) for i in range(1, rng.randint(1, 4) + 1)]
    else:
        dr, df = rng.choice(((0, 1), (1, 0), (1, 1), (1, -1)))
        cells = [(r0 + dr * i, f0 + df * i) for i in range(rng.choice((7, 8)))]
    return {r * N + f for r, f in cells if _on(r, f)}


def stone_sets(count: int, seed: int) -> list[set[int]]:
    """Stone sets of one player: scattered at densities up to dense, and with one to three planted formations, some
    with a stone taken out of them."""
    rng = random.Random(seed)
    sets = []
    for i in range(count):
        density = rng.choice((0.0, 0.1, 0.25, 0.45, 0.7, 0.9))
        cells = {s for s in range(ref.SQUARES) if rng.random() < density}
        if i % 4:
            for _ in range(rng.randint(1, 3)):
                shape = _shape(rng)
                cells |= shape
                if shape and rng.random() < 0.4:
                    cells.discard(rng.choice(sorted(shape)))
        sets.append(cells)
    return sets


def _bits_of(cells: set[int]) -> int:
    return sum(1 << s for s in cells)


def _engine_formations(cells: set[int]) -> dict[str, tuple[int, int]]:
    """The engine's best formations of first's stones ``cells``, added in the order a loaded position adds them."""
    board = OlixBoard()
    for rank in reversed(range(N)):
        for file in range(N):
            if rank * N + file in cells:
                board._add(0, rank * N + file)
    return {k: (f.value, f.squares) for k, f in board.formations("first").items()}


def test_best_values_are_the_reference_s_and_the_engine_s():
    for cells in stone_sets(160, 1):
        stones = _bits_of(cells)
        values = fast.best_values(stones)
        ref_cells = [0 if s in cells else None for s in range(ref.SQUARES)]
        expected = ref.best_values(ref_cells, 0)
        assert values == tuple(expected[k] for k in KINDS), sorted(cells)
        engine = _engine_formations(cells)
        assert values == tuple(engine[k][0] for k in KINDS)
        # the L's squares: the engine's choice, and a real L of that value
        squares = fast.l_squares(stones)
        assert squares == engine["L"][1]
        assert ref.is_formation(ref_cells, 0, "L", {s for s in range(ref.SQUARES) if squares >> s & 1}, values[1])


def test_planted_near_wins_are_measured_exactly():
    """Formations one stone short of an automatic win, and that stone: the values either side of it."""
    rng = random.Random(2)
    for _ in range(120):
        shape = _shape(rng)
        if len(shape) < 4:
            continue
        noise = {s for s in range(ref.SQUARES) if rng.random() < 0.15}
        gap = rng.choice(sorted(shape))
        for cells in ((shape | noise) - {gap}, shape | noise):
            ref_cells = [0 if s in cells else None for s in range(ref.SQUARES)]
            expected = ref.best_values(ref_cells, 0)
            assert fast.best_values(_bits_of(cells)) == tuple(expected[k] for k in KINDS), sorted(cells)


def test_the_bitboard_functions_are_the_reference_s():
    for i, cells in enumerate(stone_sets(120, 3)):
        stones = _bits_of(cells)
        empty = BOARD & ~stones
        assert fast.runs_through(stones, 7) == bot_olix.runs_through(stones, 7)
        assert fast.runs_through(stones, 1 + i % 11) == bot_olix.runs_through(stones, 1 + i % 11)
        for length in (3, 4, 5, 7, 8):
            assert fast.runs_at_least(stones, length) == bot_olix._runs_at_least(stones, length)
            assert fast.runs_at_least(stones, length, 2) == bot_olix._runs_at_least(stones, length, 2)
        assert fast.win_candidates(stones, empty) == bot_olix.win_candidates(stones, empty)
        other = _bits_of({s for s in range(ref.SQUARES) if s not in cells and random.Random(i).random() < 0.3})
        assert fast.window_score(stones, other) == bot_olix._window_score(stones, other)
        assert fast.window_score(other, stones) == bot_olix._window_score(other, stones)


# -- the fast view against the engine-backed one, at every position of many games -------------------------------------


def _same_view(board: OlixBoard, counts: dict[str, int]) -> None:
    """Every method of the two views alike on ``board``, and every stone's push result (each ending counted)."""
    slow, quick = bot_olix.OlixSearch(board, PYTHON), bot_olix.FastOlixSearch(board)
    where = board.position()
    assert quick.moves() == slow.moves(), where
    assert quick.sides() == slow.sides(), where
    assert quick.stones() == slow.stones(), where
    assert quick.best_ls() == slow.best_ls(), where
    if board.outcome() is not None:
        return
    assert quick.winning_squares() == slow.winning_squares(), where
    assert quick.winning_move() == slow.winning_move(), where
    assert quick.threat_squares() == slow.threat_squares(), where
    assert quick.evaluate() == slow.evaluate(), where
    assert quick.ordered_moves() == bot_olix.ordered_moves(slow) == bot_olix.ordered_moves(quick), where
    assert bot_olix.threat_moves(quick) == bot_olix.threat_moves(slow), where
    for square in slow.moves():
        result = slow.push(square)
        assert quick.push(square) == result, (where, square)
        if result is not None:
            reason = outcome_of(slow.board).reason
            counts[reason] = counts.get(reason, 0) + 1
        else:
            assert quick.sides() == slow.sides(), (where, square)
        slow.pop()
        quick.pop()
    assert quick.sides() == slow.sides(), where


def test_the_fast_view_is_the_engine_s_at_every_position_of_random_games():
    counts: dict[str, int] = {}
    positions = 0
    for style, seeds in (("uniform", range(3)), ("clustering", range(5)), ("lattice", range(6))):
        for seed in seeds:
            board = OlixBoard()
            for square in ref.random_squares(style, seed):
                if board.outcome() is not None:
                    break
                board.push(MOVES[square])
                _same_view(board, counts)
                positions += 1
                if positions % 7 == 0:  # the same position loaded from its text: the engine's L as it reports it then
                    _same_view(OlixBoard.from_position(board.position()), counts)
    assert positions > 500
    assert counts.get("formation", 0) > 50 and counts.get("settled", 0) > 5 and counts.get("stones", 0) > 5, counts


def test_the_fast_view_is_the_engine_s_in_greedy_games():
    counts: dict[str, int] = {}
    for seed in range(2):
        rng = random.Random(seed)
        board = OlixBoard()
        for square in rng.sample(range(ref.SQUARES), 6):  # a random opening
            board.push(MOVES[square])
        while board.outcome() is None:
            _same_view(board, counts)
            scored = bot_olix.greedy_scores(board, PYTHON)
            best = max(score for score, _ in scored)
            board.push(MOVES[min(square for score, square in scored if score == best)])
    assert counts.get("formation", 0) > 0


def test_a_finished_game_has_no_moves_and_takes_no_stone():
    board = OlixBoard()
    for square in ref.random_squares("lattice", 0):
        board.push(MOVES[square])
        if board.outcome() is not None:
            break
    assert board.outcome() is not None
    view = bot_olix.FastOlixSearch(board)
    assert view.moves() == [] == bot_olix.OlixSearch(board, PYTHON).moves()
    assert view.winning_squares() == [] and view.threat_squares() == [] and view.winning_move() is None
    with pytest.raises(ValueError, match="over"):
        view.push(_empty(board))


def _empty(board: OlixBoard) -> int:
    return next(s for s in range(ref.SQUARES) if not board.occupied >> s & 1)


# -- the search --------------------------------------------------------------------------------------------------------


def _midgames(count: int, seed: int) -> list[OlixBoard]:
    """Positions of clustering games after 8 to 40 plies, the game going on."""
    rng = random.Random(seed)
    boards: list[OlixBoard] = []
    while len(boards) < count:
        board = OlixBoard()
        for square in ref.random_squares("clustering", rng.randrange(10**6), rng.randrange(8, 41)):
            board.push(MOVES[square])
            if board.outcome() is not None:
                break
        if board.outcome() is None:
            boards.append(board)
    return boards


def test_a_seeded_search_is_the_same_on_either_view():
    for board in _midgames(5, 4):
        results = []
        for backend in (PYTHON, C):
            view, search = bot_olix.searcher(board, random.Random(9), backend)
            result = search.search(view, iterations=250)
            results.append((result.move, result.candidates, result.pv, result.iterations))
        assert isinstance(bot_olix.searcher(board, random.Random(0), C)[0], bot_olix.FastOlixSearch)
        assert results[0] == results[1], board.position()


def test_the_backend_is_chosen_once_the_c_helpers_where_built_unless_asked_for_python():
    assert bot_olix.BACKEND is backends.choose(PYTHON, C)
    assert backends.choose(PYTHON, C, {backends.PURE_PYTHON: "1"}) is PYTHON
    assert PYTHON.win_candidates is bot_olix.win_candidates and C.win_candidates is fast.win_candidates
    view, _ = bot_olix.searcher(OlixBoard(), random.Random(0), PYTHON)
    assert type(view) is bot_olix.OlixSearch and view.backend is PYTHON
    with pytest.raises(ValueError, match="C helpers"):
        bot_olix.FastOlixSearch(OlixBoard(), PYTHON)


# -- hostile inputs ----------------------------------------------------------------------------------------------------


def test_hostile_inputs_raise_clear_errors():
    position = fast.Position(0, 0, 0, 0, False)
    with pytest.raises(IndexError):
        position.pop()
    for bad in ("a1", 1.0, None, True, [3]):
        with pytest.raises(TypeError):
            position.push(bad)
    for bad in (-1, 121, 10**30):
        with pytest.raises(ValueError):
            position.push(bad)
    assert position.push(60) is None
    with pytest.raises(ValueError, match="taken"):
        position.push(60)
    position.pop()
    with pytest.raises(IndexError):
        position.pop()
    assert position.moves() == list(range(ref.SQUARES))
    for bad in ("1", 2.5, None, False):
        with pytest.raises(TypeError):
            fast.best_values(bad)
        with pytest.raises(TypeError):
            fast.Position(bad, 0, 0, 0, False)
    for bad in (-1, 1 << 121, 1 << 200, -(1 << 100)):
        with pytest.raises(ValueError):
            fast.best_values(bad)
        with pytest.raises(ValueError):
            fast.win_candidates(0, bad)
        with pytest.raises(ValueError):
            fast.Position(bad, 0, 0, 0, False)
    with pytest.raises(ValueError, match="overlap"):
        fast.Position(0b11, 0b10, 0, 0, False)
    with pytest.raises(ValueError):
        fast.Position(0b111, 0, 0, 0, False)  # first three stones ahead
    with pytest.raises(ValueError):
        fast.Position((1 << 51) - 1, (1 << 121) - (1 << 70), 0, 0, False)  # 51 stones
    with pytest.raises(ValueError):
        fast.Position(0b111, 0b111000, 0b1, 0, False)  # not an L of those stones
    ended = OlixBoard()  # a game that ends with all 100 stones placed
    for square in ref.random_squares("uniform", 0):
        ended.push(MOVES[square])
    outcome = ended.outcome()
    assert outcome is not None and outcome.reason == "stones"
    first, second = ended.stones(PLAYERS[0]), ended.stones(PLAYERS[1])
    full = fast.Position(first, second, fast.l_squares(first), fast.l_squares(second), False)
    assert full.moves() == []  # all 100 stones placed: over
    assert full.outcome() == (None if outcome.winner is None else PLAYERS.index(outcome.winner), "stones")
    with pytest.raises(ValueError, match="over"):
        full.push(120)
    for length in (0, 12, -3):
        with pytest.raises(ValueError):
            fast.runs_through(1, length)
        with pytest.raises(ValueError):
            fast.runs_at_least(1, length)
    with pytest.raises(ValueError):
        fast.runs_at_least(1, 3, 5)
    with pytest.raises(TypeError):
        fast.runs_through(1)
    with pytest.raises(TypeError):
        fast.window_score(1, 2, 3)
    with pytest.raises(TypeError):
        position.winning_squares(True, 2)


def test_a_full_game_pushed_and_popped_leaves_the_start():
    position = fast.Position(0, 0, 0, 0, False)
    board = OlixBoard()
    pushed = 0
    for square in ref.random_squares("uniform", 1):
        result = position.push(square)
        board.push(MOVES[square])
        pushed += 1
        if result is not None:
            outcome = outcome_of(board)
            assert position.outcome() == (
                None if outcome.winner is None else PLAYERS.index(outcome.winner),
                outcome.reason,
            )
            with pytest.raises(ValueError, match="over"):
                position.push(_empty(board))
            break
    for _ in range(pushed):
        position.pop()
    assert position.sides() == (0, 0, (0, 0, 0, 0), (0, 0, 0, 0)) and position.outcome() is None
    assert position.turn == 0


def _squares(*names: str) -> int:
    return sum(1 << MOVES.index(next(m for m in MOVES if m.text() == name)) for name in names)


def test_an_int_subclass_cannot_smuggle_squares_off_the_board():
    """The range check uses int's own shift: a subclass's ``__rshift__`` neither runs nor hides the high bits."""
    calls = []

    class Sly(int):
        def __rshift__(self, other: object) -> int:
            calls.append(other)
            return 0

    for value in (Sly((1 << 200) | 0b1111), Sly(1 << 121)):
        with pytest.raises(ValueError, match="off the board"):
            fast.best_values(value)
        with pytest.raises(ValueError, match="off the board"):
            fast.Position(value, 0, 0, 0, False)
    assert fast.best_values(Sly(0b1111)) == (0, 0, 4, 0)
    assert calls == []


def test_a_position_ends_as_its_stones_end_it_whatever_over_says():
    """The engine's loading rules: an automatic win of the player who moved last ends the game (won by that player,
    ``formation``), one held by the player to move cannot arise, a settled position is over; ``over`` alone (resigned
    or agreed) ends it without a winner to tell."""
    for text in ("11/11/11/11/11/11/11/X10/OOOOOOO4/O10/XXXXXXXX3 second",):
        board = OlixBoard.from_position(text)
        expected = board.outcome()
        assert expected is not None and expected.reason == "formation"
        first, second = board.stones(PLAYERS[0]), board.stones(PLAYERS[1])
        for over in (False, True):
            position = fast.Position(first, second, fast.l_squares(first), fast.l_squares(second), over)
            assert position.outcome() == (PLAYERS.index(expected.winner), "formation")
            assert position.moves() == [] and position.winning_squares() == [] and position.ordered_moves() == []
            with pytest.raises(ValueError, match="over"):
                position.push(_empty(board))
    # the player to move holding an automatic win: the engine refuses that position, and so does Position
    first, second = _squares("a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1"), _squares(*(f"{c}3" for c in "abcdefgh"))
    with pytest.raises(ValueError, match="automatic win"):
        fast.Position(first, second, 0, 0, False)
    # a settled position (the lattice game that settles first) is over without ``over``
    board = OlixBoard()
    for square in ref.random_squares("lattice", 0):
        board.push(MOVES[square])
        if board.outcome() is not None:
            break
    if board.outcome() is not None and outcome_of(board).reason == "settled":
        first, second = board.stones(PLAYERS[0]), board.stones(PLAYERS[1])
        position = fast.Position(first, second, fast.l_squares(first), fast.l_squares(second), False)
        winner = outcome_of(board).winner
        assert position.outcome() == (None if winner is None else PLAYERS.index(winner), "settled")
    # ``over`` with nothing in the stones to end the game: resigned or agreed
    assert fast.Position(1, 0, 0, 0, True).outcome() == (None, "ended")
    assert fast.Position(1, 0, 0, 0, False).outcome() is None


def test_the_l_given_must_be_an_l_of_that_value():
    """``l_first``/``l_second`` must be a real L of the player's best L value, not any stones of the right count."""
    first = _squares("a1", "b1", "c1", "a2", "a3", "e5", "f5")
    second = _squares(*(f"{c}10" for c in "abcdefg"))
    assert fast.best_values(first)[1] == 5
    real = fast.l_squares(first)
    assert real == _squares("a1", "b1", "c1", "a2", "a3")
    assert fast.Position(first, second, real, 0, False).best_ls()[0] == (5, real)
    for bogus in (
        _squares("a1", "b1", "c1", "e5", "f5"),
        _squares("a1", "b1", "c1", "a2", "e5"),
        _squares("b1", "c1", "a2", "a3", "e5"),
    ):
        with pytest.raises(ValueError, match="not a best L"):
            fast.Position(first, second, bogus, 0, False)
