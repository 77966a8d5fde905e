"""The Oxono rules engine: the rules of ``docs/oxono.md``, whose numbers the comments here cite.

The board is 6 × 6; square ``rank * 6 + file`` (``a1`` = 0, ``f1`` = 5,
``a6`` = 30). Pawns live in three bitboards: all pawns, pink pawns, and pawns
marked ``X`` (black and ``O`` pawns are the complements). The two totems are
square numbers, indexed by symbol (:data:`X` = 0, :data:`O` = 1).

Where a totem may go depends only on what stands on its rank and file, so the
destinations are computed once per (square, blockers) pair and cached
(:func:`totem_destinations`). A move count needs no move list: every
destination contributes its free neighbours, counted for all destinations at
once with four shifts (:func:`_count_totem_moves`). The search helpers at the
bottom (:func:`_perft`, :func:`_playout`) work on plain ints for speed; the
:class:`OxonoBoard` methods are the validated, typed surface.
"""

from __future__ import annotations

import functools
import operator
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from olixono.common import (
    Bitboard,
    Board,
    EndReason,
    GameKind,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    Square,
    iter_bits,
    parse_square,
    square_name,
)

WIDTH = 6
SQUARES = WIDTH * WIDTH
BOARD: Bitboard = (1 << SQUARES) - 1
FILE_A: Bitboard = sum(1 << (r * WIDTH) for r in range(WIDTH))
FILE_F: Bitboard = FILE_A << (WIDTH - 1)
NOT_FILE_A: Bitboard = BOARD & ~FILE_A
NOT_FILE_F: Bitboard = BOARD & ~FILE_F

X, O = 0, 1
SYMBOLS = "XO"
PLAYERS = ("pink", "black")
PAWNS_PER_SYMBOL = 8
PAWNS_IN_ALL = 2 * 2 * PAWNS_PER_SYMBOL
START_TOTEMS = (3 + 2 * WIDTH, 2 + 3 * WIDTH)  # X on d3, O on c4 (rule 4)
ANYWHERE = -1
"""Marks an enclosed totem that can jump nowhere: it may go to any free square."""

# Direction steps as (rank, file) deltas: north, south, east, west.
_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def bit(square: Square) -> Bitboard:
    """The bitboard with only ``square`` set."""
    return 1 << square


def _ray(square: Square, dr: int, df: int) -> tuple[Square, ...]:
    """The squares from ``square`` (excluded) to the edge in one direction."""
    rank, file = divmod(square, WIDTH)
    out = []
    rank, file = rank + dr, file + df
    while 0 <= rank < WIDTH and 0 <= file < WIDTH:
        out.append(rank * WIDTH + file)
        rank, file = rank + dr, file + df
    return tuple(out)


RAYS: tuple[tuple[tuple[Square, ...], ...], ...] = tuple(
    tuple(_ray(sq, dr, df) for dr, df in _DIRECTIONS) for sq in range(SQUARES)
)
NEIGHBOURS: tuple[Bitboard, ...] = tuple(sum(bit(ray[0]) for ray in RAYS[sq] if ray) for sq in range(SQUARES))
LINES: tuple[Bitboard, ...] = tuple(sum(bit(s) for ray in RAYS[sq] for s in ray) for sq in range(SQUARES))
"""The rank and file of a square, without the square: all a totem's move depends on."""


def _windows(square: Square) -> tuple[Bitboard, ...]:
    """Every orthogonal line of four squares that contains ``square``."""
    rank, file = divmod(square, WIDTH)
    out = []
    for start in range(max(0, file - 3), min(WIDTH - 4, file) + 1):
        out.append(sum(bit(rank * WIDTH + f) for f in range(start, start + 4)))
    for start in range(max(0, rank - 3), min(WIDTH - 4, rank) + 1):
        out.append(sum(bit(r * WIDTH + file) for r in range(start, start + 4)))
    return tuple(out)


WINDOWS: tuple[tuple[Bitboard, ...], ...] = tuple(_windows(sq) for sq in range(SQUARES))
CROSS: tuple[Bitboard, ...] = tuple(functools.reduce(operator.or_, ws) for ws in WINDOWS)
"""Every square that shares a line of four with the square."""
ALL_WINDOWS: tuple[Bitboard, ...] = tuple(sorted({w for ws in WINDOWS for w in ws}))
"""The 36 orthogonal lines of four squares."""


