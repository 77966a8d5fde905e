"""One test (or a few) per Oxono rule of docs/oxono.md, named after the rule.

Special positions are drawn, rank 6 on top and file a on the left: ``.`` is
empty, ``X``/``O`` are pink pawns, ``x``/``o`` black pawns, ``[X]``/``[O]``
the totems. Every test that only needs moves and outcomes runs against both
the fast engine and the slow reference (``engine`` fixture); tests of the
engine's own surface (errors, push/pop, text) use the fast engine alone.
"""

from __future__ import annotations

import random

import oxono_reference as ref
import pytest

from olixono.common import EndReason, IllegalMoveError, InvalidMoveError, InvalidPositionError, Outcome
from olixono.oxono import OxonoBoard

START = "6/6/6/6/6/6 pink d3 c4"


# --- the two engines behind one small surface -------------------------------


class FastEngine:
    """``olixono.oxono`` seen through the tests' five questions."""

    def __init__(self, text: str = START) -> None:
        self.board = OxonoBoard.from_position(text)

    def moves(self) -> set[str]:
        return {move.text() for move in self.board.legal_moves()}

    def play(self, text: str) -> None:
        self.board.play(text)

    def outcome(self) -> tuple[str | None, str] | None:
        outcome = self.board.outcome()
        return None if outcome is None else (outcome.winner, outcome.reason)

    def turn(self) -> str:
        return self.board.turn

    def position(self) -> str:
        return self.board.position()


class ReferenceEngine:
    """``tests/oxono_reference.py`` seen through the same questions."""

    def __init__(self, text: str = START) -> None:
        self.state = ref.from_position(text)

    def moves(self) -> set[str]:
        return ref.legal_moves(self.state)

    def play(self, text: str) -> None:
        self.state = ref.apply(self.state, text)

    def outcome(self) -> tuple[str | None, str] | None:
        return ref.outcome(self.state)

    def turn(self) -> str:
        return self.state.turn

    def position(self) -> str:
        return ref.position_text(self.state)


@pytest.fixture(params=[FastEngine, ReferenceEngine], ids=["fast", "reference"])
def engine(request):
    """A factory: ``engine(position_text)`` loads a position in one engine."""
    return request.param


def board(drawing: str, turn: str) -> str:
    """The position text of a drawing (see the module docstring)."""
    return ref.from_diagram(drawing, turn)


def destinations(moves: set[str], totem: str) -> set[str]:
    """Where ``totem`` may go, read off a set of move texts."""
    return {move[1:3] for move in moves if move[0] == totem}


def pawn_squares(moves: set[str], totem: str, to: str) -> set[str]:
    """Where the pawn may go once ``totem`` stands on ``to``."""
    return {move[3:5] for move in moves if move[:3] == totem + to}


def every_square() -> list[str]:
    return [f"{file}{rank}" for rank in "123456" for file in "abcdef"]


# --- rule 1: the board and the names of its squares --------------------------


def test_rule_01_board_is_6x6_with_chess_like_square_names(engine):
    moves = engine().moves()
    # Totem X on d3 slides to every square of file d and rank 3 but its own.
    assert destinations(moves, "X") == {"d1", "d2", "d4", "d5", "d6", "a3", "b3", "c3", "e3", "f3"}
    # Files a-f left to right, ranks 1-6 bottom to top: d1 is at the bottom edge.
    assert pawn_squares(moves, "X", "d1") == {"c1", "e1", "d2"}
    assert pawn_squares(moves, "X", "f3") == {"f2", "f4", "e3"}


def test_rule_01_position_text_rows_run_from_rank_6_to_rank_1():
    position = board(
        """
        O  .  .  .  .  .
        .  .  .  .  .  .
        .  . [O] .  .  .
        .  .  . [X] .  .
        .  .  .  .  .  .
        .  .  .  .  .  x
        """,
        "pink",
    )
    assert position == "O5/6/6/6/6/5x pink d3 c4"
    assert OxonoBoard.from_position(position).position() == position


@pytest.mark.parametrize(
    ("name", "index"), [("a1", 0), ("f1", 5), ("a2", 6), ("d3", 15), ("c4", 20), ("a6", 30), ("f6", 35)]
)
def test_rule_01_square_index_is_rank_times_6_plus_file(name, index):
    move = OxonoBoard().parse_move(f"X{name}{name}")
    assert move.to == move.pawn == index


