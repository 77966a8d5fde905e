"""The full-screen console: one prompt-toolkit ``Application`` for playing, watching and replaying a game.

Everything stays where it is: the board (left; Olix's scoreboard under it), the numbered moves (right, the last one
marked, scrollable), a log of chat, warnings and what happened (right, below), the input line, and a bottom toolbar
(for a network game: whose turn it is, both players' fingerprints with yours marked, the clocks, the opponent's
presence and the relay). Tasks only change state and call ``invalidate()``; nothing is printed while it
runs, and an error in a task goes to the log, never to prompt-toolkit's "Press ENTER to continue".

What is on the table comes from a :class:`Table`, each in a module of its own, side by side: a network game
(``client.frontends.network_screen.NetworkTable``, on the same core and runner as the line console), a game at one
terminal (``client.frontends.local_screen.LocalTable``) or a transcript replayed
(``client.frontends.replay.ReplayTable``). The screen itself owns only the drawing, the input line and the commands
every table shares (Ctrl-Z suspends it to the shell, Ctrl-L redraws it whole; ``/help``, ``/flip``, ``/moves``,
``/quit``: asked twice where the table says leaving may cost the game, :meth:`Table.leaving`; its toolbar shows a
table's :class:`Urgent` parts in the warning style). Moves are typed as in local play (Tab completes the legal ones,
Oxono one segment at a time; a click on a square types it); commands start with ``/``, so text that is neither is
refused, never sent as chat by accident.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import ConditionalContainer, Float, FloatContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.containers import Container, DynamicContainer
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from client.shell.journal import state_dir
from client.words.bell import Bell
from client.words.commands import (
    SCREEN_COMMANDS,
    Game,
    ScreenDo,
    candidates,
    command_names,
    completer,
    example_of,
    help_row,
    help_rows,
    screen_rows,
    screen_typed,
)
from olixono.common import Board, GameKind
from olixono.olix import OlixBoard

BOARD_WIDTH, MOVES_ROWS = 40, 10
FIXED_ROWS = MOVES_ROWS + 4
"""Rows that are not the log's: the moves pane, two dividers, the input line, the toolbar."""
MOVES_SHOWN = MOVES_ROWS - 1
"""Moves in the moves pane at once (its first row is the title); PageUp / PageDown scroll it."""
MIN_COLUMNS, MIN_ROWS = 80, 24
"""The smallest terminal the screen is drawn in; below it, a message says so (and the game goes on)."""
TOO_SMALL = (
    f"The terminal is too small: the screen needs {MIN_COLUMNS} x {MIN_ROWS} characters. Make it larger; the "
    "game goes on meanwhile (/quit leaves)."
)
"""What the screen says in place of the game below :data:`MIN_COLUMNS` x :data:`MIN_ROWS`."""
LOG_LINES = 500
OWN_COMMANDS = SCREEN_COMMANDS
"""The commands of every screen (:data:`client.words.commands.COMMANDS`' screen ones, with help and quit); a table adds
its own."""
TYPE_HELP = "Type a move ({example}); Tab completes the legal ones. Commands start with /:"
WATCH_HELP = "Watching: every line is checked as the players check it. Commands start with /:"
STYLE = Style.from_dict(
    {
        "pink": "fg:ansimagenta bold",
        "black": "fg:ansiblue bold",
        "first": "fg:ansired bold",
        "second": "fg:ansigreen bold",
        "totem": "bold",
        "last": "reverse",
        "held": "underline",
        "toolbar": "reverse",
        "error": "fg:ansired",
        "title": "bold",
        "warning": "fg:ansired bold",
    }
)


def _oxono_style(ch: str, cell: str, players: tuple[str, str], held: bool) -> str:
    return "class:totem" if "[" in cell else "class:pink" if ch in "XO" else "class:black" if ch in "xo" else ""


def _olix_style(ch: str, cell: str, players: tuple[str, str], held: bool) -> str:
    style = f"class:{players[0]}" if ch == "#" else f"class:{players[1]}" if ch == "o" else ""
    return style + " class:held" if ch in "#o" and held else style


def _oxono_fill(text: str, square: str, cell: str) -> str:
    """A totem's square gives its letter, any other square goes after the totem (its destination, then the pawn)."""
    if "[" in cell and len(text) not in (1, 3):
        return cell.strip("[] ")
    return text + square if len(text) in (1, 3) else square


