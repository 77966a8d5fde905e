"""The Oxono reference checked on its own, before it judges the fast engine.

Perft from the start must match the published counts (docs/oxono.md, rule 14), and
the reference must respect the board's symmetries: the rules never prefer a
direction, a colour or a symbol, so mirroring a position mirrors its moves.
"""

from __future__ import annotations

import random

import oxono_reference as ref
import pytest

START = "6/6/6/6/6/6 pink d3 c4"


@pytest.mark.parametrize(("depth", "count"), [(1, 68), (2, 3_612), (3, 162_680)])
def test_perft_from_the_start(depth, count):
    assert ref.perft(ref.start(), depth) == count


def test_start_position_text():
    assert ref.position_text(ref.start()) == START
    assert ref.from_position(START) == ref.start()


def random_playout(seed: int, plies: int | None = None):
    """Yield every state of one seeded random game (the last may be terminal)."""
    rng = random.Random(seed)
    state = ref.start()
    yield state
    while ref.outcome(state) is None and (plies is None or plies > 0):
        state = ref.apply(state, rng.choice(sorted(ref.legal_moves(state))))
        plies = None if plies is None else plies - 1
        yield state


@pytest.mark.parametrize("seed", range(20))
def test_playout_invariants(seed):
    for ply, state in enumerate(random_playout(seed)):
        assert len(state.pawns) == ply
        assert ref.from_position(ref.position_text(state)) == state
        moves = ref.legal_moves(state)
        # Terminal if and only if no legal move (rule 12: never stuck before).
        assert (ref.outcome(state) is None) == bool(moves)
        for move in moves:
            assert ref.move_text(*ref.parse_move(move)) == move
    assert ref.outcome(state) is not None
    assert len(state.pawns) <= 32


@pytest.mark.parametrize(
    "text",
    [
        "6/6/6/6/6 pink d3 c4",  # five rows
        "6/6/6/6/6/6 white d3 c4",  # no such player
        "6/6/6/6/6/6 pink d3 d3",  # totems share a square
        "6/6/6/6/6/6 pink D3 c4",  # squares are lower case
        "33/6/6/6/6/6 pink d3 c4",  # runs are maximal
        "7/6/6/6/6/6 pink d3 c4",  # too long a row
        "X5/6/6/6/6/6 pink d3 c4",  # pink placed one, yet pink to move
        "6/6/6/6/6/6 black d3 c4",  # black cannot move first
        "6/6/6/6/6/3X2 pink d1 c4",  # totem on a pawn (and counts off)
        "XXXXXX/XXXooo/ooooo1/6/6/6 black a1 b1",  # nine pink X pawns
    ],
)
def test_bad_position_text_is_rejected(text):
    with pytest.raises(ValueError):
        ref.from_position(text)


def test_illegal_move_is_rejected():
    with pytest.raises(ValueError):
        ref.apply(ref.start(), "Xd3d4")  # the totem must move
    with pytest.raises(ValueError):
        ref.apply(ref.start(), "Xc4c5")  # onto the other totem


def test_move_input_is_case_insensitive():
    assert ref.apply(ref.start(), "oC6C5") == ref.apply(ref.start(), "Oc6c5")


# --- symmetries ------------------------------------------------------------

TRANSFORMS = {
    "mirror files": lambda f, r: (5 - f, r),
    "mirror ranks": lambda f, r: (f, 5 - r),
    "transpose": lambda f, r: (r, f),
    "rotate": lambda f, r: (5 - r, f),
}


def transform_state(state, square_map, swap_symbols=False, swap_colours=False):
    def symbol(s):
        return ref.other_symbol(s) if swap_symbols else s

    def colour(c):
        return ref.other(c) if swap_colours else c

    pawns = {square_map(*sq): (colour(c), symbol(s)) for sq, (c, s) in state.pawns.items()}
    totems = {symbol(s): square_map(*sq) for s, sq in state.totems.items()}
    return ref.State(pawns=pawns, totems=totems, turn=colour(state.turn))


def transform_move(text, square_map, swap_symbols=False):
    totem, to, pawn = ref.parse_move(text)
    if swap_symbols:
        totem = ref.other_symbol(totem)
    return ref.move_text(totem, square_map(*to), square_map(*pawn))


def sample_states(seeds):
    for seed in seeds:
        for ply, state in enumerate(random_playout(seed)):
            if ply % 3 == 0:
                yield state


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_moves_follow_board_symmetries(transform):
    square_map = TRANSFORMS[transform]
    for state in sample_states(range(4)):
        image = transform_state(state, square_map)
        assert ref.legal_moves(image) == {transform_move(m, square_map) for m in ref.legal_moves(state)}
        assert ref.outcome(image) == ref.outcome(state)


def test_moves_ignore_which_colour_is_which():
    identity = lambda f, r: (f, r)  # noqa: E731
    for state in sample_states(range(4, 8)):
        # Swapping every pawn's colour and the turn changes no move: the rules
        # never look at colour except through the mover's own supply.
        image = transform_state(state, identity, swap_colours=True)
        assert ref.legal_moves(image) == ref.legal_moves(state)


def test_moves_ignore_which_symbol_is_which():
    identity = lambda f, r: (f, r)  # noqa: E731
    for state in sample_states(range(8, 12)):
        image = transform_state(state, identity, swap_symbols=True)
        assert ref.legal_moves(image) == {
            transform_move(m, identity, swap_symbols=True) for m in ref.legal_moves(state)
        }


# --- the rare cases the differential test relies on -------------------------


def test_diagram_round_trip():
    text = ref.from_diagram(
        """
        .  .  .  .  .  .
        .  .  .  .  .  .
        .  . [O] .  .  .
        .  .  . [X] .  .
        .  .  .  .  .  .
        .  .  .  .  .  .
        """,
        "pink",
    )
    assert text == START


def names(squares):
    return [ref.name(square) for square in squares]


def test_reference_sees_a_jump():
    state = ref.from_position(
        ref.from_diagram(
            """
            .  .  .  .  .  .
            .  .  .  .  .  .
            .  .  x  .  .  .
            .  X [O] o  .  .
            .  .  O  .  .  .
            .  .  .  .  . [X]
            """,
            "pink",
        )
    )
    kind, destinations = ref.totem_destinations(state, "O")
    assert (kind, names(destinations)) == ("jump", ["c5", "c1", "a3", "e3"])


def test_reference_sees_a_relocation():
    state = ref.from_position(
        ref.from_diagram(
            """
            [O] .  .  .  .  .
             x  .  .  .  .  .
             O  .  .  .  .  .
             o  .  .  .  .  .
             X  .  .  .  .  .
            [X] O  x  X  o  X
            """,
            "black",
        )
    )
    kind, destinations = ref.totem_destinations(state, "X")
    assert kind == "relocation"
    assert len(destinations) == 36 - 9 - 1 - 1  # pawns, the other totem, its own square
    assert ref.pawn_squares(state, "X", ref.parse_name("b2")) == ("adjacent", [ref.parse_name(n) for n in ("b3", "c2")])
    assert ref.totem_destinations(state, "O") == ("rook", [ref.parse_name(f"{f}6") for f in "bcdef"])
