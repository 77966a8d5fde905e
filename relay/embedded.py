"""The embedded relay: an amqtt broker with the project's accounts, topic rules and limits.

amqtt 0.12.1 is used through its plugin interface (accounts, topic rules,
connection log, persistence) plus a small subclass of its broker for four
things the plugins cannot reach; each is marked ``WORKAROUND`` below and has a
test in ``tests/test_relay_embedded.py``:

1. retained-message leak: on every connection amqtt replays the retained
   messages matching *any* client's subscriptions to the newcomer;
2. no size limit on packets: we refuse a packet larger than
   :data:`MAX_PACKET_BYTES` as soon as its fixed header says so, and drop the
   connection (as Mosquitto's ``max_packet_size`` does);
3. unbounded queues: we stop reading from clients while the broker's
   broadcast queue is behind (TCP backpressure), and treat every session as
   clean, so no offline queue grows for a client that never comes back (the
   game history lives in retained messages anyway);
4. no MQTT 5: nothing to do but document it; clients speak MQTT 3.1.1;
5. broadcasting while a client subscribes or unsubscribes: amqtt's broadcast
   loop awaits inside a loop over its subscriptions, so a SUBSCRIBE or
   UNSUBSCRIBE handled meanwhile ("dictionary changed size during
   iteration") ends the broadcast task and the relay delivers nothing more;
   its loop is given a snapshot of the subscriptions instead;
6. sessions touched before the password is checked: amqtt looks up (and
   updates, or deletes) the session of a CONNECT's client id, and takes over
   its live connection, before authenticating, so a refused login could lend
   a connected player another account's name, or deafen or kick them. Here a
   CONNECT is authenticated first (a refusal touches nothing), and a client id
   is one account's (private mode) or one address's (anonymous mode): the
   relay keys sessions by both, so nobody reaches another's session. A client
   that does not finish its CONNECT within :data:`CONNECT_DEADLINE` seconds
   is closed;
7. acknowledged messages dropped: amqtt acknowledges a PUBLISH when it queues
   it, and forgot what was still queued when the publisher disconnected (a
   burst then a DISCONNECT, as re-seeding a relay from a transcript does). The
   queue is delivered before the disconnection is handled;
8. persistence: amqtt's ``SessionDBPlugin`` lost retained messages under a
   burst ("database is locked") and wiped its database on a clean stop by
   default; the relay keeps them in its own store (:mod:`relay.store`);
9. cost: amqtt matches every retained message against each new filter
   (formatting a debug line for each) and asks the plugins once per
   subscriber of every line; the relay looks only at the filter's game, asks
   its read rules directly, and charges what each line makes it send to its
   publisher's owner, and what each subscription makes it send to the
   subscriber's, in two budgets (``Limits.delivery_rate``): a line waits for
   the first, a subscription for the second, so that catching up on a game
   never delays the subscriber's own next line;
10. stopping: amqtt's shutdown cancels each client's reader and waits for it
   to end, and a reader reading at that moment may swallow the cancellation
   (CPython gh-86296, ``asyncio.wait_for`` on 3.11) and read on until the
   client leaves, so a relay told to stop ran on while a player stayed. The
   relay stops listening and cuts every connection first (their readers end
   at once), bounds the shutdown to :data:`SHUTDOWN_SECONDS` and closes its
   store whatever happens.

Beyond amqtt: on a game's topics the relay keeps only what may stand there
(:mod:`relay.lines`): no empty line, only a validly signed line of that game
by the topic's key for the topic's slot (or a copy whose hash the topic
names), and a slot keeps its first line (presence moves forward by its
``seq``). A will must be such a presence line. So nobody, with or without an
account, can erase or replace a game's retained lines here. Once a game's two
seats are known (:mod:`relay.seats`: its offer, and the host's accept or the
offer's invitation), only its players' lines and their copies of each other's
(and the time witnesses' witness lines the offer names, and the players' copies
of them) are taken, live or retained.

And what one owner (an account, or in anonymous mode a source address, however
many connections it opens) may take is bounded (:class:`relay.rules.Limits`):
publishes and subscriptions a second (token buckets: past them the relay reads
that owner's connections more slowly), and the retained lines it may leave, per
owner in a game and per owner in all; a game's lines are also counted in shares
(:mod:`relay.quotas`): each key's own lines, apart from the copies a player holds
of the players' lines (so nobody but a key can fill its own share), and the lines
of everyone who is not a player, per game. Past a cap a new line is refused, live
and retained. Refusals are logged in a few lines however many there are.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import signal
from collections.abc import AsyncIterator, Callable, Collection, Coroutine
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import websockets
from amqtt.adapters import (
    ReaderAdapter,
    StreamReaderAdapter,
    StreamWriterAdapter,
    WebSocketsReader,
    WebSocketsWriter,
    WriterAdapter,
)
from amqtt.broker import Broker, RetainedApplicationMessage
from amqtt.contexts import Action, ListenerType
from amqtt.errors import AMQTTError, MQTTError, NoDataError
from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
from amqtt.plugins.base import BaseAuthPlugin, BasePlugin, BaseTopicPlugin
from amqtt.session import Session
from amqtt.utils import gen_client_id
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol.topics import PAGE_TOPIC
from relay import page, rules, users
from relay.lines import is_game_topic, refusal, replacing
from relay.mosquitto import mosquitto_sub_command
from relay.quotas import Quotas
from relay.rules import DEFAULT_HOST, DEFAULT_PORT, MAX_PACKET_BYTES, Limits
from relay.seats import Seats
from relay.store import DATABASE_NAME, RetainedStore

log = logging.getLogger("relay")

CONNECT_DEADLINE = 10.0
"""Seconds a new connection has to send its whole CONNECT packet."""

SHUTDOWN_SECONDS = 2.0
"""How long stopping waits for amqtt's shutdown, its connections cut (WORKAROUND 10), before it leaves it behind."""

