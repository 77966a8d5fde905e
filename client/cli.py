"""The ``olixono`` command: one entry point that hands each subcommand to the package that owns it."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, assert_never

from client.words.bell import bell_wanted
from olixono.analysis import DEFAULT_ITERATIONS, MISS_DROP, WON_VALUE
from olixono.arguments import option_strings, protect_ids
from olixono.bots import BOTS, LEVELS, PEOPLE_LEVELS
from olixono.engine import EngineSession, run
from olixono.games import BOARDS

if TYPE_CHECKING:
    from client.flows.network import Options
    from olixono.analysis import Budget, GameAnalysis
    from protocol import GameSession
    from protocol.clock import TimeControl
    from relay.cli import Beside
    from relay.embedded import RelaySettings

DEFAULT_RELAY_TEXT = "mqtt://127.0.0.1:1883"
"""protocol.topics.DEFAULT_RELAY, written out so that ``--help`` and local play never import the protocol (a test
checks that the two agree)."""


PASSWORD_TRIES = 3
"""Passwords a person may type for a relay account before the command gives up (as sudo counts them)."""


def interruptible() -> None:
    """From here on Ctrl-C is the command's own (a KeyboardInterrupt it handles): everything is imported."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _engine(args: argparse.Namespace) -> int:
    session = EngineSession(
        kind=args.game, seed=args.seed, level=args.level, iterations=args.iterations, seconds=args.seconds
    )

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    interruptible()
    run(sys.stdin, write, session)
    return 0


@dataclass(frozen=True, slots=True)
class Front:
    """How a game is shown (:func:`_front_options`): ``--screen``, ``--line`` (never where the command has none),
    ``--plain``; none of them: the full screen where it can be drawn (:func:`full_screen`)."""

    screen: bool = False
    line: bool = False
    plain: bool = False

    @classmethod
    def parsed(cls, args: argparse.Namespace) -> Front:
        return cls(screen=args.screen, line=args.line, plain=args.plain)


def full_screen(front: Front, environ: dict[str, str] | None = None) -> bool:
    """Whether a command shows the full-screen console: asked for (``--screen``), or not refused (``--plain``,
    ``--line``) and both stdin and stdout are terminals that can draw it (``TERM`` is not ``dumb``)."""
    if front.screen:
        return True
    if front.plain or front.line:
        return False
    env = os.environ if environ is None else environ
    return sys.stdin.isatty() and sys.stdout.isatty() and env.get("TERM", "") != "dumb"


def _play(args: argparse.Namespace) -> int:
    from client.frontends.local_plain import play_local
    from client.shell.local_record import LocalRecord
    from client.words.board import export_command

    interruptible()
    vs = args.level or args.vs
    record = LocalRecord(args.game, vs=vs)  # kept in the journal folder, as a network game is
    try:
        if full_screen(Front.parsed(args)):
            import asyncio

            from client.frontends.local_screen import LocalTable
            from client.frontends.screen import run_screen

            table = LocalTable(
                args.game,
                vs=vs,
                human=args.seat,
                seed=args.seed,
                iterations=args.iterations,
                seconds=args.seconds,
                record=record,
            )
            status = asyncio.run(run_screen(table, bell=bell_wanted(args.no_bell, os.environ)))
            for line in table.afterwards():  # after the screen: it stays in the scrollback
                print(line)
            return status
        play_local(
            args.game,
            vs=vs,
            human=args.seat,
            seed=args.seed,
            iterations=args.iterations,
            seconds=args.seconds,
            record=record,
        )
    except KeyboardInterrupt:
        kept = record.game
        print("\nInterrupted; the game was not finished" + (f" (it is kept: {export_command(kept)})." if kept else "."))
        return 130
    except ValueError as exc:  # a bad --as seat for this game, or a budget for a level that takes none
        print(f"olixono play: {exc}", file=sys.stderr)
        return 2
    return 0


def _id(args: argparse.Namespace) -> int:
    from client.shell.identity import IdentityError, get_identity, identity_path

    path = identity_path()
    try:
        identity, created = get_identity(path)
    except (IdentityError, OSError) as exc:
        print(f"olixono id: {exc}", file=sys.stderr)
        return 1
    if created:
        print(f"Created a new identity in {path}")
    print(f"fingerprint: {identity.fingerprint}")
    print(f"public key:  {identity.public.text}")
    print(f"key file:    {path}")
    return 0


