"""The message grammar: one message is one canonical, signed line of UTF-8 text.

    olixono/1 move game=<id> seq=7 prev=<hash> move=Oc6c5 by=<key> sig=<signature>

The version token, the message type, then ``name=value`` fields in the type's
fixed order (:data:`SCHEMAS`), then ``by=`` (the signer's Ed25519 public key)
and ``sig=`` (the signature over the UTF-8 bytes before `` sig=``), single
spaces between tokens. :func:`decode` accepts exactly the bytes that
:func:`encode` would produce for the same message and nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.keys import KEY_BYTES, SIGNATURE_BYTES, Identity, PublicKey, b64, unb64

VERSION = "olixono/1"
MAX_LINE_BYTES = 2048
MAX_CHAT_BYTES = 500
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
_PATTERNS = {
    "kind": "oxono|olix",
    "game": B64_16,
    "seq": "0|[1-9][0-9]{0,5}",
    "prev": B64_32,
    "commit": B64_32,
    "nonce": B64_16,
    "salt": B64_16,
    "secret": B64_16,
    "invite": B64_32,
    "guest": B64_32,
    "move": "[A-Za-z0-9]{2,8}",
    "text": "(?:[A-Za-z0-9._~-]|%[0-9A-F]{2}){1,1500}",
}
_VALUE = {name: re.compile(pattern) for name, pattern in _PATTERNS.items()}
_BINARY = {"game": GAME_ID_BYTES, "prev": HASH_BYTES, "commit": HASH_BYTES, "nonce": TOKEN_BYTES,
           "salt": TOKEN_BYTES, "secret": TOKEN_BYTES, "invite": KEY_BYTES, "guest": KEY_BYTES}

_CHAIN = ("game", "seq", "prev")
SCHEMAS: dict[str, tuple[str, ...]] = {
    "offer": ("kind", "nonce", "invite?"),
    "join": (*_CHAIN, "commit"),
    "accept": (*_CHAIN, "guest", "salt"),
    "reveal": (*_CHAIN, "secret"),
    "move": (*_CHAIN, "move"),
    "resign": _CHAIN,
    "propose": _CHAIN,
    "agree": _CHAIN,
    "decline": _CHAIN,
    "abort": _CHAIN,
    "chat": (*_CHAIN, "text"),
}
"""Each message type's fields in their fixed order; ``?`` marks an optional field."""


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

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

_keys: dict[bytes, PublicKey] = {}


def public_key(raw: bytes) -> PublicKey:
    """The :class:`PublicKey` for ``raw`` bytes, loaded once per process."""
    key = _keys.get(raw)
    if key is None:
        if len(_keys) > 10_000:  # bound the cache against floods of fresh keys
            _keys.clear()
        key = _keys[raw] = PublicKey(raw)
    return key


def line_hash(line: str) -> str:
    """How a message is referred to: base64url of the SHA-256 of its line."""
    return b64(hashlib.sha256(line.encode("utf-8")).digest())


def game_id_of(offer_line: str) -> str:
    """A game's id: the first 16 bytes of its offer line's SHA-256, in base64url."""
    return b64(hashlib.sha256(offer_line.encode("utf-8")).digest()[:GAME_ID_BYTES])


def encode_text(text: str) -> str:
    """Chat text as a field value: UTF-8, percent-encoded but for unreserved characters."""
    return "".join(ch if ch in _UNRESERVED else "".join(f"%{b:02X}" for b in ch.encode("utf-8")) for ch in text)


def check_text(text: str) -> str | None:
    """Why ``text`` may not be chat text, or ``None``: control and bidi characters could forge a terminal."""
    if not text:
        return "empty"
    if len(text.encode("utf-8")) > MAX_CHAT_BYTES:
        return f"longer than {MAX_CHAT_BYTES} bytes"
    for ch in text:
        if unicodedata.category(ch) == "Cc" or ch in _BIDI_CONTROLS:
            return f"holds the control character U+{ord(ch):04X}"
    return None


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


@dataclass(frozen=True, slots=True)
class Message:
    """One decoded, signature-checked message."""

    type: str
    fields: tuple[tuple[str, str], ...]
    by: bytes
    line: str
    hash: str
    """How later messages refer to this one (:func:`line_hash`)."""
    seq: int
    """The sequence number (0 for the offer, which has none)."""

    @classmethod
    def make(cls, type_: str, fields: tuple[tuple[str, str], ...], by: bytes, line: str) -> Message:
        seq = int(fields[1][1]) if type_ != "offer" else 0
        return cls(type_, fields, by, line, line_hash(line), seq)

    def get(self, name: str) -> str | None:
        for key, value in self.fields:
            if key == name:
                return value
        return None

    @property
    def game(self) -> str | None:
        return self.get("game")

    @property
    def prev(self) -> str | None:
        return self.get("prev")

    @property
    def signer(self) -> PublicKey:
        return public_key(self.by)


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
    except ValueError as exc:
        return f"{name}: {exc}"
    return None


