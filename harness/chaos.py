"""A chaos proxy between MQTT clients and a relay, driven by a seed so that a failure replays.

    python -m harness.chaos --relay-port 1883 --port 1884 --seed 7 --loss 0.02 --delay 0.005 --jitter 0.01

It reads MQTT 3.1.1 packets (the fixed header says how long each one is) and, on each connection, with a random
generator of its own (the seed and the connection's number):

- ``loss``: drops a PUBLISH on its way (either way), and answers its PUBACK itself, as a relay or a bridge that
  lost a line after acknowledging it would;
- ``duplicate``: sends a PUBLISH twice (its second PUBACK is swallowed);
- ``reorder``: holds a PUBLISH back behind the next one;
- ``delay`` and ``jitter``: every packet waits ``delay`` plus up to ``jitter`` seconds (in order, as TCP keeps it);
- ``disconnect``: cuts the connection (both sockets closed) after a packet;
- ``half_open``: goes silent both ways after a packet, the sockets left open (TCP notices nothing); or after
  ``silence_after`` packets of each connection;
- ``withhold``: never forwards live (non-retained) lines published under this key to anyone else: a relay that
  keeps one player's lines from the other, though it retains them.

``drop`` (in code) chooses single deliveries to lose: ``drop(connection, direction, number, topic)`` is asked for
every PUBLISH. Nothing here touches anything but 127.0.0.1 sockets it was given.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from harness import options

UP, DOWN = "up", "down"
"""Directions: from the client to the relay, and from the relay to the client."""


@dataclass
class Chaos:
    """What the proxy does to the traffic (shares are chances per PUBLISH, or per packet for the connection's end)."""

    seed: int = 0
    loss: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    delay: float = 0.0
    jitter: float = 0.0
    disconnect: float = 0.0
    half_open: float = 0.0
    withhold: str | None = None
    drop: Callable[[int, str, int, str], bool] | None = None
    silence_after: int = 0
    """Each connection goes silent (half-open) after this many packets (0: only by chance, ``half_open``)."""
    spared: int = 0
    """Packets at the start of each connection never cut or silenced (its CONNECT, its first subscriptions)."""


@dataclass
class Counts:
    connections: int = 0
    packets: int = 0
    dropped: int = 0
    duplicated: int = 0
    reordered: int = 0
    cut: int = 0
    silenced: int = 0
    withheld: int = 0

    def text(self) -> str:
        return ", ".join(f"{name} {value}" for name, value in vars(self).items())


@dataclass
class _Packet:
    data: bytes
    kind: int = field(init=False)

    def __post_init__(self) -> None:
        self.kind = self.data[0] >> 4

    def publish_fields(self) -> tuple[str, int, int | None, bool]:
        """A PUBLISH's topic, QoS, packet id and retain flag."""
        flags = self.data[0] & 0x0F
        qos, retain = (flags >> 1) & 3, bool(flags & 1)
        index = 1
        while self.data[index] & 0x80:
            index += 1
        index += 1
        length = int.from_bytes(self.data[index : index + 2], "big")
        topic = self.data[index + 2 : index + 2 + length].decode("utf-8", "replace")
        ident = None
        if qos:
            start = index + 2 + length
            ident = int.from_bytes(self.data[start : start + 2], "big")
        return topic, qos, ident, retain

    def with_dup(self) -> bytes:
        return bytes([self.data[0] | 0x08]) + self.data[1:]


async def _read_packet(reader: asyncio.StreamReader) -> bytes:
    first = await reader.readexactly(1)
    header = bytearray(first)
    length, shift = 0, 0
    for _ in range(4):
        byte = (await reader.readexactly(1))[0]
        header.append(byte)
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return bytes(header) + await reader.readexactly(length)


def _puback(ident: int) -> bytes:
    return bytes([0x40, 0x02]) + ident.to_bytes(2, "big")


class _Connection:
    def __init__(
        self,
        proxy: ChaosProxy,
        number: int,
        client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        relay: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    ) -> None:
        self.proxy, self.number = proxy, number
        self.rng = random.Random(f"{proxy.chaos.seed}/{number}")
        self.readers = {UP: client[0], DOWN: relay[0]}
        self.writers = {UP: relay[1], DOWN: client[1]}  # where each direction's packets go
        self.queues: dict[str, asyncio.Queue[tuple[float, bytes] | None]] = {UP: asyncio.Queue(), DOWN: asyncio.Queue()}
        self.last_due = {UP: 0.0, DOWN: 0.0}
        self.held: dict[str, bytes | None] = {UP: None, DOWN: None}
        self.swallow: dict[str, set[int]] = {UP: set(), DOWN: set()}  # PUBACKs of duplicated PUBLISHes, to drop
        self.publishes = {UP: 0, DOWN: 0}
        self.silent = False
        self.packets = 0
        self.closed = asyncio.Event()

    def other(self, direction: str) -> str:
        return DOWN if direction == UP else UP

    def send(self, direction: str, data: bytes) -> None:
        chaos = self.proxy.chaos
        loop = asyncio.get_running_loop()
        due = max(self.last_due[direction], loop.time() + chaos.delay + self.rng.uniform(0, chaos.jitter))
        self.last_due[direction] = due
        self.queues[direction].put_nowait((due, data))

    async def pump(self, direction: str) -> None:
        """Read one direction's packets and decide what becomes of each."""
        chaos, counts = self.proxy.chaos, self.proxy.counts
        reader = self.readers[direction]
        try:
            while not self.closed.is_set():
                data = await _read_packet(reader)
                counts.packets += 1
                if self.silent:
                    continue
                packet = _Packet(data)
                if packet.kind == 4 and self.swallow[direction]:  # PUBACK
                    ident = int.from_bytes(data[2:4], "big")
                    if ident in self.swallow[direction]:
                        self.swallow[direction].discard(ident)
                        continue
                if packet.kind == 3:
                    self.publish(direction, packet)
                else:
                    self.send(direction, data)
                self.packets += 1
                if self.packets <= chaos.spared:
                    continue
                if self.rng.random() < chaos.disconnect:
                    counts.cut += 1
                    self.close()
                    return
                if self.rng.random() < chaos.half_open or self.packets == chaos.silence_after:
                    counts.silenced += 1
                    self.silent = True
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            self.close()

    def publish(self, direction: str, packet: _Packet) -> None:
        chaos, counts = self.proxy.chaos, self.proxy.counts
        topic, qos, ident, retain = packet.publish_fields()
        self.publishes[direction] += 1
        number = self.publishes[direction]
        lose = chaos.drop is not None and chaos.drop(self.number, direction, number, topic)
        lose = lose or self.rng.random() < chaos.loss
        if not lose and chaos.withhold and direction == DOWN and not retain and f"/{chaos.withhold}/" in topic:
            lose = True
            counts.withheld += 1
        elif lose:
            counts.dropped += 1
        if lose:
            if qos and ident is not None:  # acknowledged, as a relay that lost it after taking it would
                self.send(self.other(direction), _puback(ident))
            return
        if self.rng.random() < chaos.reorder and self.held[direction] is None:
            counts.reordered += 1
            self.held[direction] = packet.data
            asyncio.get_running_loop().call_later(0.05, self.release, direction)
            return
        self.send(direction, packet.data)
        self.release(direction)
        if self.rng.random() < chaos.duplicate:
            counts.duplicated += 1
            self.send(direction, packet.with_dup())
            if qos and ident is not None:
                self.swallow[self.other(direction)].add(ident)

    def release(self, direction: str) -> None:
        held, self.held[direction] = self.held[direction], None
        if held is not None and not self.closed.is_set():
            self.send(direction, held)

    async def write(self, direction: str) -> None:
        writer = self.writers[direction]
        loop = asyncio.get_running_loop()
        try:
            while True:
                item = await self.queues[direction].get()
                if item is None:
                    return
                due, data = item
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                if self.silent:
                    continue
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            self.close()

    def close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        for queue in self.queues.values():
            queue.put_nowait(None)
        for writer in self.writers.values():
            with contextlib.suppress(Exception):
                writer.close()

    async def run(self) -> None:
        tasks = [
            asyncio.create_task(coro) for coro in (self.pump(UP), self.pump(DOWN), self.write(UP), self.write(DOWN))
        ]
        try:
            await self.closed.wait()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


class ChaosProxy:
    """``async with ChaosProxy(relay_port, Chaos(seed=1, loss=0.01)) as proxy:`` clients connect to ``proxy.port``.

    Each connection to the relay leaves from its client's own address (in 127.0.0.0/8), as if the proxy were not
    there: the relay's per-address limits count each client, not the proxy.
    """

    def __init__(self, relay_port: int, chaos: Chaos | None = None, *, port: int = 0, host: str = "127.0.0.1") -> None:
        self.relay_port, self.chaos, self.host, self.wanted_port = relay_port, chaos or Chaos(), host, port
        self.counts = Counts()
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._connections: set[_Connection] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> ChaosProxy:
        self._server = await asyncio.start_server(self._accept, self.host, self.wanted_port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        # from the client's own address, so that the relay's per-address limits see each client, not the proxy
        local = (peer[0], 0) if peer and str(peer[0]).startswith("127.") else None
        try:
            upstream = await asyncio.open_connection("127.0.0.1", self.relay_port, local_addr=local)
        except OSError:
            writer.close()
            return
        self.counts.connections += 1
        connection = _Connection(self, self.counts.connections, (reader, writer), upstream)
        self._connections.add(connection)
        try:
            await connection.run()
        finally:
            self._connections.discard(connection)

    def cut_all(self) -> int:
        """Cut every connection now (the clients reconnect); how many there were."""
        connections = list(self._connections)
        for connection in connections:
            connection.close()
        self.counts.cut += len(connections)
        return len(connections)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self.cut_all()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> ChaosProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--relay-port", type=int, required=True, help="the relay's port on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="the port clients connect to (0: a free one)")
    for name in ("seed",):
        parser.add_argument(f"--{name}", type=int, default=0)
    for name in ("loss", "duplicate", "reorder", "delay", "jitter", "disconnect", "half-open"):
        parser.add_argument(f"--{name}", type=float, default=0.0)
    parser.add_argument("--withhold", metavar="KEY", help="never forward this key's live lines")
    args = parser.parse_args()
    chaos = Chaos(
        seed=args.seed,
        loss=args.loss,
        duplicate=args.duplicate,
        reorder=args.reorder,
        delay=args.delay,
        jitter=args.jitter,
        disconnect=args.disconnect,
        half_open=args.half_open,
        withhold=args.withhold,
    )

    async def serve() -> None:
        async with ChaosProxy(args.relay_port, chaos, port=args.port) as proxy:
            print(f"chaos proxy on 127.0.0.1:{proxy.port} -> 127.0.0.1:{args.relay_port} (Ctrl-C stops it)", flush=True)
            try:
                while True:
                    await asyncio.sleep(10)
                    print(proxy.counts.text(), flush=True)
            finally:
                print(proxy.counts.text(), flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()
