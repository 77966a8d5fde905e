"""The relay's web listener: the page's own files on a plain GET, MQTT over WebSocket at ``/mqtt`` under the TCP
listener's checks and limits (packet size, connections, signed lines only), and a private relay's readers.

amqtt's own ws listener has none of its TCP limits (a 100 kB publish was taken): the first tests show it, the rest
that the relay's does."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import io
import ssl
import uuid
from pathlib import Path

import aiomqtt
import pytest
import websockets
from relay_fixtures import make_accounts, make_tls, needs_mosquitto, port_of, signed_line, topic_of, web_port_of
from websockets.typing import Subprotocol

from protocol import Identity
from relay import page
from relay.embedded import RelaySettings, running
from relay.rules import MAX_PACKET_BYTES, Limits

GAME = "WebWebWebWebWebWebWebA"
PLAYER = Identity.generate()


@pytest.fixture
def site(tmp_path):
    """A page's folder: an index, a module, and things that are no part of a page."""
    root = tmp_path / "site"
    (root / "js").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>olixono</title>")
    (root / "js" / "board.js").write_text("export const board = 1;\n")
    (root / "notes.py").write_text("secret = 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "rules.test.js").write_text("test\n")
    (root / ".hidden.js").write_text("hidden\n")
    (tmp_path / "outside.js").write_text("outside\n")
    (root / "js" / "link.js").symlink_to(tmp_path / "outside.js")
    return root


def test_the_page_serves_its_own_files_and_nothing_else(site):
    assert page.page_file(site, "/") == (site / "index.html").resolve()
    assert [name.as_posix() for name in page.page_files(site)] == ["index.html", "js/board.js"]
    assert page.page_file(site, "/js/board.js?v=2#x") == (site / "js" / "board.js").resolve()
    for target in (
        "/notes.py",
        "/.hidden.js",
        "/js/../index.html",
        "/%2e%2e/outside.js",
        "/js/link.js",
        "/../outside.js",
        "//etc/passwd",
        "/js\\board.js",
        "/missing.js",
        "/js/",
        "relative.js",
        "/tests/rules.test.js",
    ):
        assert page.page_file(site, target) is None, target
    missing = page.reply(site, "/notes.py")
    assert missing.status == 404 and dict(missing.headers)["Content-Security-Policy"] == page.POLICY
    found = page.reply(site, "/js/board.js")
    headers = dict(found.headers)
    assert found.status == 200 and found.body == b"export const board = 1;\n"
    assert headers["Content-Type"].startswith("text/javascript") and headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src 'self'" in page.POLICY and "unsafe-inline" not in page.POLICY
    zipped = page.reply(site, "/js/board.js", "gzip, deflate, br")
    assert gzip.decompress(zipped.body) == found.body and ("Content-Encoding", "gzip") in zipped.headers


def test_the_packaged_page_is_the_web_folder():
    root = page.page_root()
    assert root.name == "web" and (root / "__init__.py").is_file()


async def http_get(port: int, target: str, *, tls: ssl.SSLContext | None = None) -> tuple[int, dict[str, str], bytes]:
    """A raw ``GET`` (the target sent as it is, unlike a library's, which would tidy ``..`` away)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=tls)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    async with asyncio.timeout(10):
        raw = await reader.read()
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode().split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, body


def web_client(port: int, **options) -> aiomqtt.Client:
    return aiomqtt.Client(
        "127.0.0.1",
        port,
        transport="websockets",
        websocket_path=page.MQTT_PATH,
        identifier=f"web-{uuid.uuid4().hex[:8]}",
        **options,
    )


async def received(client: aiomqtt.Client, count: int = 1, seconds: float = 5.0) -> list[bytes]:
    """Up to ``count`` payloads the client receives within ``seconds``."""
    payloads: list[bytes] = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            async for message in client.messages:
                payloads.append(bytes(message.payload))
                if len(payloads) == count:
                    break
    return payloads


@pytest.mark.network
async def test_one_port_serves_the_page_and_mqtt_over_websocket_with_the_relays_checks(site):
    async with running(RelaySettings(port=0, web_port=0, page_root=site)) as relay:
        assert relay.web_url == f"http://127.0.0.1:{relay.web_port}/"
        assert relay.websocket_url == f"ws://127.0.0.1:{relay.web_port}/mqtt"
        status, headers, body = await http_get(web_port_of(relay), "/")
        assert (
            status == 200 and body.startswith(b"<!doctype html>") and headers["content-security-policy"] == page.POLICY
        )
        for target in ("/../outside.js", "/notes.py", "/js/link.js"):
            status, _, body = await http_get(web_port_of(relay), target)
            assert status == 404 and b"outside" not in body and b"secret" not in body, target
        line = signed_line(PLAYER, GAME, "chat-1", "from a browser")
        topic = topic_of(GAME, PLAYER, "chat-1")
        async with (
            web_client(web_port_of(relay)) as browser,
            aiomqtt.Client("127.0.0.1", port_of(relay), identifier="tcp-reader") as terminal,
        ):
            await terminal.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
            await browser.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
            await browser.publish(topic_of(GAME, PLAYER, "chat-2"), b"not a signed line", qos=1, retain=True)
            await browser.publish(topic, line, qos=1, retain=True)
            assert await received(terminal) == [line]  # the junk before it was dropped: signed lines only
            assert await received(browser) == [line]
        async with web_client(web_port_of(relay)) as late:  # and kept: a late watcher in a browser catches up
            await late.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
            assert await received(late, 2, seconds=2) == [line]


def mqtt_packet(kind: int, body: bytes, announced: int | None = None) -> bytes:
    """An MQTT packet of ``kind`` (its first byte) whose remaining length says ``announced`` (default: the body's)."""
    length, encoded = len(body) if announced is None else announced, bytearray()
    while True:
        length, digit = divmod(length, 128)
        encoded.append(digit | (0x80 if length else 0))
        if not length:
            return bytes([kind, *encoded]) + body


CONNECT = mqtt_packet(0x10, b"\x00\x04MQTT\x04\x02\x00\x3c\x00\x03raw")


async def closed_after(port: int, *messages: bytes) -> bool:
    """Whether the relay ends a raw MQTT-over-WebSocket connection that sends ``messages`` (each a WebSocket
    message), within 5 s."""
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/mqtt", subprotocols=[Subprotocol("mqtt")], max_size=None
    ) as socket:
        try:
            for message in messages:
                await socket.send(message)
            async with asyncio.timeout(5):
                while True:
                    await socket.recv()
        except websockets.ConnectionClosed:
            return True
        except TimeoutError:
            return False


BIG = mqtt_packet(0x31, b"\x00\x05olixo" + b"x" * 100_000)


@pytest.mark.network
async def test_confirms_amqtts_own_websocket_listener_takes_a_100_kb_packet(site, monkeypatch):
    from amqtt.broker import Broker

    from relay.embedded import RelayBroker

    monkeypatch.setattr(RelayBroker, "_create_server_instance", Broker._create_server_instance)
    monkeypatch.setattr(RelayBroker, "ws_connected", Broker.ws_connected)
    async with running(RelaySettings(port=0, web_port=0, page_root=site)) as relay:
        assert not await closed_after(web_port_of(relay), CONNECT, BIG)


@pytest.mark.network
async def test_an_oversize_packet_ends_the_connection_in_one_message_or_in_pieces(site):
    big = BIG
    async with running(RelaySettings(port=0, web_port=0, page_root=site)) as relay:
        assert not await closed_after(web_port_of(relay), CONNECT)  # a CONNECT alone: the connection stays
        assert await closed_after(web_port_of(relay), CONNECT, big)  # one WebSocket message over a packet's size
        header = mqtt_packet(0x31, b"", announced=MAX_PACKET_BYTES + 1)  # a packet announced too large ...
        pieces = [header, *(b"y" * 1000 for _ in range(3))]  # ... its body in small messages
        assert await closed_after(web_port_of(relay), CONNECT, *pieces)
        async with aiomqtt.Client("127.0.0.1", port_of(relay)) as reader:  # nothing of them stands anywhere
            await reader.subscribe("olixono/#", qos=1)
            assert await received(reader, seconds=1) == []


@pytest.mark.network
async def test_connections_over_websocket_count_against_their_address(site):
    limits = Limits(connections_per_address=2)
    async with (
        running(RelaySettings(port=0, web_port=0, page_root=site, limits=limits)) as relay,
        web_client(web_port_of(relay)),
        aiomqtt.Client("127.0.0.1", port_of(relay)),
    ):
        with pytest.raises(aiomqtt.MqttError):
            async with web_client(web_port_of(relay)):
                pass


@pytest.mark.network
async def test_a_private_relays_page_lets_readers_read_only_when_its_owner_says_so(tmp_path, site):
    users = tmp_path / "users"
    (account,) = make_accounts(users, 1)
    line = signed_line(account.identity, GAME, "chat-1", "a player's line")
    for readers in (False, True):
        settings = RelaySettings(port=0, web_port=0, page_root=site, users_file=users, web_readers=readers)
        async with running(settings) as relay:
            async with aiomqtt.Client(
                "127.0.0.1", port_of(relay), username=account.name, password=account.password
            ) as player:
                await player.publish(topic_of(GAME, account.identity, "chat-1"), line, qos=1, retain=True)
            if not readers:
                with pytest.raises(aiomqtt.MqttError):
                    async with web_client(web_port_of(relay)):
                        pass
                continue
            with pytest.raises(aiomqtt.MqttError):  # anonymous over TCP: refused as ever
                async with aiomqtt.Client("127.0.0.1", port_of(relay)):
                    pass
            stranger = Identity.generate()
            async with web_client(
                web_port_of(relay),
                will=aiomqtt.Will(topic_of(GAME, stranger, "presence"), signed_line(stranger, GAME, "presence")),
            ) as visitor:
                await visitor.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
                assert await received(visitor) == [line]
                await visitor.publish(topic_of(GAME, stranger, "chat-1"), signed_line(stranger, GAME, "chat-1"), qos=1)
            async with aiomqtt.Client(
                "127.0.0.1", port_of(relay), username=account.name, password=account.password
            ) as player:
                await player.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
                assert await received(player, 3, seconds=2) == [line]  # neither the visitor's line nor its will


def test_readers_need_a_private_relay_and_its_page(tmp_path):
    make_accounts(tmp_path / "users", 1)
    with pytest.raises(ValueError, match="needs the page"):
        RelaySettings(users_file=tmp_path / "users", web_readers=True).broker_config()
    with pytest.raises(ValueError, match="for a private relay"):
        RelaySettings(web_port=0, web_readers=True).broker_config()


@pytest.mark.network
async def test_the_page_and_websocket_are_served_over_tls_with_the_relays_certificate(tmp_path, site):
    cert, key = make_tls(tmp_path)
    context = ssl.create_default_context(cafile=str(cert))
    async with running(RelaySettings(port=0, web_port=0, page_root=site, tls_cert=cert, tls_key=key)) as relay:
        assert relay.web_url == f"https://127.0.0.1:{relay.web_port}/"
        status, _, body = await http_get(web_port_of(relay), "/js/board.js", tls=context)
        assert status == 200 and body == b"export const board = 1;\n"
        line = signed_line(PLAYER, GAME, "chat-1", "over wss")
        async with web_client(web_port_of(relay), tls_context=context) as browser:
            await browser.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
            await browser.publish(topic_of(GAME, PLAYER, "chat-1"), line, qos=1)
            assert await received(browser) == [line]


def listening_on(port: int) -> set[str]:
    """The local addresses this machine's listening TCP sockets of ``port`` are bound to (from /proc/net)."""
    addresses = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # LISTEN
                addresses.add(address)
    return addresses


LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F"}  # 127.0.0.1, and ::ffff:127.0.0.1, as /proc/net says them


@pytest.mark.network
@needs_mosquitto
async def test_mosquitto_config_web_serves_websockets_on_loopback_alone_and_no_page(tmp_path):
    from relay.mosquitto import MosquittoProcess, MosquittoSettings, free_port, write_config

    port, web = free_port(), free_port()
    conf = write_config(tmp_path / "mosquitto", MosquittoSettings(port=port, run_as="root", web_port=web))
    assert f"listener {web} lo\nprotocol websockets\n" in conf.read_text() and "\nhttp_dir " not in conf.read_text()
    with MosquittoProcess(conf, port):
        for _ in range(100):  # its websockets listener opens just after the TCP one
            if listening_on(web):
                break
            await asyncio.sleep(0.05)
        assert listening_on(web) <= LOOPBACK and listening_on(web), listening_on(web)  # not every interface
        line = signed_line(PLAYER, GAME, "chat-1", "through Mosquitto's websockets")
        async with web_client(web) as browser, aiomqtt.Client("127.0.0.1", port, identifier="tcp-reader") as reader:
            await reader.subscribe(f"olixono/1/games/{GAME}/#", qos=1)
            await browser.publish(topic_of(GAME, PLAYER, "chat-1"), line, qos=1, retain=True)
            assert await received(reader) == [line]


def test_mosquitto_config_web_names_an_interface_it_can_bind_and_says_what_it_does_not_limit(tmp_path):
    from relay.cli import main

    with pytest.raises(ValueError, match="--web-interface"):
        from relay.mosquitto import MosquittoSettings, write_config

        write_config(tmp_path / "refused", MosquittoSettings(host="192.0.2.1", web_port=8080))
    assert not (tmp_path / "refused").exists()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["mosquitto-config", str(tmp_path / "m"), "--web", "8080", "--run-as", "root"]) == 0
    assert "browsers: MQTT over WebSocket at ws://127.0.0.1:8080/mqtt" in out.getvalue()
    assert "without a Content-Type" in out.getvalue() and "#relay=WS_URL&game=GAME" in out.getvalue()
    assert "listener 8080 lo\n" in (tmp_path / "m" / "mosquitto.conf").read_text()
    conf = MosquittoSettings(host="0.0.0.0", web_port=8080)
    assert conf.web_bind() == "" and MosquittoSettings(web_port=1, web_interface="eth0").web_bind() == " eth0"