VERIFIED_KEPT = 100_000
"""Lines whose signature the relay remembers having checked (32 bytes each), before it starts again."""

BROADCAST_BACKLOG = 10_000
"""Messages waiting in amqtt's broadcast queue above which the relay stops reading from clients."""

PAID_BEFORE = {"publish": "deliveries", "subscribe": "catch-up"}
"""What a PUBLISH, or a SUBSCRIBE, waits for besides its own budget: the debt of what the owner's earlier lines made
the relay send (to every subscriber), or of what its earlier subscriptions did (their retained lines). Apart, so that
a client's catch-up on a game never delays its own next line."""


# -- plugins ------------------------------------------------------------------
class AccountAuthPlugin(BaseAuthPlugin):
    """Private mode: only accounts in the users file, with their password; anonymous mode: anyone."""

    @dataclass
    class Config:
        users_file: str | None = None
        """The accounts file; ``None`` lets everyone in (anonymous mode)."""
        inner: dict[str, str] = field(default_factory=dict)
        """The accounts of this process's own clients (a time witness beside the relay): name to password, in
        memory only."""
        web_readers: bool = False
        """Private mode: anonymous visitors of the web listener (the page's) may connect as readers: they read every
        game, and publish nothing."""

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self._path = Path(self.config.users_file) if self.config.users_file else None
        self._users: dict[str, users.PasswordHash] = {}
        self._stamp: tuple[int, int] | None = None
        if self._path is not None:
            self._reload()

    def _reload(self) -> None:
        """Re-read the users file if it changed, so adduser/deluser apply without a restart."""
        assert self._path is not None
        stat = self._path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            self._users = users.load(self._path)
            self._stamp = stamp

    async def authenticate(self, *, session: Session) -> bool:
        inner = self.config.inner.get(session.username or "")
        if inner is not None:  # this process's own client (a time witness), in either mode: its password only
            ok = hmac.compare_digest(inner.encode(), (session.password or "").encode())
            if not ok:
                log.info("refused %s: bad password for the relay's own account %r", _peer(session), session.username)
            return ok
        if self._path is None:
            return True
        if not session.username and getattr(session, "relay_web", False) and self.config.web_readers:
            session.relay_reader = True  # the page's visitor: reads, never publishes (GameTopicPlugin)
            return True
        if not session.username:
            log.info("refused %s: anonymous clients are not allowed on this relay", _peer(session))
            return False
        try:
            self._reload()
        except (OSError, users.UsersFileError) as exc:  # keep serving with the accounts we had
            log.error("cannot re-read the users file: %s", exc)
        hashed = self._users.get(session.username)
        password = session.password or ""
        if hashed is None:
            ok = False
        elif hashed.slow:  # a $7$ (PBKDF2) hash: off the event loop, so other clients are not held up
            ok = await asyncio.to_thread(hashed.verify, password)
        else:  # a token's $6$ hash: a microsecond
            ok = hashed.verify(password)
        if not ok:
            log.info("refused %s: bad user name or password for %r", _peer(session), session.username[:50])
        return ok


class GameTopicPlugin(BaseTopicPlugin):
    """The topic rules of :mod:`relay.rules`, for publish, subscribe and delivery."""

    @dataclass
    class Config:
        private: bool = False

    async def topic_filtering(
        self, *, session: Session | None = None, topic: str | None = None, action: Action | None = None
    ) -> bool:
        username = session.username if session is not None else None
        private = self.config.private
        if not topic:
            return False
        if _reader(session):
            allowed = action != Action.PUBLISH and rules.may_watch(topic)
        elif action == Action.PUBLISH:
            allowed = rules.may_publish(username, topic, private=private)
        elif action == Action.SUBSCRIBE:
            allowed = rules.may_subscribe(username, topic, private=private)
        else:
            allowed = rules.may_read(username, topic, private=private)
        if not allowed and action != Action.RECEIVE:
            log.info("denied %s %s on %s", username or "anonymous", action.value if action else "?", topic[:120])
        return allowed


class ConnectionLogPlugin(BasePlugin[Any]):
    """Logs every client that connects and disconnects."""

    async def on_broker_client_connected(self, *, client_id: str, client_session: Session) -> None:
        log.info("connected %s as %s", _peer(client_session), client_session.username or "anonymous")

    async def on_broker_client_disconnected(self, *, client_id: str, client_session: Session) -> None:
        log.info("disconnected %s", _peer(client_session))


def _game_of_filter(text: str) -> str | None:
    """The game a topic or filter names at its fixed game level (``olixono/1/games/<game>/…``), else ``None``."""
    levels = text.split("/", 4)
    if len(levels) > 4 and levels[:3] == ["olixono", "1", "games"] and levels[3] not in ("+", "#", ""):
        return levels[3]
    return None


def _reader(session: Session | None) -> bool:
    """Whether ``session`` is an anonymous reader of a private relay, let in by its web listener (``web_readers``)."""
    return bool(getattr(session, "relay_reader", False))


def _owner(session: Session | None) -> str | None:
    """Who a session's lines count against (:mod:`relay.quotas`): its account or address; ``None`` for a bridge."""
    return getattr(session, "relay_owner", None)


def _peer(session: Session) -> str:
    return f"{session.remote_address}:{session.remote_port} ({session.client_id})"


