"""The embedded relay under attack: what a stranger can do with a client id, a half-sent CONNECT or a burst.

Each test makes an attack a stranger could make against the real embedded relay on a free 127.0.0.1 port, and fails
on a relay the attack would harm.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import time

import aiomqtt
import pytest
from relay_fixtures import (
    eventually,
    game_id,
    gather_messages,
    make_accounts,
    port_of,
    retained_topics,
    signed_line,
    topic_of,
)

from harness.mqtt import bare_client
from protocol import Identity
from protocol.messages import encode
from relay import embedded, users
from relay.embedded import EmbeddedRelay, RelaySettings
from relay.rules import Limits

GAME = game_id("G")


def client(port: int, timeout: float = 5, **kwargs) -> aiomqtt.Client:
    return bare_client(port, timeout=timeout, **kwargs)


@functools.cache
def key(name: str) -> Identity:
    """A fixed identity for a name: the embedded relay keeps only lines signed by their topic's key."""
    return Identity.from_seed(hashlib.sha256(name.encode()).digest())


def topic(owner: Identity, slot: str = "1") -> str:
    return topic_of(GAME, owner, slot)


def line(owner: Identity, slot: str = "1", text: str = "x") -> bytes:
    return signed_line(owner, GAME, slot, text)


@pytest.fixture
async def private_relay(tmp_path, monkeypatch):
    """A private relay with two accounts whose password check takes 0.3 s (PBKDF2 as a slow relay would)."""
    accounts = make_accounts(tmp_path / "users", 2)
    real_verify = users.PasswordHash.verify

    def slow_verify(self, password: str) -> bool:
        time.sleep(0.3)  # in amqtt's worker thread: the window an attacker needs
        return real_verify(self, password)

    monkeypatch.setattr(users.PasswordHash, "verify", slow_verify)
    async with EmbeddedRelay(RelaySettings(port=0, users_file=tmp_path / "users")) as relay:
        yield relay, accounts


async def refused_login(port: int, **kwargs) -> None:
    with pytest.raises(aiomqtt.MqttError):
        async with client(port, **kwargs):
            pass


async def test_a_refused_login_with_a_live_client_id_never_lends_its_name(private_relay):
    """Critical: A is connected as client id X; a CONNECT with id X, clean_session=0, B's name and a wrong password
    made amqtt copy B's name into A's live session before checking the password, so that A published as B."""
    relay, (a, b) = private_relay
    async with client(relay.port, identifier="X", clean_session=False, username=a.name, password=a.password) as alice:
        attack = asyncio.create_task(
            refused_login(relay.port, identifier="X", clean_session=False, username=b.name, password="wrong")
        )
        for _ in range(20):  # during the attacker's password check
            await asyncio.sleep(0.02)
            try:
                await alice.publish(
                    topic(b.identity), line(b.identity, text="a line of bob's, sent by alice"), qos=1, retain=True
                )
            except aiomqtt.MqttError:
                break
        await attack
    assert topic(b.identity) not in retained_topics(relay)


async def test_a_refused_login_cannot_deafen_or_kick_a_connected_client(private_relay):
    """High: a refused CONNECT carrying a victim's client id deleted the victim's subscriptions (clean session) or
    kicked it (persistent session) before the password was checked."""
    relay, (a, b) = private_relay
    for clean in (True, False):
        async with (
            client(relay.port, identifier="victim", username=a.name, password=a.password) as victim,
            client(relay.port, username=b.name, password=b.password) as other,
        ):
            await victim.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
            await refused_login(relay.port, identifier="victim", clean_session=clean)  # no account at all
            await refused_login(relay.port, identifier="victim", clean_session=clean, username=b.name, password="x")
            heard = line(b.identity, "1", f"still heard {clean}")
            await other.publish(topic(b.identity, "1"), heard, qos=1, retain=False)
            received = await gather_messages(victim, f"olixono/1/games/{GAME}/#", count=1, timeout=5)
            assert received == {topic(b.identity, "1"): heard}, "the victim was deafened"
            await victim.publish(topic(a.identity, "2"), line(a.identity, "2", "still connected"), qos=1)
    assert await eventually(lambda: not relay.broker.connections()), "a refused login kept its connection"


