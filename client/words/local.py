"""What a person reads of a game at one terminal: the line for each event of :class:`client.cores.local_game.LocalCore`
(a network game's events have theirs in :mod:`client.words.network`, which stands on the protocol; local play
loads none)."""

from __future__ import annotations

from client.cores.local_game import Answered, LocalCore, LocalEvent, Played, TookBack
from client.words.board import game_over_text


def describe(core: LocalCore, event: LocalEvent) -> str:
    """The line for a local event."""
    if isinstance(event, Played):
        return f"{core.vs} plays {event.move}" if event.bot else f"{event.player} plays {event.move}"
    if isinstance(event, TookBack):
        return f"took back {event.plies} move{'s' if event.plies > 1 else ''}"
    if isinstance(event, Answered):
        return f"{core.vs} agrees to end the game." if event.agreed else f"{core.vs} declines to end the game: play on."
    return game_over_text(event.outcome.sentence(core.board.PLAYERS))
