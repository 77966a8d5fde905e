"""The path of a person new to olixono, through the real commands (issue 18): what it prints must work when typed.

Every process is started here and stopped by its PID; traffic goes to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations


import pytest

from cli_helpers import home, run
from protocol import Identity
from relay.cli import protect_ids
from relay.mosquitto import free_port


def dashed_key() -> Identity:
    """An identity whose public key begins with ``-`` (about one in 64 do)."""
    for _ in range(10_000):
        identity = Identity.generate()
        if identity.public.text.startswith("-"):
            return identity
    raise AssertionError("no key beginning with - in 10,000")


DASHED_GAME = "-b8iwQmV2RfS9dxX4kPz1A"


def test_ids_and_keys_that_begin_with_a_dash_are_values():
    key = "-96kk" + "A" * 37 + "A"
    assert protect_ids(["join", DASHED_GAME, "--relay", "mqtt://h"]) == ["join", "--relay", "mqtt://h", "--", DASHED_GAME]
    assert protect_ids(["host", "oxono", "--invite", key]) == ["host", "oxono", f"--invite={key}"]
    assert protect_ids(["relay", "adduser", key, "--users", "f"]) == ["relay", "adduser", "--users", "f", "--", key]
    assert protect_ids(["join", "--", DASHED_GAME]) == ["join", "--", DASHED_GAME]
    assert protect_ids(["engine", "--seed", "-5", "-h"]) == ["engine", "--seed", "-5", "-h"]


@pytest.mark.parametrize("command", ["join", "watch", "export", "resume"])
async def test_every_printed_command_works_with_an_id_that_begins_with_a_dash(tmp_path, command):
    env, _ = home(tmp_path, "newcomer")
    dead = f"mqtt://127.0.0.1:{free_port()}"
    code, out, err = await run(env, command, DASHED_GAME, "--relay", dead, "--timeout", "1")
    assert "the following arguments are required" not in err and "usage:" not in err, err
    assert code == 1 and "olixono" in err, (code, out, err)  # the command ran, and failed on the dead relay


async def test_a_key_that_begins_with_a_dash_can_be_invited_and_given_an_account(tmp_path):
    env, _ = home(tmp_path, "newcomer")
    key = dashed_key().public.text
    code, out, err = await run(env, "relay", "adduser", key, "--users", str(tmp_path / "users"))
    assert code == 0 and "usage:" not in err, (out, err)
    dead = f"mqtt://127.0.0.1:{free_port()}"
    code, out, err = await run(env, "host", "oxono", "--invite", key, "--relay", dead, "--timeout", "1", "--plain")
    assert "expected one argument" not in err and "usage:" not in err and code == 1, err


@pytest.mark.parametrize("command", ["join", "watch", "export", "resume"])
async def test_a_typo_in_the_last_character_of_a_game_id_is_a_sentence(tmp_path, command):
    env, _ = home(tmp_path, "newcomer")
    typo = "b8iwQmV2RfS9dxX4kPz1AB"  # a game id ends in A, Q, g or w
    code, out, err = await run(env, command, typo, "--relay", f"mqtt://127.0.0.1:{free_port()}", "--timeout", "1")
    assert code == 1 and "Traceback" not in err and "is there a typo?" in err, err
