"""The line console: one prompt-toolkit ``PromptSession`` for playing or watching a network game.

What arrives while the person types is printed above the input line
(``patch_stdout``), never into it: the board after every move (the rendering
of local play), every event in words. The prompt says whose turn it is and
who the opponent is; the bottom toolbar shows the relay connection and whether
the opponent is here. Moves complete from the legal ones; history is kept.
Text that is not a move or a command, or a move out of turn, gets one line and
is never sent. ``resign``, and Olix's ``end`` while behind on markers, ask to confirm first, as the full screen
does (:func:`client.words.commands.question`). ``quit`` (or Ctrl-D, Ctrl-C) leaves; the game stays resumable. Once a
player's game is over the console stays, saying how to ask for a rematch (``rematch`` or ``yes``, which also accepts
the other's), until the person leaves or both agree: then it returns, and the command plays the rematch next. While a
claim on time is open against the player, or on its turn in a live timed game, ``quit`` and Ctrl-D ask first (its clock
runs while it is away); Ctrl-C leaves at once. A timed game's toolbar shows the clock of a side under 10 s on its turn
in the warning style.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import StdoutProxy
from prompt_toolkit.styles import Style

from client.cores.network_game import Connection, GameCore
from client.shell.runner import GameRunner
from client.words.bell import Bell
from client.words.board import board_text, finished_text
from client.words.commands import Write, completer, completions, handle_typed, leaving_sentence, question, same_line
from client.words.network import (
    claim_brief,
    clock_shown,
    control_text,
    describe,
    hurried,
    leaving_warning,
    out_of_time_now,
    presence_word,
    rematch_brief,
    rematch_hint,
    shown_now,
    ticking,
)
from protocol import GameOver, GameStarted, MoveApplied, MovesTakenBack, Phase, Superseded

TICK = 0.5
"""Seconds between two redraws of a timed game's toolbar."""
STYLE = Style.from_dict({"warning": "fg:ansired bold"})
"""The line console's own styles: a clock under 10 s on its turn (in the reversed toolbar, a red block; bold alone,
with its ``!``, under NO_COLOR)."""


def prompt_text(core: GameCore) -> str:
    """Whose turn it is, from this client's point of view."""
    turn, opponent = core.turn, core.opponent
    versus = f" vs {opponent.fingerprint}" if opponent is not None else ""
    if core.answering:  # the timeout that ended the game on our turn: a move in time answers it
        return f"{core.my_player} (you) to move, answering the timeout{versus}> "
    if core.over:
        brief = rematch_brief(core, "yes") if core.rematch_asked is not None else None
        return f"game over, {brief}> " if brief is not None else "game over> "
    if core.host is None:
        return "looking for the game on the relay> "
    if not core.playing and core.watching:
        return f"watching{'' if turn is None else f' {turn} to move'}> "
    if turn is not None and out_of_time_now(core):
        return f"{turn} (you): your time ran out{versus}> "
    if turn is not None:
        return f"{turn} (you) to move{versus}> " if core.my_turn else f"{turn} to move{versus} (waiting)> "
    if core.phase is Phase.OFFERED:
        return "waiting for an opponent to join> " if core.me == core.host else "asking to join> "
    return "drawing the seats> "


def toolbar_text(core: GameCore, link_state: dict[str, Any], width: int | None = None) -> str:
    """The clocks, a claim on time in a few words (its sentence was printed when it came), the relay connection,
    whether the opponent is here, and the game; in ``width`` columns, the least wanted go first (the game's id, our
    own fingerprint, the opponent's), never the clocks, a claim or the relay's state."""
    relay = "relay: connected" if link_state.get("connected") else "relay: RECONNECTING"
    parts = [relay]
    claim = claim_brief(core)
    if claim is not None:  # the most urgent first, after the clocks it is about
        parts.insert(0, f"CLAIM: {claim}")
    clocks = clocks_text(core)
    if clocks:
        parts.insert(0, clocks)
    opponent = core.opponent
    present = presence_word(core, opponent, bool(link_state.get("connected"))) if opponent is not None else ""
    rest = [f"opponent {opponent.fingerprint}: {present}"] if opponent is not None else []
    rest += [f"you {core.me.fingerprint}"] if core.me is not None else []
    rest.append(f"game {core.game_id}")
    fits = [rest, rest[:-1], rest[:1]] + ([[f"opponent: {present}"]] if opponent is not None else []) + [[]]
    for extra in fits:  # the most wanted first; what does not fit goes, the least wanted first
        text = "  |  ".join(parts + extra)
        if width is None or len(text) <= width:
            return text
    return text


def clocks_text(core: GameCore) -> str:
    """A timed game's two clocks, the running one marked: ``5+3: pink 4:07* black 3:59`` (or "")."""
    board = core.board
    if board is None or core.time_control is None:
        return ""
    pieces = [piece for player in board.PLAYERS if (piece := clock_piece(core, player)) is not None]
    return f"{control_text(core.time_control)}: " + " ".join(pieces)


def clock_piece(core: GameCore, player: str) -> str | None:
    """One player's clock in the toolbar, marked when it runs: ``pink 4:07*``, ``black 0:07.1!*`` (``None``:
    untimed)."""
    shown = clock_shown(core, player)
    if shown is None:
        return None
    return f"{player} {shown}{'*' if player == ticking(core) else ''}"


