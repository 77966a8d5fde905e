"""The full screen's network table (:class:`NetworkTable`): a network game on the core's verified session, typed
through the runner as in the line console, and :func:`game_screen`, the front end that shows it
(``client.frontends.screen`` draws every table). Once a player's game is over, :data:`REMATCH_KEY` (the input line
empty) or ``/rematch`` asks for a rematch or accepts the other's (the toolbar says which); once both agree the screen
closes (:meth:`NetworkTable.hands_over`) and the command shows the rematch on a screen of its own."""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output

from client.cores.network_game import NO_UNDO, Connection
from client.frontends.screen import Say, Table, Urgent, game_commands, game_help, run_screen
from client.shell.runner import GameRunner
from client.words.board import export_command, finished_text, game_over_text, resume_text, watch_again_text
from client.words.commands import (
    END_WORD,
    NO_HINT,
    WATCHERS_REFUSAL,
    Game,
    handle_typed,
    help_row,
    leaving_sentence,
    players_only,
)
from client.words.network import (
    claim_brief,
    claim_due_text,
    claim_text,
    clock_shown,
    describe,
    hurried,
    leaving_warning,
    move_time_shown,
    my_turn_text,
    out_of_time_now,
    presence_word,
    rematch_brief,
    rematch_hint,
    shown_now,
)
from olixono.common import Board, GameKind
from protocol import GameOver, MoveApplied

REMATCH_KEY = "r"
"""The key that asks for a rematch (or accepts the other player's) once the game is over, the input line empty."""


