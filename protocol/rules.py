"""The rules of a game's record, as data: who may send what (the table), the limits a receiver keeps to, the coin.

Who may send what is one table, :data:`RULES`: for each :class:`Phase`, each
:class:`Sender`'s message types and their :class:`Rank`. At every sequence
number one key, the actor, extends the main chain; the only races are settled
by rank, the same for every receiver whatever the order of arrival:

    phase     sender   may send                                                 rank
    offered   host     accept, abort (withdraws the offer)                      YIELDS (1)
              anyone   join (a candidate; invited key only, if the offer        CANDIDATE (0)
                       names one)
    accepted  guest    reveal, abort (walks away: the host wins by forfeit)     OVERRULES (2)
              host     claim (the guest never revealed: forfeit)                YIELDS (1)
    playing   actor    move, propose, withdraw, decline (the turn stays),       YIELDS (1)
                       abort (the first seat, before its move),
                       undo (a takeback the other consented to)
                       agree, resign, timeout (concedes on time)                ACTOR_ENDS (3)
              waiter   timeout (its flag claim went unanswered)                 OVERRULES (2)
                       resign                                                   WAITER_RESIGNS (4)

A line of higher rank sent for a sequence number another player's line
already holds replaces it and what followed it in that player's turn (at
most one turn); a line of lower rank is set aside. Either way a
:class:`~protocol.events.Superseded` event says so. :mod:`protocol.judge` applies the table.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Mapping
from typing import NamedTuple, TypeAlias

from olixono.common import RULE_REASONS
from protocol.clock import TimeControl
from protocol.domain import Code, MessageType, Role
from protocol.errors import RemoteProtocolError
from protocol.events import (
    Result,
)
from protocol.keys import KEY_BYTES, PublicKey, b64, unb64
from protocol.messages import MAX_WITNESSES, Message, parse_terms, public_key

# -- limits: what one game may make a receiver keep, whatever strangers publish ------------------
MAX_JOINS = 64
"""Join candidates kept for the host to choose from (a join that a known accept names is always kept)."""
MAX_CHAT_LINES = 256
"""Chat lines per player per game."""
MAX_PROOFS_PER_KEY = 4
"""Equivocation proofs kept per key (one is enough to prove it)."""
MAX_SUPERSEDED = 16
"""Lines set aside per game (an honest race sets aside at most one turn)."""
MAX_NAMED = 4
"""Guests named by the host's waiting accepts whose lines are kept as a seated player's."""
MAX_CHAIN = 512
"""Main-chain sequence numbers a receiver considers: no game is longer (at most 3 lines to seat the players, 4 a
ply, 36 plies), so a line numbered beyond is refused (``limit``) and every key's history stays bounded."""
MAX_CONFIRMS = 32
"""Confirmations per player (an honest client signs a new one only when the ending it saw changed)."""
MAX_PROVEN_LINES = 16
"""Further lines of a key that prove again what one of its proofs proves, known (a record may hold them) per key."""
MAX_WITNESS_LINES = 1024
"""Witness lines one witness may sign for one game (a game's lines, one a line at most, and a few more)."""
MAX_JOINS_PER_KEY = 4
"""Joins kept per candidate key (one is honest; the host may have accepted a later one of an equivocating guest)."""

TERMS = {"rules": ("1", "2")}
"""The terms every offer names, and the values this implementation knows: ``rules:1``, the rules of
``docs/oxono.md`` and ``docs/olix.md``; ``rules:2``, the same but for a timed game's first moves (each player's clock
starts with its first move: :data:`FIRST_MOVE_FREE`)."""
FIRST_MOVE_FREE = "rules:2"
"""The term under which each player's first move is off its clock and a missing one aborts the game
(:meth:`protocol.clock.TimeControl.first`; ``PROTOCOL.md`` §3, the clock). Older records (``rules:1``) judge as they
always did."""
TIMED = ("clock", "days")
"""The terms that name a time control (:class:`protocol.clock.TimeControl`), which an offer may name (one)."""
WITNESS_TERM = "witness"
"""The term that names the game's time witnesses (``witness:KEY[.KEY…]``, §3 "A time witness"), which an offer may
name: one to three keys, sorted, each once."""
SEAT_TERM = "first"
"""The term that seats the players without the coin (``first:host`` or ``first:guest``: who moves first), which an
offer may name: a rematch's, whose colours are the last game's swapped (``PROTOCOL.md`` §3, "A rematch")."""
SEATS = ("host", "guest")
DEFAULT_TERMS = FIRST_MOVE_FREE
"""What a new offer names, beside its time control and witnesses."""

