"""A slow, plainly written Oxono reference, for checking the fast engine.

Written from the numbered rules of docs/oxono.md alone, one small function per
rule, for clarity and not for speed. It must never import ``olixono.oxono``:
its whole worth is that it shares no code (and so no bug) with the engine.

A state is an immutable :class:`State`; every function here is pure:

* ``from_position(text)`` / ``position_text(state)`` – the position text;
* ``legal_moves(state)`` – the set of canonical move texts;
* ``apply(state, text)`` – the state after a legal move (any letter case);
* ``outcome(state)`` – ``None``, ``(winner, "colour" | "symbol")`` or
  ``(None, "exhausted")``.

Squares are ``(file, rank)`` pairs counted from 0: ``a1`` is ``(0, 0)``,
``f6`` is ``(5, 5)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SIZE = 6
FILES = "abcdef"
PLAYERS = ("pink", "black")
SYMBOLS = ("X", "O")
PAWNS_PER_SYMBOL = 8  # rule 3: 16 pawns each, 8 per symbol
ALL_PAWNS = 2 * 2 * PAWNS_PER_SYMBOL  # 32
LINE = 4
DIRECTIONS = ((0, 1), (0, -1), (-1, 0), (1, 0))  # up, down, left, right

Square = tuple[int, int]
Pawn = tuple[str, str]  # (colour, symbol)


@dataclass(frozen=True)
class State:
    """A position: pawns by square, the two totems, and who moves next."""

    pawns: dict[Square, Pawn] = field(default_factory=dict)
    totems: dict[str, Square] = field(default_factory=lambda: {"X": (3, 2), "O": (2, 3)})
    turn: str = "pink"


# --- squares ---------------------------------------------------------------


def on_board(square: Square) -> bool:
    file, rank = square
    return 0 <= file < SIZE and 0 <= rank < SIZE


def all_squares() -> list[Square]:
    return [(file, rank) for rank in range(SIZE) for file in range(SIZE)]


def name(square: Square) -> str:
    file, rank = square
    return f"{FILES[file]}{rank + 1}"


def parse_name(text: str) -> Square:
    text = text.lower()
    if len(text) != 2 or text[0] not in FILES or text[1] not in "123456":
        raise ValueError(f"not a square: {text!r}")
    return (FILES.index(text[0]), int(text[1]) - 1)


def step(square: Square, direction: tuple[int, int]) -> Square:
    return (square[0] + direction[0], square[1] + direction[1])


def neighbours(square: Square) -> list[Square]:
    """The orthogonal neighbours that are on the board."""
    return [n for n in (step(square, d) for d in DIRECTIONS) if on_board(n)]


def other(player: str) -> str:
    return "black" if player == "pink" else "pink"


def other_symbol(symbol: str) -> str:
    return "O" if symbol == "X" else "X"


# --- position text ---------------------------------------------------------


def start() -> State:
    """Rule 4: no pawns, totem O on c4, totem X on d3, pink to move."""
    return State()


def from_position(text: str) -> State:
    """Parse ``<rows> <turn> <X-totem square> <O-totem square>`` strictly."""
    parts = text.split(" ")
    if len(parts) != 4:
        raise ValueError(f"position needs 4 fields: {text!r}")
    rows_text, turn, x_text, o_text = parts
    rows = rows_text.split("/")
    if len(rows) != SIZE:
        raise ValueError(f"position needs {SIZE} rows: {text!r}")
    pawns: dict[Square, Pawn] = {}
    for row_index, row in enumerate(rows):
        rank = SIZE - 1 - row_index
        file = 0
        previous_was_digit = False
        for char in row:
            if char in "123456":
                if previous_was_digit:
                    raise ValueError(f"empty run not maximal in {row!r}")
                file += int(char)
                previous_was_digit = True
            elif char in "XOxo":
                if file < SIZE:
                    colour = "pink" if char.isupper() else "black"
                    pawns[(file, rank)] = (colour, char.upper())
                file += 1
                previous_was_digit = False
            else:
                raise ValueError(f"bad character {char!r} in {text!r}")
        if file != SIZE:
            raise ValueError(f"row {row!r} does not have {SIZE} squares")
    if turn not in PLAYERS:
        raise ValueError(f"bad turn {turn!r}")
    if x_text != x_text.lower() or o_text != o_text.lower():
        raise ValueError(f"totem squares are lower case: {text!r}")
    totems = {"X": parse_name(x_text), "O": parse_name(o_text)}
    state = State(pawns=pawns, totems=totems, turn=turn)
    check_consistent(state)
    return state


def check_consistent(state: State) -> None:
    """Reject positions that no game from the start can reach by counting."""
    x_totem, o_totem = state.totems["X"], state.totems["O"]
    if x_totem == o_totem:
        raise ValueError("both totems on one square")
    if x_totem in state.pawns or o_totem in state.pawns:
        raise ValueError("a totem stands on a pawn")
    for player in PLAYERS:
        for symbol in SYMBOLS:
            if pawns_left(state, player, symbol) < 0:
                raise ValueError(f"{player} has placed more than 8 {symbol} pawns")
    pink, black = placed(state, "pink"), placed(state, "black")
    expected_black = pink if state.turn == "pink" else pink - 1
    if black != expected_black:
        raise ValueError(f"{pink} pink and {black} black pawns, yet {state.turn} to move")


def position_text(state: State) -> str:
    rows = []
    for rank in reversed(range(SIZE)):
        row = ""
        empty = 0
        for file in range(SIZE):
            pawn = state.pawns.get((file, rank))
            if pawn is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            colour, symbol = pawn
            row += symbol if colour == "pink" else symbol.lower()
        if empty:
            row += str(empty)
        rows.append(row)
    x_totem, o_totem = name(state.totems["X"]), name(state.totems["O"])
    return f"{'/'.join(rows)} {state.turn} {x_totem} {o_totem}"


# --- pawn supply (rules 3 and 5) -------------------------------------------


def placed(state: State, player: str) -> int:
    return sum(1 for colour, _ in state.pawns.values() if colour == player)


def pawns_left(state: State, player: str, symbol: str) -> int:
    used = sum(1 for pawn in state.pawns.values() if pawn == (player, symbol))
    return PAWNS_PER_SYMBOL - used


def usable_totems(state: State) -> list[str]:
    """Rule 5: the totems whose symbol the player to move still holds."""
    return [s for s in SYMBOLS if pawns_left(state, state.turn, s) > 0]


# --- totem moves (rules 6-9) -----------------------------------------------


def occupied_for(state: State, moving: str, square: Square) -> bool:
    """Rule 6 for the totem ``moving``: a pawn or the *other* totem is there.

    The moving totem's own square is never occupied for itself: it leaves it.
    """
    return square in state.pawns or square == state.totems[other_symbol(moving)]


def is_enclosed(state: State, moving: str) -> bool:
    """Rule 8: every orthogonal neighbour is occupied or off the board."""
    here = state.totems[moving]
    return all(not on_board(n) or occupied_for(state, moving, n) for n in (step(here, d) for d in DIRECTIONS))


def rook_destinations(state: State, moving: str) -> list[Square]:
    """Rule 7: slide one or more squares over free squares only."""
    result = []
    for direction in DIRECTIONS:
        square = step(state.totems[moving], direction)
        while on_board(square) and not occupied_for(state, moving, square):
            result.append(square)
            square = step(square, direction)
    return result


def jump_destinations(state: State, moving: str) -> list[Square]:
    """Rule 8: pass the unbroken run of occupied squares, land just after it."""
    result = []
    for direction in DIRECTIONS:
        square = step(state.totems[moving], direction)
        while on_board(square) and occupied_for(state, moving, square):
            square = step(square, direction)
        # A run reaching the edge (or a totem on the edge) gives no move.
        if on_board(square) and square != step(state.totems[moving], direction):
            result.append(square)
    return result


def relocation_destinations(state: State, moving: str) -> list[Square]:
    """Rule 9: any free square other than the one the totem stands on."""
    here = state.totems[moving]
    return [s for s in all_squares() if s != here and not occupied_for(state, moving, s)]


def totem_destinations(state: State, moving: str) -> tuple[str, list[Square]]:
    """The kind of totem move (``rook``, ``jump``, ``relocation``) and where to."""
    if not is_enclosed(state, moving):
        return "rook", rook_destinations(state, moving)
    jumps = jump_destinations(state, moving)
    if jumps:
        return "jump", jumps
    return "relocation", relocation_destinations(state, moving)


# --- pawn placement (rule 10) ----------------------------------------------


def free_after_totem_move(state: State, moving: str, destination: Square, square: Square) -> bool:
    """Free once ``moving`` stands on ``destination``; its old square is free."""
    return (
        on_board(square)
        and square not in state.pawns
        and square != destination
        and square != state.totems[other_symbol(moving)]
    )


def pawn_squares(state: State, moving: str, destination: Square) -> tuple[str, list[Square]]:
    """Rule 10: ``adjacent`` free squares, else ``anywhere`` free on the board."""
    adjacent = [n for n in neighbours(destination) if free_after_totem_move(state, moving, destination, n)]
    if adjacent:
        return "adjacent", adjacent
    return "anywhere", [s for s in all_squares() if free_after_totem_move(state, moving, destination, s)]


# --- moves -----------------------------------------------------------------


def move_text(totem: str, destination: Square, pawn: Square) -> str:
    return f"{totem}{name(destination)}{name(pawn)}"


def parse_move(text: str) -> tuple[str, Square, Square]:
    if len(text) != 5 or text[0].upper() not in SYMBOLS:
        raise ValueError(f"not a move: {text!r}")
    return text[0].upper(), parse_name(text[1:3]), parse_name(text[3:5])


def legal_moves(state: State) -> set[str]:
    """Every legal move's canonical text; empty once the game is over."""
    if outcome(state) is not None:
        return set()
    moves = set()
    for totem in usable_totems(state):
        _, destinations = totem_destinations(state, totem)
        for destination in destinations:
            _, pawns = pawn_squares(state, totem, destination)
            for pawn in pawns:
                moves.add(move_text(totem, destination, pawn))
    return moves


