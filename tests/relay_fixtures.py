"""Helpers for the relay tests: start either relay the same way, connect clients, play signed games.

Both relays start on free 127.0.0.1 ports; Mosquitto is a subprocess from a
configuration written by ``relay.mosquitto.write_config`` and is stopped by
its PID. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import os
import random
import shutil
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import aiomqtt
import pytest
from protocol_helpers import game_id_in, identity_of, playable

from harness.mqtt import bare_client
from protocol import GameSession, Identity, LineApplied, LineRejected, Outgoing, PublicKey, copy_topic, game_filter
from protocol.keys import b64
from protocol.messages import encode, encode_text
from protocol.topics import GAMES
from relay import users
from relay.embedded import EmbeddedRelay, RelaySettings
from relay.mosquitto import MosquittoProcess, MosquittoSettings, free_port, listening, write_config

KINDS = ["embedded", "mosquitto"]
# Skipped on a developer's machine without Mosquitto, never in CI (CI=true), where a missing install must fail.
TOOLS_REQUIRED = os.environ.get("CI") == "true" or bool(os.environ.get("OLIXONO_REQUIRE_TOOLS"))
"""Whether a test that needs an installed tool (Mosquitto, tmux, Node, Chromium) must fail rather than skip without it:
in CI, and under scripts/test, which installs them."""

needs_mosquitto = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists() and not TOOLS_REQUIRED,
    reason="mosquitto is not installed (apt-get install mosquitto; bash scripts/test does it)",
)


@dataclass
class Account:
    identity: Identity
    password: str

    @property
    def name(self) -> str:
        return self.identity.public.text


def make_accounts(path: Path, count: int, bridges: tuple[str, ...] = ()) -> list[Account]:
    accounts = [Account(Identity.generate(), f"token-{n}-{random.random():.15f}") for n in range(count)]
    table = {a.name: users.PasswordHash.for_token(a.password) for a in accounts}
    for name in bridges:
        table[name] = users.PasswordHash.for_token("bridge-secret")
    users.save(path, table)
    return accounts


def make_tls(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (cert, key)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "olixono test relay")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@dataclass
class Relay:
    """One running relay of either kind, restartable with the same data."""

    kind: str
    workdir: Path
    users_file: Path | None = None
    persist: bool = False
    tls: tuple[Path, Path] | None = None
    port: int = 0
    bridge_to: tuple[str, int] | None = None
    bridge_user: str | None = None
    web: bool = False
    """Also a web listener for browsers (the page, and MQTT over WebSocket at /mqtt): ``web_port`` once started."""
    web_port: int | None = None
    _embedded: EmbeddedRelay | None = None
    _mosquitto: MosquittoProcess | None = None
    conf: Path | None = field(default=None)

    async def start(self) -> Relay:
        if self.kind == "embedded":
            settings = RelaySettings(
                port=self.port,
                users_file=self.users_file,
                data_dir=self.workdir / "data" if self.persist else None,
                tls_cert=self.tls[0] if self.tls else None,
                tls_key=self.tls[1] if self.tls else None,
                web_port=(self.web_port or 0) if self.web else None,
            )
            self._embedded = EmbeddedRelay(settings)
            await self._embedded.start()
            assert self._embedded.port is not None  # started: listening
            self.port = self._embedded.port
            self.web_port = self._embedded.web_port
        else:
            self.port = self.port or free_port()
            mosquitto = MosquittoSettings(
                port=self.port,
                users_file=self.users_file,
                run_as="root",
                tls_cert=self.tls[0] if self.tls else None,
                tls_key=self.tls[1] if self.tls else None,
                bridge_to=self.bridge_to,
                bridge_user=self.bridge_user,
                bridge_password="bridge-secret" if self.bridge_user else None,
                web_port=(self.web_port or free_port()) if self.web else None,
            )
            self.web_port = mosquitto.web_port
            self.conf = write_config(self.workdir / "mosquitto", mosquitto)
            if not self.persist:  # same file, but these tests want a relay that forgets
                self.conf.write_text(self.conf.read_text().replace("persistence true", "persistence false"))
            self._mosquitto = await asyncio.to_thread(MosquittoProcess(self.conf, self.port).start)
        return self

    async def stop(self) -> None:
        if self._embedded is not None:
            relay, self._embedded = self._embedded, None
            await relay.stop()
        if self._mosquitto is not None:
            process, self._mosquitto = self._mosquitto, None
            await asyncio.to_thread(process.stop)

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    @property
    def page(self) -> str:
        """The page's address (with a web listener)."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.web_port}/"

    def client(
        self,
        account: Account | None = None,
        *,
        username: str | None = None,
        password: str | None = None,
        **kwargs: object,
    ) -> aiomqtt.Client:
        if account is not None:
            username, password = account.name, account.password
        tls_context = None
        if self.tls is not None:
            tls_context = ssl.create_default_context(cafile=str(self.tls[0]))
        return bare_client(
            self.port, username=username, password=password, tls_context=tls_context, timeout=5, **kwargs
        )

    def log(self) -> str:
        if self.kind == "mosquitto" and self.conf is not None:
            return self.conf.with_name("mosquitto.log").read_text(errors="replace")
        return ""


