"""One test (or more) for every Olix rule of docs/olix.md, named after the rule.

Positions are drawn as text: eleven rows of eleven cells, rank 11 first,
``X`` a stone of first, ``O`` a stone of second, ``.`` empty. ``drawn`` adds
isolated filler stones (no stone next to them in any direction, so they form
nothing and touch nothing drawn) for the side that is short, so that the
drawn position has the right stone counts for the player to move.
"""

from __future__ import annotations

import pytest
from engine_helpers import outcome_of

from olixono.common import EndReason, GameOverError, IllegalMoveError, InvalidMoveError, Outcome
from olixono.olix import FIELDS, KINDS, OlixBoard, OlixMove

EMPTY = "\n".join(["..........."] * 11)


def neighbours(rank: int, file: int):
    for dr in (-1, 0, 1):
        for df in (-1, 0, 1):
            if (dr or df) and 0 <= rank + dr < 11 and 0 <= file + df < 11:
                yield rank + dr, file + df


def drawn(picture: str, turn: str = "first") -> OlixBoard:
    """Load a drawn position, adding isolated fillers so that ``turn`` is to move."""
    rows = [line.strip() for line in picture.strip().splitlines()]
    assert len(rows) == 11 and all(len(r) == 11 for r in rows), picture
    grid = {(10 - i, f): ch for i, row in enumerate(rows) for f, ch in enumerate(row)}
    firsts = sum(ch == "X" for ch in grid.values())
    seconds = sum(ch == "O" for ch in grid.values())
    want_first_extra = 0 if turn == "first" else 1
    short = firsts - seconds - want_first_extra  # > 0: second is short
    filler = "O" if short > 0 else "X"
    for rank in range(11):
        for file in range(10, -1, -1):
            if short == 0:
                break
            if grid[rank, file] == "." and all(grid[q] == "." for q in neighbours(rank, file)):
                grid[rank, file] = filler
                short += -1 if short > 0 else 1
    assert short == 0, "no room for fillers"
    ranks = []
    for rank in range(10, -1, -1):
        text, empty = "", 0
        for file in range(11):
            ch = grid[rank, file]
            if ch == ".":
                empty += 1
                continue
            text += (str(empty) if empty else "") + ch
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    return OlixBoard.from_position("/".join(ranks) + " " + turn)


def picture_with(cells: dict[tuple[int, int], str]) -> str:
    """An 11 × 11 picture with the given (rank, file) cells set."""
    rows = []
    for rank in range(10, -1, -1):
        rows.append("".join(cells.get((rank, f), ".") for f in range(11)))
    return "\n".join(rows)


def values(board: OlixBoard, player: str) -> dict[str, int]:
    return {k: f.value for k, f in board.formations(player).items()}


# -- rule 1: the board and the players -----------------------------------------------


def test_rule_1_board_is_11_by_11_and_first_moves_first():
    board = OlixBoard()
    assert board.turn == "first" and len(board.legal_moves()) == 121
    assert board.legal_moves()[0].text() == "a1" and board.legal_moves()[-1].text() == "k11"
    assert OlixMove.from_text("k1").square == 10 and OlixMove.from_text("a11").square == 110


def test_rule_1_each_player_has_50_stones():
    with pytest.raises(ValueError):
        OlixBoard.from_position("XXXXXXXXXXX/" * 5 + "XXXXXX5/" + "OOOOOOOOOOO/" * 4 + "OOOOOOOOOO1 second")


# -- rule 2: a turn places one stone on an empty square; stones stay --------------------


def test_rule_2_a_stone_goes_on_an_empty_square_only():
    board = OlixBoard()
    board.play("f6")
    assert board.turn == "second" and board.stone_at(OlixMove.from_text("f6").square) == "first"
    with pytest.raises(IllegalMoveError, match="f6"):
        board.play("f6")
    assert len(board.legal_moves()) == 120


