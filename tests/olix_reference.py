"""A slow, obviously correct Olix reference, for differential tests.

Nothing here is incremental or clever: the board is a list of 121 cells
(``None``, 0 for first, 1 for second); every formation type is found by
trying every rectangle, every corner with every pair of arm directions and
every line from every square, straight from docs/olix.md (rules 3–12).
Also here: the random game generators the tests share (uniform, clustering,
and sparse lattices that often end settled).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations

N = 11
SQUARES = N * N
PLAYERS = ("first", "second")
KINDS = ("O", "L", "I", "X")
FIELDS = {"O": (4, 6, 8, 9), "L": (5, 6, 7, 8), "I": (4, 5, 6, 7), "X": (4, 5, 6, 7)}
STONES_IN_ALL = 100


def square(rank: int, file: int) -> int:
    return rank * N + file


def on_board(rank: int, file: int) -> bool:
    return 0 <= rank < N and 0 <= file < N


def _rectangles():
    """Every rectangle at least 2 × 2: (boundary squares, inside squares, closed squares)."""
    rects = []
    for bottom, top in combinations(range(N), 2):
        for left, right in combinations(range(N), 2):
            corners = [square(bottom, left), square(bottom, right), square(top, left), square(top, right)]
            boundary = set()
            for f in range(left, right + 1):
                boundary.add(square(bottom, f))
                boundary.add(square(top, f))
            for r in range(bottom, top + 1):
                boundary.add(square(r, left))
                boundary.add(square(r, right))
            inside = [square(r, f) for r in range(bottom + 1, top) for f in range(left + 1, right)]
            # corners first, so that most rectangles fail at once
            ordered = corners + sorted(boundary - set(corners))
            rects.append((tuple(ordered), tuple(inside)))
    return rects


RECTANGLES = _rectangles()


def arm(cells, p, rank, file, dr, df) -> int:
    """Stones of p from (rank, file) on, towards (dr, df), until a gap or the edge."""
    n = 0
    while on_board(rank, file) and cells[square(rank, file)] == p:
        n += 1
        rank += dr
        file += df
    return n


def best_line(cells, p, directions) -> int:
    """Longest run of p's stones along the directions, if at least 4, else 0."""
    best = 0
    for s in range(SQUARES):
        rank, file = divmod(s, N)
        for dr, df in directions:
            best = max(best, arm(cells, p, rank, file, dr, df))
    return best if best >= 4 else 0


def best_l(cells, p) -> int:
    """Every corner, every horizontal and vertical direction: arms of 3 or more."""
    best = 0
    for s in range(SQUARES):
        if cells[s] != p:
            continue
        rank, file = divmod(s, N)
        for df in (1, -1):
            for dr in (1, -1):
                h = arm(cells, p, rank, file, 0, df)
                v = arm(cells, p, rank, file, dr, 0)
                if h >= 3 and v >= 3:
                    best = max(best, h + v - 1)
    return best


def best_o(cells, p) -> int:
    """Every rectangle whose boundary is all p's: boundary plus p's stones inside."""
    best = 0
    for boundary, inside in RECTANGLES:
        if all(cells[q] == p for q in boundary):
            best = max(best, len(boundary) + sum(1 for q in inside if cells[q] == p))
    return best


ORTHOGONAL = ((0, 1), (1, 0))
DIAGONAL = ((1, 1), (1, -1))


def best_values(cells, p) -> dict[str, int]:
    """p's best value of each type (0 when none)."""
    return {
        "O": best_o(cells, p),
        "L": best_l(cells, p),
        "I": best_line(cells, p, ORTHOGONAL),
        "X": best_line(cells, p, DIAGONAL),
    }


