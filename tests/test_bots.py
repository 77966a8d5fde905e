"""The bots: wins and blocks in one, budgets, reproducibility, legality over many games, and their fast paths."""

from __future__ import annotations

import importlib.util
import itertools
import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from engine_helpers import analysis_of, outcome_of
from hypothesis import given, settings
from hypothesis import strategies as st

from olixono import bot_olix, bot_oxono
from olixono.bots import LEVELS, make_bot
from olixono.common import GameOverError
from olixono.games import new_board
from olixono.olix import BOARD, OlixBoard
from olixono.oxono import OxonoBoard

sys.path.insert(0, str(Path(__file__).resolve().parent))
import olix_reference as ref

# Pink to move wins with Xd2d1 (a1-d1 all pink).
OXONO_WIN = "x1o1x1/6/6/6/6/XOX3 pink d3 c4"
# Black threatens Xd2d1 (a1-d1 all black): pink must stop it.
OXONO_BLOCK = "X1O1X1/6/6/6/6/xox3 pink d3 c4"
# First to move wins with h1 (an I of eight on rank 1).
OLIX_WIN = "O1O1O1O1O1O/11/11/11/11/11/11/11/11/O10/XXXXXXX4 first"
# Second to move must take h1, or first wins there.
OLIX_BLOCK = "O1O1O1O1O1O/11/11/11/11/11/10O/11/11/10X/XXXXXXX4 second"

FAST_MCTS: dict[str, Any] = {"iterations": 300}


def bot_at(level: str, seed: int = 1):
    return make_bot(level, seed=seed, **(FAST_MCTS if level == "mcts" else {}))


def opponent_can_win(board) -> bool:
    """Whether the player to move has a move that wins at once (by brute force)."""
    for move in board.legal_moves():
        board.push(move)
        outcome = board.outcome()
        board.pop()
        if outcome is not None and outcome.winner == board.turn:
            return True
    return False


def midgame(kind: str, plies: int, seed: int):
    """A position after about ``plies`` random moves, in progress, where the player to move cannot win at once."""
    rng = random.Random(seed)
    board = new_board(kind)
    while True:
        if board.outcome() is not None:
            board = new_board(kind)
        if len(board.move_stack) >= plies and not opponent_can_win(board):
            return board
        board.push(board.random_move(rng))


# -- tactics ------------------------------------------------------------------


@pytest.mark.parametrize("level", ["greedy", "mcts"])
@pytest.mark.parametrize("kind, text", [("oxono", OXONO_WIN), ("olix", OLIX_WIN)])
def test_bots_take_a_win_in_one(level, kind, text):
    board = new_board(kind).from_position(text)
    mover = board.turn
    bot = bot_at(level)
    board.play(bot.choose(board))
    assert board.outcome() is not None and outcome_of(board).winner == mover


@pytest.mark.parametrize("level", ["greedy", "mcts"])
@pytest.mark.parametrize("kind, text", [("oxono", OXONO_BLOCK), ("olix", OLIX_BLOCK)])
def test_bots_block_a_loss_in_one(level, kind, text):
    board = new_board(kind).from_position(text)
    assert not opponent_can_win(board)  # no win of our own to take instead
    for seed in range(3):
        bot = bot_at(level, seed)
        move = bot.choose(board)
        board.play(move)
        assert board.outcome() is None
        assert not opponent_can_win(board), f"{level} played {move.text()} and left a win in one"
        board.pop()


def test_the_random_bot_finds_no_block_on_purpose():
    """The block test can fail: most Oxono moves here lose at once."""
    board = OxonoBoard.from_position(OXONO_BLOCK)
    losing = 0
    for move in board.legal_moves():
        board.push(move)
        losing += opponent_can_win(board)
        board.pop()
    assert losing > len(board.legal_moves()) // 2


def test_mcts_proves_a_win_and_says_so():
    board = OxonoBoard.from_position(OXONO_WIN)
    bot = make_bot("mcts", seed=0)
    assert bot.choose(board).text() == "Xd2d1"
    assert analysis_of(bot).candidates[0].proven == "won"


# -- budgets, reproducibility, purity -------------------------------------------


