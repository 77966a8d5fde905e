"""The message grammar: one message is one canonical, signed line of UTF-8 text.

    olixono/1 move game=<id> seq=7 prev=<hash> move=Oc6c5 by=<key> sig=<signature>

The version token, the message type, then ``name=value`` fields in the type's
fixed order (:data:`SCHEMAS`), then ``by=`` (the signer's Ed25519 public key)
and ``sig=`` (the signature over the UTF-8 bytes before `` sig=``), single
spaces between tokens. :func:`decode` accepts exactly the bytes that
:func:`encode` would produce for the same message and nothing else, and
decodes every key in the line once, into a :class:`~protocol.keys.PublicKey`.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from olixono.common import GameKind
from protocol.domain import Code, MessageType, Presence
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.keys import KEY_BYTES, SIGNATURE_BYTES, Identity, PublicKey, WeakKeyError, b64, unb64
from protocol.unicode_tables import COMBINING, FORBIDDEN

VERSION = "olixono/1"
MAX_LINE_BYTES = 2048
MAX_CHAT_BYTES = 500
MAX_COMBINING_RUN = 4
"""At most this many combining marks in a row in chat text (and none first): enough for any script, not for a tower."""
MAX_TERMS = 8
GAME_ID_BYTES = 16
TOKEN_BYTES = 16
HASH_BYTES = 32

_B64 = "[A-Za-z0-9_-]"
# base64url without padding of 16, 32 and 64 bytes. The last character carries
# unused low bits that must be zero for the one canonical spelling, so only
# some characters may end each length.
B64_16 = f"{_B64}{{21}}[AQgw]"
B64_32 = f"{_B64}{{42}}[AEIMQUYcgkosw048]"
B64_64 = f"{_B64}{{85}}[AQgw]"
MAX_WITNESSES = 3
"""Time witnesses an offer may name (``witness:`` term, §3): the median of their times decides."""
MAX_WITNESSED = 32
"""Lines one ``witness`` line may say it saw."""
_TERM = f"[a-z][a-z0-9-]{{0,15}}:(?:[A-Za-z0-9.+-]{{1,32}}|{B64_32}(?:\\.{B64_32}){{0,{MAX_WITNESSES - 1}}})"
_PATTERNS = {
    "kind": "|".join(GameKind),
    "game": B64_16,
    "next": B64_16,
    "seq": "[1-9][0-9]{0,5}",
    "prev": B64_32,
    "commit": B64_32,
    "nonce": B64_16,
    "salt": B64_16,
    "secret": B64_16,
    "terms": f"{_TERM}(?:,{_TERM}){{0,{MAX_TERMS - 1}}}",
    "at": "[1-9][0-9]{0,11}",
    "state": "here|gone|hosting",
    "invite": B64_32,
    "guest": B64_32,
    "move": "[A-Za-z0-9]{2,8}",
    "think": "0|[1-9][0-9]{0,9}",
    "left": "0|[1-9][0-9]{0,9}",
    "recv": "0|[1-9][0-9]{0,12}",
    "sent": "0|[1-9][0-9]{0,12}",
    "ack": "0|[1-9][0-9]{0,12}",
    "flagged": "0|[1-9][0-9]{0,12}",
    "now": "0|[1-9][0-9]{0,12}",
    "final": "0|[1-9][0-9]{0,5}",
    "result": "[a-z]{1,16}(?:-[a-z]{1,16})?",
    "text": "(?:[A-Za-z0-9._~-]|%[0-9A-F]{2}){1,1500}",
    "time": "0|[1-9][0-9]{0,12}",
    "lines": f"{B64_32}(?:\\.{B64_32}){{0,{MAX_WITNESSED - 1}}}",
    "plies": "[0-2]",
    "consent": B64_64,
}
_VALUE = {name: re.compile(pattern) for name, pattern in _PATTERNS.items()}
_BINARY = {
    "game": GAME_ID_BYTES,
    "next": GAME_ID_BYTES,
    "prev": HASH_BYTES,
    "commit": HASH_BYTES,
    "nonce": TOKEN_BYTES,
    "salt": TOKEN_BYTES,
    "secret": TOKEN_BYTES,
    "invite": KEY_BYTES,
    "guest": KEY_BYTES,
    "consent": SIGNATURE_BYTES,
}
KEY_FIELDS = ("invite", "guest")
"""Fields whose value is a public key: decoded once into :attr:`Message.peer`."""

_CHAIN = ("game", "seq", "prev")
TALK_SLOT = "talk"
"""The topic level under a key that holds its talk lines, a watcher's (``…/<key>/talk/<n>``)."""
NUMBERED_APART = frozenset(
    {
        MessageType.CHAT,
        MessageType.CONFIRM,
        MessageType.RECEIPT,
        MessageType.FLAG,
        MessageType.WITNESS,
        MessageType.TAKEBACK,
    }
)
"""Types whose lines sit beside the chain, each signer's numbered on its own (``chat-<n>``, ``confirm-<n>``,
``witness-<n>``; a receipt by the sequence number of the line it acknowledges, ``receipt-<n>``; a flag claim by the
line that began the turn it claims, ``flag-<n>``; a takeback line by the chain's head it names, ``takeback-<n>``)."""
SCHEMAS: dict[str, tuple[str, ...]] = {
    MessageType.OFFER: ("kind", "nonce", "terms", "at", "invite?"),
    MessageType.JOIN: (*_CHAIN, "terms", "commit"),
    MessageType.ACCEPT: (*_CHAIN, "guest", "salt"),
    MessageType.REVEAL: (*_CHAIN, "secret"),
    MessageType.CLAIM: _CHAIN,
    MessageType.MOVE: (*_CHAIN, "move", "think?", "left?"),
    MessageType.PROPOSE: _CHAIN,
    MessageType.WITHDRAW: _CHAIN,
    MessageType.DECLINE: _CHAIN,
    MessageType.AGREE: _CHAIN,
    MessageType.RESIGN: _CHAIN,
    MessageType.ABORT: _CHAIN,
    MessageType.CHAT: (*_CHAIN, "text"),
    MessageType.PRESENCE: ("game", "seq", "state"),
    MessageType.CONFIRM: (*_CHAIN, "final", "result"),
    MessageType.RECEIPT: (*_CHAIN, "recv", "sent?", "ack?"),
    MessageType.FLAG: (*_CHAIN, "sent", "now"),
    MessageType.TIMEOUT: (*_CHAIN, "sent?", "flagged?", "now?"),
    MessageType.WITNESS: (*_CHAIN, "time", "lines"),
    MessageType.REMATCH: (*_CHAIN, "next"),
    MessageType.TAKEBACK: (*_CHAIN, "plies"),
    MessageType.UNDO: (*_CHAIN, "plies", "think?", "left?", "consent"),
    MessageType.TALK: ("game", "seq", "text"),
}
"""Each message type's fields (keyed by :class:`MessageType`) in their fixed order; ``?`` marks an optional field."""