def _compute_destinations(square: Square, occupied: Bitboard) -> Bitboard:
    """Rules 7–9 for a totem on ``square``; ``ANYWHERE`` when rule 9 applies."""
    enclosed = not NEIGHBOURS[square] & ~occupied
    dests = 0
    for ray in RAYS[square]:
        if not enclosed:  # rule 7: slide over free squares
            for s in ray:
                if occupied & bit(s):
                    break
                dests |= bit(s)
        else:  # rule 8: jump the run of occupied squares, land on the first free one
            for s in ray:
                if not occupied & bit(s):
                    dests |= bit(s)
                    break
    if enclosed and not dests:
        return ANYWHERE
    return dests


_DESTINATIONS: tuple[dict[Bitboard, Bitboard], ...] = tuple({} for _ in range(SQUARES))


def totem_destinations(square: Square, occupied: Bitboard) -> Bitboard:
    """Squares a totem on ``square`` may move to, or ``ANYWHERE`` (rule 9).

    ``occupied`` holds the pawns and the other totem; only its part on the
    totem's rank and file matters, and results are cached by that part.
    """
    key = occupied & LINES[square]
    table = _DESTINATIONS[square]
    dests = table.get(key)
    if dests is None:
        dests = table[key] = _compute_destinations(square, key)
    return dests


def reachable(square: Square, occupied: Bitboard) -> Bitboard:
    """Every square a totem on ``square`` may move to (rules 7–9, relocation spelled out)."""
    dests = totem_destinations(square, occupied)
    return BOARD & ~occupied & ~bit(square) if dests == ANYWHERE else dests


def adjacent(bb: Bitboard) -> Bitboard:
    """Squares orthogonally next to any square of ``bb``."""
    return ((bb << WIDTH) & BOARD) | (bb >> WIDTH) | ((bb << 1) & NOT_FILE_A) | ((bb >> 1) & NOT_FILE_F)


def _count_totem_moves(square: Square, occupied: Bitboard, spare: int) -> int:
    """Number of legal (destination, pawn square) pairs for one totem.

    ``occupied`` is the pawns plus the other totem; ``spare`` is the number of
    free squares once the totem stands on its destination (rule 10's fallback).
    Each destination counts its free neighbours (the vacated square included),
    or ``spare`` when it has none. A sliding totem's destinations always have
    a free neighbour (the square before them on the ray), so only an enclosed
    totem's destinations need the check for none.
    """
    free = BOARD & ~occupied
    dests = _DESTINATIONS[square].get(occupied & LINES[square])
    if dests is None:
        dests = totem_destinations(square, occupied)
    if dests == ANYWHERE:
        dests = free & ~bit(square)
    count = (
        ((dests << WIDTH) & free).bit_count()
        + ((dests >> WIDTH) & free).bit_count()
        + ((dests << 1) & NOT_FILE_A & free).bit_count()
        + ((dests >> 1) & NOT_FILE_F & free).bit_count()
    )
    if not NEIGHBOURS[square] & free:
        lonely = dests & ~adjacent(free)
        if lonely:
            count += lonely.bit_count() * spare
    return count


def _pawn_squares(dest: Square, free: Bitboard) -> Bitboard:
    """Rule 10: where the pawn may go once the totem stands on ``dest``."""
    near = NEIGHBOURS[dest] & free
    return near if near else free & ~bit(dest)


def line_made(placed: Square, colour: Bitboard, symbol: Bitboard) -> EndReason | None:
    """Rule 11: ``colour`` or ``symbol`` if the pawn on ``placed`` completes a line.

    A line needs four pawns on the placed pawn's rank and file near it, so a
    count over :data:`CROSS` rules most placements out at once.
    """
    cross = CROSS[placed]
    if (colour & cross).bit_count() >= 4:
        for w in WINDOWS[placed]:
            if colour & w == w:
                return EndReason.COLOUR
    if (symbol & cross).bit_count() >= 4:
        for w in WINDOWS[placed]:
            if symbol & w == w:
                return EndReason.SYMBOL
    return None