HOST, GUEST = Role.HOST, Role.GUEST


class Phase(enum.Enum):
    """Where a game's main chain stands, as its lines tell (``PROTOCOL.md`` §3, "The main chain"); each value is how
    a refusal words it ("… while the game is offered")."""

    WAITING = "waiting for the offer"
    OFFERED = "offered"
    ACCEPTED = "accepted"
    PLAYING = "playing"
    OVER = "over"


class Sender(enum.Enum):
    """Who a line's signer is, as the table of a phase sees it; each value is how a refusal words it."""

    HOST = "the host"
    GUEST = "the guest"
    ANYONE = "a candidate guest"
    ACTOR = "the player to move"
    WAITER = "the player not to move"


class Rank(enum.IntEnum):
    """A main-chain line's rank in a race: of two keys' lines for one sequence number, the higher stands, judged as
    of the state before it (the module docstring; ``PROTOCOL.md`` §3, "Races", whose table gives each rank's value).

    Ranks are weighed only between the two senders of one phase, and those never share one, so a race has no tie: in
    the accepted phase the host's claim yields to the guest's reveal or abort; while the game is played the actor's
    ranks and the waiter's alternate: the actor's lines that yield, below the waiter's timeout, below the actor's
    ending, below the waiter's resignation."""

    CANDIDATE = 0
    """A join: a candidate's line, in no race (the chain takes it with the accept that names it, and the offered
    phase has no races)."""
    YIELDS = 1
    """A line that yields to whatever the other key may send for its sequence number: the host's accept, its abort
    of the offer, its claim that the guest never revealed (the host's claim yields to any reveal); the actor's move,
    remarks, abort and undo."""
    OVERRULES = 2
    """A line that stands over the other key's line that yields: the guest's reveal or abort over the host's claim;
    the waiter's timeout over the actor's move, remarks, abort or undo (a move after an unanswered flag claim comes
    too late, and an abort is no way out of a claim)."""
    ACTOR_ENDS = 3
    """The actor ends the game: it agrees to the waiter's proposal, resigns, or concedes on time; over the waiter's
    timeout (a claim is no way out of a draw agreed or a resignation)."""
    WAITER_RESIGNS = 4
    """The waiter resigns: over anything of the actor's, its ending too (a resignation only ever costs its sender)."""


Ranks: TypeAlias = Mapping[MessageType, Rank]
"""The message types one sender may send in one phase, and each one's rank."""

RULES: Mapping[Phase, Mapping[Sender, Ranks]] = {
    Phase.OFFERED: {
        Sender.HOST: {MessageType.ACCEPT: Rank.YIELDS, MessageType.ABORT: Rank.YIELDS},
        Sender.ANYONE: {MessageType.JOIN: Rank.CANDIDATE},
    },
    Phase.ACCEPTED: {
        Sender.GUEST: {MessageType.REVEAL: Rank.OVERRULES, MessageType.ABORT: Rank.OVERRULES},
        Sender.HOST: {MessageType.CLAIM: Rank.YIELDS},
    },
    Phase.PLAYING: {
        Sender.ACTOR: {
            MessageType.MOVE: Rank.YIELDS,
            MessageType.PROPOSE: Rank.YIELDS,
            MessageType.WITHDRAW: Rank.YIELDS,
            MessageType.DECLINE: Rank.YIELDS,
            MessageType.AGREE: Rank.ACTOR_ENDS,
            MessageType.RESIGN: Rank.ACTOR_ENDS,
            MessageType.TIMEOUT: Rank.ACTOR_ENDS,
            MessageType.ABORT: Rank.YIELDS,
            MessageType.UNDO: Rank.YIELDS,
        },
        Sender.WAITER: {MessageType.RESIGN: Rank.WAITER_RESIGNS, MessageType.TIMEOUT: Rank.OVERRULES},
    },
    Phase.OVER: {},
}
"""Each phase's senders, the message types each may send, and their :class:`Rank` in a race (module docstring)."""