FILE_HELP = (
    "the transcript: one signed message a line ('-' for stdin); or the id of a game kept on this machine "
    "(olixono history lists them), its record read from the journal"
)


def _verify(args: argparse.Namespace) -> int:
    from client.flows.verify import verify_file

    status, text = verify_file(args.file)
    print(text, file=sys.stderr if status == 1 else sys.stdout)
    return status


def _history(args: argparse.Namespace) -> int:
    from client.flows.history import history

    return history()


def _verified(args: argparse.Namespace) -> tuple[int, str, GameSession | None]:
    """``args.file`` checked as ``olixono verify`` checks it (a game kept on this machine, when it names one by its id
    and no file); a bad one's errors printed as verify prints them."""
    from client.flows.verify import load

    status, text, session = load(args.file)
    if session is None:
        print(text.replace("olixono verify:", f"olixono {args.command}:", 1), file=sys.stderr)
    return status, text, session


def _budget(args: argparse.Namespace) -> Budget:
    from olixono.analysis import DEFAULT_BUDGET, Budget

    return DEFAULT_BUDGET if args.iterations is None and args.seconds is None else Budget(args.iterations, args.seconds)


def _replay(args: argparse.Namespace) -> int:
    status, text, session = _verified(args)
    if session is None:
        return status
    if not full_screen(Front.parsed(args)):
        from client.frontends.replay import replay_lines

        interruptible()
        try:
            analysis = _analysed(args, session) if args.analyze else None
        except KeyboardInterrupt:
            print("\nInterrupted.", file=sys.stderr)
            return 130
        print("\n".join(replay_lines(session, text, analysis)))
        return 0
    import asyncio

    from client.frontends.replay import ReplayTable
    from client.frontends.screen import run_screen

    table = ReplayTable(session, text, analyze=args.analyze, budget=_budget(args), seed=args.seed)
    return asyncio.run(run_screen(table, notes=[text]))


def _analysed(args: argparse.Namespace, session: GameSession) -> GameAnalysis:
    """The analysis of ``session`` (``--iterations``, ``--seconds``, ``--seed``), its progress on stderr when that is
    a terminal."""
    from client.flows.analyze import analyse_session, progress_bar

    return analyse_session(session, _budget(args), args.seed, progress_bar(sys.stderr))


def _analyze(args: argparse.Namespace) -> int:
    status, text, session = _verified(args)
    if session is None:
        return status
    from client.flows.analyze import report

    interruptible()
    try:
        analysis = _analysed(args, session)
    except KeyboardInterrupt:
        print("\nInterrupted: nothing was printed.", file=sys.stderr)
        return 130
    print(report(session, text, analysis, as_json=args.json))
    return status


# -- the network commands' arguments, typed: each read from argparse's namespace in one place ---------------------
@dataclass(frozen=True, slots=True)
class Relaying:
    """Where a network command goes (:func:`_relay_options`): ``--relay`` (once or more), ``--cafile``,
    ``--timeout``."""

    relay: tuple[str, ...]
    cafile: Path | None
    timeout: float | None

    @classmethod
    def parsed(cls, args: argparse.Namespace) -> Relaying:
        return cls(relay=tuple(args.relay or ()), cafile=args.cafile, timeout=args.timeout)


@dataclass(frozen=True, slots=True)
class Seat:
    """How a player's seat is held (:func:`_seat_options`): by a person (``--screen``, ``--line``, ``--plain``,
    ``--no-bell``) or by a bot (``--bot``, ``--level``, ``--seed``, ``--iterations``, ``--seconds``); its claims
    on time (``--claim``) and the watchers' talk (``--no-watchers-chat``). The defaults are a command's that has
    no seat."""

    front: Front = Front()
    no_bell: bool = False
    bot: str | None = None
    level: str | None = None
    seed: int | None = None
    iterations: int | None = None
    seconds: float | None = None
    claim: str = "ask"
    no_watchers_chat: bool = False

    @classmethod
    def parsed(cls, args: argparse.Namespace) -> Seat:
        return cls(
            front=Front.parsed(args),
            no_bell=args.no_bell,
            bot=args.bot,
            level=args.level,
            seed=args.seed,
            iterations=args.iterations,
            seconds=args.seconds,
            claim=args.claim,
            no_watchers_chat=args.no_watchers_chat,
        )


