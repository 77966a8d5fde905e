"""The transport: one MQTT connection to a relay, kept up, around ``aiomqtt.Client``.

MQTT 3.1.1, QoS 1, retained lines, TCP_NODELAY (without it every QoS 1 round
trip waits ~88 ms for Nagle and delayed ACKs). A :class:`Link` connects,
subscribes, delivers what arrives on the topics it subscribed to (some brokers
leak others; they are dropped), publishes retained lines, and after a lost
connection reconnects with a capped, jittered backoff, calling its
``on_connect`` hook each time (the game publishes again what the relay lacks).
MQTT's errors become a :class:`RelayError`, one sentence for a person, of the kind that says what to do about it
(in aiomqtt's manner: ``MqttError`` and its subclasses): :class:`RelayUnreachable` may pass if tried again,
:class:`RelayRefused` would not.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import random
import socket
import ssl
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiomqtt
from paho.mqtt.client import topic_matches_sub

from client.cores.relays import START_ONE
from protocol.keys import PublicKey
from protocol.topics import DEFAULT_PORT, TLS_PORT

log = logging.getLogger("olixono.transport")

PORTS = {"mqtt": DEFAULT_PORT, "mqtts": TLS_PORT}
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
BACKOFF_FIRST, BACKOFF_CAP = 0.5, 30.0
"""Seconds before the first reconnection attempt, and the most between two."""
QUIET = 0.25
"""After subscribing, the retained lines are taken as all in once nothing new came for this long..."""
QUIET_BEFORE_ANY = 1.0
"""... and, while none has come at all, this long (a loaded relay may take more than :data:`QUIET` to begin: an
export found nothing of a game the relay had)."""
QUIET_AFTER_MARKER = 0.03
SETTLE_MAX = 3.0


class RelayError(Exception):
    """The relay cannot be used, in one sentence for a person; raised as one of its subclasses, which say whether
    trying again may help."""


class RelayUnreachable(RelayError):
    """Nothing answered, or the connection was lost: trying again may help (a :class:`Link` keeps trying)."""


class RelayTimedOut(RelayUnreachable):
    """The relay did not answer in time."""


class RelayRefused(RelayError):
    """Trying again would not help: the relay refused the session, or cannot be spoken to as asked (TLS it does not
    speak, a certificate this machine does not trust, not an MQTT relay)."""


class RelayNeedsLogin(RelayRefused):
    """The relay wants an account's password, and none was given."""


class RelayLoginRefused(RelayRefused):
    """The relay refused the password given: a wrong one, or no such account."""


@dataclass(frozen=True, slots=True)
class RelayAddress:
    """Where a relay is: ``mqtt://[user@]host[:port]`` or ``mqtts://…`` (TLS)."""

    tls: bool
    host: str
    port: int
    user: str | None = None

    @classmethod
    def parse(cls, url: str) -> RelayAddress:
        """The address ``url`` names; ``ValueError`` with a sentence saying what is wrong with it."""
        text = url.strip()
        if "://" not in text:
            raise ValueError(f"{url!r} is not a relay URL: write mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        if scheme not in PORTS:
            raise ValueError(f"{url!r}: a relay URL starts with mqtt:// or mqtts://, not {scheme}://")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"{url!r}: a relay URL has no path, query or fragment")
        if parts.password is not None:
            raise ValueError(
                f"{url!r}: never put a password in the URL; set OLIXONO_RELAY_PASSWORD or type it when asked"
            )
        if not parts.hostname:
            raise ValueError(f"{url!r}: the relay URL names no host")
        try:
            port = parts.port or PORTS[scheme]
        except ValueError:
            raise ValueError(f"{url!r}: the port is not a number from 1 to 65535") from None
        return cls(scheme == "mqtts", parts.hostname, port, parts.username or None)

    @property
    def url(self) -> str:
        user = f"{self.user}@" if self.user else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{host}:{self.port}"

    def __str__(self) -> str:
        return self.url