# -- the broker and its workarounds --------------------------------------------
class PacketTooLargeError(AMQTTError):
    """A client sent a packet larger than the relay accepts; its connection is dropped."""


class _Guard(ReaderAdapter):
    """A client's input that enforces the packet size limit and applies backpressure, over TCP or WebSocket alike.

    It follows the packets as they are read: amqtt reads each packet's first byte and its remaining length one byte
    at a time, then exactly the body; so the reader knows each packet's size from its fixed header, before the body
    is read, and refuses a packet whose whole size is over :data:`MAX_PACKET_BYTES` (as Mosquitto's
    ``max_packet_size`` does), however its fields are cut.
    """

    def _guard(self, broker: RelayBroker) -> None:
        self._broker = broker
        self._body_left = 0  # bytes of the current packet's body still to come
        self._in_header = False  # reading the remaining-length bytes of a fixed header
        self._header_bytes = 0
        self._length = 0
        self._kind = 0  # the current packet's type (3: PUBLISH, 8: SUBSCRIBE)
        self._throttle = 0  # a PUBLISH's or SUBSCRIBE's body comes next: take a token from the owner's buckets first
        self.owner: str | None = None
        """Whose budgets this connection spends: its account, or its address (set once connected)."""

    async def read(self, n: int = -1) -> bytes:
        # WORKAROUND (2): amqtt reads a packet's payload (and each string) with one read of the
        # announced length, whatever it is; refusing large reads bounds every packet we accept.
        # An AMQTTError ends amqtt's reader loop, which closes the connection.
        if n < 0 or n > MAX_PACKET_BYTES:
            raise PacketTooLargeError(f"a packet field of {n} bytes exceeds the relay's limit of {MAX_PACKET_BYTES}")
        # WORKAROUND (3): amqtt queues every received message without bound; while it is behind,
        # stop reading (the kernel's socket buffers then push back on the publishers).
        for _ in range(1000):  # at most ~10 s, then read anyway rather than stall a client forever
            if self._broker.broadcast_backlog() <= BROADCAST_BACKLOG:
                break
            await asyncio.sleep(0.01)
        if self._throttle:
            kind, self._throttle = self._throttle, 0
            if self.owner is not None:
                budget = "subscribe" if kind == 8 else "publish"
                await self._broker.budget(self.owner, budget)
                await self._broker.budget(self.owner, PAID_BEFORE[budget])  # what its lines, or subscriptions, cost
        data: bytes = await super().read(n)
        self._follow(data)
        return data

    def _follow(self, data: bytes) -> None:
        index = 0
        while index < len(data):
            if self._body_left:
                taken = min(self._body_left, len(data) - index)
                self._body_left -= taken
                index += taken
            elif not self._in_header:  # a packet's first byte
                self._in_header, self._header_bytes, self._length = True, 0, 0
                self._kind = data[index] >> 4
                index += 1
            else:  # its remaining length, seven bits a byte
                byte = data[index]
                index += 1
                self._length |= (byte & 0x7F) << (7 * self._header_bytes)
                self._header_bytes += 1
                if byte & 0x80 and self._header_bytes < 4:
                    continue
                self._in_header = False
                size = 1 + self._header_bytes + self._length
                if size > MAX_PACKET_BYTES:
                    raise PacketTooLargeError(
                        f"a packet of {size} bytes exceeds the relay's limit of {MAX_PACKET_BYTES}"
                    )
                self._body_left = self._length
                self._throttle = self._kind if self._kind in (3, 8) and self._length > 0 else 0


class _GuardedReader(_Guard, StreamReaderAdapter):
    """A TCP connection's input, guarded."""

    def __init__(self, reader: asyncio.StreamReader, broker: RelayBroker) -> None:
        StreamReaderAdapter.__init__(self, reader)
        self._guard(broker)


class _GuardedWebReader(_Guard, WebSocketsReader):
    """A WebSocket connection's input (MQTT in binary messages, each at most a packet's size), guarded."""

    def __init__(self, websocket: ServerConnection, broker: RelayBroker) -> None:
        WebSocketsReader.__init__(self, websocket)
        self._guard(broker)


class _Subscriptions(dict[str, list[tuple[Session, int]]]):
    """amqtt's table of subscriptions, whose ``items()`` is a snapshot (WORKAROUND 5)."""

    def items(self) -> list[tuple[str, list[tuple[Session, int]]]]:  # type: ignore[override]
        return [(topic_filter, list(holders)) for topic_filter, holders in super().items()]


def _transport_of(writer: WriterAdapter) -> asyncio.WriteTransport | None:
    """The transport under amqtt's adapter of a connection's writing end (a StreamWriter, or a WebSocket)."""
    stream = getattr(writer, "_writer", None) or getattr(writer, "_protocol", None)
    transport = getattr(stream, "transport", None)
    return transport if isinstance(transport, asyncio.WriteTransport) else None


class _Closed(Exception):
    """A connection the relay closed before it had a session (already logged in one line)."""


def _one_line(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0][:200]


