"""The protocol's words, as types: each value is the text that goes on the wire (a ``StrEnum`` compares equal to it).

A line names its type (:class:`MessageType`), a presence line its state (:class:`Presence`); a seat is the host's or
the guest's (:class:`Role`); a game ends for a :class:`ResultReason`; a refused line has a :class:`Code`. The game
kinds are the engines' (:class:`olixono.common.GameKind`).
"""

from __future__ import annotations

from enum import StrEnum


class MessageType(StrEnum):
    """A line's type, the token after the version (``PROTOCOL.md`` §3)."""

    OFFER = "offer"
    JOIN = "join"
    ACCEPT = "accept"
    REVEAL = "reveal"
    CLAIM = "claim"
    MOVE = "move"
    PROPOSE = "propose"
    WITHDRAW = "withdraw"
    DECLINE = "decline"
    AGREE = "agree"
    RESIGN = "resign"
    ABORT = "abort"
    CHAT = "chat"
    PRESENCE = "presence"
    CONFIRM = "confirm"
    RECEIPT = "receipt"
    FLAG = "flag"
    TIMEOUT = "timeout"
    WITNESS = "witness"
    REMATCH = "rematch"
    TAKEBACK = "takeback"
    UNDO = "undo"
    TALK = "talk"


class Role(StrEnum):
    """Who a seated key is: the one who offered the game, or the one it accepted."""

    HOST = "host"
    GUEST = "guest"


class Presence(StrEnum):
    """A presence line's ``state=``: the player's client is connected, or has left (its will, sent by the relay); or
    it is connected, and the relay this line is published on runs inside its program (the relay ``olixono host``
    starts where none answers), so that it ends when that player leaves."""

    HERE = "here"
    GONE = "gone"
    HOSTING = "hosting"


class ResultReason(StrEnum):
    """Why a game ended, where the protocol rather than the engine decides it (the engine's endings, by the rules, by
    resignation or by agreement, are :class:`olixono.common.EndReason`)."""

    ABORTED = "aborted"
    WITHDRAWN = "withdrawn"
    FORFEIT = "forfeit"
    EQUIVOCATION = "equivocation"
    TIME = "time"
    ABANDONED = "abandoned"
    DISPUTE = "dispute"


class Code(StrEnum):
    """Why a line from the network was refused (:class:`protocol.errors.RemoteProtocolError`); ``CODES`` words each."""

    OVERSIZE = "oversize"
    BAD_UTF8 = "bad-utf8"
    CONTROL_CHARACTER = "control-character"
    SYNTAX = "syntax"
    UNKNOWN_VERSION = "unknown-version"
    UNKNOWN_TYPE = "unknown-type"
    UNKNOWN_FIELD = "unknown-field"
    BAD_FIELD = "bad-field"
    NON_CANONICAL = "non-canonical"
    WEAK_KEY = "weak-key"
    BAD_SIGNATURE = "bad-signature"
    WRONG_GAME = "wrong-game"
    UNKNOWN_TERM = "unknown-term"
    WRONG_SIGNER = "wrong-signer"
    WRONG_SEAT = "wrong-seat"
    BROKEN_LINK = "broken-link"
    GAP = "gap"
    BAD_REVEAL = "bad-reveal"
    ILLEGAL_MOVE = "illegal-move"
    BAD_CLOCK = "bad-clock"
    EARLY_CLAIM = "early-claim"
    AFTER_END = "after-end"
    SUPERSEDED = "superseded"
    EQUIVOCATION = "equivocation"
    LIMIT = "limit"
    BUFFER_FULL = "buffer-full"
