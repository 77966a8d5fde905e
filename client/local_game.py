"""A game at one terminal, below its front ends (the line loop of ``client.local``, the full screen's
``client.local_screen``) and the replay: the board, the person's seat and the bot, set up once.

It touches no terminal: each front end reads and writes in its own way on what this gives it.
"""

from __future__ import annotations

from typing import Any

from olixono.bots import LEVELS, make_bot
from olixono.common import Board
from olixono.games import new_board


def set_up(kind: str, *, vs: str | None, human: str | None, seed: int | None, iterations: int | None,
           seconds: float | None) -> tuple[Board[Any], str, Any]:
    """A new board of ``kind``, the person's seat (the first by default) and the bot (``None`` for two people);
    ``ValueError`` for an unknown bot level or seat (arguments as :func:`client.local.play_local`)."""
    board = new_board(kind)
    if vs is not None and vs not in LEVELS:
        raise ValueError(f"unknown opponent {vs!r}: expected one of {', '.join(LEVELS)}")
    human = human or board.PLAYERS[0]
    if human not in board.PLAYERS:
        raise ValueError(f"unknown seat {human!r} in {kind}: expected {' or '.join(board.PLAYERS)}")
    return board, human, make_bot(vs, seed=seed, iterations=iterations, seconds=seconds) if vs else None


def board_moves(board: Board[Any]) -> list[tuple[str, str]]:
    """``(player, move)`` for every move on ``board``'s stack, played from the start (turns alternate, the first
    player first)."""
    return [(board.PLAYERS[index % 2], move.text()) for index, move in enumerate(board.move_stack)]