@pytest.mark.parametrize("text", ["Xd7d6", "Xg3g2", "Xd0d1", "Xd3d10", "Xa1`1"])
def test_rule_01_squares_off_the_board_are_not_squares(text):
    with pytest.raises(InvalidMoveError):
        OxonoBoard().play(text)


# --- rule 2: pink moves first -----------------------------------------------


def test_rule_02_pink_moves_first_then_turns_alternate(engine):
    game = engine()
    assert game.turn() == "pink"
    game.play("Xd2d1")
    assert game.turn() == "black"
    game.play("Oc5c6")
    assert game.turn() == "pink"
    assert OxonoBoard().turn == "pink"


def test_rule_02_black_cannot_be_first_to_move():
    with pytest.raises(InvalidPositionError):
        OxonoBoard.from_position("6/6/6/6/6/6 black d3 c4")


# --- rule 3: pieces ---------------------------------------------------------


def test_rule_03_both_totems_are_shared(engine):
    game = engine()
    assert {move[0] for move in game.moves()} == {"X", "O"}
    game.play("Xd2d1")
    assert {move[0] for move in game.moves()} == {"X", "O"}


def test_rule_03_each_player_places_16_pawns_8_per_symbol(engine):
    game = engine(DRAW_POSITION)
    game.play("Od4d2")  # the 32nd pawn
    rows = game.position().split(" ")[0]
    assert sorted(char for char in rows if char.isalpha()) == sorted("XO" * 8 + "xo" * 8)


@pytest.mark.parametrize(
    "text",
    [
        "XXXXXX/XXXooo/ooooo1/6/6/6 black a1 b1",  # nine pink X pawns
        "oooooo/ooo3/6/6/6/XXXXOO pink a3 b3",  # nine black O pawns
    ],
)
def test_rule_03_no_player_has_a_ninth_pawn_of_a_symbol(text):
    with pytest.raises(InvalidPositionError):
        OxonoBoard.from_position(text)


# --- rule 4: the start ------------------------------------------------------


def test_rule_04_start_has_totem_o_on_c4_and_x_on_d3(engine):
    assert OxonoBoard().position() == START
    moves = engine().moves()
    # Each totem moves away from its start square along its file and rank.
    assert destinations(moves, "O") == {"c1", "c2", "c3", "c5", "c6", "a4", "b4", "d4", "e4", "f4"}
    assert "d3" not in destinations(moves, "X") and "c4" not in destinations(moves, "O")


# --- rule 5: a turn; with no pawn of a symbol left, use the other totem -------

OUT_OF_X = """
 X  o  X  o  .  .
 o  X  o  X  .  .
 X  o  X  o  .  .
 o  X  o  X  .  .
 .  .  .  .  .  .
 .  . [O] [X] .  .
"""


def test_rule_05_a_turn_moves_a_totem_then_places_a_pawn_of_its_symbol(engine):
    game = engine()
    game.play("Oc6c5")
    assert game.position() == "6/2O3/6/6/6/6 black d3 c6"


def test_rule_05_out_of_one_symbol_the_other_totem_must_move(engine):
    game = engine(board(OUT_OF_X, "pink"))  # pink has placed all 8 X pawns
    moves = game.moves()
    assert moves and {move[0] for move in moves} == {"O"}


def test_rule_05_out_of_one_symbol_that_totem_is_illegal():
    game = OxonoBoard.from_position(board(OUT_OF_X, "pink"))
    with pytest.raises(IllegalMoveError):
        game.play("Xd2e2")  # totem X could go there, but pink has no X pawn


def test_rule_05_each_player_counts_only_their_own_supply(engine):
    game = engine(board(OUT_OF_X, "pink"))
    game.play("Ob1a1")
    # Pink could not use totem X; black, out of O pawns, must.
    assert {move[0] for move in game.moves()} == {"X"}


# --- rules 6 and 7: occupied squares and the rook move ----------------------

ROOK = """
 .  .  .  .  .  .
 .  .  x  .  .  .
 .  .  .  .  .  .
 .  . [X] .  O  .
 .  .  .  .  .  .
 .  . [O] .  .  .
"""


def test_rule_06_the_other_totem_counts_as_occupied(engine):
    moves = engine(board(ROOK, "pink")).moves()
    assert "c1" not in destinations(moves, "X")  # not onto totem O
    assert "c3" not in destinations(moves, "O")  # not onto totem X
    assert "c4" not in destinations(moves, "O")  # not over totem X
    assert "c1" not in pawn_squares(moves, "X", "c2")  # no pawn on a totem


