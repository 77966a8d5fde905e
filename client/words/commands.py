"""What a person types, parsed: a move, a command, or a mistake (one sentence); the commands with their help, the
completions, and what a typed line does (:func:`handle_typed`): the same for a network game and a game at one
terminal.

The vocabulary layer below every front end (``docs/architecture.md``): the ``--plain`` printer, the line consoles
and the full screen all read typed lines through it, and every command is listed once, in :data:`COMMANDS`. Moves
use one notation everywhere (any letter case): Oxono ``Oc6c5``, Olix ``f6``; a command may start with ``/`` or not.
No protocol here: local play reads it without loading the protocol and its cryptography.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from client.cores.intents import Intent, IntentKind, IntentRefused
from client.words.board import GAME_WORDS, board_text, resume_text, watch_again_text
from olixono.common import Board, GameKind
from olixono.olix import OlixBoard

if TYPE_CHECKING:
    from prompt_toolkit.completion import Completer, Completion
    from prompt_toolkit.document import Document

Write = Callable[[str], object]
"""Where a front end writes a line for the person."""


class Game(Protocol):
    """What the vocabulary reads of a game: a network game's :class:`client.cores.network_game.GameCore`, or a game at
    one terminal's :class:`client.cores.local_game.LocalCore`."""

    @property
    def kind(self) -> GameKind: ...

    @property
    def board(self) -> Board[Any] | None: ...

    @property
    def started(self) -> bool: ...

    @property
    def over(self) -> bool: ...

    @property
    def my_turn(self) -> bool: ...

    @property
    def watching(self) -> bool: ...

    @property
    def game_id(self) -> str: ...

    @property
    def local(self) -> bool:
        """Whether the game is at this terminal (no network, no chat, an undo)."""
        ...


class Seat(Protocol):
    """What typed commands act through: a :class:`client.shell.runner.GameRunner` (its ``core`` a ``GameCore``)."""

    @property
    def core(self) -> Game: ...

    async def act(self, intent: Intent) -> None: ...


class Mode(enum.Enum):
    """Who types: a network game's player, its watcher, or the people of a game at one terminal."""

    PLAYER = "player"
    WATCHER = "watcher"
    LOCAL = "local"


def mode_of(game: Game) -> Mode:
    if game.watching:
        return Mode.WATCHER
    return Mode.LOCAL if game.local else Mode.PLAYER


END = "end-word"
""":data:`COMMANDS`' name for the word that proposes to end the game before its end (each game's own word:
:attr:`client.words.board.GameWords.end_word`)."""


@dataclass(frozen=True, slots=True)
class Command:
    """One command: its name, what follows it, and its help in each mode it exists in (the intent it asks for, for a
    command that acts on the game)."""

    name: str
    helps: dict[Mode, str]
    intent: IntentKind | None = None
    usage: str = ""
    olix: bool = False
    """Olix's alone."""
    refusal: str = ""
    """The sentence that refuses it where it does not exist (in a mode its ``helps`` lacks)."""
    screen: bool = False
    """The full screen's alone, which runs it itself (:func:`screen_typed`): the line consoles neither list nor read
    it."""


