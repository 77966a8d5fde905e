"""The command-line options the benchmarks (``bench/*.py``) and the harness (``python -m harness.X``) share, each
spelled once: the parser, ``--quick``, ``--relay``, ``--game`` and ``--opening``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

RELAYS = ("embedded", "mosquitto")
"""The relays a benchmark can run in a process of its own (:class:`harness.relays.RelayProcess`)."""
BOTH = "both"
"""``--relay both``: every relay of :data:`RELAYS`, in turn."""
GAMES = ("oxono", "olix")


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A script's parser, its ``--help`` opening with the script's docstring ``doc`` as written (what it measures
    and what each figure means)."""
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


def add_quick(parser: argparse.ArgumentParser, what: str) -> None:
    """``--quick``: a short run, ``what`` it does instead of the full one."""
    parser.add_argument("--quick", action="store_true", help=what)


def add_relay(
    parser: argparse.ArgumentParser,
    default: str,
    *,
    both: bool = False,
    more: Sequence[str] = (),
    what: str = "the relay, in a process of its own",
) -> None:
    """``--relay``: one of :data:`RELAYS` (``default``), or with ``both`` each in turn, or one of ``more``."""
    choices = [*RELAYS, *([BOTH] if both else []), *more]
    parser.add_argument("--relay", choices=choices, default=default, help=f"{what} (default {default})")


def relays(choice: str) -> list[str]:
    """The relays ``--relay`` names: both of :data:`RELAYS` for ``both``, else the one."""
    return list(RELAYS) if choice == BOTH else [choice]


def add_game(parser: argparse.ArgumentParser) -> None:
    """``--game``: one game, given once or more (by default every game)."""
    parser.add_argument("--game", choices=GAMES, action="append", help="one game (default both)")


def games(chosen: list[str] | None) -> list[str]:
    """The games ``--game`` chose: every game when none was."""
    return chosen or list(GAMES)


def add_opening(parser: argparse.ArgumentParser, default: int | None, what: str) -> None:
    """``--opening``: the random legal moves each game opens with (``what`` says the default)."""
    parser.add_argument("--opening", type=int, default=default, help=f"random moves each game opens with ({what})")
