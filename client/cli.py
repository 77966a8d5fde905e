"""The ``olixono`` command: one entry point that hands each subcommand to the package that owns it."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from olixono.bots import LEVELS
from olixono.engine import EngineSession, run
from olixono.games import BOARDS


def _engine(args: argparse.Namespace) -> int:
    session = EngineSession(
        kind=args.game, seed=args.seed, level=args.level, iterations=args.iterations, seconds=args.seconds
    )

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    run(sys.stdin, write, session)
    return 0


def _play(args: argparse.Namespace) -> int:
    from client.local import play_local

    try:
        play_local(
            args.game, vs=args.vs, human=args.seat, seed=args.seed, iterations=args.iterations, seconds=args.seconds
        )
    except KeyboardInterrupt:
        print("\nInterrupted; the game was not finished.")
        return 130
    except ValueError as exc:  # a bad --as seat for this game, or a budget for a level that takes none
        print(f"olixono play: {exc}", file=sys.stderr)
        return 2
    return 0


def _id(args: argparse.Namespace) -> int:
    from client.identity import IdentityError, get_identity, identity_path

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


def _verify(args: argparse.Namespace) -> int:
    from client.verify import verify_file

    status, text = verify_file(args.file)
    print(text, file=sys.stderr if status == 1 else sys.stdout)
    return status


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def _budget_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--iterations", type=_positive_int, metavar="N",
                        help="mcts budget: search iterations per move (default 2000 when no --seconds)")
    parser.add_argument("--seconds", type=_positive_float, metavar="S",
                        help="mcts budget: seconds per move (with --iterations, whichever ends first)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="olixono",
        description="Oxono and Olix: exact rules engines, local and (soon) signed network play.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    engine = sub.add_parser(
        "engine",
        help="the engine text interface on stdin/stdout (GTP-style; try list_commands)",
        description="Drive either engine by text: one command a line, replies end with an empty line.",
    )
    engine.add_argument("--game", choices=sorted(BOARDS), default="oxono", help="the game to start with (default oxono)")
    engine.add_argument("--seed", type=int, default=0, help="seed of the bots behind genmove (default 0)")
    engine.add_argument(
        "--level", choices=LEVELS, default="random", help="the bot genmove uses when it names none (default random)"
    )
    _budget_options(engine)
    engine.set_defaults(func=_engine)

    play = sub.add_parser(
        "play",
        help="play a game at this terminal: two people taking turns, or against a bot",
        description="Play a game at this terminal. Type help at the prompt for the commands.",
    )
    play.add_argument("game", choices=sorted(BOARDS), help="which game")
    play.add_argument(
        "--vs", choices=LEVELS, metavar="LEVEL", help=f"play against a bot ({', '.join(LEVELS)}) instead of a second person"
    )
    play.add_argument("--as", dest="seat", metavar="SEAT", help="your seat against a bot (pink/black, first/second; default: the first)")
    play.add_argument("--seed", type=int, help="seed for the bot (default: random)")
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
        "Prints what game it holds and whether it is finished. Exit status: 0 for a finished game; 3 for a valid "
        "game that is not finished; 1 for the first bad line (its number and reason) or a file that holds no game.",
    )
    verify.add_argument("file", help="the transcript: one signed message a line ('-' for stdin)")
    verify.set_defaults(func=_verify)

    from relay.cli import add_subparser as add_relay

    add_relay(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command: Callable[[argparse.Namespace], int] = args.func
    return command(args)


if __name__ == "__main__":
    sys.exit(main())
