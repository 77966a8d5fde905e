"""The full-screen console: one prompt-toolkit ``Application`` for playing or watching a network game.

Everything stays where it is: the board (left), the numbered moves (right, the last one marked), a log of chat,
warnings and what happened (right, below), the input line, and a bottom toolbar with whose turn it is, both
players' fingerprints (yours marked), the opponent's presence, the relay connection and each side's thinking time.
Tasks only change state and call ``invalidate()``; nothing is printed while it runs, and an error in a task goes to
the log, never to prompt-toolkit's "Press ENTER to continue".

Moves are typed as in local play (Tab completes the legal ones); commands start with ``/`` (``/help``), so text
that is neither is refused, never sent as chat by accident. The same core and runner as the line console: a front
end only (``game_screen()`` returns one).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.containers import DynamicContainer
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from client.commands import EXAMPLES
from client.console import MoveCompleter
from client.core import GameCore
from client.journal import state_dir
from client.plain import handle_typed
from client.runner import Connection, GameRunner
from client.words import describe
from protocol import GameOver, GameStarted, MoveApplied

BOARD_WIDTH, MOVES_ROWS = 40, 10
FIXED_ROWS = MOVES_ROWS + 4
"""Rows that are not the log's: the moves pane, two dividers, the input line, the toolbar."""
MIN_COLUMNS, MIN_ROWS = 80, 24
"""The smallest terminal the screen is drawn in; below it, a message says so (and the game goes on)."""
LOG_LINES = 500
SCREEN_COMMANDS = ("help", "legal", "board", "resign", "draw", "end", "agree", "decline", "withdraw", "abort",
                   "say", "quit", "flip", "moves")
STYLE = Style.from_dict({
    "pink": "fg:ansimagenta bold", "black": "fg:ansiblue bold", "first": "fg:ansired bold",
    "second": "fg:ansigreen bold", "totem": "bold", "last": "reverse", "toolbar": "reverse",
    "error": "fg:ansired", "title": "bold",
})


SCREEN_HELP = """\
Type a move ({example}); Tab completes the legal ones. Commands start with /:
  /legal /board /moves  the legal moves, the board in the log, every move so far
  /flip                 turn the board round
  /resign               give up: your opponent wins (asks you to confirm)
  {end}
  /agree /decline       answer your opponent's proposal; /withdraw takes back yours
  /abort                end the game without a result (only before your first move)
  /say TEXT             chat with your opponent
  /quit (or Ctrl-D)     leave; olixono resume {game} takes it up again"""


class ScreenCompleter(MoveCompleter):
    """The legal moves (on this player's turn) and the /commands."""

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        word = document.text_before_cursor.lstrip()
        if " " in word:
            return
        board = self.core.session.board
        moves = sorted(move.text() for move in board.legal_moves()) if board is not None and self.core.my_turn else []
        for candidate in moves + [f"/{name}" for name in SCREEN_COMMANDS]:
            if candidate.lower().startswith(word.lower()):
                yield Completion(candidate, start_position=-len(word))


def screen_help(core: GameCore) -> str:
    kind = core.session.kind or "oxono"
    end = ("/draw                 offer a draw (it stands until answered or withdrawn)" if kind == "oxono" else
           "/end                  propose to end the game now and count the markers")
    return SCREEN_HELP.format(example=EXAMPLES[kind], end=end, game=core.session.game_id)