class NetworkTable(Table):
    """A network game: the core's verified session on the board, typing through the runner (as the line console)."""

    def __init__(self, runner: GameRunner, invitation: str | None = None) -> None:
        self.runner, self.core = runner, runner.core
        self.invitation = invitation
        """What the opponent types to join (a host's game): shown whole where the board will be, /copy copies it."""
        self.connected = runner.link.connected
        game = self.core.game_id
        if self.core.watching:
            self.leave = f"; {watch_again_text(game, self.core.reach)}"
            self.greeting = "Watching: every line is checked as the players check it. /help lists the commands."
            why = "you are watching this game: only its players can"
            self.refused = {name: f"{why} {name}" for name in players_only()}
            self.refused["watchers"] = WATCHERS_REFUSAL
        else:
            self.leave = f"; {resume_text(game)}"
            self.refused = {"undo": NO_UNDO}  # /undo as undo typed: the same sentence
        self.refused["hint"] = NO_HINT

    @property
    def typing_game(self) -> Game:
        return self.core

    @property
    def kind(self) -> GameKind:
        return self.core.kind

    @property
    def commands(self) -> tuple[str, ...]:
        copy = ("copy",) if self.invitation is not None and not self.core.watching else ()
        return (*game_commands(self.core), *copy)

    def board(self) -> Board[Any] | None:
        return self.core.board if self.core.started else None

    def waiting(self) -> list[str]:
        core = self.core
        if self.invitation is None or core.guest is not None or core.over:
            return super().waiting()
        return [
            "Waiting for your opponent.",
            "They type the command under the",
            "board (/copy copies it).",
            "",
            f"game id: {core.game_id}",
        ]

    def paste(self) -> str | None:
        """The join command until someone joins (a host's game), the export command once the game is over."""
        core = self.core
        if core.over:
            return export_command(core.game_id, core.reach)
        if self.invitation is None or core.guest is not None:
            return None
        return self.invitation

    def moves(self) -> list[tuple[str, str]]:
        return self.core.played()

    def over(self) -> bool:
        return self.core.over

    def hands_over(self) -> bool:
        return self.core.next_game is not None

    def ending(self) -> list[str]:
        result = self.core.result
        if result is None:
            return []
        return [game_over_text(result.sentence()), "Save its record: the command below."]

    def alert(self) -> list[str]:
        claim = claim_text(self.core) or claim_due_text(self.core)  # open, or one may be made
        if claim is not None:
            return [f"CLAIM: {claim}"]
        out = my_turn_text(self.core) if out_of_time_now(self.core) else None  # our clock ran out, unclaimed yet
        return [] if out is None else [out]

    def movable(self) -> bool:
        return self.core.my_turn or self.core.answering

    def prompt(self) -> str:
        core = self.core
        if not core.playing:
            return "watching> "
        if core.answering:  # the timeout that ended the game on our turn: a move in time answers it
            return "your move> "
        if core.over:
            return "game over> "
        if out_of_time_now(core):
            return "time ran out> "
        return "your move> " if core.my_turn else "> "

    def status(self, spent: Callable[[str], float]) -> list[str]:
        """``your move | pink 1a2b-3c4d (you) 0:12 | black 5e6f-7a8b here | relay ok``: under 80 columns; when the
        relay is lost that comes first, with whose turn (a narrow terminal drops the players' parts first). A timed game
        shows both official clocks (``4:07``, ``0:09.4!``, with unexplained seconds beside: ``(+6.2s)``); an untimed one
        the side to move's time on this turn, as this client saw it begin (the same for both players and every watcher,
        where a running total would differ). A claim on time, in a few words, takes the place of whose turn it is
        (``CLAIM: move within 24 s``, ``CLAIM: black has 24 s to answer``; its sentence is under the board), so that the
        clocks stay in view."""
        core = self.core
        board = self.board()
        if core.over:
            parts = ["game over", *filter(None, [rematch_brief(core, REMATCH_KEY)])]
        elif board is not None:
            mine = "your time ran out" if out_of_time_now(core) else "your move"
            parts = [mine if core.my_turn else f"{board.turn} to move"]
        else:
            parts = ["waiting for the seats"]
        opponent = core.opponent if core.playing else None
        low = hurried(core)
        for player in board.PLAYERS if board is not None else ():
            key = core.seat_of(player)
            who = key.fingerprint[:9] if key is not None else "?"
            mine = " (you)" if key is not None and key == core.me else ""
            here = f" {presence_word(core, key, self.connected)}" if key is not None and key == opponent else ""
            clock = clock_shown(core, player)  # a timed game's official clock; untimed, the side to move's turn so far
            if clock is not None:
                shown = f" {clock}"
            else:  # as every client sees it, from its own seeing the turn begin: the same for players and watchers
                shown = f" {move_time_shown(core)}" if player == core.turn else ""
            part = f"{player} {who}{mine}{shown}{here}"
            parts.append(Urgent(part) if player == low else part)
        claim = claim_brief(core)
        if claim is not None:  # a claim on time, in a few words that say whose move it is (in full under the board)
            parts[0] = f"CLAIM: {claim}"
        if core.proposal is not None and not core.over:  # the most wanted first: a narrow terminal cuts the end
            parts[0] += f", {END_WORD[self.kind]} offered"
        if not self.connected:
            return [f"RELAY LOST: reconnecting; {parts[0]}", *parts[1:]]  # first, with whose turn: never dropped
        return [*parts, "relay ok"]

    def help(self) -> str:
        copy = (
            [] if self.invitation is None else [help_row("/copy", "copy the command your opponent types", slash=True)]
        )
        key = (
            []
            if not self.core.playing
            else [help_row(REMATCH_KEY, "once the game is over, the input line empty: /rematch", slash=True)]
        )
        return "\n".join([game_help(self.core), *copy, *key])

    def leaving(self) -> str | None:
        return leaving_warning(self.core, "/quit (or Ctrl-D)")

    async def move(self, text: str, say: Say) -> None:
        await handle_typed(self.runner, text, say, partial(shown_now, self.core))

    async def command(self, name: str, rest: str, say: Say) -> None:
        if name == "copy" and self.invitation is not None:
            copy_to_clipboard(self.invitation)
            return say("copied the command to the clipboard (where the terminal lets a program do it: OSC 52)")
        await handle_typed(self.runner, f"{name} {rest}".strip(), say, partial(shown_now, self.core))

    async def follow(self, say: Say, changed: Callable[[], None]) -> None:
        core = self.core
        hinted: bool | None = None  # how to ask for a rematch: said (True), to be said once the game is over (False)
        while True:
            event = await self.runner.events.get()
            if isinstance(event, Connection):
                self.connected = event.connected
            text = describe(core, event)
            if text is not None and not isinstance(event, MoveApplied):  # moves have their own pane
                say(text)
            if isinstance(event, GameOver):
                say(
                    f"{game_over_text(event.result.sentence())} Save its record: the command under the board; "
                    "/quit leaves."
                )
                hinted = hinted or False  # once the ending is said: how to ask for a rematch, once
            hint = None if hinted is not False else rematch_hint(core, f"/rematch (or {REMATCH_KEY})", "/quit")
            if hint is not None:
                say(hint)
                hinted = True
            changed()

    def bindings(self, empty: Condition, changed: Callable[[], None], enter: Say) -> KeyBindings:
        keys = KeyBindings()

        @keys.add(REMATCH_KEY, filter=empty & Condition(lambda: self.core.rematch_open))
        def rematch(event: KeyPressEvent) -> None:
            """The game over, the input line empty: ask for a rematch, or accept the other player's."""
            enter("/rematch")

        return keys


def copy_to_clipboard(text: str) -> None:
    """Put ``text`` on the terminal's clipboard with OSC 52 (xterm, tmux with set-clipboard, kitty, iTerm2, ...)."""
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    output = get_app().output
    output.write_raw(f"\x1b]52;c;{encoded}\x07")
    output.flush()


def game_screen(
    *,
    input: Input | None = None,
    output: Output | None = None,
    clock: Callable[[], float] = time.monotonic,
    log_file: Path | None = None,
    notes: list[str] | None = None,
    invitation: str | None = None,
    bell: bool = False,
) -> Callable[[GameRunner], Any]:
    """The full-screen front end of a network game (see :func:`run_screen` for the arguments; ``invitation``: the
    command a host's opponent types, shown whole until someone joins)."""

    async def run(runner: GameRunner) -> int:
        status = await run_screen(
            NetworkTable(runner, invitation),
            input=input,
            output=output,
            clock=clock,
            log_file=log_file,
            notes=notes or (),
            bell=bell,
        )
        core = runner.core  # the screen is gone: what leaving means, or the result, stays on the terminal
        if not core.over:
            print(leaving_sentence(core))
        elif core.result is not None:
            print(finished_text(core.result.sentence(), core.game_id, core.reach))
        return status

    return run