class _Bucket:
    """A token bucket: ``burst`` tokens, ``rate`` more a second."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.when = self.burst, now

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.when) * self.rate)
        self.when = now

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.burst

    async def take(self, tokens: int = 1) -> None:
        """Wait until ``tokens`` are there (at least one, once in debt), then take them."""
        loop = asyncio.get_running_loop()
        self._refill(loop.time())
        while self.tokens < min(tokens, self.burst):
            await asyncio.sleep((min(tokens, self.burst) - self.tokens) / self.rate)
            self._refill(loop.time())
        self.tokens -= tokens

    def spend(self, tokens: int, now: float, *, most_debt: float | None = None) -> None:
        """Take ``tokens`` at once, into debt if need be (at most ``most_debt``): the next :meth:`take` waits until it
        is paid."""
        self._refill(now)
        self.tokens -= tokens
        if most_debt is not None:
            self.tokens = max(self.tokens, -most_debt)


class RelayBroker(Broker):
    """amqtt's broker with the relay's workarounds (see the module docstring)."""

    def __init__(
        self,
        *args: Any,
        private: bool = False,
        store: RetainedStore | None = None,
        limits: Limits | None = None,
        inner: Collection[str] = (),
        page_root: Path | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._private = private
        self._inner = frozenset(inner)  # the accounts of this process's own clients (RelaySettings.inner_accounts)
        self.limits = limits or Limits()
        self._store = store
        self._per_address: dict[str, int] = {}
        self._open: set[WriterAdapter] = set()  # every connection accepted and not yet ended, session or not
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        self._verified: set[bytes] = set()  # lines whose signature was checked (relay.lines): a copy is not again
        self.seats = Seats(self._held_line)
        self.quotas = Quotas(self.limits, self.seats)
        self._by_game: dict[str, dict[str, None]] = {}  # each game's retained topics, in order (WORKAROUND 9)
        self._refused: dict[str, int] = {}  # lines refused from each owner, to log a flood in a few lines
        self.page_root = page_root or page.page_root()  # what the web listener serves, if there is one
        # WORKAROUND (5): Broker._run_broadcast awaits while it iterates self._subscriptions.items().
        self._subscriptions = _Subscriptions(self._subscriptions)  # type: ignore[has-type]

    async def _start_listeners(self) -> None:
        # WORKAROUND (8): retained messages come from the relay's own store (relay/store.py), loaded after
        # amqtt's start cleared its table and before anyone can connect.
        if self._store is not None:
            loaded = self._store.load()
            for topic, data in loaded.items():
                self._retained_messages[topic] = RetainedApplicationMessage(None, topic, data, 1)
            self.quotas.load(loaded, private=self._private)
            for topic in loaded:
                self._index(topic)
        await super()._start_listeners()

    async def retain_message(
        self,
        source_session: Session | None,
        topic_name: str | None,
        data: bytes | bytearray | None,
        qos: int | None = None,
    ) -> None:
        new = False
        if topic_name is not None and is_game_topic(topic_name):
            held = self._retained_messages.get(topic_name)
            owner = _owner(source_session)
            line = bytes(data or b"")
            why = replacing(topic_name, line, held.data if held is not None else None)
            why = why or self.seats.refusal(topic_name, line)
            new = held is None and bool(line)
            if why is None and new:
                why = self.quotas.refusal(topic_name, line, owner)
            if why is not None:  # checked again here, with no await before the line is stored
                self._refuse(owner or "the relay", topic_name, why)
                return
            self.quotas.keep(topic_name, line, owner, new=new)
            if new:
                self._index(topic_name)
        await super().retain_message(source_session, topic_name, data, qos)
        if self._store is not None and topic_name is not None:
            self._store.put(topic_name, bytes(data) if data else None)

    async def _handle_message_delivery(
        self, client_session: Session, handler: BrokerProtocolHandler, wait_deliver: asyncio.Future[Any]
    ) -> bool:
        # A game's topics hold only the lines that may stand there (relay.lines): anything else is dropped here, before
        # it reaches a subscriber or the retained store (acknowledged all the same: MQTT 3.1.1 cannot say no).
        message = wait_deliver.result()
        topic = getattr(message, "topic", None)
        if topic and is_game_topic(topic):
            held = self._retained_messages.get(topic)
            if len(self._verified) > VERIFIED_KEPT:
                self._verified.clear()
            data = bytes(message.data or b"")
            why = refusal(topic, data, held.data if held is not None else None, self._verified)
            why = why or self.seats.refusal(topic, data)  # a seated game's strangers: refused live too
            packet = getattr(message, "publish_packet", None)
            if why is None and held is None and packet is not None and packet.retain_flag:
                why = self.quotas.refusal(topic, data, _owner(client_session))  # refused live too: a flood
            if why is not None:
                self._refuse(_owner(client_session) or _peer(client_session), topic, why)
                return True
        delivered: bool = await super()._handle_message_delivery(client_session, handler, wait_deliver)
        return delivered

    def _held_line(self, topic: str) -> bytes | None:
        """The line the relay keeps on ``topic``, if any."""
        held = self._retained_messages.get(topic)
        return bytes(held.data) if held is not None and held.data else None

    def _index(self, topic: str) -> None:
        game = _game_of_filter(topic)
        if game is not None:
            self._by_game.setdefault(game, {})[topic] = None  # a dict: in the order they came, as amqtt sends them

    def _refuse(self, who: str, topic: str, why: str) -> None:
        """Log a refused line: the first few of each publisher, then one line a thousand (a flood is a few lines)."""
        count = self._refused.get(who, 0) + 1
        if len(self._refused) > 10_000:
            self._refused.clear()
        self._refused[who] = count
        if count <= 3:
            log.info("refused %s on %s: %s", who, topic[:160], why)
        elif count % 1000 == 0:
            log.info("refused %d lines of %s so far; the latest on %s: %s", count, who, topic[:160], why)

    def broadcast_backlog(self) -> int:
        backlog: int = self._broadcast_queue.qsize()
        return backlog

    async def stream_connected(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, listener_name: str
    ) -> None:
        await self._client_connected(listener_name, _GuardedReader(reader, self), StreamWriterAdapter(writer))

    async def ws_connected(self, websocket: ServerConnection, listener_name: str) -> None:
        await self._client_connected(listener_name, _GuardedWebReader(websocket, self), WebSocketsWriter(websocket))

    async def _create_server_instance(
        self, listener_name: str, listener_type: ListenerType, address: str | None, port: int, ssl_context: Any
    ) -> Any:
        """amqtt's servers, but the web listener's: MQTT over WebSocket at :data:`relay.page.MQTT_PATH`, each message
        at most a packet's size, uncompressed (a deflated message could unfold past any limit), and the page's files
        on a plain ``GET`` of any other path (:mod:`relay.page`)."""
        if listener_type != ListenerType.WS:
            return await super()._create_server_instance(listener_name, listener_type, address, port, ssl_context)
        return await websockets.serve(
            partial(self.ws_connected, listener_name=listener_name),
            address,
            port,
            ssl=ssl_context,
            subprotocols=[websockets.Subprotocol("mqtt")],
            process_request=self._page_request,
            max_size=MAX_PACKET_BYTES,
            compression=None,
            open_timeout=CONNECT_DEADLINE,
        )

    def _page_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """A request to the web listener: the upgrade at the MQTT path goes on (``None``), anything else is a file of
        the page, or 404."""
        if request.path.split("?", 1)[0] == page.MQTT_PATH:
            return None
        answer = page.reply(self.page_root, request.path, request.headers.get("Accept-Encoding", ""))
        return Response(
            answer.status,
            answer.reason,
            Headers([*answer.headers, ("Content-Length", str(len(answer.body)))]),
            answer.body,
        )

    async def _initialize_client_session(
        self, reader: ReaderAdapter, writer: WriterAdapter, remote_address: str, remote_port: int
    ) -> tuple[BrokerProtocolHandler, Session]:
        """Read the CONNECT (within the deadline), check the password, and only then find the client's session."""
        peer = f"{remote_address}:{remote_port}"
        try:
            handler, session = await asyncio.wait_for(
                BrokerProtocolHandler.init_from_connect(reader, writer, self.plugins_manager), CONNECT_DEADLINE
            )
        except (TimeoutError, AMQTTError, MQTTError, NoDataError) as exc:
            why = (
                f"no CONNECT within {CONNECT_DEADLINE:g} s" if isinstance(exc, asyncio.TimeoutError) else _one_line(exc)
            )
            # a connection that closed before sending anything (a probe: is a relay listening?) is no news
            (log.debug if isinstance(exc, NoDataError) else log.info)("closed %s: %s", peer, why)
            with contextlib.suppress(Exception):
                await writer.close()
            raise _Closed from None
        session.relay_web = isinstance(reader, _GuardedWebReader)  # an anonymous one may be a reader (web_readers)
        # WORKAROUND (6): the password first; a refused CONNECT touches no session.
        authenticated = await super()._authenticate(session, None)
        if not authenticated:
            handler.attach(session, reader, writer)
            with contextlib.suppress(Exception):
                await handler.mqtt_connack_authorize(False)
                await writer.close()
            raise _Closed
        session.relay_authenticated = True
        if _reader(session):
            session.will_flag = False  # a reader publishes nothing, its will neither
        will = session.will_topic if session.will_flag else None
        if will is not None and is_game_topic(will):  # a will is published long after it is checked: presence only
            refused = refusal(will, bytes(session.will_message or b""), None) or (
                None if will.endswith("/presence") else "a will on a game's topics is a presence line"
            )
            if refused is not None:
                log.info("dropped the will of %s on %s: %s", peer, will[:160], refused)
                session.will_flag = False
        # whose budgets and caps it spends: an account's, or (anonymous) its address's, however many connections
        owner = session.username if self._private and not _reader(session) else remote_address
        if session.username in self._inner:  # this process's own client (a time witness): no owner's budgets or caps
            owner = None
        if isinstance(reader, _Guard):
            reader.owner = owner
        session.relay_owner = None if owner is not None and rules.is_bridge_name(owner) else owner
        # ... and the client id is the account's (private) or the address's (anonymous) own.
        given = session.client_id or gen_client_id()
        session.client_id = f"{owner}|{given}"
        # WORKAROUND (3): a persistent session (clean_session=0) makes amqtt queue every message for it,
        # without bound, while it is away; clients rebuild games from retained messages instead.
        session.clean_session = True
        await self._delete_session(session.client_id)  # this account's own earlier session, if any
        session.parent = 0
        return handler, session

    async def _authenticate(self, session: Session, listener: Any) -> bool:
        # Checked once, before the session was looked up (WORKAROUND 6).
        return bool(getattr(session, "relay_authenticated", False))

    async def _client_connected(self, listener_name: str, reader: ReaderAdapter, writer: WriterAdapter) -> None:
        peer = writer.get_peer_info()
        address = peer[0] if peer is not None else "?"
        most = self.limits.connections_per_address
        if most and self._per_address.get(address, 0) >= most:
            log.info("closed %s: already %d connections from that address", address, most)
            with contextlib.suppress(Exception):
                await writer.close()
            return
        self._per_address[address] = self._per_address.get(address, 0) + 1
        self._open.add(writer)
        try:
            await super()._client_connected(listener_name, reader, writer)
        except _Closed:  # raised before amqtt's own handling: release the connection as it would
            self._servers[listener_name].release_connection()
        finally:  # amqtt returns from a session's end without closing every connection: closed here
            self._open.discard(writer)
            transport = _transport_of(writer)
            if transport is not None and not transport.is_closing():
                transport.close()
            left = self._per_address.pop(address) - 1
            if left:
                self._per_address[address] = left

    async def add_subscription(self, subscription: tuple[str, int], session: Session) -> int:
        held = sum(
            1
            for holders in self._subscriptions.values()
            for holder, _ in holders
            if holder.client_id == session.client_id
        )
        if self.limits.subscriptions and held >= self.limits.subscriptions:
            log.info("refused a subscription of %s: it holds %d already", _peer(session), held)
            return 0x80
        granted: int = await super().add_subscription(subscription, session)
        return granted

    def _bucket(self, owner: str, kind: str) -> _Bucket | None:
        """``owner``'s token bucket for ``kind`` (publish, subscribe, deliveries, catch-up); ``None`` when it is not
        limited."""
        limits = self.limits
        rate, burst = {
            "publish": (limits.publish_rate, limits.publish_burst),
            "subscribe": (limits.subscribe_rate, limits.subscribe_burst),
            "deliveries": (limits.delivery_rate, limits.delivery_burst),
            "catch-up": (limits.delivery_rate, limits.delivery_burst),
        }[kind]
        if not rate:
            return None
        bucket = self._buckets.get((kind, owner))
        if bucket is None:
            now = asyncio.get_running_loop().time()
            if len(self._buckets) > 10_000:  # forget the owners whose budget is whole again
                self._buckets = {name: kept for name, kept in self._buckets.items() if not kept.full(now)}
            bucket = self._buckets[(kind, owner)] = _Bucket(rate, burst, now)
        return bucket

    async def budget(self, owner: str, kind: str) -> None:
        """Wait until ``owner`` may publish (or subscribe) once more, or until what its earlier lines (``deliveries``)
        or subscriptions (``catch-up``) made the relay send is paid for (token buckets, :class:`Limits`)."""
        bucket = self._bucket(owner, kind)
        if bucket is not None:
            await bucket.take(1 if kind in PAID_BEFORE else 0)

    def _charge(self, session: Session | None, kind: str, deliveries: int, *, capped: bool = False) -> None:
        """``deliveries`` messages sent for ``session``'s owner: its line's subscribers (``deliveries``: its next
        publish waits until they are paid for), or its subscription's retained lines (``catch-up``: its next
        subscription waits)."""
        owner = getattr(session, "relay_owner", None)
        if owner is None or not deliveries:
            return
        bucket = self._bucket(owner, kind)
        if bucket is not None:
            # ``capped``: one game's catch-up (bounded by the game's caps) leaves a debt of one burst at most: a client
            # that reconnects, or asks for its game again, from several connections would otherwise wait longer on
            # each subscription, past its own timeout, and reconnect, for ever. A wildcard's catch-up (the whole
            # store) is paid in full.
            bucket.spend(deliveries, asyncio.get_running_loop().time(), most_debt=bucket.burst if capped else None)

    def cut_connections(self) -> None:
        """Stop listening, and end every connection at once (WORKAROUND 10): each reader ends on its own, whatever
        became of the cancellation amqtt's shutdown sends it. Those without a session too (still connecting, or
        refused): none is left open for the garbage collector to find."""
        for server in self._servers.values():
            if server.instance is not None:
                server.instance.close()
        for writer in list(self._open):
            transport = _transport_of(writer)
            if transport is not None:
                transport.abort()

    def connections(self) -> int:
        """Connections the listener counts as open."""
        return sum(server.conn_count for server in self._servers.values())

    async def _handle_disconnect(self, client_session: Session, handler: Any, disconnect_waiter: Any) -> None:
        # WORKAROUND (7): what amqtt acknowledged but had not delivered yet goes out before the session ends.
        queue = client_session.delivered_message_queue
        loop = asyncio.get_running_loop()
        while not queue.empty():
            delivered: asyncio.Future[Any] = loop.create_future()
            delivered.set_result(queue.get_nowait())
            await self._handle_message_delivery(client_session, handler, delivered)
        await super()._handle_disconnect(client_session, handler, disconnect_waiter)

    async def _publish_retained_messages_for_subscription(
        self, subscription: tuple[str, int], session: Session
    ) -> None:
        # WORKAROUND (1): amqtt 0.12.1 calls this on each new connection for every filter that *any*
        # client holds (Broker._handle_client_session), which sends a client other clients'
        # retained messages it never asked for, past the topic rules. Serve only the session's own.
        topic_filter, qos = subscription
        holders = self._subscriptions.get(topic_filter, ())
        handler = self._get_handler(session)
        if handler is None or not any(held.client_id == session.client_id for held, _ in holders):
            return
        # WORKAROUND (9): amqtt matches every retained message of the relay against the filter, formatting a debug
        # line for each; a game's filter looks only at that game's lines. The subscriber's owner pays for them.
        game = _game_of_filter(topic_filter)
        topics = self._by_game.get(game, ()) if game is not None else list(self._retained_messages)
        tasks = []
        for topic in list(topics):
            retained = self._retained_messages.get(topic)
            if retained is not None and self._matches(topic, topic_filter):
                tasks.append(
                    asyncio.ensure_future(
                        handler.mqtt_publish(retained.topic, retained.data, min(qos, retained.qos or qos), retain=True)
                    )
                )
        self._charge(session, "catch-up", len(tasks), capped=game is not None)
        if tasks:
            await asyncio.wait(tasks)

    async def _run_broadcast(self, running_tasks: Any) -> None:
        # WORKAROUND (9): amqtt's own loop, with two changes: each line's deliveries are charged to its publisher's
        # owner (a flood fanned out to many subscriptions of its own is paced by what it costs everyone), and the
        # read rules are asked directly rather than through the plugin manager, once per subscriber.
        broadcast = await self._broadcast_queue.get()
        topic = broadcast["topic"]
        sent = 0
        for topic_filter, subscriptions in self._subscriptions.items():
            if not self._matches(topic, topic_filter):
                continue
            for target_session, sub_qos in subscriptions:
                if target_session.transitions.state != "connected":
                    continue  # every session is clean here (WORKAROUND 3): nothing is kept for one away
                if not (
                    rules.may_watch(topic)
                    if _reader(target_session)
                    else rules.may_read(target_session.username, topic, private=self._private)
                ):
                    continue
                handler = self._get_handler(target_session)
                if handler:
                    running_tasks.append(
                        asyncio.ensure_future(
                            handler.mqtt_publish(topic, broadcast["data"], broadcast.get("qos", sub_qos), retain=False)
                        )
                    )
                    sent += 1
        self._charge(broadcast.get("session"), "deliveries", sent)


