"""A game's record that nobody can change, through the real command line, on both relays.

1. a loser who re-signs its own last slot after the game loses it for every late watcher, export and verify;
2. one seat, one process: a second ``resume`` or ``join`` of a seat refuses, naming the first;
3. a stranger on an anonymous relay cannot cut a finished game short unnoticed;
4. the coin cannot be chosen by aborting: only the first player may abort;
5. a damaged journal is reported line by line, completed from the relay or refused, never taken silently.

Every process is started here and stopped by its PID; traffic goes to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TypedDict

import pytest
from cli_helpers import finish, games_dir, home, read_until, run, spawn, stop
from protocol_helpers import game_id_in, offered, playable, result_of
from relay_fixtures import Relay, needs_mosquitto

from client.shell.journal import Journal, JournalMeta
from harness.mqtt import bare_client
from protocol import GameSession, Identity, copy_topic, topic_for, verify_transcript
from protocol.keys import random_token
from relay.mosquitto import free_port

pytestmark = needs_mosquitto


@dataclass
class Person:
    """A player at a plain prompt (stdin a pipe): the process, what it printed, its environment."""

    process: asyncio.subprocess.Process
    lines: list[str]
    env: dict[str, str]

    async def type(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        await self.process.stdin.drain()

    async def sees(self, pattern: str) -> re.Match[str]:
        return await read_until(self.process, pattern, self.lines)


@contextlib.asynccontextmanager
async def two_at_prompts(relay: Relay, tmp_path, kind: str) -> AsyncIterator[tuple[str, Person, Person]]:
    """``olixono host`` and ``olixono join`` at plain prompts, until both have seen the seats drawn: the game id, the
    host and the guest (stopped by their PIDs afterwards)."""
    host_env, _ = home(tmp_path, "host")
    guest_env, _ = home(tmp_path, "guest")
    host: Person | None = None
    guest: Person | None = None
    try:
        host = Person(await spawn(host_env, "host", kind, "--relay", relay.url, "--plain", stdin=True), [], host_env)
        game = (await host.sees(r"olixono join (\S{22})")).group(1)
        guest = Person(
            await spawn(guest_env, "join", "--relay", relay.url, "--plain", "--", game, stdin=True), [], guest_env
        )
        for person in (guest, host):
            await person.sees(r"^seats ")
        yield game, host, guest
    finally:
        for someone in (host, guest):
            await stop(someone.process if someone is not None else None)


async def publish(relay: Relay, topic: str, payload: bytes) -> None:
    """What any stranger can do on an anonymous relay."""
    async with bare_client(relay.port, timeout=5) as client:
        await client.publish(topic, payload, qos=1, retain=True)


class Someone(TypedDict):
    env: dict[str, str]
    identity: Identity


async def bot_game(relay: Relay, tmp_path, kind: str = "oxono") -> tuple[str, Someone, Someone, GameSession]:
    """A whole game between two bots, each ``olixono host``/``join`` of its own: the id, both people, the record."""
    host_env, host_id = home(tmp_path, "host")
    guest_env, guest_id = home(tmp_path, "guest")
    host: asyncio.subprocess.Process | None = None
    guest: asyncio.subprocess.Process | None = None
    try:
        host = await spawn(host_env, "host", kind, "--relay", relay.url, "--bot", "random", "--seed", "1")
        host_lines: list[str] = []
        game = (await read_until(host, r"olixono join (\S{22})", host_lines)).group(1)
        guest = await spawn(guest_env, "join", "--relay", relay.url, "--bot", "random", "--seed", "2", "--", game)
        guest_lines: list[str] = []
        assert await finish(guest, guest_lines) == 0, "\n".join(guest_lines)
        assert await finish(host, host_lines) == 0, "\n".join(host_lines)
    finally:
        await stop(host)
        await stop(guest)
    session = GameSession.restore(Journal.open(game, games_dir(host_env)).lines())
    assert session.over
    return game, {"env": host_env, "identity": host_id}, {"env": guest_env, "identity": guest_id}, session


# -- 1. the loser changes the recorded result ------------------------------------------------------------------
async def test_a_loser_who_re_signs_its_last_slot_loses_for_every_late_watcher_export_and_verify(any_relay, tmp_path):
    game, host, guest, record = await bot_game(any_relay, tmp_path)
    people = {host["identity"].public: host, guest["identity"].public: guest}
    winner_key = result_of(record).winner_key or record.chain[-1].signer  # a draw: the one who made the last move
    loser_key = next(key for key in people if key != winner_key)
    last = max((m for m in record.chain if m.signer == loser_key), key=lambda m: m.seq)
    twin = GameSession.restore([m.line for m in record.chain[: last.seq]], people[loser_key]["identity"])
    forged = twin.move(next(m for m in playable(twin) if m != last.get("move"))).line
    await publish(any_relay, topic_for(last), forged.encode())  # its own topic: its account may write there

    watcher_env, _ = home(tmp_path, "watcher")
    seen: list[str] = []
    watching = await spawn(watcher_env, "watch", "--relay", any_relay.url, "--plain", "--", game)
    try:
        status = await finish(watching, seen, timeout=60)
    finally:
        await stop(watching)
    text = "\n".join(seen)
    code, exported, err = await run(watcher_env, "export", "--relay", any_relay.url, "--", game)
    path = tmp_path / "game.txt"
    path.write_text(exported)
    verified, out, verify_err = await run(watcher_env, "verify", str(path))
    if any_relay.kind == "embedded":  # the relay kept the slot's first line: nothing changed, nothing to prove
        assert status == 0 and "warning" not in text and f"result: {result_of(record).sentence()}" in text, text
        assert code == 0 and verified == 0 and result_of(record).sentence() in out, (err, out, verify_err)
        assert "result confirmed by both players" in err and "result confirmed by both players" in out
        return
    # Mosquitto: the forgery replaced the loser's line; the winner's copy of the true line meets it
    winner_name = record.player_of(winner_key)
    assert status == 4, text
    assert re.search(r"^warning: .* signed two lines that cannot both stand \(slot \d+\): so they forfeit", text, re.M)
    assert re.search(rf"^result: {winner_name} wins by forfeit: .*\({winner_name}-equivocation\)", text, re.M), text
    assert code == 4 and "the record holds a proof" in err, (code, err, exported)
    assert forged in exported and last.line in exported  # the proof travels with the record
    assert verified == 4 and f"{winner_name} wins by forfeit" in out and "PROOF:" in out, (out, verify_err)


# -- 2. one seat, one process --------------------------------------------------------------------------------
async def test_a_second_process_for_one_seat_refuses_and_names_the_first(any_relay, tmp_path):
    async with two_at_prompts(any_relay, tmp_path, "olix") as (game, host, guest):
        guest_env = guest.env
        for command in (["resume"], ["join"], ["resume", "--bot", "random"]):
            code, _out, err = await run(
                guest_env, command[0], "--relay", any_relay.url, "--plain", *command[1:], "--", game
            )
            assert code == 1 and f"is open in another olixono process (pid {guest.process.pid}" in err, (command, err)
        await guest.type("quit")  # the first leaves: the seat is free again (and the game unfinished: status 3)
        assert await finish(guest.process, guest.lines) == 3, "\n".join(guest.lines)
        resumed = Person(
            await spawn(guest_env, "resume", "--relay", any_relay.url, "--plain", "--", game, stdin=True), [], guest_env
        )
        try:
            await resumed.sees(r"^Taking up olix game")
            await resumed.type("resign")
            assert await finish(resumed.process, resumed.lines) == 0, "\n".join(resumed.lines)
        finally:
            await stop(resumed.process)
        assert await finish(host.process, host.lines) == 0
        assert not any(" signed two lines" in line for line in host.lines + resumed.lines)


# -- 3. a finished game cut short by a stranger ------------------------------------------------------------------
async def test_a_stranger_cannot_cut_a_finished_game_short_unnoticed(any_relay, tmp_path):
    game, host, guest, record = await bot_game(any_relay, tmp_path, "olix")
    last = record.chain[-1]
    holder = next(key for key in (host["identity"].public, guest["identity"].public) if key != last.signer)
    for topic in (topic_for(last), copy_topic(last, holder)):  # the last line and its copy, emptied
        await publish(any_relay, topic, b"")
    watcher_env, _ = home(tmp_path, "watcher")
    seen: list[str] = []
    watching = await spawn(watcher_env, "watch", "--relay", any_relay.url, "--plain", "--", game)
    try:
        if any_relay.kind == "embedded":  # an empty line is refused: the game is whole
            assert await finish(watching, seen, timeout=60) == 0
            text = "\n".join(seen)
            assert f"result: {result_of(record).sentence()}" in text and "result confirmed by both players" in text, (
                text
            )
        else:  # anonymous Mosquitto erases it; the players' confirmations say that lines are missing
            await read_until(watching, r"^warning: the relay lacks lines of this game: .* confirms an ending", seen)
    finally:
        await stop(watching)


# -- 4. a coin nobody can choose ------------------------------------------------------------------------------
async def test_only_the_first_player_may_abort_after_the_coin_flip(any_relay, tmp_path):
    async with two_at_prompts(any_relay, tmp_path, "oxono") as (_, host, guest):
        seats = next(line for line in guest.lines if line.startswith("seats "))
        first, second = (guest, host) if seats.split(",")[0].endswith("(you)") else (host, guest)
        await second.type("abort")  # walking away from the worse seat
        await second.sees(r"^error: only the first player may abort, before their first move: resign instead")
        await first.type("abort")  # giving up the better seat: allowed
        for person in (first, second):
            await person.sees(r"^result: aborted by pink before their first move \(aborted\)")
            assert person.process.stdin is not None
            person.process.stdin.close()
            assert await finish(person.process, person.lines) == 0


# -- 5. damaged journals --------------------------------------------------------------------------------------
def _damage(journal_file, how: str) -> int:
    """Damage a journal's lines file; the number of the line damaged."""
    lines = journal_file.read_text().splitlines()
    # a move of the main chain, which the relay holds for good (not a presence line it replaced since, say)
    number = [n for n, line in enumerate(lines, 1) if line.split(" ")[1:2] == ["move"]][1]
    if how == "flipped signature":
        line = lines[number - 1]
        lines[number - 1] = line[:-3] + ("AAA" if not line.endswith("AAA") else "BBA")
    elif how == "missing middle line":
        del lines[number - 1]  # the line after it, now line 6, waits for it
    elif how == "cut short":
        number = len(lines)
        journal_file.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
        return number
    journal_file.write_text("\n".join(lines) + "\n")
    return number


