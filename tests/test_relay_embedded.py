"""The embedded relay's workarounds, each next to a test that shows the amqtt 0.12.1 behaviour it is for.

If an amqtt upgrade changes one of these behaviours, the "confirms" test fails
and says which workaround to revisit.
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from typing import Any

import aiomqtt
import pytest
from amqtt.broker import Broker
from amqtt.errors import PluginLoadError
from relay_fixtures import WRITER, game_id, gather_messages, port_of, retained_topics, signed_line, topic_of

from harness.mqtt import bare_client
from protocol.topics import game_filter
from relay import embedded
from relay.embedded import EmbeddedRelay, RelayBroker, RelaySettings
from relay.rules import MAX_PACKET_BYTES

GAME = game_id("L")
RETAINED = topic_of(GAME, WRITER, "1")
LINE = signed_line(WRITER, GAME, "1")
"""A line the relay keeps on its topic (a game's topics hold only validly signed lines)."""


def _client(port: int, **kwargs) -> aiomqtt.Client:
    return bare_client(port, timeout=5, **kwargs)


def _port(broker: Broker) -> int:
    port: int = broker._servers["default"].instance.sockets[0].getsockname()[1]
    return port


async def _plain_amqtt(plugins: dict[str, Any] | None = None) -> Broker:
    config = {
        "listeners": {"default": {"type": "tcp", "bind": "127.0.0.1:0"}},
        "plugins": plugins or {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }
    broker = Broker(config)
    await broker.start()
    return broker


async def _leaked_to_a_client_that_never_subscribed(port: int) -> dict[str, bytes]:
    async with _client(port) as writer, _client(port) as subscriber:
        await writer.publish(RETAINED, LINE, qos=1, retain=True)
        await subscriber.subscribe(game_filter(GAME), qos=1)
        await asyncio.sleep(0.2)
        async with _client(port) as bystander:  # subscribes to nothing
            return await gather_messages(bystander, "#", timeout=1.0)


@pytest.mark.network
async def test_confirms_amqtt_sends_retained_messages_to_a_client_that_never_subscribed():
    broker = await _plain_amqtt()
    try:
        assert await _leaked_to_a_client_that_never_subscribed(_port(broker)) == {RETAINED: LINE}
    finally:
        await broker.shutdown()


@pytest.mark.network
async def test_workaround_the_relay_sends_no_retained_message_nobody_asked_for():
    async with EmbeddedRelay(RelaySettings(port=0)) as relay:
        assert await _leaked_to_a_client_that_never_subscribed(port_of(relay)) == {}
        async with _client(port_of(relay)) as late:  # and a real subscriber still gets the history
            await late.subscribe(game_filter(GAME), qos=1)
            assert await gather_messages(late, game_filter(GAME), count=1) == {RETAINED: LINE}


@pytest.mark.network
async def test_confirms_amqtt_refuses_mqtt_5():
    async with EmbeddedRelay(RelaySettings(port=0)) as relay:
        with pytest.raises(aiomqtt.MqttError):
            async with bare_client(port_of(relay), protocol=aiomqtt.ProtocolVersion.V5, timeout=3):
                pass
        async with _client(port_of(relay)):  # 3.1.1, as every olixono client speaks
            pass


@pytest.mark.network
async def test_confirms_only_the_older_acl_key_of_amqtts_acl_plugin_loads():
    acl = "amqtt.plugins.topic_checking.TopicAccessControlListPlugin"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(PluginLoadError):
            Broker(
                {
                    "listeners": {"default": {"type": "tcp", "bind": "127.0.0.1:0"}},
                    "plugins": {acl: {"subscribe_acl": {"anonymous": ["#"]}}},
                }
            )
        Broker(
            {
                "listeners": {"default": {"type": "tcp", "bind": "127.0.0.1:0"}},
                "plugins": {acl: {"acl": {"anonymous": ["#"]}}},
            }
        )
    # hence the relay's own topic plugin (relay.embedded.GameTopicPlugin) on relay.rules
    assert "relay.embedded.GameTopicPlugin" in RelaySettings().broker_config()["plugins"]


@pytest.mark.network
async def test_confirms_amqtts_persistence_forgets_retained_messages_on_a_clean_stop_by_default(tmp_path):
    database = "amqtt.contrib.persistence.SessionDBPlugin"
    connection = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
    plugins = {
        "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
        database: {"connection": connection},
    }  # clear_on_shutdown defaults to True
    for run in range(2):
        broker = await _plain_amqtt(plugins)
        try:
            if run == 0:
                async with _client(_port(broker)) as writer:
                    await writer.publish(RETAINED, LINE, qos=1, retain=True)
                await asyncio.sleep(0.2)
            else:
                assert broker.retained_messages == {}
        finally:
            await broker.shutdown()
    # the relay keeps retained messages in its own store (relay/store.py, WORKAROUND 8)
    assert database not in RelaySettings(data_dir=tmp_path / "data").broker_config()["plugins"]


@pytest.mark.network
async def test_workaround_a_data_folder_written_by_amqtts_plugin_is_read_by_the_relay(tmp_path):
    """A relay upgraded from the plugin: what the plugin kept is served, and kept in the relay's own table."""
    database = "amqtt.contrib.persistence.SessionDBPlugin"
    connection = f"sqlite+aiosqlite:///{tmp_path / 'data' / 'retained.sqlite3'}"
    (tmp_path / "data").mkdir()
    broker = await _plain_amqtt(
        {
            "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
            database: {"connection": connection, "clear_on_shutdown": False},
        }
    )
    try:
        async with _client(_port(broker)) as writer:
            await writer.publish(RETAINED, b"kept by the plugin", qos=1, retain=True)
        await asyncio.sleep(0.3)
    finally:
        await broker.shutdown()
    for _ in range(2):  # imported once, then read from the relay's own table
        async with EmbeddedRelay(RelaySettings(port=0, data_dir=tmp_path / "data")) as relay:
            assert retained_topics(relay) == [RETAINED]


@pytest.mark.network
async def test_confirms_amqtts_queues_are_unbounded():
    async with EmbeddedRelay(RelaySettings(port=0)) as relay:
        assert relay.broker is not None and relay.broker._broadcast_queue.maxsize == 0
        async with _client(port_of(relay), clean_session=False, identifier="persistent-client") as client:
            await client.subscribe(game_filter(GAME), qos=1)
            assert relay.broker is not None
            session, _ = relay.broker._sessions["127.0.0.1|persistent-client"]  # the address's own client id
            assert session.retained_messages.maxsize == 0 and session.delivered_message_queue.maxsize == 0
            # workaround: every session is clean, so nothing is queued for a client that went away
            assert session.clean_session is True


async def test_workaround_the_relay_stops_reading_while_amqtt_is_behind(monkeypatch):
    class Backlogged:
        def __init__(self) -> None:
            self.backlog = 10 * embedded.BROADCAST_BACKLOG

        def broadcast_backlog(self) -> int:
            return self.backlog

    broker = Backlogged()
    stream = asyncio.StreamReader()
    stream.feed_data(b"\x10")
    reader = embedded._GuardedReader(stream, broker)  # type: ignore[arg-type]  # only its backlog is read
    pending = asyncio.ensure_future(reader.read(1))
    await asyncio.sleep(0.1)
    assert not pending.done()  # held back while the broker is behind
    broker.backlog = 0
    assert await asyncio.wait_for(pending, 1) == b"\x10"
    with pytest.raises(embedded.PacketTooLargeError):
        await reader.read(MAX_PACKET_BYTES + 1)


@pytest.mark.network
async def test_private_relay_reads_new_accounts_without_a_restart(tmp_path):
    from relay_fixtures import make_accounts

    from relay import users

    users_file = tmp_path / "users"
    (first,) = make_accounts(users_file, 1)
    async with EmbeddedRelay(RelaySettings(port=0, users_file=users_file)) as relay:
        async with _client(port_of(relay), username=first.name, password=first.password):
            pass
        newcomer = make_accounts(tmp_path / "other", 1)[0]
        users.add_user(users_file, newcomer.name, newcomer.password)
        async with _client(port_of(relay), username=newcomer.name, password=newcomer.password):
            pass
        users.delete_user(users_file, first.name)
        with pytest.raises(aiomqtt.MqttError):
            async with _client(port_of(relay), username=first.name, password=first.password):
                pass


@pytest.mark.network
def test_relay_broker_overrides_what_it_patches():
    """The workarounds override amqtt methods by name: fail loudly if amqtt renames them."""
    for name in (
        "stream_connected",
        "_initialize_client_session",
        "_publish_retained_messages_for_subscription",
        "_authenticate",
        "_client_connected",
        "_handle_disconnect",
        "ws_connected",
        "_create_server_instance",
    ):
        assert name in vars(Broker), name
        assert name in vars(RelayBroker), name
    for name in ("_handle_message_delivery", "_delete_session", "_servers", "_broadcast_queue"):
        assert hasattr(Broker, name) or name in Broker.__init__.__code__.co_names, name


async def _delivered_while_others_subscribe(port: int, wait: float, lines: int = 200, readers: int = 8) -> int:
    """Lines a set of subscribers receive of a burst, in all, while other clients subscribe and unsubscribe: each
    reader counts until it has every line, or ``wait`` s have passed."""
    game = game_id("B")
    topic = topic_of(game, WRITER, "1")
    async with contextlib.AsyncExitStack() as stack:
        writer = await stack.enter_async_context(_client(port))
        listening = [await stack.enter_async_context(_client(port)) for _ in range(readers)]
        churners = [await stack.enter_async_context(_client(port)) for _ in range(3)]
        for k, reader in enumerate(listening):  # two filters: a broadcast visits one, then the other
            await reader.subscribe(topic if k % 2 else game_filter(game), qos=1)
        stop = asyncio.Event()

        async def churn(churner: aiomqtt.Client, offset: int) -> None:
            n = offset
            while not stop.is_set():
                n += 1
                await churner.subscribe(f"olixono/1/games/{n}/#", qos=1)  # a new filter: a new key in amqtt's table
                await churner.unsubscribe(f"olixono/1/games/{n}/#")

        async def count(reader: aiomqtt.Client) -> int:
            received = 0
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    async for _ in reader.messages:
                        received += 1
                        if received == lines:
                            break
            return received

        churning = [asyncio.create_task(churn(client, 10_000 * k)) for k, client in enumerate(churners)]
        counting = [asyncio.create_task(count(reader)) for reader in listening]
        burst = [signed_line(WRITER, game, "1", str(n)) for n in range(lines)]  # not retained: each one goes on
        await asyncio.gather(*(writer.publish(topic, line, qos=1) for line in burst))
        received = sum(await asyncio.gather(*counting))
        stop.set()
        await asyncio.gather(*churning, return_exceptions=True)
        return received


@pytest.mark.network
async def test_confirms_amqtt_stops_broadcasting_when_a_subscription_changes_meanwhile(monkeypatch):
    monkeypatch.setattr(embedded, "_Subscriptions", dict)  # the relay without workaround 5 (its topic rules await)
    monkeypatch.setattr(embedded.RelayBroker, "_run_broadcast", Broker._run_broadcast)  # amqtt's own loop
    async with EmbeddedRelay(RelaySettings(port=0)) as relay:
        # acknowledged lines never delivered (a slow machine can only deliver fewer within the wait)
        assert await _delivered_while_others_subscribe(port_of(relay), wait=3) < 200 * 8


@pytest.mark.network
async def test_workaround_the_relay_broadcasts_while_clients_subscribe_and_unsubscribe():
    async with EmbeddedRelay(RelaySettings(port=0)) as relay:
        assert await _delivered_while_others_subscribe(port_of(relay), wait=60) == 200 * 8  # all: it ends with the last