def _any_line(pink: Bitboard, black: Bitboard, xs: Bitboard, os: Bitboard) -> EndReason | None:
    """Like :func:`line_made`, over the whole board (for loaded positions).

    A colour line anywhere means the last pawn made it (a colour line takes
    precedence when one pawn completes both kinds, as in :func:`line_made`).
    """
    for w in ALL_WINDOWS:
        if pink & w == w or black & w == w:
            return EndReason.COLOUR
    for w in ALL_WINDOWS:
        if xs & w == w or os & w == w:
            return EndReason.SYMBOL
    return None


@dataclass(frozen=True, slots=True)
class OxonoMove:
    """Move a totem to ``to``, then place a pawn of its symbol on ``pawn``."""

    totem: str
    to: Square
    pawn: Square

    def __post_init__(self) -> None:
        if self.totem not in SYMBOLS or not (0 <= self.to < SQUARES and 0 <= self.pawn < SQUARES):
            raise InvalidMoveError(f"not an Oxono move: totem={self.totem!r} to={self.to!r} pawn={self.pawn!r}")

    @classmethod
    def from_text(cls, text: str) -> OxonoMove:
        """Parse ``<totem><to><pawn>`` in any letter case, e.g. ``oC6c5``."""
        if not isinstance(text, str) or len(text) != 5 or not text.isascii():
            raise InvalidMoveError(f"not an Oxono move: {text!r} (expected e.g. Oc6c5)")
        totem = text[0].upper()
        if totem not in SYMBOLS:
            raise InvalidMoveError(f"not an Oxono move: {text!r} (a move starts with the totem, X or O)")
        try:
            return cls(totem, parse_square(text[1:3], WIDTH), parse_square(text[3:5], WIDTH))
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"not an Oxono move: {text!r} ({exc})") from None

    def text(self) -> str:
        """Canonical text: upper-case totem, lower-case squares."""
        return f"{self.totem}{square_name(self.to, WIDTH)}{square_name(self.pawn, WIDTH)}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"OxonoMove.from_text({self.text()!r})"


@dataclass(slots=True)
class _Undo:
    move: OxonoMove
    totem_from: Square
    outcome: Outcome | None