def test_olixono_web_writes_the_pages_files_and_says_how_to_link_them(tmp_path, monkeypatch, site):
    from client.cli import main

    monkeypatch.setattr(page, "page_root", lambda: site)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["web", str(tmp_path / "www")]) == 0
    assert sorted(p.relative_to(tmp_path / "www").as_posix() for p in (tmp_path / "www").rglob("*.*")) == [
        "index.html",
        "js/board.js",
    ]
    assert "wrote the watching page's 2 files to" in out.getvalue() and "#relay=WS_URL&game=GAME" in out.getvalue()


async def test_the_relay_a_host_runs_serves_the_page_and_the_host_says_the_link(tmp_path, monkeypatch, site):
    from client.flows import network
    from relay.mosquitto import free_port

    monkeypatch.setattr(page, "page_root", lambda: site)
    told: list[str] = []
    options = network.Options(relay=f"mqtt://127.0.0.1:{free_port()}", write=told.append)
    async with network.relay_for_host(options, may_start=True) as (_, ran):
        assert ran and options.page is not None
        network.watch_link(options, GAME)
        link = next(line for line in told if "watch it in a browser" in line).split()[-1]
        assert link == f"{options.page}#game={GAME}" and link.startswith("http://127.0.0.1:")
        status, _, body = await http_get(int(link.split(":")[2].split("/")[0]), "/")
        assert status == 200 and body.startswith(b"<!doctype html>")
    monkeypatch.setattr(page, "page_root", lambda: tmp_path / "no page here")
    options = network.Options(relay=f"mqtt://127.0.0.1:{free_port()}", write=told.append)
    async with network.relay_for_host(options, may_start=True) as (_, ran):
        assert ran and options.page is None  # no page installed: no listener, no link


def test_the_vendored_mqtt_js_is_the_release_its_note_names():
    import hashlib

    vendor = page.page_root() / "vendor"
    note = (vendor / "mqtt.VERSION.txt").read_text()
    assert hashlib.sha256((vendor / "mqtt.esm.js").read_bytes()).hexdigest() in note
    assert "MIT" in note and "Permission is hereby granted" in (vendor / "mqtt.LICENSE.txt").read_text()
    assert [name.as_posix() for name in page.page_files(page.page_root()) if name.parts[0] == "vendor"] == [
        "vendor/mqtt.LICENSE.txt",
        "vendor/mqtt.VERSION.txt",
        "vendor/mqtt.esm.js",
    ]
