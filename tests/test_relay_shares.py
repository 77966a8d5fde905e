"""A player's share of a game on the embedded relay: nobody but its own lines fills it, a seated game keeps only its
players' lines, a game's non-players are capped, and a catch-up never delays the subscriber's own line.

Each test reproduces an attack on the anonymous embedded relay (what ``olixono host`` runs) through the real relay
on a free 127.0.0.1 port, and fails on a relay the attack would harm. The strangers connect from 127.0.0.2 and up
(loopback all the same, to 127.0.0.1): each address is an owner of its own, as an attacker's addresses are.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from protocol_helpers import GUEST, HOST, STRANGER
from relay_fixtures import port_of, retained_topics, signed_line, topic_of

from harness.mqtt import bare_client
from protocol import GameSession, Identity, PublicKey, game_filter
from protocol.events import Outgoing
from protocol.keys import b64
from protocol.messages import encode, line_hash
from protocol.topics import held_copy_topic, player_filter
from relay.cli import add_subparser
from relay.embedded import EmbeddedRelay, RelaySettings
from relay.rules import Limits

FAST = Limits(publish_rate=0)
"""The default limits, but for the publish rate (the floods here would take minutes at 50 lines a second)."""


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


def copy_of(game: str, holder: Identity, line: bytes) -> tuple[str, bytes]:
    """``line`` as a copy held by ``holder`` (the topic names its hash)."""
    return held_copy_topic(game, holder.public, line_hash(line.decode())), line


def long_line(key: Identity, game: str, n: int) -> bytes:
    """A chat line of ``key``'s numbered ``n``, as long as the protocol allows (1.7 kB)."""
    return encode(
        "chat", [("game", game), ("seq", str(n)), ("prev", b64(bytes(32))), ("text", "%21" * 500)], key
    ).encode()


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
async def listening(port: int, topic_filter: str, **options: Any) -> AsyncIterator[Heard]:
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


async def publish(
    port: int, lines: Iterable[tuple[str, bytes]], *, source: str = "127.0.0.1", retain: bool = True
) -> None:
    """Publish ``lines`` (QoS 1) from a connection of its own bound to ``source``, all acknowledged."""
    async with bare_client(port, bind_address=source, timeout=30) as client:
        client.pending_calls_threshold = 10_000
        await asyncio.gather(*(client.publish(topic, line, qos=1, retain=retain) for topic, line in lines))


async def from_addresses(port: int, lines: list[tuple[str, bytes]], addresses: int) -> None:
    """``lines`` dealt out to ``addresses`` connections from 127.0.0.2 and up, all at once: one owner each."""
    await asyncio.gather(*(publish(port, lines[n::addresses], source=f"127.0.0.{n + 2}") for n in range(addresses)))


async def settle(relay: EmbeddedRelay) -> None:
    """Wait until the relay has handled what it acknowledged (it acknowledges a line when it queues it): its
    retained topics the same for 0.3 s, within 20 s."""
    last, stable = -1, 0
    async with asyncio.timeout(20):
        while stable < 3:
            await asyncio.sleep(0.1)
            count = len(retained_topics(relay))
            stable, last = (stable + 1, last) if count == last else (0, count)


