"""Shared by the bots' tests: what a bot considered, typed."""

from __future__ import annotations

from olixono.bots import Analysis, Bot


def analysis_of(bot: Bot) -> Analysis:
    """What ``bot`` considered for its last choice (it has chosen)."""
    assert bot.analysis is not None, "the bot has not chosen yet"
    return bot.analysis
