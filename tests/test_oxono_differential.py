"""The fast engine against the slow reference, ply by ply, over seeded games.

At every ply both engines must agree on the sorted legal move texts, the
outcome and the position text; then one random legal move is played in both.
Uniform random games rarely enclose a totem, so most games here are steered:
pawns go next to the totems, and winning moves are avoided so that games run
long (to the 32nd pawn and out of a symbol). The reference counts how often
each rare case was reachable, and every case must have come up.
"""

from __future__ import annotations

import random
from collections import Counter

import hypothesis
import oxono_reference as ref
import pytest
from hypothesis import strategies as st

from olixono.common import InvalidPositionError
from olixono.oxono import OxonoBoard

RARE_CASES = (
    "jump",  # an enclosed totem jumps (rule 8)
    "relocation",  # an enclosed totem that cannot jump goes anywhere (rule 9)
    "pawn anywhere",  # no free neighbour for the pawn (rule 10)
    "pawn on vacated square",  # the pawn goes where the totem stood (rule 10)
    "jump over the other totem",  # the run holds the other totem (rule 8)
    "one totem only",  # the player is out of one symbol (rule 5)
    "win colour",
    "win symbol",
    "win both",  # one pawn makes a colour and a symbol line: reason colour
    "win with a line of 5",
    "draw",  # all 32 pawns placed (rule 12)
    "win with 32nd pawn",
)


def cases_available(state: ref.State) -> set[str]:
    """The rare cases among the legal moves of ``state``, by the reference."""
    found = set()
    usable = ref.usable_totems(state)
    if len(usable) == 1:
        found.add("one totem only")
    for totem in usable:
        kind, destinations = ref.totem_destinations(state, totem)
        here, other = state.totems[totem], state.totems[ref.other_symbol(totem)]
        if kind != "rook":
            found.add(kind)
        for destination in destinations:
            pawn_kind, pawns = ref.pawn_squares(state, totem, destination)
            if pawn_kind == "anywhere":
                found.add("pawn anywhere")
            if here in pawns:
                found.add("pawn on vacated square")
            if kind == "jump" and between(here, destination, other):
                found.add("jump over the other totem")
    return found


def between(start: ref.Square, end: ref.Square, square: ref.Square) -> bool:
    """Whether ``square`` lies strictly between ``start`` and ``end`` on one line."""
    (f0, r0), (f1, r1), (f, r) = start, end, square
    if f0 == f1 == f:
        return min(r0, r1) < r < max(r0, r1)
    if r0 == r1 == r:
        return min(f0, f1) < f < max(f0, f1)
    return False


def has_line_of_five(state: ref.State) -> bool:
    """Whether 5 adjacent pawns in a row or column share a colour or a symbol."""
    for line in ref.lines_of_four():
        (f0, r0), (f1, r1) = line[0], line[1]
        extended = [*line, (line[-1][0] + f1 - f0, line[-1][1] + r1 - r0)]
        if not all(square in state.pawns for square in extended):
            continue
        pawns = [state.pawns[square] for square in extended]
        if len({c for c, _ in pawns}) == 1 or len({s for _, s in pawns}) == 1:
            return True
    return False


def cases_reached(after: ref.State) -> set[str]:
    """The rare ways a game can end, seen in the position just after a move."""
    outcome = ref.outcome(after)
    if outcome is None:
        return set()
    winner, reason = outcome
    if winner is None:
        return {"draw"}
    found = {f"win {reason}"}
    colour_line, symbol_line = ref.completed_lines(after)
    if colour_line and symbol_line:
        found.add("win both")
    if len(after.pawns) == ref.ALL_PAWNS:
        found.add("win with 32nd pawn")
    if has_line_of_five(after):
        found.add("win with a line of 5")
    return found


def assert_agree(board: OxonoBoard, state: ref.State, history: list[str]) -> None:
    """Both engines see the same position, moves and outcome."""
    context = f"after {' '.join(history) or 'no moves'}\n{ref.to_diagram(state)}"
    assert board.position() == ref.position_text(state), context
    assert board.turn == state.turn, context
    fast_moves = sorted(move.text() for move in board.legal_moves())
    reference_moves = sorted(ref.legal_moves(state))
    if fast_moves != reference_moves:
        only_fast = sorted(set(fast_moves) - set(reference_moves))
        only_reference = sorted(set(reference_moves) - set(fast_moves))
        pytest.fail(
            f"moves differ in {board.position()!r} {context}\nonly fast: {only_fast}\nonly reference: {only_reference}"
        )
    outcome = board.outcome()
    fast_outcome = None if outcome is None else (outcome.winner, outcome.reason)
    assert fast_outcome == ref.outcome(state), f"{board.position()!r} {context}"


