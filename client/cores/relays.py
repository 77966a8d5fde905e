"""Several relays for one game, sans I/O: what arrives from any of them reaches the game once, what each relay lacks
is known (so that it gets it from us), and each relay's state is said in words.

The protocol trusts no relay with anything (signed lines, a hash chain, copies held by each player), so one game can
travel over several at once: every line is published to each, read from all, and merged by the chain. This module
is the merging's bookkeeping, without sockets (the links are :mod:`client.shell.transport`'s), so that it can be tested
on its own, the way :mod:`client.cores.network_game` is:

- :meth:`Relays.arrived` says whether a line that came from one relay is new to this client: a line that came live
  from another relay first is not given to the game again (it is the same signed line), but a relay that holds
  another line on a topic than another relay does (a stranger replaced it there, on an anonymous broker) is news,
  and so is everything a relay sends from its store (the game asked for it again, or catches up): the game judges
  it. (What a relay lacks each relay's own link knows, ``Link.seen``: the game's ``on_connect`` hook sends it again
  there, as to a single relay that lost a line.)
- :meth:`Relays.connection` turns a relay's link going up or down into one sentence: ``relay lost: R2
  (mqtt://b.example:1883): …; playing on through R1``, ``relay back: R2 (…); playing through R1, R2``; whole
  sentences, which a front end shows as they are (:data:`WHOLE`).

Relays are numbered from 1 (``R1``, ``R2``) in the order they were given.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

WHOLE = ("relay lost: R", "relay back: R")
"""How :meth:`Relays.connection`'s sentences begin: a front end shows them as they are, not after its own ``relay
lost:``."""
START_ONE = " (start one with `olixono relay`)"
"""What the words for a relay that nothing answers at end with (where nobody knows whose relay it was)."""

MOST_RELAYS = 5
"""Relays one game may travel over at once."""

MOST_REMEMBERED = 100_000
"""Live lines remembered (a game's lines and copies are a few thousand; a stranger's junk on an anonymous broker is
not remembered past this)."""


PUBLIC = "public"
"""The word that, given as a relay (``--relay public``), stands for every broker of :data:`PUBLIC_BROKERS`."""


@dataclass(frozen=True)
class Broker:
    """A free public MQTT broker, as its operator's own page describes it."""

    name: str
    url: str
    """What olixono connects to: TLS, on a port whose certificate a system's own trust store accepts."""
    operator: str
    page: str
    ports: str
    limits: str


PUBLIC_BROKERS = (
    Broker(
        "mosquitto",
        "mqtts://test.mosquitto.org:8886",
        "the Eclipse Mosquitto project",
        "https://test.mosquitto.org",
        "1883 plain, 8883 TLS (the project's own CA), 8886 TLS (a Let's Encrypt certificate), 8080 WebSocket, "
        "8081 WebSocket over TLS",
        "a test server: no promise of service, sometimes running experimental builds, restarted at will (its "
        "retained lines may go with a restart)",
    ),
    Broker(
        "emqx",
        "mqtts://broker.emqx.io:8883",
        "EMQ Technologies",
        "https://www.emqx.com/en/mqtt/public-mqtt5-broker",
        "1883 plain, 8883 TLS, 8083 WebSocket, 8084 WebSocket over TLS",
        "for testing: no promise of service; shared by everyone who uses it",
    ),
    Broker(
        "hivemq",
        "mqtts://broker.hivemq.com:8883",
        "HiveMQ",
        "https://www.hivemq.com/mqtt/public-mqtt-broker/",
        "1883 plain, 8883 TLS, 8000 WebSocket, 8884 WebSocket over TLS",
        "for testing: no promise of service, no account; shared by everyone who uses it",
    ),
)
"""The public brokers ``--relay public`` plays through, all at once (each line goes to each): none is promised to be
up, so the game goes on as long as one is. Each is anonymous and open to everyone, which the protocol was made for:
a broker sees no secret (there is none in a game), changes nothing unseen (every line is signed and chained), and
can only delay, drop or lose lines, or go away — what several relays at once are for."""


def expand(words: Sequence[str], public: Sequence[str] | None = None) -> list[str]:
    """The relay URLs that ``words`` name (``public`` stands for every one of ``public``, by default the URLs of
    :data:`PUBLIC_BROKERS`; a broker's short name, such as ``emqx``, for that one), in order."""
    brokers = {broker.name: broker.url for broker in PUBLIC_BROKERS}
    urls: list[str] = []
    for word in words:
        if word.strip().lower() == PUBLIC:
            urls.extend(public_urls(public))
        else:
            urls.append(brokers.get(word.strip().lower(), word))
    return urls


