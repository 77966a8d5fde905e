"""The path of a person new to olixono, through the real commands: what it prints must work when typed.

Every process is started here and stopped by its PID; traffic goes to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import re

import pytest
from cli_helpers import Terminal, home, read_until, run, spawn, stop, typed
from network_helpers import game_id_of
from protocol_helpers import playable
from relay_fixtures import Relay, make_accounts, needs_mosquitto, silent_relay

from protocol import GameSession, Identity
from relay.mosquitto import free_port


def dashed_key() -> Identity:
    """An identity whose public key begins with ``-`` (about one in 64 do)."""
    for _ in range(10_000):
        identity = Identity.generate()
        if identity.public.text.startswith("-"):
            return identity
    raise AssertionError("no key beginning with - in 10,000")


DASHED_GAME = "-b8iwQmV2RfS9dxX4kPz1A"


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
    code, _out, err = await run(env, command, typo, "--relay", f"mqtt://127.0.0.1:{free_port()}", "--timeout", "1")
    assert code == 1 and "Traceback" not in err and "is there a typo?" in err, err


# -- 1. the password prompt -------------------------------------------------------------------------------
@pytest.fixture(params=["embedded", pytest.param("mosquitto", marks=needs_mosquitto)])
async def private_relay(request, tmp_path):
    """A private relay of each kind, with an account for two people (their identities, and tokens)."""
    users = tmp_path / "users"
    accounts = make_accounts(users, 2)
    relay = Relay(request.param, tmp_path / "relay", users_file=users)
    relay.workdir.mkdir()
    try:
        await relay.start()
        yield relay, accounts
    finally:
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
        assert "result: " in guest.seen and "RELAY LOST" not in guest.seen + host.seen
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
    code, _out, err = await run(env, "games", "--relay", relay.url)  # no terminal: the sentence says what to set
    assert code == 1 and "set it in OLIXONO_RELAY_PASSWORD" in err, err


async def test_a_url_that_names_the_account_asks_for_its_password_and_a_wrong_one_is_asked_again(
    private_relay, tmp_path
):
    """``mqtt://KEY@host``, no password set: the hidden prompt asks for it (it was refused as a wrong password); a
    mistyped password asks again, up to three times, as sudo does."""
    relay, (alice, _) = private_relay
    env, _ = home(tmp_path, "alice", alice.identity)
    named = relay.url.replace("mqtt://", f"mqtt://{alice.identity.public.text}@")
    prompt = r"Relay password for your account \(" + alice.identity.fingerprint + r"\): "
    host = Terminal(env, "host", "oxono", "--relay", named, "--bot", "random", "--seed", "1")
    try:
        await asyncio.to_thread(host.read_until, prompt)
        host.type("not the password\n")
        await asyncio.to_thread(host.read_until, "The relay refused that password; try again.\r?\n" + prompt)
        assert "Tell your opponent" not in host.seen
        host.type(alice.password + "\n")
        await asyncio.to_thread(host.read_until, r"olixono join \S{22}")
    finally:
        host.stop()
    games = Terminal(env, "games", "--relay", named)
    try:
        for _ in range(3):
            await asyncio.to_thread(games.read_until, prompt)
            games.seen = ""
            games.type("wrong\n")
        assert await asyncio.to_thread(games.wait, 30) == 1
        assert "wrong password, or no such account (3 tries)" in games.seen, games.seen
    finally:
        games.stop()


# -- 6. --plain, for screen readers and scripts ------------------------------------------------------------
async def test_plain_for_a_script_and_a_screen_reader(any_relay, tmp_path):
    """Commands piped before the seats are drawn are acted on once they are; moves are numbered as played; the turn
    is said; the result reads forwards; a game taken up again says where it stands; /legal and legal alike."""
    relay = any_relay
    host_env, _ = home(tmp_path, "host")
    guest_env, _ = home(tmp_path, "guest")
    host = await spawn(host_env, "host", "oxono", "--relay", relay.url, "--plain", stdin=True)
    lines: list[str] = []
    try:
        game = (await read_until(host, r"olixono join (\S{22})", lines)).group(1)
        code, out, err = await run(
            guest_env, "join", "--relay", relay.url, "--plain", "--", game, stdin_text="say hi there\n/legal\nlegal\n"
        )
        assert code == 3 and "left the game (no more commands)" in out, (out, err)  # unfinished: resumable
        assert out.count(" Oc6c5 ") == 2, out  # the legal moves, asked for with and without the /
        await read_until(host, r"^chat \w+ .*: hi there$", lines)  # held until seated, then sent
        host_first = next(line for line in lines if line.startswith("seats ")).split(",")[0].endswith("(you)")
        asked = next(line for line in lines if line.startswith("join asked by ")).removeprefix("join asked by ")
        seated = [line for line in lines if line.startswith("seated ")]
        assert seated == [f"seated guest {asked}"], lines  # the host's and the guest's logs say it alike
        assert f"seated guest {asked} (you)" in out.splitlines(), out
        if host_first:
            await read_until(host, r"^your move$", lines)
            await typed(host, b"Oc6c5\n")
        else:
            code, out, err = await run(
                guest_env, "resume", "--relay", relay.url, "--plain", "--", game, stdin_text="Oc6c5\n"
            )
            assert code == 3 and "your move" in out, out
        await read_until(host, r"^move 1 pink Oc6c5$", lines)  # the first move is move 1
        code, out, err = await run(
            guest_env, "resume", "--relay", relay.url, "--plain", "--", game, stdin_text="board\nresign\n"
        )
        assert code == 0 and "game: oxono, 1 move, black to move" in out, out  # where it stands, taken up again
        shown = out.splitlines()
        at = shown.index("6  .  . [O] .  .  .")  # board: the grid as it was, the last move on a line under it
        assert shown[at + 8] == "last move: 1 pink Oc6c5 (totem O to c6, pawn on c5)", shown[at : at + 9]
        # the sentence names who resigned; the code (unchanged) names the winner
        assert re.search(r"^result: (\w+) wins by (?!\1)\w+'s resignation \(\1-resigned\)$", out, re.M), out
        await read_until(host, r"^result: ", lines)
        assert not any("not broadcasted" in line for line in lines)
        await read_until(host, r"^confirmed by .*: result confirmed by both players", lines)
        code, out, err = await run(guest_env, "games", "--all", "--relay", relay.url)
        assert code == 0 and re.search(
            rf"^{game} .* finished: \w+ wins by the other's resignation, confirmed by both", out, re.M
        ), (out, err)  # the code names the winner: not "pink wins (resigned)"
    finally:
        await stop(host)


# -- 7. waiting in silence ----------------------------------------------------------------------------------
async def test_looking_for_a_game_says_so_and_an_unanswering_relay_is_named(tmp_path, relay):
    env, _ = home(tmp_path, "newcomer")
    code, out, err = await run(env, "join", "--relay", relay.url, "--plain", "--timeout", "2", "--", DASHED_GAME)
    assert f"Looking for game {DASHED_GAME} on the relay at {relay.url}" in out and code == 1, (out, err)
    assert "no offer came in 2 s" in err, err
    async with silent_relay() as port:  # accepts, never speaks
        for command in ("join", "watch"):
            code, out, err = await run(
                env, command, "--relay", f"mqtt://127.0.0.1:{port}", "--plain", "--", DASHED_GAME, timeout=30
            )
            assert code == 1 and "does not answer as an MQTT relay would" in err, (command, err)


# -- 10. a watcher is no player ---------------------------------------------------------------------------
def test_a_watcher_is_told_it_watches():
    from protocol_helpers import start

    from client.cores.network_game import GameCore
    from client.frontends.network_screen import NetworkTable
    from client.words.commands import help_text, leaving_text
    from protocol import GameSession

    host, _ = start("oxono")
    core = GameCore(GameSession.restore(host.transcript), watching=True)
    table = NetworkTable(type("Runner", (), {"core": core, "link": type("Link", (), {"connected": True})()})())
    assert table.greeting.startswith("Watching") and "resume" not in table.leave and "watch" in table.leave
    assert table.refused["resign"] == "you are watching this game: only its players can resign"
    assert "say" not in table.refused  # a watcher's say is its talk, beside the game
    assert table.refused["watchers"].startswith("watchers off|on is for the players of a network game")
    assert help_text(core).startswith("Watching") and "Type a move" not in help_text(core)
    assert leaving_text(core).startswith("stopped watching")


# -- 11. a host's game taken up again, its relay gone with it ------------------------------------------------
@pytest.mark.network
async def test_resuming_a_host_game_whose_own_relay_ended_starts_one_again(tmp_path):
    from cli_helpers import games_dir

    from client.shell.journal import Journal

    port = free_port()
    relay = Relay("embedded", tmp_path / "relay", port=port)
    relay.workdir.mkdir()
    await relay.start()
    env, _ = home(tmp_path, "host")
    host = await spawn(env, "host", "olix", "--relay", f"mqtt://127.0.0.1:{port}", "--plain", stdin=True)
    lines: list[str] = []
    try:
        game = (await read_until(host, r"olixono join (\S{22})", lines)).group(1)
        await typed(host, b"quit\n")
        assert await host.wait() == 3
    finally:
        await stop(host)
        await relay.stop()
    journal = Journal.open(game, games_dir(env))
    journal.update(ran_relay=True)  # as host records it when its own process ran the relay
    code, out, err = await run(env, "resume", "--plain", "--timeout", "5", "--", game, stdin_text="quit\n")
    assert f"No relay answered at mqtt://127.0.0.1:{port}, so this process runs one there" in out, (out, err)
    assert code == 3 and "Taking up olix game" in out, (out, err)


# -- 5. proposals ----------------------------------------------------------------------------------------
def test_an_open_proposal_is_shown_and_the_answer_is_said_to_wait_for_ones_turn():
    from protocol_helpers import identity_of, mover, start

    from client.cores.intents import Intent, IntentRefused
    from client.cores.network_game import GameCore
    from client.frontends.network_screen import NetworkTable
    from client.words.network import describe
    from protocol import EndProposed

    host, guest = start("oxono")
    actor, waiter = mover(host, guest)
    proposal = actor.propose()
    events = waiter.receive(proposal.line)
    waiter.receive(actor.move(playable(actor)[0]).line)
    waiting = GameCore(actor)  # the proposer, now waiting for the other's move
    theirs = GameCore(waiter)
    line = describe(theirs, next(e for e in events if isinstance(e, EndProposed)))
    assert line is not None and line.endswith("(it stands: answer it on your turn with agree or decline)"), line
    runner = type("Runner", (), {"core": waiting, "link": type("Link", (), {"connected": True})()})()
    status = NetworkTable(runner).status(lambda player: 0.0)
    assert status[0].endswith(", draw offered") and status[-1] == "relay ok", status  # the relay's state stays
    offered = GameCore(GameSession.restore(waiter.transcript[:-1], waiter.identity))  # before the move: not its turn
    with pytest.raises(IntentRefused, match="a proposal is answered on one's own turn"):
        GameCore(GameSession.restore([*actor.transcript[:-1]], identity_of(waiter))).act(Intent("agree"))
    assert offered.session.proposal is not None


# -- 9. Ctrl-C ----------------------------------------------------------------------------------------
async def interrupted(env: dict[str, str], delay: float, *args: str) -> tuple[int, str]:
    """``olixono ARGS``, sent SIGINT (Ctrl-C) after ``delay`` s: its exit status and all it printed."""
    import signal

    process = await spawn(env, *args)
    try:
        await asyncio.sleep(delay)
        process.send_signal(signal.SIGINT)
        async with asyncio.timeout(15):
            assert process.stdout is not None
            out = (await process.stdout.read()).decode()
            return await process.wait(), out
    finally:
        await stop(process)


async def test_ctrl_c_while_waiting_leaves_in_a_sentence(tmp_path, relay):
    """Interrupted while it starts or waits for an offer (at any moment of it): one sentence, no traceback, and never
    the word resumable for a game nobody has."""
    env, _ = home(tmp_path, "newcomer")
    for delay in (0.3, 0.6, 0.9, 1.2, 1.5):
        for command in ("watch", "join"):
            code, out = await interrupted(env, delay, command, "--relay", relay.url, "--plain", "--", DASHED_GAME)
            assert code == 130 and "Traceback" not in out and "Task exception" not in out, (command, delay, out)
            assert "Interrupted." in out and "resumable" not in out, (command, out)


# -- a newcomer's session with a timed game: the rough edges a first game meets, each smoothed ------------------------
async def test_joining_ones_own_game_says_how_to_try_both_seats_on_one_machine(tmp_path):
    from client.cores.network_game import GameCore
    from client.flows import network
    from client.shell.journal import Journal, JournalMeta

    identity = Identity.generate()
    core, _ = GameCore.hosting("oxono", identity)
    Journal.create(JournalMeta(core.game_id, "oxono", "host", identity.public.text, "mqtt://127.0.0.1:1"), tmp_path)
    options = network.Options(identity=identity, journal_dir=tmp_path, write=lambda text: None)
    with pytest.raises(network.Failure, match=r"you host game .* yourself") as refused:
        await network.join(core.game_id, options)
    assert f"XDG_CONFIG_HOME=/tmp/seat2/config XDG_STATE_HOME=/tmp/seat2/state olixono join {core.game_id}" in str(
        refused.value
    )


def test_every_row_of_the_screens_help_starts_its_words_in_one_column():
    from protocol_helpers import start

    from client.cores.network_game import GameCore
    from client.frontends.network_screen import NetworkTable
    from client.frontends.screen import own_help

    host, _ = start("oxono")
    runner = type("Runner", (), {"core": GameCore(host), "link": type("Link", (), {"connected": True})()})()
    table = NetworkTable(runner, invitation="olixono join X")
    rows = [row for row in (table.help() + "\n" + own_help("; gone")).splitlines() if row.startswith("  /")]
    assert "/copy" in "\n".join(rows) and len(rows) > 8
    assert all(row[22] == " " and row[23] != " " for row in rows), rows  # each description in column 23


def test_a_refused_login_names_the_account_as_the_password_prompt_does():
    from client.shell.transport import account_text

    key = Identity.generate().public
    assert account_text(key.text) == f"your account ({key.fingerprint})"
    assert account_text("club-member") == "the account 'club-member'"


def test_resume_plays_on_the_relay_and_with_the_ca_the_game_was_played_with(tmp_path):
    from pathlib import Path

    from client.flows import network
    from client.shell.journal import Journal, JournalMeta

    ca = tmp_path / "ca.pem"
    meta = JournalMeta("G" * 21 + "A", "oxono", "guest", "key", "mqtts://relay.example:8883", cafile=str(ca))
    journal = Journal.create(meta, tmp_path / "games")
    options = network.Options()
    assert network.played_on(Journal.open(journal.meta.game, tmp_path / "games"), options) is None
    assert (options.relay, options.cafile) == ("mqtts://relay.example:8883", Path(ca))
    named = network.Options(relay="mqtt://127.0.0.1:1883")
    assert network.played_on(journal, named) == "mqtt://127.0.0.1:1883" and named.cafile is None  # as it was named


def test_the_help_texts_read_well():
    from client.cli import build_parser

    parser = build_parser()
    sub = next(action for action in parser._actions if action.dest == "command").choices
    assert isinstance(sub, dict)
    assert "offer does not come" not in sub["host"].format_help()
    assert "offer does not come" in " ".join(sub["join"].format_help().split())
    assert ") (the default" not in sub["host"].format_help()
    relay = sub["relay"].format_help()
    assert "[SUBCOMMAND]" in relay and "e+0" not in relay and "1,000,000" in relay
    assert "time control" in sub["games"].format_help() and "FILE" in sub["verify"].format_usage()


# -- 12. the time control, told to the one who joins ------------------------------------------------------------
async def test_the_joiner_is_told_the_time_control_it_accepts(relay, tmp_path):
    """``join`` names the control it accepts, as ``host`` does, and the offer's line in every front end's log too."""
    import io

    from network_helpers import Seat, game_id_of

    from client.flows import network
    from protocol.clock import TimeControl

    host = Seat(tmp_path, "host", relay, bot="random", seed=1, control=TimeControl.parse("5+3"))
    guest = Seat(tmp_path, "guest", relay, plain=True, commands=io.StringIO("resign\n"))
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    async with asyncio.timeout(30):
        assert await network.join(game, guest.options) == 0
        assert await hosting == 0
    words = "5+3 (5 min each, 3 s a move)"
    assert f"Hosting oxono game {game}, {words}, as {host.identity.fingerprint}." in host.lines
    assert f"Joining oxono game {game}, {words}, hosted by {host.identity.fingerprint}: " in guest.text()
    assert f"offer {game} oxono by host {host.identity.fingerprint}, clock {words}" in guest.lines, guest.lines


# -- 12. the relay that ran in the host's program, gone with it ---------------------------------------------------
async def test_a_guest_is_told_the_relay_went_with_the_host_and_leaves_and_resumes_knowing_it(
    tmp_path, monkeypatch, capsys
):
    """A host with no relay named starts one in its own program (its presence says so: ``state=hosting``); once the
    game has begun the host's program ends, and its relay with it. The guest reads why, and who takes the game up
    (never ``start one with olixono relay``); its toolbar's word for the host is ``unknown`` (a relay killed with the
    host never sends the host's will); its ``quit`` leaves at once rather than waiting for a relay that may never
    come back; and its ``resume`` says again whose relay it was."""
    import os
    from types import SimpleNamespace

    from network_helpers import Seat

    from client.cores.network_game import GameCore
    from client.flows import network
    from client.shell.journal import Journal
    from client.words.network import leaving_warning, presence_word

    port = free_port()
    monkeypatch.setattr(network, "DEFAULT_RELAY", f"mqtt://127.0.0.1:{port}")
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "config")}  # no settings file, no OLIXONO_RELAY: the default relay
    host = Seat(tmp_path, "host", SimpleNamespace(url=None), bot="random", seed=3, environ=environ)
    read, write = os.pipe()
    commands = os.fdopen(read, "r")
    guest = Seat(
        tmp_path,
        "guest",
        SimpleNamespace(url=f"mqtt://127.0.0.1:{port}"),
        plain=True,
        commands=commands,
        environ=environ,
    )
    hosting = asyncio.create_task(network.host("olix", host.options))
    joining: asyncio.Task[int] | None = None
    try:
        game = await game_id_of(host, timeout=20)
        assert any("this process runs one there" in line for line in host.lines), host.lines
        joining = asyncio.create_task(network.join(game, guest.options))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while not any("your host's program ran this relay" in line for line in guest.lines):
            assert not joining.done() and loop.time() < deadline, guest.text() + "\n--- host:\n" + host.text()
            if not hosting.done() and any(line.startswith("seats ") for line in guest.lines):
                hosting.cancel()  # the host's program ends mid-game, and its relay with it
            await asyncio.sleep(0.05)
        lost = next(line for line in guest.lines if "your host's program ran this relay" in line)
        assert lost.startswith("relay lost: ") and "olixono relay" not in lost and f"olixono resume {game}" in lost
        os.write(write, b"quit\n")
        async with asyncio.timeout(20):  # not the minute a guest waits for a relay that may come back
            assert await joining == 3
        assert "leaving now: the relay ended with your host's program" in capsys.readouterr().err
        journal = Journal.open(game, guest.options.journal_dir)
        assert journal.meta.ran_relay  # learnt from the host's presence
        core = GameCore(journal.restore(guest.identity)[0])
        core.host_relay = True
        assert core.session.host is not None
        assert presence_word(core, core.session.host, connected=False) == "unknown"
        assert leaving_warning(core) is None  # the guest's leaving costs the host's relay nothing
    finally:
        for task in (hosting, joining):
            if task is not None:
                task.cancel()
        await asyncio.gather(*(task for task in (hosting, joining) if task is not None), return_exceptions=True)
        os.close(write)
        commands.close()
    resumed = Seat(tmp_path, "guest", SimpleNamespace(url=None), plain=True, environ=environ)
    resumed.identity = resumed.options.identity = guest.identity
    resumed.options.timeout = 3
    try:
        await asyncio.wait_for(network.resume(game, resumed.options), 30)
    except network.Failure as failure:  # it gives up on the relay after its --timeout
        resumed.lines.append(str(failure))
    said = resumed.text()
    assert "your host's program ran this relay" in said and "start one with" not in said, said


def test_a_host_whose_program_runs_the_relay_is_asked_before_leaving_mid_game():
    """Leaving ends the relay for the opponent too: the host is told so, and asked to type quit again."""
    from protocol_helpers import start

    from client.cores.network_game import GameCore
    from client.words.network import leaving_warning

    host, _ = start("oxono")
    core = GameCore(host)
    assert leaving_warning(core) is None  # a relay of its own elsewhere: leaving costs nothing
    core.host_relay = True
    warning = leaving_warning(core)
    assert warning is not None and "this program runs the relay" in warning and warning.endswith("again to leave")
    assert f"olixono resume {core.game_id}" in warning


async def test_a_strangers_lines_are_said_once_quietly_not_warned_for_ever(relay, tmp_path):
    """A stranger's presence, retained in a game before its guest is seated, was refused by both players once the seats
    were known with ``warning: line rejected: wrong-signer …``. Such lines are no warning about the game: one notice
    says they are ignored and harmless."""
    from harness.mqtt import bare_client
    from protocol import game_filter

    envs = {name: home(tmp_path, name)[0] for name in ("host", "guest")}
    host = await spawn(envs["host"], "host", "oxono", "--relay", relay.url, "--plain", stdin=True)
    lines: list[str] = []
    try:
        game = (await read_until(host, r"olixono join (\S{22})", lines)).group(1)
        stranger = GameSession(game, Identity.generate())
        async with bare_client(int(relay.url.rsplit(":", 1)[1])) as client:
            await client.subscribe(game_filter(game), qos=1)
            async with asyncio.timeout(10):
                async for message in client.messages:  # the offer, from the relay's store
                    stranger.receive(bytes(message.payload))
                    if stranger.host is not None:
                        break
            line = stranger.presence(True, 1)  # kept by every receiver until the seats are known, then refused
            await client.publish(line.topic, line.line, qos=1, retain=True)
        code, out, err = await run(
            envs["guest"], "join", "--relay", relay.url, "--plain", "--", game, stdin_text="say hello\n"
        )  # held until the seats are drawn
        assert code == 3 and "seats " in out, (out, err)
        assert "warning: line rejected" not in out, out
        told = [line for line in out.splitlines() if "hold no seat" in line]
        assert len(told) == 1 and told[0].startswith("notice: ") and "harmless" in told[0], out
        for _ in range(2):  # every time the game is taken up again, the same
            code, out, err = await run(
                envs["guest"], "resume", "--relay", relay.url, "--plain", "--", game, stdin_text="legal\n"
            )  # said once caught up with the relay
            assert code == 3 and "warning: line rejected" not in out, (out, err)
            told = [line for line in out.splitlines() if "hold no seat" in line]
            assert len(told) <= 1 and all(line.startswith("notice: ") and "harmless" in line for line in told), out
        await typed(host, b"resign\n")
        await read_until(host, r"^result: ", lines)
        assert not any(line.startswith("warning: line rejected") for line in lines), lines
        told = [line for line in lines if "hold no seat" in line]
        assert len(told) == 1 and told[0].startswith("notice: ") and "harmless" in told[0], lines
    finally:
        await stop(host)


# -- commands that fail as documented ---------------------------------------------------------------------------
async def test_a_network_seat_is_held_by_a_bot_chosen_by_its_level(relay, tmp_path):
    """``host --level easy`` and ``join GAME --level hard``, as the README shows them (with a small budget, to be
    quick): each seat played by that level's bot, to the end."""
    from cli_helpers import finish

    host_env, _ = home(tmp_path, "host")
    guest_env, _ = home(tmp_path, "guest")
    host = await spawn(
        host_env, "host", "oxono", "--level", "easy", "--iterations", "20", "--seed", "1", "--relay", relay.url
    )
    lines: list[str] = []
    try:
        game = (await read_until(host, r"olixono join (\S{22})", lines)).group(1)
        code, out, err = await run(
            guest_env,
            "join",
            game,
            "--level",
            "hard",
            "--iterations",
            "20",
            "--seed",
            "2",
            "--relay",
            relay.url,
            timeout=120,
        )
        assert code == 0 and "result: " in out and "unknown bot level" not in err, (out, err)
        assert await finish(host, lines) == 0 and any(line.startswith("result: ") for line in lines), lines
    finally:
        await stop(host)