def test_rule_07_rook_slides_over_free_squares_only(engine):
    moves = engine(board(ROOK, "pink")).moves()
    assert destinations(moves, "X") == {"c4", "c2", "b3", "a3", "d3"}
    assert destinations(moves, "O") == {"c2", "a1", "b1", "d1", "e1", "f1"}


def test_rule_07_a_totem_must_move(engine):
    moves = engine().moves()
    assert not any(move.startswith(("Xd3", "Oc4")) for move in moves)


# --- rule 8: the enclosed totem jumps ---------------------------------------

JUMP = """
 .  .  X  .  .  .
 .  .  o  .  .  .
 .  .  O  .  .  .
 .  x [O] [X] .  .
 .  .  X  .  .  .
 .  .  .  .  .  .
"""


def test_rule_08_enclosed_totem_jumps_over_the_run(engine):
    moves = engine(board(JUMP, "black")).moves()
    assert destinations(moves, "O") == {"a3", "c1", "e3"}


def test_rule_08_jump_passes_over_the_other_totem_with_no_choice_of_distance(engine):
    moves = engine(board(JUMP, "black")).moves()
    assert "e3" in destinations(moves, "O")  # over totem X on d3 ...
    assert "f3" not in destinations(moves, "O")  # ... to the first free square only


def test_rule_08_a_run_reaching_the_edge_gives_no_move(engine):
    moves = engine(board(JUMP, "black")).moves()
    assert not destinations(moves, "O") & {"c4", "c5", "c6"}


def test_rule_08_the_board_edge_encloses_too(engine):
    position = board(
        """
        .  .  .  .  .  .
        .  .  .  .  .  .
        X  .  .  .  .  .
       [O] X  .  .  .  .
        o  .  .  .  .  .
        .  .  .  . [X] .
        """,
        "black",
    )
    moves = engine(position).moves()
    assert destinations(moves, "O") == {"a5", "a1", "c3"}


def test_rule_08_a_free_neighbour_means_no_jump(engine):
    # Three neighbours occupied, one free: a rook move, no jump over them.
    position = board(
        """
        .  .  .  .  .  .
        .  .  .  .  .  .
        .  .  O  .  .  .
        .  X [O] o  .  .
        .  .  .  .  .  .
        .  .  .  .  . [X]
        """,
        "black",
    )
    moves = engine(position).moves()
    assert destinations(moves, "O") == {"c2", "c1"}


# --- rule 9: relocation when no jump exists ----------------------------------

CORNERED = """
[O] .  .  .  .  .
 x  .  .  .  .  .
 O  .  .  .  .  .
 o  .  .  .  .  .
 X  .  .  .  .  .
[X] O  x  X  o  X
"""


def test_rule_09_enclosed_totem_with_no_jump_goes_to_any_free_square(engine):
    moves = engine(board(CORNERED, "black")).moves()
    free = {s for s in every_square() if s not in {"a1", "a2", "a3", "a4", "a5", "a6", "b1", "c1", "d1", "e1", "f1"}}
    assert destinations(moves, "X") == free  # not its own square a1, not totem O's a6


def test_rule_09_after_relocation_the_pawn_goes_next_to_the_totem(engine):
    moves = engine(board(CORNERED, "black")).moves()
    assert pawn_squares(moves, "X", "d4") == {"d5", "d3", "c4", "e4"}
    # b2 borders a2 and b1 (pawns); a1 is not a neighbour of b2.
    assert pawn_squares(moves, "X", "b2") == {"b3", "c2"}


# --- rule 10: pawn placement -------------------------------------------------


def test_rule_10_pawn_goes_next_to_the_totem_including_the_square_it_left(engine):
    moves = engine().moves()
    assert pawn_squares(moves, "X", "d2") == {"d1", "c2", "e2", "d3"}
    assert pawn_squares(moves, "X", "d4") == {"d5", "e4", "d3"}  # c4 holds totem O


POCKET = """
 .  .  X  .  .  .
 .  o  .  x  .  .
 .  .  O  .  .  .
 x  o [O] X  O  X
 .  .  o  .  .  .
 .  .  X  .  . [X]
"""


