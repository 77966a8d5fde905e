"""``olixono replay FILE``: step through a transcript on the full screen, once ``olixono verify``'s checks pass.

The board shows the position after the marked move; ← and → (or ``p`` and ``n``) step back and forth, Home and End
go to the start and the end, and a move number typed into the input line jumps there. Every position is rebuilt by
the engine from the verified moves, so what is shown is what the transcript proves. Without a terminal (or with
``--plain``) the moves and the board after each are printed instead.

With ``--analyze`` (or the key ``a``, or ``/analyze``) the analysis of ``olixono analyze`` is computed in the
background, a position at a time in a thread of its own: each move's value after it and its mark beside it in the
moves pane, the shown move's analysis in a sentence under the board, the progress in the toolbar.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from client.cores.local_game import board_moves
from client.frontends.screen import Say, Table
from client.shell.thinking import in_daemon_thread
from client.words.board import budget_text, game_over_text, ply_note, ply_sentence, status_text, summary_lines
from client.words.record import played_moves
from olixono.analysis import (
    DEFAULT_BUDGET,
    Budget,
    GameAnalysis,
    Position,
    assemble,
    boards_of,
    evaluate,
)
from olixono.common import Board, GameKind
from protocol import GameSession

REPLAY_HELP = """\
Step through the game: → or n the next move, ← or p the one before, Home / End the start and the end;
type a move number (0 is the start) and Enter to jump there; a analyses every move. Commands start with /:
  /next /prev /first /last   the same as the keys
  /analyze                   weigh every move with the search (as olixono analyze), in the background"""


def positions(session: GameSession) -> list[Board[Any]]:
    """The board before the first move of the verified game and after each one."""
    assert session.kind is not None
    return boards_of(session.kind, played_moves(session))


class ReplayTable(Table):
    """A verified transcript, shown one position at a time (``summary``: verify's line about it)."""

    greeting = "→ and ← step through the game; /help lists the keys and commands."

    def __init__(
        self,
        session: GameSession,
        summary: str,
        *,
        analyze: bool = False,
        budget: Budget = DEFAULT_BUDGET,
        seed: int = 0,
    ) -> None:
        self.session, self.summary = session, summary
        self.boards = positions(session)
        self.played = board_moves(self.boards[-1])
        self.cursor = 0  # from the start: → or n steps through it, End jumps to the end
        self.budget, self.seed = budget, seed
        self.asked = asyncio.Event()
        """Set when the analysis is asked for (``--analyze``, the key a, /analyze)."""
        if analyze:
            self.asked.set()
        self.searched: list[Position] = []
        self.analysis: GameAnalysis | None = None
        """What is weighed so far (the moves whose position after is searched)."""

    @property
    def kind(self) -> GameKind:
        kind = self.session.kind
        assert kind is not None  # a verified transcript starts with its offer
        return kind

    @property
    def commands(self) -> tuple[str, ...]:
        return ("next", "prev", "first", "last", "analyze")

    def board(self) -> Board[Any]:
        return self.boards[self.cursor]

    def moves(self) -> list[tuple[str, str]]:
        return self.played

    def shown(self) -> int:
        return self.cursor

    def over(self) -> bool:
        return True  # nothing is played here, and no clock runs

    def move_note(self, number: int) -> str:
        plies = self.analysis.plies if self.analysis is not None else ()
        return ply_note(plies[number - 1]) if number <= len(plies) else ""

    def ending(self) -> list[str]:
        plies = self.analysis.plies if self.analysis is not None else ()
        weighed = [ply_sentence(plies[self.cursor - 1])] if 0 < self.cursor <= len(plies) else []
        result = self.session.result
        if self.cursor < len(self.played):
            return weighed
        if result is None:  # the ending first: on the smallest screen the analysis's sentence is what is cut
            return ["The transcript ends here; the game was not finished.", *weighed]
        return [game_over_text(result.sentence()), *weighed]

    def prompt(self) -> str:
        return "move number> "

    def status(self, spent: Callable[[str], float]) -> list[str]:
        session = self.session
        parts = [f"replay: move {self.cursor} of {len(self.played)}"]
        if self.asked.is_set():  # the analysis's progress, where a narrow toolbar still shows it
            done = len(self.searched)
            parts.append(f"analysing {done}/{len(self.boards)}" if done < len(self.boards) else "analysed")
        for player, key in session.seats.items():
            parts.append(f"{player} {key.fingerprint[:9]}")
        parts.append("finished" if session.result is not None else "not finished")
        return [*parts, "←/→ step, Home/End" + ("" if self.asked.is_set() else ", a analyses")]

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
        if name == "analyze":
            return self.analyse()
        steps = {"next": self.cursor + 1, "prev": self.cursor - 1, "first": 0, "last": len(self.played)}
        self.go(steps[name])

    def analyse(self) -> None:
        """Ask for the analysis (once: asked again, it goes on)."""
        self.asked.set()

    async def follow(self, say: Say, changed: Callable[[], None]) -> None:
        """Once asked for, the analysis: each position searched in a thread (the screen stays live), each move
        weighed as soon as the position after it is searched."""
        await self.asked.wait()
        say(f"Analysing every position ({budget_text(self.budget)}); the moves pane shows each move's value after it.")
        changed()
        for index, board in enumerate(self.boards):
            position = await in_daemon_thread(evaluate, board, self.budget, self.seed, index)
            self.searched.append(position)
            self.analysis = assemble(self.boards, self.searched, self.budget, self.seed)
            changed()
        assert self.analysis is not None
        say("\n".join(["Analysis done:", *summary_lines(self.analysis)]))
        changed()
        await asyncio.Event().wait()  # nothing more comes

    def bindings(self, empty: Condition, changed: Callable[[], None], enter: Say) -> KeyBindings:
        keys = KeyBindings()

        def stepper(target: Callable[[], int]) -> Callable[[KeyPressEvent], None]:
            def step(event: KeyPressEvent) -> None:
                self.go(target())
                changed()

            return step

        for names, target in (
            (("right", "n"), lambda: self.cursor + 1),
            (("left", "p"), lambda: self.cursor - 1),
            (("home",), lambda: 0),
            (("end",), lambda: len(self.played)),
        ):
            for name in names:
                keys.add(name, filter=empty)(stepper(target))

        @keys.add("q", filter=empty)
        def leave(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @keys.add("a", filter=empty)
        def analyse(event: KeyPressEvent) -> None:
            self.analyse()
            changed()

        return keys


def replay_lines(session: GameSession, summary: str, analysis: GameAnalysis | None = None) -> list[str]:
    """The replay without a screen: verify's summary, then each move (with its analysis, if given) and the board
    after it."""
    boards = positions(session)
    moves = board_moves(boards[-1])
    lines = [summary, status_text(boards[0])]
    for number, ((player, move), board) in enumerate(zip(moves, boards[1:], strict=True), 1):
        lines.append(f"move {number} {player} {move}")
        if analysis is not None:
            lines.append(ply_sentence(analysis.plies[number - 1]))
        lines.append(status_text(board))
    result = session.result
    lines.append(game_over_text(result.sentence()) if result is not None else "The game was not finished.")
    if analysis is not None:
        lines += summary_lines(analysis)
    return lines