def is_formation(cells, p, kind: str, squares: set[int], value: int) -> bool:
    """Whether ``squares`` is a formation of p of that type worth exactly ``value``."""
    if value == 0:
        return not squares
    if any(cells[q] != p for q in squares) or len(squares) != value:
        return False
    if kind in ("I", "X"):
        steps = ORTHOGONAL if kind == "I" else DIAGONAL
        for s in squares:
            rank, file = divmod(s, N)
            for dr, df in steps:
                line = {
                    square(rank + dr * k, file + df * k) for k in range(value) if on_board(rank + dr * k, file + df * k)
                }
                if line == squares and value >= 4:
                    return True
        return False
    if kind == "L":
        for s in squares:
            rank, file = divmod(s, N)
            for df in (1, -1):
                for dr in (1, -1):
                    for h in range(3, N + 1):
                        for v in range(3, N + 1):
                            if h + v - 1 != value:
                                continue
                            cells_h = [(rank, file + df * k) for k in range(h)]
                            cells_v = [(rank + dr * k, file) for k in range(v)]
                            if not all(on_board(r, f) for r, f in cells_h + cells_v):
                                continue
                            if {square(r, f) for r, f in cells_h + cells_v} == squares:
                                return True
        return False
    # O: the bounding box must be the rectangle
    ranks = [q // N for q in squares]
    files = [q % N for q in squares]
    bottom, top, left, right = min(ranks), max(ranks), min(files), max(files)
    if top == bottom or left == right:
        return False
    closed = {square(r, f) for r in range(bottom, top + 1) for f in range(left, right + 1)}
    boundary = {q for q in closed if q // N in (bottom, top) or q % N in (left, right)}
    return boundary <= squares and squares == {q for q in closed if cells[q] == p}


def scoreboard(best: tuple[dict[str, int], dict[str, int]]) -> dict[str, tuple[int | None, tuple[str, ...]]]:
    """Rule 9: per track, the marked field value (None if none) and its holders."""
    board = {}
    for kind in KINDS:
        record = max(best[0][kind], best[1][kind])
        holders = tuple(PLAYERS[p] for p in (0, 1) if best[p][kind] == record and record >= FIELDS[kind][0])
        field = record if holders and record in FIELDS[kind] else None
        board[kind] = (field, holders if field is not None else ())
    return board


def scoreboard_text(best) -> str:
    lines = []
    for kind, (field, holders) in scoreboard(best).items():
        who = {0: "-", 1: holders[0] if holders else "-", 2: "both"}[len(holders)]
        lines.append(kind + " " + " ".join(f"{v}:{who if v == field else '-'}" for v in FIELDS[kind]))
    return "\n".join(lines)


def winner_by_score(best) -> str | None:
    """Rule 12: more markers; then field positions compared from the highest; else a draw."""
    positions: dict[str, list[int]] = {p: [] for p in PLAYERS}
    for kind, (field, holders) in scoreboard(best).items():
        for player in holders:
            positions[player].append(FIELDS[kind].index(field) + 1)
    a, b = sorted(positions["first"], reverse=True), sorted(positions["second"], reverse=True)
    if len(a) != len(b):
        return "first" if len(a) > len(b) else "second"
    for x, y in zip(a, b, strict=True):
        if x != y:
            return "first" if x > y else "second"
    return None


def settled(cells, best) -> bool:
    """Rule 11 (decided): filling every empty square with p's stones moves no marker, for both p."""
    for p in (0, 1):
        filled = [p if c is None else c for c in cells]
        potential = best_values(filled, p)
        for kind in KINDS:
            record = max(best[0][kind], best[1][kind])
            if potential[kind] > best[p][kind] and potential[kind] >= max(record, FIELDS[kind][0]):
                return False
    return True


def above_top(values: dict[str, int]) -> bool:
    return any(values[k] > FIELDS[k][-1] for k in KINDS)


class RefGame:
    """A game played square by square, judged from scratch after every move."""

    def __init__(self) -> None:
        self.cells: list[int | None] = [None] * SQUARES
        self.turn = 0
        self.stones = 0
        self.outcome: tuple[str | None, str] | None = None
        self.best = ({k: 0 for k in KINDS}, {k: 0 for k in KINDS})

    def play(self, s: int, check_settled: bool = True) -> None:
        assert self.outcome is None and self.cells[s] is None
        mover = self.turn
        self.cells[s] = mover
        self.stones += 1
        self.turn = 1 - mover
        self.best = (best_values(self.cells, 0), best_values(self.cells, 1))
        if above_top(self.best[mover]):
            self.outcome = (PLAYERS[mover], "formation")
        elif self.stones == STONES_IN_ALL:
            self.outcome = (winner_by_score(self.best), "stones")
        elif check_settled and settled(self.cells, self.best):
            self.outcome = (winner_by_score(self.best), "settled")

    def formations_text(self) -> str:
        return " ".join(f"{PLAYERS[p]} " + " ".join(f"{k}={self.best[p][k]}" for k in KINDS) for p in (0, 1))


# -- random games ---------------------------------------------------------------------


def _neighbours(s: int) -> Iterator[int]:
    rank, file = divmod(s, N)
    for dr in (-1, 0, 1):
        for df in (-1, 0, 1):
            if (dr or df) and on_board(rank + dr, file + df):
                yield square(rank + dr, file + df)


def choose_uniform(rng: random.Random, cells, turn: int) -> int:
    return rng.choice([s for s in range(SQUARES) if cells[s] is None])


def choose_clustering(rng: random.Random, cells, turn: int) -> int:
    """Mostly next to one's own stones, so that formations appear."""
    empty = [s for s in range(SQUARES) if cells[s] is None]
    if rng.random() < 0.85:
        near = sorted({q for s in range(SQUARES) if cells[s] == turn for q in _neighbours(s) if cells[q] is None})
        if near:
            return rng.choice(near)
    return rng.choice(empty)


LATTICE_CLASSES = ({0, 1}, {2, 3})


def choose_lattice(rng: random.Random, cells, turn: int, noise: float = 0.0) -> int:
    """Each player keeps to two of the five classes of (file + 2·rank) mod 5: often settled early."""
    empty = [s for s in range(SQUARES) if cells[s] is None]
    mine = [s for s in empty if (s % N + 2 * (s // N)) % 5 in LATTICE_CLASSES[turn]]
    if mine and rng.random() >= noise:
        return rng.choice(mine)
    return rng.choice(empty)


CHOOSERS = {"uniform": choose_uniform, "clustering": choose_clustering, "lattice": choose_lattice}


def random_squares(style: str, seed: int, limit: int = SQUARES) -> list[int]:
    """A seeded sequence of distinct squares in the given style (to be cut where the game ends).

    The choice depends only on the stones already placed, so the same
    sequence replays the same game in any engine.
    """
    rng = random.Random(f"{style}-{seed}")
    choose = CHOOSERS[style]
    cells: list[int | None] = [None] * SQUARES
    sequence = []
    turn = 0
    for _ in range(min(limit, STONES_IN_ALL)):
        s = choose(rng, cells, turn)
        cells[s] = turn
        sequence.append(s)
        turn = 1 - turn
    return sequence