class RelayProcess:
    """The embedded relay as its own process (``python -m relay``), to be killed: stopped by its PID, always.

    ``harness.relays.RelayProcess`` starts one too, for the scripts; this one waits without blocking the test's event
    loop (the players run in it while the relay starts again), on a port the test chose."""

    def __init__(self, port: int, data: Path | None = None) -> None:
        self.port, self.data = port, data
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    async def start(self, timeout: float = 90.0) -> RelayProcess:
        """Start it and wait until it listens, or has ended (an error): ``timeout`` only bounds a relay that hangs (a
        busy machine takes seconds to start a Python process)."""
        command = [sys.executable, "-m", "relay", "--port", str(self.port)]
        if self.data is not None:
            command += ["--data", str(self.data)]
        # Popen starts it and returns (no wait); the wait for its port is a thread's, beside the loop
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # noqa: ASYNC220
        self.process = process
        await asyncio.to_thread(listening, self.port, process, "the relay", timeout)
        return self

    async def stop(self, kill: bool = False) -> None:
        """SIGTERM (a clean stop: it saves what it keeps) or SIGKILL; bounded waits, by PID only."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        (process.kill if kill else process.terminate)()
        try:
            await asyncio.to_thread(process.wait, 15)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait, 5)


async def eventually(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether ``condition`` holds within ``timeout`` s (asked every 0.02 s): for a test to assert, naming what it
    waited for, rather than fail on a bare timeout."""
    for _ in range(round(timeout / 0.02)):
        if condition():
            return True
        await asyncio.sleep(0.02)
    return condition()


async def gather_messages(
    client: aiomqtt.Client, topic_filter: str, *, count: int | None = None, timeout: float = 3.0
) -> dict[str, bytes]:
    """Retained and live messages on ``topic_filter``, until ``count`` topics are in or ``timeout`` passes.

    Topics outside the filter are ignored, as every olixono client must (amqtt may send them).
    """
    seen: dict[str, bytes] = {}
    try:
        async with asyncio.timeout(timeout):
            async for message in client.messages:
                if not message.topic.matches(topic_filter):
                    continue
                seen[message.topic.value] = bytes(message.payload)
                if count is not None and len(seen) >= count:
                    break
    except TimeoutError:
        pass
    return seen


# -- signed lines for any slot ------------------------------------------------------
WRITER = Identity.from_seed(bytes(range(40, 72)))
"""A fixed key for relay tests that only need lines on a game's topics."""


def game_id(letter: str) -> str:
    """A well-formed game id of one letter (the embedded relay keeps only lines of a well-formed game)."""
    return letter * 21 + "A"


def topic_of(game: str, identity: Identity, slot: str) -> str:
    return f"{GAMES}/{game}/{identity.public.text}/{slot}"


def signed_line(identity: Identity, game: str, slot: str, text: str = "x") -> bytes:
    """A validly signed line of ``identity`` for ``slot`` of ``game``, which the embedded relay keeps there: a chat
    line for ``chat-<n>``, a talk line for ``talk/<n>``, a presence line for ``presence``, else a resignation at that
    ``seq`` (its ``prev`` drawn from ``text``: relays never follow the chain)."""
    digest = b64(hashlib.sha256(text.encode()).digest())
    if slot == "presence":
        return encode("presence", [("game", game), ("seq", "1"), ("state", "here")], identity).encode()
    if slot.startswith("talk/"):
        return encode("talk", [("game", game), ("seq", slot[5:]), ("text", encode_text(text))], identity).encode()
    if slot.startswith("chat-"):
        return encode(
            "chat", [("game", game), ("seq", slot[5:]), ("prev", digest), ("text", encode_text(text))], identity
        ).encode()
    return encode("resign", [("game", game), ("seq", slot), ("prev", digest)], identity).encode()