def test_rule_2_stones_never_move_nor_get_captured():
    board = OlixBoard()
    for text in ["e5", "f5", "g5", "f6", "f4", "h5"]:
        board.play(text)
    assert board.stone_at(OlixMove.from_text("f5").square) == "second"
    assert board.position() == "11/11/11/11/11/5O5/4XOXO3/5X5/11/11/11 first"


# -- rule 3: only the owner's stones form its formations ----------------------------------


def test_rule_3_mixed_stones_form_nothing():
    board = drawn(picture_with({(5, f): "XXOXX"[f] for f in range(5)} | {(7, f): "XOXOX"[f] for f in range(5)}))
    assert values(board, "first")["I"] == 0 and values(board, "second")["I"] == 0


# -- rule 4: I --------------------------------------------------------------------------


@pytest.mark.parametrize("length", [4, 5, 6, 7])
@pytest.mark.parametrize("vertical", [False, True])
def test_rule_4_i_is_worth_its_length(length, vertical):
    cells = {((2 + k, 5) if vertical else (5, 2 + k)): "X" for k in range(length)}
    board = drawn(picture_with(cells), "second")
    formation = board.formations("first")["I"]
    assert formation.value == length
    assert formation.squares.bit_count() == length
    assert board.outcome() is None


def test_rule_4_three_in_a_line_is_no_i_and_a_gap_breaks_it():
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...........
        ...........
        XXX.XXX.XX.
        ...........
        ...........
        ...........
        ...........
        ...........""",
        "second",
    )
    assert values(board, "first")["I"] == 0


# -- rule 5: X --------------------------------------------------------------------------


@pytest.mark.parametrize("length", [4, 5, 6, 7])
@pytest.mark.parametrize("direction", [1, -1])
def test_rule_5_x_is_worth_its_length(length, direction):
    cells = {(1 + k, 5 + direction * (k - 3)): "O" for k in range(length)}
    board = drawn(picture_with(cells), "first")
    assert values(board, "second")["X"] == length
    assert board.formations("second")["X"].squares.bit_count() == length


def test_rule_5_a_broken_diagonal_is_no_x():
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...........
        ......X....
        .....X.....
        ...........
        ...X.......
        ..X........
        .X.........
        ...........""",
        "second",
    )
    assert values(board, "first")["X"] == 0


# -- rule 6: L --------------------------------------------------------------------------


@pytest.mark.parametrize("arms", [(3, 3), (3, 4), (4, 4), (3, 5), (5, 4), (3, 6)])
def test_rule_6_l_is_worth_both_arms_minus_the_corner(arms):
    across, up = arms
    cells = {(1, 2 + k): "X" for k in range(across)} | {(1 + k, 2): "X" for k in range(up)}
    board = drawn(picture_with(cells), "second")
    formation = board.formations("first")["L"]
    assert formation.value == across + up - 1
    assert formation.squares.bit_count() == across + up - 1


def test_rule_6_an_arm_of_two_makes_no_l():
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...........
        ...........
        ...........
        ...........
        ...X.......
        ...XXXXX...
        ...........
        ...........""",
        "second",
    )
    assert values(board, "first")["L"] == 0 and values(board, "first")["I"] == 5


def test_rule_6_the_largest_l_inside_a_t_counts():
    # bar of 7 on rank 9, stem of 4 down from its middle: L = 4 (half bar) + 4 - 1
    board = drawn(
        """
        ...........
        ...........
        ..XXXXXXX..
        .....X.....
        .....X.....
        .....X.....
        ...........
        ...........
        ...........
        ...........
        ...........""",
        "second",
    )
    assert values(board, "first")["L"] == 7
    # a T whose bar ends in the corner: 5 along the bar plus the stem
    board = drawn(
        """
        ...........
        ...........
        ..XXXXX....
        ..X........
        ..X........
        ..X........
        ..X........
        ...........
        ...........
        ...........
        ...........""",
        "second",
    )
    assert values(board, "first")["L"] == 9 and board.outcome() == Outcome("first", EndReason.FORMATION)


def test_rule_6_the_largest_l_inside_a_plus_counts():
    board = drawn(
        """
        ...........
        ...........
        ...........
        .....O.....
        .....O.....
        ..OOOOOOO..
        .....O.....
        .....O.....
        .....O.....
        .....O.....
        ...........""",
        "first",
    )
    # corner at the centre: 4 to one side, 5 down
    assert values(board, "second")["L"] == 4 + 5 - 1


def test_rule_6_an_l_needs_its_corner_at_the_end_of_both_arms():
    # a + of arms 2: every L through it has an arm of 2 at most on one side
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...........
        .....X.....
        ....XXX....
        .....X.....
        ...........
        ...........
        ...........
        ...........""",
        "second",
    )
    assert values(board, "first")["L"] == 0


