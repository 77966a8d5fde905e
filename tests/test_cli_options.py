"""``client.cli``: each network command's arguments read once from argparse's namespace into a frozen, typed value
(``Host``, ``Join``, …), and what those values give ``client.flows.network``."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest

from client.cli import Front, Host, Seat, Watch, _network, _network_options, build_parser, network_arguments

KEY = "A" * 43
GAME = "b8iwQmV2RfS9dxX4kPz1AA"

EVERY_OPTION = {
    "host": [
        "host",
        "olix",
        "--invite",
        KEY,
        "--clock",
        "5+3",
        "--witness",
        KEY,
        "--witness",
        "B" * 43,
        "--relay",
        "mqtt://a",
        "--relay",
        "public",
        "--cafile",
        "ca.pem",
        "--timeout",
        "2",
        "--plain",
        "--no-bell",
        "--bot",
        "mcts",
        "--seed",
        "7",
        "--claim",
        "auto",
        "--no-watchers-chat",
        "--iterations",
        "9",
        "--seconds",
        "0.5",
    ],
    "join": ["join", GAME, "--line", "--level", "easy"],
    "watch": ["watch", GAME, "--screen", "--timeout", "3"],
    "resume": ["resume"],
    "games": ["games", "--all"],
    "export": ["export", GAME, "--anyway"],
    "relays": ["relays", "--check", "--public"],
    "witness": ["witness", "--key", "w.key", "--max-games", "5"],
}
"""A command line for each network command."""


class Reading:
    """A namespace that notes which of its attributes are read."""

    def __init__(self, namespace: argparse.Namespace) -> None:
        self.namespace = namespace
        self.read: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        self.read.add(name)
        return getattr(self.namespace, name)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    return next(action for action in build_parser()._actions if action.dest == "command").choices  # type: ignore


def test_every_network_command_has_a_typed_reader_that_reads_each_of_its_options():
    network = {name for name, parser in subcommands().items() if parser.get_default("func") is _network}
    assert network == set(EVERY_OPTION)
    for name, argv in EVERY_OPTION.items():
        namespace = build_parser().parse_args(argv)
        reading = Reading(namespace)
        network_arguments(reading)  # type: ignore[arg-type]
        assert reading.read == set(vars(namespace)) - {"func"}, name
    with pytest.raises(ValueError, match="'play' is no network command"):
        network_arguments(argparse.Namespace(command="play", relay=None, cafile=None, timeout=None))


def test_the_typed_arguments_hold_what_was_typed_and_are_frozen():
    host = network_arguments(build_parser().parse_args(EVERY_OPTION["host"]))
    assert isinstance(host, Host)
    assert (host.game, host.invite, host.witness, host.days) == ("olix", KEY, (KEY, "B" * 43), None)
    assert host.clock is not None and host.relaying.relay == ("mqtt://a", "public")
    assert host.seat == Seat(
        front=Front(plain=True),
        no_bell=True,
        bot="mcts",
        seed=7,
        iterations=9,
        seconds=0.5,
        claim="auto",
        no_watchers_chat=True,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        host.game = "oxono"  # type: ignore[misc]
    watch = network_arguments(build_parser().parse_args(EVERY_OPTION["watch"]))
    assert watch == Watch(id=GAME, relaying=watch.relaying, front=Front(screen=True))
    assert (watch.relaying.relay, watch.relaying.timeout) == ((), 3.0)


def test_the_network_options_of_a_host_with_every_option(monkeypatch):
    monkeypatch.delenv("NO_BELL", raising=False)
    options = _network_options(network_arguments(build_parser().parse_args(EVERY_OPTION["host"])))
    assert (options.relay, options.cafile, options.timeout) == ("mqtt://a public", Path("ca.pem"), 2.0)
    assert (options.invite, options.witnesses, options.control is not None) == (KEY, [KEY, "B" * 43], True)
    assert (options.bot, options.seed, options.iterations, options.seconds) == ("mcts", 7, 9, 0.5)
    assert options.auto_claim and not options.watchers_chat
    assert options.plain and not options.screen and not options.bell and options.commands is sys.stdin
    assert not (options.all_games or options.anyway or options.check or options.public)


def test_the_network_options_of_each_lookup_and_of_a_bot_seat():
    def options(name: str) -> Any:
        return _network_options(network_arguments(build_parser().parse_args(EVERY_OPTION[name])))

    assert options("games").all_games and options("export").anyway
    assert options("relays").check and options("relays").public
    join = options("join")
    assert (join.bot, join.screen, join.plain, join.commands) == ("easy", False, False, None)  # --line, a bot: neither
    assert not join.auto_claim and join.watchers_chat and join.invite is None and join.relay is None
    watch = options("watch")
    assert watch.screen and not watch.plain and watch.bot is None