class OxonoBoard(Board[OxonoMove]):
    """An Oxono game: the position, whose turn it is, and the moves played."""

    KIND = GameKind.OXONO
    NAME = "Oxono"
    PLAYERS = PLAYERS
    MOVE = OxonoMove
    WIDTH = WIDTH

    def __init__(self) -> None:
        self.pawns: Bitboard = 0
        self.pink: Bitboard = 0
        self.xs: Bitboard = 0
        self.totems: list[Square] = list(START_TOTEMS)
        self.turn_index = 0
        self.move_stack: list[OxonoMove] = []
        self._undo: list[_Undo] = []
        self._outcome: Outcome | None = None
        self._ending: Outcome | None = None  # resigned

    # -- state ------------------------------------------------------------
    def pawns_left(self, player: str, symbol: str) -> int:
        """How many pawns marked ``symbol`` ``player`` still has to place."""
        colour = self.pink if player == "pink" else self.pawns & ~self.pink
        marked = self.xs if symbol == "X" else self.pawns & ~self.xs
        return PAWNS_PER_SYMBOL - (colour & marked).bit_count()

    def pawn_at(self, square: Square) -> tuple[str, str] | None:
        """``(colour, symbol)`` of the pawn on ``square``, if any."""
        b = bit(square)
        if not self.pawns & b:
            return None
        return ("pink" if self.pink & b else "black", "X" if self.xs & b else "O")

    def _usable_totems(self) -> tuple[int, ...]:
        """Rule 5: the symbols the player to move still has pawns of."""
        colour = self.pink if self.turn_index == 0 else self.pawns & ~self.pink
        placed_x = (colour & self.xs).bit_count()
        placed_o = colour.bit_count() - placed_x
        return tuple(s for s, placed in ((X, placed_x), (O, placed_o)) if placed < PAWNS_PER_SYMBOL)

    # -- moves ------------------------------------------------------------
    def parse_move(self, text: str) -> OxonoMove:
        """The move spelled by ``text``; :class:`InvalidMoveError` if it spells none."""
        return OxonoMove.from_text(text)

    def generate_moves(self) -> Iterator[OxonoMove]:
        """Every legal move, in generation order (totem, destination, pawn)."""
        if self.is_game_over():
            return
        for symbol in self._usable_totems():
            occupied = self.pawns | bit(self.totems[1 - symbol])
            free = BOARD & ~occupied
            for to in iter_bits(reachable(self.totems[symbol], occupied)):
                for pawn in iter_bits(_pawn_squares(to, free)):
                    yield OxonoMove(SYMBOLS[symbol], to, pawn)

    def count_moves(self) -> int:
        """The number of legal moves, counted without listing them."""
        if self.is_game_over():
            return 0
        spare = SQUARES - 2 - self.pawns.bit_count()
        total = 0
        for symbol in self._usable_totems():
            occupied = self.pawns | bit(self.totems[1 - symbol])
            total += _count_totem_moves(self.totems[symbol], occupied, spare)
        return total

    def why_illegal(self, move: OxonoMove) -> str | None:
        """Why ``move`` is illegal here, in words; ``None`` if it is legal."""
        if self.is_game_over():
            return "the game is over"
        symbol = SYMBOLS.index(move.totem)
        if symbol not in self._usable_totems():
            return f"{self.turn} has no pawn marked {move.totem} left"
        square = self.totems[symbol]
        occupied = self.pawns | bit(self.totems[1 - symbol])
        free = BOARD & ~occupied
        if not reachable(square, occupied) & bit(move.to):
            return f"totem {move.totem} on {square_name(square, WIDTH)} cannot reach {square_name(move.to, WIDTH)}"
        if not _pawn_squares(move.to, free) & bit(move.pawn):
            return (
                f"a pawn cannot go on {square_name(move.pawn, WIDTH)} after totem {move.totem} moves to "
                f"{square_name(move.to, WIDTH)}"
            )
        return None

    def push(self, move: OxonoMove) -> None:
        """The fast unchecked path: apply ``move``, assumed legal (see :meth:`play`)."""
        symbol = SYMBOLS.index(move.totem)
        self._undo.append(_Undo(move, self.totems[symbol], self._outcome))
        self.move_stack.append(move)
        self.totems[symbol] = move.to
        b = bit(move.pawn)
        self.pawns |= b
        if self.turn_index == 0:
            self.pink |= b
            colour = self.pink
        else:
            colour = self.pawns & ~self.pink
        if symbol == X:
            self.xs |= b
            marked = self.xs
        else:
            marked = self.pawns & ~self.xs
        line = line_made(move.pawn, colour, marked)
        if line:
            self._outcome = Outcome(self.turn, line)
        elif self.pawns.bit_count() == PAWNS_IN_ALL:
            self._outcome = Outcome(None, EndReason.EXHAUSTED)
        self.turn_index ^= 1

    def pop(self) -> OxonoMove | None:
        """Undo the last action: a resignation if there was one, else the last move.

        Returns the move taken back (``None`` for a resignation). Raises
        ``IndexError`` when there is nothing to undo.
        """
        if self._ending is not None:
            self._ending = None
            return None
        undo = self._undo.pop()
        self.move_stack.pop()
        move = undo.move
        self.turn_index ^= 1
        b = bit(move.pawn)
        self.pawns &= ~b
        self.pink &= ~b
        self.xs &= ~b
        self.totems[SYMBOLS.index(move.totem)] = undo.totem_from
        self._outcome = undo.outcome
        return move

    # -- text -------------------------------------------------------------
    def position(self) -> str:
        """Position text: ``<rows> <turn> <X totem> <O totem>`` (see ``_load``)."""
        rows = []
        for rank in reversed(range(WIDTH)):
            row, empty = "", 0
            for file in range(WIDTH):
                pawn = self.pawn_at(rank * WIDTH + file)
                if pawn is None:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += pawn[1] if pawn[0] == "pink" else pawn[1].lower()
            rows.append(row + (str(empty) if empty else ""))
        totems = " ".join(square_name(s, WIDTH) for s in self.totems)
        return f"{'/'.join(rows)} {self.turn} {totems}"

    def _load(self, text: str) -> None:
        """Read a position text into this fresh board (``from_position`` is the public way).

        The text is the six ranks from 6 down to 1 separated by ``/`` (``X``
        and ``O`` for pink pawns, ``x`` and ``o`` for black ones, a digit for a
        run of empty squares, totem squares counting as empty), the player to
        move, and the squares of the ``X`` and ``O`` totems:
        ``6/6/6/6/6/6 pink d3 c4`` is the start. Exactly one spelling of each
        position is accepted. A position that already holds a line is over:
        the player who moved last won it.
        """
        if not isinstance(text, str):
            raise InvalidPositionError("not text")
        fields = text.split(" ")
        if len(fields) != 4:
            raise InvalidPositionError("expected 4 fields separated by single spaces")
        rows_text, turn, x_text, o_text = fields
        rows = rows_text.split("/")
        if len(rows) != WIDTH:
            raise InvalidPositionError(f"expected {WIDTH} ranks separated by '/'")
        for i, row in enumerate(rows):
            rank = WIDTH - 1 - i
            file = 0
            for ch in row:
                if ch in "123456":
                    file += int(ch)
                    continue
                if ch not in "XOxo":
                    raise InvalidPositionError(f"unexpected character {ch!r} in rank {rank + 1}")
                if file >= WIDTH:
                    raise InvalidPositionError(f"rank {rank + 1} holds more than {WIDTH} squares")
                b = bit(rank * WIDTH + file)
                self.pawns |= b
                if ch.isupper():
                    self.pink |= b
                if ch in "Xx":
                    self.xs |= b
                file += 1
            if file != WIDTH:
                raise InvalidPositionError(f"rank {rank + 1} does not hold exactly {WIDTH} squares")
        if turn not in PLAYERS:
            raise InvalidPositionError(f"the player to move must be pink or black, not {turn!r}")
        try:
            self.totems = [parse_square(x_text, WIDTH), parse_square(o_text, WIDTH)]
        except InvalidMoveError as exc:
            raise InvalidPositionError(f"bad totem square: {exc}") from None
        if self.totems[X] == self.totems[O]:
            raise InvalidPositionError("both totems on one square")
        if self.pawns & (bit(self.totems[X]) | bit(self.totems[O])):
            raise InvalidPositionError("a totem stands on a pawn")
        black = self.pawns & ~self.pink
        for colour, name in ((self.pink, "pink"), (black, "black")):
            for marked, symbol in ((self.xs, "X"), (self.pawns & ~self.xs, "O")):
                if (colour & marked).bit_count() > PAWNS_PER_SYMBOL:
                    raise InvalidPositionError(f"{name} has more than {PAWNS_PER_SYMBOL} pawns marked {symbol}")
        n_pink, n_black = self.pink.bit_count(), black.bit_count()
        if n_pink == n_black:
            expected = "pink"
        elif n_pink == n_black + 1:
            expected = "black"
        else:
            raise InvalidPositionError(
                f"pink has {n_pink} pawns and black {n_black}: pink moves first, so that cannot be"
            )
        if turn != expected:
            raise InvalidPositionError(
                f"with {n_pink} pink and {n_black} black pawns it is {expected}'s turn, not {turn}'s"
            )
        self.turn_index = PLAYERS.index(turn)
        if self.position() != text:
            raise InvalidPositionError(f"not in canonical form (it would be {self.position()!r})")
        last = PLAYERS[1 - self.turn_index]
        line = _any_line(self.pink, black, self.xs, self.pawns & ~self.xs)
        if line:
            self._outcome = Outcome(last, line)
        elif self.pawns.bit_count() == PAWNS_IN_ALL:
            self._outcome = Outcome(None, EndReason.EXHAUSTED)

    def show(self) -> str:
        """The board as several lines of text, rank 6 at the top.

        Pink pawns are upper case, black pawns lower case, the totems are
        bracketed, e.g. ``[X]``.
        """
        lines = []
        for rank in reversed(range(WIDTH)):
            cells = []
            for file in range(WIDTH):
                sq = rank * WIDTH + file
                if sq in self.totems:
                    cells.append(f"[{SYMBOLS[self.totems.index(sq)]}]")
                    continue
                pawn = self.pawn_at(sq)
                if pawn is None:
                    cells.append(" . ")
                else:
                    cells.append(f" {pawn[1] if pawn[0] == 'pink' else pawn[1].lower()} ")
            lines.append(f"{rank + 1} " + "".join(cells).rstrip())
        lines.append("   " + "".join(f"{chr(ord('a') + f)}  " for f in range(WIDTH)).rstrip())
        status = self.outcome()
        if status:
            lines.append(f"game over: {status.sentence(PLAYERS)}")
        else:
            left = " ".join(f"{p} X{self.pawns_left(p, 'X')} O{self.pawns_left(p, 'O')}" for p in PLAYERS)
            lines.append(f"{self.turn} to move; pawns left: {left}")
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OxonoBoard):
            return NotImplemented
        return self.position() == other.position() and self.outcome() == other.outcome()

    def copy(self) -> OxonoBoard:
        """An independent copy, history included."""
        board = OxonoBoard.__new__(OxonoBoard)
        board.pawns, board.pink, board.xs = self.pawns, self.pink, self.xs
        board.totems = list(self.totems)
        board.turn_index = self.turn_index
        board.move_stack = list(self.move_stack)
        board._undo = list(self._undo)
        board._outcome, board._ending = self._outcome, self._ending
        return board

    def agreed(self) -> Outcome:
        """A draw: what ending the game by agreement gives in Oxono."""
        return Outcome(None, EndReason.AGREED)

    # -- search -----------------------------------------------------------
    def raw_state(self) -> tuple[int, int, int, Square, Square, int, int, int, int]:
        """The state as ints from the mover's side, for the fast helpers (and the bots' search):
        own and opponent's pawns, X-marked pawns, the X and O totem squares, the
        mover's X and O pawns left, the opponent's X and O pawns left."""
        own = self.pink if self.turn_index == 0 else self.pawns & ~self.pink
        opp = self.pawns & ~own
        own_x, opp_x = (own & self.xs).bit_count(), (opp & self.xs).bit_count()
        return (
            own,
            opp,
            self.xs,
            self.totems[X],
            self.totems[O],
            PAWNS_PER_SYMBOL - own_x,
            PAWNS_PER_SYMBOL - (own.bit_count() - own_x),
            PAWNS_PER_SYMBOL - opp_x,
            PAWNS_PER_SYMBOL - (opp.bit_count() - opp_x),
        )

    def perft(self, depth: int, leaf_made: bool = False) -> int:
        """Count the move sequences of length ``depth`` (finished games stop early).

        By default the last ply is counted in closed form; with ``leaf_made``
        every leaf position is made and checked for a win (a slower, more
        thorough count that must agree).
        """
        if depth < 0:
            raise ValueError(f"perft depth must be at least 0, not {depth}")
        if self.is_game_over():
            return 0 if depth else 1
        if depth == 0:
            return 1
        return _perft(*self.raw_state(), depth, leaf_made)

    def playout(self, rng: random.Random) -> Outcome:
        """Finish the game with uniformly random moves (on raw ints; the board is unchanged)."""
        outcome = self.outcome()
        if outcome is not None:
            return outcome
        winner, reason = _playout(*self.raw_state(), rng.random)  # reason: an EndReason
        if winner is None:
            return Outcome(None, reason)
        return Outcome(PLAYERS[(self.turn_index + winner) % 2], reason)