# -- a player's own share ---------------------------------------------------------------------------------
@pytest.mark.network
@pytest.mark.parametrize("cap", ["lines", "bytes"])
async def test_copies_held_for_a_player_never_refuse_its_own_lines(cap):
    """The lock-out: strangers (four addresses) publish copies "held" by the host of throwaway keys' chat lines, and
    the host, once seated, copies its own junk under the guest's key, past the per-key cap (lines, or bytes with
    long lines). The copies filled the key's one quota, so the host's accept and the guest's reveal were refused,
    live and retained: the opponent then won on time. A key's own lines are counted apart now."""
    t = table()
    if cap == "lines":
        limits = Limits(publish_rate=0, lines_per_key=20)
        make = lambda key, game, n: signed_line(key, game, f"chat-{n}", f"junk {n}")  # noqa: E731
    else:  # the offer and ten long lines fill the cap to the byte: not even a short line fits after them
        limits = Limits(publish_rate=0, bytes_per_key=len(t.offer.line) + 10 * len(long_line(HOST, t.game, 10)))
        make = long_line
    async with (
        EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay,
        listening(port_of(relay), game_filter(t.game)) as watcher,
    ):
        await publish(port_of(relay), [own(t.offer)])
        junk = [copy_of(t.game, HOST, make(throwaway(f"stranger {n}"), t.game, n)) for n in range(10, 50)]
        await from_addresses(port_of(relay), junk, 4)
        await settle(relay)
        await publish(port_of(relay), [own(t.join)])
        await publish(port_of(relay), [own(t.accept)])  # the host's own line: refused when its key's quota was full
        await watcher.until(t.accept.topic)
        host_junk = [copy_of(t.game, GUEST, make(HOST, t.game, n)) for n in range(10, 50)]
        await publish(port_of(relay), host_junk)  # the host copies its own junk under the guest's key
        reveal = t.guest.reveal()
        await publish(port_of(relay), [own(reveal)])
        assert await watcher.until(reveal.topic) == reveal.line.encode()
        await settle(relay)
        kept = set(retained_topics(relay))
        assert {t.offer.topic, t.join.topic, t.accept.topic, reveal.topic} <= kept
        kept_for_guest = [topic for topic, _ in host_junk if topic in kept]
        assert 0 < len(kept_for_guest) < 40  # the guest's copies are capped too, apart from its own lines


@pytest.mark.network
async def test_a_seated_game_keeps_only_its_players_lines():
    """Once the offer and the accept are in, a stranger's join, chat, presence, copies under its own key, and
    copies of its lines under a player's key are refused, live and retained (they were kept, and counted against
    the player whose key the copy topic named). The players' own lines and their copies of each other's go on."""
    t = table()
    stranger = GameSession(t.game, STRANGER)
    stranger.receive(t.offer.line)
    stranger_join = stranger.join()
    stranger_chat = signed_line(STRANGER, t.game, "chat-1", "hello")
    strangers = [
        own(stranger_join),
        (topic_of(t.game, STRANGER, "chat-1"), stranger_chat),
        own(stranger.presence(True, 1)),
        copy_of(t.game, STRANGER, t.offer.line.encode()),  # a copy under its own key of a player's line
        copy_of(t.game, HOST, stranger_chat),  # a copy of its own line under a player's key
        copy_of(t.game, GUEST, stranger_join.line.encode()),
    ]
    async with (
        EmbeddedRelay(RelaySettings(port=0, limits=FAST)) as relay,
        listening(port_of(relay), game_filter(t.game)) as watcher,
    ):
        await publish(port_of(relay), [own(t.offer), own(t.join), own(t.accept)])
        await watcher.until(t.accept.topic)
        await publish(port_of(relay), strangers, source="127.0.0.2")
        await publish(
            port_of(relay), [chat(STRANGER, t.game, 2)], source="127.0.0.2", retain=False
        )  # live: refused too
        reveal = t.guest.reveal()
        players = [
            own(reveal),
            copy_of(t.game, HOST, t.join.line.encode()),
            copy_of(t.game, GUEST, t.offer.line.encode()),
            own(t.host.chat("hello")),
            copy_of(t.game, GUEST, signed_line(HOST, t.game, "chat-9")),
        ]
        await publish(port_of(relay), players)
        for topic, line in players:
            assert await watcher.until(topic) == line
        await settle(relay)
        heard, kept = set(watcher.topics), set(retained_topics(relay))
    assert {topic for topic, _ in players} <= kept
    assert not {topic for topic, _ in strangers} & (heard | kept)
    assert not [topic for topic in heard | kept if STRANGER.public.text in topic]


@pytest.mark.network
async def test_the_seats_are_learnt_in_any_order_and_kept_across_a_restart(tmp_path):
    """A relay re-seeded from a transcript may take the accept before the offer; one started again with --data
    learns the seats from its store. Either way, strangers are refused once both seats are known."""
    t = table()
    settings = RelaySettings(port=0, limits=FAST, data_dir=tmp_path / "data")

    async with EmbeddedRelay(settings) as relay:
        await publish(port_of(relay), [own(t.accept), own(t.join)])
        await settle(relay)
        await publish(port_of(relay), [chat(STRANGER, t.game, 1)], source="127.0.0.2")  # nothing seated yet: kept
        await settle(relay)
        await publish(port_of(relay), [own(t.offer)])
        await settle(relay)
        await publish(port_of(relay), [chat(STRANGER, t.game, 2)], source="127.0.0.2")
        await settle(relay)
        kept = retained_topics(relay)
        assert chat(STRANGER, t.game, 1)[0] in kept and chat(STRANGER, t.game, 2)[0] not in kept
        assert relay.broker is not None and relay.broker.seats.players(t.game) == (HOST.public.text, GUEST.public.text)
    async with EmbeddedRelay(settings) as relay:
        await publish(port_of(relay), [chat(STRANGER, t.game, 3)], source="127.0.0.2")
        reveal = t.guest.reveal()
        await publish(port_of(relay), [own(reveal)])
        await settle(relay)
        kept = retained_topics(relay)
        assert chat(STRANGER, t.game, 3)[0] not in kept and reveal.topic in kept
        assert relay.broker is not None and relay.broker.quotas.non_players(t.game) == 1  # the stranger's first line


@pytest.mark.network
async def test_an_invited_guest_is_seated_by_the_offer():
    """In a game for an invited key nobody else can be seated: strangers are refused from the offer on."""
    t = table(invite=GUEST.public)
    stranger = GameSession(t.game, STRANGER)
    stranger.receive(t.offer.line)
    async with EmbeddedRelay(RelaySettings(port=0, limits=FAST)) as relay:
        await publish(port_of(relay), [own(t.offer)])
        await settle(relay)
        await publish(
            port_of(relay),
            [(topic_of(t.game, STRANGER, "1"), signed_line(STRANGER, t.game, "1")), own(stranger.presence(True, 1))],
            source="127.0.0.2",
        )
        here = t.guest.presence(True, 1)
        await publish(port_of(relay), [own(t.join), own(here)])
        await settle(relay)
        kept = retained_topics(relay)
    assert t.join.topic in kept and here.topic in kept
    assert not [topic for topic in kept if STRANGER.public.text in topic]


# -- a game's non-players ---------------------------------------------------------------------------------
@pytest.mark.network
async def test_a_games_non_players_are_capped_and_never_its_players():
    """Strangers from two addresses, under many keys, leave 2,400 chat lines in a game before it is seated (each
    address and key within its own caps): the game keeps at most the default 2,000 lines of non-players (there was
    no cap: every key and every address more added to what each late watcher is sent), and its players' own lines
    go on past it."""
    t = table()
    junk = [chat(throwaway(f"flood {k}"), t.game, n) for k in range(8) for n in range(1, 301)]
    async with EmbeddedRelay(RelaySettings(port=0, limits=FAST)) as relay:
        await publish(port_of(relay), [own(t.offer), own(t.join)])  # the guest is a candidate: a non-player so far
        await from_addresses(port_of(relay), junk, 2)
        await settle(relay)  # the flood handled before the game is seated
        host_chat = [chat(HOST, t.game, n) for n in range(1, 51)]
        await publish(port_of(relay), [*host_chat, own(t.accept)])
        await settle(relay)  # the guest reveals once it has the accept, which the relay keeps as it sends it on
        reveal = t.guest.reveal()
        guest_chat = [chat(GUEST, t.game, n) for n in range(1, 51)]
        await publish(port_of(relay), [own(reveal), *guest_chat, copy_of(t.game, HOST, t.join.line.encode())])
        await settle(relay)
        kept = set(retained_topics(relay))
        async with listening(port_of(relay), game_filter(t.game)) as late:
            await late.until(reveal.topic)
            await asyncio.sleep(1.0)
    players = {topic for topic, _ in (*host_chat, *guest_chat, own(t.offer), own(t.join), own(t.accept), own(reveal))}
    assert players <= kept and held_copy_topic(t.game, HOST.public, t.join.message.hash) in kept
    strangers_kept = len([topic for topic, _ in junk if topic in kept])
    assert strangers_kept == 2000 - 1  # the guest's join took one place until it was seated
    assert len(late.topics) == len(kept) == strangers_kept + len(players) + 1


