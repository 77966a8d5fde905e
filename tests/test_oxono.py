"""The Oxono engine's own API: perft, golden playthroughs, fast paths against slow ones, text forms.

Rule-by-rule tests are in ``test_oxono_rules.py``; the differential tests
against the slow reference in ``test_oxono_differential.py``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from olixono.common import IllegalMoveError, InvalidMoveError, InvalidPositionError, Outcome
from olixono.oxono import OxonoBoard, OxonoMove

GOLDEN = Path(__file__).parent / "golden"
PLAYTHROUGHS = [1, 2, 3, 4]
PERFT = {1: 68, 2: 3_612, 3: 162_680, 4: 6_470_416}


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_perft_from_the_start(depth):
    assert OxonoBoard().perft(depth) == PERFT[depth]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_perft_with_every_leaf_made_agrees(depth):
    assert OxonoBoard().perft(depth, leaf_made=True) == PERFT[depth]


def test_perft_agrees_with_listing_and_pushing_at_depth_two_from_midgame_positions():
    rng = random.Random(11)
    for _ in range(10):
        board = OxonoBoard()
        for _ in range(rng.randrange(4, 20)):
            if board.outcome():
                break
            board.push(rng.choice(board.legal_moves()))
        if board.outcome():
            continue
        slow = 0
        for move in board.legal_moves():
            board.push(move)
            slow += len(board.legal_moves())
            board.pop()
        assert board.perft(2) == slow
        assert board.perft(2, leaf_made=True) == slow


def test_count_moves_matches_the_move_list_at_every_ply():
    rng = random.Random(5)
    for _ in range(40):
        board = OxonoBoard()
        while board.outcome() is None:
            assert board.count_moves() == len(board.legal_moves())
            board.push(rng.choice(board.legal_moves()))
        assert board.count_moves() == 0


@pytest.mark.parametrize("seed", range(30))
def test_fast_playout_plays_the_same_game_as_the_checked_path(seed):
    """``playout`` draws index ``int(random() * count)`` in move-generation order."""
    board = OxonoBoard()
    fast = board.playout(random.Random(seed))
    stream = random.Random(seed)
    while board.outcome() is None:
        moves = board.legal_moves()
        board.play(moves[int(stream.random() * len(moves))])
    assert fast == board.outcome()


def test_playout_leaves_the_board_unchanged_and_finishes_midgame():
    board = OxonoBoard()
    board.play("Oc6c5")
    before = board.position()
    assert isinstance(board.playout(random.Random(1)), Outcome)
    assert board.position() == before


def playthrough(seed: int) -> str:
    board = OxonoBoard()
    rng = random.Random(seed)
    lines = [f"start {board.position()} moves={len(board.legal_moves())}"]
    while board.outcome() is None:
        move = rng.choice(sorted(board.legal_moves(), key=OxonoMove.text))
        board.play(move)
        outcome = board.outcome()
        lines.append(
            f"{len(board.move_stack):2d} {move.text()} {board.position()} "
            f"moves={len(board.legal_moves())} outcome={outcome.text() if outcome else 'none'}"
        )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", PLAYTHROUGHS)
def test_golden_playthrough(seed):
    path = GOLDEN / f"oxono_playthrough_{seed}.txt"
    text = playthrough(seed)
    expected = path.read_text().splitlines()
    for number, (got, want) in enumerate(zip(text.splitlines(), expected, strict=False), 1):
        assert got == want, (
            f"{path.name} line {number} differs (scripts/regenerate_golden.py writes it, for a meant change)"
        )
    assert len(text.splitlines()) == len(expected)


def test_move_text_any_case_in_canonical_out():
    move = OxonoMove.from_text("oC6C5")
    assert move.text() == "Oc6c5" and str(move) == "Oc6c5"
    assert repr(move) == "OxonoMove.from_text('Oc6c5')"
    assert eval(repr(move)) == move


@pytest.mark.parametrize("text", ["", "O", "Oc6", "Qc6c5", "Oc7c5", "Og1c5", "Oc0c5", "Oc6c55", "O c6c5", "Ｏc6c5"])
def test_bad_move_text_raises_invalid_move_error_naming_the_input(text):
    with pytest.raises(InvalidMoveError) as info:
        OxonoBoard().play(text)
    assert repr(text) in str(info.value)


def test_illegal_move_error_names_the_move_the_position_and_the_reason():
    board = OxonoBoard()
    with pytest.raises(IllegalMoveError) as info:
        board.play("Xa1a2")
    message = str(info.value)
    assert "'Xa1a2'" in message and board.position() in message
    assert info.value.reason == "totem X on d3 cannot reach a1"
    assert board.position() == "6/6/6/6/6/6 pink d3 c4"


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("6/6/6/6/6/6 pink d3", "4 fields"),
        ("6/6/6/6/6/6  pink d3 c4", "4 fields"),
        ("6/6/6/6/6 pink d3 c4", "6 ranks"),
        ("6/6/6/6/6/7 pink d3 c4", "unexpected character"),
        ("6/6/6/6/6/5 pink d3 c4", "exactly 6"),
        ("6/6/6/6/6/6X pink d3 c4", "more than 6"),
        ("6/6/6/6/6/6 white d3 c4", "pink or black"),
        ("6/6/6/6/6/6 pink d3 d3", "both totems"),
        ("6/6/6/6/6/6 pink d3 c9", "bad totem square"),
        ("6/6/6/6/6/X5 pink a1 c4", "a totem stands on a pawn"),
        ("6/6/6/6/6/X5 pink d3 c4", "black's turn"),
        ("6/6/6/6/6/XX4 black d3 c4", "cannot be"),
        ("6/6/6/6/6/33 pink d3 c4", "canonical"),
        ("6/6/6/6/6/6 pink D3 c4", "canonical"),
        ("XXXXXX/XXXxxx/xxxxxx/xx4/6/6 black e2 f2", "more than 8 pawns marked X"),
    ],
)
def test_bad_position_text_is_rejected_with_a_reason(text, complaint):
    with pytest.raises(InvalidPositionError) as info:
        OxonoBoard.from_position(text)
    assert complaint in str(info.value) and repr(text) in str(info.value)


def test_show_draws_the_board_with_totems_and_supply():
    board = OxonoBoard()
    board.play("Oc6c5")
    assert board.show().splitlines() == [
        "6  .  . [O] .  .  .",
        "5  .  .  O  .  .  .",
        "4  .  .  .  .  .  .",
        "3  .  .  . [X] .  .",
        "2  .  .  .  .  .  .",
        "1  .  .  .  .  .  .",
        "   a  b  c  d  e  f",
        "black to move; pawns left: pink X8 O7 black X8 O8",
    ]


def test_pop_with_nothing_to_undo_raises_index_error():
    with pytest.raises(IndexError):
        OxonoBoard().pop()
