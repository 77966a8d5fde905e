"""What a person asks of a game, the same for a network game (:class:`client.cores.network_game.GameCore`) and a game at
one terminal (:class:`client.cores.local_game.LocalCore`): an :class:`Intent` in; a :class:`IntentRefused` with one
sentence when it cannot be done now.

No protocol here: local play reads it without loading the protocol and its cryptography.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class IntentKind(StrEnum):
    """What the local person may ask for. In a network game each but ``chat`` signs the main-chain line of the same
    name; ``undo`` is local play's alone, ``rematch`` signs a line of the game that is over (and, asking first, the
    next game's offer), and ``takeback`` asks for, consents to or carries out a takeback (``text`` ``no``: refuses
    it). A watcher's ``chat`` is its talk, beside the game; ``watchers`` (``text`` ``on`` or ``off``) shows or hides the
    watchers' talk, signing nothing."""

    MOVE = "move"
    RESIGN = "resign"
    PROPOSE = "propose"
    WITHDRAW = "withdraw"
    DECLINE = "decline"
    AGREE = "agree"
    ABORT = "abort"
    CLAIM = "claim"
    CHAT = "chat"
    UNDO = "undo"
    REMATCH = "rematch"
    TAKEBACK = "takeback"
    WATCHERS = "watchers"


class IntentRefused(ValueError):
    """What the person asked for cannot be done now; the message is one sentence to show them."""


@dataclass(frozen=True, slots=True, init=False)
class Intent:
    """What the local person wants (``Intent("resign")`` names the kind by its text); ``text``: the move or the chat
    text."""

    kind: IntentKind
    text: str = ""

    def __init__(self, kind: IntentKind | str, text: str = "") -> None:
        try:
            object.__setattr__(self, "kind", IntentKind(kind))
        except ValueError:
            raise ValueError(f"unknown intent {kind!r}: expected one of {', '.join(IntentKind)}") from None
        object.__setattr__(self, "text", text)