# -- configuration and running ------------------------------------------------
WEB_LISTENER = "web"
"""The name of the web listener (:attr:`RelaySettings.web_port`) in amqtt's configuration."""
INNER_LISTENER = "default"
"""The name of the inner listener (:attr:`RelaySettings.inner_listener`) in amqtt's configuration, where there is one
(:meth:`RelaySettings.broker_config` says why); the relay's own is then ``relay``, else ``default``."""


@dataclass
class RelaySettings:
    """How to run an embedded relay (the ``olixono relay`` options)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    users_file: Path | None = None
    data_dir: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    limits: Limits = field(default_factory=Limits)
    extra_plugins: dict[str, dict[str, Any]] = field(default_factory=dict)
    inner_accounts: dict[str, str] = field(default_factory=dict)
    """Accounts for this process's own clients (name: password), kept in memory only, in either mode: their lines
    count against no owner's budgets or caps (a bridge's do not either), only the per-key and per-game ones."""
    inner_listener: bool = False
    """A second listener, plain MQTT on a free port of 127.0.0.1, for this process's own clients (a time witness
    beside a relay that listens with TLS, or on another address)."""
    web_port: int | None = None
    """A web listener on this port of ``host`` (0: a free one): the spectator's page, and MQTT over WebSocket at
    ``/mqtt`` under the same checks and limits as the TCP listener (with TLS: https and wss); ``None``: none."""
    web_readers: bool = False
    """Private mode: the web listener lets anonymous visitors read every game (never publish)."""
    page_root: Path | None = None
    """The page's files (default: the installed ``web`` folder)."""

    @property
    def private(self) -> bool:
        return self.users_file is not None

    def broker_config(self) -> dict[str, Any]:
        """The amqtt configuration: one TCP listener and the relay's plugins (none from entry points)."""
        listener: dict[str, Any] = {"type": "tcp", "bind": f"{self.host}:{self.port}", "max_connections": 0}
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate (--tls-cert) and its key (--tls-key)")
        if self.tls_cert is not None:
            listener |= {"ssl": True, "certfile": str(self.tls_cert), "keyfile": str(self.tls_key)}
        if self.users_file is not None and not self.users_file.exists():
            raise FileNotFoundError(f"no users file at {self.users_file} (create it with `olixono relay adduser`)")
        plugins: dict[str, dict[str, Any]] = {
            "relay.embedded.AccountAuthPlugin": {
                "users_file": str(self.users_file) if self.users_file else None,
                "inner": dict(self.inner_accounts),
                "web_readers": self.web_readers,
            },
            "relay.embedded.GameTopicPlugin": {"private": self.private},
            "relay.embedded.ConnectionLogPlugin": {},
        }
        plugins |= self.extra_plugins
        if self.web_readers and self.web_port is None:
            raise ValueError("--web-readers lets the page's visitors read: it needs the page (--web PORT)")
        if self.web_readers and not self.private:
            raise ValueError("--web-readers is for a private relay (--users): on an anonymous one anyone reads already")
        listeners = {self.main_listener: listener}
        if self.web_port is not None:
            listeners[WEB_LISTENER] = listener | {"type": "ws", "bind": f"{self.host}:{self.web_port}"}
        if self.inner_listener:
            # amqtt gives every listener the "default" one's settings where its own are amqtt's defaults (ssl off
            # among them), so the plain inner listener is "default", and the relay's own is the other
            listeners[INNER_LISTENER] = {"type": "tcp", "bind": "127.0.0.1:0", "max_connections": 0}
        return {"listeners": listeners, "plugins": plugins}

    @property
    def main_listener(self) -> str:
        """The name of the relay's own listener in amqtt's configuration."""
        return "relay" if self.inner_listener else "default"