async def test_a_client_id_belongs_to_its_account(private_relay):
    """Another account using A's client id gets a session of its own: A stays connected and hears everything."""
    relay, (a, b) = private_relay
    async with client(relay.port, identifier="shared", username=a.name, password=a.password) as first:
        await first.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
        async with client(relay.port, identifier="shared", username=b.name, password=b.password) as second:
            from_b = line(b.identity, "3", "from b")
            await second.publish(topic(b.identity, "3"), from_b, qos=1)
            received = await gather_messages(first, f"olixono/1/games/{GAME}/#", count=1, timeout=5)
            assert received == {topic(b.identity, "3"): from_b}, "A no longer hears the game"


@pytest.mark.network
async def test_a_connection_that_never_finishes_its_connect_is_closed(monkeypatch):
    monkeypatch.setattr(embedded, "CONNECT_DEADLINE", 0.5)
    async with EmbeddedRelay(RelaySettings(port=0)) as relay:
        idle_reader, idle_writer = await asyncio.open_connection("127.0.0.1", relay.port)
        half_reader, half_writer = await asyncio.open_connection("127.0.0.1", relay.port)
        half_writer.write(b"\x10\x20\x00\x04MQ")  # the start of a CONNECT, never finished
        await half_writer.drain()
        async with asyncio.timeout(5):
            assert await idle_reader.read() == b""  # closed by the relay
            assert await half_reader.read() == b""
        for writer in (idle_writer, half_writer):
            writer.close()
        assert relay.broker is not None and relay.broker.connections() == 0  # nothing counted as open


@pytest.mark.network
async def test_no_acknowledged_message_is_lost_when_its_publisher_leaves_at_once():
    """Medium: messages amqtt had acknowledged (PUBACK) were dropped when their publisher disconnected right after
    a burst, which is what re-seeding a relay from a transcript does."""
    async with EmbeddedRelay(RelaySettings(port=0)) as relay:
        expected: set[str] = set()
        for burst in range(10):
            lines = {topic(key(f"k{burst}"), str(n)): line(key(f"k{burst}"), str(n)) for n in range(1, 51)}
            topics = list(lines)
            async with client(port_of(relay)) as publisher:
                await asyncio.gather(
                    *(publisher.publish(name, data, qos=1, retain=True) for name, data in lines.items())
                )
            expected.update(topics)  # all acknowledged; the publisher is gone
        assert await eventually(lambda: expected <= set(retained_topics(relay))), expected - set(retained_topics(relay))


@pytest.mark.network
async def test_a_clean_stop_keeps_every_retained_line_written_in_a_burst(tmp_path):
    """Medium: with --data, amqtt's persistence lost lines under a burst ("database is locked": 10,000 in memory,
    9,997 on disk after a clean stop)."""
    unlimited = Limits(
        publish_rate=0, lines_per_owner_game=0, lines_per_owner=0, bytes_per_owner=0, non_player_lines_per_game=0
    )
    settings = RelaySettings(
        port=0, data_dir=tmp_path / "data", limits=unlimited
    )  # 20 publishers (no players), one address
    expected: set[str] = set()
    bursts = {
        number: {topic(key(f"p{number}"), str(n)): line(key(f"p{number}"), str(n)) for n in range(1, 501)}
        for number in range(20)
    }
    async with EmbeddedRelay(settings) as relay:

        async def publisher(number: int) -> None:
            async with client(port_of(relay), timeout=60) as writer:  # 10,000 lines at once, each checked by the relay
                writer.pending_calls_threshold = 1000
                await asyncio.gather(
                    *(writer.publish(name, data, qos=1, retain=True) for name, data in bursts[number].items())
                )
                expected.update(bursts[number])

        await asyncio.gather(*(publisher(number) for number in range(20)))
        async with client(port_of(relay)) as eraser:  # and nobody can clear a game's line (relay/lines.py)
            await eraser.publish(topic(key("p0"), "1"), b"", qos=1, retain=True)
        async with asyncio.timeout(20):
            while set(retained_topics(relay)) != expected:
                await asyncio.sleep(0.05)
    assert len(expected) == 10_000
    async with EmbeddedRelay(settings) as relay:
        assert set(retained_topics(relay)) == expected