@dataclass(frozen=True, slots=True)
class Drawing:
    """How the screen draws one game's board (the engine's ``show()`` text), completes and clicks its moves."""

    label: int
    """Characters of a rank's label (``6 ``, ``11 ``)."""
    cell: int
    """Characters a square takes."""
    style: Callable[[str, str, tuple[str, str], bool], str]
    """A character's style: ``style(ch, cell, players, held)``."""
    squares: Callable[[str], set[str]]
    """The squares a move's text names (marked as the last move)."""
    fill: Callable[[str, str, str], str]
    """The input line after a click: ``fill(text, square, cell)``."""


DRAWINGS: dict[str, Drawing] = {
    GameKind.OXONO: Drawing(2, 3, _oxono_style, lambda text: {text[1:3], text[3:5]}, _oxono_fill),
    GameKind.OLIX: Drawing(3, 2, _olix_style, lambda text: {text}, lambda text, square, cell: square),
}
"""Each game's drawing, by its kind."""

Say = Callable[[str], None]


class Urgent(str):
    """A part of :meth:`Table.status` that the toolbar shows in the warning style (a clock under 10 s on its turn: red
    and bold where colour is allowed, bold alone under NO_COLOR, where its own mark, ``!``, tells it too)."""


def own_help(leave: str) -> str:
    """The help of the commands the screen runs itself (``leave``: what leaving means, said after /quit)."""
    rows = [*screen_rows(), ("/quit (or Ctrl-D)", f"leave{leave}")]
    return "\n".join(
        [
            *(help_row(typed, text, slash=True) for typed, text in rows),
            "A click on a square types it into the input line (Shift+drag selects text to copy).",
        ]
    )


class Table:
    """What the screen shows and what typing does: one subclass for each way a game reaches the screen.

    The screen asks for the position to draw, the moves so far, the toolbar's parts and the prompt whenever it
    redraws, and hands over what is typed: a move (text without a ``/``) to :meth:`move`, a command of the table's
    to :meth:`command`. :meth:`follow` runs for as long as the screen does (network lines arriving, a bot thinking);
    it calls ``changed()`` whenever something should be redrawn and ``say(text)`` to add to the log.
    """

    leave = ""
    """Said in the help next to /quit: what leaving means."""
    greeting = "Type a move, or /help for the commands."
    """The log's first line."""
    refused: Mapping[str, str] = MappingProxyType({})
    """Commands that exist but cannot be used here, each with the sentence that says why (a watcher's /say)."""

    @property
    def kind(self) -> GameKind:
        """The game on the table."""
        raise NotImplementedError

    @property
    def typing_game(self) -> Game | None:
        """The game typed into, as the vocabulary reads it (``None``: no game to act on, a replay): the commands that
        ask to confirm first (:func:`client.words.commands.question`) ask from it."""
        return None

    @property
    def commands(self) -> tuple[str, ...]:
        """The table's own /commands (``resign`` is confirmed by the screen before it reaches :meth:`command`:
        :attr:`typing_game`)."""
        return ()

    def board(self) -> Board[Any] | None:
        """The position to draw (``None``: there is none yet, the seats are not drawn)."""
        raise NotImplementedError

    def waiting(self) -> list[str]:
        """What the board's place shows while there is no board (lines that fit its width)."""
        return ["waiting for the seats to be drawn..."]

    def moves(self) -> list[tuple[str, str]]:
        """``(player, move)`` for every move of the game (or transcript)."""
        raise NotImplementedError

    def shown(self) -> int:
        """How many of the moves the board shows (the marked move's number)."""
        return len(self.moves())

    def over(self) -> bool:
        return False

    def hands_over(self) -> bool:
        """Whether the table's game hands over to the next (a rematch both players agreed to): the screen then closes,
        and the command shows that game on a screen of its own."""
        return False

    def ending(self) -> list[str]:
        """What the screen says under the board once the game is over: the result in words, what to type next."""
        return []

    def alert(self) -> list[str]:
        """What the screen says under the board, in red, while it lasts (a claim on time and its answer window)."""
        return []

    def paste(self) -> str | None:
        """A command the person may paste now (the join command to give, the one that saves the record): the screen
        shows it whole on a row of its own across the terminal, above the input line (:func:`paste_rows`)."""
        return None

    def movable(self) -> bool:
        """Whether a move typed now would be played (completion offers the legal moves only then)."""
        return False

    def move_note(self, number: int) -> str:
        """A few characters beside move ``number`` (from 1) in the moves pane (a replay's analysis)."""
        return ""

    def prompt(self) -> str:
        return "> "

    def status(self, spent: Callable[[str], float]) -> list[str]:
        """The toolbar's parts, the most wanted first (``spent(player)``: that side's thinking time so far)."""
        return []

    def leaving(self) -> str | None:
        """Why leaving now may cost something, asking to confirm (``/quit`` and Ctrl-D then leave only when asked
        twice in a row); ``None``: they leave at once."""
        return None

    def help(self) -> str:
        """The table's own lines of ``/help``."""
        return ""

    async def move(self, text: str, say: Say) -> None:
        """Text typed without a ``/``: a move (or, in a replay, a move number)."""
        raise NotImplementedError

    async def command(self, name: str, rest: str, say: Say) -> None:
        raise NotImplementedError

    async def follow(self, say: Say, changed: Callable[[], None]) -> None:
        await asyncio.Event().wait()  # nothing comes from elsewhere

    def bindings(self, empty: Condition, changed: Callable[[], None], enter: Say) -> KeyBindings | None:
        """Keys of the table's own (``empty``: true while the input line is empty; ``enter(text)``: acts on ``text``
        as if it were typed into the input line)."""
        return None


