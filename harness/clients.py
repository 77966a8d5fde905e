"""``olixono`` processes that benchmarks start: a home of their own, and the game a host offers."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OFFER = "olixono join "
"""What a host prints before the id of the game it offers (the command its guest types)."""


def home_env(home: Path, **more: str) -> dict[str, str]:
    """The environment of an ``olixono`` process whose home is ``home`` (its config and state folders under it), this
    tree first on its path, no relay named by the environment, and ``more`` variables."""
    env = dict(
        os.environ, XDG_CONFIG_HOME=str(home / "config"), XDG_STATE_HOME=str(home / "state"), PYTHONPATH=str(ROOT)
    )
    env.pop("OLIXONO_RELAY", None)
    env.update(more)
    return env


def offered_game(lines: Iterable[str]) -> str:
    """The game id of the first ``olixono join GAME`` among a host's ``lines``; empty if they end without one."""
    return next((line.split(OFFER, 1)[1].split()[0] for line in lines if OFFER in line), "")