def test_a_write_that_fails_is_tried_again_and_one_that_never_succeeds_is_reported(tmp_path, caplog, monkeypatch):
    import sqlite3

    from relay import store as store_module

    store = store_module.RetainedStore(tmp_path)
    store.load()
    real_apply = store_module.RetainedStore._apply
    failures = {"left": 3}

    class Locked:
        """A connection whose first writes fail as a busy SQLite does."""

        def __init__(self, connection) -> None:
            self.connection = connection

        @property
        def in_transaction(self) -> bool:
            in_transaction: bool = self.connection.in_transaction
            return in_transaction

        def execute(self, sql, *args):
            if sql == "BEGIN IMMEDIATE" and failures["left"] > 0:
                failures["left"] -= 1
                raise sqlite3.OperationalError("database is locked")
            return self.connection.execute(sql, *args)

    monkeypatch.setattr(
        store_module.RetainedStore,
        "_apply",
        lambda self, connection, changes: real_apply(self, Locked(connection), changes),  # type: ignore[arg-type]
    )
    store.put("olixono/1/games/x/k/1", b"line")
    store.close()
    reopened = store_module.RetainedStore(tmp_path)
    assert reopened.load() == {"olixono/1/games/x/k/1": b"line"} and store.lost == 0
    failures["left"] = 10**6
    monkeypatch.setattr(store_module, "ATTEMPTS", 3)
    reopened.put("olixono/1/games/x/k/2", b"never written")
    reopened.close()
    assert reopened.lost == 1
    assert "could not write 1 retained messages" in caplog.text


def test_an_error_in_the_relays_log_is_one_line():
    import logging

    record = None
    try:
        raise ConnectionResetError("Connection reset by peer\nsecond line")
    except ConnectionResetError:
        import sys

        record = logging.LogRecord(
            "amqtt.broker",
            logging.ERROR,
            __file__,
            1,
            "Task failed and will be skipped: %s",
            ("<Task>",),
            sys.exc_info(),
        )
    text = embedded.OneLineFormatter("%(message)s").format(record)
    assert text == "Task failed and will be skipped: <Task>: ConnectionResetError: Connection reset by peer"


# -- limits a public relay needs ----------------------------------------------------------------------------
@pytest.mark.network
async def test_connections_from_one_address_are_limited():
    async with EmbeddedRelay(RelaySettings(port=0, limits=Limits(connections_per_address=3))) as relay:
        async with client(port_of(relay)), client(port_of(relay)), client(port_of(relay)):
            with pytest.raises(aiomqtt.MqttError):
                async with client(port_of(relay)):
                    pass
        assert relay.broker is not None
        async with asyncio.timeout(5):
            while relay.broker._per_address:
                await asyncio.sleep(0.02)
        async with client(port_of(relay)):  # the count went down again
            pass


@pytest.mark.network
async def test_subscriptions_per_connection_are_limited():
    async with (
        EmbeddedRelay(RelaySettings(port=0, limits=Limits(subscriptions=3))) as relay,
        client(port_of(relay)) as subscriber,
    ):
        granted = [await subscriber.subscribe(f"olixono/1/games/{n}{'G' * 21}/#", qos=1) for n in range(4)]
        assert [list(codes) for codes in granted[:3]] == [[1]] * 3
        assert list(granted[3]) == [0x80]  # refused
        await subscriber.unsubscribe(f"olixono/1/games/0{'G' * 21}/#")
        assert list(await subscriber.subscribe(f"olixono/1/games/9{'G' * 21}/#", qos=1)) == [1]


