"""The games this package knows, by name."""

from __future__ import annotations

from typing import Any

from olixono.common import Board
from olixono.olix import OlixBoard
from olixono.oxono import OxonoBoard

BOARDS: dict[str, type[Board[Any]]] = {OxonoBoard.KIND: OxonoBoard, OlixBoard.KIND: OlixBoard}
"""Board class for each game kind (``oxono``, ``olix``)."""


def new_board(kind: str) -> Board[Any]:
    """A fresh board of the game named ``kind``; ``ValueError`` for an unknown name."""
    try:
        return BOARDS[kind]()
    except KeyError:
        raise ValueError(f"unknown game {kind!r}: expected one of {', '.join(BOARDS)}") from None
