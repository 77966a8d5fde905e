"""What the embedded relay accepts on a game's topics: the line each topic may hold, checked as cheaply as it can be.

The relay is trusted with nothing, but it can keep strangers from erasing or replacing what a game's players
published, even without accounts (anonymous mode, the relay ``olixono host`` starts). On
``olixono/1/games/<game id>/<key>/<slot>`` it keeps a line only if:

- the payload is not empty (an empty retained message would erase the line the topic holds);
- it is one canonical, validly signed protocol line (``protocol.decode``: one Ed25519 check, ~0.1 ms) of that game,
  signed by the topic's key for the topic's slot; on ``…/<holder>/copy/<hash>`` it is a line whose hash is the
  topic's (a copy of anyone's line, kept by its holder); on ``…/<key>/talk/<n>``, that key's ``n``-th talk line (a
  watcher's, beside the game: at most ``MAX_TALK_LINES`` a key, and :mod:`relay.quotas` keeps talk apart);
- the topic does not hold another line already: **a slot keeps its first line** (the same line again is fine), so
  that no one, the signer included, can replace a retained line there; presence aside, which moves forward by its
  own ``seq`` (and at one ``seq``, from ``here`` to ``gone``), as receivers judge it.

Everything else is refused with a sentence (logged by the relay: MQTT 3.1.1 has no way to tell the publisher).
Topics outside ``olixono/1/games/`` are left to the topic rules (:mod:`relay.rules`). Mosquitto cannot check any
of this (``docs/relay.md`` says what that leaves open on an anonymous Mosquitto).
"""

from __future__ import annotations

import hashlib

from protocol.domain import MessageType, Presence
from protocol.errors import RemoteProtocolError
from protocol.gallery import MAX_TALK_LINES
from protocol.messages import TALK_SLOT, VERSION, Message, decode
from protocol.topics import GAMES

_GAMES = GAMES + "/"
_TALK = TALK_SLOT + "/"
_WITNESS_LINE = f"{VERSION} {MessageType.WITNESS.value} ".encode()


def is_game_topic(topic: str) -> bool:
    return topic.startswith(_GAMES)


def place(topic: str) -> tuple[str, str, str] | None:
    """The game, the key and the slot a game topic names (``copy/<hash>`` for a copy held by the key), as the relay
    keeps them (:func:`refusal` checked the shape); ``None`` for any other topic."""
    if not topic.startswith(_GAMES):
        return None
    levels = topic[len(_GAMES) :].split("/", 2)
    return (levels[0], levels[1], levels[2]) if len(levels) == 3 else None


def is_copy(slot: str) -> bool:
    return slot.startswith("copy/")


def signer_text(line: bytes) -> str:
    """The ``by=`` key of a line the relay has checked already (:func:`refusal`), read without decoding it again (a
    long chat line takes half a millisecond to decode); for anything else, whatever stands there."""
    return line.rpartition(b" by=")[2][:43].decode("ascii", "replace")


def is_talk_slot(slot: str) -> bool:
    """Whether ``slot`` (of ``place``) holds a watcher's talk line, ``talk/<n>``."""
    return slot.startswith(_TALK)


def is_witness_line(line: bytes) -> bool:
    """Whether a line the relay has checked already (:func:`refusal`) is a time witness's ``witness`` line."""
    return line.startswith(_WITNESS_LINE)


def refusal(topic: str, payload: bytes, held: bytes | None, verified: set[bytes] | None = None) -> str | None:
    """Why the relay refuses ``payload`` on ``topic``, which holds ``held`` (``None``: nothing); ``None`` to accept.

    ``verified``: the lines (their SHA-256) whose signature this relay has checked already, so that a copy of a line
    or the same line again costs no second check (the set is added to, and kept bounded by its owner)."""
    if not is_game_topic(topic):
        return None
    levels = topic[len(_GAMES) :].split("/")
    if len(levels) not in (3, 4) or (len(levels) == 4 and levels[2] not in ("copy", TALK_SLOT)):
        return "not a game topic (olixono/1/games/<game>/<key>/<slot>, …/<key>/copy/<hash> or …/<key>/talk/<n>)"
    game, key, slot = levels[0], levels[1], "/".join(levels[2:])
    if not payload:
        return "an empty line would erase what the topic holds"
    digest = hashlib.sha256(payload).digest()
    try:
        message = decode(payload, verify=verified is None or digest not in verified)
    except RemoteProtocolError as exc:
        return f"not a valid signed line ({exc.code}: {exc.detail})"
    if verified is not None:
        verified.add(digest)
    if message.game != game:
        return f"a line of game {message.game} on a topic of game {game}"
    if is_copy(slot):
        if message.hash != levels[3]:
            return "a copy's topic names the hash of the line it holds, and this line's is another"
    elif message.signer.text != key:
        return "the line is signed by another key than the topic's"
    elif message.slot != slot:
        return f"the line belongs on …/{message.slot}, not …/{slot}"
    elif message.type is MessageType.TALK and message.seq > MAX_TALK_LINES:
        return f"at most {MAX_TALK_LINES} talk lines a key"
    return replacing(topic, message, held)


def replacing(topic: str, message: Message | bytes, held: bytes | None) -> str | None:
    """Why ``message`` may not take the place of ``held`` on ``topic`` (``None``: it may): a slot keeps its first line,
    and presence moves forward. No signature is checked here (:func:`refusal` checks it), so it is cheap enough to
    ask again at the moment a line is stored."""
    if held is None or not is_game_topic(topic):
        return None
    if isinstance(message, bytes):
        if not message:
            return "an empty line would erase what the topic holds"
        if message == held:
            return None
        try:
            message = decode(message, verify=False)
        except RemoteProtocolError as exc:
            return f"not a valid signed line ({exc.code})"
    if message.line.encode("utf-8") == held:
        return None
    try:
        old = decode(held)  # checked only here, when two lines meet: what a topic holds guards it if it is valid
    except RemoteProtocolError:
        return None  # no valid line (kept from before the relay checked, or by another relay): replace it
    if message.type is MessageType.PRESENCE and "/copy/" not in topic:
        return None if _forward(message, old) else "presence moves forward only (by its seq)"
    return "this slot holds another line already: a slot keeps its first line"


def _forward(new: Message, old: Message) -> bool:
    """Whether presence line ``new`` comes after ``old``: a higher ``seq``, or at one ``seq`` gone after here."""
    if old.type is not MessageType.PRESENCE or new.seq != old.seq:
        return old.type is not MessageType.PRESENCE or new.seq > old.seq
    return new.state is Presence.GONE and old.state is Presence.HERE