class _LogPane(logging.Handler):
    """Warnings and errors logged while the screen runs: into its log pane (and the file), never onto the terminal."""

    def __init__(self, state: ScreenState, changed: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self.state, self.changed = state, changed

    def emit(self, record: logging.LogRecord) -> None:
        self.state.add(f"warning: {record.getMessage()}")
        self.changed()


@contextlib.contextmanager
def logging_away_from_the_terminal(pane: logging.Handler, path: Path | None) -> Iterator[None]:
    """While the screen runs: every log record goes to ``path`` (a file under the state folder) and warnings to the
    log pane; the handlers that wrote to the terminal are set aside."""
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level
    handlers: list[logging.Handler] = [pane]
    if path is not None:
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            file = logging.FileHandler(path, encoding="utf-8")
            file.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
            handlers.append(file)
    root.handlers = handlers
    root.setLevel(min(level, logging.INFO) if level else logging.INFO)
    try:
        yield
    finally:
        for handler in handlers[1:]:
            handler.close()
        root.handlers, root.level = saved, level


class ScreenState:
    """What the screen shows besides the session: the log, the board's orientation, thinking times."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.flipped = False
        self.confirm_resign = False
        self.thinking: dict[str, float] = {}
        self.turn_started: float | None = None
        self.turn_of: str | None = None
        self.connected = False

    def add(self, text: str) -> None:
        self.log.extend(text.splitlines() or [""])
        del self.log[:-LOG_LINES]

    def clock(self, turn_of: str | None, now: float) -> None:
        """The turn passed to ``turn_of`` (``None``: nobody's, the game is over) at ``now``."""
        if self.turn_of is not None and self.turn_started is not None:
            self.thinking[self.turn_of] = self.thinking.get(self.turn_of, 0.0) + now - self.turn_started
        self.turn_of, self.turn_started = turn_of, now

    def seconds(self, player: str, now: float) -> float:
        running = now - self.turn_started if player == self.turn_of and self.turn_started is not None else 0.0
        return self.thinking.get(player, 0.0) + running


def board_fragments(core: GameCore, flipped: bool) -> StyleAndTextTuples:
    """The board with coordinates on every edge, each player's pieces in their colour (and told apart by glyph and
    case alone, for NO_COLOR), the last move's squares marked."""
    session = core.session
    board = session.board
    if board is None or not session.started:
        return [("class:title", "waiting for the seats to be drawn...")]
    lines = board.show().splitlines()
    width = 6 if session.kind == "oxono" else 11
    rank_lines, files_line, status = lines[:width], lines[width], lines[width + 1:]
    if flipped:
        rank_lines = rank_lines[::-1]
    out: StyleAndTextTuples = []
    players = board.PLAYERS
    prefix, cell = (2, 3) if session.kind == "oxono" else (3, 2)  # "6 " / "11 " then cells of 3 / 2 characters
    last = last_squares(core)
    for line in rank_lines:
        label, cells = line[:prefix], line[prefix:]
        rank = label.strip()
        out.append(("", label))
        for index, ch in enumerate(cells):
            if session.kind == "oxono":
                style = "class:pink" if ch in "XO" else "class:black" if ch in "xo" else "class:totem" if ch in "[]" else ""
            else:
                style = f"class:{players[0]}" if ch == "#" else f"class:{players[1]}" if ch == "o" else ""
            if ch != " " and f"{chr(ord('a') + index // cell)}{rank}" in last:
                style += " class:last"
            out.append((style, ch))
        out.append(("", f" {label.strip()}\n"))  # coordinates on both sides
    out.append(("", f"{files_line}\n"))
    for line in status:
        out.append(("", line + "\n"))
    return out


def last_squares(core: GameCore) -> set[str]:
    """The squares the last move touched (Olix: its square; Oxono: where the totem went and the pawn's square)."""
    moves = played_moves(core)
    if not moves:
        return set()
    text = moves[-1][1].lower()
    return {text[1:3], text[3:5]} if core.session.kind == "oxono" else {text}


def moves_text(core: GameCore) -> StyleAndTextTuples:
    """The moves, numbered, the last one marked."""
    moves = played_moves(core)
    out: StyleAndTextTuples = [("class:title", "moves\n")]
    for number, (player, move) in enumerate(moves[-9:], max(1, len(moves) - 8)):
        style = "class:last" if number == len(moves) else ""
        out.append((style, f"{number:>3}. {player:<6} {move}\n"))
    return out


def played_moves(core: GameCore) -> list[tuple[str, str]]:
    """(player, move) for every move of the game so far, from the verified transcript."""
    session = core.session
    moves = []
    for message in session.chain:
        if message.type == "move":
            moves.append((session.player_of(message.signer) or "?", message.get("move") or "?"))
    return moves


def game_screen(*, input: Input | None = None, output: Output | None = None,
                clock: Callable[[], float] = time.monotonic, log_file: Path | None = None,
                notes: list[str] | None = None) -> Callable[[GameRunner], Any]:
    """The full-screen front end (``input``/``output``: prompt-toolkit's, for tests; ``log_file``: where log records
    go while it runs, by default ``$XDG_STATE_HOME/olixono/client.log``; ``notes``: what was said before it started,
    shown first in its log)."""

    async def run(runner: GameRunner) -> int:
        core = runner.core
        state = ScreenState()
        state.connected = runner.link.connected
        for note in notes or ():
            state.add(note)
        state.add("Type a move, or /help for the commands.")
        app: Application[int]

        def submit(buffer: Buffer) -> bool:
            text = buffer.text.strip()
            if text:
                asyncio.get_running_loop().create_task(typed(text))
            return False  # the input line is emptied; history keeps it

        field = Buffer(multiline=False, history=InMemoryHistory(), accept_handler=submit,
                       completer=ScreenCompleter(core), complete_while_typing=False)

        async def typed(text: str) -> None:
            word = text.split(" ", 1)[0].lower()
            if not text.startswith("/"):
                if word in SCREEN_COMMANDS:
                    state.add(f"error: commands start with /: type /{text}")
                    return invalidate()
                await act(text)
                return None
            command = text[1:]
            name = command.split(" ", 1)[0].lower()
            if name not in SCREEN_COMMANDS:
                state.add(f"error: no command /{name}: /help lists them")
            elif name == "help":
                state.add(screen_help(core))
            elif name == "flip":
                state.flipped = not state.flipped
            elif name == "moves":
                state.add(" ".join(f"{n}.{move}" for n, (_, move) in enumerate(played_moves(core), 1)) or "no moves yet")
            elif name == "resign" and not state.confirm_resign and not core.session.over:
                state.confirm_resign = True
                state.add("Resign and lose the game? Type /resign again to confirm.")
            elif name == "quit":
                app.exit(result=0)
            else:
                await act(command)
            if name != "resign":
                state.confirm_resign = False
            return invalidate()

        async def act(text: str) -> None:
            try:
                await handle_typed(runner, text, state.add)
            except Exception as exc:  # shown, never lost
                state.add(f"error: {exc}")
            invalidate()

        def invalidate() -> None:
            if app.is_running:
                app.invalidate()

        def follow() -> None:
            session = core.session
            board = session.board
            now = clock()
            if session.over:
                state.clock(None, now)
            elif board is not None and session.started and board.turn != state.turn_of:
                state.clock(board.turn, now)

        def toolbar() -> StyleAndTextTuples:
            session = core.session
            board = session.board
            started = board is not None and session.started
            if session.over:
                parts = ["game over"]
            elif started and board is not None:
                parts = [f"{board.turn}{' (you)' if core.my_turn else ''} to move"]
            else:
                parts = ["waiting for the seats"]
            now = clock()
            for player in (board.PLAYERS if started and board is not None else ()):
                key = session.seats.get(player)
                who = key.fingerprint[:9] if key is not None else "?"
                spent = int(state.seconds(player, now))
                mine = " (you)" if key is not None and key == core.me else ""
                parts.append(f"{player} {who}{mine} {spent // 60}:{spent % 60:02d}")
            opponent = core.opponent
            if opponent is not None and core.playing:
                present = session.present(opponent)
                parts.append("opponent " + ("here" if present else "gone" if present is False else "not seen yet"))
            parts.append("relay " + ("connected" if state.connected else "RECONNECTING"))
            return [("class:toolbar", " | ".join(parts))]

        def log_text() -> str:
            """The newest lines that fit the log pane, wrapped to its width."""
            size = get_app().output.get_size()
            width, height = max(10, size.columns - BOARD_WIDTH - 1), max(1, size.rows - FIXED_ROWS)
            shown: list[str] = []
            for line in reversed(state.log):
                shown[:0] = textwrap.wrap(line, width) or [""]
                if len(shown) >= height:
                    break
            return "\n".join(shown[-height:])

        def prompt() -> StyleAndTextTuples:
            if not core.playing:
                return [("class:title", "watching> ")]
            return [("class:title", "your move> " if core.my_turn else "> ")]

        game_window = VSplit([
            Window(FormattedTextControl(lambda: board_fragments(core, state.flipped)), width=BOARD_WIDTH,
                   wrap_lines=True),
            Window(width=1, char="│"),
            HSplit([
                Window(FormattedTextControl(lambda: moves_text(core)), height=MOVES_ROWS),
                Window(height=1, char="─"),
                Window(FormattedTextControl(log_text)),
            ]),
        ])
        full = HSplit([
            game_window,
            Window(height=1, char="─"),
            VSplit([Window(FormattedTextControl(prompt), dont_extend_width=True), Window(BufferControl(field))],
                   height=1),
            Window(FormattedTextControl(toolbar), height=1),
        ])
        too_small = Window(FormattedTextControl(
            lambda: f"The terminal is too small: the screen needs {MIN_COLUMNS} x {MIN_ROWS} characters. "
                    "Make it larger; the game goes on meanwhile (/quit leaves)."), wrap_lines=True)

        def root() -> Any:
            size = get_app().output.get_size()
            return full if size.columns >= MIN_COLUMNS and size.rows >= MIN_ROWS else HSplit([
                too_small, VSplit([Window(FormattedTextControl(prompt), dont_extend_width=True),
                                   Window(BufferControl(field))], height=1)])

        keys = KeyBindings()

        @keys.add("c-c")
        @keys.add("c-d")
        def _leave(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        app = Application(layout=Layout(DynamicContainer(root), focused_element=field), key_bindings=keys,
                          full_screen=True, style=STYLE, input=input, output=output, refresh_interval=1.0,
                          color_depth=ColorDepth.from_env())  # NO_COLOR: glyphs and case tell the pieces apart

        def loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            error = context.get("exception")
            state.add(f"warning: {context.get('message', 'error')}" + (f": {error!r}" if error is not None else ""))
            invalidate()

        async def events() -> None:
            while True:
                event = await runner.events.get()
                if isinstance(event, Connection):
                    state.connected = event.connected
                text = describe(core, event)
                if text is not None and not isinstance(event, MoveApplied):  # moves have their own pane
                    state.add(text)
                if isinstance(event, (GameStarted, MoveApplied, GameOver)):
                    follow()
                if isinstance(event, GameOver):
                    state.add(f"Game over: {event.result.sentence()}. The record: olixono export "
                              f"{core.session.game_id}; /quit leaves.")
                invalidate()

        loop = asyncio.get_running_loop()
        previous = loop.get_exception_handler()
        loop.set_exception_handler(loop_error)
        follow()
        reader = asyncio.create_task(events())
        try:
            with logging_away_from_the_terminal(_LogPane(state, invalidate), log_file or state_dir() / "client.log"):
                return await app.run_async(set_exception_handler=False)
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            loop.set_exception_handler(previous)

    return run