@pytest.mark.parametrize("how", ["flipped signature", "missing middle line", "cut short"])
async def test_a_damaged_journal_is_reported_completed_from_the_relay_or_refused(any_relay, tmp_path, how):
    game, host, _, record = await bot_game(any_relay, tmp_path, "olix")
    env = host["env"]
    number = _damage(games_dir(env) / f"{game}.lines", how)
    code, out, err = await run(env, "resume")  # the listing shows the damage
    assert code == 0 and game in out and f"damaged: line {number}:" in out, (out, err)
    code, exported, err = await run(env, "export", "--relay", any_relay.url, "--", game)  # the relay has the lines
    assert code == 0 and f"is damaged (line {number}:" in err and "came from the relay" in err, err
    session, _, problem = verify_transcript(exported.splitlines())
    assert problem is None and session.result == record.result and session.chain == record.chain
    dead = f"mqtt://127.0.0.1:{free_port()}"  # no relay to complete it: refused, never a shorter game
    code, exported, err = await run(env, "export", "--relay", dead, "--timeout", "2", "--", game)
    assert code == 1 and exported == "" and f"line {number}:" in err and "not exporting a shorter game" in err, err


async def test_a_journal_that_cannot_be_read_says_why_in_a_sentence(tmp_path):
    env, identity = home(tmp_path, "guest")
    folder = games_dir(env)
    host, _guest = offered("oxono")
    guest_session = GameSession(host.game_id, identity)
    guest_session.receive(host.transcript[0])
    join = guest_session.join()
    # a secret that does not open the join: the coin flip could never be revealed
    journal = Journal.create(
        JournalMeta(game_id_in(host), "oxono", "guest", identity.public.text, "mqtt://127.0.0.1:9"), folder
    )
    journal.append(host.transcript[0])
    journal.append(join.line)
    journal.update(secret=random_token())
    journal.close()
    code, out, err = await run(env, "resume", "--timeout", "2", "--", game_id_in(host))
    assert code == 1 and "its coin secret does not open your join" in err and "Traceback" not in err, err
    # another game's lines under this game's name
    other, _ = offered("olix")
    meta = json.loads((folder / f"{host.game_id}.json").read_text())
    (folder / f"{host.game_id}.lines").write_text("\n".join(other.transcript) + "\n")
    code, out, err = await run(env, "export", "--", game_id_in(host))
    assert code == 1 and "holds no offer of that game" in err and "Traceback" not in err, err
    code, out, err = await run(env, "resume")
    assert code == 0 and game_id_in(host) in out and "holds no offer of that game" in out, out
    assert meta["game"] == host.game_id
