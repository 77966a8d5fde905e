"""``olixono play`` on the full screen: the same board, moves, log and toolbar as a network game.

One board at this terminal, two people taking turns or one against a bot that thinks in a thread (the screen stays
live meanwhile: /resign, /board and the clock still answer). The engine rules on every move, as in the line loop of
``client.local``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from client.board_words import EXAMPLES, game_over_text, status_text
from client.local_game import board_moves, set_up
from client.screen import Say, Table, clock_text
from client.thinking import in_daemon_thread
from olixono.common import Board, IllegalMoveError, InvalidMoveError
from olixono.olix import OlixBoard

LOCAL_HELP = """\
Type a move ({example}); Tab completes the legal ones. Commands start with /:
  /legal /board         the legal moves, the board in the log
  /undo                 take back the last move (against a bot: your last move and its reply)
  /resign               give up the game{whom} (asks you to confirm){end}"""
OLIX_HELP = """
  /end                  end the game now and count the markers ({whom})
  /formations           each player's best formation of each type, its value and squares"""


class LocalTable(Table):
    """A game of ``kind`` at this terminal (``vs``: a bot level, or ``None`` for two people; ``human``: the person's
    seat against a bot, the first by default; ``seed``/``iterations``/``seconds``: the bot's)."""

    leave = " (a game at one terminal is not kept)"

    def __init__(self, kind: str, *, vs: str | None = None, human: str | None = None, seed: int | None = None,
                 iterations: int | None = None, seconds: float | None = None) -> None:
        self._kind, self.vs = kind, vs
        self.game, self.human, self.bot = set_up(kind, vs=vs, human=human, seed=seed, iterations=iterations,
                                                 seconds=seconds)
        self.wake = asyncio.Event()
        self.thinking = False
        self.announced = False

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def commands(self) -> tuple[str, ...]:
        return ("legal", "board", "undo", "resign") + (("end", "formations") if self._kind == "olix" else ())

    def board(self) -> Board[Any]:
        return self.game

    def moves(self) -> list[tuple[str, str]]:
        return board_moves(self.game)

    def over(self) -> bool:
        return self.game.is_game_over()

    def ending(self) -> list[str]:
        outcome = self.game.outcome()
        return [] if outcome is None else [game_over_text(outcome.sentence(self.game.PLAYERS)), "/quit leaves."]

    def bot_to_move(self) -> bool:
        return self.bot is not None and self.game.turn != self.human and not self.game.is_game_over()

    def movable(self) -> bool:
        return not self.game.is_game_over() and not self.bot_to_move()

    def prompt(self) -> str:
        if self.game.is_game_over():
            return "game over> "
        if self.bot_to_move():
            return f"{self.vs} thinking> "  # as the toolbar says; commands still work meanwhile
        return "your move> " if self.bot is not None else f"{self.game.turn}> "

    def status(self, spent: Callable[[str], float]) -> list[str]:
        board = self.game
        if board.is_game_over():
            parts = ["game over"]
        elif self.bot_to_move():
            parts = [f"{board.turn} ({self.vs}) thinking"]
        else:
            parts = ["your move" if self.bot is not None else f"{board.turn} to move"]
        for player in board.PLAYERS:
            who = "" if self.bot is None else " (you)" if player == self.human else f" ({self.vs})"
            parts.append(f"{player}{who} {clock_text(spent(player))}")
        return parts + [f"{self._kind} at this terminal"]

    def help(self) -> str:
        whom = ": the player to move resigns" if self.bot is None else ""
        end = OLIX_HELP.format(whom="the bot is asked" if self.bot else "both of you agree") if self._kind == "olix" else ""
        return LOCAL_HELP.format(example=EXAMPLES[self._kind], whom=whom, end=end)

    def _changed(self, say: Say) -> None:
        """After a move, an undo or an ending: wake the bot, and say once that the game is over."""
        self.wake.set()
        if self.game.is_game_over() and not self.announced:
            self.announced = True
            say(" ".join(self.ending()))

    async def move(self, text: str, say: Say) -> None:
        board = self.game
        if board.is_game_over():
            return say("error: the game is over: /quit leaves")
        if self.bot_to_move():
            return say(f"error: it is not your turn: {self.vs} is thinking")
        try:
            board.play(text)
        except InvalidMoveError:
            return say(f"error: not a move or a command: {text[:40]!r} ({EXAMPLES[self._kind]}; "
                       "/help lists the commands)")
        except IllegalMoveError as exc:
            return say(f"error: illegal: {exc.reason}")
        self._changed(say)

    async def command(self, name: str, rest: str, say: Say) -> None:
        board = self.game
        if name == "legal":
            say(" ".join(sorted(m.text() for m in board.legal_moves())) or "no moves: the game is over")
        elif name == "board":
            say(status_text(board))
        elif name == "formations" and isinstance(board, OlixBoard):
            say(formations_text(board))
        elif board.is_game_over():
            say("error: the game is over: /quit leaves")
        elif name == "undo":
            self._undo(say)
        elif name == "resign":
            board.resign(self.human if self.bot is not None else None)
            self._changed(say)
        elif name == "end" and isinstance(board, OlixBoard):
            await self._end(board, say)

    async def _end(self, board: OlixBoard, say: Say) -> None:
        if self.bot is not None:  # the bot is asked, as a person would be
            if self.bot_to_move():
                return say(f"error: wait for {self.vs}'s move, then propose")
            them = board.PLAYERS[1 - board.PLAYERS.index(self.human)]
            if not await in_daemon_thread(self.bot.answer_end, board.copy(), them):
                return say(f"{self.vs} declines to end the game: play on.")
            say(f"{self.vs} agrees to end the game.")
        board.end()
        self._changed(say)

    def _undo(self, say: Say) -> None:
        if self.bot_to_move():
            return say(f"error: wait for {self.vs}'s move, then undo")
        plies = 2 if self.bot is not None else 1
        if len(self.game.move_stack) < plies:
            return say("error: nothing to undo")
        for _ in range(plies):
            self.game.pop()
        say(f"took back {plies} move{'s' if plies > 1 else ''}")
        self._changed(say)

    async def follow(self, say: Say, changed: Callable[[], None]) -> None:
        """The bot's moves: whenever it is its turn, it thinks on a copy; a move the game no longer wants (the person
        resigned meanwhile) is dropped."""
        board = self.game
        while True:
            if self.bot is not None and self.bot_to_move():
                plies = len(board.move_stack)
                changed()
                move = await in_daemon_thread(self.bot.choose, board.copy())
                if self.bot_to_move() and len(board.move_stack) == plies:
                    board.push(move)
                    self._changed(say)
                changed()
                continue
            self.wake.clear()
            await self.wake.wait()
            changed()


def formations_text(board: OlixBoard) -> str:
    """Each player's best formation of each type: its value and its squares (``O=0`` when there is none)."""
    lines = []
    for player in board.PLAYERS:
        parts = [f"{kind}={formation.value}" + (f" ({' '.join(formation.square_names())})" if formation.value else "")
                 for kind, formation in board.formations(player).items()]
        lines.append(f"{player}: {', '.join(parts)}")
    return "\n".join(lines)