# -- what every table shares ------------------------------------------------------------------
# -- what the screen draws -----------------------------------------------------------------------
def game_help(game: Game) -> str:
    """A game's help on the screen: how a move is written, then each of its commands that the screen does not run
    itself, with its ``/`` (:func:`client.words.commands.help_rows`: the line console's rows)."""
    head = WATCH_HELP if game.watching else TYPE_HELP.format(example=example_of(game))
    return "\n".join([head, *help_rows(game, slash=True, skip=OWN_COMMANDS)])


def game_commands(game: Game) -> tuple[str, ...]:
    """A game's commands that the screen does not run itself."""
    return tuple(name for name in command_names(game) if name not in OWN_COMMANDS)


def screen_candidates(table: Table, word: str) -> list[str]:
    """What Tab offers on the screen: the legal moves when one may be typed (Oxono's one segment at a time) and the
    /commands (:func:`client.words.commands.candidates`, as in the line console)."""
    return candidates(
        word, board=table.board(), movable=table.movable(), commands=[*table.commands, *OWN_COMMANDS], slash=True
    )


def board_fragments(table: Table, flipped: bool, click: Callable[[str, str], None] | None = None) -> StyleAndTextTuples:
    """The board with coordinates on every edge, each player's pieces in their colour (and told apart by glyph and
    case alone, for NO_COLOR), the squares of the shown move marked, Olix's stones that hold a marker underlined and
    its scoreboard under the board; each square clickable (``click(square, cell)``)."""
    board = table.board()
    if board is None:
        return [("class:title", "".join(f"{line}\n" for line in table.waiting()))]
    drawing = DRAWINGS[board.KIND]
    lines = board.show().splitlines()
    width = board.WIDTH
    rank_lines, files_line, status = lines[:width], lines[width], lines[width + 1 :]
    if flipped:
        rank_lines = rank_lines[::-1]
    players = board.PLAYERS
    prefix, size = drawing.label, drawing.cell
    last = moved_squares(table)
    held = held_squares(board)
    out: StyleAndTextTuples = []
    for line in rank_lines:
        # the engine's lines end at their last mark: pad them, so that the right-hand labels stand in one column
        label, cells = line[:prefix], line[prefix:].ljust(width * size)
        rank = label.strip()
        out.append(("", label))
        for index in range(0, len(cells), size):
            cell = cells[index : index + size]
            square = f"{chr(ord('a') + index // size)}{rank}"
            handler = _clicker(click, square, cell) if click is not None else None
            for ch in cell:
                style = drawing.style(ch, cell, players, square in held)
                if ch != " " and square in last:
                    style += " class:last"
                out.append((style, ch, handler) if handler is not None else (style, ch))
        out.append(("", f" {rank}\n"))  # coordinates on both sides
    out.append(("", f"{files_line}\n"))
    over = table.ending()
    for line in status:  # "pink to move; pawns left: ...": a line each
        for part in line.split("; "):
            # once over, the board's own turn line gives way to the table's ending (Olix's legend: the scoreboard's)
            if over and (part.startswith("game over") or part.endswith("to move") or isinstance(board, OlixBoard)):
                continue
            out.extend(("", row + "\n") for row in wrap(part, BOARD_WIDTH - 1))
    if isinstance(board, OlixBoard):
        out.extend(scoreboard_fragments(board, lead=not over))  # once over, the ending says who won
    out.extend(("class:error", part + "\n") for line in table.alert() for part in wrap(line, BOARD_WIDTH - 1))
    out.extend(("class:title", part + "\n") for line in over for part in wrap(line, BOARD_WIDTH - 1))
    return out


