"""The embedded relay keeps only what may stand on a game's topics: nobody, account or not, erases or replaces a line.

Pure checks of ``relay.lines`` first, then the attacks on a finished game's record against a running embedded relay
(anonymous, as ``olixono host`` starts it, and private), and what anonymous Mosquitto leaves open (said plainly in
docs/relay.md).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from protocol_helpers import GUEST, HOST, STRANGER, full_game, game_id_in, result_of
from relay_fixtures import Account, Relay, gather_messages, make_accounts

from client.flows import network
from protocol import GameSession, Identity, PublicKey, copy_topic, game_filter, topic_for
from protocol.messages import decode
from relay import users
from relay.lines import refusal

needs_mosquitto = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists(),
    reason="mosquitto is not installed (bash scripts/test installs it)",
)


def finished() -> tuple[GameSession, GameSession]:
    host, guest = full_game("oxono", 3)
    return host, guest


def test_a_valid_line_on_its_own_topic_is_kept():
    host, _ = finished()
    for line in host.transcript:
        message = decode(line)
        assert refusal(topic_for(message), line.encode(), None) is None
        assert refusal(topic_for(message), line.encode(), line.encode()) is None  # the same line again


def test_each_kind_of_junk_is_refused_with_its_reason():
    host, _guest = finished()
    line = host.chain[-1].line
    message = decode(line)
    topic = topic_for(message)
    other = host.chain[-2]
    cases = {
        "empty": (topic, b"", None, "empty line would erase"),
        "junk": (topic, b"x" * 2000, None, "not a valid signed line"),
        "flipped signature": (
            topic,
            line[:-5].encode() + (b"AAAAA" if not line.endswith("AAAAA") else b"BBBBA"),
            None,
            "not a valid signed line",
        ),
        "another key's topic": (
            topic.replace(message.signer.text, STRANGER.public.text),
            line.encode(),
            None,
            "signed by another key",
        ),
        "another slot": (topic.rsplit("/", 1)[0] + "/99", line.encode(), None, "belongs on"),
        "another game": (topic.replace(message.game, "A" * 22), line.encode(), None, "a line of game"),
        "a copy of another line": (copy_topic(other, GUEST.public), line.encode(), None, "names the hash"),
        "a second line for a slot": (topic_for(other), other.line.encode(), None, None),
        "deeper topic": (topic + "/x", line.encode(), None, "not a game topic"),
    }
    for name, (where, payload, held, why) in cases.items():
        problem = refusal(where, payload, held)
        assert (problem is None) if why is None else (problem is not None and why in problem), (name, problem)
    twin = GameSession.restore(
        [m.line for m in host.chain[: other.seq]], HOST if other.signer == HOST.public else GUEST
    )
    forged = twin.resign().line
    assert "keeps its first line" in (refusal(topic_for(decode(forged)), forged.encode(), other.line.encode()) or "")
    assert refusal("olixono/1/lobby-notes", b"", None) is None  # not a game topic: the topic rules decide


def test_presence_moves_forward_only():
    _host, guest = finished()
    here1, gone1, here2 = (guest.presence(True, 1), guest.presence(False, 1), guest.presence(True, 2))
    topic = here1.topic
    assert refusal(topic, gone1.line.encode(), here1.line.encode()) is None
    assert refusal(topic, here2.line.encode(), gone1.line.encode()) is None
    assert "forward" in (refusal(topic, here1.line.encode(), gone1.line.encode()) or "")
    assert "forward" in (refusal(topic, gone1.line.encode(), here2.line.encode()) or "")


async def _publish(client, topic: str, payload: bytes) -> None:
    await client.publish(topic, payload, qos=1, retain=True)


async def _retained(relay: Relay, game: str, account: Account | None = None) -> dict[str, bytes]:
    async with relay.client(account) as late:
        await late.subscribe(game_filter(game), qos=1)
        return await gather_messages(late, game_filter(game), timeout=1.5)


@pytest.fixture(params=["anonymous", "private"])
async def embedded(request, tmp_path):
    """The embedded relay, anonymous or with an account for each player (named by its key)."""
    started = Relay("embedded", tmp_path / "relay")
    started.workdir.mkdir()
    accounts: dict[PublicKey, Account] = {}
    if request.param == "private":
        started.users_file = tmp_path / "users"
        make_accounts(started.users_file, 0)
        for identity in (HOST, GUEST):
            accounts[identity.public] = Account(identity, users.add_user(started.users_file, identity.public.text)[1])
    try:
        await started.start()
        yield started, accounts
    finally:
        await started.stop()


async def test_nobody_can_erase_or_replace_a_finished_games_lines_on_the_embedded_relay(embedded):
    relay, accounts = embedded
    host, _ = finished()
    loser = next(key for player, key in host.seats.items() if player != result_of(host).winner)
    loser_identity = HOST if loser == HOST.public else GUEST

    def client_of(identity):
        return relay.client(accounts[identity.public]) if accounts else relay.client()

    async with client_of(HOST) as h, client_of(GUEST) as g:
        for line in host.transcript:
            message = decode(line)
            await _publish(h if message.signer == HOST.public else g, topic_for(message), line.encode())
    reader = accounts.get(HOST.public)
    before = await _retained(relay, game_id_in(host), reader)
    assert len(before) == len(host.transcript)
    last = max((m for m in host.chain if m.signer == loser), key=lambda m: m.seq)
    twin = GameSession.restore([m.line for m in host.chain[: last.seq]], loser_identity)
    forged = twin.resign().line
    async with client_of(loser_identity) as attacker:
        await _publish(attacker, topic_for(last), forged.encode())  # the loser re-signs its own last slot
        await _publish(attacker, topic_for(last), b"")  # or erases it
        if not accounts:  # a stranger, on an anonymous relay, empties the winner's last line, or fills it with junk
            await _publish(attacker, topic_for(host.chain[-1]), b"")
            await _publish(attacker, topic_for(host.chain[-1]), b"junk")
    assert await _retained(relay, game_id_in(host), reader) == before
    late = GameSession(host.game_id)
    late.receive_all(before.values())
    assert late.result == host.result and not late.proofs


@pytest.mark.network
@pytest.mark.parametrize("kind", ["embedded", pytest.param("mosquitto", marks=needs_mosquitto)])
async def test_a_player_puts_back_a_line_of_its_own_that_vanishes_while_it_is_connected(kind, tmp_path):
    """On anonymous Mosquitto anyone can empty any retained topic; a connected player sees it and publishes its line
    again (the embedded relay refuses the empty line in the first place)."""
    relay = Relay(kind, tmp_path / "relay")
    relay.workdir.mkdir()
    await relay.start()
    try:
        lines: list[str] = []
        me = Identity.generate()
        leave = asyncio.Event()
        options = network.Options(
            relay=f"mqtt://127.0.0.1:{relay.port}",
            identity=me,
            journal_dir=tmp_path / "host",
            write=lines.append,
            timeout=20,
            plain=True,
            commands=_Blocking(leave),  # type: ignore[arg-type]  # stands in for stdin
        )
        hosting = asyncio.create_task(network.host("olix", options))
        async with asyncio.timeout(10):
            while not any("olixono join" in line for line in lines):
                await asyncio.sleep(0.02)
        game = next(line for line in lines if "olixono join" in line).split("olixono join ")[1].split()[0]
        offer_topic = f"olixono/1/games/{game}/{me.public.text}/offer"
        async with asyncio.timeout(10):
            while offer_topic not in await _retained(relay, game):
                await asyncio.sleep(0.05)
        async with relay.client() as stranger:
            await _publish(stranger, offer_topic, b"")
        async with asyncio.timeout(10):
            while not (await _retained(relay, game)).get(offer_topic):
                await asyncio.sleep(0.05)
        if kind == "mosquitto":
            assert any("lost a line of yours" in line for line in lines), lines
        else:
            assert not any("lost a line of yours" in line for line in lines), lines  # refused: nothing vanished
        leave.set()
        async with asyncio.timeout(15):
            await hosting
    finally:
        await relay.stop()


class _Blocking:
    """A command stream (stdin) that gives nothing until ``done`` is set, then ends: the person leaves."""

    def __init__(self, done: asyncio.Event) -> None:
        self.done = done
        self.loop = asyncio.get_running_loop()

    def __iter__(self):
        asyncio.run_coroutine_threadsafe(self.done.wait(), self.loop).result()
        return iter(())


def test_junk_a_topic_held_from_before_does_not_block_the_real_line():
    """Retained messages loaded from a relay's store are not checked at start: junk kept there by an older relay
    gives way to a valid line (a valid line, though, keeps its slot)."""
    host, _ = finished()
    line = host.chain[-1].line
    topic = topic_for(decode(line))
    assert refusal(topic, line.encode(), b"junk from an older relay") is None
    forged_sig = line[:-4] + ("AAAA" if not line.endswith("AAAA") else "BBBA")
    assert refusal(topic, line.encode(), forged_sig.encode()) is None