WATCHERS_REFUSAL = "watchers off|on is for the players of a network game: it hides or shows what the watchers say"
NO_HINT = "hint is for a game at one terminal (olixono play): in a network game no engine may help a player"
_EVERYWHERE = (Mode.PLAYER, Mode.WATCHER, Mode.LOCAL)
COMMANDS: tuple[Command, ...] = (
    Command("legal", dict.fromkeys(_EVERYWHERE, "list the legal moves")),
    Command("board", dict.fromkeys(_EVERYWHERE, "show the board again")),
    Command(
        "formations",
        dict.fromkeys(_EVERYWHERE, "each player's best formation of each type, its value and squares"),
        olix=True,
    ),
    Command(
        "hint",
        {Mode.LOCAL: "the search's best move for the player to move, and how the position stands"},
        refusal=NO_HINT,
    ),
    Command(
        "undo", {Mode.LOCAL: "take back the last move (against a bot: your last move and its reply)"}, IntentKind.UNDO
    ),
    Command(
        "takeback",
        {
            Mode.PLAYER: "ask your opponent to take back your last move (on your turn: yours and their "
            "reply); or agree to theirs. takeback no refuses it"
        },
        IntentKind.TAKEBACK,
        usage="[no]",
        refusal="takeback is for the players of a network game: at one terminal, undo",
    ),
    Command(
        "resign",
        {Mode.PLAYER: "give up the game (at any moment): your opponent wins", Mode.LOCAL: "give up the game"},
        IntentKind.RESIGN,
    ),
    Command(END, dict.fromkeys((Mode.PLAYER, Mode.LOCAL), ""), IntentKind.PROPOSE),
    Command("agree", {Mode.PLAYER: "accept your opponent's proposal (on your turn)"}, IntentKind.AGREE),
    Command("decline", {Mode.PLAYER: "refuse your opponent's proposal (on your turn)"}, IntentKind.DECLINE),
    Command("withdraw", {Mode.PLAYER: "take back your own proposal (on your turn)"}, IntentKind.WITHDRAW),
    Command(
        "abort",
        {Mode.PLAYER: "end the game without a result (the first player, before their first move)"},
        IntentKind.ABORT,
    ),
    Command(
        "claim",
        {
            Mode.PLAYER: "once your opponent's clock has run out (you are told when): a claim on time; "
            "unanswered by a move in time within its window (30 s or more; by correspondence "
            "or untimed, a day), claim again to win on time. It also disputes a move that came "
            "late after your claim, and closes a game whose coin was never revealed"
        },
        IntentKind.CLAIM,
    ),
    Command(
        "clock",
        dict.fromkeys(
            (Mode.PLAYER, Mode.WATCHER),
            "both clocks, the time control and the unexplained seconds (untimed: the side to move's time on this move)",
        ),
    ),
    Command(
        "say",
        {
            Mode.PLAYER: "chat with your opponent",
            Mode.WATCHER: "talk with the other watchers (signed with your key; the players see it unless they hide it)",
        },
        IntentKind.CHAT,
        usage="TEXT",
    ),
    Command(
        "watchers",
        {Mode.PLAYER: "hide (off) or show again (on) what the watchers say"},
        IntentKind.WATCHERS,
        usage="off|on",
        refusal=WATCHERS_REFUSAL,
    ),
    Command(
        "rematch",
        {
            Mode.PLAYER: "once the game is over: ask for a rematch (the same terms, colours swapped), or "
            "accept your opponent's (yes does too)"
        },
        IntentKind.REMATCH,
        refusal="rematch is for the players of a network game, once it is over",
    ),
    Command("flip", dict.fromkeys(_EVERYWHERE, "turn the board round"), screen=True),
    Command(
        "moves", dict.fromkeys(_EVERYWHERE, "every move so far, in the log (PgUp/PgDn scroll the moves)"), screen=True
    ),
    Command("help", dict.fromkeys(_EVERYWHERE, "show this text")),
    Command(
        "quit",
        {
            Mode.PLAYER: "leave; the game stays resumable ({resume})",
            Mode.WATCHER: "stop watching ({again})",
            Mode.LOCAL: "leave without finishing",
        },
    ),
)
"""Every command a person may type, in the order the help lists them."""
END_WORD = {kind: words.end_word for kind, words in GAME_WORDS.items()}
"""The word that proposes to end a game before its end, in each game."""
SCREEN_COMMANDS = ("help", *(command.name for command in COMMANDS if command.screen), "quit")
"""The commands the full screen runs itself, at every table (a table adds its own)."""
_BY_NAME = {command.name: command for command in COMMANDS if not command.screen}
_ALIASES = {"propose": END, "yes": "rematch", **{word: END for word in END_WORD.values()}}


@dataclass(frozen=True, slots=True)
class Typed:
    """One typed line: an ``intent`` to act on, a ``local`` command (help, legal, board, formations, hint, clock, quit),
    or a ``problem``."""

    intent: Intent | None = None
    local: str | None = None
    problem: str | None = None


def kind_of(game: Game) -> GameKind | None:
    """``game``'s kind, or ``None`` while its offer has not come (a network game's core knows it only then)."""
    try:
        return game.kind
    except LookupError:
        return None


def _name(command: Command, kind: GameKind | None) -> str | None:
    if command.name != END:
        return command.name
    return END_WORD[kind] if kind is not None else None


def available(game: Game) -> list[Command]:
    """The commands of ``game``'s mode, in the help's order (before the offer, none that needs the game's kind)."""
    mode, kind = mode_of(game), kind_of(game)
    return [
        command
        for command in COMMANDS
        if mode in command.helps
        and _name(command, kind) is not None
        and (not command.olix or kind == GameKind.OLIX)
        and not command.screen
    ]


def command_names(game: Game) -> list[str]:
    """The names of ``game``'s commands, its own end word among them."""
    kind = kind_of(game)
    return [name for command in available(game) if (name := _name(command, kind)) is not None]