def wrap(text: str, width: int) -> list[str]:
    """``text`` in rows of ``width``, broken at spaces only (game ids and fingerprints hold hyphens)."""
    return textwrap.wrap(text, width, break_on_hyphens=False)


def paste_rows(command: str | None, width: int) -> list[str]:
    """``command`` on one row when it fits ``width``; else broken between its words, each row but the last ending in
    `` \\`` (a shell reads the rows, pasted together, as the one command). Quoted words stay whole."""
    if command is None:
        return []
    if len(command) <= width:
        return [command]
    rows: list[str] = []
    for word in re.findall(r"'[^']*'\S*|\S+", command):
        if rows and len(rows[-1]) + 1 + len(word) + 2 <= width:
            rows[-1] += f" {word}"
        else:
            rows.append(f"  {word}" if rows else word)
    return [f"{row} \\" for row in rows[:-1]] + rows[-1:]


def wrap_hanging(text: str, width: int) -> list[str]:
    """``text`` wrapped as :func:`wrap`, its further rows indented under its first: a row of help (``"  /legal /board
    the legal moves"``) continues under its description, an indented row under its own indent."""
    table_row = re.match(r"(\s+\S.*?\s{2,})\S", text)
    indent = len(table_row.group(1)) if table_row else len(text) - len(text.lstrip())
    if indent > width // 2:
        indent = len(text) - len(text.lstrip()) + 2
    return (
        textwrap.wrap(
            text, width, break_on_hyphens=False, subsequent_indent=" " * min(indent, width // 2), drop_whitespace=True
        )
        if text.strip()
        else [text]
    )


def _clicker(click: Callable[[str, str], None], square: str, cell: str) -> Callable[[MouseEvent], Any]:
    def handler(event: MouseEvent) -> Any:
        if event.event_type == MouseEventType.MOUSE_UP and event.button == MouseButton.LEFT:
            click(square, cell)
            return None
        return NotImplemented

    return handler


def held_squares(board: Board[Any]) -> set[str]:
    """Olix: the squares of the formations that hold a marker on the scoreboard."""
    if not isinstance(board, OlixBoard):
        return set()
    squares: set[str] = set()
    for track in board.scoreboard().tracks:
        if track.field is not None:
            for player in track.holders:
                squares.update(board.formations(player)[track.kind].square_names())
    return squares


def scoreboard_fragments(board: OlixBoard, lead: bool = True) -> StyleAndTextTuples:
    """The four tracks, each field's value with the glyph of whoever holds its marker, and (``lead``) who leads."""
    first, second = board.PLAYERS
    glyph = {first: "#", second: "o"}
    out: StyleAndTextTuples = [("class:title", "scoreboard (markers: # first, o second)\n")]
    scoreboard = board.scoreboard()
    for track in scoreboard.tracks:
        out.append(("", f"  {track.kind}  "))
        for value in track.fields:
            marks = "".join(glyph[p] for p in track.holders) if value == track.field else ""
            out.append(("", f"{value:>2}"))
            for mark in marks:
                out.append((f"class:{first if mark == '#' else second}", mark))
            out.append(("", " " * (3 - len(marks))))
        out.append(("", "\n"))
    if not lead:
        return out
    leader = scoreboard.leader()
    counts = f"{len(scoreboard.positions(first))} to {len(scoreboard.positions(second))}"
    out.append(("", f"  markers {counts}: {f'{leader} leads' if leader else 'level'}\n"))
    return out


def moved_squares(table: Table) -> set[str]:
    """The squares of the move the board shows last (Olix: its square; Oxono: where the totem went and the pawn)."""
    moves, shown = table.moves(), table.shown()
    if not shown:
        return set()
    return DRAWINGS[table.kind].squares(moves[shown - 1][1].lower())


def moves_window(count: int, marked: int, start: int | None) -> int:
    """The index of the first move in the moves pane: ``start`` when scrolled there, else where the marked move
    shows (near the end for a game in play, centred while a replay steps)."""
    last = max(0, count - MOVES_SHOWN)
    if start is None:
        start = marked - MOVES_SHOWN if marked >= count else marked - MOVES_SHOWN // 2 - 1
    return max(0, min(start, last))


def moves_fragments(table: Table, start: int | None, scroll: Callable[[int], None] | None = None) -> StyleAndTextTuples:
    """The numbered moves, the shown one marked, ``MOVES_SHOWN`` at a time; the mouse wheel scrolls them."""
    moves, marked = table.moves(), table.shown()
    first = moves_window(len(moves), marked, start)
    window = moves[first : first + MOVES_SHOWN]
    handler = _wheel(scroll) if scroll is not None else None

    def piece(style: str, text: str) -> tuple[Any, ...]:
        return (style, text, handler) if handler is not None else (style, text)

    title = f"moves {first + 1}-{first + len(window)} of {len(moves)}" if len(moves) > MOVES_SHOWN else "moves"
    out: StyleAndTextTuples = [piece("class:title", title + "\n")]
    for number, (player, move) in enumerate(window, first + 1):
        note = table.move_note(number)
        text = f"{number:>3}. {player:<6} {move:<6} {note}" if note else f"{number:>3}. {player:<6} {move}"
        out.append(piece("class:last" if number == marked else "", text + "\n"))
    return out


def _wheel(scroll: Callable[[int], None]) -> Callable[[MouseEvent], Any]:
    def handler(event: MouseEvent) -> Any:
        if event.event_type == MouseEventType.SCROLL_UP:
            scroll(-3)
        elif event.event_type == MouseEventType.SCROLL_DOWN:
            scroll(3)
        else:
            return NotImplemented
        return None

    return handler


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
    """What the screen shows besides the table: the log, the board's orientation, the moves pane's scrolling,
    thinking times."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.flipped = False
        self.confirm_resign: str | None = None
        """The line that asked to confirm it (a resignation, …: :func:`client.words.commands.question`), when it was the
        last line typed."""
        self.confirm_quit = False
        self.moves_start: int | None = None
        """The first move the moves pane shows when scrolled by hand (``None``: it follows the game)."""
        self.thinking: dict[str, float] = {}
        self.turn_started: float | None = None
        self.turn_of: str | None = None

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


def fill(buffer: Buffer, kind: GameKind, square: str, cell: str) -> None:
    """A click on ``square`` (showing ``cell``): Olix types the square; Oxono builds the move segment by segment."""
    text = DRAWINGS[kind].fill(buffer.text.strip(), square, cell)
    buffer.set_document(Document(text, len(text)))


def fit_parts(parts: list[str], width: int, between: int = 3) -> list[str]:
    """A toolbar's parts that fit in ``width`` columns (``between``: the separator's width): the first (whose turn, or
    that the relay is lost) and the last (the relay's state) always; of those between, the longest go first (a
    player's fingerprint and clock), so that whose turn it is stays where the relay's loss comes first."""
    parts = list(parts)
    while len(parts) > 2 and sum(map(len, parts)) + between * (len(parts) - 1) > width:
        del parts[max(range(1, len(parts) - 1), key=lambda index: len(parts[index]))]
    return parts


def log_fragments(log: list[str], width: int, height: int) -> StyleAndTextTuples:
    """The newest lines of ``log`` that fit ``height`` rows, wrapped to ``width``; errors and warnings in red."""
    shown: list[tuple[str, str]] = []
    for line in reversed(log):
        style = "class:error" if line.startswith(("error:", "warning:")) else ""
        shown[:0] = [(style, row) for row in wrap_hanging(line, width) or [""]]
        if len(shown) >= height:
            break
    out: StyleAndTextTuples = []
    for style, row in shown[-height:]:
        out += [(style, row), ("", "\n")]
    return out[:-1]


def toolbar_fragments(parts: list[str], width: int) -> StyleAndTextTuples:
    """The toolbar: the parts that fit ``width`` (:func:`fit_parts`), :class:`Urgent` ones in the warning style."""
    out: StyleAndTextTuples = []
    for part in fit_parts(parts, width):
        if out:
            out.append(("class:toolbar", " | "))
        out.append(("class:toolbar class:warning" if isinstance(part, Urgent) else "class:toolbar", part))
    return out


class Screen:
    """One table on the full screen: the state its parts share and what they do to it.

    Built as prompt-toolkit's larger programs build theirs (pyvim's editor, its layout and its key bindings): the
    windows (:class:`ScreenLayout`) draw from it, the keys (:func:`screen_bindings`) and the input line act on it, and
    :meth:`run` runs the application with the table's :meth:`Table.follow` beside it. Tasks only change state and call
    :meth:`invalidate`."""

    def __init__(
        self,
        table: Table,
        *,
        input: Input | None = None,
        output: Output | None = None,
        clock: Callable[[], float] = time.monotonic,
        notes: Iterable[str] = (),
        mouse: bool = True,
        bell: bool = False,
    ) -> None:
        self.table, self.clock = table, clock
        self.state = ScreenState()
        self.ringer = Bell(table.typing_game, None)  # its ring is the app's output's, once the app is made
        for note in notes:
            self.state.add(note)
        self.state.add(table.greeting)
        self.field = Buffer(
            multiline=False,
            history=InMemoryHistory(),
            accept_handler=self._submit,
            completer=completer(lambda word: screen_candidates(table, word)),
            complete_while_typing=False,
        )
        keys = screen_bindings(self)
        own = table.bindings(Condition(lambda: not self.field.text), self.invalidate, self.enter)
        self.app: Application[int] = Application(
            layout=ScreenLayout(self).layout,
            key_bindings=merge_key_bindings([keys, own]) if own is not None else keys,
            full_screen=True,
            style=STYLE,
            input=input,
            output=output,
            refresh_interval=1.0,
            mouse_support=mouse,
            color_depth=ColorDepth.from_env(),
        )  # NO_COLOR: glyphs and case suffice
        if bell:
            self.ringer.ring = self.app.output.bell

    # -- what changes the state ------------------------------------------------------------------------
    def invalidate(self) -> None:
        """Something changed: follow the turn's clock, ring if it is due, and redraw (or close, when the table hands
        its game over)."""
        self.follow_clock()
        self.ringer()
        if self.app.is_running and self.table.hands_over():
            self.app.exit(result=0)
        elif self.app.is_running:
            self.app.invalidate()

    def follow_clock(self) -> None:
        board = self.table.board()
        if self.table.over():
            if self.state.turn_of is not None:
                self.state.clock(None, self.clock())
        elif board is not None and board.turn != self.state.turn_of:
            self.state.clock(board.turn, self.clock())

    def _submit(self, buffer: Buffer) -> bool:
        self.enter(buffer.text)
        return False  # the input line is emptied; history keeps it

    def enter(self, text: str) -> None:
        """Act on ``text`` as typed into the input line (in a task of its own)."""
        text = text.strip()
        if text:
            asyncio.get_running_loop().create_task(self.typed(text))

    async def typed(self, text: str) -> None:
        try:
            await self.obey(text)
        except Exception as exc:  # shown, never lost
            self.state.add(f"error: {exc}")
        self.invalidate()

    async def obey(self, text: str) -> None:
        """What a typed line does (:func:`client.words.commands.screen_typed`), done."""
        table, state = self.table, self.state
        resign_asked, quit_asked = state.confirm_resign, state.confirm_quit
        state.confirm_resign, state.confirm_quit = None, False  # a confirmation is the very next line typed
        does = screen_typed(
            text, commands=table.commands, refused=table.refused, game=table.typing_game, asked=resign_asked
        )
        if does.what is ScreenDo.REFUSE:
            state.add(f"error: {does.text}")
        elif does.what is ScreenDo.MOVE:
            await table.move(does.text, state.add)
        elif does.what is ScreenDo.HELP:
            state.add("\n".join(filter(None, [table.help(), own_help(table.leave)])))
        elif does.what is ScreenDo.FLIP:
            state.flipped = not state.flipped
        elif does.what is ScreenDo.MOVES:
            state.add(" ".join(f"{n}.{move}" for n, (_, move) in enumerate(table.moves(), 1)) or "no moves yet")
        elif does.what is ScreenDo.QUIT:
            self.leave(quit_asked)
        elif does.what is ScreenDo.ASK:
            state.confirm_resign = text
            state.add(does.text)
        else:
            await table.command(does.command, does.rest, state.add)

    def leave(self, asked: bool) -> None:
        """/quit, Ctrl-D: leave, at once unless leaving may cost something (:meth:`Table.leaving`) and the person was
        not ``asked`` to confirm just before."""
        warning = None if asked else self.table.leaving()
        if warning is None:
            self.app.exit(result=0)
            return
        self.state.confirm_quit = True
        self.state.add(warning)
        self.invalidate()

    def scroll(self, rows: int) -> None:
        """Scroll the moves pane by ``rows`` (back to following the game once at its end)."""
        moves = self.table.moves()
        start = moves_window(len(moves), self.table.shown(), self.state.moves_start) + rows
        self.state.moves_start = None if start >= len(moves) - MOVES_SHOWN else max(0, start)
        self.invalidate()

    def clicked(self, square: str, cell: str) -> None:
        fill(self.field, self.table.kind, square, cell)
        self.invalidate()

    # -- running -------------------------------------------------------------------------------------------
    async def run(self, log_file: Path | None = None) -> int:
        """Run until the person leaves (or the table hands its game over); the exit status. Meanwhile the table
        follows its game in a task, and errors of the loop and log records go to the log pane."""
        loop = asyncio.get_running_loop()
        previous = loop.get_exception_handler()
        loop.set_exception_handler(self._loop_error)
        self.follow_clock()
        follower = asyncio.create_task(self._following())
        try:
            pane = _LogPane(self.state, self.invalidate)
            with logging_away_from_the_terminal(pane, log_file or state_dir() / "client.log"):
                return await self.app.run_async(set_exception_handler=False)
        finally:
            follower.cancel()
            await asyncio.gather(follower, return_exceptions=True)
            loop.set_exception_handler(previous)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        self.state.add(f"warning: {context.get('message', 'error')}" + (f": {error!r}" if error is not None else ""))
        self.invalidate()

    async def _following(self) -> None:
        try:
            await self.table.follow(self.state.add, self.invalidate)
        except Exception as exc:  # the game cannot go on; the screen stays to say so
            self.state.add(f"error: {exc}")
            self.invalidate()


class ScreenLayout:
    """The screen's windows: the board (left), the moves and the log (right), a command to paste, the input line and
    the toolbar; or, in a terminal smaller than :data:`MIN_COLUMNS` x :data:`MIN_ROWS`, :data:`TOO_SMALL` over the
    input line. :attr:`layout` is the application's."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        table, state = screen.table, screen.state
        game_window = VSplit(
            [
                Window(
                    FormattedTextControl(lambda: board_fragments(table, state.flipped, screen.clicked)),
                    width=BOARD_WIDTH,
                    wrap_lines=True,
                ),
                Window(width=1, char="│"),
                HSplit(
                    [
                        Window(
                            FormattedTextControl(lambda: moves_fragments(table, state.moves_start, screen.scroll)),
                            height=MOVES_ROWS,
                        ),
                        Window(height=1, char="─"),
                        Window(FormattedTextControl(self._log)),
                    ]
                ),
            ]
        )
        paste_window = ConditionalContainer(  # a command to paste: whole, on rows of its own across the terminal
            Window(FormattedTextControl(self._pasted), wrap_lines=False, height=lambda: len(self._paste_rows()) or 1),
            filter=Condition(lambda: table.paste() is not None),
        )
        self.full = FloatContainer(  # Tab's candidates, in a menu over the log next to the input line
            HSplit(
                [
                    game_window,
                    Window(height=1, char="─"),
                    paste_window,
                    self._input_line(),
                    Window(FormattedTextControl(self._toolbar), height=1),
                ]
            ),
            floats=[Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8, scroll_offset=1))],
        )
        self.too_small = HSplit(
            [
                Window(
                    FormattedTextControl(  # broken at spaces, never mid-word
                        lambda: "\n".join(wrap(TOO_SMALL, max(10, get_app().output.get_size().columns)))
                    ),
                    wrap_lines=True,
                ),
                self._input_line(),
            ]
        )
        self.layout = Layout(DynamicContainer(self._root), focused_element=screen.field)

    def _root(self) -> Container:
        size = get_app().output.get_size()
        return self.full if size.columns >= MIN_COLUMNS and size.rows >= MIN_ROWS else self.too_small

    def _input_line(self) -> VSplit:
        return VSplit(
            [
                Window(
                    FormattedTextControl(lambda: [("class:title", self.screen.table.prompt())]), dont_extend_width=True
                ),
                Window(BufferControl(self.screen.field)),
            ],
            height=1,
        )

    def _paste_rows(self) -> list[str]:
        return paste_rows(self.screen.table.paste(), get_app().output.get_size().columns)

    def _pasted(self) -> StyleAndTextTuples:
        return [("class:title", "\n".join(self._paste_rows()))]

    def _log(self) -> StyleAndTextTuples:
        size = get_app().output.get_size()
        width = max(10, size.columns - BOARD_WIDTH - 1)
        return log_fragments(self.screen.state.log, width, max(1, size.rows - FIXED_ROWS - len(self._paste_rows())))

    def _toolbar(self) -> StyleAndTextTuples:
        now, state = self.screen.clock(), self.screen.state
        parts = self.screen.table.status(lambda player: state.seconds(player, now))
        return toolbar_fragments(parts, get_app().output.get_size().columns)


