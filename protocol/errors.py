"""Whose fault it was: the peer's (a rejected line) or ours (a misused API)."""

from __future__ import annotations

from protocol.domain import Code

CODES: dict[Code, str] = {
    Code.OVERSIZE: "the line is longer than the protocol allows",
    Code.BAD_UTF8: "the line is not valid UTF-8",
    Code.CONTROL_CHARACTER: "the line holds a control character",
    Code.SYNTAX: "the line does not follow the message grammar",
    Code.UNKNOWN_VERSION: "the line speaks a protocol version this client does not know",
    Code.UNKNOWN_TYPE: "the message type is unknown",
    Code.UNKNOWN_FIELD: "the message holds a field its type does not have",
    Code.BAD_FIELD: "a field's value is malformed",
    Code.NON_CANONICAL: "the line is not in its one canonical encoding",
    Code.WEAK_KEY: "a key in the line is one anyone could sign for (small-order or non-canonical)",
    Code.BAD_SIGNATURE: "the signature does not verify",
    Code.WRONG_GAME: "the message belongs to another game",
    Code.UNKNOWN_TERM: "the game is offered under terms this client does not know",
    Code.WRONG_SIGNER: "the signer has no seat in this game",
    Code.WRONG_SEAT: "the signer may not send this message now",
    Code.BROKEN_LINK: "the hash of the previous message does not match",
    Code.GAP: "a message before this one is missing",
    Code.BAD_REVEAL: "the revealed secret does not match its commitment",
    Code.ILLEGAL_MOVE: "the move is illegal in the game's position",
    Code.BAD_CLOCK: "the move's clock does not follow from the game's time control and its record",
    Code.EARLY_CLAIM: "the claim comes before the time it claims has passed, by the claimant's own times",
    Code.AFTER_END: "the game is already over",
    Code.SUPERSEDED: "another player's line takes precedence at this sequence number",
    Code.EQUIVOCATION: "the signer signed two messages that cannot both be part of one game",
    Code.LIMIT: "the signer has sent more messages of this kind than a receiver keeps",
    Code.BUFFER_FULL: "too many messages wait for their predecessors",
}
"""Every rejection code, with the human sentence a client may show."""


class RemoteProtocolError(ValueError):
    """A line from the network broke the protocol; ``code`` says how (see :data:`CODES`)."""

    def __init__(self, code: Code | str, detail: str) -> None:
        self.code = Code(code)  # ValueError for a code the protocol does not have
        super().__init__(f"{self.code}: {detail}")
        self.detail = detail


class LocalProtocolError(ValueError):
    """This client asked for something the protocol forbids (e.g. signing an illegal move, or equivocating).

    ``str(error)`` is the whole sentence (``cannot resign now: the game is over``); :attr:`reason` its why alone (``the
    game is over``), for a front end that words the refusal its own way.
    """

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason
