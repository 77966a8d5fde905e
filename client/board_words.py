"""What a person reads and writes that needs no protocol, the same in every front end: how a move is written (each
game's words), the board with its scoreboard, the game-over sentence, and the hints to resume, watch again, export.

No protocol here (the vocabulary's other words, :mod:`client.words` and :mod:`client.commands`, stand on the
network game's core): local play at one terminal reads it without loading the protocol and its cryptography.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from olixono.common import Board, GameKind
from olixono.olix import OlixBoard


@dataclass(frozen=True, slots=True)
class GameWords:
    """What a person reads and types that differs between the games."""

    example: str
    """How a move is written (help texts and refusals quote it)."""
    end_word: str
    """The word that proposes to end the game before its end: a draw in Oxono, counting the markers in Olix."""
    end_help: str
    """What that word does, for the help texts."""
    proposal: str
    """What a player who proposed it did, for the log (``pink offers a draw``)."""
    segments: tuple[int, ...] | None = None
    """Where a move's segments end, for Tab to complete one at a time (Oxono: the totem ``O``, where it goes
    ``Oc6``, the pawn's square ``Oc6c5``); ``None``: whole moves."""


GAME_WORDS: dict[str, GameWords] = {
    GameKind.OXONO: GameWords("e.g. Oc6c5: totem O to c6, pawn marked O on c5", "draw", "offer a draw",
                              "offers a draw", segments=(1, 3, 5)),
    GameKind.OLIX: GameWords("a square, e.g. f6", "end", "propose to end the game now and count the markers",
                             "proposes to end the game and count the markers"),
}
"""Each game's words, by its kind."""


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


def export_text(game: str | None) -> str:
    """Where a finished network game's record is to be had."""
    return f"olixono export {game} > game.txt"


def resume_text(game: str | None) -> str:
    """How a player takes a game up again."""
    return f"olixono resume {game} takes it up again"


def watch_again_text(game: str | None) -> str:
    """How a watcher follows a game again."""
    return f"olixono watch {game} follows it again"


def clock_text(seconds: float) -> str:
    """A clock or a thinking time as people read it: ``4:07`` (minutes, seconds), ``1:02:30`` past an hour,
    ``2 d 23:59:59`` past a day."""
    whole = int(seconds)
    days, whole = divmod(whole, 86_400)
    hours, whole = divmod(whole, 3600)
    minutes, whole = divmod(whole, 60)
    text = f"{hours}:{minutes:02d}:{whole:02d}" if hours or days else f"{minutes}:{whole:02d}"
    return f"{days} d {text}" if days else text


LOW_MS = 10_000
"""A clock under this is shown with a warning."""


def clock_left_text(ms: int, unexplained_ms: int = 0) -> str:
    """A game clock as people read it: ``4:07``; under :data:`LOW_MS`, in tenths and marked: ``0:09.4!``; with the
    thinking the receipts leave unexplained beside it, if any: ``4:07 (+1.2s)``."""
    shown = clock_text(ms / 1000) if ms >= LOW_MS else f"0:{ms // 1000:02d}.{ms % 1000 // 100}!"
    return shown if unexplained_ms < 100 else f"{shown} (+{unexplained_ms / 1000:.1f}s)"
