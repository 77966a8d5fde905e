"""The watchers' talk of one game, beside it (``PROTOCOL.md`` §5, "A watcher's talk"): sans I/O, apart from the judge.

Any key may talk in a game, signing ``talk`` lines numbered on its own (``seq`` from 1, no ``prev``). They never touch
the game's record: the judge refuses them (:class:`protocol.judge.Receiver`), and a :class:`Gallery` keeps them,
bounded whatever strangers publish: :data:`MAX_TALK_LINES` a key, :data:`MAX_TALKERS` keys a game, the first line a
key signed for a ``seq`` (the same line again changes nothing, another is refused), in the order they arrived.
"""

from __future__ import annotations

from protocol.domain import Code, MessageType
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.events import TalkReceived
from protocol.keys import Identity, PublicKey
from protocol.messages import VERSION, Message, decode, encode, text_to_send

MAX_TALK_LINES = 64
"""Talk lines one key may sign in one game."""
MAX_TALKERS = 32
"""Keys that may talk in one game (a receiver, and the reference relay, keep no more)."""
TALK_PREFIX = f"{VERSION} {MessageType.TALK} "
"""How every talk line begins: what tells one apart before it is decoded."""


def is_talk(data: bytes | str) -> bool:
    """Whether ``data`` claims to be a talk line (it may still be refused)."""
    prefix = TALK_PREFIX if isinstance(data, str) else TALK_PREFIX.encode()
    return data.startswith(prefix)  # type: ignore[arg-type]


def refused_talk(message: Message) -> RemoteProtocolError | None:
    """Why every receiver refuses the talk line ``message`` by itself, or ``None``: a ``seq`` beyond
    :data:`MAX_TALK_LINES`."""
    if message.seq > MAX_TALK_LINES:
        return RemoteProtocolError(Code.LIMIT, f"at most {MAX_TALK_LINES} talk lines a key")
    return None


class Gallery:
    """The talk lines of game ``game_id`` that a receiver keeps: per key, by ``seq``; all, in arrival order."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self._by_key: dict[PublicKey, dict[int, Message]] = {}
        self._order: list[Message] = []
        self._known: set[str] = set()  # every line kept: one that comes again (QoS 1, a catch-up) costs no check

    def receive(self, data: bytes | str) -> TalkReceived | None:
        """Check one talk line and keep it: the event to show, ``None`` for the same line again;
        :class:`RemoteProtocolError` for a line refused (nothing kept)."""
        if (data if isinstance(data, str) else bytes(data).decode("utf-8", "replace")) in self._known:
            return None
        message = decode(data)
        if message.type is not MessageType.TALK:
            raise RemoteProtocolError(Code.UNKNOWN_TYPE, f"a {message.type} line is no watcher's talk")
        if message.game != self.game_id:
            raise RemoteProtocolError(Code.WRONG_GAME, f"for game {message.game}, not {self.game_id}")
        problem = refused_talk(message)
        if problem is not None:
            raise problem
        lines = self._by_key.get(message.signer)
        if lines is None:
            if len(self._by_key) >= MAX_TALKERS:
                raise RemoteProtocolError(Code.LIMIT, f"at most {MAX_TALKERS} keys talk in a game")
            lines = self._by_key[message.signer] = {}
        held = lines.get(message.seq)
        if held is not None:
            if held.line == message.line:
                return None
            raise RemoteProtocolError(
                Code.WRONG_SEAT, f"talk {message.seq} of {message.signer.fingerprint} is already taken"
            )
        lines[message.seq] = message
        self._order.append(message)
        self._known.add(message.line)
        return TalkReceived(message.signer, message.seq, message.text)

    def talk(self, identity: Identity, text: str) -> Message:
        """Sign ``identity``'s next talk line saying ``text`` (kept here too); :class:`LocalProtocolError` with a
        sentence when it may not be said."""
        problem, encoded = text_to_send(text)
        if problem is not None:
            raise LocalProtocolError(f"cannot say that: {problem}", reason=problem)
        lines = self._by_key.get(identity.public, {})
        if not lines and len(self._by_key) >= MAX_TALKERS:
            raise LocalProtocolError(f"{MAX_TALKERS} watchers have talked in this game already: no more may")
        seq = max(lines, default=0) + 1
        if seq > MAX_TALK_LINES:
            raise LocalProtocolError(f"you have said {MAX_TALK_LINES} things in this game: no more may be said")
        line = encode(MessageType.TALK, [("game", self.game_id), ("seq", str(seq)), ("text", encoded)], identity)
        event = self.receive(line)
        assert event is not None
        return self._order[-1]

    def lines(self) -> list[Message]:
        """Every talk line kept, in the order it arrived."""
        return list(self._order)

    def talkers(self) -> list[PublicKey]:
        """The keys that talked, in the order each first did."""
        return list(self._by_key)