@dataclass(frozen=True, slots=True)
class Host:
    """``olixono host GAME``."""

    game: str
    invite: str | None
    clock: TimeControl | None
    days: TimeControl | None
    witness: tuple[str, ...]
    relaying: Relaying
    seat: Seat


@dataclass(frozen=True, slots=True)
class Join:
    """``olixono join GAME``."""

    id: str
    relaying: Relaying
    seat: Seat


@dataclass(frozen=True, slots=True)
class Watch:
    """``olixono watch GAME``."""

    id: str
    relaying: Relaying
    front: Front


@dataclass(frozen=True, slots=True)
class Resume:
    """``olixono resume [GAME]`` (no game: list the unfinished ones)."""

    id: str | None
    relaying: Relaying
    seat: Seat


@dataclass(frozen=True, slots=True)
class Games:
    """``olixono games``."""

    all: bool
    relaying: Relaying


@dataclass(frozen=True, slots=True)
class Export:
    """``olixono export GAME``."""

    id: str
    anyway: bool
    relaying: Relaying


@dataclass(frozen=True, slots=True)
class Relays:
    """``olixono relays``."""

    check: bool
    public: bool
    relaying: Relaying


@dataclass(frozen=True, slots=True)
class Witness:
    """``olixono witness``."""

    key: Path | None
    max_games: int | None
    relaying: Relaying


NetworkCommand = Host | Join | Watch | Resume | Games | Export | Relays | Witness


def network_arguments(args: argparse.Namespace) -> NetworkCommand:
    """A network command's typed arguments, read from the namespace its parser fills (``args.command`` names it)."""
    relaying = Relaying.parsed(args)
    match args.command:
        case "host":
            return Host(
                game=args.game,
                invite=args.invite,
                clock=args.clock,
                days=args.days,
                witness=tuple(args.witness or ()),
                relaying=relaying,
                seat=Seat.parsed(args),
            )
        case "join":
            return Join(id=args.id, relaying=relaying, seat=Seat.parsed(args))
        case "watch":
            return Watch(id=args.id, relaying=relaying, front=Front.parsed(args))
        case "resume":
            return Resume(id=args.id, relaying=relaying, seat=Seat.parsed(args))
        case "games":
            return Games(all=args.all, relaying=relaying)
        case "export":
            return Export(id=args.id, anyway=args.anyway, relaying=relaying)
        case "relays":
            return Relays(check=args.check, public=args.public, relaying=relaying)
        case "witness":
            return Witness(key=args.key, max_games=args.max_games, relaying=relaying)
    raise ValueError(f"{args.command!r} is no network command")


def _seat_of(command: NetworkCommand) -> Seat:
    """The seat a command holds; a watch's is nobody's, shown as asked; a lookup's is shown as by default."""
    match command:
        case Host(seat=seat) | Join(seat=seat) | Resume(seat=seat):
            return seat
        case Watch(front=front):
            return Seat(front=front)
        case _:
            return Seat()


def _network_options(command: NetworkCommand) -> Options:
    """What :mod:`client.flows.network` is given for ``command``: its options, and the front end they choose."""
    from client.flows import network

    seat = _seat_of(command)
    bot = seat.level or seat.bot
    screen = full_screen(seat.front) and bot is None
    plain = seat.front.plain or not (screen or seat.front.line)  # no terminal: plain
    relaying = command.relaying
    options = network.Options(
        relay=" ".join(relaying.relay) or None,
        cafile=relaying.cafile,
        timeout=relaying.timeout,
        plain=plain,
        bot=bot,
        iterations=seat.iterations,
        seconds=seat.seconds,
        seed=seat.seed,
        auto_claim=seat.claim == "auto",
        commands=sys.stdin if plain else None,
        screen=screen,
        watchers_chat=not seat.no_watchers_chat,
        bell=not plain and bell_wanted(seat.no_bell, os.environ),
    )
    match command:
        case Host():
            return replace(
                options, invite=command.invite, control=command.clock or command.days, witnesses=list(command.witness)
            )
        case Games():
            return replace(options, all_games=command.all)
        case Export():
            return replace(options, anyway=command.anyway)
        case Relays():
            return replace(options, check=command.check, public=command.public)
        case _:
            return options


