"""The Olix rules engine: the rules of ``docs/olix.md``, whose numbers the comments here cite.

The board is 11 × 11; square ``rank * 11 + file`` (``a1`` = 0, ``k1`` = 10,
``a11`` = 110). Stones never move, so everything follows from two growing sets
of stones, and a player's formations change only when that player places a
stone. Each player's stones are kept as a list of 11-bit *lines* – its 11
ranks, 11 files, 21 diagonals and 21 anti-diagonals – so that every line
through a square, and the ranks or files beside it, is one list index away
(see :data:`_GEOMETRY`). Tables indexed ``[position][line]`` give the run
through a position (:data:`_RUN`, :data:`_SPAN`, :data:`_ARM`,
:data:`_RUN_MASK`). A placement looks only at the lines through the new
stone: ``I`` and ``X`` are four lookups; ``L`` visits the corners on the new
stone's two runs that have a three-stone arm across (found with one mask);
``O`` walks up and down from the new stone's rank while two side columns
around it go on, and measures, for each pair of full edges found, the widest
rectangle (an ``O``'s value is simply the owner's stones in its closed
rectangle, so the widest valid one is the best).

The settled ending of rule 11 is a search for a *witness*: one formation that
a player could still complete on squares the opponent has not taken, and
that would move a marker. The witness is cached: a ply only has to check
that the new stone is not the opponent's on one of its squares (one shift
and AND) and, in the rare ply that raised a best value, that it still beats
what it must beat. Only when it fails is a new one searched for
(bit-parallel, stopping at the first found).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeAlias

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

WIDTH = 11
SQUARES = WIDTH * WIDTH
BOARD: Bitboard = (1 << SQUARES) - 1
STONES_PER_PLAYER = 50
STONES_IN_ALL = 2 * STONES_PER_PLAYER
PLAYERS = ("first", "second")
STONE_GLYPHS = ("#", "o")
"""How ``show`` draws first's and second's stones (never ``X`` or ``O``, which name formations)."""

Kind: TypeAlias = str
KINDS: tuple[Kind, ...] = ("O", "L", "I", "X")
"""The formation types, in scoreboard order; internally indexed 0–3."""
O_, L_, I_, X_ = range(4)

FIELDS: dict[Kind, tuple[int, ...]] = {"O": (4, 6, 8, 9), "L": (5, 6, 7, 8), "I": (4, 5, 6, 7), "X": (4, 5, 6, 7)}
"""Rule 8: the four fields of each track."""
_FIELDS = tuple(FIELDS[k] for k in KINDS)
_FIRST = tuple(f[0] for f in _FIELDS)
_TOP_O, _TOP_L, _TOP_I, _TOP_X = (f[-1] for f in _FIELDS)
"""Each track's top field: a value above it wins outright (rule 10)."""


def bit(square: Square) -> Bitboard:
    """The bitboard with only ``square`` set."""
    return 1 << square


# -- run tables and line layout ------------------------------------------------------


def _build_run_tables() -> tuple[tuple[tuple[Any, ...], ...], ...]:
    """Per position 0–10, indexed by an 11-bit line: run length, (start, end), longest one-sided arm, run mask."""
    run = [[0] * 2048 for _ in range(WIDTH)]
    span: list[list[tuple[int, int] | None]] = [[None] * 2048 for _ in range(WIDTH)]
    arm = [[0] * 2048 for _ in range(WIDTH)]
    mask = [[0] * 2048 for _ in range(WIDTH)]
    for bits in range(2048):
        pos = 0
        while pos < WIDTH:
            if not bits >> pos & 1:
                pos += 1
                continue
            start = pos
            while pos < WIDTH and bits >> pos & 1:
                pos += 1
            end = pos - 1
            run_mask = ((1 << (end - start + 1)) - 1) << start
            for q in range(start, pos):
                run[q][bits] = end - start + 1
                span[q][bits] = (start, end)
                arm[q][bits] = max(q - start, end - q) + 1
                mask[q][bits] = run_mask
    return tuple(tuple(tuple(t) for t in table) for table in (run, span, arm, mask))


_RUN, _SPAN, _ARM, _RUN_MASK = _build_run_tables()
"""``_RUN[pos][line]``: the length of the run of ``line`` through ``pos`` (0 if none); the others alike."""

_BITS = tuple(bin(x).count("1") for x in range(2048))
"""Stones in an 11-bit line."""
_INDEX = {1 << q: q for q in range(WIDTH)}
"""Position of a one-bit line."""

# Each player's stones are kept as one list of 11-bit lines, so that every line
# through a square (and the ranks or files beside it) is one list index away:
# ranks at _ROW0 + rank and files at _COL0 + file (bit: the other coordinate),
# each with two empty padding lines on both sides so that neighbours two away
# need no bounds check; diagonals at _DIAG0 + file - rank + 10 and
# anti-diagonals at _ANTI0 + file + rank (bit: the file).
_ROW0 = 2
_COL0 = _ROW0 + WIDTH + 4
_DIAG0 = _COL0 + WIDTH + 2
_ANTI0 = _DIAG0 + 2 * WIDTH - 1
_LINES = _ANTI0 + 2 * WIDTH - 1

