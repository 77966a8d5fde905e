"""What a person types during a network game, parsed: a move, a command, or a mistake (one sentence); the help, the
completions, and what a typed line does (:func:`handle_typed`).

The vocabulary layer below every front end (``docs/architecture.md``): the ``--plain`` printer, the line console and
the full screen all read typed lines through it. Moves use the notation of local play (any letter case): Oxono
``Oc6c5``, Olix ``f6``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from client.core import GameCore, Intent, IntentRefused
from client.board_words import EXAMPLES, status_text
from client.words import resume_text, watch_again_text

if TYPE_CHECKING:
    from prompt_toolkit.completion import Completion
    from prompt_toolkit.document import Document

Write = Callable[[str], object]
"""Where a front end writes a line for the person."""


class Seat(Protocol):
    """What typed commands act through: a :class:`client.runner.GameRunner`."""

    @property
    def core(self) -> GameCore: ...

    async def act(self, intent: Intent) -> None: ...


HELP = """\
Type a move ({example}), or one of:
  legal          list the legal moves
  board          show the board again
  resign         give up the game (at any moment): your opponent wins
  {end}
  agree          accept your opponent's proposal
  decline        refuse your opponent's proposal
  withdraw       take back your own proposal
  abort          end the game without a result (the first player, before their first move)
  say TEXT       chat with your opponent
  help           show this text
  quit           leave; the game stays resumable (olixono resume {game})"""

END_WORD = {"oxono": "draw", "olix": "end"}
"""The word that proposes to end a game before its end: a draw in Oxono, counting the markers in Olix."""
END_LINES = {
    "oxono": "draw           offer a draw (it stands until accepted, declined or withdrawn)",
    "olix": "end            propose to end the game now and count the markers (it stands until answered or withdrawn)",
}
WORDS = {"resign": "resign", "end": "propose", "draw": "propose", "propose": "propose", "agree": "agree",
         "decline": "decline", "withdraw": "withdraw", "abort": "abort"}
LOCAL = ("help", "legal", "board", "quit")


@dataclass(frozen=True, slots=True)
class Typed:
    """One typed line: an ``intent`` to act on, a ``local`` command (help, legal, board, quit), or a ``problem``."""

    intent: Intent | None = None
    local: str | None = None
    problem: str | None = None


WATCH_HELP = """\
Watching: every line is checked as the players check it. Commands:
  legal          list the legal moves
  board          show the board again
  help           show this text
  quit           stop watching (olixono watch {game} follows it again)"""


def help_text(core: GameCore) -> str:
    kind = core.session.kind or "oxono"
    if core.watching:
        return WATCH_HELP.format(game=core.session.game_id)
    return HELP.format(example=EXAMPLES[kind], end=END_LINES[kind], game=core.session.game_id)


def leaving_text(core: GameCore) -> str:
    """What leaving means: a player's game stays resumable; a watcher can watch again."""
    game = core.session.game_id
    if core.watching:
        return f"stopped watching; {watch_again_text(game)}"
    return f"left the game; {resume_text(game)}"


def parse(text: str, core: GameCore) -> Typed:
    """What ``text`` asks for; a problem sentence for text that is none of it (nothing is ever sent for it)."""
    line = text.strip()
    if not line:
        return Typed()
    word, _, rest = line.partition(" ")
    command = word.lower().removeprefix("/")  # with or without the screen's /: both, everywhere
    if command == "say":
        if not rest.strip():
            return Typed(problem="say what? Type say and your message, e.g. say good game")
        return Typed(Intent("chat", rest.strip()))
    if command in LOCAL and not rest:
        return Typed(local=command)
    if command in WORDS and not rest:
        kind = core.session.kind
        if command in END_WORD.values() and kind is not None and command != END_WORD[kind]:
            return Typed(problem=f"{command} is not an {kind} command: type {END_WORD[kind]} to propose ending the "
                                 "game")
        return Typed(Intent(WORDS[command]))
    board = core.board
    if board is not None and " " not in line:
        try:
            board.parse_move(line)
        except ValueError:
            pass
        else:
            return Typed(Intent("move", line))
    example = EXAMPLES[core.session.kind or "oxono"]
    return Typed(problem=f"not a move or a command: {line[:40]!r} ({example}; help lists the commands)")


def legal_text(core: GameCore) -> str:
    board = core.board
    if board is None or not core.session.started:
        return "no moves yet: the seats are not drawn"
    if core.session.over:
        return "no moves: the game is over"
    return " ".join(sorted(move.text() for move in board.legal_moves()))


def completions(core: GameCore) -> list[str]:
    """What the completer offers: the legal moves when it is this player's turn, and the commands."""
    words = ["help", "legal", "board", "resign", "agree", "decline", "withdraw", "abort", "say", "quit"]
    words.append(END_WORD[core.session.kind or "oxono"])
    board = core.board
    if board is not None and core.my_turn:
        words = sorted(move.text() for move in board.legal_moves()) + words
    return words


async def handle_typed(seat: Seat, text: str, write: Write) -> bool:
    """Act on one typed line (the same in every front end that reads lines); ``False`` when the person asked to
    quit."""
    core = seat.core
    typed = parse(text, core)
    if typed.problem is not None:
        write(f"error: {typed.problem}")
    elif typed.local == "quit":
        return False
    elif typed.local == "help":
        write(help_text(core))
    elif typed.local == "legal":
        write(legal_text(core))
    elif typed.local == "board" and core.board is not None:
        write(status_text(core.board))
    elif typed.intent is not None:
        try:
            await seat.act(typed.intent)
        except IntentRefused as exc:
            write(f"error: {exc}")
    return True


def completing(document: Document, candidates: Callable[[str], list[str]]) -> Iterator[Completion]:
    """The ``candidates(word)`` that start with the word before the cursor (any letter case), replacing it; nothing
    once a space was typed (a command's argument, such as chat)."""
    from prompt_toolkit.completion import Completion  # the line console's and the screen's: --plain needs none

    word = document.text_before_cursor.lstrip()
    if " " in word:
        return
    for candidate in candidates(word):
        if candidate.lower().startswith(word.lower()):
            yield Completion(candidate, start_position=-len(word))