# -- fast helpers on raw ints -----------------------------------------------
# State from the mover's side: own and opp pawns, X-marked pawns, the X and O
# totem squares, the mover's X and O pawns left, the opponent's X and O left.


def _perft(
    own: Bitboard,
    opp: Bitboard,
    xs: Bitboard,
    tx: Square,
    to: Square,
    own_lx: int,
    own_lo: int,
    opp_lx: int,
    opp_lo: int,
    depth: int,
    leaf_made: bool,
) -> int:
    """Perft on raw ints (see :meth:`OxonoBoard.perft`); the game is not over."""
    pawns = own | opp
    if depth == 1 and not leaf_made:
        spare = SQUARES - 2 - pawns.bit_count()
        total = 0
        if own_lx:
            total += _count_totem_moves(tx, pawns | bit(to), spare)
        if own_lo:
            total += _count_totem_moves(to, pawns | bit(tx), spare)
        return total
    bulk = depth == 2 and not leaf_made  # count the children's moves in place
    child_spare = SQUARES - 3 - pawns.bit_count()
    total = 0
    for symbol in (X, O):
        if symbol == X:
            if not own_lx:
                continue
            square, other = tx, to
        else:
            if not own_lo:
                continue
            square, other = to, tx
        occupied = pawns | bit(other)
        free = BOARD & ~occupied
        dests = reachable(square, occupied)
        while dests:
            d = dests & -dests
            dests ^= d
            dest = d.bit_length() - 1
            places = _pawn_squares(dest, free)
            while places:
                p = places & -places
                places ^= p
                placed = p.bit_length() - 1
                new_own = own | p
                if symbol == X:
                    new_xs, new_tx, new_to = xs | p, dest, to
                    line = line_made(placed, new_own, new_xs)
                else:
                    new_xs, new_tx, new_to = xs, tx, dest
                    line = line_made(placed, new_own, (pawns | p) & ~xs)
                if depth == 1:
                    total += 1
                elif line:
                    continue
                elif bulk:
                    child = pawns | p
                    if opp_lx:
                        total += _count_totem_moves(new_tx, child | bit(new_to), child_spare)
                    if opp_lo:
                        total += _count_totem_moves(new_to, child | bit(new_tx), child_spare)
                else:
                    total += _perft(
                        opp,
                        new_own,
                        new_xs,
                        new_tx,
                        new_to,
                        opp_lx,
                        opp_lo,
                        own_lx - (symbol == X),
                        own_lo - (symbol == O),
                        depth - 1,
                        leaf_made,
                    )
    return total


