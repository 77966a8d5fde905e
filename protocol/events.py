"""What a :class:`~protocol.session.GameSession` tells its front end: events, results, and outgoing lines.

Events are frozen, slotted dataclasses. A session returns them in the order
they happened; every line that joins the transcript first yields
:class:`LineApplied` (what a journal records and a player copies), then the
events that say what it did.
"""

from __future__ import annotations

from dataclasses import dataclass

from olixono.common import EndReason, GameKind, ending_sentence
from protocol.domain import Code, ResultReason, Role
from protocol.errors import CODES
from protocol.keys import PublicKey
from protocol.messages import Message


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended, the same for every receiver.

    ``reason``: ``colour``, ``symbol``, ``exhausted`` (Oxono), ``formation``,
    ``stones``, ``settled`` (Olix) — by the rules; ``agreed``, ``resigned``,
    ``aborted``, ``withdrawn``, ``forfeit`` — by a player's line; ``time`` (a live or
    correspondence game's clock ran out: conceded, or a flag claim went unanswered),
    ``abandoned`` (an untimed game's player to move was silent for days), ``dispute``
    (a flag claim that the record contradicts: no result, ``detail`` has the figures);
    ``equivocation`` — a player signed two lines that cannot both stand, and
    loses the game at that point (``slot``; ``PROTOCOL.md`` §6).
    ``winner`` is a player name (``pink``, ``first``, …), ``"host"`` or
    ``"guest"`` for a forfeit before the seats were drawn, or ``None`` (a draw,
    or no game). ``by`` and ``by_name`` say whose line ended it, when a person
    did (for ``equivocation``: who signed two lines; ``by`` is ``None`` when
    both players did).
    """

    reason: EndReason | ResultReason
    winner: str | None = None
    winner_key: PublicKey | None = None
    by: PublicKey | None = None
    by_name: str | None = None
    scored: bool = True
    """Whether the game was played out to a result (False for ``aborted`` and ``withdrawn``)."""
    markers: bool = False
    """Whether the result was counted on markers (Olix at its end: ``stones``, ``settled``, ``agreed``)."""
    slot: int | None = None
    """For ``equivocation``: the sequence number at which the game was lost (the record stops before it)."""
    detail: str | None = None
    """For ``time``, ``abandoned`` and ``dispute``: what happened, in words (``black conceded``; a dispute's figures);
    for ``aborted`` by a claim, who made no first move (``black made no first move in time``)."""

    def text(self) -> str:
        """The compact form: ``pink colour``, ``draw exhausted``, ``host forfeit``, ``aborted``."""
        if not self.scored:
            return self.reason
        return f"{self.winner or 'draw'} {self.reason}"

    def code(self) -> str:
        """The compact form as one token, as a ``confirm`` line names it: ``pink-colour``, ``aborted``."""
        return self.text().replace(" ", "-")

    def sentence(self) -> str:
        """Who won and why, in words: ``black wins by pink's resignation``. An ending the engine decides (by the rules,
        by agreement, by resignation) in the engine's words (:func:`olixono.common.ending_sentence`); the protocol's
        own endings here."""
        winner, reason = self.winner, self.reason
        if isinstance(reason, EndReason):
            return ending_sentence(winner, reason, markers=self.markers, by=self.by_name)
        if reason == ResultReason.WITHDRAWN:
            return "withdrawn by the host before anyone was seated"
        if reason == ResultReason.ABORTED:
            if self.detail is not None:  # the other's claim: a first move off the clock never came (rules:2)
                return f"aborted: {self.detail}"
            return f"aborted by {self.by_name} before their first move"
        if reason == ResultReason.FORFEIT:
            if self.by_name == Role.GUEST:
                return "the host wins by forfeit: the guest walked away after the coin flip"
            return "the host wins by forfeit: the guest did not reveal the coin flip"
        if reason == ResultReason.TIME:
            return f"{winner} wins on time: {self.detail}"
        if reason == ResultReason.ABANDONED:
            return f"{winner} wins: {self.detail}"
        if reason == ResultReason.DISPUTE:
            return f"no result, a time dispute: {self.detail}"
        if reason == ResultReason.EQUIVOCATION:
            what = f"signed two lines that cannot both stand (slot {self.slot})"
            if self.by is None:
                return f"no result: both players {what}"
            if winner is None:
                return f"no game: the host {what}"
            if winner == Role.GUEST and self.winner_key is None:
                return f"the host forfeits: it {what}, and two guests revealed on its accepts, so neither is named"
            article = "the " if winner in (Role.HOST, Role.GUEST) else ""
            return f"{article}{winner} wins by forfeit: {'the ' if article else ''}{self.by_name} {what}"

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True, slots=True)
class LineApplied:
    """A verified line joined the transcript (journal it; a player re-publishes others' lines, §7)."""

    message: Message

    @property
    def line(self) -> str:
        return self.message.line


@dataclass(frozen=True, slots=True)
class OfferReceived:
    game: str
    kind: GameKind
    host: PublicKey
    invite: PublicKey | None
    terms: str
    at: int
    """When the host says it made the offer (Unix seconds; the host's own clock, for showing an age)."""


@dataclass(frozen=True, slots=True)
class JoinRequested:
    key: PublicKey


@dataclass(frozen=True, slots=True)
class GuestAccepted:
    key: PublicKey


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The coin flip is done: ``seats`` gives each player name's key, in turn order."""

    seats: tuple[tuple[str, PublicKey], ...]


@dataclass(frozen=True, slots=True)
class MoveApplied:
    """``player`` played ``move``: the game's move number ``ply`` (from 1), at main-chain sequence number ``seq``."""

    seq: int
    player: str
    move: str
    ply: int = 0


@dataclass(frozen=True, slots=True)
class TakebackAsked:
    """``player`` signed a takeback line naming the head at ``seq``: it asks to take back the last ``plies`` moves, or
    consents to the other's asking the same; ``plies`` 0: it refuses the other's. It changes nothing by itself: the
    player to move's undo does (:class:`MovesTakenBack`). ``message``: the takeback line, which the other player
    copies as any line it verifies (§7): the asker's sign that it came."""

    player: str
    plies: int
    seq: int
    message: Message


@dataclass(frozen=True, slots=True)
class MovesTakenBack:
    """``player`` (the player to move) signed the undo at ``seq`` that took back the last ``plies`` moves, which the
    other consented to: ``moves`` of them, by their text, last first. The board is as it was before them."""

    seq: int
    player: str
    plies: int
    moves: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EndProposed:
    """``player`` proposes to end the game (Olix: scored now; Oxono: a draw); it stands until answered or withdrawn."""

    player: str


@dataclass(frozen=True, slots=True)
class ProposalWithdrawn:
    player: str


@dataclass(frozen=True, slots=True)
class EndDeclined:
    player: str


@dataclass(frozen=True, slots=True)
class ChatReceived:
    key: PublicKey
    text: str


@dataclass(frozen=True, slots=True)
class TalkReceived:
    """A watcher's talk line (``PROTOCOL.md`` §5, "A watcher's talk"): ``key``'s ``seq``-th, beside the game."""

    key: PublicKey
    seq: int
    text: str


@dataclass(frozen=True, slots=True)
class PresenceChanged:
    """A player's client said it is connected (``here``) or its relay said it is gone (its last will)."""

    key: PublicKey
    here: bool


@dataclass(frozen=True, slots=True)
class RematchAsked:
    """A player, once the game was over, asked to play ``game`` next (``PROTOCOL.md`` §3, "A rematch"): the game it
    hosts for the other player, or the other's that it agrees to. ``message``: the rematch line, which the other
    player copies as any line it verifies (§7)."""

    key: PublicKey
    game: str
    message: Message


@dataclass(frozen=True, slots=True)
class GameOver:
    result: Result


@dataclass(frozen=True, slots=True)
class Superseded:
    """``message`` was set aside: ``by``, another player's line for the same seq, takes precedence.

    Both orders of arrival end alike: a resignation sent while the opponent
    was thinking stands over the opponent's line, and the guest's reveal over
    the host's claim. A front end redraws from the session.
    """

    message: Message
    by: Message


@dataclass(frozen=True, slots=True)
class ClaimVoided:
    """The game's time witnesses void a claimant's ``timeout``: its claim came before the other's clock, as they timed
    it, had run out, or the timeout before the claim's window had passed, or after the other's line for its place.
    The game goes on from before it (or that line stands); a record keeps the timeout (``PROTOCOL.md`` §3)."""

    timeout: Message


@dataclass(frozen=True, slots=True)
class LineRejected:
    code: Code
    detail: str
    line: str

    @property
    def sentence(self) -> str:
        """The code's sentence and the detail, once: ``the signature does not verify for key 1a2b-…``."""
        general = CODES[self.code]
        return self.detail if self.detail.startswith(general) else f"{general} ({self.detail})"


@dataclass(frozen=True, slots=True)
class EquivocationDetected:
    """``key`` signed both lines, which cannot both be part of one game: a portable proof (§6).

    ``point``: the sequence number at which a seated key's proof makes it lose the game, unless the game ended
    before it (``None`` for chat and confirmations, which never change the game).
    """

    key: PublicKey
    slot: str
    first: str
    second: str
    point: int | None = None
    played_on: bool = False
    """The lines are a final line and a later main-chain line (not two lines for one slot)."""


@dataclass(frozen=True, slots=True)
class ConfirmationReceived:
    """A player signed a confirmation of how the game ended (``protocol.GameSession.confirmation`` says whether it
    agrees with this receiver's ending)."""

    key: PublicKey


@dataclass(frozen=True, slots=True)
class ResyncNeeded:
    """Lines were dropped for lack of room before their signer's seat was known: deliver the game's lines again.

    Over MQTT: subscribe to the game's topics once more, so that the relay
    sends its retained lines again (``PROTOCOL.md`` §6, what a receiver keeps).
    """


Event = (
    LineApplied
    | OfferReceived
    | JoinRequested
    | GuestAccepted
    | GameStarted
    | MoveApplied
    | EndProposed
    | ProposalWithdrawn
    | EndDeclined
    | ChatReceived
    | PresenceChanged
    | GameOver
    | Superseded
    | LineRejected
    | EquivocationDetected
    | ConfirmationReceived
    | ResyncNeeded
    | ClaimVoided
    | RematchAsked
    | TakebackAsked
    | MovesTakenBack
)


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A line the local player signed: what to publish, where, and the events applying it caused."""

    line: str
    message: Message
    topic: str
    events: tuple[Event, ...]
