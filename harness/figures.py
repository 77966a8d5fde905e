"""The tallies and the ``name: value`` lines that the benchmarks and the soak print, and the memory they read.

Shared by ``bench/*.py`` (run as ``python bench/X.py``, with the repository root first on ``sys.path``) and by
``python -m harness.X``; tests and ``BENCHMARKS.md`` read the lines, so their format is fixed here once.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
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


def figure_line(name: str, value: object, digits: int | None = None) -> str:
    """``name: value``, a float with ``digits`` decimals when given (anything else as ``str`` gives it)."""
    if digits is not None and isinstance(value, float):
        return f"{name}: {value:.{digits}f}"
    return f"{name}: {value}"


def print_figures(figures: Iterable[tuple[str, object]], digits: int | None = None, prefix: str = "") -> None:
    """Print each figure as a ``name: value`` line (``prefix`` before each name), flushed as it goes."""
    for name, value in figures:
        print(figure_line(prefix + name, value, digits), flush=True)


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
