"""The bell: the terminal's BEL (``\\a``) when the turn becomes the person's, and when a claim on time is made against
them, so that a player who looked away hears it (the full screen and the line console ring it; ``--plain`` never
does: it is for scripts, which a BEL byte in their text would only disturb, and for screen readers, which speak its
``your move`` and ``claim:`` lines at those very moments).

What rings is decided here once, below every front end, from what a game's core says (:func:`marks`); a front end
asks :class:`Bell` after every change and rings the terminal when it answers yes. A mark is rung once: a turn is
known by the number of moves played before it, a claim by its place in the chain. The marks standing when the bell
is made are heard already: taking up a game on one's turn, the person is at the terminal.

It never rings for a watcher, for the opponent's turn, for one's own move (the turn then passes away), for two people
at one terminal (the turn passes with a move typed at this very terminal), nor once the game is over.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

BELL = "\a"
"""The byte that rings a terminal's bell."""
NO_BELL = "NO_BELL"
"""The environment variable that silences the bell when set to anything (as ``--no-bell`` does)."""


def bell_wanted(no_bell: bool, environ: Mapping[str, str]) -> bool:
    """Whether the bell may ring: refused neither by ``--no-bell`` (``no_bell``) nor by ``NO_BELL`` (any non-empty
    value)."""
    return not no_bell and not environ.get(NO_BELL)


def marks(game: Any) -> frozenset[str]:
    """What the person should hear about now in ``game`` (a network game's :class:`client.cores.network_game.GameCore`
    or a game at one terminal's :class:`client.cores.local_game.LocalCore`): ``turn N`` while it is their turn after N
    moves, ``claim S`` while the opponent's claim on time (at chain place S) stands against them."""
    if game is None or game.watching or game.over or not game.my_turn:
        return frozenset()
    if game.local:
        if game.bot is None:  # two people at one terminal: each turn comes with a move typed here
            return frozenset()
        return frozenset({f"turn {len(game.board.move_stack)}"})
    found = {f"turn {game.moves}"}
    flag = game.flag_against_me()
    if flag is not None:
        found.add(f"claim {flag.seq}")
    return frozenset(found)


class Bell:
    """Rings ``ring`` once for each new mark of ``game`` (:func:`marks`); ``ring`` ``None``: silenced (the marks are
    still followed, so that nothing rings late should it be turned on)."""

    def __init__(self, game: Any, ring: Callable[[], None] | None) -> None:
        self.game, self.ring = game, ring
        self.heard: set[str] = set(marks(game))
        self.rung = 0
        """How many times it rang (for tests and for nobody else)."""

    def __call__(self) -> bool:
        """Ring if something new is due; whether it rang."""
        new = marks(self.game) - self.heard
        if not new:
            return False
        self.heard |= new
        if self.ring is None:
            return False
        self.ring()
        self.rung += 1
        return True
