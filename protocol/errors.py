"""Whose fault it was: the peer's (a rejected line) or ours (a misused API)."""

from __future__ import annotations

CODES = {
    "oversize": "the line is longer than the protocol allows",
    "bad-utf8": "the line is not valid UTF-8",
    "control-character": "the line holds a control character",
    "syntax": "the line does not follow the message grammar",
    "unknown-version": "the line speaks a protocol version this client does not know",
    "unknown-type": "the message type is unknown",
    "unknown-field": "the message holds a field its type does not have",
    "bad-field": "a field's value is malformed",
    "non-canonical": "the line is not in its one canonical encoding",
    "weak-key": "a key in the line is one anyone could sign for (small-order or non-canonical)",
    "bad-signature": "the signature does not verify",
    "wrong-game": "the message belongs to another game",
    "unknown-term": "the game is offered under terms this client does not know",
    "wrong-signer": "the signer has no seat in this game",
    "wrong-seat": "the signer may not send this message now",
    "broken-link": "the hash of the previous message does not match",
    "gap": "a message before this one is missing",
    "bad-reveal": "the revealed secret does not match its commitment",
    "illegal-move": "the move is illegal in the game's position",
    "after-end": "the game is already over",
    "superseded": "another player's line takes precedence at this sequence number",
    "equivocation": "the signer signed two messages that cannot both be part of one game",
    "limit": "the signer has sent more messages of this kind than a receiver keeps",
    "buffer-full": "too many messages wait for their predecessors",
}
"""Every rejection code, with the human sentence a client may show."""


class RemoteProtocolError(ValueError):
    """A line from the network broke the protocol; ``code`` says how (see :data:`CODES`)."""

    def __init__(self, code: str, detail: str) -> None:
        assert code in CODES, code
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


class LocalProtocolError(ValueError):
    """This client asked for something the protocol forbids (e.g. signing an illegal move, or equivocating).

    ``str(error)`` is the whole sentence (``cannot resign now: the game is over``); :attr:`reason` its why alone (``the
    game is over``), for a front end that words the refusal its own way.
    """

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason

