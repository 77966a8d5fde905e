"""The games this package plays, by name: a registry in the manner of python-chess's variants.

Each :class:`Game` names its board class (the rules) and its bot module (what the bots know of it). Code that works
for every game looks a game up here (:data:`GAMES`, :func:`game_of`) rather than asking ``if kind == "oxono"``.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass
from typing import Any, Protocol

from olixono.common import Board, GameKind, MoveLike
from olixono.mcts import Mcts, SearchView  # types only: cheap, and below the bots
from olixono.olix import OlixBoard
from olixono.oxono import OxonoBoard


class GameBots(Protocol):
    """What a game's bot module offers every bot (:mod:`olixono.bot_oxono`, :mod:`olixono.bot_olix`)."""

    def greedy_scores(self, board: Any) -> list[tuple[float, Any]]:
        """Every legal move in the search's own form, with its one-move score."""
        ...

    def board_move(self, move: Any) -> MoveLike:
        """The engine's move for a move in the search's form."""
        ...

    def searcher(self, board: Any, rng: random.Random) -> tuple[SearchView[Any], Mcts]:
        """The tree search's view of ``board``, and the search tuned for the game."""
        ...


@dataclass(frozen=True, slots=True)
class Game:
    """One game: its :class:`GameKind`, its board class and its bot module (imported when first asked for: the
    protocol and the relay, which need the rules, never load the bots)."""

    kind: GameKind
    board: type[Board[Any]]
    bots_module: str

    @property
    def bots(self) -> GameBots:
        module: GameBots = importlib.import_module(self.bots_module)
        return module


GAMES: dict[str, Game] = {
    game.kind.value: game
    for game in (
        Game(GameKind.OXONO, OxonoBoard, "olixono.bot_oxono"),
        Game(GameKind.OLIX, OlixBoard, "olixono.bot_olix"),
    )
}
"""Every game, by its kind (``oxono``, ``olix``)."""
BOARDS: dict[str, type[Board[Any]]] = {kind: game.board for kind, game in GAMES.items()}
"""Board class for each game kind."""


def game_of(board: Board[Any]) -> Game:
    """The game ``board`` is of."""
    return GAMES[board.KIND]


def new_board(kind: str) -> Board[Any]:
    """A fresh board of the game named ``kind``; ``ValueError`` for an unknown name."""
    try:
        return BOARDS[kind]()
    except KeyError:
        raise ValueError(f"unknown game {kind!r}: expected one of {', '.join(BOARDS)}") from None