# -- a catch-up is paid for by subscribing ------------------------------------------------------------------
@pytest.mark.network
async def test_a_catch_up_never_delays_the_subscribers_next_line():
    """A player's client subscribes to the whole game on every (re)connection, and the game's retained lines it is
    sent are charged to its address; a catch-up delays only the next subscription, and the move, from this
    connection or another of the same address, leaves at once. (Were the move to wait until they are paid for, 600
    junk lines at 100 a second past a burst of 100 would hold it 5 s.)"""
    t = table()
    limits = Limits(publish_rate=0, delivery_rate=100.0, delivery_burst=100)
    junk = [chat(throwaway(f"catch-up {k}"), t.game, n) for k in range(3) for n in range(1, 201)]
    async with EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay:
        await publish(port_of(relay), [own(t.offer), own(t.join)])
        await publish(port_of(relay), junk, source="127.0.0.2")  # before the accept: strangers' lines are still kept
        await settle(relay)
        await publish(port_of(relay), [own(t.accept)])
        await settle(relay)
        async with (
            listening(port_of(relay), player_filter(t.game, GUEST.public), bind_address="127.0.0.3") as opponent,
            bare_client(port_of(relay), timeout=30) as player,
        ):
            await player.subscribe(game_filter(t.game), qos=1)
            caught_up = 0
            async with asyncio.timeout(20):
                async for _ in player.messages:
                    caught_up += 1
                    if caught_up == len(junk) + 3:
                        break
            assert relay.broker is not None
            charged = relay.broker._bucket("127.0.0.1", "catch-up")
            assert charged is not None and charged.tokens < 0  # the catch-up's debt: on the subscriptions' budget
            reveal = t.guest.reveal()
            started = time.monotonic()
            await player.publish(reveal.topic, reveal.line.encode(), qos=1, retain=True)
            await opponent.until(reveal.topic, timeout=15)
            first = time.monotonic() - started
            line = chat(GUEST, t.game, 1)
            started = time.monotonic()
            await publish(port_of(relay), [line])  # another connection from the player's address
            await opponent.until(line[0], timeout=15)
            second = time.monotonic() - started
    assert first < 1.5 and second < 1.5, (first, second)  # (its next subscription pays the debt, at 100 a second)


@contextlib.asynccontextmanager
async def slow_relay_with_an_open_game(name: str) -> AsyncIterator[tuple[EmbeddedRelay, Table]]:
    """A relay that sends 100 lines a second past a burst of 100, holding an open game's offer and 300 strangers'
    chat lines (a catch-up of 301 lines)."""
    t = table()
    limits = Limits(publish_rate=0, delivery_rate=100.0, delivery_burst=100)
    junk = [chat(throwaway(f"{name} {k}"), t.game, n) for k in range(3) for n in range(1, 101)]
    async with EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay:
        await publish(port_of(relay), [own(t.offer), *junk], source="127.0.0.2")
        await settle(relay)
        yield relay, t