def _line_pattern(type_: str, schema: tuple[str, ...]) -> re.Pattern[str]:
    """One regular expression that matches exactly the canonical lines of a type."""
    parts = [re.escape(f"{VERSION} {type_}")]
    for name in schema:
        bare = name.rstrip("?")
        field_re = f" {bare}=(?P<{bare}>{_PATTERNS[bare]})"
        parts.append(f"(?:{field_re})?" if name.endswith("?") else field_re)
    parts.append(f" by=(?P<by>{B64_32}) sig=(?P<sig>{B64_64})")
    return re.compile("".join(parts))


_LINES = {type_: _line_pattern(type_, schema) for type_, schema in SCHEMAS.items()}
_NAMES = {type_: tuple(name.rstrip("?") for name in schema) for type_, schema in SCHEMAS.items()}
_OPTIONAL = {type_ for type_, schema in SCHEMAS.items() if any(name.endswith("?") for name in schema)}
_CHECKED = {type_: tuple(name for name in _NAMES[type_] if name in ("text", "terms", "lines")) for type_ in SCHEMAS}
"""The fields a line's pattern cannot check alone: the text, the terms, a witness line's hashes (each once)."""
_PEER = {type_: next((name for name in _NAMES[type_] if name in ("invite", "guest")), None) for type_ in SCHEMAS}

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_FORBIDDEN_STARTS = [start for start, _ in FORBIDDEN]
_COMBINING_STARTS = [start for start, _ in COMBINING]

