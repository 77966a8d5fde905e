"""What a person reads and writes of a board alone, the same in every game's front end: how a move is written, the
board with its scoreboard, the game-over sentence.

No protocol here (the vocabulary's other words, :mod:`client.words` and :mod:`client.commands`, stand on the
network game's core): local play at one terminal reads it without loading the protocol and its cryptography.
"""

from __future__ import annotations

from typing import Any

from olixono.common import Board
from olixono.olix import OlixBoard

EXAMPLES = {"oxono": "e.g. Oc6c5: totem O to c6, pawn marked O on c5", "olix": "a square, e.g. f6"}
"""How a move is written, in each game (help texts and refusals quote it)."""


def game_over_text(sentence: str) -> str:
    """``Game over: pink wins, a colour line.``: how every front end says that a game ended (``sentence``: the
    result's own, :meth:`protocol.Result.sentence` or :meth:`olixono.common.Outcome.sentence`)."""
    return f"Game over: {sentence}."


def status_text(board: Board[Any]) -> str:
    """The board, plus the scoreboard in Olix."""
    text = board.show()
    if isinstance(board, OlixBoard):
        text += "\n" + board.scoreboard_text()
    return text