FINAL = frozenset({MessageType.AGREE, MessageType.RESIGN, MessageType.ABORT, MessageType.TIMEOUT})
"""Types after which their signer never signs another main-chain line: one that does has equivocated."""
REMARKS = frozenset({MessageType.PROPOSE, MessageType.WITHDRAW, MessageType.DECLINE})
"""Main-chain lines that leave the turn with the actor (each at most once a turn)."""
SIDE_LINES = frozenset(
    {
        MessageType.OFFER,
        MessageType.JOIN,
        MessageType.CHAT,
        MessageType.PRESENCE,
        MessageType.CONFIRM,
        MessageType.RECEIPT,
        MessageType.FLAG,
        MessageType.REMATCH,
        MessageType.TAKEBACK,
    }
)
"""Types that are not judged by the table of the main chain."""


def clocked(line: Message) -> bool:
    """Whether ``line`` ends its signer's turn on the clock: a move, or an undo of one ply, which hands the turn to the
    player whose move it takes back (``PROTOCOL.md`` §3, "A takeback"). In a timed game such a line carries ``think``
    and ``left``, the other player receipts it, and a flag claim against the turn it ends is answered by it."""
    return line.type is MessageType.MOVE or (line.type is MessageType.UNDO and line.plies == 1)


def begins_turn(line: Message) -> bool:
    """Whether ``line`` begins a turn of the game: a :func:`clocked` line, or the reveal (the first turn)."""
    return line.type is MessageType.REVEAL or clocked(line)


def acknowledged(line: Message) -> int | None:
    """The sequence number whose line ``line``'s signer says came from the other player, if it says so: a receipt's
    (of a move, or the reveal), or a confirmation's final line when the ending it names is by the rules of the game
    (which only a move makes)."""
    if line.type is MessageType.RECEIPT:
        return line.seq
    if line.type is MessageType.CONFIRM and line.result.rsplit("-", 1)[-1] in RULE_REASONS:
        return line.final
    return None


def waited(line: Message) -> int | None:
    """How long a receipt's signer waited for the line it receipts, on its own clock: from its own line that began
    the turn leaving it to that line verified (``recv - sent``); a claimant's timeout's wait before its claim
    (``flagged - sent``), from the same event. ``None`` for a line that does not say (a receipt without ``sent``, a
    concession)."""
    if line.type is MessageType.RECEIPT:
        return None if line.sent is None else line.recv - line.sent
    if line.type is MessageType.TIMEOUT and line.sent is not None and line.flagged is not None:
        return line.flagged - line.sent
    return None


def contradicts(said: Message, timeout: Message) -> bool:
    """Whether one key's ``said`` (a receipt, a confirmation) and ``timeout`` cannot both stand: the one says the
    other player's line for the timeout's place came (a receipt: before the claim the timeout closes; a confirmation:
    and ended the game by the rules), the other that nothing came in time (a claimant's) or that the key itself had
    the turn there (a concession). A player who signed both has equivocated (PROTOCOL.md §3).

    A receipt and a claimant's timeout are weighed by :func:`waited`, both measured from one event on the signer's
    clock (whatever its origin, and whether or not it restarted between the two): the receipt contradicts the claim
    when it waited less. A receipt without ``sent`` (of the guest's first move, where a client left it out) measures
    nothing from that event and contradicts no claim."""
    if (
        timeout.type is not MessageType.TIMEOUT
        or said.signer != timeout.signer
        or acknowledged(said) != timeout.seq
        or said.prev == timeout.hash
    ):
        return False
    if said.type is MessageType.RECEIPT and (timeout.sent, timeout.flagged, timeout.now) != (None, None, None):
        had, claimed = waited(said), waited(timeout)  # had after the claim: a late move, which the claim disputes
        return had is not None and claimed is not None and had < claimed
    return True