@pytest.mark.parametrize("kind, plies", [("oxono", 6), ("olix", 20)])
def test_time_budget_is_honoured_within_ten_percent(kind, plies, monkeypatch):
    """On the search's own clock (a fake one that ticks 2 ms each time it is read, so the machine's load cannot
    make the test fail): the search stops before an iteration that would end past its budget."""
    import olixono.bots
    import olixono.mcts

    board = midgame(kind, plies, seed=3)
    for seconds in (0.5, 1.0):
        clock = SimpleNamespace(perf_counter=itertools.count(0.0, 0.002).__next__)
        for module in (olixono.bots, olixono.mcts):
            monkeypatch.setattr(module, "time", clock)
        bot = make_bot("mcts", seed=1, seconds=seconds)
        bot.choose(board)
        elapsed = analysis_of(bot).seconds
        assert seconds * 0.9 <= elapsed <= seconds * 1.1, (seconds, elapsed)
        assert analysis_of(bot).iterations > 0


@pytest.mark.parametrize("kind, plies", [("oxono", 6), ("olix", 20)])
def test_iteration_budget_is_exact_and_reproducible(kind, plies):
    board = midgame(kind, plies, seed=4)
    before = board.position()
    runs = []
    for _ in range(2):
        bot = make_bot("mcts", seed=9, iterations=400)
        move = bot.choose(board)
        runs.append((move, analysis_of(bot).candidates, analysis_of(bot).pv))
        assert analysis_of(bot).iterations <= 400
        assert sum(c.visits for c in analysis_of(bot).candidates) == analysis_of(bot).iterations
    assert runs[0] == runs[1]
    assert board.position() == before


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("kind", ["oxono", "olix"])
def test_same_seed_same_game(level, kind):
    def game(seed):
        board = new_board(kind)
        bots = [bot_at(level, seed), make_bot("random", seed=seed + 100)]
        for i in range(12):
            if board.outcome() is not None:
                break
            board.play(bots[i % 2].choose(board))
        return [m.text() for m in board.move_stack]

    assert game(5) == game(5)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("kind, plies", [("oxono", 8), ("olix", 24)])
def test_choosing_leaves_the_board_alone(level, kind, plies):
    board = midgame(kind, plies, seed=6)
    before = (board.position(), list(board.move_stack), board.outcome())
    bot = bot_at(level)
    move = bot.choose(board)
    assert (board.position(), list(board.move_stack), board.outcome()) == before
    assert board.is_legal(move)
    assert bot.analysis is not None and bot.analysis.move == move


def test_a_finished_game_has_no_move_to_choose():
    board = OxonoBoard.from_position("2oOoX/1OOx2/1OXXxo/1OoOoX/1xxxOo/2O1o1 pink e5 f1")
    for level in LEVELS:
        with pytest.raises(GameOverError):
            bot_at(level).choose(board)


@pytest.mark.parametrize(
    "level, options, message",
    [
        ("genius", {}, "unknown bot level"),
        ("greedy", {"iterations": 5}, "takes no budget"),
        ("mcts", {"iterations": 0}, "positive"),
        ("mcts", {"seconds": -1.0}, "positive"),
    ],
)
def test_bad_bot_requests_are_refused(level, options, message):
    with pytest.raises(ValueError, match=message):
        make_bot(level, **options)


def test_analysis_text_lists_the_search():
    board = OxonoBoard()
    bot = make_bot("mcts", seed=2, iterations=500)
    move = bot.choose(board)
    lines = analysis_of(bot).text().splitlines()
    assert lines[0].startswith(f"mcts {move.text()} iterations 500 seconds ")
    assert lines[1].split()[:2] == ["pv", move.text()]
    first = lines[2].split()
    assert first[0] == move.text() and int(first[1]) == analysis_of(bot).candidates[0].visits


# -- whole games ----------------------------------------------------------------