def players_only() -> list[str]:
    """The commands a network game's players have and its watchers have not (every game's end word among them)."""
    names: list[str] = []
    for command in COMMANDS:
        if Mode.PLAYER in command.helps and Mode.WATCHER not in command.helps:
            names.extend(END_WORD.values() if command.name == END else [command.name])
    return names


def _help_of(command: Command, game: Game, mode: Mode) -> str:
    if command.name == END:
        words = GAME_WORDS[game.kind]  # known: the end word is listed only then
        if mode is Mode.PLAYER:
            return f"{words.end_help} (it stands until answered or withdrawn)"
        return f"{words.end_help} ({'the bot is asked' if getattr(game, 'bot', None) else 'both of you agree'})"
    if command.name == "resign" and mode is Mode.LOCAL and getattr(game, "bot", None) is None:
        return "give up the game: the player to move resigns"
    return command.helps[mode].format(
        resume=resume_text(game.game_id), again=watch_again_text(game.game_id, getattr(game, "reach", ""))
    )


def help_rows(game: Game, *, slash: bool = False, skip: tuple[str, ...] = ()) -> list[str]:
    """One row per command of ``game``'s mode: the name (with ``/`` on the screen), its argument, its help."""
    mode, prefix = mode_of(game), ("/" if slash else "")
    rows = []
    for command, name in zip(available(game), command_names(game), strict=True):
        if name in skip:
            continue
        typed = f"{prefix}{name}" + (f" {command.usage}" if command.usage else "")
        rows.append(help_row(typed, _help_of(command, game, mode), slash=slash))
    return rows


def help_row(typed: str, text: str, *, slash: bool = False) -> str:
    """One row of a help: what is typed, then what it does, in the column every row shares."""
    return f"  {typed:<{20 if slash else 14}} {text}"


def help_text(game: Game) -> str:
    """The line consoles' help: how a move is written, then every command."""
    if game.watching:
        head = "Watching: every line is checked as the players check it. Commands:"
    else:
        head = f"Type a move ({example_of(game)}), or one of:"
    return "\n".join([head, *help_rows(game)])


def example_of(game: Game) -> str:
    """How a move is written in ``game`` (in both games, before its offer tells which)."""
    kind = kind_of(game)
    if kind is None:
        return "; ".join(f"{name}: {words.example}" for name, words in GAME_WORDS.items())
    return GAME_WORDS[kind].example


def leaving_sentence(game: Game) -> str:
    """:func:`leaving_text` as a sentence of its own, said once the console is gone."""
    words = leaving_text(game)
    return f"{words[0].upper()}{words[1:]}."


def leaving_text(game: Game) -> str:
    """What leaving means: a player's game stays resumable; a watcher can watch again."""
    if game.watching:
        return f"stopped watching; {watch_again_text(game.game_id, getattr(game, 'reach', ''))}"
    return f"left the game; {resume_text(game.game_id)}"


def parse(text: str, game: Game) -> Typed:
    """What ``text`` asks for; a problem sentence for text that is none of it (nothing is ever sent for it)."""
    line = text.strip()
    if not line:
        return Typed()
    word, _, rest = line.partition(" ")
    name = word.lower().removeprefix("/")  # with or without the screen's /: both, everywhere
    kind = kind_of(game)
    if name == "say":
        if not rest.strip():
            return Typed(problem="say what? Type say and your message, e.g. say good game")
        return Typed(Intent(IntentKind.CHAT, rest.strip()))
    if name == "watchers":
        if mode_of(game) is not Mode.PLAYER:
            return Typed(problem=WATCHERS_REFUSAL)
        if rest.strip().lower() not in ("on", "off"):
            return Typed(problem="watchers off hides what the watchers say; watchers on shows it again")
        return Typed(Intent(IntentKind.WATCHERS, rest.strip().lower()))
    if name == "takeback" and rest.strip():
        if rest.strip().lower() != "no" or mode_of(game) is not Mode.PLAYER:
            return Typed(problem="takeback asks for a takeback or agrees to one; takeback no refuses it")
        return Typed(Intent(IntentKind.TAKEBACK, "no"))
    if name in END_WORD.values() and kind is not None and name != END_WORD[kind]:
        return Typed(problem=f"{name} is not an {kind} command: type {END_WORD[kind]} to propose ending the game")
    command = _BY_NAME.get(_ALIASES[name]) if name in _ALIASES else _BY_NAME.get(name) if name != END else None
    if command is not None and not rest:
        if command.refusal and mode_of(game) not in command.helps:
            return Typed(problem=command.refusal)
        if command.olix and kind != GameKind.OLIX:
            return Typed(problem=f"{name} is an Olix command: this game is {kind or 'not known yet'}")
        return Typed(local=name) if command.intent is None else Typed(Intent(command.intent))
    board = game.board
    if board is not None and " " not in line:
        try:
            board.parse_move(line)
        except ValueError:
            pass
        else:
            return Typed(Intent(IntentKind.MOVE, line))
    return Typed(problem=f"not a move or a command: {line[:40]!r} ({example_of(game)}; help lists the commands)")