# -- rule 7: O --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "width, height, centre, value",
    [
        (2, 2, None, 4),
        (2, 3, None, 6),
        (3, 2, None, 6),
        (2, 4, None, 8),
        (4, 2, None, 8),
        (3, 3, ".", 8),
        (3, 3, "X", 9),
        (3, 3, "O", 8),
    ],
)
def test_rule_7_o_counts_boundary_and_own_inside(width, height, centre, value):
    cells = {}
    for r in range(height):
        for f in range(width):
            if r in (0, height - 1) or f in (0, width - 1):
                cells[3 + r, 4 + f] = "X"
    if centre and centre != ".":
        cells[4, 5] = centre
    board = drawn(picture_with(cells), "second" if centre != "O" else "first")
    if centre == "O":
        board = drawn(picture_with(cells | {(0, 0): "O"}), "second")
    formation = board.formations("first")["O"]
    assert formation.value == value
    assert formation.squares.bit_count() == value
    assert value in FIELDS["O"]


def test_rule_7_a_larger_ring_counts_its_stones_not_its_area():
    # 4 x 4 ring with one own and one opposing stone inside: 12 + 1 = 13, an automatic win
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...XXXX....
        ...XXO.....
        ...X..X....
        ...XXXX....
        ...........
        ...........
        ...........
        ...........""",
        "second",
    )
    # the ring has a gap at g7: no 4 x 4 O, only the 2 x 2 at d7-e8
    assert values(board, "first")["O"] == 4
    closed = drawn(
        """
        ...........
        ...........
        ...........
        ...XXXX....
        ...XXOX....
        ...X..X....
        ...XXXX....
        ...........
        ...........
        ...........
        ...........""",
        "second",
    )
    assert values(closed, "first")["O"] == 13
    assert closed.outcome() == Outcome("first", EndReason.FORMATION)


def test_rule_7_a_gap_in_the_boundary_breaks_the_o():
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...........
        ...XXX.....
        ...X.X.....
        ...X.O.....
        ...........
        ...........
        ...........
        ...........""",
        "second",
    )
    assert values(board, "first")["O"] == 0


# -- rule 8: the tracks -----------------------------------------------------------------


def test_rule_8_tracks_and_fields():
    assert FIELDS == {"O": (4, 6, 8, 9), "L": (5, 6, 7, 8), "I": (4, 5, 6, 7), "X": (4, 5, 6, 7)}
    assert KINDS == ("O", "L", "I", "X")


# -- rule 9: the scoreboard --------------------------------------------------------------


def test_rule_9_the_larger_best_holds_the_record():
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...........
        ...........
        .XXXXXX....
        ...........
        .OOOO......
        ...........
        ...........
        ...........""",
        "second",
    )
    assert board.scoreboard_text().splitlines()[2] == "I 4:- 5:- 6:first 7:-"
    track = board.scoreboard()["I"]
    assert (track.record, track.holders, track.field, track.position) == (6, ("first",), 6, 3)


def test_rule_9_a_tie_gives_both_a_marker_on_the_same_field():
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...........
        ...........
        .XXXXX.....
        ...........
        .OOOOO.....
        ...........
        ...........
        ...........""",
        "first",
    )
    assert board.scoreboard_text() == "O 4:- 6:- 8:- 9:-\nL 5:- 6:- 7:- 8:-\nI 4:- 5:both 6:- 7:-\nX 4:- 5:- 6:- 7:-"
    assert board.scoreboard()["I"].holders == ("first", "second")