def move_kinds(state: State, text: str) -> tuple[str, str]:
    """For a legal move: (``rook``|``jump``|``relocation``, ``adjacent``|``anywhere``)."""
    totem, destination, _ = parse_move(text)
    totem_kind, _ = totem_destinations(state, totem)
    pawn_kind, _ = pawn_squares(state, totem, destination)
    return totem_kind, pawn_kind


def apply(state: State, text: str) -> State:
    """The state after the legal move ``text`` (any letter case)."""
    totem, destination, pawn = parse_move(text)
    canonical = move_text(totem, destination, pawn)
    if canonical not in legal_moves(state):
        raise ValueError(f"illegal move {text!r} in {position_text(state)!r}")
    pawns = dict(state.pawns)
    pawns[pawn] = (state.turn, totem)
    totems = dict(state.totems)
    totems[totem] = destination
    return State(pawns=pawns, totems=totems, turn=other(state.turn))


# --- end of game (rules 11 and 12) -----------------------------------------


def lines_of_four() -> list[list[Square]]:
    """Every horizontal and vertical window of 4 adjacent squares."""
    lines = []
    for rank in range(SIZE):
        for first in range(SIZE - LINE + 1):
            lines.append([(first + i, rank) for i in range(LINE)])
            lines.append([(rank, first + i) for i in range(LINE)])
    return lines


