"""The path of a person new to olixono, through the real commands (issue 18): what it prints must work when typed.

Every process is started here and stopped by its PID; traffic goes to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations


import asyncio

import pytest

from cli_helpers import Terminal, home, run
from protocol import Identity
from relay.cli import protect_ids
from relay.mosquitto import free_port
from relay_fixtures import Relay, make_accounts, needs_mosquitto


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


# -- 1. the password prompt -------------------------------------------------------------------------------
@pytest.fixture(params=["embedded", pytest.param("mosquitto", marks=needs_mosquitto)])
async def private_relay(request, tmp_path):
    """A private relay of each kind, with an account for two people (their identities, and tokens)."""
    users = tmp_path / "users"
    accounts = make_accounts(users, 2)
    relay = Relay(request.param, tmp_path / "relay", users_file=users)
    relay.workdir.mkdir()
    await relay.start()
    yield relay, accounts
    await relay.stop()


async def test_the_hidden_prompt_logs_in_to_a_private_relay(private_relay, tmp_path):
    """host and join on a private relay, the password typed at the hidden prompt each time: the game is played."""
    relay, (alice, bob) = private_relay
    host_env, _ = home(tmp_path, "alice", alice.identity)
    guest_env, _ = home(tmp_path, "bob", bob.identity)
    host = Terminal(host_env, "host", "olix", "--relay", relay.url, "--bot", "random", "--seed", "1")
    guest = None
    try:
        await asyncio.to_thread(host.read_until, r"Relay password for your account \(" + alice.identity.fingerprint)
        assert "Tell your opponent" not in host.seen  # nothing is offered before the relay took the login
        host.type(alice.password + "\n")
        game = (await asyncio.to_thread(host.read_until, r"olixono join (\S{22})")).group(1)
        assert alice.password not in host.seen  # hidden
        code, out, err = await run(dict(guest_env, OLIXONO_RELAY_PASSWORD=bob.password), "games", "--relay", relay.url)
        assert code == 0 and game in out, (out, err)
        guest = Terminal(guest_env, "join", "--relay", relay.url, "--bot", "random", "--seed", "2", "--", game)
        await asyncio.to_thread(guest.read_until, r"Relay password for your account \(" + bob.identity.fingerprint)
        guest.type(bob.password + "\n")
        assert await asyncio.to_thread(guest.wait) == 0, guest.seen
        assert await asyncio.to_thread(host.wait) == 0, host.seen
        assert "result " in guest.seen and "RELAY LOST" not in guest.seen + host.seen
    finally:
        for terminal in (host, guest):
            if terminal is not None:
                terminal.stop()


async def test_games_asks_for_the_password_and_one_ctrl_c_leaves_the_prompt(private_relay, tmp_path):
    relay, (alice, _) = private_relay
    env, _ = home(tmp_path, "alice", alice.identity)
    asking = Terminal(env, "games", "--relay", relay.url)
    try:
        await asyncio.to_thread(asking.read_until, r"Relay password for your account")
        asking.type(alice.password + "\n")
        assert await asyncio.to_thread(asking.wait) == 0 and "No open game on this relay" in asking.seen, asking.seen
    finally:
        asking.stop()
    leaving = Terminal(env, "watch", "--relay", relay.url, "--plain", "--", DASHED_GAME)
    try:
        await asyncio.to_thread(leaving.read_until, r"Relay password for your account")
        leaving.type("\x03")  # one Ctrl-C
        assert await asyncio.to_thread(leaving.wait, 10) == 130 and "Interrupted: nothing was sent" in leaving.seen
    finally:
        leaving.stop()
    code, out, err = await run(env, "games", "--relay", relay.url)  # no terminal: the sentence says what to set
    assert code == 1 and "set it in OLIXONO_RELAY_PASSWORD" in err, err