_GEOMETRY = tuple(
    (
        s // WIDTH,  # rank
        s % WIDTH,  # file
        _ROW0 + s // WIDTH,  # index of its rank
        _COL0 + s % WIDTH,  # index of its file
        _DIAG0 + s % WIDTH - s // WIDTH + WIDTH - 1,  # index of its diagonal
        _ANTI0 + s % WIDTH + s // WIDTH,  # index of its anti-diagonal
        1 << (s % WIDTH),  # its bit in its rank, diagonal and anti-diagonal
        1 << (s // WIDTH),  # its bit in its file
    )
    for s in range(SQUARES)
)
"""Per square: rank, file, the indices of its four lines and its bits in them."""


def _board_of(lines: list[int]) -> Bitboard:
    """The bitboard of the stones whose line list is ``lines``."""
    bb = 0
    for rank in range(WIDTH):
        bb |= lines[_ROW0 + rank] << (rank * WIDTH)
    return bb


def _widest(line: int, pos: int) -> tuple[int, int] | None:
    """The lowest bit ``a <= pos`` and the highest ``b >= pos`` of ``line``, if ``a < b``."""
    if not line:
        return None
    a = (line & -line).bit_length() - 1
    b = line.bit_length() - 1
    return (a, b) if a <= pos <= b and a < b else None


_WIDEST = tuple(tuple(_widest(line, pos) for line in range(2048)) for pos in range(WIDTH))
"""``_WIDEST[pos][line]``: the widest pair of side columns around ``pos`` in ``line`` (None if none)."""

_REPUNIT = tuple(sum(1 << (WIDTH * i) for i in range(n)) for n in range(WIDTH + 1))
"""``n`` ones spaced one rank apart: a line times this repeats it on ``n`` ranks."""


# -- formations on plain bitboards (used when a best improves, and to search) ------


def _arm(stones: Bitboard, square: Square, dr: int, df: int) -> int:
    """Length of the unbroken run of ``stones`` from ``square`` (included) towards (dr, df)."""
    rank, file = divmod(square, WIDTH)
    n = 0
    while 0 <= rank < WIDTH and 0 <= file < WIDTH and stones >> (rank * WIDTH + file) & 1:
        n += 1
        rank += dr
        file += df
    return n


def _corner_l(stones: Bitboard, corner: Square) -> tuple[int, Bitboard]:
    """The best ``L`` with its corner on ``corner``: value and squares (0, 0 if none)."""
    h_len, h_dir = max((_arm(stones, corner, 0, df), df) for df in (1, -1))
    v_len, v_dir = max((_arm(stones, corner, dr, 0), dr) for dr in (1, -1))
    if h_len < 3 or v_len < 3:
        return 0, 0
    rank, file = divmod(corner, WIDTH)
    squares = 0
    for k in range(h_len):
        squares |= 1 << (rank * WIDTH + file + h_dir * k)
    for k in range(v_len):
        squares |= 1 << ((rank + v_dir * k) * WIDTH + file)
    return h_len + v_len - 1, squares


def _rect_mask(left: int, right: int, bottom: int, top: int) -> Bitboard:
    """The closed rectangle of files left..right and ranks bottom..top."""
    segment = ((1 << (right - left + 1)) - 1) << left
    return (segment * _REPUNIT[top - bottom + 1]) << (bottom * WIDTH)


# Bit-parallel runs: steps east, north, north-east, north-west, and the squares
# from which one step stays on the board.
_EAST, _NORTH, _NORTH_EAST, _NORTH_WEST = 1, WIDTH, WIDTH + 1, WIDTH - 1
_FILE_A = sum(1 << (r * WIDTH) for r in range(WIDTH))
_FILE_K = _FILE_A << (WIDTH - 1)
_RANK_11 = ((1 << WIDTH) - 1) << (WIDTH * (WIDTH - 1))
_STEP_OK = {
    _EAST: BOARD & ~_FILE_K,
    _NORTH: BOARD & ~_RANK_11,
    _NORTH_EAST: BOARD & ~_FILE_K & ~_RANK_11,
    _NORTH_WEST: BOARD & ~_FILE_A & ~_RANK_11,
}


def _run_starts(stones: Bitboard, step: int) -> list[Bitboard]:
    """``starts[k]``: squares where a run of at least ``k`` stones begins towards ``step`` (index 0 unused)."""
    ok = stones & _STEP_OK[step]
    starts = [BOARD, stones]
    current = stones
    while current and len(starts) <= WIDTH:
        current = ok & (current >> step)
        starts.append(current)
    while len(starts) <= WIDTH + 1:
        starts.append(0)
    return starts


_STRIDES = {step: tuple(sum(1 << (step * k) for k in range(n)) for n in range(WIDTH + 1)) for step in _STEP_OK}
"""``_STRIDES[step][n]``: ``n`` bits, ``step`` apart from bit 0."""


def _run_bits(start: Square, step: int, length: int) -> Bitboard:
    """The squares ``start``, ``start + step``, … (``length`` of them)."""
    return _STRIDES[step][length] << start


def _l_squares(lines: list[int], corner: Square) -> Bitboard:
    """The squares of :func:`_corner_l`'s ``L`` at ``corner``, read from a player's line list."""
    rank, file = divmod(corner, WIDTH)
    west, east = _SPAN[file][lines[_ROW0 + rank]]
    south, north = _SPAN[rank][lines[_COL0 + file]]
    # the longer arm each way, east and north on a tie (as max((length, direction)) picks)
    if east - file >= file - west:
        across = _run_bits(corner, _EAST, east - file + 1)
    else:
        across = _run_bits(rank * WIDTH + west, _EAST, file - west + 1)
    if north - rank >= rank - south:
        up = _run_bits(corner, _NORTH, north - rank + 1)
    else:
        up = _run_bits(south * WIDTH + file, _NORTH, rank - south + 1)
    return across | up


def _lowest(bb: Bitboard) -> Square:
    """The lowest set square of a non-empty bitboard."""
    return (bb & -bb).bit_length() - 1


def _find_line(stones: Bitboard, steps: tuple[int, ...], need: int) -> tuple[int, Bitboard] | None:
    """A run of ``need`` stones along one of ``steps``, as (value, squares)."""
    if need > WIDTH:
        return None
    for step in steps:
        ok = stones & _STEP_OK[step]
        starts = stones  # squares that begin a run of 1, then 2, ... stones
        for _ in range(need - 1):
            starts = ok & (starts >> step)
        if starts:
            return need, _run_bits(_lowest(starts), step, need)
    return None


def _find_l(stones: Bitboard, need: int) -> tuple[int, Bitboard] | None:
    """An ``L`` of value at least ``need`` within ``stones``, as (value, squares)."""
    east = _run_starts(stones, _EAST)
    north = _run_starts(stones, _NORTH)
    horizontal = [0] + [east[k] | (east[k] << (k - 1)) for k in range(1, WIDTH + 1)]
    vertical = [0] + [north[k] | (north[k] << (WIDTH * (k - 1))) for k in range(1, WIDTH + 1)]
    for h in range(3, WIDTH + 1):
        v = max(3, need + 1 - h)
        if v > WIDTH:
            continue
        corners = horizontal[h] & vertical[v]
        if corners:
            return _corner_l(stones, _lowest(corners))
    return None


def _find_o(stones: Bitboard, need: int) -> tuple[int, Bitboard] | None:
    """An ``O`` of value at least ``need`` within ``stones``, as (value, squares)."""
    east = _run_starts(stones, _EAST)
    north = _run_starts(stones, _NORTH)
    for w in range(2, WIDTH + 1):
        if not east[w]:
            break
        for h in range(2, WIDTH + 1):
            if not north[h]:
                break
            if w * h < need:
                continue
            corners = east[w] & (east[w] >> (WIDTH * (h - 1))) & north[h] & (north[h] >> (w - 1))
            for corner in iter_bits(corners):
                rank, file = divmod(corner, WIDTH)
                squares = stones & _rect_mask(file, file + w - 1, rank, rank + h - 1)
                if squares.bit_count() >= need:
                    return squares.bit_count(), squares
    return None


def _find_formation(kind: int, stones: Bitboard, need: int) -> tuple[int, Bitboard] | None:
    """A formation of type ``kind`` worth at least ``need`` within ``stones``, or None."""
    if kind == I_:
        return _find_line(stones, (_EAST, _NORTH), need)
    if kind == X_:
        return _find_line(stones, (_NORTH_EAST, _NORTH_WEST), need)
    if kind == L_:
        return _find_l(stones, need)
    return _find_o(stones, need)


# -- moves -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OlixMove:
    """Place a stone on ``square``."""

    square: Square

    def __post_init__(self) -> None:
        if not (isinstance(self.square, int) and 0 <= self.square < SQUARES):
            raise InvalidMoveError(f"not an Olix square: {self.square!r}")

    @classmethod
    def from_text(cls, text: str) -> OlixMove:
        """Parse a square name in any letter case, e.g. ``f6`` or ``K11``."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"not an Olix move: {text!r} (expected a square such as f6)")
        try:
            return MOVES[parse_square(text, WIDTH)]
        except InvalidMoveError:
            raise InvalidMoveError(f"not an Olix move: {text!r} (expected a square a1..k11, e.g. f6)") from None

    def text(self) -> str:
        """Canonical text: the lower-case square name."""
        return square_name(self.square, WIDTH)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"OlixMove.from_text({self.text()!r})"


MOVES: tuple[OlixMove, ...] = tuple(OlixMove(s) for s in range(SQUARES))
"""The move of each square, shared (moves are immutable)."""


# -- formations and the scoreboard ----------------------------------------------------


class Formation(NamedTuple):
    """A player's best formation of one type: its value (0 when none) and its squares."""

    value: int
    squares: Bitboard

    def square_names(self) -> list[str]:
        """The names of its squares, in square order."""
        return [square_name(s, WIDTH) for s in iter_bits(self.squares)]


@dataclass(frozen=True, slots=True)
class Track:
    """One track of the scoreboard (rule 9).

    ``record`` is the larger of the two players' best values of this type (0
    when neither has one); ``holders`` are the players whose best equals it
    and reaches the first field. ``field`` is the field they mark, ``None``
    when nobody holds one or when the record lies above the top field (an
    automatic win, which ends the game instead of marking).
    """

    kind: Kind
    record: int
    holders: tuple[str, ...]

    @property
    def fields(self) -> tuple[int, ...]:
        return FIELDS[self.kind]

    @property
    def field(self) -> int | None:
        """The value of the marked field, if any."""
        return self.record if self.holders and self.record in self.fields else None

    @property
    def position(self) -> int | None:
        """The marked field's position on the track, 1–4, if any."""
        return self.fields.index(self.record) + 1 if self.field is not None else None

    def text(self) -> str:
        """``O 4:- 6:second 8:- 9:-``: each field as value and holder."""
        marked = self.field
        if len(self.holders) == 2:
            who = "both"
        else:
            who = self.holders[0] if self.holders else "-"
        cells = [f"{value}:{who if value == marked else '-'}" for value in self.fields]
        return f"{self.kind} {' '.join(cells)}"


@dataclass(frozen=True, slots=True)
class Scoreboard:
    """The four tracks, in order O L I X."""

    tracks: tuple[Track, ...]

    def __getitem__(self, kind: Kind) -> Track:
        return self.tracks[KINDS.index(kind)]

    def positions(self, player: str) -> list[int]:
        """The field positions (1–4) of ``player``'s markers, highest first."""
        return sorted((t.position for t in self.tracks if t.position and player in t.holders), reverse=True)

    def leader(self) -> str | None:
        """Rule 12: more markers wins; then the higher field positions, compared from the top; else None."""
        first, second = self.positions(PLAYERS[0]), self.positions(PLAYERS[1])
        if len(first) != len(second):
            return PLAYERS[0] if len(first) > len(second) else PLAYERS[1]
        if first != second:
            return PLAYERS[0] if first > second else PLAYERS[1]
        return None

    def text(self) -> str:
        """Four lines, one per track."""
        return "\n".join(t.text() for t in self.tracks)


def scoreboard_of(first_best: tuple[int, ...], second_best: tuple[int, ...]) -> Scoreboard:
    """Rule 9: the scoreboard that the two players' best values (in order O L I X) give."""
    tracks = []
    for k, kind in enumerate(KINDS):
        a, b = first_best[k], second_best[k]
        record = max(a, b)
        holders = tuple(p for p, v in zip(PLAYERS, (a, b), strict=True) if v == record and v >= _FIRST[k])
        tracks.append(Track(kind, record, holders))
    return Scoreboard(tuple(tracks))


def _leader(first_best: tuple[int, ...], second_best: tuple[int, ...]) -> str | None:
    """``scoreboard_of(first_best, second_best).leader()`` without building the scoreboard."""
    marks: tuple[list[int], list[int]] = ([], [])
    for fields, a, b in zip(_FIELDS, first_best, second_best, strict=True):
        record = a if a > b else b
        if record in fields:  # a marked field (a record above the top marks none)
            position = fields.index(record) + 1
            if a == record:
                marks[0].append(position)
            if b == record:
                marks[1].append(position)
    first, second = sorted(marks[0], reverse=True), sorted(marks[1], reverse=True)
    if len(first) != len(second):
        return PLAYERS[0] if len(first) > len(second) else PLAYERS[1]
    if first != second:
        return PLAYERS[0] if first > second else PLAYERS[1]
    return None


def _wins_outright(best: tuple[int, ...]) -> bool:
    """Rule 10: a value above its track's top field."""
    return best[0] > _TOP_O or best[1] > _TOP_L or best[2] > _TOP_I or best[3] > _TOP_X


# -- the board ----------------------------------------------------------------------

_Undo: TypeAlias = tuple[int, tuple[int, int, int, int], tuple[Bitboard, Bitboard, Bitboard, Bitboard], Outcome | None]
"""(ply, best before, shapes before, outcome before): kept only for the plies that changed them."""

_NO_WITNESS = (BOARD, BOARD)
"""The witness blockers when no witness is cached: any stone of either player makes the settled check search."""


class OlixBoard(Board["OlixMove"]):
    """An Olix game: the stones, whose turn it is, the moves played and how it ended.

    ``pop`` undoes the last action: an ending by agreement or resignation if
    there is one, else the last move (agreed and resigned endings are not part
    of the position text).
    """

    KIND = GameKind.OLIX
    NAME = "Olix"
    PLAYERS = PLAYERS
    MOVE = OlixMove
    WIDTH = WIDTH

    def __init__(self) -> None:
        self._lines = [[0] * _LINES, [0] * _LINES]  # per player: its ranks, files and diagonals as 11-bit lines
        self._cells: list[int | None] = [None] * SQUARES  # the player on each square
        self._best: list[tuple[int, int, int, int]] = [(0, 0, 0, 0), (0, 0, 0, 0)]
        self._shape: list[tuple[Bitboard, Bitboard, Bitboard, Bitboard]] = [(0, 0, 0, 0), (0, 0, 0, 0)]
        self.turn_index = 0
        self.move_stack: list[OlixMove] = []
        self._undo: list[_Undo] = []
        self._outcome: Outcome | None = None
        self._ending: Outcome | None = None  # agreed or resigned
        self._witness: tuple[int, int, Bitboard, int] | None = None  # (player, kind, squares, value)
        self._blockers: tuple[Bitboard, Bitboard] = _NO_WITNESS  # per player: squares that spoil the witness

    # -- state ------------------------------------------------------------------
    def stones(self, player: str) -> Bitboard:
        """The squares holding ``player``'s stones."""
        return _board_of(self._lines[PLAYERS.index(player)])

    @property
    def occupied(self) -> Bitboard:
        """Every square holding a stone."""
        return _board_of(self._lines[0]) | _board_of(self._lines[1])

    def stone_at(self, square: Square) -> str | None:
        """The player whose stone stands on ``square``, if any."""
        p = self._cells[square]
        return None if p is None else PLAYERS[p]

    def formations(self, player: str) -> dict[Kind, Formation]:
        """``player``'s best formation of each type (value 0 and no squares when none)."""
        p = PLAYERS.index(player)
        return {kind: Formation(self._best[p][k], self._shape[p][k]) for k, kind in enumerate(KINDS)}

    def formations_text(self) -> str:
        """``first O=n L=n I=n X=n second O=n L=n I=n X=n``."""
        parts = []
        for p, player in enumerate(PLAYERS):
            values = " ".join(f"{kind}={self._best[p][k]}" for k, kind in enumerate(KINDS))
            parts.append(f"{player} {values}")
        return " ".join(parts)

    def scoreboard(self) -> Scoreboard:
        """Rule 9: who holds a marker on which field of each track."""
        return scoreboard_of(self._best[0], self._best[1])

    def scoreboard_text(self) -> str:
        """Four lines, O L I X, each field as ``value:holder`` (``-``, a player, or ``both``)."""
        return self.scoreboard().text()

    # -- moves -------------------------------------------------------------------
    def parse_move(self, text: str) -> OlixMove:
        """The move spelled by ``text``; :class:`InvalidMoveError` if it spells none."""
        return OlixMove.from_text(text)

    def generate_moves(self) -> Iterator[OlixMove]:
        """Every legal move, in square order."""
        if self.is_game_over():
            return
        for s, p in enumerate(self._cells):
            if p is None:
                yield MOVES[s]

    def count_moves(self) -> int:
        """How many legal moves there are."""
        if self.is_game_over():
            return 0
        return SQUARES - len(self.move_stack) - self._preplaced

    def why_illegal(self, move: OlixMove) -> str | None:
        """Why ``move`` cannot be played here, or ``None`` if it can."""
        if self.is_game_over():
            return f"the game is over ({self.outcome()})"
        if self._cells[move.square] is not None:
            return f"{move.text()} is occupied"
        return None

    def play(self, move: OlixMove | str) -> OlixMove:
        """The validated path (see :meth:`Board.play`), with the common case checked inline for speed."""
        if (
            move.__class__ is OlixMove
            and self._outcome is None
            and self._ending is None
            and self._cells[move.square] is None
        ):
            self.push(move)
            return move
        return super().play(move)

    def push(self, move: OlixMove) -> None:
        """The fast unchecked path: place a stone on ``move.square``, assumed empty, in a game not over.

        Updates the mover's formations from the new stone and decides whether
        the game ended (automatic win, all stones placed, settled).
        """
        s = move.square
        p = self.turn_index
        stack = self.move_stack
        ply = len(stack)
        best = self._best[p]
        shape = self._shape[p]
        outcome = self._outcome
        stack.append(move)
        self.turn_index = 1 - p
        improved = self._add(p, s)
        if improved or outcome is not None:
            # Most plies improve nothing, so only the others leave an undo record.
            self._undo.append((ply, best, shape, outcome))
        if improved:
            best = self._best[p]
            if _wins_outright(best):
                self._outcome = Outcome(PLAYERS[p], EndReason.FORMATION)
                return
        if ply + self._preplaced >= STONES_IN_ALL - 1:
            self._outcome = self._scored(EndReason.STONES)
            return
        # The cached witness survives unless this stone blocks it or a best value passed it.
        if (self._blockers[p] >> s & 1 or (improved and not self._witness_holds())) and not self._find_witness():
            self._outcome = self._scored(EndReason.SETTLED)

    def pop(self) -> OlixMove | None:
        """Undo the last action: an agreed or resigned ending if there is one, else the last move.

        Returns the move taken back (``None`` for an ending). Raises
        ``IndexError`` when there is nothing to undo.
        """
        if self._ending is not None:
            self._ending = None
            return None
        move = self.move_stack.pop()
        ply = len(self.move_stack)
        p = 1 - self.turn_index
        self.turn_index = p
        square = move.square
        _rank, _file, ri, ci, di, ai, fbit, rbit = _GEOMETRY[square]
        lines = self._lines[p]
        lines[ri] ^= fbit
        lines[ci] ^= rbit
        lines[di] ^= fbit
        lines[ai] ^= fbit
        self._cells[square] = None
        undo = self._undo
        if undo and undo[-1][0] == ply:
            _, self._best[p], self._shape[p], self._outcome = undo.pop()
        else:
            self._outcome = None
        # The cached witness stays valid: fewer stones and lower bests only help it.
        return move

    def agreed(self) -> Outcome:
        """The position scored on the markers (rule 12), as ending it by agreement now would."""
        return self._scored(EndReason.AGREED)

    def _scored(self, reason: EndReason) -> Outcome:
        """The outcome of ending here for ``reason``, scored by rule 12."""
        return Outcome(_leader(self._best[0], self._best[1]), reason, markers=True)

    # -- incremental formations ----------------------------------------------------
    _preplaced = 0
    """Stones that came with a loaded position (not in ``move_stack``)."""

    def _add(self, p: int, s: Square) -> int:
        """Place a stone of player ``p`` on ``s`` and raise p's best formations from the lines through ``s``.

        Returns the improved types as bits (bit k: type k in order O L I X), 0 when none improved.
        """
        rank, file, ri, ci, di, ai, fbit, rbit = _GEOMETRY[s]
        self._cells[s] = p
        lines = self._lines[p]
        row = lines[ri] | fbit
        col = lines[ci] | rbit
        diag = lines[di] | fbit
        anti = lines[ai] | fbit
        lines[ri] = row
        lines[ci] = col
        lines[di] = diag
        lines[ai] = anti
        best_o, best_l, best_i, best_x = self._best[p]
        changed = 0  # bit k: type k improved

        # I (rule 4) and X (rule 5): the runs through s.
        at_file = _RUN[file]
        h = at_file[row]
        v = _RUN[rank][col]
        i = h if h > v else v
        if i > best_i and i >= 4:
            best_i = i
            changed = 4
        d = at_file[diag]
        e = at_file[anti]
        x = d if d > e else e
        if x > best_x and x >= 4:
            best_x = x
            changed |= 8

        # L (rule 6): corners on s's horizontal run with a vertical arm of 3, and vice versa
        # (an L holding s has its corner on one of s's two runs).
        l_corner = -1
        if h >= 3:
            corners = _RUN_MASK[file][row] & ((lines[ri + 1] & lines[ri + 2]) | (lines[ri - 1] & lines[ri - 2]))
            while corners:
                low = corners & -corners
                corners ^= low
                c = _INDEX[low]
                across = _ARM[c][row]
                if across >= 3:
                    value = across + _ARM[rank][lines[_COL0 + c]] - 1
                    if value > best_l:
                        best_l = value
                        l_corner = rank * WIDTH + c
        if v >= 3:
            corners = _RUN_MASK[rank][col] & ((lines[ci + 1] & lines[ci + 2]) | (lines[ci - 1] & lines[ci - 2]))
            while corners:
                low = corners & -corners
                corners ^= low
                c = _INDEX[low]
                along = _ARM[c][col]
                if along >= 3:
                    value = along + _ARM[file][lines[_ROW0 + c]] - 1
                    if value > best_l:
                        best_l = value
                        l_corner = c * WIDTH + file
        if l_corner >= 0:
            changed |= 2

        # O (rule 7): a rectangle holding s has its side columns a <= file <= b unbroken
        # from its bottom edge u to its top edge t, and those edges are full, so they
        # pass over s's file: a and b lie in the runs of ranks u and t through the file.
        # Walk up and down from s's rank while two such columns go on, noting the ranks
        # that could be an edge; any rectangle (value: the owner's stones in it) is
        # at most as good as the widest one on the same two edges.
        widest = _WIDEST[file]
        run_at = _RUN_MASK[file]
        tops = []
        alive = row
        t = ri + 1
        while widest[alive & lines[t]] is not None:
            alive &= lines[t]
            edge = alive & run_at[lines[t]]
            if widest[edge] is not None:
                tops.append((t, edge))
            t += 1
        bottoms = []
        alive = row
        u = ri - 1
        while widest[alive & lines[u]] is not None:
            alive &= lines[u]
            edge = alive & run_at[lines[u]]
            if widest[edge] is not None:
                bottoms.append((u, edge))
            u -= 1
        o_rect = None
        if tops or bottoms:
            edge = run_at[row]
            if widest[edge] is not None:  # s's rank as the top or the bottom edge
                tops.append((ri, edge))
                bottoms.append((ri, edge))
            for t, top_edge in tops:
                for u, bottom_edge in bottoms:
                    pair = widest[top_edge & bottom_edge]
                    if pair is None or t == u:
                        continue
                    a, b = pair
                    if (t - u + 1) * (b - a + 1) < best_o:
                        continue  # too small to beat (or tie) the best
                    segment = (2 << b) - (1 << a)
                    value = 0
                    for r in range(u, t + 1):
                        value += _BITS[lines[r] & segment]
                    # equal new bests go to the lowest side columns, so the squares shown
                    # do not depend on the order the edges are tried in
                    if value > best_o or (value == best_o and o_rect is not None and (a, b) < o_rect[:2]):
                        best_o = value
                        o_rect = (a, b, u - _ROW0, t - _ROW0)
            if o_rect is not None:
                changed |= 1

        if changed:
            self._best[p] = (best_o, best_l, best_i, best_x)
            self._shape[p] = self._shapes(p, s, changed, o_rect, l_corner, h >= v, d >= e)
        return changed

    def _shapes(
        self,
        p: int,
        s: Square,
        changed: int,
        o_rect: tuple[int, int, int, int] | None,
        l_corner: Square,
        horizontal: bool,
        diagonal: bool,
    ) -> tuple[Bitboard, Bitboard, Bitboard, Bitboard]:
        """p's best shapes after the improvements flagged in ``changed`` at ``s`` (rare: values only grow)."""
        shape_o, shape_l, shape_i, shape_x = self._shape[p]
        lines = self._lines[p]
        rank, file, ri, ci, di, ai, _fbit, _rbit = _GEOMETRY[s]
        if changed & 1:
            assert o_rect is not None  # an O improved, so its rectangle was found
            left, right, bottom, top = o_rect
            segment = (2 << right) - (1 << left)
            shape_o = 0
            for r in range(bottom, top + 1):
                shape_o |= (lines[_ROW0 + r] & segment) << (r * WIDTH)
        if changed & 2:
            shape_l = _l_squares(lines, l_corner)
        if changed & 4:
            if horizontal:
                shape_i = _RUN_MASK[file][lines[ri]] << (rank * WIDTH)
            else:
                low, high = _SPAN[rank][lines[ci]]
                shape_i = _run_bits(low * WIDTH + file, _NORTH, high - low + 1)
        if changed & 8:
            if diagonal:  # squares (rank + k, file + k), bits by file
                low, high = _SPAN[file][lines[di]]
                shape_x = _run_bits((rank + low - file) * WIDTH + low, _NORTH_EAST, high - low + 1)
            else:  # squares (rank - k, file + k), lowest at the highest file
                low, high = _SPAN[file][lines[ai]]
                shape_x = _run_bits((rank + file - high) * WIDTH + high, _NORTH_WEST, high - low + 1)
        return shape_o, shape_l, shape_i, shape_x

    # -- rule 11: the settled ending ----------------------------------------------------
    def _witness_holds(self) -> bool:
        """Whether the cached witness still beats what it must (its squares are known to be free)."""
        if self._witness is None:
            return False
        p, k, _, value = self._witness
        return value > self._best[p][k] and value >= self._best[1 - p][k]

    def _find_witness(self) -> bool:
        """Look for a formation a player could still make that would move a marker; cache it.

        For every track and player: fill every square the opponent has not
        taken with the player's stones; a formation there worth more than the
        player's best, at least the track's record and at least its first field
        would change a marker. False when there is none: the game is settled.
        """
        for p in (0, 1):
            room = BOARD & ~_board_of(self._lines[1 - p])
            for k in (I_, X_, L_, O_):
                own, other = self._best[p][k], self._best[1 - p][k]
                need = max(own + 1, other, _FIRST[k])
                found = _find_formation(k, room, need)
                if found is not None:
                    value, squares = found
                    self._witness = (p, k, squares, value)
                    # only an opponent stone on one of its squares can spoil it
                    self._blockers = (0, squares) if p == 0 else (squares, 0)
                    return True
        self._witness = None
        self._blockers = _NO_WITNESS
        return False

    def is_settled(self) -> bool:
        """Rule 11 (decided): no marker can change any more, whatever is placed."""
        return not self._find_witness()

    # -- text ----------------------------------------------------------------------------
    def position(self) -> str:
        """Position text: ranks 11 down to 1 (``X`` first, ``O`` second, digits for empty runs) and the turn."""
        first, second = self._lines
        ranks = []
        for rank in reversed(range(WIDTH)):
            row_first = first[_ROW0 + rank]
            row_second = second[_ROW0 + rank]
            text, empty = "", 0
            for file in range(WIDTH):
                if row_first >> file & 1:
                    stone = "X"
                elif row_second >> file & 1:
                    stone = "O"
                else:
                    empty += 1
                    continue
                if empty:
                    text += str(empty)
                    empty = 0
                text += stone
            ranks.append(text + (str(empty) if empty else ""))
        return f"{'/'.join(ranks)} {self.turn}"

    def _load(self, text: str) -> None:
        """Read a position text into this fresh board (``from_position`` is the public way).

        The text is the eleven ranks from 11 down to 1 separated by ``/`` (``X``
        a stone of first, ``O`` a stone of second, a number 1–11 for a run of
        empty squares), a space and the player to move:
        ``11/11/11/11/11/11/11/11/11/11/11 first`` is the start. Exactly one
        spelling of each position is accepted. First moves when both have as
        many stones, second when first has one more. A position that is
        already over loads as over: an automatic win belongs to the player who
        moved last (one held by the other player cannot arise and is refused).
        """
        if not isinstance(text, str):
            raise InvalidPositionError("not text")
        fields = text.split(" ")
        if len(fields) != 2:
            raise InvalidPositionError("expected the ranks and the player to move, separated by one space")
        ranks_text, turn = fields
        ranks = ranks_text.split("/")
        if len(ranks) != WIDTH:
            raise InvalidPositionError(f"expected {WIDTH} ranks separated by '/'")
        stones: list[list[Square]] = [[], []]
        for i, rank_text in enumerate(ranks):
            rank = WIDTH - 1 - i
            file = 0
            digits = ""
            for ch in rank_text + "/":
                if ch in "0123456789":
                    digits += ch
                    continue
                if digits:
                    if not digits.isascii() or digits[0] == "0" or len(digits) > 2:
                        raise InvalidPositionError(f"bad run of empty squares {digits!r} in rank {rank + 1}")
                    file += int(digits)
                    digits = ""
                if ch == "/":
                    break
                if ch not in "XO":
                    raise InvalidPositionError(f"unexpected character {ch!r} in rank {rank + 1}")
                if file >= WIDTH:
                    raise InvalidPositionError(f"rank {rank + 1} holds more than {WIDTH} squares")
                stones[0 if ch == "X" else 1].append(rank * WIDTH + file)
                file += 1
            if file != WIDTH:
                raise InvalidPositionError(f"rank {rank + 1} does not hold exactly {WIDTH} squares")
        if turn not in PLAYERS:
            raise InvalidPositionError(f"the player to move must be first or second, not {turn!r}")
        n_first, n_second = len(stones[0]), len(stones[1])
        if n_first == n_second:
            expected = "first"
        elif n_first == n_second + 1:
            expected = "second"
        else:
            raise InvalidPositionError(f"first has {n_first} stones and second {n_second}: first moves first")
        if n_first > STONES_PER_PLAYER:
            raise InvalidPositionError(f"first has {n_first} stones, more than {STONES_PER_PLAYER}")
        if turn != expected:
            raise InvalidPositionError(
                f"with {n_first} stones of first and {n_second} of second it is {expected}'s turn"
            )
        self.turn_index = PLAYERS.index(turn)
        for p in (0, 1):
            for s in stones[p]:
                self._add(p, s)
        self._preplaced = n_first + n_second
        if self.position() != text:
            raise InvalidPositionError(f"not in canonical form (it would be {self.position()!r})")
        last = 1 - self.turn_index
        if _wins_outright(self._best[self.turn_index]):
            raise InvalidPositionError(f"{self.turn} holds an automatic win but {PLAYERS[last]} moved last")
        if _wins_outright(self._best[last]):
            self._outcome = Outcome(PLAYERS[last], EndReason.FORMATION)
        elif self._preplaced >= STONES_IN_ALL:
            self._outcome = self._scored(EndReason.STONES)
        elif not self._find_witness():
            self._outcome = self._scored(EndReason.SETTLED)

    def show(self) -> str:
        """The board as several lines of text, rank 11 at the top: ``#`` first's stones, ``o`` second's (glyphs that
        are no formation's letter), a legend, then whose turn it is or how the game ended."""
        lines = []
        for rank in reversed(range(WIDTH)):
            cells = []
            for file in range(WIDTH):
                owner = self.stone_at(rank * WIDTH + file)
                cells.append("." if owner is None else STONE_GLYPHS[PLAYERS.index(owner)])
            lines.append(f"{rank + 1:>2} " + " ".join(cells))
        lines.append("   " + " ".join(chr(ord("a") + f) for f in range(WIDTH)))
        legend = f"{STONE_GLYPHS[0]} first, {STONE_GLYPHS[1]} second"
        status = self.outcome()
        if status:
            lines.append(f"game over: {status.sentence(PLAYERS)} ({legend})")
        else:
            lines.append(f"{self.turn} ({STONE_GLYPHS[self.turn_index]}) to move; {legend}")
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OlixBoard):
            return NotImplemented
        return self._lines == other._lines and self.turn_index == other.turn_index and self.outcome() == other.outcome()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def copy(self) -> OlixBoard:
        """An independent copy, history included."""
        board = OlixBoard.__new__(OlixBoard)
        board._lines = [list(self._lines[0]), list(self._lines[1])]
        board._cells = list(self._cells)
        board._best = list(self._best)
        board._shape = list(self._shape)
        board.turn_index = self.turn_index
        board.move_stack = list(self.move_stack)
        board._undo = list(self._undo)
        board._outcome, board._ending = self._outcome, self._ending
        board._witness, board._blockers = self._witness, self._blockers
        board._preplaced = self._preplaced
        return board

    # -- search ----------------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Count the move sequences of length ``depth`` (finished games stop early)."""
        if depth < 0:
            raise ValueError(f"perft depth must be at least 0, not {depth}")
        if self.is_game_over():
            return 0 if depth else 1
        if depth == 0:
            return 1
        if depth == 1:
            return self.count_moves()
        total = 0
        for move in self.legal_moves():
            self.push(move)
            total += self.perft(depth - 1)
            self.pop()
        return total