def screen_bindings(screen: Screen) -> KeyBindings:
    """The keys every screen knows (a table adds its own, :meth:`Table.bindings`)."""
    keys = KeyBindings()

    @keys.add("c-c")
    def _leave(event: KeyPressEvent) -> None:
        event.app.exit(result=0)

    @keys.add("c-d")
    def _quit(event: KeyPressEvent) -> None:
        asked, screen.state.confirm_quit = screen.state.confirm_quit, False
        screen.leave(asked)

    @keys.add("c-z")
    def _suspend(event: KeyPressEvent) -> None:
        """The shell's job control, as in every full-screen program: to the shell; on ``fg``, drawn again whole
        (prompt-toolkit erases the screen before it stops, and redraws all of it after)."""
        event.app.suspend_to_background()

    @keys.add("c-l")
    def _redraw(event: KeyPressEvent) -> None:
        """Draw the whole screen again (another program wrote over it, or a stop left it garbled), on the alternate
        screen it is on.

        WORKAROUND (prompt-toolkit 3.0.52): ``Renderer.clear()`` starts with ``Renderer.erase()``, which leaves the
        alternate screen, then sends "erase screen" to the main one, the shell's, before the next render enters the
        alternate screen again: the shell's lines are wiped (tmux, with its default ``scroll-on-clear``, pushes them
        into the pane's scrollback, above the game) and the shell's screen flashes by. So the alternate screen is
        kept: the renderer forgets what it drew (a full render follows), and the screen is erased with absolute
        moves, since whatever wrote over it moved the cursor from where the renderer left it."""
        app = event.app
        app.renderer.erase(leave_alternate_screen=False)
        app.output.erase_screen()
        app.output.cursor_goto(0, 0)
        app.output.flush()
        app.invalidate()

    @keys.add("pageup")
    def _up(event: KeyPressEvent) -> None:
        screen.scroll(-MOVES_SHOWN)

    @keys.add("pagedown")
    def _down(event: KeyPressEvent) -> None:
        screen.scroll(MOVES_SHOWN)

    return keys


async def run_screen(
    table: Table,
    *,
    input: Input | None = None,
    output: Output | None = None,
    clock: Callable[[], float] = time.monotonic,
    log_file: Path | None = None,
    notes: Iterable[str] = (),
    mouse: bool = True,
    bell: bool = False,
) -> int:
    """Show ``table`` full screen until /quit (``input``/``output``: prompt-toolkit's, for tests; ``log_file``: where
    log records go meanwhile, by default ``$XDG_STATE_HOME/olixono/client.log``; ``notes``: what was said before it
    started, shown first in its log; ``bell``: ring the terminal's bell when the turn becomes the person's, or a claim
    on time is made against them: :mod:`client.words.bell`)."""
    screen = Screen(table, input=input, output=output, clock=clock, notes=notes, mouse=mouse, bell=bell)
    return await screen.run(log_file)