async def test_a_bad_seat_option_is_found_before_a_game_is_offered_or_journaled(relay, tmp_path):
    env, _ = home(tmp_path, "host")
    for bot in (["--bot", "random"], ["--level", "easy", "--claim", "auto", "--bot", "greedy"]):
        code, out, err = await run(env, "host", "oxono", *bot, "--iterations", "5", "--relay", relay.url, timeout=30)
        assert code in (1, 2) and "olixono host:" in err and "Traceback" not in err, (out, err)
        assert "olixono join" not in out and "Hosting" not in out, out
    code, out, err = await run(env, "resume")
    assert code == 0 and "No unfinished game in the journal." in out, out  # no orphan game


@pytest.mark.parametrize(
    "args, stdin",
    [
        (["play", "oxono", "--level", "easy", "--plain"], "help\n" * 5000),  # more than a pipe holds: it writes on
        (["engine"], "list_commands\n" * 5000),
    ],
    ids=["play", "engine"],
)
def test_a_closed_stdout_ends_the_command_quietly(tmp_path, args, stdin):
    """``olixono play oxono --level easy --plain </dev/null | head -3``: the reader gone, the command ends without a
    traceback, with the status a Unix tool ended by SIGPIPE has (141). (Each command is given input enough to write
    more than a pipe holds: a short output could all be written before the reader goes, and end 0.)"""
    import subprocess
    import sys
    import threading

    from cli_helpers import ROOT

    env, _ = home(tmp_path, "newcomer")
    process = subprocess.Popen(
        [sys.executable, "-m", "client", *args],
        env=env,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stdin is not None
    commands = process.stdin

    def type_in() -> None:  # beside the reading: the command answers as it reads
        with contextlib.suppress(BrokenPipeError):
            commands.write(stdin.encode())
            commands.close()

    typing = threading.Thread(target=type_in, daemon=True)
    typing.start()
    try:
        process.stdout.readline()  # head -1, then gone
        process.stdout.close()
        assert process.wait(60) == 141
        err = process.stderr.read().decode() if process.stderr is not None else ""
        assert "Traceback" not in err and "BrokenPipe" not in err, err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        typing.join(10)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.network
async def test_the_commands_printed_on_a_tls_relay_work_when_pasted(tmp_path):
    """On a relay given --cafile: the lobby's host suggestion and the join command it then prints each name the relay
    and the CA, on one line; pasted as they are (a bot added to hold each seat), they play a game to its end."""
    import shlex

    from cli_helpers import finish
    from relay_fixtures import make_tls

    relay = Relay("embedded", tmp_path / "relay", tls=make_tls(tmp_path))
    relay.workdir.mkdir()
    await relay.start()
    host_env, _ = home(tmp_path, "host")
    guest_env, _ = home(tmp_path, "guest")
    host = None
    try:
        code, out, err = await run(host_env, "games", "--relay", relay.url, "--cafile", str(tmp_path / "cert.pem"))
        suggested = re.search(r"^No open game on this relay\. Host one with:  (olixono host .*)$", out, re.M)
        assert code == 0 and suggested, (out, err)
        assert f"--relay {relay.url} --cafile {tmp_path / 'cert.pem'}" in suggested.group(1)
        host = await spawn(host_env, *shlex.split(suggested.group(1))[1:], "--bot", "random", "--seed", "1")
        lines: list[str] = []
        told = (await read_until(host, r"^Tell your opponent to type:  (olixono join .*)$", lines)).group(1)
        assert f"--relay {relay.url} --cafile {tmp_path / 'cert.pem'}" in told, told
        code, out, err = await run(guest_env, *shlex.split(told)[1:], "--bot", "random", "--seed", "2", timeout=90)
        assert code == 0 and "result: " in out, (out, err)
        assert await finish(host, lines) == 0, lines
    finally:
        await stop(host)
        await relay.stop()
