"""Shared by the engines' and the bots' tests: what a finished board and a bot's last choice hold, typed."""

from __future__ import annotations

from typing import Any

from olixono.bots import Analysis, Bot
from olixono.common import Board, Outcome


def outcome_of(board: Board[Any]) -> Outcome:
    """How the game on ``board`` ended (it has)."""
    outcome = board.outcome()
    assert outcome is not None, "the game is not over"
    return outcome


def analysis_of(bot: Bot) -> Analysis:
    """What ``bot`` considered for its last choice (it has chosen)."""
    assert bot.analysis is not None, "the bot has not chosen yet"
    return bot.analysis