def public_urls(public: Sequence[str] | None = None) -> list[str]:
    return list(public) if public else [broker.url for broker in PUBLIC_BROKERS]


def named(urls: Sequence[str], public: Sequence[str] | None = None) -> list[str]:
    """How to name ``urls`` on a command line: every public broker among them is ``public``, once, where the first of
    them was (what :func:`expand` reads back)."""
    public = public_urls(public)
    if not all(url in urls for url in public):
        return list(urls)
    words: list[str] = []
    for url in urls:
        if url not in public:
            words.append(url)
        elif PUBLIC not in words:
            words.append(PUBLIC)
    return words


def label(index: int) -> str:
    """How people see relay number ``index`` (from 0): ``R1``, ``R2``…"""
    return f"R{index + 1}"


def distinct_relays(urls: Sequence[str]) -> list[str]:
    """The relays a command was given, each once, in order; :class:`ValueError` with a sentence for none or too many."""
    kept = list(dict.fromkeys(url.strip() for url in urls if url.strip()))
    if not kept:
        raise ValueError("no relay given")
    if len(kept) > MOST_RELAYS:
        raise ValueError(f"at most {MOST_RELAYS} relays for one game, not {len(kept)}")
    return kept


def digest(payload: bytes) -> bytes:
    return hashlib.sha256(payload).digest()


@dataclass
class RelayState:
    """One relay of the set, as this client last knew it."""

    url: str
    up: bool = False
    said: str = ""
    """The last sentence its link gave for its state."""


class Relays:
    """The relays of one game, and what this client received from each."""

    def __init__(self, urls: Sequence[str]) -> None:
        self.states = [RelayState(url) for url in distinct_relays(urls)]
        self._known: set[tuple[str, bytes]] = set()  # (topic, digest) given to the game live already, from any relay

    def __len__(self) -> int:
        return len(self.states)

    def name(self, index: int) -> str:
        """``R2 (mqtt://b.example:1883)``."""
        return f"{label(index)} ({self.states[index].url})"

    # -- what arrives ----------------------------------------------------------------------------
    def arrived(self, index: int, topic: str, payload: bytes, *, live: bool = True) -> bool:
        """A line (``payload`` on ``topic``) came from relay ``index``: whether to give it to the game. A line that
        came live from another relay first is the same signed line: not again. What a relay sends from its store (a
        catch-up, an asking again: ``live=False``) always goes to the game, which knows what it has: it is asked
        for because the game may have dropped it, and a line seen there first may still come live."""
        if not live:
            return True
        seen = (topic, digest(payload))
        if seen in self._known:
            return False
        if len(self._known) < MOST_REMEMBERED:  # past it (a flood), the game's own judging drops a line it has
            self._known.add(seen)
        return True

    # -- each relay's state ------------------------------------------------------------------------
    @property
    def up(self) -> list[int]:
        return [index for index, state in enumerate(self.states) if state.up]

    def connection(self, index: int, up: bool, sentence: str) -> str | None:
        """Relay ``index``'s link went up or down (``sentence``: what it said); the words for the change, or ``None``
        when its state is what it was. A relay that connects again has sent nothing yet on that connection."""
        state = self.states[index]
        changed = state.up != up
        state.up, state.said = up, sentence
        if not changed:
            return None
        if len(self.states) == 1:
            return sentence
        others = [label(other) for other in self.up if other != index]
        if up:
            return f"relay back: {self.name(index)}; playing through {', '.join(sorted([*others, label(index)]))}"
        if others:
            return f"relay lost: {self.name(index)}: {sentence}; playing on through {', '.join(others)}"
        return f"relay lost: {self.name(index)}, the last: {sentence}"

    def given_up(self, index: int, sentence: str) -> str:
        """Relay ``index``'s link gave up (``--timeout``, or a refusal for good): the words for it, whatever its state
        was (a relay never reached is given up on too)."""
        self.states[index].up, self.states[index].said = False, sentence
        others = [label(other) for other in self.up]
        rest = f"; playing on through {', '.join(others)}" if others else ""
        return f"relay lost: {self.name(index)}: {sentence} (given up){rest}"

    def summary(self) -> str:
        """Each relay's state in a few words: ``R1 up, R2 down``."""
        return ", ".join(f"{label(index)} {'up' if state.up else 'down'}" for index, state in enumerate(self.states))