def refused_on_sight(line: Message) -> RemoteProtocolError | None:
    """Why every receiver refuses ``line`` by itself, before anything else of the game is asked, or ``None``: a number
    beyond a receiver's limits (a sequence number of the main chain, or one a receipt or a flag claim names, from
    :data:`MAX_CHAIN`; a confirmation numbered above :data:`MAX_CONFIRMS` or naming a final line from
    :data:`MAX_CHAIN`; a chat line above :data:`MAX_CHAT_LINES`), a join that is not seq 1 or does not name its
    game's offer, a receipt whose ``sent`` is after its ``recv`` or ``ack``. No receiver holds such a line as its
    signer's word, so it proves nothing (:func:`protocol.check_equivocation_proof` asks the same)."""
    kind = line.type
    if kind in (MessageType.OFFER, MessageType.PRESENCE):
        return None
    if kind is MessageType.CHAT:
        if line.seq > MAX_CHAT_LINES:
            return RemoteProtocolError(Code.LIMIT, f"at most {MAX_CHAT_LINES} chat lines a player")
        return None
    if kind is MessageType.WITNESS:
        if line.seq > MAX_WITNESS_LINES:
            return RemoteProtocolError(Code.LIMIT, f"at most {MAX_WITNESS_LINES} witness lines a witness")
        return None
    if kind is MessageType.CONFIRM:
        if line.seq > MAX_CONFIRMS:
            return RemoteProtocolError(Code.LIMIT, f"at most {MAX_CONFIRMS} confirmations a player")
        if line.final >= MAX_CHAIN:
            return RemoteProtocolError(Code.LIMIT, f"final={line.final}: no game's main chain is that long")
        return None
    if line.seq >= MAX_CHAIN:
        return RemoteProtocolError(Code.LIMIT, f"seq {line.seq}: no game's main chain is {MAX_CHAIN} lines long")
    if kind is MessageType.JOIN:
        if line.seq != 1:
            return RemoteProtocolError(Code.WRONG_SEAT, "a join is always seq 1")
        if unb64(line.prev, 32)[:16] != unb64(line.game, 16):  # the offer's hash begins with its game id (§4)
            return RemoteProtocolError(Code.BROKEN_LINK, "prev= of a join is the hash of the offer")
    if kind is MessageType.RECEIPT:
        sent, ack = line.sent, line.ack
        if sent is not None and (sent > line.recv or (ack is not None and sent > ack)):
            return RemoteProtocolError(Code.BAD_CLOCK, "sent= is after recv= or ack=: no line is had before it leaves")
    return None


UNCHAINED = frozenset({MessageType.OFFER, MessageType.PRESENCE, MessageType.REMATCH})
"""Types whose lines sit in no slot that a second line could contend for."""
CONFIRMED, DISPUTED, UNSEEN = "confirmed", "disputed", "unseen"
"""How a player's latest confirmation stands against a receiver's ending (:meth:`GameSession.confirmation`)."""


class State(NamedTuple):
    """Everything about the game but the board, as it stood before or after one main-chain line."""

    phase: Phase
    guest: PublicKey | None = None
    seats: tuple[PublicKey, PublicKey] | None = None
    turn: int = 0
    moves: int = 0
    proposal: int | None = None
    remarks: frozenset[MessageType] = frozenset()
    result: Result | None = None
    clocks: tuple[int, int] | None = None
    """A timed game's clocks once the seats are drawn: the time left to the first seat and to the second, in ms."""