def largest_line(identity: Identity, game: str) -> bytes:
    """The longest line the protocol has: a chat line of 500 bytes that each take three characters."""
    return encode(
        "chat", [("game", game), ("seq", "256"), ("prev", b64(bytes(32))), ("text", "%21" * 500)], identity
    ).encode()


# -- signed games -----------------------------------------------------------------
class Side:
    """One player of a signed game over MQTT: publishes its lines retained (QoS 1), and a copy of every line of
    the other's it applies (``PROTOCOL.md`` §7); feeds its session all it receives, refusing nothing."""

    def __init__(self, session: GameSession, client: aiomqtt.Client, game: str) -> None:
        self.session, self.client, self.game = session, client, game
        self.inbox: asyncio.Queue[bytes] = asyncio.Queue()

    async def send(self, out: Outgoing) -> None:
        await self.client.publish(out.topic, out.line.encode("utf-8"), qos=1, retain=True)
        await self.copy(out.events)

    async def copy(self, events) -> None:
        me = identity_of(self.session).public
        for event in events:
            if isinstance(event, LineApplied) and event.message.signer != me:
                await self.client.publish(copy_topic(event.message, me), event.line.encode("utf-8"), qos=1, retain=True)

    async def pump(self) -> None:
        async for message in self.client.messages:
            if message.topic.matches(game_filter(self.game)):
                self.inbox.put_nowait(bytes(message.payload))

    async def wait_for(self, predicate) -> None:
        while not predicate():
            events = self.session.receive(await self.inbox.get())
            assert not [e for e in events if isinstance(e, LineRejected)], events
            await self.copy(events)


async def play_game(
    host_client: aiomqtt.Client,
    guest_client: aiomqtt.Client,
    host: Identity,
    guest: Identity,
    *,
    seed: int = 0,
    kind: str = "oxono",
    max_moves: int = 400,
    timeout: float = 60.0,
) -> GameSession:
    """A full game between two clients (each already connected), every line signed, sent, copied and checked.

    Each side acts only on what it has received from the relay. Returns the host's session.
    """
    rng = random.Random(seed)
    h, offer = GameSession.offer(kind, host)
    game = game_id_in(h)
    g = GameSession(game, guest)
    hs, gs = Side(h, host_client, game), Side(g, guest_client, game)
    sides: dict[PublicKey | None, Side] = {host.public: hs, guest.public: gs}
    for client in (host_client, guest_client):
        await client.subscribe(game_filter(game), qos=1)
    pumps = [asyncio.create_task(side.pump()) for side in sides.values()]
    try:
        async with asyncio.timeout(timeout):
            await hs.send(offer)
            await gs.wait_for(lambda: len(g.chain) >= 1)
            await gs.send(g.join())
            await hs.wait_for(lambda: guest.public in h.joins)
            await hs.send(h.accept(guest.public))
            await gs.wait_for(lambda: len(g.chain) >= 3)
            await gs.send(g.reveal())
            await hs.wait_for(lambda: h.started)
            await gs.wait_for(lambda: g.started)
            for _ in range(max_moves):
                if h.over:
                    break
                actor = sides[h.actor]
                other = gs if actor is hs else hs
                moves = sorted(playable(actor.session))
                before = other.session.next_seq
                await actor.send(actor.session.move(rng.choice(moves)))
                await other.wait_for(lambda: other.session.next_seq > before)  # noqa: B023
    finally:
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)
    assert h.result is not None and g.result is not None
    assert h.transcript == g.transcript
    return h


class Listening(Protocol):
    """A relay started in the test's process, or a process's: listening on ``port`` once started."""

    @property
    def port(self) -> int | None: ...


@contextlib.asynccontextmanager
async def silent_relay() -> AsyncIterator[int]:
    """A server on 127.0.0.1 that accepts a connection and never says a word (a relay that does not speak MQTT, or
    hangs); its port. Every connection it accepted is closed at the end: a server's own close leaves them open."""
    accepted: set[asyncio.StreamWriter] = set()

    def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.add(writer)  # what comes is buffered and never read

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for writer in accepted:
            writer.close()
        await server.wait_closed()


def port_of(relay: Listening) -> int:
    """The port a started relay listens on."""
    assert relay.port is not None, "the relay has not started"
    return relay.port


def web_port_of(relay: Relay | EmbeddedRelay) -> int:
    """The port a started relay's web listener listens on."""
    assert relay.web_port is not None, "the relay has no web listener"
    return relay.web_port


def retained_topics(relay: EmbeddedRelay) -> list[str]:
    """The topics an embedded relay retains a line on, for tests to look into (the relay itself never asks)."""
    broker = relay.broker
    assert broker is not None
    return sorted(broker.retained_messages)