def test_rule_10_pawn_goes_anywhere_when_no_neighbour_is_free(engine):
    moves = engine(board(POCKET, "black")).moves()
    assert destinations(moves, "O") == {"c5"}  # the only jump, into a pocket
    taken = {"c6", "b5", "d5", "c4", "a3", "b3", "d3", "e3", "f3", "c2", "c1", "c5", "f1"}
    expected = {s for s in every_square() if s not in taken}
    assert pawn_squares(moves, "O", "c5") == expected
    assert "c3" in expected  # the square the totem left is free too


# --- rule 11: winning lines ---------------------------------------------------


def test_rule_11_win_by_colour(engine):
    game = engine(
        board(
            """
            x  o  x  .  .  .
            .  .  .  .  .  .
            .  . [O] .  .  .
            .  .  . [X] .  .
            .  .  .  .  .  .
            X  O  O  .  .  .
            """,
            "pink",
        )
    )
    game.play("Xd2d1")  # pink X O O X in a row
    assert game.outcome() == ("pink", "colour")


def test_rule_11_win_by_symbol_made_mostly_with_the_opponents_pawns(engine):
    game = engine(
        board(
            """
            X  O  X  .  .  .
            .  .  .  .  .  .
            .  .  . [O] .  .
            .  .  .  .  .  .
            .  .  .  .  .  .
            o  o  o  .  . [X]
            """,
            "pink",
        )
    )
    game.play("Od2d1")  # black o o o, then pink's O
    assert game.outcome() == ("pink", "symbol")


def test_rule_11_win_on_a_vertical_line(engine):
    game = engine(
        board(
            """
            O  .  .  . [X] .
            .  .  .  .  .  .
            .  .  .  .  .  .
            .  .  .  .  .  x
            .  .  .  .  .  X
            .  .  . [O] .  x
            """,
            "pink",
        )
    )
    game.play("Xe4f4")
    assert game.outcome() == ("pink", "symbol")


def test_rule_11_a_line_of_five_wins(engine):
    game = engine(
        board(
            """
            .  .  .  .  .  .
            o  x  .  x  o  .
            .  . [X] .  .  .
            .  .  .  .  .  .
            X  O  .  O  X  .
            .  .  .  .  . [O]
            """,
            "pink",
        )
    )
    game.play("Xc3c2")
    assert game.outcome() == ("pink", "colour")


def test_rule_11_colour_and_symbol_at_once_counts_as_colour(engine):
    game = engine(
        board(
            """
            .  .  .  .  . [O]
            .  .  .  .  .  .
            .  .  .  x [X] .
            .  .  .  x  .  .
            .  .  .  x  .  .
            X  O  O  .  .  .
            """,
            "pink",
        )
    )
    assert game.outcome() is None
    game.play("Xe1d1")  # pink row a1-d1 and symbol X column d1-d4 at once
    assert game.outcome() == ("pink", "colour")


def test_rule_11_one_line_of_both_colour_and_symbol_counts_as_colour(engine):
    game = engine(
        board(
            """
            x  o  x  .  .  .
            .  .  .  .  .  .
            .  . [O] .  .  .
            .  .  . [X] .  .
            .  .  .  .  .  .
            X  X  X  .  .  .
            """,
            "pink",
        )
    )
    game.play("Xd2d1")
    assert game.outcome() == ("pink", "colour")


def test_rule_11_black_wins_too(engine):
    game = engine(
        board(
            """
            x  o  .  .  .  .
            .  .  .  .  .  .
            .  . [O] .  .  .
            .  .  . [X] .  .
            .  .  .  .  .  .
            X  X  X  .  .  .
            """,
            "black",
        )
    )
    game.play("Xd2d1")  # black's x ends pink's colour run but makes X X X x
    assert game.outcome() == ("black", "symbol")


def test_rule_11_diagonals_do_not_count(engine):
    game = engine(
        board(
            """
            .  .  . [X] .  .
            .  .  .  .  .  .
            .  .  .  .  .  .
            .  .  X  .  .  o
            .  X  .  .  .  x
            X  .  .  .  o [O]
            """,
            "pink",
        )
    )
    game.play("Xd5d4")  # pink X on a1 b2 c3 d4
    assert game.outcome() is None
    assert game.moves()


def test_rule_11_a_totem_breaks_a_line(engine):
    game = engine(
        board(
            """
            x  o  x  .  .  .
            .  .  .  .  .  .
            .  .  .  .  .  .
            .  .  .  . [X] .
            .  .  .  .  .  .
            X  O [O] O  .  .
            """,
            "pink",
        )
    )
    game.play("Xe2e1")  # X O [O] O X: the totem stands between the pawns
    assert game.outcome() is None
    assert game.moves()


