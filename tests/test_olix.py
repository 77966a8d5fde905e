"""The Olix engine's surface: texts, errors, undo, copies, perft, generic invariants and golden playthroughs.

Golden files ``tests/golden/olix_playthrough_*.txt`` hold a seeded game's
move, position, formations, scoreboard and outcome per ply; they are diffed
line by line and rewritten only by ``scripts/regenerate_golden.py``.
"""

from __future__ import annotations

import random
from pathlib import Path

import olix_reference as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olixono.common import GameOverError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from olixono.olix import MOVES, OlixBoard, OlixMove

START = "11/11/11/11/11/11/11/11/11/11/11 first"
GOLDEN = Path(__file__).parent / "golden"


def check_invariants(board: OlixBoard) -> None:
    text = board.position()
    loaded = OlixBoard.from_position(text)
    assert loaded.position() == text
    assert loaded.formations_text() == board.formations_text()
    assert loaded.scoreboard_text() == board.scoreboard_text()
    outcome = board.outcome()
    if outcome is None or outcome.reason not in ("agreed", "resigned"):
        assert loaded.outcome() == board.outcome()
    assert board.copy() == board
    moves = board.legal_moves()
    assert (board.outcome() is None) == bool(moves)
    assert board.count_moves() == len(moves)
    for move in moves[:3]:
        assert board.parse_move(move.text()) == move


@pytest.mark.parametrize("seed", range(8))
def test_random_playouts_keep_the_invariants(seed):
    rng = random.Random(seed)
    board = OlixBoard()
    for _ in range(130):
        check_invariants(board)
        moves = board.legal_moves()
        if not moves:
            break
        before = board.position()
        move = rng.choice(moves)
        board.play(move)
        board.pop()
        assert board.position() == before
        board.play(move.text().upper())
    assert board.outcome() is not None and board.legal_moves() == []


def test_start_position():
    board = OlixBoard()
    assert board.position() == START
    assert OlixBoard.from_position(START) == board
    assert board.formations_text() == "first O=0 L=0 I=0 X=0 second O=0 L=0 I=0 X=0"
    assert board.scoreboard_text() == "O 4:- 6:- 8:- 9:-\nL 5:- 6:- 7:- 8:-\nI 4:- 5:- 6:- 7:-\nX 4:- 5:- 6:- 7:-"
    assert board.turn == "first" and board.outcome() is None
    assert board.KIND == "olix" and board.PLAYERS == ("first", "second")


def test_show_draws_the_board():
    board = OlixBoard()
    board.play("a1")
    board.play("k11")
    lines = board.show().splitlines()
    assert lines[0].startswith("11 ") and lines[0].endswith("o")
    assert lines[10] == " 1 # . . . . . . . . . ."  # no X or O: those letters name formations
    assert lines[11].split() == list("abcdefghijk")
    assert lines[12] == "first (#) to move; # first, o second"
    board.end()
    assert board.show().splitlines()[-1].startswith("game over: draw on markers after the game was ended by agreement")


@pytest.mark.parametrize(
    "text",
    [
        "",
        START + " ",
        " " + START,
        START.replace("first", "First"),
        "11/11 first",
        "11/11/11/11/11/11/11/11/11/11/56 first",
        "11/11/11/11/11/11/11/11/11/11/011 first",
        "11/11/11/11/11/11/11/11/11/11/12 first",
        "11/11/11/11/11/11/11/11/11/11/X9X first",
        "11/11/11/11/11/11/11/11/11/11/X10 first",
        "11/11/11/11/11/11/11/11/11/11/5x5 second",
        "11/11/11/11/11/11/11/11/11/11/5O5 first",
        "11/11/11/11/11/11/11/11/11/11/5X5 first",
        "11/11/11/11/11/11/11/11/11/11/1X4X4 second",
        "11/11/11/11/11/11/11/11/11/11/11",
        "11/11/11/11/11/11/11/11/11/11/11  first",
        "11/11/11/11/11/11/11/11/11/11/11/11 first",
    ],
)
def test_bad_position_texts_are_refused_naming_the_input(text):
    with pytest.raises(InvalidPositionError) as info:
        OlixBoard.from_position(text)
    assert repr(text) in str(info.value)


