"""Who may publish and subscribe where: the relay's topic rules, as pure functions.

The topic layout (``protocol.topics``) puts every message on
``olixono/1/games/<game id>/<signer key>/<slot>``, so a relay account named by
a player's public key can be allowed to publish only under that key:

- private mode (a users file): account ``U`` may publish only to
  ``olixono/1/games/+/U/#``; a relay-to-relay bridge account
  (``bridge.<name>``) may publish anywhere under ``olixono/1/games/#``; every
  account may subscribe to (read) ``olixono/1/games/#``.
- anonymous mode: anyone may publish and subscribe under ``olixono/1/#``; the
  protocol's signatures still protect every game.

The same rules are written as Mosquitto ACL lines by :mod:`relay.mosquitto`,
and one test suite checks both relays against them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from protocol.keys import KEY_BYTES, unb64
from protocol.messages import MAX_LINE_BYTES
from protocol.topics import DEFAULT_HOST, DEFAULT_PORT, GAMES, PAGE_TOPIC, ROOT

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT"]  # the relay's defaults are the protocol's (re-exported for the relays)

MAX_PACKET_BYTES = MAX_LINE_BYTES + 512
"""The largest MQTT packet a relay accepts: one protocol line plus the topic (about 100 bytes) and headers."""
AUTOSAVE_CHANGES = 1000
"""Save the database after this many changes (retained messages, subscriptions). Mosquitto rewrites
the whole file each time and routes nothing meanwhile: at 10, 1,000 games at a move every 5 s had a
p99 move latency of 207 ms; at 1,000, 42 ms (bench/relay.py). A crash (not a clean stop: SIGTERM always
saves) loses at most the changes since the last save, which the players can re-publish from their
transcripts; a small club that prefers to save more often passes ``--autosave 10``."""

KEY_TEXT = re.compile(r"[A-Za-z0-9_-]{43}")
BRIDGE_NAME = re.compile(r"bridge\.[A-Za-z0-9_-]{1,40}")
BRIDGE_PREFIX = "bridge."

_ROOT_LEVELS = ROOT.split("/")  # ["olixono", "1"]
_GAMES_LEVELS = GAMES.split("/")  # ["olixono", "1", "games"]


def is_key_text(name: str) -> bool:
    """Whether ``name`` is the canonical base64url text of a 32-byte Ed25519 public key."""
    if not KEY_TEXT.fullmatch(name):
        return False
    try:
        unb64(name, KEY_BYTES)
    except ValueError:
        return False
    return True


def is_bridge_name(name: str) -> bool:
    """Whether ``name`` names a relay-to-relay bridge account (``bridge.<name>``; never a key text)."""
    return BRIDGE_NAME.fullmatch(name) is not None


def check_account_name(name: str) -> None:
    """Raise ``ValueError`` unless ``name`` may be a relay account: a player's key text or ``bridge.<name>``."""
    if not (is_key_text(name) or is_bridge_name(name)):
        raise ValueError(
            f"{name!r} is not a player's public key (43 characters of base64url, as `olixono id` prints it) "
            f"nor a bridge account name ({BRIDGE_PREFIX}<letters, digits, _ or ->)"
        )


def _valid_topic(topic: str) -> bool:
    return bool(topic) and "+" not in topic and "#" not in topic and "\0" not in topic


def may_publish(username: str | None, topic: str, *, private: bool) -> bool:
    """Whether ``username`` (``None``: anonymous) may publish on ``topic``."""
    if not _valid_topic(topic) or topic == PAGE_TOPIC:  # the page's address is the relay's own word
        return False
    levels = topic.split("/")
    if not private:
        return levels[:2] == _ROOT_LEVELS and len(levels) > 2
    if username is None:
        return False
    if levels[:3] != _GAMES_LEVELS or len(levels) < 5:
        return False
    if is_bridge_name(username):
        return True
    # olixono/1/games/+/U/#  ("#" also matches the parent level and "+" an empty one, as in MQTT and so in
    # Mosquitto's ACL: both relays accept the same topics)
    return levels[4] == username