_keys: dict[bytes | str, PublicKey] = {}
"""Loaded keys by their raw bytes and by their text: each key is decoded and checked once per process."""
_SIG_TAIL = len(" sig=") + 86


def public_key(raw: bytes) -> PublicKey:
    """The :class:`PublicKey` for ``raw`` bytes, loaded once per process (:class:`WeakKeyError` if refused)."""
    key = _keys.get(raw)
    if key is None:
        if len(_keys) > 20_000:  # bound the cache against floods of fresh keys
            _keys.clear()
        key = _keys[raw] = PublicKey(raw)
        _keys[key.text] = key
    return key


def line_hash(line: str) -> str:
    """How a message is referred to: base64url of the SHA-256 of its line."""
    return b64(hashlib.sha256(line.encode("utf-8")).digest())


def game_id_of(offer_line: str) -> str:
    """A game's id: the first 16 bytes of its offer line's SHA-256, in base64url."""
    return b64(hashlib.sha256(offer_line.encode("utf-8")).digest()[:GAME_ID_BYTES])


GAME_ID_LENGTH = (GAME_ID_BYTES * 8 + 5) // 6
"""A game id's characters (22)."""
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


def game_id_problem(text: str) -> str | None:
    """Why ``text`` cannot be a game id (what :func:`game_id_of` gives: 16 bytes in canonical base64url), or
    ``None``: a sentence a person who typed it can act on."""
    if len(text) != GAME_ID_LENGTH or not _BASE64URL.fullmatch(text):
        return f"{text[:40]!r} is not a game id ({GAME_ID_LENGTH} letters, digits, - or _)"
    try:
        unb64(text, GAME_ID_BYTES)
    except ValueError:
        return (
            f"{text!r} is not a game id: no id ends in {text[-1]!r} (a game id's last character is A, Q, g or w): "
            "is there a typo?"
        )
    return None


def _in(code: int, starts: list[int], table: tuple[tuple[int, int], ...]) -> bool:
    index = bisect.bisect_right(starts, code) - 1
    return index >= 0 and code <= table[index][1]


def encode_text(text: str) -> str:
    """Chat text as a field value: UTF-8, percent-encoded but for unreserved characters."""
    return "".join(ch if ch in _UNRESERVED else "".join(f"%{b:02X}" for b in ch.encode("utf-8")) for ch in text)


def check_text(text: str) -> str | None:
    """Why ``text`` may not be chat text, or ``None``.

    Chat must never be able to fake what a terminal shows: no control,
    format, private-use or separator character but the plain space (frozen
    Unicode 14.0 categories, :mod:`protocol.unicode_tables`), and combining
    marks only after a base character, at most :data:`MAX_COMBINING_RUN` in a row.
    """
    if not text:
        return "empty"
    if len(text.encode("utf-8")) > MAX_CHAT_BYTES:
        return f"longer than {MAX_CHAT_BYTES} bytes"
    run = 0
    for index, ch in enumerate(text):
        code = ord(ch)
        if code < 0x80:
            if code < 0x20 or code == 0x7F:
                return f"holds the control character U+{code:04X}"
            run = 0
            continue
        if _in(code, _FORBIDDEN_STARTS, FORBIDDEN):
            return f"holds U+{code:04X}, a control, format or separator character"
        if _in(code, _COMBINING_STARTS, COMBINING):
            run += 1
            if index == 0:
                return f"starts with the combining mark U+{code:04X}"
            if run > MAX_COMBINING_RUN:
                return f"holds more than {MAX_COMBINING_RUN} combining marks in a row"
        else:
            run = 0
    return None


def text_to_send(text: str) -> tuple[str | None, str]:
    """What ``text`` (typed, to be signed as chat or talk) may not be (:func:`check_text`: a reason, or ``None``), and
    its ``text=`` value (empty when it may not be sent)."""
    try:
        problem = check_text(text)
        return problem, encode_text(text) if problem is None else ""
    except UnicodeEncodeError:
        return "it is not valid Unicode", ""