def _network_run(command: NetworkCommand, options: Options) -> Coroutine[Any, Any, int]:
    """The flow of :mod:`client.flows.network` that runs ``command``."""
    from client.flows import network

    match command:
        case Host():
            return network.host(command.game, options)
        case Join():
            return network.join(command.id, options)
        case Watch():
            return network.watch(command.id, options)
        case Resume():
            return network.resume(command.id, options)
        case Games():
            return network.games(options)
        case Export():
            return network.export(command.id, options)
        case Relays():
            return network.relays(options)
        case Witness():
            return network.witness(options, command.key, command.max_games)
        case _:
            assert_never(command)


def _network(args: argparse.Namespace) -> int:
    """Run one of the network commands (``host``, ``join``, ``watch``, ``resume``, ``games``, ``export``,
    ``relays``, ``witness``)."""
    import asyncio

    from client.flows import network

    name: str = args.command
    command = network_arguments(args)
    options = _network_options(command)
    if options.bot is None and (options.iterations is not None or options.seconds is not None):
        print(f"olixono {name}: --iterations and --seconds set a --bot's (or --level's) budget", file=sys.stderr)
        return 2
    interruptible()  # what is imported from here on is imported inside asyncio.run: its Ctrl-C is caught below
    typed = 0  # passwords typed at the prompt so far
    while True:
        try:
            return asyncio.run(_network_run(command, options))
        except network.NeedsPassword as need:
            wrong = isinstance(need, network.PasswordRefused)
            if (wrong and not typed) or typed == PASSWORD_TRIES or not sys.stdin.isatty():
                where = (
                    ""
                    if wrong and not typed
                    else f" ({PASSWORD_TRIES} tries)"
                    if typed
                    else " (no terminal here to ask on: set it in OLIXONO_RELAY_PASSWORD)"
                )
                print(f"olixono {name}: {need}{where}", file=sys.stderr)
                return 1
            if wrong:
                print("The relay refused that password; try again.", file=sys.stderr)
            try:  # hidden, and outside the event loop: one Ctrl-C leaves
                options.environ[network.PASSWORD_VARIABLE] = getpass.getpass(f"Relay password for {need.account}: ")
            except (KeyboardInterrupt, EOFError):
                print("\nInterrupted: nothing was sent.", file=sys.stderr)
                return 130
            typed += 1
        except network.Failure as exc:
            print(f"olixono {name}: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print(f"\n{_interrupted(command)}", file=sys.stderr)
            _leave_at_once(130)


def _relay_witness(witness_key: Path | None, settings: RelaySettings) -> Beside:
    """``olixono relay --witness``: the time witness beside the relay (:func:`client.flows.network.relay_witness`)."""
    from client.flows import network

    try:
        return network.relay_witness(witness_key, settings)
    except network.Failure as exc:
        print(f"olixono relay: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


def _leave_at_once(status: int) -> NoReturn:
    """End an interrupted command now. A Ctrl-C can come while aiomqtt is making a connection, which it leaves
    half-made (its task and socket) when cancelled; cleaned up at the interpreter's exit, it would print a traceback
    under "Interrupted.". Everything the command keeps (the journal, the log) is written and closed by then."""
    import logging
    import os

    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _interrupted(command: NetworkCommand) -> str:
    """What a Ctrl-C leaves: a seat's game stays resumable (its journal has it), a watch or a lookup nothing."""
    from client.shell.journal import JournalError, journals

    match command:
        case Host():  # its game's id is in no argument: any journal may be its own
            game = None
        case Join(id=game) | Resume(id=game):
            pass
        case _:
            return "Interrupted."
    try:
        if any(journal.meta.game == game or isinstance(command, Host) for journal in journals()):
            return f"Interrupted; the game stays resumable (olixono resume{' ' + game if game else ''})."
    except (JournalError, OSError):
        pass
    return "Interrupted."


def _live_control(text: str) -> TimeControl:
    from protocol.clock import TimeControl

    try:
        return TimeControl.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _correspondence(text: str) -> TimeControl:
    from protocol.clock import TimeControl

    try:
        return TimeControl.correspondence(int(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc) if text.isdigit() else f"{text!r} is no number of days") from None


def _seconds_option(text: str) -> float:
    return _positive_float(text)


def _relay_options(parser: argparse.ArgumentParser, offer: bool = False) -> None:
    parser.add_argument(
        "--relay",
        metavar="URL",
        action="append",
        help="the relay: mqtt://[user@]host[:port] or mqtts://… (default: $OLIXONO_RELAY, else the "
        f"settings file's relays, else {DEFAULT_RELAY_TEXT}); on a private relay the password comes from "
        "$OLIXONO_RELAY_PASSWORD or a hidden prompt. Given more than once, the game travels over "
        "every relay named at once, and goes on while one of them works; `public` names the "
        "public brokers (olixono relays --public)",
    )
    parser.add_argument(
        "--cafile", type=Path, metavar="FILE", help="trust this CA for an mqtts:// relay (default: the system's)"
    )
    parser.add_argument(
        "--timeout",
        type=_seconds_option,
        metavar="S",
        help="give up when the relay stays unreachable this long"
        + (
            ", or the game's offer does not come (default: wait for the relay; 10 s for the offer)"
            if offer
            else " (default: wait for it)"
        ),
    )


def _front_options(parser: argparse.ArgumentParser, plain: str, line: bool = True) -> None:
    """How the game is shown: the full screen where stdin and stdout are terminals, else (or when asked) plain."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--screen",
        action="store_true",
        help="the full-screen console: board, moves, log and input where they stay; commands start "
        "with / (the default when stdin and stdout are terminals and TERM is not dumb)",
    )
    if line:
        group.add_argument(
            "--line", action="store_true", help="the line console: one prompt, the board printed after every move"
        )
    else:
        parser.set_defaults(line=False)
    group.add_argument("--plain", action="store_true", help=f"{plain}; the default without a terminal")


def _bell_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-bell",
        action="store_true",
        help="no terminal bell when the turn becomes yours or a claim on time is made against you "
        "(the consoles ring it; --plain never does; NO_BELL=1 silences it too)",
    )


def _seat_options(parser: argparse.ArgumentParser) -> None:
    _front_options(
        parser,
        "no console: print one event a line, in words, for screen readers, pipes and scripts; "
        "read commands from stdin (held until the seats are drawn); exit 0 when the game ends, 3 "
        "when you leave before it ends, 4 when a player's proof of equivocation was seen, 1 when "
        "it cannot go on (docs/plain.md lists every line)",
    )
    _bell_option(parser)
    bots = parser.add_mutually_exclusive_group()
    bots.add_argument(
        "--bot",
        choices=BOTS,
        metavar="BOT",
        help=f"a bot holds your seat ({', '.join(BOTS)}), printing events as --plain does",
    )
    bots.add_argument("--level", choices=PEOPLE_LEVELS, help=f"a bot of this level holds your seat ({LEVELS_HELP})")
    parser.add_argument("--seed", type=int, help="seed for the bot (default: random)")
    parser.add_argument(
        "--claim",
        choices=("ask", "auto"),
        default="ask",
        help="claims on time: ask (the default: you type claim when your opponent's time has run out) "
        "or auto (they are signed for you as soon as it has, and the game ended once the window "
        "to answer has passed; a --bot seat claims only with auto)",
    )
    parser.add_argument(
        "--no-watchers-chat",
        action="store_true",
        help="hide what the watchers say (watchers on shows it during the game)",
    )
    _budget_options(parser)


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {text}")
    return value


def _witness_games(text: str) -> int:
    value = _positive_int(text)
    if value > 30:
        raise argparse.ArgumentTypeError(
            f"at most 30 (an embedded relay lets a connection subscribe to 32 topic "
            f"filters, the lobby's two among them), not {value}"
        )
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


LEVELS_HELP = "; ".join(f"{level.name}: {level.summary}" for level in PEOPLE_LEVELS.values())
"""The levels a person chooses, in a few words each (docs/levels.md has their measured strength)."""


def _budget_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--iterations",
        type=_positive_int,
        metavar="N",
        help="the bot's search budget: iterations per move, in place of its level's (mcts: 2000 when no --seconds)",
    )
    parser.add_argument(
        "--seconds",
        type=_positive_float,
        metavar="S",
        help="the bot's search budget: seconds per move, in place of its level's (with --iterations, "
        "whichever ends first)",
    )


def _analysis_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--iterations",
        type=_positive_int,
        metavar="N",
        help=f"search iterations per position (default {DEFAULT_ITERATIONS} when no --seconds): the "
        "same analysis on any machine",
    )
    parser.add_argument(
        "--seconds",
        type=_positive_float,
        metavar="S",
        help="search seconds per position (with --iterations, whichever ends first)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="olixono",
        description="Oxono and Olix: exact rules engines; local play and signed network play through any MQTT relay.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    engine = sub.add_parser(
        "engine",
        help="the engine text interface on stdin/stdout (GTP-style; try list_commands)",
        description="Drive either engine by text: one command a line, replies end with an empty line.",
    )
    engine.add_argument(
        "--game", choices=sorted(BOARDS), default="oxono", help="the game to start with (default oxono)"
    )
    engine.add_argument("--seed", type=int, default=0, help="seed of the bots behind genmove (default 0)")
    engine.add_argument(
        "--level", choices=LEVELS, default="random", help="the bot genmove uses when it names none (default random)"
    )
    _budget_options(engine)
    engine.set_defaults(func=_engine)

    play = sub.add_parser(
        "play",
        help="play a game at this terminal: two people taking turns, or against a bot",
        description="Play a game at this terminal, on the full screen (/help lists the commands) or with --plain at a "
        "prompt (help lists them there). hint asks the search for the best move (here only: never in a network "
        "game).",
    )
    play.add_argument("game", choices=sorted(BOARDS), help="which game")
    opponent = play.add_mutually_exclusive_group()
    opponent.add_argument(
        "--level",
        choices=PEOPLE_LEVELS,
        help=f"play against a bot of this level instead of a second person ({LEVELS_HELP})",
    )
    opponent.add_argument(
        "--vs",
        choices=BOTS,
        metavar="BOT",
        help=f"play against this bot instead of a second person ({', '.join(BOTS)}); --vs easy is --level easy",
    )
    play.add_argument(
        "--as",
        dest="seat",
        metavar="SEAT",
        help="your seat against a bot (pink/black, first/second; default: the first)",
    )
    play.add_argument("--seed", type=int, help="seed for the bot (default: random)")
    _front_options(play, "one prompt, the board printed after every move, commands without the /", line=False)
    _bell_option(play)
    _budget_options(play)
    play.set_defaults(func=_play)

    ident = sub.add_parser(
        "id",
        help="show your identity (an Ed25519 key, created on first use)",
        description="Show your fingerprint and public key; create the key on first use "
        "($XDG_CONFIG_HOME/olixono/identity, readable by you only).",
    )
    ident.set_defaults(func=_id)

    verify = sub.add_parser(
        "verify",
        help="check a game transcript offline",
        description="Check every line of a transcript: grammar, signatures, seats, hash chain, legality. "
        "Prints what game it holds, whether it is finished, and whose confirmations agree with its ending. Exit "
        "status: 0 for a finished game; 3 for a valid game that is not finished; 4 for a record that holds a "
        "player's proof of equivocation (two lines that cannot both stand: that player forfeits at that point); 1 "
        "for the first bad line (its number and reason) or a file that holds no game.",
    )
    verify.add_argument("file", metavar="FILE", help=FILE_HELP)
    verify.set_defaults(func=_verify)

    replay = sub.add_parser(
        "replay",
        help="step through a transcript on the full screen, after verify's checks",
        description="Check FILE as olixono verify does, then show its game one position at a time, from the start: "
        "→ or n the next move, ← or p the one before, Home / End the start and the end, a move number and Enter to "
        "jump there; a (or /analyze) analyses every move as olixono analyze does, in the background; q (or /quit) "
        "leaves. Without a terminal (or with --plain) print every move and the board after it.",
    )
    replay.add_argument("file", metavar="FILE", help=FILE_HELP)
    _front_options(replay, "print every move and the board after it", line=False)
    replay.add_argument(
        "--analyze",
        action="store_true",
        help="show olixono analyze's analysis beside the moves (the screen computes it in the "
        "background; --plain prints it under each move)",
    )
    _analysis_options(replay)
    replay.set_defaults(func=_replay)

    analyze = sub.add_parser(
        "analyze",
        help="weigh every move of a transcript with the search: blunders, missed wins, a summary",
        description="Check FILE as olixono verify does, then search every position and print, for each move, the move "
        "played, the search's best move there, the value before and after it (for the player who moved, from -1 lost "
        "to +1 won), and its mark; then each player's summary. Won and lost are proven where the search's solver (or "
        f"the rules) prove them, marked (proof); else judged by a value of at least {WON_VALUE} (or at most "
        f"-{WON_VALUE}), marked (value). A blunder turns a won position into a lost or drawn one; a missed win leaves "
        f"a won position unclear (its value down by {MISS_DROP} or more) or does not take a win in one "
        "(docs/analysis.md). Exit status: as olixono "
        "verify's (0 finished, 3 not finished, 4 a proof of equivocation: analysed all the same; 1 a bad file).",
    )
    analyze.add_argument("file", metavar="FILE", help=FILE_HELP)
    analyze.add_argument(
        "--json", action="store_true", help="one JSON document for other programs (its schema: docs/analysis.md)"
    )
    _analysis_options(analyze)
    analyze.set_defaults(func=_analyze)

    host = sub.add_parser(
        "host",
        help="host a network game: print the command your opponent types, then play",
        description="Offer a game on a relay, accept the first player who joins (or only --invite KEY), and play. "
        f"With no --relay and nothing answering at {DEFAULT_RELAY_TEXT}, a relay starts in this process.",
    )
    host.add_argument("game", choices=sorted(BOARDS), help="which game")
    host.add_argument("--invite", metavar="KEY", help="only this player (their public key, from `olixono id`) may join")
    timed = host.add_mutually_exclusive_group()
    timed.add_argument(
        "--clock",
        type=_live_control,
        metavar="MIN+S",
        help="a live time control: minutes for each side, then seconds added a move (5+3; 1:30+2 is a "
        "minute and a half); the clock comes from the signed moves, the same for every receiver",
    )
    timed.add_argument(
        "--days", type=_correspondence, metavar="N", help="a correspondence game: N days a move (at most 30)"
    )
    host.add_argument(
        "--witness",
        action="append",
        metavar="KEY",
        help="a time witness of the game (its key, as `olixono witness` or `olixono relay --witness` "
        "prints it; up to 3): clocks and claims are decided on when it saw each line, so that "
        "neither player's word decides them. Name one neither player runs",
    )
    _relay_options(host)
    _seat_options(host)
    host.set_defaults(func=_network)

    join = sub.add_parser(
        "join",
        help="join a game by its id and play",
        description="Join the game GAME (the id the host gave you) and play it.",
    )
    join.add_argument("id", metavar="GAME", help="the game's id")
    _relay_options(join, offer=True)
    _seat_options(join)
    join.set_defaults(func=_network)

    watch = sub.add_parser(
        "watch",
        help="watch a game by its id, checking every move",
        description="Follow the game GAME from its first line, checking every line as the players "
        "do. say TEXT talks with the other watchers (signed with your key, beside the "
        "game; the players see it unless they hide it).",
    )
    watch.add_argument("id", metavar="GAME", help="the game's id")
    _relay_options(watch, offer=True)
    _front_options(
        watch,
        "print one event a line, in words, and read commands (say TEXT, quit) from stdin, whose "
        "end ends no watch; exit 0 when the game ends or you quit, 4 when it ends with (or after) a "
        "player's proof of equivocation, 1 when it cannot go on",
    )
    watch.set_defaults(func=_network)

    resume = sub.add_parser(
        "resume",
        help="take up a game you left (with no id: list the unfinished ones)",
        description="Rebuild a game from your journal, publish again what the relay lacks, and play on.",
    )
    resume.add_argument("id", metavar="GAME", nargs="?", help="the game's id (none: list the unfinished games)")
    _relay_options(resume)
    _seat_options(resume)
    resume.set_defaults(func=_network)

    games = sub.add_parser(
        "games",
        help="list the open games on a relay",
        description="The open offers on the relay: id, kind, time control, the host's "
        "fingerprint, age, and whether it invites you or someone else. With --all, every other game too, with the "
        "result its players confirmed (by both, by one of them, or not yet).",
    )
    games.add_argument("--all", action="store_true", help="every game on the relay, not only the open offers")
    _relay_options(games)
    games.set_defaults(func=_network)

    history = sub.add_parser(
        "history",
        help="this machine's games, newest first (no relay): result and what to type to replay each",
        description="Every game kept on this machine, newest first, from the journals alone (no relay is asked): "
        "games at one terminal (olixono play) and network games, finished or not, each with its id, date, kind, "
        "opponent and result, and what to type to replay, analyze or export it (replay, analyze and verify take a "
        "kept game's id in place of a file). olixono games lists a relay's open offers.",
    )
    history.set_defaults(func=_history)

    export = sub.add_parser(
        "export",
        help="print a game's verified record (for olixono verify)",
        description="Print the verified record of GAME: its transcript and the lines of any proof "
        "of equivocation, from your journal (a damaged one is completed from the relay, or "
        "refused), else rebuilt from the relay. Exit status: 0; 4 when the record holds a player's "
        "proof of equivocation (the record is written all the same); 1 when it cannot be made.",
    )
    export.add_argument("id", metavar="GAME", help="the game's id")
    export.add_argument("--anyway", action="store_true", help="exit 0 even when the record holds a proof")
    _relay_options(export)
    export.set_defaults(func=_network)

    relays = sub.add_parser(
        "relays",
        help="show the relays a game goes through (and the public brokers)",
        description="The relays a game would go through, and where they were named: --relay (once or more), else "
        "$OLIXONO_RELAY (URLs apart by spaces), else `relays` in the settings file (~/.config/olixono/config.toml, "
        'such as relays = ["public"]), else the default. `public` names every public broker olixono keeps a '
        "list of, at once; --public shows them. Exit status with --check: 0 when every relay answers, 1 when one "
        "does not.",
    )
    relays.add_argument(
        "--check", action="store_true", help="ask each relay for a session now, and say what it answers"
    )
    relays.add_argument(
        "--public",
        action="store_true",
        help="the public brokers --relay public names: ports, TLS, and what their operators promise",
    )
    _relay_options(relays)
    relays.set_defaults(func=_network)

    witness = sub.add_parser(
        "witness",
        help="be a time witness on a relay: sign when each line of the games that name you came",
        description="Follow, on a relay, every game whose offer names this witness's key, and sign, line by line, "
        "when it saw each one: clocks and claims on time in those games are decided on its times, not on the "
        "players' word. It prints its key; a host names it with `olixono host GAME --witness KEY`. Runs until "
        "Ctrl-C; what it signed is kept in its state folder, so it goes on where it stopped.",
    )
    witness.add_argument(
        "--key",
        type=Path,
        metavar="FILE",
        help="the witness's key file (default: ~/.config/olixono/witness, made on first use; never "
        "your player identity)",
    )
    witness.add_argument(
        "--max-games",
        type=_witness_games,
        metavar="N",
        help="games followed at once, one subscription each (default 24, at most 30: an embedded "
        "relay refuses a connection more); more wait their turn",
    )
    _relay_options(witness)
    witness.set_defaults(func=_network)

    from relay.cli import add_subparser as add_relay
    from relay.cli import add_web_subparser

    add_relay(sub, witness=_relay_witness)
    add_web_subparser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(protect_ids(sys.argv[1:] if argv is None else argv, option_strings(parser)))
    command: Callable[[argparse.Namespace], int] = args.func
    try:
        return command(args)
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """Standard output's reader has gone (``olixono play oxono --plain | head -3``): end quietly, with the status a Unix
    tool that SIGPIPE ends has in the shell (141). What Python would still flush at its exit goes nowhere. (SIGPIPE
    itself stays ignored, as Python leaves it: a relay's socket that closes must be an error, not the process's end.)"""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
