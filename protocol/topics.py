"""MQTT topic names: where each message is published, retained, on the relay.

Every message has its own retained topic, named by the game, the signer's
key and the message's slot, so that a relay's access rules can let a user
publish only under their own key, a retained message is never replaced by
another signer's, and a late subscriber to ``games/<id>/#`` receives the
whole game:

    olixono/1/games/<game id>/<signer key>/offer      the offer (slot 0)
    olixono/1/games/<game id>/<signer key>/<seq>      join, accept, reveal, moves, ... (seq 1, 2, ...)
    olixono/1/games/<game id>/<signer key>/chat-<n>   the signer's n-th chat line
"""

from __future__ import annotations

from protocol.messages import Message, game_id_of

ROOT = "olixono/1"
GAMES = f"{ROOT}/games"


def game_filter(game_id: str) -> str:
    """The subscription that receives every message of one game."""
    return f"{GAMES}/{game_id}/#"


def slot(message: Message) -> str:
    """The last topic level for ``message``: ``offer``, its sequence number, or ``chat-<n>``."""
    if message.type == "offer":
        return "offer"
    if message.type == "chat":
        return f"chat-{message.seq}"
    return str(message.seq)


def topic_for(message: Message) -> str:
    """The topic ``message`` is published on (retained)."""
    game = game_id_of(message.line) if message.type == "offer" else message.game
    return f"{GAMES}/{game}/{message.signer.text}/{slot(message)}"


def game_of_topic(topic: str) -> str | None:
    """The game id a topic belongs to, or ``None`` if it is no game topic (clients ignore those)."""
    parts = topic.split("/")
    if len(parts) == 6 and "/".join(parts[:3]) == GAMES:
        return parts[3]
    return None