def behind_text(game: Game) -> str | None:
    """Olix: how ending now would lose for the player who proposes it (the one at this terminal, or at a table of two
    the player to move), counted on markers as the game stands: ``first holds 1 marker, second 2: second leads``;
    ``None`` when it would not (level, ahead, or not Olix)."""
    board = game.board
    if not isinstance(board, OlixBoard) or not game.started or game.over:
        return None
    player = getattr(game, "my_player", None) if not game.local else getattr(game, "human", None)
    if player is None or (game.local and getattr(game, "bot", None) is None):
        player = board.turn
    scoreboard = board.scoreboard()
    leader = scoreboard.leader()
    if leader is None or leader == player:
        return None
    other = next(name for name in board.PLAYERS if name != player)
    mine, theirs = len(scoreboard.positions(player)), len(scoreboard.positions(other))
    return f"{player} holds {mine} marker{'' if mine == 1 else 's'}, {other} {theirs}: {leader} leads" + (
        "" if mine != theirs else " on the higher fields"
    )


def question(text: str, game: Game, *, slash: bool = False) -> str | None:
    """What a console asks before it acts on ``text`` (the very next line, the same command, confirms it): a
    resignation; Olix's proposal to end while behind on markers, which loses once agreed. ``None``: act at once.
    The line consoles and the full screen (``slash``: its commands are said with their ``/``) ask alike; ``--plain``
    asks nothing (a script answers nothing)."""
    typed = parse(text, game)
    intent, word = typed.intent, ("/" if slash else "") + text.strip().split(" ")[0].lower().removeprefix("/")
    if intent is None or game.over:
        return None
    if intent.kind is IntentKind.RESIGN:
        return f"Resign and lose the game? Type {word} again to confirm."
    behind = behind_text(game) if intent.kind is IntentKind.PROPOSE else None
    if behind is not None:
        return f"Ending now loses on markers ({behind}). Type {word} again to propose it anyway."
    return None


def same_line(one: str, other: str) -> bool:
    """Whether two typed lines ask the same (any letter case, with or without the ``/``): the second confirms the
    first's :func:`question`."""
    return one.strip().lower().removeprefix("/") == other.strip().lower().removeprefix("/")


class ScreenDo(enum.Enum):
    """What a line typed at the full screen does (:func:`screen_typed`)."""

    MOVE = "move"
    """Hand the text to the table as a move (in a replay, a move number)."""
    COMMAND = "command"
    """Hand one of the table's own commands to the table."""
    HELP = "help"
    FLIP = "flip"
    MOVES = "moves"
    QUIT = "quit"
    """Leave (asked to confirm first where the table says leaving may cost the game)."""
    ASK = "ask"
    """Ask to confirm first (:func:`question`): the same line, typed next, acts."""
    REFUSE = "refuse"
    """Say why nothing is done: the command cannot be used here, or there is none of that name."""


@dataclass(frozen=True, slots=True)
class ScreenTyped:
    """What one line typed at the full screen does: ``what``; a table's ``command`` with its ``rest``; the ``text``
    of a move, of a refusal or of a question."""

    what: ScreenDo
    command: str = ""
    rest: str = ""
    text: str = ""


def screen_rows() -> list[tuple[str, str]]:
    """The full screen's own commands that :data:`COMMANDS` lists (``/flip``, ``/moves``), each with its help (the
    same in every mode)."""
    return [(f"/{command.name}", command.helps[Mode.PLAYER]) for command in COMMANDS if command.screen]


