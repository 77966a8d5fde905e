"""The olixono wire protocol, sans I/O: signed text lines, and the per-game verified transcript.

``protocol.domain`` names the protocol's words as types, ``protocol.messages`` is the grammar (one canonical line per
message), ``protocol.keys`` the Ed25519 identities, ``protocol.rules`` the table of who may send what,
``protocol.judge`` the state machine that is fed lines and yields events (``protocol.events``), holding its owners
``protocol.seating``, ``protocol.evidence`` and ``protocol.claims``, ``protocol.session`` a player's session that also
signs, ``protocol.transcript`` whole records checked offline, ``protocol.topics`` the MQTT topic names,
``protocol.gallery`` the watchers' talk beside a game. The specification for other implementers is ``PROTOCOL.md``.
"""

from protocol.domain import Code, MessageType, Presence, ResultReason, Role
from protocol.errors import CODES, LocalProtocolError, RemoteProtocolError
from protocol.events import (
    ChatReceived,
    ClaimVoided,
    ConfirmationReceived,
    EndDeclined,
    EndProposed,
    EquivocationDetected,
    Event,
    GameOver,
    GameStarted,
    GuestAccepted,
    JoinRequested,
    LineApplied,
    LineRejected,
    MoveApplied,
    MovesTakenBack,
    OfferReceived,
    Outgoing,
    PresenceChanged,
    ProposalWithdrawn,
    RematchAsked,
    Result,
    ResyncNeeded,
    Superseded,
    TakebackAsked,
    TalkReceived,
)
from protocol.gallery import Gallery, is_talk
from protocol.keys import Identity, PublicKey, WeakKeyError, fingerprint
from protocol.messages import NUMBERED_APART, VERSION, Message, decode, encode
from protocol.rules import CONFIRMED, DISPUTED, UNSEEN, Phase
from protocol.session import GameSession, Witnessing
from protocol.topics import copy_topic, game_filter, lobby_filter, player_filter, topic_for
from protocol.transcript import check_equivocation_proof, verify_transcript

__all__ = [
    "CODES",
    "CONFIRMED",
    "DISPUTED",
    "NUMBERED_APART",
    "UNSEEN",
    "VERSION",
    "ChatReceived",
    "ClaimVoided",
    "Code",
    "ConfirmationReceived",
    "EndDeclined",
    "EndProposed",
    "EquivocationDetected",
    "Event",
    "Gallery",
    "GameOver",
    "GameSession",
    "GameStarted",
    "GuestAccepted",
    "Identity",
    "JoinRequested",
    "LineApplied",
    "LineRejected",
    "LocalProtocolError",
    "Message",
    "MessageType",
    "MoveApplied",
    "MovesTakenBack",
    "OfferReceived",
    "Outgoing",
    "Phase",
    "Presence",
    "PresenceChanged",
    "ProposalWithdrawn",
    "PublicKey",
    "RematchAsked",
    "RemoteProtocolError",
    "Result",
    "ResultReason",
    "ResyncNeeded",
    "Role",
    "Superseded",
    "TakebackAsked",
    "TalkReceived",
    "WeakKeyError",
    "Witnessing",
    "check_equivocation_proof",
    "copy_topic",
    "decode",
    "encode",
    "fingerprint",
    "game_filter",
    "is_talk",
    "lobby_filter",
    "player_filter",
    "topic_for",
    "verify_transcript",
]