def test_play_validates_and_push_does_not_check():
    board = OlixBoard()
    with pytest.raises(InvalidMoveError, match="'z9'"):
        board.play("z9")
    board.play("e5")
    with pytest.raises(IllegalMoveError) as info:
        board.play("E5")
    assert "'e5'" in str(info.value) and board.position() in str(info.value)
    assert board.play(OlixMove.from_text("f5")) == OlixMove(49)
    assert [m.text() for m in board.move_stack] == ["e5", "f5"]


def test_perft_counts_move_sequences():
    board = OlixBoard()
    assert [board.perft(d) for d in range(3)] == [1, 121, 121 * 120]
    board.play("a1")
    assert board.perft(2) == 120 * 119
    assert board.resign() and board.perft(1) == 0 and board.perft(0) == 1


def test_copy_is_independent_and_equal():
    board = OlixBoard()
    board.play("c3")
    twin = board.copy()
    assert twin == board
    twin.play("d4")
    assert twin != board and len(board.move_stack) == 1


def test_resign_and_end_refuse_a_finished_game():
    board = OlixBoard()
    board.end()
    with pytest.raises(GameOverError):
        board.end()
    with pytest.raises(IllegalMoveError):
        board.play("a1")


def playthrough(seed: int, style: str) -> list[str]:
    board = OlixBoard()
    lines = [f"# olix playthrough: {style} game {seed}", f"position {board.position()}"]
    for ply, square in enumerate(ref.random_squares(style, seed), start=1):
        move = board.play(MOVES[square])
        lines.append(f"ply {ply} {board.PLAYERS[(ply - 1) % 2]} {move.text()}")
        lines.append(f"position {board.position()}")
        lines.append(f"formations {board.formations_text()}")
        lines.extend(f"scoreboard {line}" for line in board.scoreboard_text().splitlines())
        outcome = board.outcome()
        lines.append(f"outcome {outcome.text() if outcome else 'none'}")
        if outcome:
            break
    return lines


PLAYTHROUGHS = [(0, "uniform"), (1, "clustering"), (2, "lattice")]


@pytest.mark.parametrize("seed, style", PLAYTHROUGHS)
def test_golden_playthrough(seed, style):
    path = GOLDEN / f"olix_playthrough_{style}_{seed}.txt"
    lines = playthrough(seed, style)
    expected = path.read_text().splitlines()
    for number, (got, want) in enumerate(zip(lines, expected, strict=False), start=1):
        assert got == want, f"{path.name} line {number} (scripts/regenerate_golden.py writes it, for a meant change)"
    assert len(lines) == len(expected)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=8))
def test_parse_move_raises_only_its_own_error(text):
    try:
        move = OlixBoard().parse_move(text)
    except InvalidMoveError:
        return
    assert move.text() == text.lower()


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="0123456789XOxo/ firstecond1", max_size=60) | st.text(max_size=60))
def test_from_position_raises_only_its_own_error(text):
    try:
        board = OlixBoard.from_position(text)
    except InvalidPositionError:
        return
    assert board.position() == text


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_mutated_positions_load_exactly_or_fail_cleanly(data):
    seed = data.draw(st.integers(0, 20))
    squares = ref.random_squares("clustering", seed)[: data.draw(st.integers(0, 60))]
    board = OlixBoard()
    for s in squares:
        if board.outcome():
            break
        board.push(MOVES[s])
    text = board.position()
    index = data.draw(st.integers(0, len(text) - 1))
    mutated = text[:index] + data.draw(st.sampled_from("0123456789XO/ ")) + text[index + 1 :]
    try:
        loaded = OlixBoard.from_position(mutated)
    except InvalidPositionError:
        return
    assert loaded.position() == mutated