def commitment(secret: str) -> str:
    """The join's commitment to the guest's coin-flip secret."""
    return b64(hashlib.sha256(unb64(secret, 16)).digest())


def host_moves_first(secret: str, salt: str, terms: str | None = None) -> bool:
    """The coin: the low bit of SHA-256(secret bytes ‖ salt bytes); 0 seats the host first. Terms that name who moves
    first (``first:host``, ``first:guest``: a rematch's) decide it instead."""
    seat = first_seat(terms)
    if seat is not None:
        return seat == "host"
    return hashlib.sha256(unb64(secret, 16) + unb64(salt, 16)).digest()[0] & 1 == 0


def first_seat(terms: str | None) -> str | None:
    """Who the terms seat first, ``host`` or ``guest`` (``None``: the coin decides)."""
    return next((value for name, value in parse_terms(terms or "") if name == SEAT_TERM), None)


def rematch_terms(terms: str, first: str) -> str:
    """The terms of a rematch of a game played under ``terms``: the same, but who moves first (``host``, ``guest``)."""
    kept = [f"{name}:{value}" for name, value in parse_terms(terms) if name != SEAT_TERM]
    return ",".join(sorted([*kept, f"{SEAT_TERM}:{first}"]))


def witnesses_of(terms: str | None) -> tuple[PublicKey, ...]:
    """The time witnesses an offer's ``terms=`` names (none: the game has none); ``unknown-term`` for a ``witness:``
    term that names no keys, or names them out of order, twice, or weak."""
    for name, value in parse_terms(terms or ""):
        if name != WITNESS_TERM:
            continue
        texts = value.split(".")
        if texts != sorted(set(texts)) or len(texts) > MAX_WITNESSES:
            raise RemoteProtocolError(Code.UNKNOWN_TERM, f"witness: names 1 to {MAX_WITNESSES} keys, sorted, each once")
        try:
            return tuple(public_key(unb64(text, KEY_BYTES)) for text in texts)
        except ValueError as exc:  # not a key (or one anyone could sign for)
            raise RemoteProtocolError(Code.UNKNOWN_TERM, f"witness:{value[:50]}: {exc}") from None
    return ()


def witness_term(keys: Iterable[PublicKey]) -> str:
    """The ``witness:`` term that names ``keys`` (1 to :data:`MAX_WITNESSES`, each once: sorted, as the offer names
    them); :class:`ValueError` for none, too many, or one named twice."""
    texts = [key.text for key in keys]
    if not 0 < len(texts) <= MAX_WITNESSES or len(set(texts)) != len(texts):
        raise ValueError(f"a game names 1 to {MAX_WITNESSES} time witnesses, each once")
    return f"{WITNESS_TERM}:{'.'.join(sorted(texts))}"


def first_move_free(terms: str | None) -> bool:
    """Whether an offer's ``terms=`` make each player's first move free of its clock (:data:`FIRST_MOVE_FREE`, in a
    timed game)."""
    items = (terms or "").split(",")
    return FIRST_MOVE_FREE in items and any(item.partition(":")[0] in TIMED for item in items)


def check_terms(value: str) -> None:
    """Raise ``unknown-term`` unless every term of an offer is one this implementation plays under (the rules, and
    at most one time control: :mod:`protocol.clock`)."""
    for name, val in parse_terms(value):
        if name in TIMED:
            continue
        if name == WITNESS_TERM:
            witnesses_of(value)
            continue
        if name == SEAT_TERM and val in SEATS:
            continue
        if val not in TERMS.get(name, ()):
            raise RemoteProtocolError(Code.UNKNOWN_TERM, f"{name}:{val}")
    try:
        TimeControl.of_terms(value)
    except ValueError as exc:
        raise RemoteProtocolError(Code.UNKNOWN_TERM, str(exc)) from None
    missing = sorted(set(TERMS) - {name for name, _ in parse_terms(value)})
    if missing:
        raise RemoteProtocolError(Code.UNKNOWN_TERM, f"the offer does not name {', '.join(missing)}")
