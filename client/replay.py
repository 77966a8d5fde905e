"""``olixono replay FILE``: step through a transcript on the full screen, once ``olixono verify``'s checks pass.

The board shows the position after the marked move; ← and → (or ``p`` and ``n``) step back and forth, Home and End
go to the start and the end, and a move number typed into the input line jumps there. Every position is rebuilt by
the engine from the verified moves, so what is shown is what the transcript proves. Without a terminal (or with
``--plain``) the moves and the board after each are printed instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from client.local_game import board_moves
from client.board_words import game_over_text, status_text
from client.screen import Say, Table
from olixono.common import Board, GameKind
from olixono.games import new_board
from protocol import GameSession, MessageType

REPLAY_HELP = """\
Step through the game: → or n the next move, ← or p the one before, Home / End the start and the end;
type a move number (0 is the start) and Enter to jump there. Commands start with /:
  /next /prev /first /last   the same as the keys"""


def positions(session: GameSession) -> list[Board[Any]]:
    """The board before the first move of the verified game and after each one."""
    assert session.kind is not None
    board = new_board(session.kind)
    boards = [board.copy()]
    for message in session.chain:
        if message.type is MessageType.MOVE:
            board.push(board.parse_move(message.move))
            boards.append(board.copy())
    return boards


class ReplayTable(Table):
    """A verified transcript, shown one position at a time (``summary``: verify's line about it)."""

    greeting = "→ and ← step through the game; /help lists the keys and commands."

    def __init__(self, session: GameSession, summary: str) -> None:
        self.session, self.summary = session, summary
        self.boards = positions(session)
        self.played = board_moves(self.boards[-1])
        self.cursor = 0  # from the start: → or n steps through it, End jumps to the end

    @property
    def kind(self) -> GameKind:
        kind = self.session.kind
        assert kind is not None  # a verified transcript starts with its offer
        return kind

    @property
    def commands(self) -> tuple[str, ...]:
        return ("next", "prev", "first", "last")

    def board(self) -> Board[Any]:
        return self.boards[self.cursor]

    def moves(self) -> list[tuple[str, str]]:
        return self.played

    def shown(self) -> int:
        return self.cursor

    def over(self) -> bool:
        return True  # nothing is played here, and no clock runs

    def ending(self) -> list[str]:
        result = self.session.result
        if self.cursor < len(self.played):
            return []
        if result is None:
            return ["The transcript ends here; the game was not finished."]
        return [game_over_text(result.sentence())]

    def prompt(self) -> str:
        return "move number> "

    def status(self, spent: Callable[[str], float]) -> list[str]:
        session = self.session
        parts = [f"replay: move {self.cursor} of {len(self.played)}"]
        for player, key in session.seats.items():
            parts.append(f"{player} {key.fingerprint[:9]}")
        parts.append("finished" if session.result is not None else "not finished")
        return parts + ["←/→ step, Home/End"]

    def help(self) -> str:
        return REPLAY_HELP

    def go(self, cursor: int) -> None:
        self.cursor = max(0, min(cursor, len(self.played)))

    async def move(self, text: str, say: Say) -> None:
        if text.isdigit():
            if int(text) > len(self.played):
                return say(f"error: the game has {len(self.played)} moves: type 0 to {len(self.played)}")
            return self.go(int(text))
        say(f"error: not a move number: {text[:40]!r} (0 to {len(self.played)}; /help lists the keys)")

    async def command(self, name: str, rest: str, say: Say) -> None:
        steps = {"next": self.cursor + 1, "prev": self.cursor - 1, "first": 0, "last": len(self.played)}
        self.go(steps[name])

    def bindings(self, empty: Condition, changed: Callable[[], None]) -> KeyBindings:
        keys = KeyBindings()

        def stepper(target: Callable[[], int]) -> Callable[[KeyPressEvent], None]:
            def step(event: KeyPressEvent) -> None:
                self.go(target())
                changed()

            return step

        for names, target in ((("right", "n"), lambda: self.cursor + 1), (("left", "p"), lambda: self.cursor - 1),
                              (("home",), lambda: 0), (("end",), lambda: len(self.played))):
            for name in names:
                keys.add(name, filter=empty)(stepper(target))

        @keys.add("q", filter=empty)
        def leave(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        return keys


def replay_lines(session: GameSession, summary: str) -> list[str]:
    """The replay without a screen: verify's summary, then each move and the board after it."""
    boards = positions(session)
    moves = board_moves(boards[-1])
    lines = [summary, status_text(boards[0])]
    for number, ((player, move), board) in enumerate(zip(moves, boards[1:]), 1):
        lines += [f"move {number} {player} {move}", status_text(board)]
    result = session.result
    lines.append(game_over_text(result.sentence()) if result is not None else "The game was not finished.")
    return lines