@pytest.mark.network
async def test_a_publisher_past_its_budget_is_slowed_down_and_loses_nothing():
    async with (
        EmbeddedRelay(RelaySettings(port=0, limits=Limits(publish_rate=20.0, publish_burst=5))) as relay,
        client(port_of(relay)) as reader,
        client(port_of(relay)) as writer,
    ):
        await reader.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
        started = time.monotonic()
        for n in range(25):
            await writer.publish(topic(key("fast"), str(n + 1)), line(key("fast"), str(n + 1)), qos=1)
        elapsed = time.monotonic() - started
        got = 0
        async with asyncio.timeout(5):
            async for _ in reader.messages:
                got += 1
                if got == 25:
                    break
    assert elapsed >= (25 - 5) / 20 * 0.8  # 20 past the burst, at 20 a second (a lower bound only)


@pytest.mark.network
async def test_connections_of_one_address_share_one_publish_budget():
    """Anonymous mode: a flood spread over many connections from one address counts as one (it was per connection,
    so 60 connections had 60 budgets)."""
    limits = Limits(publish_rate=20.0, publish_burst=5)
    async with (
        EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay,
        client(port_of(relay)) as first,
        client(port_of(relay)) as second,
    ):

        async def burst(writer: aiomqtt.Client, name: str) -> None:
            for n in range(15):
                await writer.publish(topic(key(name), str(n + 1)), line(key(name), str(n + 1)), qos=1)

        started = time.monotonic()
        await asyncio.gather(burst(first, "one"), burst(second, "two"))
        elapsed = time.monotonic() - started
    assert elapsed >= (30 - 5) / 20 * 0.8  # one budget for both: 25 past the burst at 20 a second


@pytest.mark.network
async def test_subscriptions_are_paced_like_publishes():
    """Each subscription makes the relay send a whole game's retained lines: a client re-subscribing in a loop is
    paced (it was not at all)."""
    limits = Limits(subscribe_rate=10.0, subscribe_burst=2)
    async with EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay, client(port_of(relay)) as subscriber:
        started = time.monotonic()
        for _ in range(8):
            await subscriber.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
        elapsed = time.monotonic() - started
    assert elapsed >= (8 - 2) / 10 * 0.8


async def publish_all(writer: aiomqtt.Client, lines: list[tuple[str, bytes]]) -> None:
    for where, payload in lines:
        await writer.publish(where, payload, qos=1, retain=True)


def chats(name: str, count: int, game: str = GAME) -> list[tuple[str, bytes]]:
    return [
        (topic_of(game, key(name), f"chat-{n}"), signed_line(key(name), game, f"chat-{n}", f"junk {n}"))
        for n in range(1, count + 1)
    ]


async def late_watcher_receives(port: int, game: str = GAME) -> int:
    async with client(port) as watcher:
        await watcher.subscribe(f"olixono/1/games/{game}/#", qos=1)
        got = 0
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(1.0):
                async for _ in watcher.messages:
                    got += 1
        return got


@pytest.mark.network
async def test_a_key_keeps_at_most_its_share_of_a_game():
    """One stranger's key signs a valid chat line for a thousand slots of a live game: past the cap the relay refuses
    them, live and retained, and a late watcher is sent only the capped share (it was sent everything)."""
    limits = Limits(lines_per_key=20, publish_rate=0)
    async with EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay:
        async with client(port_of(relay)) as live, client(port_of(relay)) as stranger:
            await live.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
            await publish_all(stranger, chats("stranger", 30))
            got = 0
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(1.0):
                    async for _ in live.messages:
                        got += 1
        assert got == 20  # refused past the cap, not forwarded either
        assert len(retained_topics(relay)) == 20
        assert await late_watcher_receives(port_of(relay)) == 20
        async with client(port_of(relay)) as other:  # another key still has its own share
            await publish_all(other, chats("other", 5))
        assert len(retained_topics(relay)) == 25