def completed_lines(state: State) -> tuple[bool, bool]:
    """Whether some line of 4 pawns shares a colour, and whether one shares a symbol."""
    colour_line = symbol_line = False
    for line in lines_of_four():
        if not all(square in state.pawns for square in line):
            continue  # an empty square or a totem breaks the line
        pawns = [state.pawns[square] for square in line]
        colour_line |= len({colour for colour, _ in pawns}) == 1
        symbol_line |= len({symbol for _, symbol in pawns}) == 1
    return colour_line, symbol_line


def outcome(state: State) -> tuple[str | None, str] | None:
    """``None`` while the game goes on, else ``(winner, reason)``.

    A line on the board was completed by the last pawn (the game stops at
    once), so the winner is the player who just moved; a placement that
    completes both kinds of line counts as ``colour``.
    """
    colour_line, symbol_line = completed_lines(state)
    if colour_line:
        return other(state.turn), "colour"
    if symbol_line:
        return other(state.turn), "symbol"
    if len(state.pawns) == ALL_PAWNS:
        return None, "exhausted"
    return None


def perft(state: State, depth: int) -> int:
    """Count the move sequences of length ``depth`` (ending early at game end)."""
    if depth == 0:
        return 1
    moves = legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(perft(apply_unchecked(state, m), depth - 1) for m in moves)