class EmbeddedRelay:
    """A running embedded relay; ``async with EmbeddedRelay(settings) as relay: relay.port``."""

    def __init__(self, settings: RelaySettings | None = None) -> None:
        self.settings = settings or RelaySettings()
        self.broker: RelayBroker | None = None
        self.port: int | None = None
        self.inner_port: int | None = None
        self.web_port: int | None = None
        self._store: RetainedStore | None = None

    @property
    def url(self) -> str:
        scheme = "mqtts" if self.settings.tls_cert else "mqtt"
        return f"{scheme}://{self.settings.host}:{self.port}"

    @property
    def web_url(self) -> str | None:
        """The page's address (``http://host:port/``; https with TLS), if the relay serves it."""
        if self.web_port is None:
            return None
        return f"{'https' if self.settings.tls_cert else 'http'}://{self.settings.host}:{self.web_port}/"

    @property
    def websocket_url(self) -> str | None:
        """Where MQTT over WebSocket is served (``ws://host:port/mqtt``; wss with TLS), if it is."""
        if self.web_port is None:
            return None
        return f"{'wss' if self.settings.tls_cert else 'ws'}://{self.settings.host}:{self.web_port}{page.MQTT_PATH}"

    async def start(self) -> None:
        store = RetainedStore(self.settings.data_dir) if self.settings.data_dir is not None else None
        self.broker = RelayBroker(
            self.settings.broker_config(),
            private=self.settings.private,
            store=store,
            limits=self.settings.limits,
            inner=set(self.settings.inner_accounts),
            page_root=self.settings.page_root,
        )
        self._store = store
        await self.broker.start()
        self.port = self._bound(self.settings.main_listener)
        if self.settings.inner_listener:
            self.inner_port = self._bound(INNER_LISTENER)
        if self.settings.web_port is not None:
            self.web_port = self._bound(WEB_LISTENER)
            if page.ready(self.broker.page_root):  # where clients read the page's address (never a client's to set)
                url = (self.web_url or "").encode()
                self.broker._retained_messages[PAGE_TOPIC] = RetainedApplicationMessage(None, PAGE_TOPIC, url, 1)

    def _bound(self, listener: str) -> int:
        assert self.broker is not None
        server = self.broker._servers[listener].instance  # amqtt offers no public way to read the bound port
        return int(next(iter(server.sockets)).getsockname()[1])

    @property
    def inner_url(self) -> str:
        """Where this process's own clients connect: the inner listener, if there is one, else the relay's address."""
        return f"mqtt://127.0.0.1:{self.inner_port}" if self.inner_port is not None else self.url

    async def stop(self) -> None:
        """Stop listening, cut every connection, shut amqtt down (at most :data:`SHUTDOWN_SECONDS`) and close the
        store (what it queued is on the disk) whatever happens (WORKAROUND 10)."""
        if self.broker is not None:
            broker, self.broker = self.broker, None
            try:
                broker.cut_connections()
                async with asyncio.timeout(SHUTDOWN_SECONDS):
                    await broker.shutdown()
            except TimeoutError:
                log.warning("amqtt's shutdown took more than %s s: left behind", SHUTDOWN_SECONDS)
            finally:
                if self._store is not None:
                    await asyncio.to_thread(self._store.close)  # everything queued is on disk

    async def __aenter__(self) -> EmbeddedRelay:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


