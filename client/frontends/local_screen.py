"""``olixono play`` on the full screen: the same board, moves, log and toolbar as a network game.

One board at this terminal, two people taking turns or one against a bot that thinks in a thread (the screen stays
live meanwhile: /resign, /board and the clock still answer). :class:`client.cores.local_game.LocalCore` rules on every
intent, as in the line loop of ``client.frontends.local_plain``; typed lines are read by the vocabulary every front end
shares.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from client.cores.intents import IntentRefused
from client.cores.local_game import Ended, LocalCore, LocalStep, Played
from client.frontends.screen import Say, Table, game_commands, game_help
from client.shell.local_record import LocalRecord
from client.shell.thinking import in_daemon_thread
from client.words.board import clock_text, finished_text, game_over_text, hint_text, kept_text
from client.words.commands import Game, parse, shown
from client.words.local import describe
from olixono.common import Board, GameKind


class LocalTable(Table):
    """A game of ``kind`` at this terminal (``vs``: a bot level, or ``None`` for two people; ``human``: the person's
    seat against a bot, the first by default; ``seed``/``iterations``/``seconds``: the bot's)."""

    leave = " (a game at one terminal is kept once it has a move: olixono history lists it)"

    def __init__(
        self,
        kind: str,
        *,
        vs: str | None = None,
        human: str | None = None,
        seed: int | None = None,
        iterations: int | None = None,
        seconds: float | None = None,
        record: LocalRecord | None = None,
    ) -> None:
        self.core = LocalCore(kind, vs=vs, human=human, seed=seed, iterations=iterations, seconds=seconds)
        self.record = record
        """Where the game is kept (``olixono play`` keeps it in the journal folder; ``None``: not kept)."""
        if record is not None:
            record.seat = self.core.human if self.core.bot is not None else None
        self.vs, self.human, self.bot = vs, self.core.human, self.core.bot
        self.game = self.core.board
        self.wake = asyncio.Event()
        self.announced = False

    @property
    def typing_game(self) -> Game:
        return self.core

    @property
    def kind(self) -> GameKind:
        return self.core.kind

    @property
    def commands(self) -> tuple[str, ...]:
        return game_commands(self.core)

    def board(self) -> Board[Any]:
        return self.game

    def moves(self) -> list[tuple[str, str]]:
        return self.core.played()

    def over(self) -> bool:
        return self.core.over

    def ending(self) -> list[str]:
        outcome = self.core.outcome
        if outcome is None:
            return []
        game = self.record.game if self.record is not None else None
        sentence = outcome.sentence(self.game.PLAYERS)
        return [game_over_text(sentence) if game is None else finished_text(sentence, game), "/quit leaves."]

    def afterwards(self) -> list[str]:
        """What stays on the terminal once the screen is gone: the result and where the record is, or that the game
        left unfinished is kept (nothing when it is not kept)."""
        game = self.record.game if self.record is not None else None
        if self.record is not None:
            self.record.close()
        if game is None:
            return []
        outcome = self.core.outcome
        return [kept_text(game) if outcome is None else finished_text(outcome.sentence(self.game.PLAYERS), game)]

    def bot_to_move(self) -> bool:
        return self.core.bot_to_move

    def movable(self) -> bool:
        return self.core.my_turn

    def prompt(self) -> str:
        if self.core.over:
            return "game over> "
        if self.core.bot_to_move:
            return f"{self.vs} thinking> "  # as the toolbar says; commands still work meanwhile
        return "your move> " if self.bot is not None else f"{self.game.turn}> "

    def status(self, spent: Callable[[str], float]) -> list[str]:
        board = self.game
        if self.core.over:
            parts = ["game over"]
        elif self.core.bot_to_move:
            parts = [f"{board.turn} ({self.vs}) thinking"]
        else:
            parts = ["your move" if self.bot is not None else f"{board.turn} to move"]
        for player in board.PLAYERS:
            who = "" if self.bot is None else " (you)" if player == self.human else f" ({self.vs})"
            parts.append(f"{player}{who} {clock_text(spent(player))}")
        return [*parts, f"{self.kind} at this terminal"]

    def help(self) -> str:
        return game_help(self.core)

    def _show(self, step: LocalStep, say: Say) -> None:
        """What a step did, in the log (the game's end once; the moves are the moves pane's); the bot is woken for its
        turn."""
        self.wake.set()
        warning = self.record.keep(self.game) if self.record is not None else None
        if warning is not None:
            say(warning)
        for event in step.events:
            if isinstance(event, Ended):
                if not self.announced:
                    self.announced = True
                    say(" ".join(self.ending()))
            elif not isinstance(event, Played):  # the moves pane shows the moves
                say(describe(self.core, event))

    async def move(self, text: str, say: Say) -> None:
        await self.command(text, "", say)

    async def command(self, name: str, rest: str, say: Say) -> None:
        typed = parse(f"{name} {rest}".strip(), self.core)
        if typed.problem is not None:
            return say(f"error: {typed.problem}")
        if typed.local == "hint":
            return await self._hint(say)
        if typed.local is not None:
            return say(shown(self.core, typed.local))
        if typed.intent is None:
            return None
        try:
            step = self.core.act(typed.intent)
            if step.ask_bot:  # the bot is asked, as a person would be
                answer, position, seat = self.core.answer_thought
                step = self.core.answer(await in_daemon_thread(answer, position, seat))
        except IntentRefused as exc:
            return say(f"error: {exc}")
        self._show(step, say)

    async def _hint(self, say: Say) -> None:
        """The search's best move for the player to move, thought in a thread (the screen stays live)."""
        try:
            search, position = self.core.hint_thought
        except IntentRefused as exc:
            return say(f"error: {exc}")
        say("thinking about a hint...")
        say(hint_text(position, await in_daemon_thread(search, position)))

    async def follow(self, say: Say, changed: Callable[[], None]) -> None:
        """The bot's moves: whenever it is its turn, it thinks on a copy; a move the game no longer wants (the person
        resigned meanwhile) is dropped."""
        while True:
            if self.core.bot_to_move:
                changed()
                choose, position, plies = self.core.thought
                move = await in_daemon_thread(choose, position)
                self._show(self.core.bot_played(move, plies), say)
                changed()
                continue
            self.wake.clear()
            await self.wake.wait()
            changed()
