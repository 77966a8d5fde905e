"""Which backend the bots' searches run on: the Python reference, or the C helpers where they were built.

Each bot module (:mod:`olixono.bot_oxono`, :mod:`olixono.bot_olix`) offers two backends, ``PYTHON`` (its own
functions, the reference) and ``C`` (``None`` where the extension was not built), and serves ``BACKEND``, chosen once,
when it is imported, by :func:`choose`. A caller that wants one of them names it (``searcher(board, rng, C)``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TypeVar

PURE_PYTHON = "OLIXONO_PURE_PYTHON"
"""The environment variable that asks for the Python reference where the C helpers are built (any value but empty)."""

B = TypeVar("B")


def choose(python: B, c: B | None, environ: Mapping[str, str] = os.environ) -> B:
    """``c`` where it was built (not ``None``) and ``environ`` does not set :data:`PURE_PYTHON`; else ``python``."""
    return python if c is None or environ.get(PURE_PYTHON) else c