def choose(board: OxonoBoard, state: ref.State, rng: random.Random, style: str) -> str:
    """One legal move: ``uniform``, or steered (``clingy``, ``long``, both)."""
    moves = sorted(move.text() for move in board.legal_moves())
    if style == "uniform":
        return rng.choice(moves)
    if style in ("long", "clingy-long") and rng.random() < 0.97:
        quiet = []
        for text in moves:
            board.push(board.parse_move(text))
            if board.outcome() is None:
                quiet.append(text)
            board.pop()
        moves = quiet or moves
    if style in ("clingy", "clingy-long") and rng.random() < 0.85:
        # Crowd the totems: go where pawns are, and put pawns around the other totem.
        def crowding(text: str) -> int:
            totem, to, pawn = ref.parse_move(text)
            other = state.totems[ref.other_symbol(totem)]
            around = sum(ref.occupied_for(state, totem, n) for n in ref.neighbours(to))
            return around + 2 * (pawn in ref.neighbours(other))

        best = max(map(crowding, moves))
        moves = [text for text in moves if crowding(text) == best]
    return rng.choice(moves)


def play_game(seed: int, style: str, counts: Counter[str], perft_every: int = 0) -> None:
    rng = random.Random(seed)
    board = OxonoBoard()
    state = ref.start()
    history: list[str] = []
    while True:
        assert_agree(board, state, history)
        counts.update(cases_available(state))
        # perft has its own counting path in the fast engine: check it too.
        assert board.perft(1) == len(ref.legal_moves(state)), board.position()
        if perft_every and len(history) % perft_every == 0:
            assert board.perft(2) == ref.perft(state, 2), board.position()
        if ref.outcome(state) is not None:
            break
        loaded = OxonoBoard.from_position(board.position())
        assert loaded.position() == board.position()
        text = choose(board, state, rng, style)
        before = board.position()
        board.push(board.parse_move(text))
        board.pop()
        assert board.position() == before, f"push/pop of {text} changed {before!r}"
        board.play(text)
        after = ref.apply(state, text)
        counts.update(cases_reached(after))
        state = after
        history.append(text)
    # Unwinding the whole game returns to the start.
    copy = board.copy()
    for text in reversed(history):
        popped = board.pop()
        assert popped is not None and popped.text() == text
    assert board.position() == ref.position_text(ref.start())
    assert copy.position() == ref.position_text(state)


STYLES = {"uniform": range(60), "clingy": range(60, 120), "long": range(120, 160), "clingy-long": range(160, 200)}


@pytest.mark.parametrize(
    ("style", "seed"),
    [(style, seed) for style, seeds in STYLES.items() for seed in seeds],
)
def test_engines_agree_over_a_game(style, seed):
    play_game(seed, style, Counter(), perft_every=4 if seed % 5 == 0 else 0)


def test_every_rare_case_comes_up():
    # Replays part of the games above, so that it stands alone (and under xdist).
    counts: Counter[str] = Counter()
    for style, seeds in STYLES.items():
        for seed in list(seeds)[:25]:
            play_game(seed, style, counts)
    missing = [case for case in RARE_CASES if counts[case] == 0]
    assert not missing, f"never came up: {missing}; counts: {dict(counts)}"


@pytest.mark.slow
def test_perft_depth_4_from_the_start_agrees():
    # Not a published count: the first depth at which a totem can be enclosed.
    assert OxonoBoard().perft(4) == ref.perft(ref.start(), 4) == 6_470_416


@pytest.mark.parametrize("seed", range(10))
def test_perft_depth_3_agrees_in_crowded_positions(seed):
    rng = random.Random(seed)
    board, state = OxonoBoard(), ref.start()
    checked = 0
    while ref.outcome(state) is None:
        if len(state.pawns) >= 12 and len(state.pawns) % 4 == 0:
            assert board.perft(3) == ref.perft(state, 3), board.position()
            checked += 1
        text = choose(board, state, rng, "clingy-long")
        board.play(text)
        state = ref.apply(state, text)
    assert checked


@pytest.mark.slow
@pytest.mark.parametrize("block", range(10))
def test_engines_agree_over_many_more_games(block):
    counts: Counter[str] = Counter()
    for seed in range(1000 + 100 * block, 1100 + 100 * block):
        style = ("uniform", "clingy", "long", "clingy-long")[seed % 4]
        play_game(seed, style, counts, perft_every=10)


# --- arbitrary positions, not only those random play reaches -----------------