def decode_text(value: str) -> str:
    """The chat text a ``text=`` value spells; ``ValueError`` if it is not canonical or not allowed."""
    data = bytearray()
    i = 0
    while i < len(value):
        if value[i] == "%":
            data.append(int(value[i + 1 : i + 3], 16))
            i += 3
        else:
            data.append(ord(value[i]))
            i += 1
    text = bytes(data).decode("utf-8")
    problem = check_text(text)
    if problem:
        raise ValueError(f"chat text {problem}")
    if encode_text(text) != value:
        raise ValueError("chat text is not in its canonical percent-encoding")
    return text


def parse_terms(value: str) -> tuple[tuple[str, str], ...]:
    """The ``(name, value)`` pairs of a ``terms=`` value; ``ValueError`` unless sorted by name, each once."""
    pairs = tuple((name, val) for name, _, val in (item.partition(":") for item in value.split(",")))
    names = [name for name, _ in pairs]
    if names != sorted(set(names)):
        raise ValueError("terms are listed once each, sorted by name")
    return pairs


@dataclass(frozen=True, slots=True)
class Message:
    """One decoded, signature-checked message; every key in it decoded once."""

    type: MessageType
    fields: tuple[tuple[str, str], ...]
    signer: PublicKey
    line: str
    hash: str
    """How later messages refer to this one (:func:`line_hash`)."""
    game: str
    """The game id: the ``game=`` field, or for the offer the id derived from it."""
    seq: int
    """The sequence number (0 for the offer, which has none)."""
    prev: str
    """The hash this message links to ("" for the offer)."""
    peer: PublicKey | None
    """The other key the message names: the offer's ``invite=``, the accept's ``guest=``."""
    slot: str
    """Where the signer's line sits: ``offer``, its sequence number, ``chat-<n>``, ``confirm-<n>``, ``presence``,
    ``rematch``, or a watcher's ``talk/<n>`` (one topic level deeper: a player's subscription leaves it out)."""

    @classmethod
    def make(
        cls,
        type_: MessageType | str,
        fields: tuple[tuple[str, str], ...],
        signer: PublicKey,
        line: str,
        peer: PublicKey | None = None,
        raw: bytes | None = None,
    ) -> Message:
        if not isinstance(type_, MessageType):
            type_ = MessageType(type_)
        digest = hashlib.sha256(line.encode("utf-8") if raw is None else raw).digest()
        if type_ is MessageType.OFFER:
            game, seq, prev, slot = b64(digest[:GAME_ID_BYTES]), 0, "", "offer"
        elif type_ is MessageType.PRESENCE:
            game, seq, prev, slot = fields[0][1], int(fields[1][1]), "", "presence"
        elif type_ is MessageType.TALK:  # a watcher's: beside the game's record, numbered by its signer alone
            game, seq, prev = fields[0][1], int(fields[1][1]), ""
            slot = f"{TALK_SLOT}/{seq}"
        elif type_ is MessageType.REMATCH:  # one a signer: its seq names the game's last line, not its slot
            game, seq, prev, slot = fields[0][1], int(fields[1][1]), fields[2][1], "rematch"
        else:
            game, slot, prev = fields[0][1], fields[1][1], fields[2][1]
            seq = int(slot)
            if type_ in NUMBERED_APART:
                slot = f"{type_}-{slot}"
        return cls(type_, fields, signer, line, b64(digest), game, seq, prev, peer, slot)

    def get(self, name: str) -> str | None:
        for key, value in self.fields:
            if key == name:
                return value
        return None

    def _number(self, name: str) -> int | None:
        """An optional numeric field, as a number (``None`` when the line has none)."""
        value = self.get(name)
        return None if value is None else int(value)

    def value(self, name: str) -> str:
        """A field the type always has (``KeyError`` if it has none)."""
        value = self.get(name)
        if value is None:
            raise KeyError(f"a {self.type} has no {name}= field")
        return value

    # The fields by name, for the types that have them (``KeyError`` for a type that has not).
    @property
    def move(self) -> str:
        """A move's ``move=``: the move's text (``Oc6c5``)."""
        return self.value("move")

    @property
    def kind(self) -> GameKind:
        """An offer's ``kind=``: the game."""
        return GameKind(self.value("kind"))

    @property
    def terms(self) -> str:
        """An offer's or a join's ``terms=``."""
        return self.value("terms")

    @property
    def at(self) -> int:
        """An offer's ``at=``: when it was made, in seconds since the epoch (the offerer's word)."""
        return int(self.value("at"))

    @property
    def commit(self) -> str:
        """A join's ``commit=``: the hash of the guest's coin-flip secret."""
        return self.value("commit")

    @property
    def salt(self) -> str:
        """An accept's ``salt=``: the host's half of the coin flip."""
        return self.value("salt")

    @property
    def secret(self) -> str:
        """A reveal's ``secret=``: the guest's half of the coin flip."""
        return self.value("secret")

    @property
    def text(self) -> str:
        """A chat's or a talk line's ``text=``, decoded."""
        return decode_text(self.value("text"))

    @property
    def state(self) -> Presence:
        """A presence line's ``state=``."""
        return Presence(self.value("state"))

    @property
    def final(self) -> int:
        """A confirm's ``final=``: the sequence number of the last line of the game it confirms."""
        return int(self.value("final"))

    @property
    def next_game(self) -> str:
        """A rematch line's ``next=``: the id of the game its signer asks to play next."""
        return self.value("next")

    @property
    def result(self) -> str:
        """A confirm's ``result=``: the result's code (``pink-colour``, ``aborted``)."""
        return self.value("result")

    @property
    def recv(self) -> int:
        """A receipt's ``recv=``: when its signer had verified the line it acknowledges (its own monotonic ms)."""
        return int(self.value("recv"))

    @property
    def sent(self) -> int | None:
        """A receipt's ``sent=``: when its signer's own line before the one it acknowledges left it (monotonic ms); a
        flag claim's or a timeout's: when the turn it claims began, on the claimant's clock."""
        return self._number("sent")

    @property
    def ack(self) -> int | None:
        """A receipt's ``ack=``: when its signer had the other player's receipt of its own last move (monotonic ms)."""
        return self._number("ack")

    @property
    def now(self) -> int | None:
        """A flag claim's or a claimant's timeout's ``now=``: when its signer signed it (its own clock, ms)."""
        return self._number("now")

    @property
    def flagged(self) -> int | None:
        """A claimant's timeout's ``flagged=``: when its signer signed the flag claim it ends the game on."""
        return self._number("flagged")

    @property
    def plies(self) -> int:
        """A takeback line's or an undo's ``plies=``: how many of the last moves it takes back (a takeback line's 0:
        it refuses the other player's)."""
        return int(self.value("plies"))

    def __repr__(self) -> str:
        return f"Message({self.type} seq={self.seq} by {self.signer.fingerprint})"