def toolbar_fragments(core: GameCore, link_state: dict[str, Any], width: int | None = None) -> StyleAndTextTuples:
    """:func:`toolbar_text`, the clock of a side under 10 s on its turn in the warning style."""
    text = toolbar_text(core, link_state, width)
    player = hurried(core)
    piece = clock_piece(core, player) if player is not None else None
    if piece is None or piece not in text:
        return [("", text)]
    before, _, after = text.partition(piece)
    return [("", before), ("class:warning", piece), ("", after)]


@contextlib.contextmanager
def patched_stdout() -> Iterator[None]:
    """prompt-toolkit's ``patch_stdout(raw=True)``, flushing every 10 ms rather than every 200 ms.

    The proxy writes what was printed above the prompt and then waits before the next write, to bundle
    small writes into one repaint; 200 ms is a fifth of a second added to every burst of lines, such as the
    whole game printed on joining. 10 ms still bundles a burst.
    """
    with StdoutProxy(sleep_between_writes=0.01, raw=True) as proxy:
        original = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = proxy
        try:
            yield
        finally:
            sys.stdout, sys.stderr = original


def line_console(
    *, input: Input | None = None, output: Output | None = None, write: Write | None = None, bell: bool = False
) -> Callable[[GameRunner], Any]:
    """The line console front end (``input``/``output``: prompt-toolkit's, for tests; ``write``: where lines go;
    ``bell``: ring the terminal's bell when the turn becomes the player's, or a claim on time is made against them:
    :mod:`client.words.bell`)."""

    async def run(runner: GameRunner) -> int:
        core = runner.core
        link_state: dict[str, Any] = {"connected": runner.link.connected}
        session: PromptSession[str] = PromptSession(
            history=InMemoryHistory(),
            completer=completer(lambda word: completions(core, word)),
            complete_while_typing=False,
            bottom_toolbar=lambda: toolbar_fragments(core, link_state, session.output.get_size().columns - 1),
            input=input,
            output=output,
            style=STYLE,
            refresh_interval=TICK if core.time_control is not None else 0,  # a timed game's clocks tick
        )
        out = write or print
        ringer = Bell(core, session.output.bell if bell else None)
        hinted: bool | None = None  # how to ask for a rematch: said (True), to be said once the game is over (False)

        def show(event: Any) -> None:
            nonlocal hinted
            if isinstance(event, Connection):
                link_state["connected"] = event.connected
            text = describe(core, event)
            if text is not None:
                out(text)
            board = core.board
            if isinstance(event, (GameStarted, MoveApplied, MovesTakenBack, Superseded)) and board is not None:
                out(board_text(board))
            if isinstance(event, GameOver):
                out(
                    finished_text(event.result.sentence(), core.game_id, core.reach)
                )  # the command on a line of its own
                hinted = hinted or False  # once the ending is said: how to ask for a rematch, once
            hint = None if hinted is not False else rematch_hint(core)
            if hint is not None:
                out(hint)
                hinted = True

        def staying() -> bool:
            """Whether the console goes on prompting: the game goes on, or (a player's, over) a rematch may still be
            asked or answered; it returns once the game is over for a watcher, or once a rematch is agreed."""
            return not core.over or core.unsettled or core.rematch_open

        async def printer() -> None:
            while True:
                show(await runner.events.get())
                ringer()
                app = session.app
                if not staying() and app.is_running:
                    app.exit(result="")  # stop prompting: the game is over, or its rematch agreed
                elif app.is_running:
                    app.invalidate()  # the prompt and the toolbar follow the game

        def loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            # One warning line instead of prompt-toolkit's "Press ENTER to continue", which would
            # hold the game hostage to a keypress for an error in some background task.
            error = context.get("exception")
            out(f"warning: {context.get('message', 'error')}" + (f": {error!r}" if error is not None else ""))

        loop = asyncio.get_running_loop()
        previous_handler = loop.get_exception_handler()
        loop.set_exception_handler(loop_error)
        with patched_stdout() if write is None else contextlib.nullcontext():
            task = asyncio.create_task(printer())
            try:
                out("Type help for the commands.")
                asked = False  # leaving would cost something, and the person was asked to confirm
                confirming: str | None = None  # the line that asked to confirm it (resign, …), when it was the last
                while staying():
                    now = False  # Ctrl-C: leave at once
                    try:
                        text = await session.prompt_async(lambda: prompt_text(core), set_exception_handler=False)
                    except EOFError:
                        text = "quit"
                    except KeyboardInterrupt:
                        text, now = "quit", True
                    if not staying():
                        break
                    asking = None if confirming is not None and same_line(confirming, text) else question(text, core)
                    confirming = None  # a confirmation is the very next line typed
                    if asking is not None:
                        out(asking)
                        confirming, asked = text, False
                        continue
                    if await handle_typed(runner, text, out, partial(shown_now, core)):
                        asked = False
                        continue
                    warning = None if asked or now else leaving_warning(core)
                    if warning is None:
                        if not core.over:  # (a finished game's player, leaving rather than asking for a rematch)
                            out(leaving_sentence(core))
                        return 0
                    out(warning)
                    asked = True
                await asyncio.sleep(0)
                while not runner.events.empty():
                    show(runner.events.get_nowait())
                return 0
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                loop.set_exception_handler(previous_handler)

    return run