def account_text(username: str) -> str:
    """An account as the person knows it: a key's account by the key's fingerprint (as the password prompt names it),
    any other by its name."""
    try:
        return f"your account ({PublicKey.from_text(username).fingerprint})"
    except ValueError:
        return f"the account {username[:40]!r}"


def explain(
    address: RelayAddress, exc: BaseException, username: str | None = None, password: str | None = None
) -> RelayError:
    """What an MQTT or socket failure means for a person, as a :class:`RelayError` (``username`` and ``password``: the
    credentials the session was asked with: a refused login without a password wants one, with one is wrong)."""
    where = f"{address.host}:{address.port}"
    cause = exc.__context__ if isinstance(exc, aiomqtt.MqttError) and exc.__context__ is not None else exc
    code = str(exc.rc).lower() if isinstance(exc, aiomqtt.MqttCodeError) else ""
    if "authori" in code or "password" in code:
        if username is None:
            return RelayNeedsLogin(
                f"the relay at {where} wants an account: your account name is your key "
                "(`olixono id` shows it); give its password in OLIXONO_RELAY_PASSWORD or when asked"
            )
        if password is None:  # mqtt://KEY@host: the account is named, its password is asked for
            return RelayNeedsLogin(
                f"the relay at {where} wants the password of {account_text(username)}: give it in "
                "OLIXONO_RELAY_PASSWORD or when asked"
            )
        return RelayLoginRefused(
            f"the relay at {where} refused the login of {account_text(username)}: wrong password, or no such account"
        )
    if isinstance(cause, socket.gaierror):
        return RelayUnreachable(f"cannot find the relay host {address.host!r}: check the name in the relay URL")
    if isinstance(cause, ConnectionRefusedError):
        return RelayUnreachable(f"nothing answers at {where}: no relay runs there{START_ONE}")
    if isinstance(cause, ssl.SSLCertVerificationError):
        return RelayRefused(
            f"the relay at {where} shows a certificate this machine does not trust "
            f"({cause.verify_message}); pass --cafile with its CA"
        )
    if isinstance(cause, ssl.SSLError):
        return RelayRefused(f"TLS with the relay at {where} failed ({cause.reason}); is it an mqtts:// relay?")
    if isinstance(cause, (TimeoutError, asyncio.TimeoutError)):
        return RelayTimedOut(f"the relay at {where} did not answer in time")
    detail = str(exc) or type(exc).__name__
    if "disconnect" in detail.lower():
        return RelayUnreachable(f"the connection to the relay at {where} was lost")
    return RelayUnreachable(f"the connection to the relay at {where} failed: {detail}")


def tls_context(cafile: Path | None) -> ssl.SSLContext:
    """The system's trust store, or ``cafile`` for a private CA."""
    return ssl.create_default_context(cafile=str(cafile) if cafile is not None else None)


STOP_GRACE = 2.0
"""Seconds a link whose ``async with`` block failed or was cancelled has to end by itself before it is cancelled: a
connection attempt is answered in far less on a live relay, and aiomqtt cannot abandon one cleanly."""
Hook = Callable[["Link"], Awaitable[None]]
LinkFactory = Callable[..., "Link"]
"""What makes a :class:`Link` to a relay, given its callbacks (``will``, ``on_connect``, ``on_state``, ``on_line``,
``remember``): ``functools.partial(Link, address, username=…)``."""