def consent_line(undo: Message, waiter: PublicKey) -> str:
    """The takeback line whose signature an undo carries (``consent=``): ``waiter``'s, naming the head the undo
    follows (its ``seq - 1`` and ``prev``) and the same ``plies``. A receiver rebuilds it to check the consent: an undo
    is thus verified from the chain alone (``PROTOCOL.md`` §3, "A takeback")."""
    fields = (("game", undo.game), ("seq", str(undo.seq - 1)), ("prev", undo.prev), ("plies", undo.value("plies")))
    return f"{_unsigned(MessageType.TAKEBACK, fields, waiter.text)} sig={undo.value('consent')}"


def consents(undo: Message, waiter: PublicKey) -> bool:
    """Whether ``undo``'s ``consent=`` is ``waiter``'s signature of the takeback line it names
    (:func:`consent_line`)."""
    unsigned = consent_line(undo, waiter).rsplit(" sig=", 1)[0]
    return waiter.verify(unb64(undo.value("consent"), SIGNATURE_BYTES), unsigned.encode("utf-8"))


def _unsigned(type_: str, fields: Iterable[tuple[str, str]], by_text: str) -> str:
    parts = [VERSION, type_, *(f"{name}={value}" for name, value in fields), f"by={by_text}"]
    return " ".join(parts)