def test_rule_11_the_game_stops_at_the_win(engine):
    game = engine(
        board(
            """
            x  o  x  .  .  .
            .  .  .  .  .  .
            .  . [O] .  .  .
            .  .  . [X] .  .
            .  .  .  .  .  .
            X  O  O  .  .  .
            """,
            "pink",
        )
    )
    game.play("Xd2d1")
    assert game.moves() == set()
    with pytest.raises(ValueError):
        game.play("Oc5c6")


def test_rule_11_a_loaded_position_with_a_line_is_won_by_the_last_mover(engine):
    game = engine("xox3/6/6/6/6/XOOX2 black d2 c4")  # just after pink's Xd2d1
    assert game.outcome() == ("pink", "colour")
    assert game.moves() == set()


# --- rule 12: the draw --------------------------------------------------------

DRAW_POSITION = board(
    """
     X  O  o  x  O  o
    [X] o  o  X  O  O
     X  o  x  .  X [O]
     X  X  .  x  o  O
     O  x  O  .  x  X
     x  O  X  o  x  x
    """,
    "black",
)


def test_rule_12_draw_when_all_32_pawns_are_placed(engine):
    game = engine(DRAW_POSITION)  # 31 pawns; totem O must jump to d4
    assert game.moves() == {"Od4d2", "Od4c3", "Od4f4"}
    game.play("Od4d2")
    assert game.outcome() == (None, "exhausted")
    assert game.moves() == set()


@pytest.mark.parametrize(("move", "reason"), [("Od4c3", "colour"), ("Od4f4", "symbol")])
def test_rule_12_a_win_with_the_32nd_pawn_is_a_win(engine, move, reason):
    game = engine(DRAW_POSITION)
    game.play(move)
    assert game.outcome() == ("black", reason)


@pytest.mark.parametrize("seed", range(10))
def test_rule_12_a_player_always_has_a_move_before_the_end(seed):
    rng = random.Random(seed)
    game = OxonoBoard()
    while game.outcome() is None:
        moves = game.legal_moves()
        assert moves, game.position()
        game.play(rng.choice(moves))
    assert game.legal_moves() == []


# --- rule 13: move text -------------------------------------------------------


@pytest.mark.parametrize("text", ["oC6C5", "OC6C5", "oc6c5", "Oc6C5"])
def test_rule_13_move_input_in_any_letter_case(text):
    game = OxonoBoard()
    move = game.play(text)
    assert move.text() == "Oc6c5"
    assert game.position() == "6/2O3/6/6/6/6 black d3 c6"


def test_rule_13_move_output_is_canonical():
    for move in OxonoBoard().legal_moves():
        text = move.text()
        assert text[0] in "XO" and text[1:] == text[1:].lower() and len(text) == 5


@pytest.mark.parametrize("text", ["", "Oc6", "Zc6c5", "Oc6c5x", "O c6c5", "Oc6c55", "6c6c5"])
def test_rule_13_bad_move_text_is_an_invalid_move(text):
    game = OxonoBoard()
    with pytest.raises(InvalidMoveError) as info:
        game.play(text)
    assert repr(text) in str(info.value) or text in str(info.value)
    assert game.position() == START


@pytest.mark.parametrize(
    "text",
    [
        "Xd3d4",  # the totem does not move
        "Oc6c4",  # pawn not next to the totem
        "Xc4c5",  # onto the other totem
        "Xa4a5",  # not on the totem's file or rank
        "Oc5c5",  # pawn on the totem's new square
    ],
)
def test_rule_13_forbidden_move_is_an_illegal_move(text):
    game = OxonoBoard()
    with pytest.raises(IllegalMoveError) as info:
        game.play(text)
    assert text in str(info.value)
    assert START in str(info.value)
    assert game.position() == START


# --- rule 14: reference counts -----------------------------------------------


@pytest.mark.parametrize(("depth", "count"), [(1, 68), (2, 3_612)])
def test_rule_14_perft_from_the_start(depth, count):
    assert OxonoBoard().perft(depth) == count
    assert ref.perft(ref.start(), depth) == count


def test_rule_14_perft_depth_3_from_the_start():
    assert OxonoBoard().perft(3) == 162_680


def test_outcome_type_is_the_shared_outcome():
    game = OxonoBoard.from_position(DRAW_POSITION)
    game.play("Od4d2")
    assert game.outcome() == Outcome(None, EndReason.EXHAUSTED)