def _playout(
    own: Bitboard,
    opp: Bitboard,
    xs: Bitboard,
    tx: Square,
    to: Square,
    own_lx: int,
    own_lo: int,
    opp_lx: int,
    opp_lo: int,
    random: Callable[[], float],
) -> tuple[int | None, EndReason]:
    """Play uniformly random moves to the end; return ``(winner, reason)``.

    ``winner`` is 0 for the player to move at the start, 1 for the other,
    ``None`` for the draw. A move is drawn by counting: pick an index below
    the number of legal moves, then walk totems and destinations to it.
    """
    count, wins, neighbours = _count_totem_moves, line_made, NEIGHBOURS  # hot loop: locals
    mover = 0
    while True:
        pawns = own | opp
        spare = SQUARES - 2 - pawns.bit_count()
        if spare == 2:  # all 32 pawns are down
            return None, EndReason.EXHAUSTED
        occ_x = pawns | (1 << to)
        occ_o = pawns | (1 << tx)
        n_x = count(tx, occ_x, spare) if own_lx else 0
        n_o = count(to, occ_o, spare) if own_lo else 0
        index = int(random() * (n_x + n_o))
        if index < n_x:
            symbol, square, occupied = X, tx, occ_x
        else:
            symbol, square, occupied, index = O, to, occ_o, index - n_x
        free = BOARD & ~occupied
        dests = reachable(square, occupied)
        while True:
            d = dests & -dests
            dests ^= d
            dest = d.bit_length() - 1
            places = neighbours[dest] & free or free & ~d
            n = places.bit_count()
            if index < n:
                break
            index -= n
        for _ in range(index):
            places &= places - 1
        p = places & -places
        placed = p.bit_length() - 1
        new_own = own | p
        if symbol == X:
            xs |= p
            tx = dest
            own_lx -= 1
            line = wins(placed, new_own, xs)
        else:
            to = dest
            own_lo -= 1
            line = wins(placed, new_own, (pawns | p) & ~xs)
        if line:
            return mover, line
        own, opp = opp, new_own
        own_lx, own_lo, opp_lx, opp_lo = opp_lx, opp_lo, own_lx, own_lo
        mover ^= 1
