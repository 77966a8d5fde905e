"""The tallies and the ``name: value`` lines that the benchmarks and the soak print, and the memory they read.

Shared by ``bench/*.py`` (run as ``python bench/X.py``, with the repository root first on ``sys.path``) and by
``python -m harness.X``; tests and ``BENCHMARKS.md`` read the lines, so their format is fixed here once.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


def percentile(values: Iterable[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank, no interpolation); NaN for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def median(values: Iterable[float]) -> float:
    """The median of ``values`` (the mean of the middle two for an even count); NaN for none. Every ``p50`` figure
    is this median."""
    listed = list(values)
    return statistics.median(listed) if listed else float("nan")


def mean(values: Iterable[float]) -> float:
    """The arithmetic mean of ``values``; NaN for none."""
    listed = list(values)
    return statistics.fmean(listed) if listed else float("nan")


def wilson(rate: float, count: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a ``rate`` seen over ``count`` trials (95% for the default ``z``); (0, 1) for
    none."""
    if not count:
        return 0.0, 1.0
    centre = (rate + z * z / (2 * count)) / (1 + z * z / count)
    half = z * math.sqrt(rate * (1 - rate) / count + z * z / (4 * count * count)) / (1 + z * z / count)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Results:
    """Games from one player's side: wins, draws and losses; the score counts a draw as half a win."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def count(self, winner: object, seat: object) -> None:
        """One game more, won by ``winner`` (None: a draw, or unfinished) and played from ``seat``."""
        if winner is None:
            self.draws += 1
        elif winner == seat:
            self.wins += 1
        else:
            self.losses += 1

    def score(self) -> float:
        """Wins plus half the draws, a game (0 for none)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def interval(self, rate: float | None = None) -> tuple[float, float]:
        """The 95% Wilson interval of ``rate`` (the score by default) over the games."""
        return wilson(self.score() if rate is None else rate, self.games)

    def wdl(self) -> str:
        """``wins-draws-losses``."""
        return f"{self.wins}-{self.draws}-{self.losses}"


def figure_line(name: str, value: object, digits: int | None = None) -> str:
    """``name: value``, a float with ``digits`` decimals when given (anything else as ``str`` gives it)."""
    if digits is not None and isinstance(value, float):
        return f"{name}: {value:.{digits}f}"
    return f"{name}: {value}"


Figure = tuple[str, object] | tuple[str, object, int]
"""``(name, value)``, or ``(name, value, digits)``: a float value of its own precision."""


def print_figures(figures: Iterable[Figure], digits: int | None = None, prefix: str = "") -> None:
    """Print each figure as a ``name: value`` line (``prefix`` before each name; a float with ``digits`` decimals
    unless the figure gives its own), flushed as it goes."""
    for figure in figures:
        own = figure[2] if len(figure) == 3 else digits
        print(figure_line(prefix + figure[0], figure[1], own), flush=True)


def memory_mib(pid: int, field: str = "VmRSS") -> float:
    """A process's memory in MiB from ``/proc/PID/status``: ``VmRSS`` (now) or ``VmHWM`` (its peak); 0.0 once the
    process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name == field:
            return int(value.split()[0]) / 1024
    return 0.0
