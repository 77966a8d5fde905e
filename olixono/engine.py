"""The engine text interface: a line in, a reply out (no I/O here).

The framing follows GTP, the Go Text Protocol: a command line is an optional
numeric id, a command name and its arguments; the reply is ``=`` (success) or
``?`` (failure), the id if one was given, a space, the text, and an empty
line. Text after ``#`` is a comment; blank lines get no reply; control
characters are dropped and tabs read as spaces. ``olixono engine`` runs
:class:`EngineSession` on stdin/stdout; see ``docs/engine.md`` for every
command.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from olixono.bots import LEVELS, Analysis, make_bot
from olixono.common import GameOverError, IllegalMoveError, InvalidMoveError, InvalidPositionError, MoveLike
from olixono.games import BOARDS, new_board
from olixono.olix import OlixBoard

PROTOCOL_VERSION = "2"
"""The GTP framing version this interface follows."""
NAME = "olixono"
VERSION = "0.1.0"
"""The package's version, written only here: pyproject.toml reads it (``[tool.setuptools.dynamic]``)."""
MAX_PERFT_DEPTH = 8
MAX_LINE = 4096
MAX_ITERATIONS = 10_000_000
MAX_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class Reply:
    """One reply: success or failure, the command id, the text."""

    ok: bool
    text: str
    id: int | None = None

    def __str__(self) -> str:
        head = ("=" if self.ok else "?") + ("" if self.id is None else str(self.id))
        return f"{head} {self.text}\n\n"


class CommandError(Exception):
    """A command that cannot be carried out; its text becomes a ``?`` reply."""


def _is_number(word: str) -> bool:
    """A whole number in ASCII digits (``str.isdigit`` alone also takes ``²``)."""
    return word.isascii() and word.isdigit()


def clean_line(line: str) -> str:
    """GTP preprocessing: drop control characters but tab, tabs to spaces, drop the comment."""
    line = "".join(ch for ch in line if ch == "\t" or (ch >= " " and ch != "\x7f"))
    return line.replace("\t", " ").split("#", 1)[0].strip()


def parse_budget(word: str) -> tuple[int | None, float | None]:
    """A search budget: ``500`` (iterations) or ``1.5s`` (seconds); :class:`CommandError` otherwise."""
    if re.fullmatch(r"[0-9]*\.?[0-9]+s", word):
        seconds = float(word[:-1])
        if not 0 < seconds <= MAX_SECONDS:
            raise CommandError(f"a time budget must be above 0s and at most {MAX_SECONDS:g}s, not {word!r}")
        return None, seconds
    if not _is_number(word) or not 0 < int(word) <= MAX_ITERATIONS:
        raise CommandError(f"a budget is iterations from 1 to {MAX_ITERATIONS} or seconds such as 1.5s, not {word!r}")
    return int(word), None


