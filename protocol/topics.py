"""MQTT topic names: where each message is published, retained, on the relay.

Every message has its own retained topic, named by the game, the publisher's
key and the message's slot, so that a relay's access rules can let a user
publish only under their own key, a retained message is never replaced by
another signer's, and a late subscriber to ``games/<id>/#`` receives the
whole game:

    olixono/1/games/<game id>/<signer key>/offer         the offer (slot 0)
    olixono/1/games/<game id>/<signer key>/<seq>         join, accept, reveal, moves, ... (seq 1, 2, ...)
    olixono/1/games/<game id>/<signer key>/chat-<n>      the signer's n-th chat line
    olixono/1/games/<game id>/<signer key>/presence      whether the signer's client is connected
    olixono/1/games/<game id>/<holder key>/copy/<hash>   a copy of another key's line, kept by its holder
    olixono/1/games/<game id>/<watcher key>/talk/<n>     a watcher's n-th talk line, beside the game

Copies are what keep one player from erasing history (``PROTOCOL.md`` §7):
each player re-publishes every line of the other's it has verified, under its
own key, where the other cannot touch it. They sit one level deeper than the
holder's own lines, so that ``player_filter`` receives a key's lines without
its copies (a seated player, once caught up, needs nothing else). The watchers' talk sits as deep, for
the same reason: ``talk_filter`` receives it alone.
"""

from __future__ import annotations

from protocol.keys import PublicKey
from protocol.messages import TALK_SLOT, Message

ROOT = "olixono/1"
GAMES = f"{ROOT}/games"
DEFAULT_HOST, DEFAULT_PORT, TLS_PORT = "127.0.0.1", 1883, 8883
DEFAULT_RELAY = f"mqtt://{DEFAULT_HOST}:{DEFAULT_PORT}"
"""Where a client looks for a relay, and where ``olixono relay`` listens, unless told otherwise."""


PAGE_TOPIC = f"{ROOT}/page"
"""Where a relay that serves the watching page says its address (``http://HOST:PORT/``), retained, set by the relay
itself (the reference relay lets no client publish there); a client builds a game's link from it, with the host it
reached the relay at (so that the link never leads elsewhere)."""


def game_filter(game_id: str) -> str:
    """The subscription that receives every message of one game."""
    return f"{GAMES}/{game_id}/#"


def lobby_filter() -> str:
    """The subscription that receives every game's offer (and nothing else): the open games."""
    return slot_filter("offer")


def slot_filter(slot: str | int) -> str:
    """The subscription that receives one slot's line (``offer``, ``1``, ``confirm-2``…) of every key in every game:
    what the lobby reads of games it does not follow."""
    return f"{GAMES}/+/+/{slot}"


def topic_for(message: Message) -> str:
    """The topic ``message`` is published on (retained) by its signer."""
    return f"{GAMES}/{message.game}/{message.signer.text}/{message.slot}"


def copy_topic(message: Message, holder: PublicKey) -> str:
    """The topic on which ``holder`` keeps a copy of another key's ``message`` (retained)."""
    return held_copy_topic(message.game, holder, message.hash)


def held_copy_topic(game_id: str, holder: PublicKey, line_hash: str) -> str:
    """The topic of ``holder``'s copy of the line whose hash is ``line_hash``, in one game."""
    return f"{GAMES}/{game_id}/{holder.text}/copy/{line_hash}"


def player_filter(game_id: str, key: PublicKey) -> str:
    """The subscription that receives ``key``'s own lines in one game (offer, main chain, chat, presence), not its
    copies of other keys' lines."""
    return f"{GAMES}/{game_id}/{key.text}/+"


def own_filter(game_id: str, key: PublicKey) -> str:
    """The subscription that receives everything ``key`` keeps in one game: its own lines and its copies."""
    return f"{GAMES}/{game_id}/{key.text}/#"


def talk_filter(game_id: str) -> str:
    """The subscription that receives every watcher's talk in one game (``PROTOCOL.md`` §5), and nothing else."""
    return f"{GAMES}/{game_id}/+/{TALK_SLOT}/+"


def game_and_key(topic: str) -> tuple[str, str] | None:
    """The game id and the key (signer or holder) a game topic names, ``olixono/1/games/<game>/<key>/<slot…>``;
    ``None`` for any other topic."""
    if not topic.startswith(GAMES + "/"):
        return None
    levels = topic[len(GAMES) + 1 :].split("/", 2)
    return (levels[0], levels[1]) if len(levels) == 3 else None