def test_rule_9_every_track_can_be_marked():
    board = drawn(
        """
        XX.........
        XX.........
        ...........
        X..........
        X..........
        XXX........
        ...........
        ......O....
        .......O...
        ........O..
        .........O.""",
        "second",
    )
    assert (
        board.scoreboard_text()
        == "O 4:first 6:- 8:- 9:-\nL 5:first 6:- 7:- 8:-\nI 4:- 5:- 6:- 7:-\nX 4:second 5:- 6:- 7:-"
    )


# -- rule 10: the automatic win -----------------------------------------------------------

AUTOMATIC = [
    ("I", {(5, f): "X" for f in range(1, 8)}, "i6"),  # 7 + 1 = 8
    ("X", {(k, k): "X" for k in range(1, 8)}, "a1"),  # 7 + 1 = 8
    ("L", {(1, f): "X" for f in range(1, 5)} | {(r, 1): "X" for r in range(1, 6)}, "b7"),  # 4 + 5 - 1 = 8 -> 9
    ("O", {(r, f): "X" for r in (3, 4, 5) for f in (2, 3, 4)} | {(3, 5): "X", (4, 5): "X"}, "f6"),  # 9 -> 3 x 4 = 12
]


@pytest.mark.parametrize("kind, cells, move", AUTOMATIC, ids=[a[0] for a in AUTOMATIC])
def test_rule_10_a_formation_above_the_top_wins_at_once(kind, cells, move):
    board = drawn(picture_with(cells), "first")
    assert board.outcome() is None
    assert values(board, "first")[kind] == FIELDS[kind][-1]
    board.play(move)
    assert values(board, "first")[kind] > FIELDS[kind][-1]
    assert board.outcome() == Outcome("first", EndReason.FORMATION)
    assert board.legal_moves() == []
    with pytest.raises(IllegalMoveError):
        board.play("k11")
    board.pop()
    assert board.outcome() is None


def test_rule_10_a_loaded_position_with_a_win_belongs_to_the_last_mover():
    picture = picture_with({(5, f): "X" for f in range(8)})
    assert drawn(picture, "second").outcome() == Outcome("first", EndReason.FORMATION)
    with pytest.raises(Exception, match="automatic win"):
        drawn(picture, "first")


# -- rule 11: the endings ------------------------------------------------------------------


LATTICE = """
    XXOO.XXOO.X
    O.XXOO.XXOO
    XOO.XXOO.XX
    .XXOO.XXOO.
    OO.XXOO.XXO
    XXOO.XXOO.X
    O.XXOO.XXOO
    XOO.XXOO.XX
    .XXOO.XXOO.
    OO.XXOO.XXO
    XXOO.XXOO.X"""
"""First on the classes 0, 1 of (file + 2·rank) mod 5, second on 2, 3: each walls the other off."""


def test_rule_11_settled_when_no_marker_can_change():
    board = drawn(LATTICE, "second")
    assert len(board.legal_moves()) == 0 and board.count_moves() == 0
    assert board.outcome() == Outcome(None, EndReason.SETTLED)
    assert board.is_settled()


def test_rule_11_not_settled_while_a_first_field_is_still_reachable():
    # open one lane: second's stones on rank 6 leave first room for an I of 4 there
    rows = LATTICE.strip().splitlines()
    rows[5] = rows[5].strip().replace("O", ".")
    rows[0] = rows[0].strip().replace("X", ".", 4)  # keep the stone counts in step
    board = drawn("\n".join(rows), "second")
    assert board.outcome() is None and not board.is_settled()