class OneLineFormatter(logging.Formatter):
    """Log lines of one line each: an error's traceback becomes its type and message (amqtt logs a whole traceback
    for every delivery to a client that has just gone, hundreds in a busy hour)."""

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            record = logging.makeLogRecord(
                record.__dict__
                | {
                    "msg": f"{record.getMessage()}: {type(error).__name__}: {_one_line(error)}",
                    "args": None,
                    "exc_info": None,
                    "exc_text": None,
                }
            )
        return super().format(record).replace("\n", " | ")


def quiet_amqtt() -> None:
    """amqtt logs every connection at INFO, twice; the relay logs its own lines instead."""
    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.WARNING)


async def serve(
    settings: RelaySettings,
    announce: Any = print,
    stop: asyncio.Event | None = None,
    beside: Callable[[EmbeddedRelay, asyncio.Event], Coroutine[Any, Any, None]] | None = None,
) -> None:
    """Run a relay until Ctrl-C, SIGTERM or ``stop`` is set, then shut it down cleanly; with ``beside``, run it too
    once the relay listens (a time witness, given the relay and the event that stops both), and stop it first. A
    failure of ``beside`` stops the relay and is raised."""
    quiet_amqtt()
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop.set)
            installed.append(signum)
    try:
        async with EmbeddedRelay(settings) as relay:
            for line in describe(relay):
                announce(line)
            task = asyncio.create_task(beside(relay, stop)) if beside is not None else None
            if task is not None:
                task.add_done_callback(lambda _: stop.set())
            await stop.wait()
            announce("stopping the relay...")
            if task is not None:
                await task  # it ends by itself once stop is set (its error, if any, is raised here)
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
    announce("relay stopped")