def _check_value(name: str, value: str) -> str | None:
    """Why ``value`` is no valid ``name`` field, or ``None``."""
    if not _VALUE[name].fullmatch(value):
        return f"{name}={value[:60]!r} is malformed"
    try:
        if name in _BINARY:
            unb64(value, _BINARY[name])
        elif name == "text":
            decode_text(value)
        elif name == "terms":
            parse_terms(value)
        elif name == "lines" and len(set(value.split("."))) != value.count(".") + 1:
            raise ValueError("a line is named once")
    except ValueError as exc:
        return f"{name}: {exc}"
    return None


def _key(text: str, name: str) -> PublicKey:
    """The key a (canonically spelled) field holds; ``weak-key`` if it is refused."""
    key = _keys.get(text)
    if key is not None:
        return key
    try:
        return public_key(base64.urlsafe_b64decode(text + "="))
    except WeakKeyError as exc:
        raise RemoteProtocolError(Code.WEAK_KEY, f"{name}=: {exc}") from None
    except ValueError:
        raise RemoteProtocolError(Code.BAD_SIGNATURE, f"{name}= is not an Ed25519 public key") from None


def encode(type_: MessageType | str, fields: Iterable[tuple[str, str]], identity: Identity) -> str:
    """The signed line for a message; :class:`LocalProtocolError` if a field is wrong."""
    fields = tuple(fields)
    schema = SCHEMAS.get(type_)
    if schema is None:
        raise LocalProtocolError(f"unknown message type {type_!r}")
    required = [name for name in schema if not name.endswith("?")]
    names = [name for name, _ in fields]
    allowed = [name.rstrip("?") for name in schema]
    if [n for n in allowed if n in names] != names or not set(required) <= set(names):
        raise LocalProtocolError(f"{type_} takes the fields {', '.join(schema)}, not {', '.join(names)}")
    for name, value in fields:
        problem = _check_value(name, value)
        if problem:
            raise LocalProtocolError(problem)
        if name in KEY_FIELDS:
            try:
                public_key(unb64(value, KEY_BYTES))
            except ValueError as exc:
                raise LocalProtocolError(f"{name}=: {exc}") from None
    unsigned = _unsigned(type_, fields, identity.public.text)
    line = f"{unsigned} sig={b64(identity.sign(unsigned.encode('utf-8')))}"
    if len(line.encode("utf-8")) > MAX_LINE_BYTES:
        raise LocalProtocolError(f"the message would be longer than {MAX_LINE_BYTES} bytes")
    return line


def decode(data: bytes | str, verify: bool = True) -> Message:
    """Parse and check one line; :class:`RemoteProtocolError` with a code if anything is wrong.

    Checks, in order: size, UTF-8, the grammar of the line's type (one
    regular expression that only canonical lines match; :func:`_diagnose`
    names the fault of any other line: control characters, version, type,
    fields and their order, each value), chat text and terms, the keys
    (``weak-key``), and (with ``verify``) the signature.
    """
    if isinstance(data, str):
        if len(data) > MAX_LINE_BYTES:
            raise RemoteProtocolError(Code.OVERSIZE, f"{len(data)} characters; at most {MAX_LINE_BYTES} bytes")
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:
            raise RemoteProtocolError(Code.BAD_UTF8, "the text holds a lone surrogate") from None
        line = data
    else:
        raw = bytes(data)
    if len(raw) > MAX_LINE_BYTES:
        raise RemoteProtocolError(Code.OVERSIZE, f"{len(raw)} bytes; at most {MAX_LINE_BYTES}")
    if not isinstance(data, str):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RemoteProtocolError(Code.BAD_UTF8, f"invalid UTF-8 at byte {exc.start}") from None
    type_ = line[len(VERSION) + 1 : line.find(" ", len(VERSION) + 1)]
    pattern = _LINES.get(type_)
    match = pattern.fullmatch(line) if pattern is not None else None
    if match is None:
        _diagnose(line)  # raises the specific error
        raise RemoteProtocolError(Code.NON_CANONICAL, "the line does not re-encode to the same bytes")
    names = _NAMES[type_]
    *values, by_text, sig_text = match.group(*names, "by", "sig")
    if type_ in _OPTIONAL:
        fields = tuple((name, value) for name, value in zip(names, values, strict=True) if value is not None)
    else:
        fields = tuple(zip(names, values, strict=True))
    for name in _CHECKED[type_]:
        problem = _check_value(name, match.group(name))
        if problem:
            raise RemoteProtocolError(Code.BAD_FIELD, problem)
    peer = None
    peer_field = _PEER[type_]
    if peer_field is not None and match.group(peer_field) is not None:
        peer = _key(match.group(peer_field), peer_field)
    signer = _key(by_text, "by")  # the pattern admits only canonical spellings
    # sig= is the last field: 86 ASCII characters
    if verify and not signer.verify(base64.urlsafe_b64decode(sig_text + "=="), raw[:-_SIG_TAIL]):
        raise RemoteProtocolError(Code.BAD_SIGNATURE, f"the signature does not verify for key {signer.fingerprint}")
    return Message.make(MessageType(type_), fields, signer, line, peer, raw)