def test_rule_11_settled_ending_from_a_lattice_game():
    import olix_reference as ref

    board = OlixBoard()
    for square in ref.random_squares("lattice", 1):
        board.play(OlixMove(square))
        if board.outcome():
            break
    assert outcome_of(board).reason == "settled"
    assert len(board.move_stack) < 100
    assert board.is_settled()
    last = board.pop()
    assert last is not None
    assert board.outcome() is None and not board.is_settled()
    board.play(last)
    assert outcome_of(board).reason == "settled"


def test_rule_11_the_game_ends_after_all_100_stones():
    import olix_reference as ref

    board = OlixBoard()
    for square in ref.random_squares("uniform", 3):
        board.play(OlixMove(square))
        if board.outcome():
            break
    assert outcome_of(board).reason == "stones" and len(board.move_stack) == 100
    assert outcome_of(board).winner == board.scoreboard().leader()
    assert board.legal_moves() == [] and board.count_moves() == 0


def test_rule_11_resignation_the_other_player_wins():
    board = OlixBoard()
    board.play("a1")
    assert board.resign() == Outcome("first", EndReason.RESIGNED)
    assert board.legal_moves() == []
    with pytest.raises(GameOverError):
        board.end()
    assert board.pop() is None and board.outcome() is None


def test_rule_11_end_by_agreement_is_scored():
    board = drawn(
        """
        ...........
        ...........
        ...........
        ...........
        ...........
        .XXXXXX....
        ...........
        .OOOO......
        ...........
        ...........
        ...........""",
        "second",
    )
    assert board.end() == Outcome("first", EndReason.AGREED)
    assert outcome_of(board).text() == "first agreed"
    with pytest.raises(GameOverError):
        board.resign()
    assert board.pop() is None and board.outcome() is None


def test_rule_11_end_by_agreement_on_an_empty_board_is_a_draw():
    assert OlixBoard().end() == Outcome(None, EndReason.AGREED)


# -- rule 12: the winner at the end ---------------------------------------------------------


def scored(first: dict[str, int], second: dict[str, int]) -> str | None:
    from olixono.olix import scoreboard_of

    return scoreboard_of(tuple(first.get(k, 0) for k in KINDS), tuple(second.get(k, 0) for k in KINDS)).leader()


def test_rule_12_more_markers_wins():
    assert scored({"I": 4, "X": 4}, {"O": 9}) == "first"
    assert scored({"I": 7}, {"O": 4, "L": 5}) == "second"


def test_rule_12_ties_on_a_track_count_for_both():
    assert scored({"I": 5, "X": 4}, {"I": 5}) == "first"
    assert scored({"I": 5}, {"I": 5}) is None


def test_rule_12_tie_break_by_field_positions_from_the_highest():
    # first: I on field 4 and X on field 1; second: O on field 3 and L on field 3 -> 4 > 3
    assert scored({"I": 7, "X": 4}, {"O": 8, "L": 7}) == "first"
    # first 3,3 against second 3,2: second differs at the second marker
    assert scored({"I": 6, "X": 6}, {"O": 8, "L": 6}) == "first"
    assert scored({"I": 6, "X": 5}, {"O": 8, "L": 7}) == "second"


def test_rule_12_equal_positions_are_a_draw():
    assert scored({"I": 6, "X": 5}, {"O": 8, "L": 6}) is None
    assert scored({}, {}) is None


# -- rule 13: move text ------------------------------------------------------------------------


@pytest.mark.parametrize("text, square, canonical", [("f6", 60, "f6"), ("K11", 120, "k11"), ("a1", 0, "a1")])
def test_rule_13_move_text(text, square, canonical):
    move = OlixMove.from_text(text)
    assert move.square == square and move.text() == canonical and str(move) == canonical
    assert repr(move) == f"OlixMove.from_text({canonical!r})"


@pytest.mark.parametrize("text", ["", "f", "f0", "f12", "l1", "f06", "6f", "f 6", " f6", "ff6", "f6 "])
def test_rule_13_bad_move_text_names_the_input(text):
    with pytest.raises(InvalidMoveError) as info:
        OlixMove.from_text(text)
    assert repr(text) in str(info.value)
