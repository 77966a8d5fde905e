"""``olixono.arguments``: game ids and keys that begin with ``-`` made values before argparse reads them, and the
options a parser knows, its subcommands' included."""

from __future__ import annotations

import argparse

from olixono.arguments import ID_OR_KEY, option_strings, protect_ids

DASHED_GAME = "-b8iwQmV2RfS9dxX4kPz1A"
DASHED_KEY = "-96kk" + "A" * 38


def test_ids_and_keys_that_begin_with_a_dash_are_values():
    key = DASHED_KEY
    assert protect_ids(["join", DASHED_GAME, "--relay", "mqtt://h"]) == [
        "join",
        "--relay",
        "mqtt://h",
        "--",
        DASHED_GAME,
    ]
    assert protect_ids(["host", "oxono", "--invite", key]) == ["host", "oxono", f"--invite={key}"]
    assert protect_ids(["host", "oxono", "--witness", key]) == ["host", "oxono", f"--witness={key}"]
    assert protect_ids(["relay", "adduser", key, "--users", "f"]) == ["relay", "adduser", "--users", "f", "--", key]
    assert protect_ids(["join", "--", DASHED_GAME]) == ["join", "--", DASHED_GAME]
    assert protect_ids(["engine", "--seed", "-5", "-h"]) == ["engine", "--seed", "-5", "-h"]


def test_only_an_id_or_a_key_long_is_one():
    assert ID_OR_KEY.fullmatch(DASHED_GAME) and ID_OR_KEY.fullmatch(DASHED_KEY)
    assert not ID_OR_KEY.fullmatch(DASHED_GAME[:-1]) and not ID_OR_KEY.fullmatch(DASHED_KEY + "A")
    assert not ID_OR_KEY.fullmatch(DASHED_GAME[1:] + "A")  # no dash, nothing to protect


def test_an_id_after_a_double_dash_stays_where_it_is_and_others_join_it():
    assert protect_ids(["watch", DASHED_GAME, "--", "x"]) == ["watch", "--", DASHED_GAME, "x"]


def test_option_strings_walks_the_subcommands():
    parser = argparse.ArgumentParser(prog="p")
    parser.add_argument("--top")
    sub = parser.add_subparsers(dest="command")
    one = sub.add_parser("one")
    one.add_argument("-x", "--ex")
    inner = one.add_subparsers(dest="inner").add_parser("deeper")
    inner.add_argument("--deepest")
    assert option_strings(parser) == {"-h", "--help", "--top", "-x", "--ex", "--deepest"}


def test_an_option_that_looks_like_an_id_stays_an_option():
    from client.cli import build_parser

    known = option_strings(build_parser())
    assert "--bridge-password-file" in known and "--relay" in known
    argv = ["relay", "mosquitto-config", "d", "--bridge-password-file", "f"]
    assert protect_ids(argv, known) == argv