def _diagnose(line: str) -> None:
    """Find what is wrong with a line that is no canonical message, and raise it."""
    for index, ch in enumerate(line):
        if ch < " " or ch == "\x7f":
            raise RemoteProtocolError(Code.CONTROL_CHARACTER, f"U+{ord(ch):04X} at character {index}")
    tokens = line.split(" ")
    if tokens[0] != VERSION:
        if tokens[0].startswith("olixono/"):
            raise RemoteProtocolError(Code.UNKNOWN_VERSION, f"{tokens[0][:40]!r}; this client speaks {VERSION}")
        raise RemoteProtocolError(Code.SYNTAX, f"a line starts with {VERSION}")
    if "" in tokens:
        raise RemoteProtocolError(Code.NON_CANONICAL, "tokens are separated by exactly one space")
    if len(tokens) < 4:
        raise RemoteProtocolError(Code.SYNTAX, "a line holds at least the version, the type, by= and sig=")
    type_ = tokens[1]
    schema = SCHEMAS.get(type_)
    if schema is None:
        code = Code.UNKNOWN_TYPE if re.fullmatch("[a-z][a-z-]{0,20}", type_) else Code.SYNTAX
        raise RemoteProtocolError(code, f"message type {type_[:40]!r}")
    pairs = []
    for token in tokens[2:]:
        name, eq, value = token.partition("=")
        if not eq:
            raise RemoteProtocolError(Code.SYNTAX, f"{token[:40]!r} is not name=value")
        pairs.append((name, value))
    names = [name for name, _ in pairs]
    if names[-2:] != ["by", "sig"]:
        raise RemoteProtocolError(Code.SYNTAX, "the last two fields are by= and sig=")
    fields = tuple(pairs[:-2])
    allowed = [name.rstrip("?") for name in schema]
    for name, _ in fields:
        if name not in allowed:
            raise RemoteProtocolError(Code.UNKNOWN_FIELD, f"{type_} has no field {name[:40]!r}")
    present = [name for name, _ in fields]
    if len(set(present)) != len(present):
        raise RemoteProtocolError(Code.SYNTAX, "a field appears twice")
    missing = [name for name in schema if not name.endswith("?") and name not in present]
    if missing:
        raise RemoteProtocolError(Code.SYNTAX, f"{type_} lacks the field {missing[0]}")
    if [n for n in allowed if n in present] != present:
        raise RemoteProtocolError(Code.NON_CANONICAL, f"{type_} fields go in the order {', '.join(allowed)}")
    for name, value in fields:
        problem = _check_value(name, value)
        if problem:
            raise RemoteProtocolError(Code.BAD_FIELD, problem)
    by_text, sig_text = pairs[-2][1], pairs[-1][1]
    try:
        unb64(by_text, KEY_BYTES)
        unb64(sig_text, SIGNATURE_BYTES)
    except ValueError as exc:
        raise RemoteProtocolError(Code.BAD_FIELD, f"by= or sig=: {exc}") from None
    # well-formed: the line differs from its canonical form somewhere else