def encode(type_: str, fields: Iterable[tuple[str, str]], identity: Identity) -> str:
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
    fields and their order, each value), chat text, and (with ``verify``)
    the signature.
    """
    if isinstance(data, str):
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:
            raise RemoteProtocolError("bad-utf8", "the text holds a lone surrogate") from None
    else:
        raw = bytes(data)
    if len(raw) > MAX_LINE_BYTES:
        raise RemoteProtocolError("oversize", f"{len(raw)} bytes; at most {MAX_LINE_BYTES}")
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RemoteProtocolError("bad-utf8", f"invalid UTF-8 at byte {exc.start}") from None
    type_ = line[len(VERSION) + 1 : line.find(" ", len(VERSION) + 1)]
    pattern = _LINES.get(type_)
    match = pattern.fullmatch(line) if pattern is not None else None
    if match is None:
        _diagnose(line)  # raises the specific error
        raise RemoteProtocolError("non-canonical", "the line does not re-encode to the same bytes")
    groups = match.groupdict()
    by_text, sig_text = groups.pop("by"), groups.pop("sig")
    fields = tuple((name, value) for name, value in groups.items() if value is not None)
    text = groups.get("text")
    if text is not None:
        try:
            decode_text(text)
        except ValueError as exc:
            raise RemoteProtocolError("bad-field", f"text: {exc}") from None
    by = base64.urlsafe_b64decode(by_text + "=")  # the pattern admits only canonical spellings
    try:
        signer = public_key(by)
    except ValueError:
        raise RemoteProtocolError("bad-signature", "by= is not an Ed25519 public key") from None
    if verify:
        unsigned = line[: match.start("sig") - len(" sig=")].encode("utf-8")
        if not signer.verify(base64.urlsafe_b64decode(sig_text + "=="), unsigned):
            raise RemoteProtocolError("bad-signature", f"the signature does not verify for key {signer.fingerprint}")
    return Message.make(type_, fields, by, line)


def _diagnose(line: str) -> None:
    """Find what is wrong with a line that is no canonical message, and raise it."""
    for index, ch in enumerate(line):
        if ch < " " or ch == "\x7f":
            raise RemoteProtocolError("control-character", f"U+{ord(ch):04X} at character {index}")
    tokens = line.split(" ")
    if tokens[0] != VERSION:
        if tokens[0].startswith("olixono/"):
            raise RemoteProtocolError("unknown-version", f"{tokens[0][:40]!r}; this client speaks {VERSION}")
        raise RemoteProtocolError("syntax", f"a line starts with {VERSION}")
    if "" in tokens:
        raise RemoteProtocolError("non-canonical", "tokens are separated by exactly one space")
    if len(tokens) < 4:
        raise RemoteProtocolError("syntax", "a line holds at least the version, the type, by= and sig=")
    type_ = tokens[1]
    schema = SCHEMAS.get(type_)
    if schema is None:
        code = "unknown-type" if re.fullmatch("[a-z][a-z-]{0,20}", type_) else "syntax"
        raise RemoteProtocolError(code, f"message type {type_[:40]!r}")
    pairs = []
    for token in tokens[2:]:
        name, eq, value = token.partition("=")
        if not eq:
            raise RemoteProtocolError("syntax", f"{token[:40]!r} is not name=value")
        pairs.append((name, value))
    names = [name for name, _ in pairs]
    if names[-2:] != ["by", "sig"]:
        raise RemoteProtocolError("syntax", "the last two fields are by= and sig=")
    fields = tuple(pairs[:-2])
    allowed = [name.rstrip("?") for name in schema]
    for name, _ in fields:
        if name not in allowed:
            raise RemoteProtocolError("unknown-field", f"{type_} has no field {name[:40]!r}")
    present = [name for name, _ in fields]
    if len(set(present)) != len(present):
        raise RemoteProtocolError("syntax", "a field appears twice")
    missing = [name for name in schema if not name.endswith("?") and name not in present]
    if missing:
        raise RemoteProtocolError("syntax", f"{type_} lacks the field {missing[0]}")
    if [n for n in allowed if n in present] != present:
        raise RemoteProtocolError("non-canonical", f"{type_} fields go in the order {', '.join(allowed)}")
    for name, value in fields:
        problem = _check_value(name, value)
        if problem:
            raise RemoteProtocolError("bad-field", problem)
    by_text, sig_text = pairs[-2][1], pairs[-1][1]
    try:
        by = unb64(by_text, KEY_BYTES)
        sig = unb64(sig_text, SIGNATURE_BYTES)
    except ValueError as exc:
        raise RemoteProtocolError("bad-field", f"by= or sig=: {exc}") from None
    del by, sig  # well-formed: the line differs from its canonical form somewhere else
