"""Load on a relay: N concurrent signed games between scripted players, every move signed and verified.

    python bench/relay.py --relay embedded --games 200
    python bench/relay.py --relay mosquitto --games 1000

Each game has two MQTT clients (3.1.1, TCP_NODELAY, QoS 1, retained lines on
the protocol's topics) that play random legal moves, one every ``--think``
seconds on average; every line received is checked by the player's
``GameSession``. The relay runs as its own process (``python -m relay`` or
``mosquitto`` from the generated configuration) on a free 127.0.0.1 port;
the players run in ``--workers`` processes. A move's latency runs from
signing it to the opponent having verified it. A message is lost if a
player never received a line of its own game's final transcript (the
players also receive their own lines back). Afterwards a late spectator
replays a sample of games from the relay's retained messages.

Prints ``name: value`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiomqtt

from harness import options
from harness.figures import mean, median, memory_mib, percentile, print_figures
from harness.mqtt import bare_client
from harness.relays import RelayProcess
from protocol import Event, GameSession, Identity, LineApplied, LineRejected, MoveApplied, Outgoing, PublicKey
from protocol.topics import copy_topic, game_filter

Stats = dict[str, Any]
"""A worker's counts, times and samples, by name (sent back to the main process)."""


# -- the players (in worker processes) -----------------------------------------------
class Player:
    def __init__(
        self, session: GameSession, key: PublicKey, client: aiomqtt.Client, stats: Stats, sent_at: dict[str, float]
    ) -> None:
        self.session, self.key, self.client, self.stats, self.sent_at = session, key, client, stats, sent_at
        self.received: set[str] = set()
        self.changed = asyncio.Event()
        self.joined = self.revealed = False

    async def listen(self, game: str) -> None:
        wanted = game_filter(game)
        async for message in self.client.messages:
            if not message.topic.matches(wanted):
                continue  # amqtt may send topics nobody asked for
            line = bytes(message.payload).decode("utf-8")
            self.received.add(line)
            events = self.session.receive(line)
            for event in events:
                if isinstance(event, LineRejected):
                    self.stats["rejected"] += 1
                elif isinstance(event, MoveApplied) and line in self.sent_at:
                    self.stats["latencies"].append(time.perf_counter() - self.sent_at.pop(line))
            await self.copy(events)
            self.changed.set()

    async def send(self, out: Outgoing) -> None:
        await self.client.publish(out.topic, out.line.encode("utf-8"), qos=1, retain=True)

    async def copy(self, events: list[Event]) -> None:
        """Re-publish each line of the other player's under this player's key (PROTOCOL.md §7)."""
        for event in events:
            if isinstance(event, LineApplied) and event.message.signer != self.key:
                await self.client.publish(
                    copy_topic(event.message, self.key), event.line.encode("utf-8"), qos=1, retain=True
                )

    async def drive(self, host_key: PublicKey, guest: Identity, rng: random.Random, think: float) -> None:
        s = self.session
        while not s.over:
            await self.changed.wait()
            self.changed.clear()
            if self.key == host_key:
                if len(s.chain) == 1 and guest.public in s.joins:
                    await self.send(s.accept(guest.public))
                    continue
            else:
                if len(s.chain) >= 1 and not self.joined:
                    self.joined = True
                    await self.send(s.join())
                    continue
                if len(s.chain) >= 3 and not self.revealed and not s.started:
                    self.revealed = True
                    await self.send(s.reveal())
                    continue
            if s.started and not s.over and s.actor == self.key:
                await asyncio.sleep(rng.uniform(0, 2 * think))
                assert s.board is not None
                moves = sorted(m.text() for m in s.board.legal_moves())
                started = time.perf_counter()
                out = s.move(rng.choice(moves))
                self.sent_at[out.line] = started
                self.stats["moves"] += 1
                await self.send(out)
                self.changed.set()


async def play(index: int, port: int, args: argparse.Namespace, stats: Stats, connecting: asyncio.Semaphore) -> None:
    rng = random.Random(args.seed * 1_000_003 + index)
    host, guest = Identity.generate(), Identity.generate()
    h, offer = GameSession.offer(args.kind, host)
    game = h.game_id
    assert game is not None  # the host's own offer names it
    g = GameSession(game, guest)
    sent_at: dict[str, float] = {}

    def client() -> aiomqtt.Client:
        return bare_client(port, timeout=30, keepalive=120)

    async with connecting:
        hc, gc = client(), client()
        await hc.__aenter__()
        await gc.__aenter__()
    try:
        players = [Player(h, host.public, hc, stats, sent_at), Player(g, guest.public, gc, stats, sent_at)]
        for p in players:
            await p.client.subscribe(game_filter(game), qos=1)
        listeners = [asyncio.create_task(p.listen(game)) for p in players]
        stats["ready"] += 1
        while stats["ready"] < stats["games"]:  # start every game together
            await asyncio.sleep(0.05)
        await players[0].send(offer)
        try:
            await asyncio.gather(
                *(p.drive(host.public, guest, random.Random(rng.random()), args.think) for p in players)
            )
            for _ in range(100):  # let the last echoes arrive (at most 5 s)
                if all(set(h.transcript) <= p.received for p in players):
                    break
                await asyncio.sleep(0.05)
            stats["completed"] += 1
            stats["lost"] += sum(len(set(h.transcript) - p.received) for p in players)
            stats["finished_games"].append((h.game_id, len(h.transcript)))
        finally:
            for task in listeners:
                task.cancel()
            await asyncio.gather(*listeners, return_exceptions=True)
    finally:
        for c in (hc, gc):
            await c.__aexit__(None, None, None)