def screen_typed(
    text: str,
    *,
    commands: tuple[str, ...],
    refused: Mapping[str, str] | None = None,
    game: Game | None = None,
    asked: str | None = None,
) -> ScreenTyped:
    """What ``text`` (stripped) does at the full screen, whose table has its own ``commands`` besides
    :data:`SCREEN_COMMANDS` and ``refused`` ones (each with the sentence that says why): text without a ``/`` that
    is no command is a move; a command of the table's asks first where :func:`question` does (from ``game``, the
    game typed into), unless ``asked``, the line typed just before, asked it."""
    name, _, rest = text.removeprefix("/").partition(" ")
    name = name.lower()
    if refused and name in refused:
        return ScreenTyped(ScreenDo.REFUSE, text=refused[name])
    if name not in commands and name not in SCREEN_COMMANDS:
        if not text.startswith("/"):
            return ScreenTyped(ScreenDo.MOVE, text=text)
        return ScreenTyped(ScreenDo.REFUSE, text=f"no command /{name}: /help lists them")
    if name in SCREEN_COMMANDS:
        return ScreenTyped(ScreenDo(name))
    if game is not None and not (asked is not None and same_line(asked, text)):
        asking = question(text, game, slash=True)
        if asking is not None:
            return ScreenTyped(ScreenDo.ASK, text=asking)
    return ScreenTyped(ScreenDo.COMMAND, name, rest.strip())


def legal_text(game: Game) -> str:
    board = game.board
    if board is None or not game.started:
        return "no moves yet: the seats are not drawn"
    if game.over:
        return "no moves: the game is over"
    return " ".join(sorted(move.text() for move in board.legal_moves()))


def formations_text(board: OlixBoard) -> str:
    """Each player's best formation of each type: its value and its squares (``O=0`` when there is none)."""
    lines = []
    for player in board.PLAYERS:
        parts = [
            f"{kind}={formation.value}" + (f" ({' '.join(formation.square_names())})" if formation.value else "")
            for kind, formation in board.formations(player).items()
        ]
        lines.append(f"{player}: {', '.join(parts)}")
    return "\n".join(lines)


def shown(game: Game, name: str) -> str:
    """What a command that only shows something shows (``legal``, ``board``, ``formations``, ``help``; a network
    game's ``clock`` is :func:`client.words.network.shown_now`'s)."""
    board = game.board
    if name == "legal":
        return legal_text(game)
    if name == "board":
        return board_text(board) if board is not None else "no board yet: the offer has not arrived"
    if name == "formations":
        return formations_text(board) if isinstance(board, OlixBoard) else "no formations: this game is not Olix"
    if name == "clock":
        return "a game at one terminal has no clock"
    return help_text(game)


def segments(moves: list[str], word: str, kind: GameKind) -> list[str]:
    """The completions of ``word`` among ``moves``: whole Olix squares (``k1`` offers ``k1 k10 k11``); in Oxono the
    next segment only (``""`` offers the totems, ``O`` where totem O may go, ``Oc6`` the pawn squares)."""
    matching = [move for move in moves if move.lower().startswith(word.lower())]
    lengths = GAME_WORDS[kind].segments
    if lengths is None:
        return matching
    end = next((length for length in lengths if length > len(word)), lengths[-1])
    return sorted({move[:end] for move in matching})


def candidates(
    word: str, *, board: Board[Any] | None, movable: bool, commands: list[str], slash: bool = False
) -> list[str]:
    """What Tab offers for ``word``: the legal moves (a segment at a time in Oxono) when the person may move, and the
    commands (``/legal`` on the screen, ``legal`` in the line console)."""
    moves: list[str] = []
    if board is not None and movable and not word.startswith("/"):
        moves = segments(sorted(move.text() for move in board.legal_moves()), word, board.KIND)
    return moves + [f"/{name}" if slash else name for name in commands]


def completions(game: Game, word: str = "") -> list[str]:
    """What the line console's Tab offers: the legal moves when it is this player's turn, and the commands."""
    return candidates(word, board=game.board, movable=game.my_turn, commands=command_names(game))


def completer(offer: Callable[[str], list[str]]) -> Completer:
    """A prompt-toolkit completer of what ``offer(word)`` gives for the word before the cursor (the line console's
    and the screen's: one completer)."""
    from prompt_toolkit.completion import Completer

    class Offered(Completer):
        def get_completions(self, document: Document, complete_event: Any) -> Iterator[Completion]:
            return completing(document, offer)

    return Offered()


async def handle_typed(seat: Seat, text: str, write: Write, show: Callable[[str], str | None] | None = None) -> bool:
    """Act on one typed line (the same in every front end that reads lines); ``False`` when the person asked to
    quit. ``show``: what a command that only shows something shows where :func:`shown` cannot say (a network game's
    ``clock``: :func:`client.words.network.shown_now`)."""
    core = seat.core
    typed = parse(text, core)
    if typed.problem is not None:
        write(f"error: {typed.problem}")
    elif typed.local == "quit":
        return False
    elif typed.local is not None:
        write((show(typed.local) if show is not None else None) or shown(core, typed.local))
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