def apply_unchecked(state: State, text: str) -> State:
    """Like :func:`apply` without the legality check, for perft's speed."""
    totem, destination, pawn = parse_move(text)
    pawns = dict(state.pawns)
    pawns[pawn] = (state.turn, totem)
    totems = dict(state.totems)
    totems[totem] = destination
    return State(pawns=pawns, totems=totems, turn=other(state.turn))


# --- diagrams for tests ----------------------------------------------------

DIAGRAM_CELL = r"\[[XO]\]|[.XOxo]"


def from_diagram(drawing: str, turn: str) -> str:
    """The position text of a drawn board, rank 6 on top, file a on the left.

    Cells: ``.`` empty, ``X``/``O`` pink pawns, ``x``/``o`` black pawns,
    ``[X]``/``[O]`` the totems; spaces between cells are ignored::

        . . . . . .
        . . . . . .
        . . [O] . . .
        . . . [X] . .
        . . . . . .
        . . . . . .
    """
    lines = [line for line in drawing.strip().splitlines() if line.strip()]
    if len(lines) != SIZE:
        raise ValueError(f"a diagram has {SIZE} lines, not {len(lines)}")
    pawns: dict[Square, Pawn] = {}
    totems: dict[str, Square] = {}
    for row_index, line in enumerate(lines):
        cells = re.findall(DIAGRAM_CELL, line)
        if len(cells) != SIZE or re.sub(DIAGRAM_CELL, "", line).strip():
            raise ValueError(f"bad diagram line {line!r}")
        rank = SIZE - 1 - row_index
        for file, cell in enumerate(cells):
            if cell.startswith("["):
                if cell[1] in totems:
                    raise ValueError(f"totem {cell} drawn twice")
                totems[cell[1]] = (file, rank)
            elif cell != ".":
                pawns[(file, rank)] = ("pink" if cell.isupper() else "black", cell.upper())
    if set(totems) != set(SYMBOLS):
        raise ValueError("a diagram shows both totems exactly once")
    state = State(pawns=pawns, totems=totems, turn=turn)
    check_consistent(state)
    return position_text(state)


def to_diagram(state: State) -> str:
    """The inverse of :func:`from_diagram` (without the turn), for messages."""
    lines = []
    for rank in reversed(range(SIZE)):
        cells = []
        for file in range(SIZE):
            square = (file, rank)
            pawn = state.pawns.get(square)
            if square == state.totems["X"]:
                cells.append("[X]")
            elif square == state.totems["O"]:
                cells.append("[O]")
            elif pawn is None:
                cells.append(" . ")
            else:
                colour, symbol = pawn
                cells.append(f" {symbol if colour == 'pink' else symbol.lower()} ")
        lines.append("".join(cells).rstrip())
    return "\n".join(lines)