async def spectate(port: int, games: list[tuple[str, int]]) -> int:
    """Replay ``games`` from the relay's retained lines; the number of games that do not rebuild."""
    bad = 0
    async with bare_client(port, timeout=30) as client:
        for game, length in games:
            await client.subscribe(game_filter(game), qos=1)
            watcher = GameSession(game)
            try:
                async with asyncio.timeout(5):
                    async for message in client.messages:
                        if message.topic.matches(game_filter(game)):
                            watcher.receive(bytes(message.payload))
                            if len(watcher.transcript) == length:
                                break
            except TimeoutError:
                pass
            bad += len(watcher.transcript) != length or watcher.result is None
            await client.unsubscribe(game_filter(game))
    return bad


def worker(first: int, count: int, port: int, args: argparse.Namespace, results: multiprocessing.Queue[Stats]) -> None:
    stats: Stats = {
        "games": count,
        "ready": 0,
        "moves": 0,
        "completed": 0,
        "lost": 0,
        "rejected": 0,
        "errors": 0,
        "latencies": [],
        "finished_games": [],
        "error_samples": [],
    }

    async def main() -> None:
        connecting = asyncio.Semaphore(50)

        async def one(i: int) -> None:
            try:
                await play(i, port, args, stats, connecting)
            except Exception as exc:  # a failed game is counted and reported, never hidden
                stats["errors"] += 1
                if len(stats["error_samples"]) < 3:
                    stats["error_samples"].append(repr(exc)[:200])
                stats["ready"] += 1

        try:
            async with asyncio.timeout(args.timeout):
                await asyncio.gather(*(one(first + i) for i in range(count)))
        except TimeoutError:
            stats["errors"] += count - stats["completed"]
            stats["error_samples"].append(f"timed out after {args.timeout} s")
        sample = stats["finished_games"][: args.spectate]
        stats["spectator_failures"] = await spectate(port, sample) if sample else 0
        stats["spectated"] = len(sample)

    asyncio.run(main())
    stats.pop("finished_games")
    results.put(stats)


def main() -> int:
    parser = options.parser(__doc__)
    options.add_relay(parser, "embedded")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--kind", choices=["oxono", "olix"], default="oxono")
    parser.add_argument(
        "--think",
        type=float,
        default=5.0,
        help="mean seconds a player waits before each move (default 5, a brisk human pace)",
    )
    parser.add_argument("--workers", type=int, default=2, help="client processes (default 2)")
    parser.add_argument("--timeout", type=float, default=600.0, help="give up after this many seconds (default 600)")
    parser.add_argument(
        "--spectate", type=int, default=20, help="games per worker replayed by a late spectator (default 20)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--autosave", type=int, help="Mosquitto: save its database every N changes (default: the generated config's)"
    )
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    with tempfile.TemporaryDirectory(prefix="olixono-bench-") as tmp:
        relay = RelayProcess(args.relay, Path(tmp), autosave=args.autosave).start()
        port = relay.port
        try:
            base = memory_mib(relay.pid)
            results: multiprocessing.Queue[Stats] = multiprocessing.get_context("spawn").Queue()
            ctx = multiprocessing.get_context("spawn")
            shares = [args.games // args.workers + (i < args.games % args.workers) for i in range(args.workers)]
            firsts = [sum(shares[:i]) for i in range(args.workers)]
            started = time.perf_counter()
            workers = [
                ctx.Process(target=worker, args=(firsts[i], shares[i], port, args, results))
                for i in range(args.workers)
                if shares[i]
            ]
            for w in workers:
                w.start()
            collected = [results.get(timeout=args.timeout + 120) for _ in workers]
            elapsed = time.perf_counter() - started
            for w in workers:
                w.join(30)
            after, peak = memory_mib(relay.pid), memory_mib(relay.pid, "VmHWM")
        finally:
            relay.stop()

    latencies = [x for r in collected for x in r["latencies"]]
    total = {
        k: sum(r[k] for r in collected)
        for k in ("moves", "completed", "lost", "rejected", "errors", "spectated", "spectator_failures")
    }
    figures: list[tuple[str, object]] = [
        ("relay", args.relay),
        ("games", args.games),
        ("games completed", total["completed"]),
        ("moves", total["moves"]),
        ("elapsed s", elapsed),
        ("moves/s", round(total["moves"] / elapsed)),
        ("think s", str(args.think)),
        ("move latency p50 ms", median(latencies) * 1000),
        ("move latency p99 ms", percentile(latencies, 0.99) * 1000),
        ("move latency max ms", max(latencies, default=float("nan")) * 1000),
        ("move latency mean ms", mean(latencies) * 1000),
        ("messages lost", total["lost"]),
        ("lines rejected", total["rejected"]),
        ("games failed", total["errors"]),
        ("late spectator replays ok", f"{total['spectated'] - total['spectator_failures']}/{total['spectated']}"),
        ("relay rss before MiB", base),
        ("relay rss after MiB", after),
        ("relay rss peak MiB", peak),
    ]
    print_figures(figures, digits=1)
    for r in collected:
        for sample in r["error_samples"]:
            print(f"error sample: {sample}")
    ok = total["completed"] == args.games and total["lost"] == 0 and total["rejected"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