def describe(relay: EmbeddedRelay) -> list[str]:
    """What ``olixono relay`` prints once it listens."""
    s = relay.settings
    mode = f"private: accounts from {s.users_file}" if s.private else "anonymous: anyone who can reach it may play"
    lines = [
        f"olixono relay listening on {relay.url}",
        f"  mode: {mode}",
        "  retained games: "
        + (f"kept in {s.data_dir / DATABASE_NAME}" if s.data_dir else "in memory only (use --data DIR to keep them)"),
        f"  players point their olixono client at {relay.url}"
        + (" with their key as user name and their relay password" if s.private else ""),
        "  any MQTT 3.1.1 client works too, e.g. "
        f"{mosquitto_sub_command(s.host, relay.port or 0, s.private, s.tls_cert)}",
        *(
            ["    (--cafile: the certificate itself when it is self-signed, else the CA that signed it)"]
            if s.tls_cert
            else []
        ),
        *(
            [
                f"  the watching page: {relay.web_url} (MQTT over WebSocket at {relay.websocket_url}"
                + ("; anonymous visitors read, never publish)" if s.web_readers else ")")
            ]
            if relay.web_url
            else []
        ),
        "  stop with Ctrl-C",
    ]
    if s.host not in ("127.0.0.1", "localhost", "::1"):
        lines.insert(2, "  reachable from other machines: give players this host's address instead of " + s.host)
    return lines


@contextlib.asynccontextmanager
async def running(settings: RelaySettings | None = None) -> AsyncIterator[EmbeddedRelay]:
    """An embedded relay for tests and benchmarks (default: a free port on 127.0.0.1, anonymous)."""
    settings = settings or RelaySettings(port=0)
    async with EmbeddedRelay(settings) as relay:
        yield relay