class _Client(aiomqtt.Client):
    """``aiomqtt.Client`` whose socket writer never outlives its socket, and the one place that touches aiomqtt's and
    paho's private parts (pinned: aiomqtt<3), each behind a named method: :meth:`when_lost`, :meth:`loss`,
    :meth:`send_now`.

    aiomqtt 2.5 registers the loop's writer for the socket later (``call_soon_threadsafe``) but removes it at
    once; when the socket closes in between (a disconnect right after a PUBACK was queued), the late
    registration fails on a closed descriptor ("Exception in callback ... add_writer ... Bad file descriptor",
    printed to the person's terminal) or, worse, captures a new socket that reuses the number. Here the writer
    is registered at once when paho asks from the loop's own thread, and from another thread (the connecting
    executor) only if that socket is still paho's and open when the loop comes to it.
    """

    def _on_socket_register_write(self, client: Any, userdata: Any, sock: Any) -> None:
        def write() -> None:
            try:
                client.loop_write()
            except Exception as exc:  # a broken connection: aiomqtt's own handling
                if not self._disconnected.done():
                    self._disconnected.set_exception(exc)

        def register() -> None:
            if client.socket() is sock and sock.fileno() > -1:
                self._loop.add_writer(sock.fileno(), write)

        if threading.get_ident() == self._loop_thread:
            register()
        else:
            self._loop.call_soon_threadsafe(register)

    def _on_socket_close(self, client: Any, userdata: Any, sock: Any) -> None:
        fileno = sock.fileno()
        if fileno > -1:
            self._loop.remove_writer(fileno)
        super()._on_socket_close(client, userdata, sock)

    def __init__(self, *args: Any, deliver: Callable[[str, bytes, bool], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # made in the loop's thread: aiomqtt takes the running loop
        self._loop_thread = threading.get_ident()
        self._deliver = deliver

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        # Straight to the Link, as (topic, payload, retain flag): aiomqtt's message iterator makes a task and an
        # asyncio.wait for every message, a good part of a move's trip on loopback.
        self._deliver(message.topic, message.payload, bool(message.retain))

    def when_lost(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once this connection is lost (or closed)."""
        self._disconnected.add_done_callback(lambda _: callback())

    def loss(self) -> BaseException | None:
        """Why this connection was lost, if it was and paho said why."""
        lost = self._disconnected
        return lost.exception() if lost.done() and not lost.cancelled() else None

    def send_now(self, topic: str, payload: bytes) -> bool:
        """Hand a retained QoS 1 message to paho at once (see :meth:`Link.send`); ``False`` if paho refused it."""
        paho = self._client
        # Without its write callback paho writes to the socket at once. With it, aiomqtt would register the
        # writer later (call_soon_threadsafe) but unregister it at once: a line written now would leave a stale
        # registration behind, which can outlive the socket and capture a new one that reuses its number.
        register = paho.on_socket_register_write
        paho.on_socket_register_write = None
        try:
            info = paho.publish(topic, payload, qos=1, retain=True)
        finally:
            paho.on_socket_register_write = register
        if info.rc != 0:
            return False
        sock = paho.socket()
        if paho.want_write() and register is not None and sock is not None:  # what did not fit: the loop's writer
            register(paho, None, sock)
        return True


class Link:
    """One relay connection, kept up while ``async with link:`` runs; read :attr:`incoming`; :meth:`publish` lines.

    Its callbacks are its constructor's: ``will`` is asked, before each connection attempt, for the retained last
    will (topic, line) the relay publishes if the connection is lost; ``on_connect`` runs after each connection
    (subscribe, publish what the relay lacks); ``on_state`` hears ``(connected, sentence)`` on every change;
    ``on_line`` takes each line that arrives; ``remember`` says which topics :attr:`seen` keeps. With ``give_up``
    set, a relay unreachable for that many seconds ends the connection with a :class:`RelayUnreachable`; the first
    connection fails at once with one. Leaving the ``async with`` disconnects cleanly (the relay then does not send
    the will: say goodbye first); a connection that fails meanwhile cancels the block, which then raises its error,
    as a task group would. (:meth:`run` is the same loop, for a caller that runs it as a task itself.)
    """

    def __init__(
        self,
        address: RelayAddress,
        *,
        username: str | None = None,
        password: str | None = None,
        cafile: Path | None = None,
        will: Callable[[], tuple[str, str] | None] | None = None,
        on_connect: Hook | None = None,
        on_state: Callable[[bool, str], None] | None = None,
        give_up: float | None = None,
        keepalive: int = 30,
        on_line: Callable[[str, bytes, bool], Awaitable[None]] | None = None,
        bind_address: str = "",
        remember: Callable[[str], bool] | None = None,
        patient: bool = False,
    ) -> None:
        self.address = address
        self.patient = patient
        """Whether a first connection that fails is tried again, as a lost one is, rather than raised (one of several
        relays: the game goes on through the others meanwhile); a refused login is raised all the same."""
        self.bind_address = bind_address
        self.on_line = on_line
        """Called with each line that arrives (topic, payload, and whether it came from the relay's store: the MQTT
        retain flag, set on what a subscription's catch-up or an asking again brings, never on a line delivered live),
        in the reading task itself: one task hop fewer than :attr:`incoming`, which is used when it is ``None``."""
        self.username, self.password, self.cafile = username, password, cafile
        self.will = will
        self.last_will: tuple[str, str] | None = None
        """The will (topic, line) of the latest connection attempt: what the relay publishes should it lose it."""
        self.on_connect = on_connect
        self.on_state = on_state
        self.give_up = give_up
        self.keepalive = keepalive
        self.incoming: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self._arrivals: asyncio.Queue[tuple[str, bytes, bool] | None] = asyncio.Queue()
        self.subscriptions: list[str] = []
        self.seen: dict[str, bytes] = {}
        """The SHA-256 of what arrived last on each topic since the current connection was made (the relay's retained
        lines first): hashes, not payloads, and only on the topics :attr:`remember` keeps, so that what strangers
        send costs this client next to nothing (:func:`digest` compares)."""
        self.remember = remember
        """Which topics :attr:`seen` keeps (``None``: all)."""
        self.connected = False
        self.connections = 0
        self._client: _Client | None = None
        self._last_arrival = 0.0
        self._arrived = asyncio.Event()  # set on each arrival, for settled() to wait on
        self._down_since = 0.0
        self._stop = asyncio.Event()
        self._running: asyncio.Task[None] | None = None
        self._host: asyncio.Task[Any] | None = None  # the task inside ``async with``, cancelled if the link fails
        self._failed_host = False

    # -- the connection -------------------------------------------------------------------
    async def __aenter__(self) -> Link:
        self._host = asyncio.current_task()
        self._running = asyncio.create_task(self.run())
        self._running.add_done_callback(self._ended)
        return self

    def _ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None and self._host is not None:
            self._failed_host = True
            self._host.cancel()  # as a task group would: the block stops, and __aexit__ raises the link's error

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        assert self._running is not None
        self._host = None  # from here on, a failure is raised below, not by cancelling
        self.stop()
        if exc_type is not None and not self._failed_host:
            # the block failed or was cancelled from outside: the connection is given a moment to end by itself (a
            # connection being made, which aiomqtt cannot abandon cleanly, is made or refused in it: on_connect
            # does nothing once stopping), then it goes, as a task group's child would; its own error, if any,
            # never replaces the block's
            done, _ = await asyncio.wait({self._running}, timeout=STOP_GRACE)
            if not done:
                self._running.cancel()
                await asyncio.gather(self._running, return_exceptions=True)
            return
        try:
            await asyncio.shield(self._running)
        except asyncio.CancelledError:
            if not self._running.done():  # we are cancelled while the link disconnects: it goes at once
                self._running.cancel()
                await asyncio.gather(self._running, return_exceptions=True)
            raise
        except BaseException:
            if self._failed_host:
                current = asyncio.current_task()
                if current is not None:
                    current.uncancel()  # the cancellation was ours: the link's error stands in its place
            raise

    def client(self) -> _Client:
        will = self.last_will = self.will() if self.will is not None else None
        return _Client(
            self.address.host,
            self.address.port,
            username=self.username,
            password=self.password,
            deliver=lambda topic, payload, retained: self._arrivals.put_nowait((topic, payload, retained)),
            protocol=aiomqtt.ProtocolVersion.V311,
            socket_options=NODELAY,
            keepalive=self.keepalive,
            timeout=10,
            bind_address=self.bind_address,
            tls_context=tls_context(self.cafile) if self.address.tls else None,
            will=aiomqtt.Will(will[0], will[1].encode("utf-8"), qos=1, retain=True) if will else None,
        )

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` was called: the connection ends, and nothing more is to be done on it."""
        return self._stop.is_set()

    def stop(self) -> None:
        """End :meth:`run`: it disconnects cleanly and returns (the relay then does not send the will)."""
        self._stop.set()

    def renew(self) -> None:
        """Give up the current connection and make another (one that TCP still calls open, though nothing comes back
        on it: half-open); the next connection publishes again what the relay lacks."""
        if self._client is not None:
            self._arrivals.put_nowait(None)

    async def run(self) -> None:
        """Connect, and reconnect whenever the connection is lost, until :meth:`stop` (or ``give_up`` passes).

        It ends by :meth:`stop`, not by cancellation: on Python 3.11 cancelling a task blocked in aiomqtt's
        ``publish`` may be ignored (CPython gh-86296).
        """
        loop = asyncio.get_running_loop()
        attempt = 0
        self._down_since = loop.time()
        while not self._stop.is_set():
            try:
                self._arrivals = asyncio.Queue()
                async with self.client() as client:
                    self._client, self.connected, self.seen = client, True, {}
                    # a connection lost ends its own reading, not the next one's (bound now, not when it is lost)
                    client.when_lost(functools.partial(self._arrivals.put_nowait, None))
                    self.connections += 1
                    attempt = 0
                    self._state(True, f"connected to {self.address}")
                    reader = asyncio.create_task(self._read(client))
                    stopping = asyncio.create_task(self._stop.wait())
                    try:
                        for topic_filter in self.subscriptions:
                            await client.subscribe(topic_filter, qos=1)
                        if self.on_connect is not None and not self.stopping:
                            await self.on_connect(self)
                        await asyncio.wait({reader, stopping}, return_when=asyncio.FIRST_COMPLETED)
                        if reader.done():
                            reader.result()  # the connection was lost: raises its MqttError
                    finally:
                        for task in (reader, stopping):
                            task.cancel()
                        await asyncio.gather(reader, stopping, return_exceptions=True)
            except aiomqtt.MqttError as exc:
                error = explain(self.address, exc, self.username, self.password)
                if isinstance(error, RelayRefused) or (self.connections == 0 and not self.patient):
                    raise error from None
                self._lost(error)
            finally:
                self._client = None
                self.connected = False  # after the error, if any, was reported
            if self._stop.is_set():
                return
            if self.give_up is not None and loop.time() - self._down_since > self.give_up:
                raise RelayUnreachable(
                    f"the relay at {self.address.host}:{self.address.port} stayed unreachable for {self.give_up:g} s"
                )
            delay = min(BACKOFF_CAP, BACKOFF_FIRST * 2**attempt) * random.uniform(0.5, 1.0)
            attempt += 1
            try:
                async with asyncio.timeout(delay):
                    await self._stop.wait()
            except TimeoutError:
                pass

    def _failed(self, exc: aiomqtt.MqttError) -> None:
        """A request on the connection failed (no answer in time: the connection may be half-open): say so, and
        make the connection again rather than wait for the keepalive to notice."""
        self._lost(explain(self.address, exc, self.username, self.password))
        self.renew()

    def _lost(self, error: RelayError) -> None:
        if self.connected:
            self._down_since = asyncio.get_running_loop().time()  # unreachable from now (give_up counts from here)
            self.connected = False
            self._state(False, f"{error}; reconnecting")
        log.info("relay: %s", error)

    def _state(self, connected: bool, sentence: str) -> None:
        if self.on_state is not None:
            self.on_state(connected, sentence)

    async def _read(self, client: _Client) -> None:
        arrivals = self._arrivals
        while True:
            arrival = await arrivals.get()
            if arrival is None:  # the connection is lost
                raise aiomqtt.MqttError("Disconnected during message iteration") from client.loss()
            topic, payload, retained = arrival
            if not any(topic_matches_sub(wanted, topic) for wanted in self.subscriptions):
                continue  # some brokers send retained lines nobody asked for
            if self.remember is None or self.remember(topic):
                self.seen[topic] = digest(payload)
            self._last_arrival = asyncio.get_running_loop().time()
            self._arrived.set()
            if self.on_line is not None:
                await self.on_line(topic, payload, retained)
            else:
                self.incoming.put_nowait((topic, payload))

    def drain(self) -> list[tuple[str, bytes]]:
        """The (topic, payload) of every line that arrived with no ``on_line`` to take it, taken now."""
        taken = []
        while not self.incoming.empty():
            taken.append(self.incoming.get_nowait())
        return taken

    # -- what the game asks of it -----------------------------------------------------------
    async def subscribe(self, topic_filter: str) -> None:
        """Receive ``topic_filter`` from now on, and on every reconnection (again: the relay resends its retained
        lines)."""
        if topic_filter not in self.subscriptions:
            self.subscriptions.append(topic_filter)
        client = self._client
        if client is not None:
            try:
                await client.subscribe(topic_filter, qos=1)
            except aiomqtt.MqttError as exc:
                self._failed(exc)

    async def unsubscribe(self, topic_filter: str) -> None:
        """No longer receive ``topic_filter``, on this connection or the next ones."""
        if topic_filter in self.subscriptions:
            self.subscriptions.remove(topic_filter)
        client = self._client
        if client is not None:
            try:
                await client.unsubscribe(topic_filter)
            except aiomqtt.MqttError as exc:
                self._failed(exc)

    def follow(self, *topic_filters: str) -> None:
        """From the next connection on, subscribe to ``topic_filters`` instead of what :meth:`subscribe` was given
        (this connection keeps what it has)."""
        self.subscriptions[:] = topic_filters

    async def narrow(self, *topic_filters: str) -> None:
        """On this connection only, receive ``topic_filters`` instead of the subscriptions made with :meth:`subscribe`
        (which the next connection makes again, to catch up on everything the relay retains)."""
        client = self._client
        if client is None:
            return
        try:
            for topic_filter in topic_filters:  # first, so that nothing falls between the two
                await client.subscribe(topic_filter, qos=1)
            for broad in self.subscriptions:
                if broad not in topic_filters:
                    await client.unsubscribe(broad)
        except aiomqtt.MqttError as exc:
            self._failed(exc)

    async def peek(self, topic_filter: str, *, stop: bool = False) -> None:
        """Receive ``topic_filter`` too (``stop``: no longer) on this connection only: the next one subscribes to what
        :meth:`subscribe` was given, no more."""
        client = self._client
        if client is None:
            return
        try:
            if stop:
                await client.unsubscribe(topic_filter)
            else:
                await client.subscribe(topic_filter, qos=1)
        except aiomqtt.MqttError as exc:
            self._failed(exc)

    async def resubscribe(self, topic_filter: str) -> None:
        """Ask for the retained lines of ``topic_filter`` again."""
        client = self._client
        if client is not None:
            try:
                await client.unsubscribe(topic_filter)
                await client.subscribe(topic_filter, qos=1)
            except aiomqtt.MqttError as exc:
                self._failed(exc)

    def send(self, topic: str, line: str) -> bool:
        """Hand a retained QoS 1 line to the MQTT client at once, without waiting for the relay's acknowledgement.

        aiomqtt's own ``publish`` begins with exactly this call to paho, then waits for the PUBACK; paho keeps the
        QoS 1 delivery going on its own, in order, and aiomqtt ignores an acknowledgement nobody waits for. So a
        move leaves in the same loop step it was signed in, and nothing ever waits on the network. ``False`` when
        the connection is down: the line is published again on reconnection, like everything the relay lacks.
        """
        client = self._client
        return client is not None and client.send_now(topic, line.encode("utf-8"))

    async def publish(self, topic: str, line: str) -> bool:
        """Publish a retained line (QoS 1) and wait for the relay's acknowledgement; ``False`` if the connection is
        down (it is published again on reconnection)."""
        client = self._client
        if client is None:
            return False
        try:
            await client.publish(topic, line.encode("utf-8"), qos=1, retain=True)
        except aiomqtt.MqttError as exc:
            self._failed(exc)
            return False
        return True

    async def settled(self, marker: tuple[str, str] | None = None) -> None:
        """Wait until the relay's retained lines are in (at most :data:`SETTLE_MAX` s).

        With a ``marker`` (topic, line) published after subscribing: until it has come back (a relay sends a
        subscription's retained lines before what is published after it), and a moment more; without one: until
        nothing new came for :data:`QUIET` s (:data:`QUIET_BEFORE_ANY` s while nothing came).
        """
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + SETTLE_MAX
        self._last_arrival = max(self._last_arrival, start)
        quiet = QUIET
        if marker is not None:
            expected = digest(marker[1].encode("utf-8"))
            while self.seen.get(marker[0]) != expected and loop.time() < deadline:
                self._arrived.clear()
                with contextlib.suppress(TimeoutError):  # woken by the next arrival, not by polling
                    async with asyncio.timeout_at(deadline):
                        await self._arrived.wait()
            quiet = QUIET_AFTER_MARKER
        # until ``quiet`` s after the latest arrival (a later one moves it on): a time, not an event, ends it
        while (  # noqa: ASYNC110
            left := min(
                self._last_arrival + quiet if self._last_arrival > start else start + QUIET_BEFORE_ANY, deadline
            )
            - loop.time()
        ) > 0:
            await asyncio.sleep(left)


def digest(payload: bytes) -> bytes:
    """What :attr:`Link.seen` keeps of a payload."""
    return hashlib.sha256(payload).digest()


async def try_login(
    address: RelayAddress, username: str | None, password: str | None, cafile: Path | None = None, timeout: float = 5.0
) -> RelayError | None:
    """Why the relay refuses an MQTT session with these credentials (:class:`RelayNeedsLogin` when it wants an
    account's password, :class:`RelayLoginRefused` when it refuses the one given), or ``None`` when it takes one:
    connect, then leave at once."""
    try:
        async with asyncio.timeout(timeout):
            async with aiomqtt.Client(
                address.host,
                address.port,
                username=username,
                password=password,
                protocol=aiomqtt.ProtocolVersion.V311,
                socket_options=NODELAY,
                timeout=timeout,
                tls_context=tls_context(cafile) if address.tls else None,
            ):
                return None
    except aiomqtt.MqttError as exc:
        error = explain(address, exc, username, password)
    except (OSError, TimeoutError) as exc:
        error = explain(address, exc, username, password)
    if isinstance(error, RelayTimedOut):
        return RelayRefused(
            f"something accepts connections at {address.host}:{address.port} but does not answer as an "
            f"MQTT relay would (is it one? is it {'mqtt' if address.tls else 'mqtts'}://?)"
        )
    return error


async def reach(address: RelayAddress, timeout: float = 2.0) -> RelayError | None:
    """Why nothing accepts TCP connections at the relay's address (no MQTT spoken), or ``None`` if something does."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(address.host, address.port), timeout)
    except (TimeoutError, OSError) as exc:
        return explain(address, exc)
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return None
