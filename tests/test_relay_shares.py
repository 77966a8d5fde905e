"""A game's catch-up on the embedded relay never delays the subscriber's own line.

Each test reproduces an attack on the anonymous embedded relay (what ``olixono host`` runs) through the real relay
on a free 127.0.0.1 port, and fails on the relay as it was. The strangers connect from 127.0.0.2 and up (loopback
all the same, to 127.0.0.1): each address is an owner of its own, as the attackers' addresses were.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field

from harness.mqtt import bare_client
from protocol import GameSession, Identity, PublicKey, game_filter
from protocol.events import Outgoing
from protocol.topics import player_filter
from protocol_helpers import GUEST, HOST
from relay.embedded import EmbeddedRelay, Limits, RelaySettings
from relay_fixtures import retained_topics, signed_line, topic_of


@dataclass
class Table:
    """One game's opening, every line signed by its real sessions: the offer, the guest's join, the host's accept."""

    host: GameSession
    guest: GameSession
    offer: Outgoing
    join: Outgoing
    accept: Outgoing

    @property
    def game(self) -> str:
        return self.host.game_id or ""


def table(invite: PublicKey | None = None) -> Table:
    host, offer = GameSession.offer("oxono", HOST, invite=invite)
    guest = GameSession(host.game_id or "", GUEST)
    guest.receive(offer.line)
    join = guest.join()
    host.receive(join.line)
    accept = host.accept(GUEST.public)
    guest.receive(accept.line)
    return Table(host, guest, offer, join, accept)


def chat(key: Identity, game: str, n: int) -> tuple[str, bytes]:
    """``key``'s chat line number ``n`` of ``game``, on its topic."""
    return topic_of(game, key, f"chat-{n}"), signed_line(key, game, f"chat-{n}")


def throwaway(seed: str) -> Identity:
    return Identity.from_seed(hashlib.sha256(seed.encode()).digest())


def own(out: Outgoing) -> tuple[str, bytes]:
    return out.topic, out.line.encode()


@dataclass
class Heard:
    """What one subscriber received, topic by topic."""

    topics: dict[str, bytes] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def until(self, topic: str, timeout: float = 5.0) -> bytes:
        async with asyncio.timeout(timeout):
            while topic not in self.topics:
                self.changed.clear()
                await self.changed.wait()
        return self.topics[topic]


@contextlib.asynccontextmanager
async def listening(port: int, topic_filter: str, **options: object) -> AsyncIterator[Heard]:
    """A subscriber to ``topic_filter`` whose messages are gathered in the background."""
    heard = Heard()
    async with bare_client(port, **options) as client:
        await client.subscribe(topic_filter, qos=1)

        async def pump() -> None:
            async for message in client.messages:
                heard.topics[message.topic.value] = bytes(message.payload)
                heard.changed.set()

        task = asyncio.create_task(pump())
        try:
            yield heard
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def publish(port: int, lines: Iterable[tuple[str, bytes]], *, source: str = "127.0.0.1",
                  retain: bool = True) -> None:
    """Publish ``lines`` (QoS 1) from a connection of its own bound to ``source``, all acknowledged."""
    async with bare_client(port, bind_address=source, timeout=30) as client:
        client.pending_calls_threshold = 10_000
        await asyncio.gather(*(client.publish(topic, line, qos=1, retain=retain) for topic, line in lines))


async def settle(relay: EmbeddedRelay) -> None:
    """Wait until the relay has handled what it acknowledged (it acknowledges a line when it queues it): its
    retained topics the same for 0.3 s, within 20 s."""
    last, stable = -1, 0
    async with asyncio.timeout(20):
        while stable < 3:
            await asyncio.sleep(0.1)
            count = len(retained_topics(relay))
            stable, last = (stable + 1, last) if count == last else (0, count)


# -- a catch-up is paid for by subscribing ------------------------------------------------------------------
async def test_a_catch_up_never_delays_the_subscribers_next_line():
    """A player's client subscribes to the whole game on every (re)connection: the game's retained lines it was
    sent were charged to its address, and its next move waited until they were paid for (12,000 junk lines: 6.5 s).
    Here 600 junk lines at 100 a second past a burst of 100 made that 5 s; now a catch-up delays only the next
    subscription, and the move, from this connection or another of the same address, leaves at once."""
    t = table()
    limits = Limits(publish_rate=0, delivery_rate=100.0, delivery_burst=100)
    junk = [chat(throwaway(f"catch-up {k}"), t.game, n) for k in range(3) for n in range(1, 201)]
    async with EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay:
        await publish(relay.port, [own(t.offer), own(t.join)])
        await publish(relay.port, junk, source="127.0.0.2")  # before the accept: strangers' lines are still kept
        await settle(relay)
        await publish(relay.port, [own(t.accept)])
        await settle(relay)
        async with listening(relay.port, player_filter(t.game, GUEST.public), bind_address="127.0.0.3") as opponent, \
                bare_client(relay.port, timeout=30) as player:
            await player.subscribe(game_filter(t.game), qos=1)
            caught_up = 0
            async with asyncio.timeout(20):
                async for _ in player.messages:
                    caught_up += 1
                    if caught_up == len(junk) + 3:
                        break
            reveal = t.guest.reveal()
            started = time.monotonic()
            await player.publish(reveal.topic, reveal.line.encode(), qos=1, retain=True)
            await opponent.until(reveal.topic, timeout=15)
            first = time.monotonic() - started
            line = chat(GUEST, t.game, 1)
            started = time.monotonic()
            await publish(relay.port, [line])  # another connection from the player's address
            await opponent.until(line[0], timeout=15)
            second = time.monotonic() - started
            started = time.monotonic()
            await player.subscribe(game_filter(t.game), qos=1)  # the catch-up's debt is paid here
            again = time.monotonic() - started
    assert first < 1.5 and second < 1.5, (first, second)
    assert again >= 2.0  # the debt of 500 lines (a little paid meanwhile) at 100 a second
