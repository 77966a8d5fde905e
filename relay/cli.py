"""``olixono relay``: run the embedded relay, manage its accounts, write a Mosquitto configuration.

olixono relay [--host H] [--port N] [--users FILE] [--data DIR] [--tls-cert F --tls-key F] [--web PORT]
olixono relay adduser NAME --users FILE [--password-stdin]
olixono relay deluser NAME --users FILE
olixono relay mosquitto-config DIR [--users FILE] [--host H] [--port N] [--tls-cert F --tls-key F] [--web PORT]
                                   [--bridge-to HOST:PORT [--bridge-user bridge.NAME --bridge-password-file F]]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from olixono.arguments import option_strings, protect_ids
from relay import rules, users
from relay.rules import AUTOSAVE_CHANGES, DEFAULT_HOST, DEFAULT_PORT

if TYPE_CHECKING:
    from relay.embedded import EmbeddedRelay, RelaySettings


def _fail(message: str, code: int = 2) -> int:
    print(f"olixono relay: {message}", file=sys.stderr)
    return code


def _run(args: argparse.Namespace) -> int:
    from relay.embedded import OneLineFormatter, RelaySettings, serve  # amqtt is slow to import: only when a relay runs

    limits = rules.Limits(**{field: 0 if args.no_limits else getattr(args, field) for _, field, _, _ in LIMIT_OPTIONS})
    settings = RelaySettings(
        host=args.host,
        port=args.port,
        users_file=args.users,
        data_dir=args.data,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        limits=limits,
        web_port=args.web,
        web_readers=args.web_readers,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    beside = None
    if args.witness:
        if args.witness_hook is None:
            return _fail("--witness: the time witness is the olixono client's (run `olixono relay --witness`)")
        beside = args.witness_hook(args.witness_key, settings)
    try:
        settings.broker_config()  # check the options before starting anything
        asyncio.run(serve(settings, announce=lambda line: print(line, flush=True), beside=beside))
    except (ValueError, OSError) as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:  # a second Ctrl-C during shutdown
        return 130
    return 0


def _adduser(args: argparse.Namespace) -> int:
    try:
        rules.check_account_name(args.name)
        given = sys.stdin.readline().rstrip("\r\n") if args.password_stdin else None
        new, token = users.add_user(args.users, args.name, given)
    except (ValueError, OSError) as exc:
        return _fail(str(exc))
    print(f"{'added' if new else 'gave a new password to'} {args.name} in {args.users}")
    if given is None:
        print(f"password: {token}")
        print(
            "  shown this once and kept only hashed: give it to the player, who types it when olixono asks "
            "(or sets OLIXONO_RELAY_PASSWORD to it)"
        )
    print("a running embedded relay picks this up at the next connection; Mosquitto after `kill -HUP <its pid>`")
    return 0


def _deluser(args: argparse.Namespace) -> int:
    try:
        removed = users.delete_user(args.users, args.name)
    except (ValueError, OSError) as exc:
        return _fail(str(exc))
    if not removed:
        return _fail(f"no account {args.name} in {args.users}", 1)
    print(f"removed {args.name} from {args.users} (connections already open stay open until they end)")
    return 0


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, not {text!r}")
    return host, int(port)


def _not_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more, not {value}")
    return value


def _not_negative_rate(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more, not {text}")
    return value


LIMIT_OPTIONS = [
    ("--max-connections-per-address", "connections_per_address", _not_negative, "open connections from one address"),
    ("--max-subscriptions", "subscriptions", _not_negative, "topic filters per connection"),
    (
        "--max-publish-rate",
        "publish_rate",
        _not_negative_rate,
        "publishes a second per account, or per address when anonymous, after a burst of {limits.publish_burst}; "
        "past it the relay reads that client more slowly",
    ),
    (
        "--max-subscribe-rate",
        "subscribe_rate",
        _not_negative_rate,
        "subscriptions a second per account or address, after a burst of {limits.subscribe_burst} (each sends a "
        "whole game's retained lines)",
    ),
    (
        "--max-delivery-rate",
        "delivery_rate",
        _not_negative_rate,
        "messages a second the relay sends for one account or address, after a burst of {limits.delivery_burst}, in "
        "two budgets: its lines to each subscriber (its publishes wait), its subscriptions' retained lines (its "
        "subscriptions wait)",
    ),
    (
        "--max-lines-per-key",
        "lines_per_key",
        _not_negative,
        "retained lines one key may hold in one game (a long game needs about 600), and apart its copies of the "
        "players' lines; more are refused",
    ),
    ("--max-bytes-per-key", "bytes_per_key", _not_negative, "bytes of retained lines one key may hold in one game"),
    (
        "--max-non-player-lines-per-game",
        "non_player_lines_per_game",
        _not_negative,
        "retained lines of one game that are no seated player's (candidates' joins, strangers' lines before the seats "
        "are known); a player's own lines never count",
    ),
    (
        "--max-lines-per-game",
        "lines_per_owner_game",
        _not_negative,
        "retained lines one account, or one address when anonymous, may publish in one game, all its keys together",
    ),
    (
        "--max-lines-per-owner",
        "lines_per_owner",
        _not_negative,
        "retained lines one account or address may publish, all games together",
    ),
    (
        "--max-bytes-per-owner",
        "bytes_per_owner",
        _not_negative,
        "bytes of retained lines one account or address may publish, all games together",
    ),
]
"""The ``olixono relay`` options for :class:`relay.rules.Limits`: (option, field, type, what it limits)."""


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _mosquitto_config(args: argparse.Namespace) -> int:
    from relay.mosquitto import WEB_UNLIMITED, MosquittoSettings, mosquitto_sub_command, start_command, write_config

    password = None
    if args.bridge_password_file is not None:
        password = args.bridge_password_file.read_text(encoding="utf-8").splitlines()[0]
    settings = MosquittoSettings(
        port=args.port,
        host=args.host,
        users_file=args.users,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        bridge_to=args.bridge_to,
        bridge_user=args.bridge_user,
        bridge_password=password,
        run_as=args.run_as,
        autosave_changes=args.autosave,
        web_port=args.web,
        web_interface=args.web_interface,
    )
    try:
        conf = write_config(args.directory, settings)
    except (ValueError, OSError) as exc:
        return _fail(str(exc))
    print(f"wrote {conf} (and passwords, acl, data/ beside it)")
    print(f"start it with:  {start_command(conf)}")
    print(
        f"  it listens on {args.host}:{args.port} and runs as the user {args.run_as!r}, "
        f"who must own {conf.parent / 'data'}"
    )
    if args.users:
        print(
            f"  accounts: olixono relay adduser KEY --users {conf.parent / 'passwords'}, then kill -HUP <mosquitto pid>"
        )
        print(
            "  Mosquitto warns at start that the ACL pattern olixono/1/games/# has no %c or %u: that line lets every "
            "account read every game, as meant"
        )
    print(f"  watch every game: {mosquitto_sub_command(args.host, args.port, bool(args.users), args.tls_cert)}")
    if args.bridge_to:
        print(f"  bridged to {args.bridge_to[0]}:{args.bridge_to[1]}: games published on either relay reach both")
    if args.web is not None:
        print(f"  browsers: MQTT over WebSocket at ws{'s' if args.tls_cert else ''}://{args.host}:{args.web}/mqtt")
        print(f"  {WEB_UNLIMITED}")
    return 0


def _web(args: argparse.Namespace) -> int:
    from relay.page import copy_page, page_root

    try:
        written = copy_page(page_root(), args.directory)
    except OSError as exc:
        return _fail(str(exc))
    print(f"wrote the watching page's {len(written)} files to {args.directory}")
    print(
        "  serve them from any static web server (https, or http on 127.0.0.1 or localhost: the page checks "
        "signatures only in a secure context), and give watchers the page's address followed by"
    )
    print(
        "  #relay=WS_URL&game=GAME: the relay's MQTT over WebSocket (wss://HOST:PORT/mqtt; `olixono relay --web "
        "PORT` or `olixono relay mosquitto-config --web PORT` serve it) and the game's id"
    )
    return 0


def add_web_subparser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``web`` on the ``olixono`` parser: the watching page's files, written for a web server of one's own."""
    web = subparsers.add_parser(
        "web",
        help="write the watching page's files into DIR, for a web server of your own",
        description="Copy the watching page (static HTML, CSS and JavaScript: it checks every signature and move in "
        "the browser) into DIR, for any static web server. A relay's own web listener serves the same "
        "files (`olixono relay --web PORT`); this is for a site of your own, pointing at any relay that "
        "speaks MQTT over WebSocket.",
    )
    web.add_argument("directory", type=Path, metavar="DIR", help="where to write the files (made if missing)")
    web.set_defaults(func=_web)