@pytest.mark.network
async def test_many_keys_from_one_address_count_as_one_owner():
    """A flood of many connections from one address, each under keys of its own, in one game: the address's cap in a
    game and over all games holds, whatever keys it signs with."""
    limits = Limits(lines_per_owner_game=40, lines_per_owner=60, publish_rate=0)
    async with EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay:
        async with contextlib.AsyncExitStack() as stack:
            writers = [await stack.enter_async_context(client(port_of(relay))) for _ in range(6)]
            await asyncio.gather(*(publish_all(writer, chats(f"flood {n}", 10)) for n, writer in enumerate(writers)))
        assert len(retained_topics(relay)) == 40
        assert await late_watcher_receives(port_of(relay)) == 40
        async with client(port_of(relay)) as writer:  # another game: the address's own total is the cap there
            await publish_all(writer, chats("flood 9", 30, game_id("H")))
        assert len([t for t in retained_topics(relay) if game_id("H") in t]) == 20
        assert relay.broker is not None and relay.broker.quotas.held("127.0.0.1")[0] == 60


@pytest.mark.network
async def test_the_counts_of_a_private_relay_survive_a_restart(tmp_path):
    """With --data, what a key holds is counted again from the store: a restart is no way around the cap."""
    accounts = make_accounts(tmp_path / "users", 1)
    mine = accounts[0]
    settings = RelaySettings(
        port=0,
        users_file=tmp_path / "users",
        data_dir=tmp_path / "data",
        limits=Limits(lines_per_key=10, publish_rate=0),
    )

    def own(count: int, first: int = 1) -> list[tuple[str, bytes]]:
        return [
            (topic_of(GAME, mine.identity, f"chat-{n}"), signed_line(mine.identity, GAME, f"chat-{n}", str(n)))
            for n in range(first, first + count)
        ]

    async with (
        EmbeddedRelay(settings) as relay,
        client(port_of(relay), username=mine.name, password=mine.password) as writer,
    ):
        await publish_all(writer, own(8))
    async with EmbeddedRelay(settings) as relay:
        assert relay.broker is not None and relay.broker.quotas.held(mine.name)[0] == 8
        async with client(port_of(relay), username=mine.name, password=mine.password) as writer:
            await publish_all(writer, own(8, first=9))
        assert len(retained_topics(relay)) == 10


@pytest.mark.network
async def test_presence_moves_forward_at_the_cap():
    """A key at its cap still replaces what a topic holds (presence): a cap adds no topics, it takes none away."""
    limits = Limits(lines_per_key=3, publish_rate=0)
    async with EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay, client(port_of(relay)) as writer:
        me = key("player")
        await publish_all(writer, chats("player", 2))
        for seq in (1, 2):
            here = encode("presence", [("game", GAME), ("seq", str(seq)), ("state", "here")], me).encode()
            await writer.publish(topic(me, "presence"), here, qos=1, retain=True)
        await publish_all(writer, chats("player", 4)[2:])
        await asyncio.sleep(0.2)
        assert relay.broker is not None and relay.broker.retained_messages[topic(me, "presence")].data == here
        assert len(retained_topics(relay)) == 3


@pytest.mark.network
async def test_what_a_line_makes_the_relay_send_is_charged_to_its_publisher():
    """A flood fanned out to many subscriptions of the flooder's own: every delivery counts against the owner, so
    its next lines wait (it was one token a line, whatever the fan-out: 60 subscribers made a 60-fold flood)."""
    limits = Limits(publish_rate=0, delivery_rate=100.0, delivery_burst=10)
    async with EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay, contextlib.AsyncExitStack() as stack:
        readers = [await stack.enter_async_context(client(port_of(relay))) for _ in range(10)]
        for reader in readers:
            await reader.subscribe("olixono/1/fan/#", qos=1)
        writer = await stack.enter_async_context(client(port_of(relay)))
        started = time.monotonic()
        for n in range(20):
            await writer.publish(f"olixono/1/fan/{n}", b"x", qos=1)
        elapsed = time.monotonic() - started
    assert elapsed >= (20 * 10 - 10 - 10) / 100 * 0.8  # 200 deliveries at 100 a second (the last line's is debt)