class EngineSession:
    """The state of one engine conversation: the current game and the bot behind ``genmove``.

    ``level`` is the bot ``genmove`` uses when it names none (``random`` by
    default); ``iterations`` / ``seconds`` are the default ``mcts`` budget.
    Every bot draws from the one session RNG seeded by ``seed``.
    ``handle(line)`` returns the :class:`Reply` for one command line, or
    ``None`` for a blank or comment line. ``quit`` sets :attr:`finished`.
    Nothing a line says can make it raise.
    """

    def __init__(
        self,
        kind: str = "oxono",
        seed: int = 0,
        level: str = "random",
        iterations: int | None = None,
        seconds: float | None = None,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
        make_bot("mcts", iterations=iterations, seconds=seconds)  # a bad budget fails here, loudly
        self.board = new_board(kind)
        self.rng = random.Random(seed)
        self.level = level
        self.iterations = iterations
        self.seconds = seconds
        self.analysis: Analysis | None = None
        self.finished = False
        self._commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda args: PROTOCOL_VERSION,
            "name": lambda args: NAME,
            "version": lambda args: VERSION,
            "known_command": self._known_command,
            "list_commands": lambda args: "\n".join(sorted(self._commands)),
            "new": self._new,
            "play": self._play,
            "undo": self._undo,
            "legal": self._legal,
            "perft": self._perft,
            "outcome": self._outcome,
            "formations": self._formations,
            "scoreboard": self._scoreboard,
            "position": lambda args: self.board.position(),
            "setposition": self._setposition,
            "show": lambda args: self.board.show(),
            "genmove": self._genmove,
            "analyze": self._analyze,
            "end": self._end,
            "resign": self._resign,
            "quit": self._quit,
        }

    def handle(self, line: str) -> Reply | None:
        """The reply to one command line (``None`` for a blank or comment line)."""
        if len(line) > MAX_LINE:
            return Reply(False, f"line too long: at most {MAX_LINE} characters")
        words = clean_line(line).split()
        if not words:
            return None
        command_id = None
        if _is_number(words[0]):
            command_id = int(words.pop(0))
            if not words:
                return Reply(False, "missing command after the id", command_id)
        name, args = words[0], words[1:]
        command = self._commands.get(name)
        if command is None:
            return Reply(False, f"unknown command: {name}", command_id)
        try:
            return Reply(True, command(args), command_id)
        except (CommandError, InvalidMoveError, IllegalMoveError, InvalidPositionError, GameOverError) as exc:
            return Reply(False, str(exc), command_id)

    # -- commands ---------------------------------------------------------
    @staticmethod
    def _arity(args: list[str], count: int, usage: str) -> None:
        if len(args) != count:
            raise CommandError(f"usage: {usage}")

    def _known_command(self, args: list[str]) -> str:
        self._arity(args, 1, "known_command NAME")
        return "true" if args[0] in self._commands else "false"

    def _new(self, args: list[str]) -> str:
        self._arity(args, 1, f"new {'|'.join(BOARDS)}")
        try:
            self.board = new_board(args[0])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        return ""

    def _play(self, args: list[str]) -> str:
        self._arity(args, 1, "play MOVE")
        move: MoveLike = self.board.play(args[0])
        return move.text()

    def _undo(self, args: list[str]) -> str:
        self._arity(args, 0, "undo")
        if not self.board.move_stack and self.board.outcome() is None:
            raise CommandError("nothing to undo")
        ending = self.board.outcome()
        try:
            move: MoveLike | None = self.board.pop()
        except IndexError:
            raise CommandError("nothing to undo") from None
        if move is not None:
            return move.text()
        assert ending is not None  # pop() took back an ending
        return ending.reason

    def _legal(self, args: list[str]) -> str:
        self._arity(args, 0, "legal")
        return " ".join(sorted(move.text() for move in self.board.legal_moves()))

    def _perft(self, args: list[str]) -> str:
        self._arity(args, 1, "perft N")
        if not _is_number(args[0]) or int(args[0]) > MAX_PERFT_DEPTH:
            raise CommandError(f"perft depth must be a whole number from 0 to {MAX_PERFT_DEPTH}, not {args[0]!r}")
        return str(self.board.perft(int(args[0])))

    def _outcome(self, args: list[str]) -> str:
        self._arity(args, 0, "outcome")
        outcome = self.board.outcome()
        return "none" if outcome is None else outcome.text()

    def _olix_board(self, command: str) -> OlixBoard:
        if not isinstance(self.board, OlixBoard):
            raise CommandError(f"{command} is an Olix command; the current game is {self.board.KIND}")
        return self.board

    def _formations(self, args: list[str]) -> str:
        self._arity(args, 0, "formations")
        return self._olix_board("formations").formations_text()

    def _scoreboard(self, args: list[str]) -> str:
        self._arity(args, 0, "scoreboard")
        return self._olix_board("scoreboard").scoreboard_text()

    def _setposition(self, args: list[str]) -> str:
        if not args:
            raise CommandError("usage: setposition TEXT")
        self.board = type(self.board).from_position(" ".join(args))
        return ""

    def _genmove(self, args: list[str]) -> str:
        usage = f"genmove [{'|'.join(LEVELS)} [ITERATIONS|SECONDSs]]"
        if len(args) > 2:
            raise CommandError(f"usage: {usage}")
        level = args[0] if args else self.level
        if level not in LEVELS:
            raise CommandError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
        iterations, seconds = (self.iterations, self.seconds) if level == "mcts" else (None, None)
        if len(args) == 2:
            if level != "mcts":
                raise CommandError(f"the {level} level takes no budget; usage: {usage}")
            iterations, seconds = parse_budget(args[1])
        if self.board.outcome() is not None:
            raise GameOverError(f"no move to generate: the game is over ({self.board.outcome()})")
        bot = make_bot(level, rng=self.rng, iterations=iterations, seconds=seconds)
        move: MoveLike = bot.choose(self.board)
        self.board.push(move)
        self.analysis = bot.analysis
        return move.text()

    def _analyze(self, args: list[str]) -> str:
        self._arity(args, 0, "analyze")
        if self.analysis is None:
            raise CommandError("nothing to analyze: no genmove yet")
        return self.analysis.text()

    def _end(self, args: list[str]) -> str:
        self._arity(args, 0, "end")
        return self._olix_board("end").end().text()

    def _resign(self, args: list[str]) -> str:
        self._arity(args, 0, "resign")
        return self.board.resign().text()

    def _quit(self, args: list[str]) -> str:
        self.finished = True
        return ""


def run(lines: Iterable[str], write: Callable[[str], object], session: EngineSession | None = None) -> None:
    """Feed ``lines`` to a session and ``write`` every reply, until ``quit`` or the end."""
    session = session or EngineSession()
    for line in lines:
        reply = session.handle(line.rstrip("\r\n"))
        if reply is not None:
            write(str(reply))
        if session.finished:
            break