Beside = Callable[["EmbeddedRelay", asyncio.Event], Coroutine[Any, Any, None]]
"""What :func:`relay.embedded.serve` runs beside the relay, given the relay and the event that stops it."""

WitnessHook = Callable[[Path | None, "RelaySettings"], Beside]
"""What runs a time witness beside the relay (``--witness``), given its key file (``--witness-key``) and the relay's
settings (which it may change: an account and a listener of its own): what :func:`relay.embedded.serve` runs beside the
relay. The client gives it (a witness verifies games as a player does); ``python -m relay`` has none."""


def add_subparser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], witness: WitnessHook | None = None
) -> None:
    """Register ``relay`` (and its ``adduser``, ``deluser``, ``mosquitto-config``) on the ``olixono`` parser
    (``witness``: what runs ``--witness``)."""
    parser = subparsers.add_parser(
        "relay",
        help="run a relay for your friends or club (an embedded MQTT broker), or configure Mosquitto",
        description="Run an MQTT relay for olixono games on this machine (MQTT 3.1.1, amqtt); with a SUBCOMMAND, "
        "manage its accounts or configure Mosquitto instead. The relay stores and forwards signed lines "
        "and is trusted with nothing: it keeps on a game's topics only validly signed lines of that "
        "game, and a slot keeps its first line, so nobody can erase or replace a game's line here; once "
        "a game's seats are known it takes only its players' lines. It is for friends or a small club "
        "(one Python process, about 200 concurrent games); for a public relay run Mosquitto (`olixono "
        "relay mosquitto-config`). docs/relay.md says what each kind of relay protects, and how.",
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 for every interface)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one and prints it)",
    )
    parser.add_argument(
        "--users", type=Path, metavar="FILE", help="private mode: only these accounts may connect (see adduser)"
    )
    parser.add_argument("--data", type=Path, metavar="DIR", help="keep retained games on disk in DIR across restarts")
    parser.add_argument("--tls-cert", type=Path, metavar="FILE", help="serve MQTT over TLS with this certificate (PEM)")
    parser.add_argument("--tls-key", type=Path, metavar="FILE", help="the certificate's private key (PEM)")
    parser.add_argument(
        "--web",
        type=int,
        metavar="PORT",
        help="also listen on this port (0 picks a free one) for browsers: the watching page at "
        "http://HOST:PORT/ and MQTT over WebSocket at /mqtt, under the same checks and limits "
        "(https and wss with --tls-cert)",
    )
    parser.add_argument(
        "--web-readers",
        action="store_true",
        help="private mode: let anyone who opens the page read the games (never publish)",
    )
    defaults = rules.Limits()
    for option, field, kind, what in LIMIT_OPTIONS:
        parser.add_argument(
            option,
            type=kind,
            metavar="N",
            default=getattr(defaults, field),
            dest=field,
            help=f"{what.format(limits=defaults)} (default {getattr(defaults, field):,}; 0: no limit)",
        )
    parser.add_argument(
        "--no-limits",
        action="store_true",
        help="lift every limit above: for a relay that only your own clients reach (benchmarks and "
        "tests on one machine, where every client has the same address)",
    )
    parser.add_argument(
        "--witness",
        action="store_true",
        help="sign as a time witness of every game on this relay whose offer names the witness's key "
        "(printed at start; hosts name it with `olixono host GAME --witness KEY`): clocks and "
        "claims are then decided on its times, not on the players' word",
    )
    parser.add_argument(
        "--witness-key",
        type=Path,
        metavar="FILE",
        help="the witness's key file (default: ~/.config/olixono/witness, made on first use)",
    )
    parser.set_defaults(func=_run, witness_hook=witness)
    sub = parser.add_subparsers(dest="relay_command", metavar="[SUBCOMMAND]")

    add = sub.add_parser(
        "adduser",
        help="add an account (or give it a new password) in a users file",
        description="Add an account: NAME is the player's public key as `olixono id` prints it "
        "(or bridge.NAME for another relay). adduser makes the password, a random "
        "32-character token, and prints it once; the file keeps only its hash (SHA-512, "
        "Mosquitto's $6$ format: a token cannot be guessed, so a refused login costs the "
        "relay next to nothing). The file keeps its owner and mode.",
    )
    add.add_argument("name", metavar="NAME")
    add.add_argument("--users", type=Path, required=True, metavar="FILE", help="the users file (created if missing)")
    add.add_argument(
        "--password-stdin",
        action="store_true",
        help=f"use the first line of stdin as the password (at least {users.MIN_TOKEN_CHARS} characters)",
    )
    add.set_defaults(func=_adduser)

    delete = sub.add_parser("deluser", help="remove an account from a users file")
    delete.add_argument("name", metavar="NAME")
    delete.add_argument("--users", type=Path, required=True, metavar="FILE")
    delete.set_defaults(func=_deluser)

    mosq = sub.add_parser(
        "mosquitto-config",
        help="write a complete Mosquitto configuration for a production relay",
        description="Write DIR/mosquitto.conf with its password file, ACL, persistence, limits, "
        "TLS and bridge, and print how to start it.",
    )
    mosq.add_argument("directory", type=Path, metavar="DIR")
    mosq.add_argument(
        "--users", type=Path, metavar="FILE", help="private mode with these accounts (copied to DIR/passwords)"
    )
    mosq.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)"
    )
    mosq.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    mosq.add_argument("--tls-cert", type=Path, metavar="FILE")
    mosq.add_argument("--tls-key", type=Path, metavar="FILE")
    mosq.add_argument(
        "--bridge-to", type=_host_port, metavar="HOST:PORT", help="copy every game to and from this other relay"
    )
    mosq.add_argument("--bridge-user", metavar="bridge.NAME", help="this relay's account on the other relay")
    mosq.add_argument(
        "--bridge-password-file", type=Path, metavar="FILE", help="a file whose first line is that account's password"
    )
    mosq.add_argument(
        "--web",
        type=int,
        metavar="PORT",
        help="also a websockets listener on this port for browsers: MQTT over WebSocket (the "
        "watching page itself comes from a web server: olixono web DIR, or olixono relay --web)",
    )
    mosq.add_argument(
        "--web-interface",
        metavar="NAME",
        help="the network interface the websockets listener binds (Mosquitto binds it by name; default: "
        "lo for a loopback --host, every interface for 0.0.0.0)",
    )
    mosq.add_argument(
        "--run-as", default="mosquitto", metavar="USER", help="the user Mosquitto runs as (default mosquitto)"
    )
    mosq.add_argument(
        "--autosave",
        type=_positive,
        default=AUTOSAVE_CHANGES,
        metavar="N",
        help=f"save retained games after every N changes (default {AUTOSAVE_CHANGES}; "
        "lower saves more often but stalls a busy relay; a clean stop always saves)",
    )
    mosq.set_defaults(func=_mosquitto_config)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="olixono")
    add_subparser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(protect_ids(["relay", *(sys.argv[1:] if argv is None else argv)], option_strings(parser)))
    status: int = args.func(args)
    return status