def may_subscribe(username: str | None, topic_filter: str, *, private: bool) -> bool:
    """Whether ``username`` may subscribe to ``topic_filter``: only filters inside the readable tree."""
    levels = topic_filter.split("/")
    prefix = _GAMES_LEVELS if private else _ROOT_LEVELS
    if private and username is None:
        return False
    if topic_filter == PAGE_TOPIC:  # where the relay says its page is: every client may read it
        return True
    # the fixed levels must be spelled out: "+" or "#" there would reach outside the tree
    return len(levels) > len(prefix) and levels[: len(prefix)] == prefix


def may_watch(topic_filter: str) -> bool:
    """Whether an anonymous reader of a private relay (its page's visitor, where the relay's owner lets them in) may
    subscribe to ``topic_filter``, or be sent a message on it: the games' tree, as an account may; it publishes
    nothing."""
    return may_subscribe("", topic_filter, private=True)


def may_read(username: str | None, topic: str, *, private: bool) -> bool:
    """Whether a message on ``topic`` may be delivered to ``username``."""
    return may_subscribe(username, topic, private=private)


@dataclass(frozen=True)
class Limits:
    """What one client may take of an embedded relay (``olixono relay --help`` names the options; 0: no limit)."""

    connections_per_address: int = 64
    """Open connections from one source address; more are closed at once."""
    subscriptions: int = 32
    """Topic filters one connection may hold (a client needs two or three); more are refused in the SUBACK (0x80)."""
    publish_rate: float = 50.0
    """Publishes a second per account (private mode) or per source address (anonymous mode: a flood spread over many
    connections counts as one), after a burst of ``publish_burst`` (a client re-seeding a relay publishes a game's few
    hundred lines at once). Past it the relay reads that client's packets more slowly: TCP pushes back, nothing is
    dropped."""
    publish_burst: int = 500
    subscribe_rate: float = 4.0
    """Subscriptions a second per account or address, after a burst of ``subscribe_burst``: each one makes the relay
    send every retained line it matches (a whole game), so they are paced like publishes."""
    subscribe_burst: int = 60
    delivery_rate: float = 1000.0
    """Messages a second the relay sends for one owner, in two budgets of this size, each after a burst of
    ``delivery_burst``: its lines to every subscriber (past it that owner's next publishes are read more slowly, so a
    flood fanned out to many subscriptions of its own costs everyone else little: a line of a game with 3 watchers
    costs 5), and apart, its subscriptions' retained lines (past it, its next subscriptions wait: a catch-up, the
    game's few hundred lines, never delays the subscriber's own lines; that debt is one burst at most, so that no
    subscription waits past a client's timeout, however many of one address ask at once)."""
    delivery_burst: int = 5000
    lines_per_key: int = 2000
    """Retained lines one key may hold in one game on its own slots (a long game needs about 600), and apart, as a
    player, in its copies of the players' lines. Past a cap (:mod:`relay.quotas`) a new line is refused, never
    queued."""
    bytes_per_key: int = 1_000_000
    """Bytes of retained lines one key may hold in one game, on its own slots, and apart in its copies."""
    non_player_lines_per_game: int = 2000
    """Retained lines one game may hold that are in no seated player's share: candidates' joins, strangers' lines
    before the seats are known, copies held by non-players (a game needs a few dozen; a seated game takes no more).
    It bounds a late watcher's catch-up, and never refuses a seated player's own line."""
    lines_per_owner_game: int = 5000
    """Retained lines one account (private mode) or address (anonymous mode) may publish in one game, all its keys
    together (two players behind one address, with their copies, need about 2,500)."""
    lines_per_owner: int = 50_000
    """Retained lines one account or address may publish on the relay, all games together."""
    bytes_per_owner: int = 50_000_000
    """Bytes of retained lines one account or address may publish on the relay, all games together."""