@pytest.mark.network
async def test_clients_of_one_address_that_ask_for_a_game_again_are_never_kept_waiting_past_their_timeout():
    """A player reconnecting through a flapping link (its old connections not yet closed, its opponent at the same
    address) subscribes to the game from several connections at once, again and again. Each catch-up is charged to
    the address, but a catch-up's debt is one burst at most: a subscription is answered within a burst's worth of
    time, never after the client's timeout (10 s), which would reconnect, ask again, and never catch up."""
    async with slow_relay_with_an_open_game("again") as (relay, t), contextlib.AsyncExitStack() as stack:
        players = [await stack.enter_async_context(bare_client(port_of(relay), timeout=30)) for _ in range(4)]

        async def ask(player) -> float:
            started = time.monotonic()
            await player.subscribe(game_filter(t.game), qos=1)
            return time.monotonic() - started

        first = await asyncio.gather(*(ask(player) for player in players))
        await asyncio.sleep(0.2)
        again = await asyncio.gather(*(ask(player) for player in players))
    assert max(first) < 3.0 and max(again) < 3.0, (first, again)  # before: again 11 s (4 x 301 lines at 100 a second)


@pytest.mark.network
async def test_a_catch_up_of_the_whole_store_is_paid_in_full():
    """Only one game's catch-up leaves a capped debt (the game's caps bound it): a wildcard's is the whole store, and
    asking for it again and again must cost its whole size each time, or a client would drain the relay every 5 s."""
    async with slow_relay_with_an_open_game("store") as (relay, _), bare_client(port_of(relay), timeout=30) as reader:
        await reader.subscribe("olixono/1/#", qos=1)
        await reader.unsubscribe("olixono/1/#")
        started = time.monotonic()
        await reader.subscribe("olixono/1/#", qos=1)
        again = time.monotonic() - started
    assert again >= 1.6, again  # 301 lines past a burst of 100, at 100 a second: 2 s (capped, it would be 1 s)


def test_the_non_players_cap_has_an_option():
    parser = argparse.ArgumentParser()
    add_subparser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["relay", "--max-non-player-lines-per-game", "7"])
    assert args.non_player_lines_per_game == 7
    assert parser.parse_args(["relay"]).non_player_lines_per_game == Limits().non_player_lines_per_game


def test_what_a_key_left_before_its_seat_was_known_moves_to_its_shares():
    """Pure counts: the candidate's join, and the host's copy of it, are non-players' lines until the accept seats
    the guest; then they are the guest's own line and the host's copy of a player's line. A stranger's copy "held"
    by the host stays with the non-players, and never counts against the host."""
    from relay.quotas import Quotas
    from relay.seats import Seats

    t = table()
    retained: dict[str, bytes] = {}
    quotas = Quotas(Limits(), Seats(retained.get))
    stranger_copy = copy_of(t.game, HOST, signed_line(STRANGER, t.game, "chat-1"))
    for topic, line in [own(t.offer), own(t.join), copy_of(t.game, HOST, t.join.line.encode()), stranger_copy]:
        retained[topic] = line
        quotas.keep(topic, line, "127.0.0.1")
    assert quotas.non_players(t.game) == 3 and quotas.shares(t.game, HOST.public.text) == (1, 0)
    topic, line = own(t.accept)
    retained[topic] = line
    quotas.keep(topic, line, "127.0.0.1")
    assert quotas.non_players(t.game) == 1  # the stranger's copy
    assert quotas.shares(t.game, HOST.public.text) == (2, 1) and quotas.shares(t.game, GUEST.public.text) == (1, 0)
    assert quotas.held("127.0.0.1") == (5, sum(len(line) for line in retained.values()))
    reloaded = Quotas(Limits(), Seats(retained.get))  # a relay started again with --data, the accept first
    reloaded.load(dict(reversed(list(retained.items()))), private=False)
    assert reloaded.non_players(t.game) == 1 and reloaded.shares(t.game, HOST.public.text) == (2, 1)