@st.composite
def positions(draw) -> ref.State:
    """Any position the pawn counts allow, with no line on the board yet."""
    placed = draw(st.integers(min_value=0, max_value=31) | st.integers(min_value=14, max_value=31))
    squares = draw(st.permutations(ref.all_squares()))
    pink_count, black_count = (placed + 1) // 2, placed // 2
    pawns: dict[ref.Square, ref.Pawn] = {}
    colours = ["pink"] * pink_count + ["black"] * black_count
    for colour, count in (("pink", pink_count), ("black", black_count)):
        xs = draw(st.integers(min_value=max(0, count - 8), max_value=min(8, count)))
        symbols = ["X"] * xs + ["O"] * (count - xs)
        for symbol in symbols:
            pawns[squares[len(pawns)]] = (colour, symbol)
    assert len(pawns) == len(colours)
    totems = {"X": squares[placed], "O": squares[placed + 1]}
    state = ref.State(pawns=pawns, totems=totems, turn="pink" if placed % 2 == 0 else "black")
    hypothesis.assume(ref.outcome(state) is None)
    return state


@hypothesis.settings(max_examples=300, deadline=None, derandomize=True)
@hypothesis.given(positions(), st.randoms(use_true_random=False))
def test_engines_agree_on_arbitrary_positions(state, rng):
    text = ref.position_text(state)
    board = OxonoBoard.from_position(text)
    assert_agree(board, state, [])
    moves = sorted(ref.legal_moves(state))
    for move in rng.sample(moves, min(10, len(moves))):
        board.push(board.parse_move(move))
        after = ref.apply(state, move)
        assert_agree(board, after, [move])
        board.pop()
    assert board.position() == text


# --- position text: both engines accept and reject alike ---------------------

POSITION_TEXTS = [
    "6/6/6/6/6/6 pink d3 c4",
    "6/6/6/6/6/6 pink c4 d3",  # the totems swapped (a game option)
    "X5/6/6/6/6/5x pink d3 c4",
    "X5/6/6/6/6/6 black d3 c4",
    "XOXO2/oxo3/6/6/6/6 black a1 b1",  # a line already made: game over
    "6/6/6/6/6/6  pink d3 c4",
    "6/6/6/6/6/6 pink d3 c4 ",
    " 6/6/6/6/6/6 pink d3 c4",
    "6/6/6/6/6/6 Pink d3 c4",
    "6/6/6/6/6/6 pink D3 c4",
    "6/6/6/6/6/6 pink d3",
    "6/6/6/6/6/6 pink d3 c4 x",
    "33/6/6/6/6/6 pink d3 c4",
    "06/6/6/6/6/6 pink d3 c4",
    "7/6/6/6/6/6 pink d3 c4",
    "5/6/6/6/6/6 pink d3 c4",
    "6/6/6/6/6/6/6 pink d3 c4",
    "X5/6/6/6/6/5x black d3 c4",
    "X5/6/6/6/6/6 pink d3 c4",
    "x5/6/6/6/6/6 black d3 c4",
    "6/6/6/6/6/6 pink d3 d3",
    "6/6/6/6/6/6 pink g3 c4",
    "X5/6/6/6/6/6 black a6 c4",
    "XXXXXX/XXXooo/ooooo1/6/6/6 black a1 b1",
    "Y5/6/6/6/6/6 black a1 b1",
    "6/6/6/6/6/6 black c4 d3",
]


Loaded = tuple[str, object] | str
"""A position's canonical text and outcome, or ``"rejected"``."""


def load_both(text: str) -> tuple[Loaded, Loaded]:
    """``(reference, fast)``: each the canonical text and outcome, or ``"rejected"``."""
    reference: Loaded
    fast: Loaded
    try:
        state = ref.from_position(text)
        reference = (ref.position_text(state), ref.outcome(state))
    except ValueError:
        reference = "rejected"
    try:
        board = OxonoBoard.from_position(text)
        outcome = board.outcome()
        fast = (board.position(), None if outcome is None else (outcome.winner, outcome.reason))
    except InvalidPositionError:
        fast = "rejected"
    return reference, fast


@pytest.mark.parametrize("text", POSITION_TEXTS)
def test_position_texts_are_accepted_alike(text):
    reference, fast = load_both(text)
    assert fast == reference
    if reference != "rejected":
        assert reference[0] == text  # accepted texts are canonical already


@hypothesis.settings(max_examples=300, deadline=None, derandomize=True)
@hypothesis.given(positions(), st.data())
def test_mutated_position_texts_are_accepted_alike(state, data):
    text = list(ref.position_text(state))
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        index = data.draw(st.integers(min_value=0, max_value=len(text) - 1))
        text[index] = data.draw(st.sampled_from("0123456789XOxo/ abcdefgpinkblack"))
    reference, fast = load_both("".join(text))
    assert fast == reference