@pytest.mark.parametrize("kind, games", [("oxono", 30), ("olix", 9)])
def test_many_games_without_an_illegal_move(kind, games):
    """Every pairing of levels plays to the end through the validated path (``play`` raises on an illegal move)."""
    for g in range(games):
        pairing = [LEVELS[g % 3], LEVELS[(g + 1 + g // 3) % 3]]
        bots = [
            make_bot(level, seed=g * 10 + i, iterations=60 if level == "mcts" else None)
            for i, level in enumerate(pairing)
        ]
        board = new_board(kind)
        for ply in range(400):
            if board.outcome() is not None:
                break
            board.play(bots[ply % 2].choose(board))
        assert board.outcome() is not None


# -- the fast paths against the engine ---------------------------------------------


def random_positions(kind: str, count: int, seed: int):
    rng = random.Random(seed)
    while count:
        board = new_board(kind)
        while board.outcome() is None and count:
            yield board
            count -= 1
            board.push(board.random_move(rng))


def test_oxono_search_moves_and_wins_in_one_agree_with_the_engine():
    for board in random_positions("oxono", 800, seed=7):
        state = bot_oxono.state_of(board)
        moves = bot_oxono.legal_moves(state)
        assert sorted(map(bot_oxono.board_move, moves), key=str) == sorted(board.legal_moves(), key=str)
        win = bot_oxono.winning_move(state)
        assert (win is not None) == opponent_can_win(board), board.position()
        if win is not None:
            board.push(bot_oxono.board_move(win))
            assert board.outcome().winner == board.PLAYERS[1 - board.turn_index]
            board.pop()
        move = moves[len(moves) // 2]
        after, result = bot_oxono.play(state, move)
        board.push(bot_oxono.board_move(move))
        outcome = board.outcome()
        assert result == (None if outcome is None else (0 if outcome.winner is None else 1))
        if outcome is None:
            assert after == bot_oxono.state_of(board)
        board.pop()


def test_olix_wins_and_threats_in_one_agree_with_the_engine():
    for board in random_positions("olix", 300, seed=8):
        if len(board.move_stack) < 14:
            continue
        view = bot_olix.OlixSearch(board)
        wins = set()
        for move in board.legal_moves():
            board.push(move)
            outcome = board.outcome()
            board.pop()
            if outcome is not None and outcome.winner == board.turn and outcome.reason == "formation":
                wins.add(move.square)
        assert wins <= set(view.winning_squares())
        # The opponent's threats: what they could win with if it were their turn.
        mover_stone = next(iter(view.moves()))
        board.push(board.parse_move(bot_olix.board_move(mover_stone).text()))
        if board.outcome() is None:
            theirs = {m.square for m in board.legal_moves() if _formation_win(board, m)}
            board.pop()
            assert theirs - {mover_stone} <= set(view.threat_squares())
        else:
            board.pop()
        assert board.position() == view.board.position()


TOPS = {"O": 9, "L": 8, "I": 7, "X": 7}  # a value above its track's top wins at once (docs/olix.md, rule 10)


def _planted(rng: random.Random) -> list[int]:
    """One player's stones: scattered ones, and a formation one stone short of an automatic win (an ``O`` of 10 on
    a 2 × 5 or 3 × 4 boundary or larger, an ``L`` of 9 or more, a line of eight), or two, its gap anywhere."""
    n = ref.N
    cells: set[int] = {s for s in range(ref.SQUARES) if rng.random() < rng.choice((0.1, 0.2, 0.3))}
    for _ in range(rng.choice((1, 2))):
        kind = rng.choice("OLI")
        if kind == "O":
            h, w = rng.choice(((2, 5), (5, 2), (3, 4), (4, 3), (3, 5), (4, 4)))
            r0, f0 = rng.randrange(n - h + 1), rng.randrange(n - w + 1)
            shape = [
                ref.square(r0 + r, f0 + f) for r in range(h) for f in range(w) if r in (0, h - 1) or f in (0, w - 1)
            ]
        elif kind == "L":
            a, b = rng.randint(3, 7), rng.randint(3, 7)
            a = max(a, 10 - b)
            r0, f0 = rng.randrange(n), rng.randrange(n)
            dr, df = rng.choice((1, -1)), rng.choice((1, -1))
            shape = [ref.square(r0, f0 + df * i) for i in range(a)] + [ref.square(r0 + dr * i, f0) for i in range(1, b)]
            if not all(0 <= f0 + df * i < n for i in range(a)) or not all(0 <= r0 + dr * i < n for i in range(b)):
                shape = []
        else:
            dr, df = rng.choice(((0, 1), (1, 0), (1, 1), (1, -1)))
            r0, f0 = rng.randrange(n), rng.randrange(n)
            shape = [
                ref.square(r0 + dr * i, f0 + df * i) for i in range(8) if 0 <= r0 + dr * i < n and 0 <= f0 + df * i < n
            ]
        cells |= set(shape)
        if shape:
            cells.discard(rng.choice(shape))
    return sorted(cells)


def test_olix_win_candidates_hold_every_winning_square():
    """``win_candidates`` narrows the squares the search tries for a win in one: never a real one left out, over
    stones of one player with formations planted one stone short of a win (the slow reference decides)."""
    rng = random.Random(22)
    found = tested = 0
    while tested < 60:
        cells: list[int | None] = [None] * ref.SQUARES
        for square in _planted(rng):
            cells[square] = 0
        values = ref.best_values(cells, 0)
        if any(values[k] > TOPS[k] for k in TOPS):
            continue  # won already: no game goes on from here
        tested += 1
        stones = sum(1 << q for q in range(ref.SQUARES) if cells[q] == 0)
        empty = ~stones & BOARD
        candidates = bot_olix.win_candidates(stones, empty)
        for square in range(ref.SQUARES):
            if cells[square] is not None:
                continue
            cells[square] = 0
            after = ref.best_values(cells, 0)
            cells[square] = None
            if any(after[k] > TOPS[k] for k in TOPS):
                found += 1
                assert candidates >> square & 1, (square, after, sorted(q for q in range(ref.SQUARES) if cells[q] == 0))
    assert found >= 40  # the planted formations do give wins to find


@pytest.mark.parametrize(
    "shape, gap",
    [
        ([(r, f) for r in range(3, 6) for f in range(3, 7) if r in (3, 5) or f in (3, 6)], (4, 3)),  # O: a short side
        ([(r, f) for r in range(3, 5) for f in range(2, 7)], (3, 2)),  # O of 2 x 5: a corner
        ([(2, f) for f in range(1, 8)] + [(3, 1), (4, 1)], (4, 1)),  # L of 7 + 3: the short arm's end
        ([(2, f) for f in range(1, 6)] + [(r, 1) for r in range(3, 7)], (2, 3)),  # L of 5 + 5: the middle of an arm
    ],
)
def test_olix_win_candidates_hold_the_hard_cases(shape, gap):
    """The squares the narrowing reasons about (``win_candidates``): the stone on a rectangle's short side, or on an
    ``L``'s short arm, where the long side stands already."""
    cells: list[int | None] = [None] * ref.SQUARES
    for r, f in shape:
        cells[ref.square(r, f)] = 0
    assert any(value > TOPS[k] for k, value in ref.best_values(cells, 0).items())  # the gap wins...
    cells[ref.square(*gap)] = None
    assert not any(value > TOPS[k] for k, value in ref.best_values(cells, 0).items())  # ... and nothing else has
    stones = sum(1 << ref.square(r, f) for r, f in shape if (r, f) != gap)
    assert bot_olix.win_candidates(stones, BOARD & ~stones) >> ref.square(*gap) & 1


def _formation_win(board: OlixBoard, move) -> bool:
    mover = board.turn
    board.push(move)
    outcome = board.outcome()
    board.pop()
    return outcome is not None and outcome.winner == mover and outcome.reason == "formation"


# -- the strength benchmark ---------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def test_strength_benchmark_reports_tables_and_figures():
    proc = subprocess.run(
        [
            sys.executable,
            "bench/strength.py",
            "--games",
            "2",
            "--game",
            "oxono",
            "--pairs",
            "greedy-random",
            "--iterations",
            "100",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "greedy vs random" in proc.stdout and "95% interval" in proc.stdout
    figures = dict(
        line.split(": ", 1) for line in proc.stdout.splitlines() if ": " in line and "_" in line.split(":")[0]
    )
    wins, draws, losses = map(int, figures["oxono_greedy_vs_random_wdl"].split("-"))
    assert wins + draws + losses == 2
    assert float(figures["oxono_mcts_iterations_per_s"]) > 0


def test_strength_benchmark_plays_the_mcts_of_another_commit():
    """``old`` is the baseline commit's mcts, driven through its text engine from a temporary export."""
    if subprocess.run(["git", "cat-file", "-e", "40e475b^{commit}"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("the baseline commit is not in this clone")
    proc = subprocess.run(
        [
            sys.executable,
            "bench/strength.py",
            "--games",
            "2",
            "--game",
            "oxono",
            "--pairs",
            "mcts-oldx2",
            "--iterations",
            "40",
            "--no-speed",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "old = mcts of 40e475b" in proc.stdout
    figures = dict(
        line.split(": ", 1) for line in proc.stdout.splitlines() if ": " in line and "_" in line.split(":")[0]
    )
    wins, draws, losses = map(int, figures["oxono_mcts_vs_oldx2_wdl"].split("-"))
    assert wins + draws + losses == 2
    assert float(figures["oxono_mcts_vs_oldx2_search_iterations_per_s"]) > 0


def _strength():
    """bench/strength.py, loaded as a module."""
    spec = importlib.util.spec_from_file_location("strength", ROOT / "bench" / "strength.py")
    assert spec is not None and spec.loader is not None
    strength = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = strength  # dataclasses look their module up
    try:
        spec.loader.exec_module(strength)
    finally:
        del sys.modules[spec.name]
    return strength


def test_strength_openings_are_paired_and_games_distinct():
    """The strength bench opens each two games alike (one from either seat) and the pairs differently: without it
    two searches that draw nothing at random (Olix's) replay one game."""
    strength = _strength()
    tally = strength.run_pairing("olix", "mcts", "mctsx2", 4, strength.Budget(20), lambda text: None, None, 4)
    games = sorted(tally.distinct)
    assert tally.games == 4 and len(games) == 4
    openings = {game[:4] for game in games}
    assert len(openings) == 2  # games 0 and 1 share one, 2 and 3 another
    plain = strength.run_pairing("olix", "mcts", "mctsx2", 4, strength.Budget(20), lambda text: None, None, 0)
    assert len(plain.distinct) == 2  # the old way: one game from each seat, twice


def test_wilson_interval():
    strength = _strength()
    low, high = strength.Tally(wins=95, losses=5).interval()
    assert round(low, 3) == 0.888 and round(high, 3) == 0.978  # Wilson, n = 100, p = 0.95
    assert strength.Tally(wins=10).interval()[1] == 1.0


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["oxono", "olix"]), seed=st.integers(0, 10**6), plies=st.integers(0, 60))
def test_every_level_proposes_a_legal_move_anywhere(kind, seed, plies):
    rng = random.Random(seed)
    board = new_board(kind)
    for _ in range(plies):
        board.push(board.random_move(rng))
        if board.outcome() is not None:
            board.pop()
            break
    for level in LEVELS:
        bot = make_bot(level, seed=seed, iterations=30 if level == "mcts" else None)
        move = bot.choose(board)
        assert board.why_illegal(move) is None, (level, board.position(), move)


def test_olix_l_extensions_are_the_far_ends_of_both_arms():
    board = OlixBoard.from_position("11/11/11/11/11/2X7O/2X7O/2X7O/2XXXX4O/10O/10O second")
    shape = board.formations("first")["L"]
    assert shape.value == 7
    ends = bot_olix.l_extensions(shape.squares)
    assert sorted(board.parse_move(s).square for s in ["g3", "c7"]) == [s for s in range(121) if ends >> s & 1]


def leading_olix_position(leader: str, seed: int = 5):
    """An Olix game in progress where ending now would make ``leader`` win on the markers."""
    rng = random.Random(seed)
    for _ in range(200):
        board = OlixBoard()
        for _ in range(rng.randrange(10, 40)):
            if board.outcome() is not None:
                break
            board.push(rng.choice(board.legal_moves()))
        if board.outcome() is None and board.copy().end().winner == leader:
            return board
    raise AssertionError("no such position in 200 games")


@pytest.mark.parametrize("level", ["random", "greedy", "mcts"])
def test_a_bot_never_agrees_to_an_end_that_loses_and_a_searching_bot_weighs_playing_on(level):
    from olixono.bots import ending_value

    board = leading_olix_position("first")
    bot = make_bot(level, seed=1, iterations=300 if level == "mcts" else None)
    assert ending_value(board, "second") == -1 and ending_value(board, "first") == 1
    assert bot.answer_end(board, "second") is False  # a player who leads cannot end and win against it
    assert bot.answer_end(board, "first") is True  # nothing beats a win now
    oxono = new_board("oxono")
    assert ending_value(oxono, "pink") == 0  # an Oxono end by agreement is a draw
    if level != "mcts":
        assert bot.answer_end(oxono, "black") is False  # no search: it plays on rather than take a draw


def test_against_a_bot_end_asks_it_and_play_goes_on_when_it_declines():
    from client.frontends.local_plain import play_local

    typed = iter(["e5", "end", "quit"])
    out: list[str] = []
    outcome = play_local("olix", vs="greedy", seed=2, read=lambda prompt: next(typed), write=out.append)
    assert outcome is None  # the person quit: the game was not ended
    assert any("greedy declines to end the game: play on." in line for line in out)