# -- the watchers' talk ------------------------------------------------------------------------------------
def talk(key: Identity, game: str, n: int, text: str = "x") -> tuple[str, bytes]:
    """``key``'s talk line number ``n`` of ``game``, on its topic (``…/<key>/talk/<n>``)."""
    return topic_of(game, key, f"talk/{n}"), signed_line(key, game, f"talk/{n}", text)


@pytest.mark.network
async def test_a_seated_game_keeps_any_keys_talk_under_its_caps():
    """Once the seats are known a stranger's lines are refused, but a watcher's talk stands, any key's: at most 64
    lines a key and 32 keys a game, each line on its own slot; the players' lines go on."""
    t = table()
    talkers = [throwaway(f"watcher {k}") for k in range(33)]
    first = talk(STRANGER, t.game, 1, "hello players")
    wrong_slot = (topic_of(t.game, STRANGER, "talk/3"), signed_line(STRANGER, t.game, "talk/4"))
    beyond = talk(STRANGER, t.game, 65)
    async with (
        EmbeddedRelay(RelaySettings(port=0, limits=FAST)) as relay,
        listening(port_of(relay), game_filter(t.game)) as watcher,
    ):
        await publish(port_of(relay), [own(t.offer), own(t.join), own(t.accept)])
        await watcher.until(t.accept.topic)
        await publish(port_of(relay), [first, talk(STRANGER, t.game, 64), wrong_slot, beyond], source="127.0.0.2")
        await from_addresses(port_of(relay), [talk(key, t.game, 1) for key in talkers], 3)
        reveal = t.guest.reveal()
        await publish(port_of(relay), [own(reveal)])
        assert await watcher.until(first[0]) == first[1]
        await watcher.until(reveal.topic)
        await settle(relay)
        assert relay.broker is not None
        kept, talking = set(retained_topics(relay)), relay.broker.quotas.talkers(t.game)
    assert {first[0], talk(STRANGER, t.game, 64)[0], reveal.topic} <= kept
    assert wrong_slot[0] not in kept and beyond[0] not in kept
    assert talking == 32  # STRANGER and 31 of the 33 throwaway keys: the last to come were refused
    assert len([key for key in talkers if talk(key, t.game, 1)[0] in kept]) == 31


@pytest.mark.network
async def test_a_flood_of_talk_never_refuses_nor_pushes_out_the_games_lines():
    """32 keys from four addresses fill their talk to the last slot (2,048 lines) while the game is being seated,
    with the non-players' cap and every key's cap small: the talk counts in none of them, so the guest's join (a
    non-player's line until the accept), the accept, the reveal and the players' chat are all kept and delivered."""
    t = table()
    limits = Limits(publish_rate=0, non_player_lines_per_game=8, lines_per_key=70)
    flood = [talk(throwaway(f"flood {k}"), t.game, n) for k in range(32) for n in range(1, 65)]
    async with (
        EmbeddedRelay(RelaySettings(port=0, limits=limits)) as relay,
        listening(port_of(relay), player_filter(t.game, GUEST.public), bind_address="127.0.0.6") as host_side,
    ):
        await publish(port_of(relay), [own(t.offer)])
        flooding = asyncio.ensure_future(from_addresses(port_of(relay), flood, 4))
        await publish(port_of(relay), [own(t.join)])
        await publish(port_of(relay), [own(t.accept)])
        await flooding
        reveal = t.guest.reveal()
        lines = [own(reveal), *(chat(GUEST, t.game, n) for n in range(1, 51))]
        await publish(port_of(relay), lines)
        for topic, line in lines:
            assert await host_side.until(topic, timeout=15) == line
        await settle(relay)
        kept = set(retained_topics(relay))
    assert {t.offer.topic, t.join.topic, t.accept.topic, *(topic for topic, _ in lines)} <= kept
    assert len([topic for topic, _ in flood if topic in kept]) == len(flood)
