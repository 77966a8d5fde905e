"""One game's verified transcript, sans I/O: feed it lines, get events out.

A :class:`GameSession` may be fed lines in any order, any number of times,
from anyone. It ignores exact duplicates, keeps (within bounds) lines that
arrive before their parent, applies every line that verifies, and answers
every other with a :class:`~protocol.events.LineRejected` naming a code from
``protocol.errors.CODES``. It also signs the local player's own actions,
refusing (:class:`LocalProtocolError`) before anything is signed whatever the
game forbids, and never signing two lines that could not both be in one game.

Who may send what is one table, :data:`RULES`: for each phase, each sender's
message types and their *rank*. At every sequence number one key, the actor,
extends the main chain; the only races are settled by rank, the same for
every receiver whatever the order of arrival:

    phase     sender   may send (rank)
    offered   host     accept, abort (withdraws the offer)
              anyone   join (a candidate; invited key only, if the offer names one)
    accepted  guest    reveal, abort (walks away: the host wins by forfeit)     2
              host     claim (the guest never revealed: forfeit)                  1
    playing   actor    move, propose, withdraw, decline (the turn stays),       1
                       agree, resign, abort (the first seat, before its move)    2
              waiter   resign                                                     3

A line of higher rank sent for a sequence number another player's line
already holds replaces it and what followed it in that player's turn (at
most one turn); a line of lower rank is set aside. Either way a
:class:`~protocol.events.Superseded` event says so.

A seated key that signs two lines which cannot both stand (two lines for one
slot, or a final line and a later one) loses the game at that point, the same
for every receiver whatever the order of arrival: the record stops before the
point and the result is a forfeit (``equivocation``). Players confirm how a
game ended with ``confirm`` lines, which never change the game.
"""

from __future__ import annotations

import enum
import hashlib
import time
from collections import deque
from types import MappingProxyType
from typing import Any, Iterable, Mapping, NamedTuple

from olixono.common import Board, InvalidMoveError, Outcome
from olixono.games import new_board
from olixono.olix import OlixBoard
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.events import (
    ChatReceived,
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
    OfferReceived,
    Outgoing,
    PresenceChanged,
    ProposalWithdrawn,
    Result,
    ResyncNeeded,
    Superseded,
)
from protocol.keys import Identity, PublicKey, b64, random_token, unb64
from protocol.messages import Message, check_text, decode, decode_text, encode, encode_text, line_hash, parse_terms
from protocol.topics import topic_for
from protocol.waiting import WaitingRoom

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
MAX_JOINS_PER_KEY = 4
"""Joins kept per candidate key (one is honest; the host may have accepted a later one of an equivocating guest)."""

TERMS = {"rules": ("1",)}
"""The terms this implementation can play under: each name, and the values it knows."""
DEFAULT_TERMS = "rules:1"

HOST, GUEST = "host", "guest"


class Phase(enum.Enum):
    WAITING = "waiting for the offer"
    OFFERED = "offered"
    ACCEPTED = "accepted"
    PLAYING = "playing"
    OVER = "over"


class Sender(enum.Enum):
    HOST = "the host"
    GUEST = "the guest"
    ANYONE = "a candidate guest"
    ACTOR = "the player to move"
    WAITER = "the player not to move"


RULES: dict[Phase, dict[Sender, dict[str, int]]] = {
    Phase.OFFERED: {Sender.HOST: {"accept": 1, "abort": 1}, Sender.ANYONE: {"join": 0}},
    Phase.ACCEPTED: {Sender.GUEST: {"reveal": 2, "abort": 2}, Sender.HOST: {"claim": 1}},
    Phase.PLAYING: {
        Sender.ACTOR: {"move": 1, "propose": 1, "withdraw": 1, "decline": 1, "agree": 2, "resign": 2, "abort": 2},
        Sender.WAITER: {"resign": 3},
    },
    Phase.OVER: {},
}
"""Each phase's senders, the message types each may send, and their rank in a race (module docstring)."""

FINAL = frozenset({"agree", "resign", "abort"})
"""Types after which their signer never signs another main-chain line: one that does has equivocated."""
REMARKS = frozenset({"propose", "withdraw", "decline"})
"""Main-chain lines that leave the turn with the actor (each at most once a turn)."""
SIDE_LINES = frozenset({"offer", "join", "chat", "presence", "confirm"})
"""Types that are not judged by the table of the main chain."""
CONFIRMED, DISPUTED, UNSEEN = "confirmed", "disputed", "unseen"
"""How a player's latest confirmation stands against a receiver's ending (:meth:`GameSession.confirmation`)."""


class _State(NamedTuple):
    """Everything about the game but the board, as it stood before or after one main-chain line."""

    phase: Phase
    guest: PublicKey | None = None
    seats: tuple[PublicKey, PublicKey] | None = None
    turn: int = 0
    moves: int = 0
    proposal: int | None = None
    remarks: frozenset[str] = frozenset()
    result: Result | None = None


def commitment(secret: str) -> str:
    """The join's commitment to the guest's coin-flip secret."""
    return b64(hashlib.sha256(unb64(secret, 16)).digest())


def host_moves_first(secret: str, salt: str) -> bool:
    """The coin: the low bit of SHA-256(secret bytes ‖ salt bytes); 0 seats the host first."""
    return hashlib.sha256(unb64(secret, 16) + unb64(salt, 16)).digest()[0] & 1 == 0


def check_terms(value: str) -> None:
    """Raise ``unknown-term`` unless every term of an offer is one this implementation plays under."""
    for name, val in parse_terms(value):
        if val not in TERMS.get(name, ()):
            raise RemoteProtocolError("unknown-term", f"{name}:{val}")
    missing = sorted(set(TERMS) - {name for name, _ in parse_terms(value)})
    if missing:
        raise RemoteProtocolError("unknown-term", f"the offer does not name {', '.join(missing)}")


class GameSession:
    """The verified state of one game, as seen by a player (with ``identity``) or a spectator.

    Read-only views for front ends: :attr:`phase`, :attr:`board` (a copy),
    :attr:`chain`, :attr:`transcript`, :attr:`seats`, :attr:`host`,
    :attr:`guest`, :attr:`joins`, :attr:`actor`, :attr:`proposal`, :attr:`result`,
    :attr:`proofs`, :attr:`compromised_by`.
    """

    def __init__(self, game_id: str | None = None, identity: Identity | None = None) -> None:
        self.game_id = game_id
        self.identity = identity
        self.kind: str | None = None
        self.terms: str | None = None
        self.invite: PublicKey | None = None
        self._host: PublicKey | None = None
        self._board: Board[Any] | None = None
        self._state = _State(Phase.WAITING)
        self._chain: list[Message] = []
        self._before: list[_State] = []  # the state before each chain line, to judge races and roll back
        self._transcript: list[str] = []
        self._joins: dict[PublicKey, Message] = {}
        # by raw key bytes (cheap to hash): (key, slot): every main-chain line placed or set aside, and chat
        self._seen: dict[tuple[bytes, str], Message] = {}
        self._last: dict[bytes, Message] = {}  # each key's highest main-chain line
        self._finals: dict[bytes, list[Message]] = {}  # each key's final lines (agree, resign, abort), one a slot
        self._superseded: dict[str, Message] = {}
        self._chats: dict[PublicKey, tuple[int, str]] = {}  # each seated key's chat head: (seq, hash)
        self._presence: dict[PublicKey, tuple[int, bool]] = {}  # each seated key's latest presence: (seq, here)
        self._proofs: dict[PublicKey, list[EquivocationDetected]] = {}
        self._confirms: dict[PublicKey, dict[int, Message]] = {}  # each seated key's confirmations, by number
        self._cut: dict[str, Message] = {}  # main-chain lines cut from the record by a forfeit, by hash
        self._forfeited_at: int | None = None  # where the forfeit the state holds cut the record, if any
        self._host_accepts: dict[str, Message] = {}  # the host's accepts (seq 2) by hash, a few: its seating
        self._released: list[str] = []  # tokens to release besides those a judged line gives (a seat made elsewhere)
        self._proven_lines: dict[bytes, int] = {}  # lines known only as more evidence of a proof already held, a key
        self._join_lines: dict[str, Message] = {}  # every join kept, by hash (a few a key)
        self._forfeit_base = self._state  # the state before that forfeit
        self._known: set[str] = set()  # every line applied, joined or set aside
        self._named: set[PublicKey] = set()  # guests named by the host's waiting accepts
        self._waiting = WaitingRoom(self._seated)
        self._secret: str | None = None

    # -- read-only views ---------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._state.phase

    @property
    def board(self) -> Board[Any] | None:
        """A copy of the board (``None`` before the offer): change it freely."""
        return self._board.copy() if self._board is not None else None

    @property
    def position(self) -> str | None:
        return self._board.position() if self._board is not None else None

    @property
    def chain(self) -> tuple[Message, ...]:
        """The main chain: the offer, the accepted join, the accept, … in sequence order."""
        return tuple(self._chain)

    @property
    def transcript(self) -> tuple[str, ...]:
        """The verified lines in the order they were applied (chat included), then the players' confirmations (the
        host's, then the guest's, each by number: they never change the game, so every receiver lists them alike):
        what ``olixono verify`` checks."""
        confirms = [self._confirms[key][n].line for key in (self._host, self._state.guest)
                    if key is not None and key in self._confirms for n in sorted(self._confirms[key])]
        return (*self._transcript, *confirms)

    @property
    def head(self) -> Message | None:
        return self._chain[-1] if self._chain else None

    @property
    def next_seq(self) -> int:
        return len(self._chain)

    @property
    def host(self) -> PublicKey | None:
        return self._host

    @property
    def guest(self) -> PublicKey | None:
        return self._state.guest

    @property
    def joins(self) -> Mapping[PublicKey, Message]:
        """The join candidates kept for the host to choose from."""
        return MappingProxyType(self._joins)

    @property
    def seats(self) -> dict[str, PublicKey]:
        """Each player name's key, once the coin flip is done (empty before)."""
        if self._state.seats is None or self._board is None:
            return {}
        return dict(zip(self._board.PLAYERS, self._state.seats))

    @property
    def started(self) -> bool:
        return self._state.seats is not None

    @property
    def moves(self) -> int:
        return self._state.moves

    @property
    def result(self) -> Result | None:
        return self._state.result

    @property
    def over(self) -> bool:
        return self._state.phase is Phase.OVER

    @property
    def proposal(self) -> str | None:
        """The player whose proposal to end the game is open, if any."""
        index = self._state.proposal
        return None if index is None or self._board is None else self._board.PLAYERS[index]

    @property
    def actor(self) -> PublicKey | None:
        """The key that extends the main chain next: the host while the offer is open, then the guest (to reveal),
        then the player to move; ``None`` before the offer and once it is over."""
        return self._actor(self._state)

    @property
    def proofs(self) -> tuple[EquivocationDetected, ...]:
        return tuple(proof for proofs in self._proofs.values() for proof in proofs)

    @property
    def compromised_by(self) -> frozenset[PublicKey]:
        """The seated keys proven to have equivocated."""
        return frozenset(key for key in self._proofs if self.role_of(key) is not None)

    @property
    def waiting(self) -> tuple[str, ...]:
        """The lines kept until what they wait for arrives (a line before them that has not come)."""
        return self._waiting.lines()

    def waiting_of(self, key: PublicKey) -> tuple[Message, ...]:
        """The lines of ``key``'s kept until a line before them arrives (a gap, while it lasts)."""
        return self._waiting.lines_of(key) if key in self._waiting.keys() else ()

    @property
    def record(self) -> tuple[str, ...]:
        """What a game's record holds: the transcript, then both lines of every proof not in it (``olixono export``
        writes it, ``olixono verify`` reads it and reaches the same result)."""
        lines = list(self.transcript)
        held = set(lines)
        for proof in self.proofs:
            for line in (proof.first, proof.second):
                if line not in held:
                    held.add(line)
                    lines.append(line)
        return tuple(lines)

    @property
    def forfeit_pending(self) -> int | None:
        """The point at which a seated key's proof will end the game, while the lines before it have not all come."""
        point = self._forfeit_point()
        if point is None or self._forfeited_at is not None or len(self._chain) >= point[0]:
            return None
        return point[2]

    @property
    def branch(self) -> tuple[Message, Message] | None:
        """After a forfeit: the equivocator's line the opponent answered, and that answer (who played what), if seen.

        The opponent's next line names one of the two lines by its hash: that branch is the one played (never the
        equivocator's choice of the two)."""
        result = self._state.result
        if self._forfeited_at is None or result is None or result.by is None or result.slot is None:
            return None
        at, equivocator = result.slot, result.by
        candidates = {line for proof in self._proofs.get(equivocator, []) if proof.point == at
                      for line in (proof.first, proof.second)}
        opponent = result.winner_key
        answer = self._seen.get((opponent.raw, str(at + 1))) if opponent is not None else None
        if answer is None:
            return None
        for line in candidates:
            if line_hash(line) == answer.prev:
                return decode(line, verify=False), answer
        return None

    def confirmation(self, key: PublicKey) -> str | None:
        """How ``key``'s latest confirmation stands against this receiver's ending: :data:`CONFIRMED` (it names the
        same final line and result), :data:`DISPUTED` (another ending, at or before this one's final line),
        :data:`UNSEEN` (an ending this receiver has not reached: lines are missing, or still on their way), or
        ``None`` (none yet). A confirmation of an ending that a forfeit cut away is a dispute."""
        confirms = self._confirms.get(key)
        if not confirms:
            return None
        if any(proof.slot.startswith("confirm-") for proof in self._proofs.get(key, ())):
            return DISPUTED  # it confirmed two endings under one number: neither counts
        latest = confirms[max(confirms)]
        result = self._state.result
        if result is None or not self._chain:
            return UNSEEN
        head = self._chain[-1]
        final = int(latest.value("final"))
        if final == head.seq and latest.prev == head.hash and latest.value("result") == result.code():
            return CONFIRMED
        if final > head.seq and self._forfeited_at is None:  # (past a forfeit's point it confirms what it overrode)
            return UNSEEN
        return DISPUTED

    @property
    def confirmed_by(self) -> frozenset[PublicKey]:
        """The seated keys whose latest confirmation names this receiver's ending."""
        return frozenset(key for key in self._confirms if self.role_of(key) is not None
                         and self.confirmation(key) == CONFIRMED)

    def confirmed_ending(self, key: PublicKey) -> tuple[int, str] | None:
        """The final sequence number and result code that ``key``'s latest confirmation names, if any."""
        confirms = self._confirms.get(key)
        if not confirms:
            return None
        latest = confirms[max(confirms)]
        return int(latest.value("final")), latest.value("result")

    def role_of(self, key: PublicKey) -> str | None:
        """``host``, ``guest`` or ``None``."""
        raw = key.raw
        if self._host is not None and raw == self._host.raw:
            return HOST
        guest = self._state.guest
        if guest is not None and raw == guest.raw:
            return GUEST
        return None

    def player_of(self, key: PublicKey) -> str | None:
        """The player name (``pink``, ``first``, …) seated with ``key``, if any."""
        for player, seated in self.seats.items():
            if seated == key:
                return player
        return None

    def name_of(self, key: PublicKey) -> str:
        """How to call ``key`` here: its player name, else its role, else its fingerprint."""
        return self.player_of(key) or self.role_of(key) or key.fingerprint

    def check_move(self, text: str) -> str:
        """The canonical text of a move the local player may play now; :class:`LocalProtocolError` saying why not.

        Nothing is signed: a front end checks typed text with this before sending it.
        """
        board = self._board
        if board is None or self.phase is not Phase.PLAYING:
            raise LocalProtocolError("the game has not started yet: the players' seats are not drawn")
        if self.actor != self._me():
            raise LocalProtocolError(f"it is not your turn: {board.turn} is to move")
        try:
            move = board.parse_move(text.strip())
        except InvalidMoveError as exc:
            raise LocalProtocolError(f"not a move: {exc}") from None
        reason = board.why_illegal(move)
        if reason is not None:
            raise LocalProtocolError(f"illegal: {reason}")
        return str(move.text())

    def may(self, kind: str) -> str | None:
        """Why the local player may not send ``kind`` now (``None``: they may), without signing anything.

        For a ``move`` this checks the turn, not a particular move (:meth:`move` checks that).
        """
        try:
            self._draft(kind, [] if kind != "chat" else [("text", "x")], guard=kind not in ("move", "reveal"))
        except LocalProtocolError as exc:
            return str(exc)
        return None

    # -- the table ---------------------------------------------------------------
    def _actor(self, state: _State) -> PublicKey | None:
        if state.phase is Phase.OFFERED:
            return self._host
        if state.phase is Phase.ACCEPTED:
            return state.guest
        if state.phase is Phase.PLAYING and state.seats is not None:
            return state.seats[state.turn]
        return None

    def _sender(self, key: PublicKey, state: _State) -> Sender | None:
        phase = state.phase
        if phase is Phase.OFFERED:
            return Sender.HOST if key == self._host else Sender.ANYONE
        if phase is Phase.ACCEPTED:
            return Sender.HOST if key == self._host else Sender.GUEST if key == state.guest else None
        if phase is Phase.PLAYING and state.seats is not None:
            if key.raw == state.seats[state.turn].raw:
                return Sender.ACTOR
            if key.raw == state.seats[1 - state.turn].raw:
                return Sender.WAITER
        return None

    def _rank(self, message: Message, state: _State, guard: bool = True) -> int:
        """Check that the table lets ``message``'s signer send it in ``state`` (and its guard); its rank."""
        return self._judge(message, state, guard)[0]

    def _judge(self, message: Message, state: _State, guard: bool = True) -> tuple[int, object | None]:
        """:meth:`_rank`, and for a move the parsed move (so that it is parsed once)."""
        if state.phase is Phase.OVER:
            assert state.result is not None
            raise RemoteProtocolError("after-end", f"the game ended ({state.result.text()})")
        sender = self._sender(message.signer, state)
        if sender is None:
            raise RemoteProtocolError("wrong-signer", f"{message.signer.fingerprint} is not a player here")
        ranks = RULES[state.phase].get(sender, {})
        rank = ranks.get(message.type)
        if rank is None:
            allowed = ", ".join(ranks) or "nothing"
            raise RemoteProtocolError(
                "wrong-seat", f"{sender.value} may send {allowed} while the game is {state.phase.value}, not {message.type}"
            )
        return rank, self._guard(message, state, sender) if guard else None

    def _guard(self, message: Message, state: _State, sender: Sender) -> object | None:
        """The checks a type needs beyond the table (raises :class:`RemoteProtocolError`); a move's parse."""
        kind = message.type
        if kind == "move":
            return self._check_move(message.fields[3][1])
        mine = state.turn if sender is Sender.ACTOR else 1 - state.turn
        if kind == "reveal":
            if commitment(message.value("secret")) != self._chain[1].value("commit"):
                raise RemoteProtocolError("bad-reveal", "SHA-256 of secret= is not the join's commit=")
        elif kind == "abort" and state.phase is Phase.PLAYING:
            if state.moves > 0:  # the actor at ply 0 is the first seat: the better one, which an abort gives up
                raise RemoteProtocolError("wrong-seat", "after the coin flip only the first player may abort, before "
                                                        "their first move (the second may resign)")
        elif kind in REMARKS and kind in state.remarks:
            raise RemoteProtocolError("wrong-seat", f"{kind} is allowed once a turn")
        if kind == "propose" and state.proposal is not None:
            why = "a proposal of theirs is open" if state.proposal == mine else "the other player's proposal is open: agree"
            raise RemoteProtocolError("wrong-seat", f"cannot propose: {why}")
        if kind == "withdraw" and state.proposal != mine:
            raise RemoteProtocolError("wrong-seat", "withdraw takes back one's own open proposal, and none is open")
        if kind in ("agree", "decline") and state.proposal != 1 - mine:
            raise RemoteProtocolError("wrong-seat", f"{kind} answers the other player's proposal, and none is open")
        return None

    def _check_move(self, text: str) -> object:
        """The legal move ``text`` spells in canonical form, or :class:`RemoteProtocolError`."""
        board = self._board
        assert board is not None
        try:
            move = board.parse_move(text)
        except InvalidMoveError as exc:
            raise RemoteProtocolError("illegal-move", str(exc)) from None
        if move.text() != text:
            raise RemoteProtocolError("non-canonical", f"move={text} is written {move.text()}")
        reason = board.why_illegal(move)
        if reason is not None:
            raise RemoteProtocolError("illegal-move", f"{text}: {reason}")
        return move

    # -- feeding lines -------------------------------------------------------------
    def receive(self, data: bytes | str) -> list[Event]:
        """Check one line and apply it if it verifies, then anything it unblocks."""
        if self._is_known(data):  # QoS 1 repeats and one's own lines echoed back: no need to verify again
            return []
        try:
            message = decode(data)
        except RemoteProtocolError as exc:
            return [LineRejected(exc.code, exc.detail, _shown(data))]
        return self._receive(message)

    def _receive(self, message: Message) -> list[Event]:
        """Judge a decoded line (its signature checked, or our own), then what it unblocks."""
        events: list[Event] = []
        work = deque([message])  # first in, first out: lines waiting for one parent go in arrival order
        for _ in range(MAX_CHAIN):  # a forfeit may seat a guest, whose waiting lines are judged, and so on
            while work:
                message = work.popleft()
                try:
                    released = self._process(message, events)
                except RemoteProtocolError as exc:
                    events.append(LineRejected(exc.code, exc.detail, message.line[:200]))
                    released = []
                for token in [*released, *self._released]:
                    work.extend(self._waiting.release(token))
                self._released.clear()
            self._settle(events)
            for token in self._released:
                work.extend(self._waiting.release(token))
            self._released.clear()
            if not work:
                break
        return events

    def _is_known(self, data: bytes | str) -> bool:
        if isinstance(data, str):
            return data in self._known
        try:
            return bytes(data).decode("utf-8") in self._known
        except UnicodeDecodeError:
            return False

    def receive_all(self, lines: Iterable[bytes | str]) -> list[Event]:
        events: list[Event] = []
        for line in lines:
            events.extend(self.receive(line))
        return events

    def _process(self, message: Message, events: list[Event]) -> list[str]:
        """Judge one decoded line; the tokens whose waiting lines it may unblock (:mod:`protocol.waiting`)."""
        if message.type == "offer":
            return self._offer(message, events)
        if self.game_id is not None and message.game != self.game_id:
            raise RemoteProtocolError("wrong-game", f"for game {message.game}, not {self.game_id}")
        if not self._chain:
            return self._keep(message, "offer")
        if message.line in self._known:
            return []
        if message.type == "chat":
            return self._chat(message, events)
        if message.type == "presence":
            return self._presence_line(message, events)
        if message.type == "confirm":
            return self._confirm(message, events)
        if message.type == "join":
            return self._join(message, events)
        if message.seq >= MAX_CHAIN:
            raise RemoteProtocolError("limit", f"seq {message.seq}: no game's main chain is {MAX_CHAIN} lines long")
        role = self.role_of(message.signer)
        if role == HOST and message.type == "accept" and message.seq == 2:
            self._host_accept(message, events)
        if (role is not None or self._evident(message.signer)) and self._equivocates(message, events):
            return []
        if role is None and self._state.guest is not None:
            raise RemoteProtocolError("wrong-signer", f"{message.signer.fingerprint} is not a player here")
        if role is None:
            # no guest is seated: perhaps the guest's (even after a withdrawal, which a second line of the host's may
            # undo): judged, and kept in its history, once its seat is known; so that no line of the guest's is
            # refused in one order of arrival and held against it in another
            return self._keep(message, f"seat {message.signer.text}")
        if message.type == "accept" and message.seq != 2:
            raise RemoteProtocolError("wrong-seat", "an accept is always seq 2, after the join it names")
        if message.prev in self._superseded:
            return self._set_aside(message, self._superseded[message.prev], events)
        if message.type == "accept" and self._state.phase is Phase.OFFERED and message.seq == 2:
            return self._accept(message, events)
        n = len(self._chain)
        head = self._chain[-1]
        if message.seq > n or (message.seq == n and message.prev != head.hash):
            if message.prev == head.hash:
                raise RemoteProtocolError("broken-link", f"prev= is the hash of seq {n - 1}, so seq= is {n}")
            reopened = head.type == "claim"  # the guest's reveal may yet replace it: its children may come first
            if message.seq == n and not (reopened or self.over):
                raise RemoteProtocolError("broken-link", f"prev= is not the hash of seq {n - 1}")
            return self._keep(message, message.prev)
        if message.seq < n:
            return self._race(message, events)
        _, move = self._judge(message, self._state)
        return self._place(message, events, move)

    def _accept(self, message: Message, events: list[Event]) -> list[str]:
        """The host's accept: seat the join it names (kept until that join comes)."""
        join = self._join_by_hash(message.prev)
        if join is None:
            if message.signer == self._host and message.peer is not None and len(self._named) < MAX_NAMED:
                self._named.add(message.peer)
                self._reclassify(events)
            return self._keep(message, message.prev)
        self._rank(message, self._state)
        guest = message.peer
        if guest != join.signer:
            raise RemoteProtocolError("bad-field", "guest= is not the key that signed the join")
        assert guest is not None
        self._place(join, events)
        self._place(message, events)
        self._seat_guest(guest, events)
        return [join.hash, message.hash, f"seat {guest.text}"]

    def _evident(self, key: PublicKey) -> bool:
        """Whether ``key``'s lines go into its history even while it holds no seat: a guest the host accepted (the
        host may have signed more than one accept; its canonical one decides the seat, :meth:`_canonical_seating`)."""
        return any(accept.peer == key for accept in self._host_accepts.values())

    def _host_accept(self, message: Message, events: list[Event]) -> None:
        """Keep one of the host's accepts (a few): the guest it names is evident from now on, its waiting lines
        go into its history."""
        if message.hash in self._host_accepts or len(self._host_accepts) >= MAX_NAMED:
            return
        peer = message.peer
        new = peer is not None and not self._evident(peer)
        self._host_accepts[message.hash] = message
        if new and peer is not None:  # its lines so far, into its history: its joins, and the lines waiting
            for seen in [*(join for join in self._join_lines.values() if join.signer == peer),
                         *(line for line in self._waiting.lines_of(peer) if line.type not in SIDE_LINES)]:
                self._equivocates(seen, events)
            self._released.append(f"seat {peer.text}")  # its confirmations are kept from now on

    def _join_by_hash(self, digest: str) -> Message | None:
        """The join with this hash, if known: a candidate's first, or one it signed after it (kept, a few a key, since
        the host may have accepted that one)."""
        if len(self._chain) > 1 and self._chain[1].hash == digest:
            return self._chain[1]
        return self._join_lines.get(digest)

    def _race(self, message: Message, events: list[Event]) -> list[str]:
        """A line for a sequence number another key's line holds: judge both as of before it; the higher rank stands."""
        seq = message.seq
        if message.prev != self._chain[seq - 1].hash:
            raise RemoteProtocolError("broken-link", f"prev= is not the hash of seq {seq - 1}")
        held = self._chain[seq]
        before = self._before[seq]
        if before.phase not in (Phase.ACCEPTED, Phase.PLAYING):
            raise RemoteProtocolError("wrong-seat", f"seq {seq} is already taken")
        rank = self._rank(message, before)
        if rank <= self._rank_held(held, before):
            return self._set_aside(message, held, events)
        for later in reversed(self._chain[seq:]):  # at most the rest of one turn, all by the other key
            self._unplace()
            self._superseded[later.hash] = later
            events.append(Superseded(later, message))
        return self._place(message, events)

    def _rank_held(self, message: Message, state: _State) -> int:
        sender = self._sender(message.signer, state)
        assert sender is not None
        return RULES[state.phase][sender][message.type]

    def _set_aside(self, message: Message, by: Message, events: list[Event]) -> list[str]:
        if len(self._superseded) >= MAX_SUPERSEDED:
            raise RemoteProtocolError("superseded", "and no more lines are kept for this game")
        self._superseded[message.hash] = message
        self._note(message)
        self._remember(message)
        events.append(Superseded(message, by))
        return [message.hash]

    # -- equivocation: one key, one history ------------------------------------------
    def _conflicts(self, message: Message) -> list[Message]:
        """The lines ``message``'s signer signed before that cannot stand with it: another line for its slot, a
        final line before it, or (``message`` being final) a line after it."""
        key = message.signer.raw
        out = []
        earlier = self._seen.get((key, message.slot))
        if earlier is not None and earlier.line != message.line:
            out.append(earlier)
        out.extend(final for final in self._finals.get(key, ()) if final.seq < message.seq)
        last = self._last.get(key)
        if message.type in FINAL and last is not None and last.seq > message.seq:
            out.append(last)
        return out

    def _equivocates(self, message: Message, events: list[Event]) -> bool:
        """Keep ``message`` in its (seated) signer's history, with a proof for every line it cannot stand with;
        whether there was any (the line then goes no further: the forfeit rule decides).

        Every main-chain line of a seated key is kept at first sight, whether it is then placed, kept waiting or
        refused, so that which proofs exist does not depend on the order in which the lines came.
        """
        conflicts = self._conflicts(message)
        self._note(message)
        for earlier in conflicts:
            self._proof(earlier, message, events)
        return bool(conflicts)

    def _proof(self, first: Message, second: Message, events: list[Event]) -> None:
        proofs = self._proofs.setdefault(first.signer, [])
        point, played_on = _point(first, second)
        where = _where(point, second.slot)
        if any(_where(kept.point, kept.slot) == where for kept in proofs):
            # proven already: one proof a point is enough; the line is known (a record may hold it), a few a key only
            seen = self._proven_lines.get(first.signer.raw, 0)
            if seen < MAX_PROVEN_LINES and second.line not in self._known:
                self._proven_lines[first.signer.raw] = seen + 1
                self._remember(second)
            return
        proof = EquivocationDetected(first.signer, second.slot, first.line, second.line, point, played_on)
        if len(proofs) >= MAX_PROOFS_PER_KEY:  # keep the proofs that decide the game: the lowest points
            worst = max(proofs, key=lambda kept: _rank_of_point(kept.point))
            if _rank_of_point(point) >= _rank_of_point(worst.point):
                raise RemoteProtocolError("equivocation", f"{first.signer.fingerprint} equivocated again")
            proofs.remove(worst)
        proofs.append(proof)
        self._remember(first)
        self._remember(second)
        events.append(proof)

    # -- the forfeit: whoever signed two lines that cannot both stand loses the game at that point ---------
    def _cut_point(self, key: PublicKey, point: int) -> int:
        """Where a seated key's proof at ``point`` stops the record: at ``point``, but never before the seating for
        the guest (its joins are chosen between by the host's accept: it loses before its reveal, at 3), and for a
        host that signed two lines while seating, at 3 with the guest of its canonical accept (the one with the
        lowest hash whose join is known), or at the offer alone (1) when it seated nobody."""
        if point >= 3:
            return point
        if key != self._host:
            return 3
        return 3 if self._canonical_seating() is not None else 1

    def _canonical_seating(self) -> tuple[Message, Message] | None:
        """Among the host's accepts whose join is known, the one with the lowest hash, and its join: whom a host
        that signed more than one line for its seating seated, whichever line came first."""
        best: tuple[Message, Message] | None = None
        for accept in self._host_accepts.values():
            join = self._join_by_hash(accept.prev)
            if join is not None and join.signer == accept.peer and (best is None or accept.hash < best[1].hash):
                best = (join, accept)
        return best

    def _forfeit_point(self) -> tuple[int, list[PublicKey], int] | None:
        """The lowest cut of a seated key's proof (:meth:`_cut_point`), who has one there, and where their lines are
        (the lowest such slot)."""
        best: tuple[int, list[PublicKey], int] | None = None
        for key, proofs in self._proofs.items():
            if self.role_of(key) is None:
                continue
            for proof in proofs:
                if proof.point is None:
                    continue
                cut = self._cut_point(key, proof.point)
                if best is None or cut < best[0]:
                    best = (cut, [key], proof.point)
                elif cut == best[0]:
                    best = (cut, best[1] if key in best[1] else [*best[1], key], min(best[2], proof.point))
        return best

    def _settle(self, events: list[Event]) -> None:
        """Apply the forfeit rule once the lines before its point are in: the same state in every order of arrival.

        A seated key's proof ends the game at its cut unless the game had ended before: the record is cut back to
        the lines before it and the result is a forfeit.
        """
        point = self._forfeit_point()
        if point is None:
            return
        cut, keys, slot = point
        seating = self._canonical_seating() if cut == 3 and self._host in keys and self._host_seating_proof() else None
        if seating is not None and (len(self._chain) < 3 or self._chain[2].hash != seating[1].hash):
            self._reseat(*seating, events)  # the host's own canonical accept, whatever came first
            point = self._forfeit_point()  # the guest may be another one now
            assert point is not None
            cut, keys, slot = point
        n = len(self._chain)
        if n < cut:
            return  # the lines before the point have not all come (a late spectator's view): later
        if self._forfeited_at is None and self._state.phase is Phase.OVER and n <= cut:
            return  # the game ended (at n - 1) before the point: the proof is reported, the result stands
        while len(self._chain) > cut:
            self._cut_head()
        base = self._forfeit_base if self._forfeited_at is not None else self._state  # the same point: another key?
        result = self._forfeit_result(base, keys, slot)
        if self._forfeited_at == cut and self._state.result == result:
            return
        self._forfeit_base = base
        self._state = base._replace(phase=Phase.OVER, result=result, proposal=None, remarks=frozenset())
        self._forfeited_at = cut
        events.append(GameOver(result))

    def _host_seating_proof(self) -> bool:
        """Whether the host's decisive proof is one of its seating (two lines for seq 1 or 2)."""
        assert self._host is not None
        return any(proof.point is not None and proof.point <= 2 for proof in self._proofs.get(self._host, []))

    def _cut_head(self) -> None:
        cut = self._chain[-1]
        self._unplace()
        self._cut[cut.hash] = cut

    def _reseat(self, join: Message, accept: Message, events: list[Event]) -> None:
        """Seat the guest of the host's canonical accept in place of whatever seating came first."""
        if self._forfeited_at is not None:  # a forfeit before anyone was seated: undone, it is decided again
            self._state, self._forfeited_at = self._forfeit_base, None
        while len(self._chain) > 1:
            self._cut_head()
        assert accept.peer is not None
        self._place(join, events)
        self._place(accept, events)
        self._seat_guest(accept.peer, events)
        self._released.extend([join.hash, accept.hash, f"seat {accept.peer.text}"])

    def _forfeit_result(self, state: _State, keys: list[PublicKey], slot: int) -> Result:
        if len(keys) > 1:
            return Result("equivocation", scored=False, slot=slot)
        key = keys[0]
        if state.seats is not None:
            assert self._board is not None
            mine = 0 if key == state.seats[0] else 1
            return Result("equivocation", self._board.PLAYERS[1 - mine], state.seats[1 - mine], key,
                          self._board.PLAYERS[mine], slot=slot)
        if key == self._host:
            if state.phase is Phase.ACCEPTED and state.guest is not None:
                return Result("equivocation", GUEST, state.guest, key, HOST, slot=slot)
            return Result("equivocation", None, None, key, HOST, scored=False, slot=slot)
        return Result("equivocation", HOST, self._host, key, GUEST, slot=slot)

    def _note(self, message: Message) -> None:
        """Keep a main-chain line of ``message.signer`` in its history: the first line of each slot, every final
        line, its highest line."""
        key = message.signer.raw
        slot = (key, message.slot)
        if slot in self._seen:
            return
        self._seen[slot] = message
        last = self._last.get(key)
        if last is None or message.seq > last.seq:
            self._last[key] = message
        if message.type in FINAL:
            self._finals.setdefault(key, []).append(message)

    # -- applying ------------------------------------------------------------------
    def _remember(self, message: Message) -> None:
        self._known.add(message.line)

    def _offer(self, message: Message, events: list[Event]) -> list[str]:
        game = message.game
        if self._chain:
            raise RemoteProtocolError("wrong-game", f"an offer of game {game}, not {self.game_id}")
        if self.game_id is not None and game != self.game_id:
            raise RemoteProtocolError("wrong-game", f"an offer of game {game}, not {self.game_id}")
        terms = message.value("terms")
        check_terms(terms)
        kind = message.value("kind")
        self.game_id, self.kind, self.terms = game, kind, terms
        self._board = new_board(kind)
        self._host = message.signer
        self.invite = message.peer
        self._chain.append(message)
        self._before.append(self._state)
        self._state = _State(Phase.OFFERED)
        self._transcript.append(message.line)
        self._remember(message)
        events.append(LineApplied(message))
        events.append(OfferReceived(game, kind, message.signer, message.peer, terms, int(message.value("at"))))
        self._reclassify(events)
        return ["offer"]

    def _join(self, message: Message, events: list[Event]) -> list[str]:
        if message.seq != 1:
            raise RemoteProtocolError("wrong-seat", "a join is always seq 1")
        if message.prev != self._chain[0].hash:
            raise RemoteProtocolError("broken-link", "prev= of a join is the hash of the offer")
        if message.signer != self._host and (
                any(accept.prev == message.hash for accept in self._host_accepts.values())
                or len(self._join_lines) < MAX_JOINS * MAX_JOINS_PER_KEY
                and sum(join.signer == message.signer for join in self._join_lines.values()) < MAX_JOINS_PER_KEY):
            self._join_lines[message.hash] = message  # whatever else it meets: the host may have accepted it
        if self._evident(message.signer) or message.signer == self._state.guest:
            self._equivocates(message, events)  # any other line of its for seq 1 (a second join too), whatever the phase
        state = self._state
        if state.phase is not Phase.OFFERED:
            if state.phase is Phase.OVER and len(self._chain) < 3:
                assert state.result is not None
                raise RemoteProtocolError("after-end", f"the game ended ({state.result.text()})")
            if message.signer == state.guest:
                if self._chain[1].line != message.line:
                    self._proof(self._chain[1], message, events)
                return []
            raise RemoteProtocolError("wrong-seat", "the game already has its guest")
        if message.signer == self._host:
            raise RemoteProtocolError("wrong-seat", "the host cannot join their own game")
        if self.invite is not None and message.signer != self.invite:
            raise RemoteProtocolError("wrong-signer", "the game is for the invited key only")
        if message.value("terms") != self.terms:
            raise RemoteProtocolError("bad-field", "the join does not accept the offer's terms")
        earlier = self._joins.get(message.signer)
        if earlier is not None:
            self._proof(earlier, message, events)
            return [message.hash]  # the host may have accepted this one: its accept is judged again
        if len(self._joins) >= MAX_JOINS and message.signer not in self._named:
            self._waiting.mark_dropped()
            raise RemoteProtocolError("limit", f"{MAX_JOINS} joins are waiting already")
        self._joins[message.signer] = message
        self._remember(message)
        events.append(JoinRequested(message.signer))
        return [message.hash]

    def _place(self, message: Message, events: list[Event], move: object | None = None) -> list[str]:
        """Append a judged main-chain line (``move``: a move's parse): the next state, the board, the events."""
        before = self._state
        self._before.append(before)
        self._chain.append(message)
        self._transcript.append(message.line)
        self._note(message)
        self._remember(message)
        events.append(LineApplied(message))
        self._state = after = self._advance(before, message, move, events)
        if after.result is not None and before.result is None:
            events.append(GameOver(after.result))
        return [message.hash]

    def _unplace(self) -> None:
        """Take the head of the chain back (a line of higher rank came for its sequence number, or a forfeit)."""
        message = self._chain.pop()
        self._state = self._before.pop()
        self._forfeited_at = None
        self._transcript.remove(message.line)
        if message.type == "move":
            assert self._board is not None
            self._board.pop()

    def _advance(self, state: _State, message: Message, move: object | None, events: list[Event]) -> _State:
        """The state after ``message`` (and the board moved, for a move)."""
        board = self._board
        assert board is not None
        kind = message.type
        if kind == "move":
            assert state.seats is not None
            board.push(move)
            events.append(MoveApplied(message.seq, board.PLAYERS[state.turn], message.fields[3][1], state.moves + 1))
            outcome = board.outcome()
            if outcome is None:  # the common case, built directly (NamedTuple._replace is slow)
                return _State(Phase.PLAYING, state.guest, state.seats, 1 - state.turn, state.moves + 1, state.proposal)
            return state._replace(turn=1 - state.turn, moves=state.moves + 1, remarks=frozenset(), phase=Phase.OVER,
                                  result=self._ruled(outcome, state.seats, None))
        if kind == "join":
            return state
        if kind == "accept":
            assert message.peer is not None
            events.append(GuestAccepted(message.peer))
            return state._replace(phase=Phase.ACCEPTED, guest=message.peer)
        if kind == "reveal":
            guest = state.guest
            assert guest is not None and self._host is not None
            host_first = host_moves_first(message.value("secret"), self._chain[2].value("salt"))
            seats = (self._host, guest) if host_first else (guest, self._host)
            events.append(GameStarted(tuple(zip(board.PLAYERS, seats))))
            return state._replace(phase=Phase.PLAYING, seats=seats)
        if kind == "claim" or (kind == "abort" and state.phase is not Phase.PLAYING):
            if state.phase is Phase.OFFERED:
                result = Result("withdrawn", by=message.signer, by_name=HOST, scored=False)
            else:
                role = HOST if kind == "claim" else GUEST
                result = Result("forfeit", HOST, self._host, message.signer, role)
            return state._replace(phase=Phase.OVER, result=result)
        assert state.seats is not None
        mine = state.turn if message.signer == state.seats[state.turn] else 1 - state.turn
        player, other = board.PLAYERS[mine], board.PLAYERS[1 - mine]
        if kind in REMARKS:
            remarks = state.remarks | {kind}
            if kind == "propose":
                events.append(EndProposed(player))
                return state._replace(proposal=mine, remarks=remarks)
            events.append(ProposalWithdrawn(player) if kind == "withdraw" else EndDeclined(player))
            return state._replace(proposal=None, remarks=remarks)
        if kind == "resign":
            result = Result("resigned", other, state.seats[1 - mine], message.signer, player)
        elif kind == "abort":
            result = Result("aborted", by=message.signer, by_name=player, scored=False)
        elif isinstance(board, OlixBoard):  # agree: scored as it stands
            result = self._ruled(board.copy().end(), state.seats, message.signer)
        else:  # agree: a draw
            result = Result("agreed", by=message.signer, by_name=player)
        return state._replace(phase=Phase.OVER, result=result, proposal=None)

    def _ruled(self, outcome: Outcome, seats: tuple[PublicKey, PublicKey], by: PublicKey | None) -> Result:
        board = self._board
        assert board is not None
        winner = outcome.winner
        key = seats[board.PLAYERS.index(winner)] if winner is not None else None
        by_name = self.player_of(by) if by is not None else None
        return Result(outcome.reason, winner, key, by, by_name, markers=self.kind == "olix" and outcome.reason != "formation")

    def _seat_guest(self, guest: PublicKey, events: list[Event]) -> None:
        """The guest is known: forget the other candidates and every waiting line no seated key signed."""
        self._joins = {key: join for key, join in self._joins.items() if key == guest}
        self._proofs = {key: proofs for key, proofs in self._proofs.items()
                        if key in (guest, self._host) or self._evident(key)}
        self._named = set()
        assert self._host is not None
        for waiting in self._waiting.drop_others((guest, self._host)):
            events.append(LineRejected("wrong-signer", f"{waiting.signer.fingerprint} is not a player here", waiting.line[:200]))
        for waiting in self._waiting.lines_of(guest):  # seen before the seat was known: into the guest's history now
            if waiting.type not in SIDE_LINES:
                self._equivocates(waiting, events)
        self._reclassify(events)

    # -- chat --------------------------------------------------------------------------
    def _chat(self, message: Message, events: list[Event]) -> list[str]:
        key = message.signer
        if self.role_of(key) is None:
            if self.guest is not None:
                raise RemoteProtocolError("wrong-signer", f"{key.fingerprint} is not a player here")
            if message.seq > MAX_CHAT_LINES:
                raise RemoteProtocolError("limit", f"at most {MAX_CHAT_LINES} chat lines a player")
            return self._keep(message, f"seat {key.text}")
        if message.seq > MAX_CHAT_LINES:
            raise RemoteProtocolError("limit", f"at most {MAX_CHAT_LINES} chat lines a player")
        earlier = self._seen.get((key.raw, message.slot))
        if earlier is not None and earlier.line != message.line:
            self._proof(earlier, message, events)
            return []
        if earlier is None:  # kept at first sight, placed or not: which proofs exist does not depend on the order
            self._seen[(key.raw, message.slot)] = message
        seq, head = self._chats.get(key, (0, self._chain[0].hash))
        if message.seq > seq + 1:
            return self._keep(message, message.prev)
        if message.seq <= seq:
            raise RemoteProtocolError("wrong-seat", f"chat {message.seq} of this key is already taken")
        if message.prev != head:
            raise RemoteProtocolError("broken-link", "prev= is not the hash of this key's previous chat")
        self._chats[key] = (message.seq, message.hash)
        self._seen[(key.raw, message.slot)] = message
        self._transcript.append(message.line)
        self._remember(message)
        events.append(LineApplied(message))
        events.append(ChatReceived(key, decode_text(message.value("text"))))
        return [message.hash]

    # -- confirmations ------------------------------------------------------------------
    def _confirm(self, message: Message, events: list[Event]) -> list[str]:
        """A player's confirmation of an ending: kept (it never changes the game), judged by :meth:`confirmation`."""
        key = message.signer
        if self.role_of(key) is None and not self._evident(key):
            if self.guest is not None:
                raise RemoteProtocolError("wrong-signer", f"{key.fingerprint} is not a player here")
            return self._keep(message, f"seat {key.text}")
        if message.seq > MAX_CONFIRMS:
            raise RemoteProtocolError("limit", f"at most {MAX_CONFIRMS} confirmations a player")
        if int(message.value("final")) >= MAX_CHAIN:
            raise RemoteProtocolError("limit", f"final={message.value('final')}: no game's main chain is that long")
        mine = self._confirms.setdefault(key, {})
        earlier = mine.get(message.seq)
        if earlier is not None:
            self._proof(earlier, message, events)  # a second, different confirmation numbered alike
            if message.hash < earlier.hash:  # which one is listed does not depend on which came first
                mine[message.seq] = message
                events.append(ConfirmationReceived(key))
            return []
        mine[message.seq] = message
        self._remember(message)
        events.append(LineApplied(message))
        events.append(ConfirmationReceived(key))
        return [message.hash]

    def confirm(self) -> Outgoing | None:
        """Sign the local player's confirmation of how the game ended, as this session sees it: the final line's
        hash and sequence number, and the result (``None`` when this player's latest confirmation says so already).

        Each confirmation is numbered (``seq``, from 1): an ending that changed later (a resignation sent while
        this player moved, a proof of equivocation) is confirmed again under the next number.
        """
        me = self._me()
        if self.role_of(me) is None:
            raise LocalProtocolError("only the players confirm a result")
        result = self._state.result
        if result is None or not self._chain:
            raise LocalProtocolError("the game is not over: there is no result to confirm")
        if self.confirmation(me) == CONFIRMED:
            return None
        number = max(self._confirms.get(me, {}), default=0) + 1
        if number > MAX_CONFIRMS:
            raise LocalProtocolError(f"at most {MAX_CONFIRMS} confirmations a player")
        head = self._chain[-1]
        fields = [("game", self.game_id or ""), ("seq", str(number)), ("prev", head.hash), ("final", str(head.seq)),
                  ("result", result.code())]
        return self._publish(encode("confirm", fields, self._identity()))

    # -- presence ----------------------------------------------------------------------
    def present(self, key: PublicKey) -> bool | None:
        """Whether ``key``'s client says it is connected (``None``: it has said nothing yet)."""
        latest = self._presence.get(key)
        return None if latest is None else latest[1]

    def _presence_line(self, message: Message, events: list[Event]) -> list[str]:
        """The latest presence line of each seated key counts: the higher ``seq``, and at one ``seq`` ``gone``.

        Presence never changes the game and is not part of the transcript; its lines are checked each
        time they come (never remembered, so a flood of them costs no memory).
        """
        key = message.signer
        if self.role_of(key) is None:
            if self.guest is not None:
                raise RemoteProtocolError("wrong-signer", f"{key.fingerprint} is not a player here")
            return self._keep(message, f"seat {key.text}")
        here = message.value("state") == "here"
        latest = self._presence.get(key)
        if latest is None or message.seq > latest[0] or (message.seq == latest[0] and latest[1] and not here):
            self._presence[key] = (message.seq, here)
            if latest is None or latest[1] != here:
                events.append(PresenceChanged(key, here))
        return []

    def presence(self, here: bool, seq: int) -> Outgoing:
        """A presence line of the local player's (``seq``: this client's connection count for the game, from 1).

        It may be signed before the player holds a seat (a guest's first connection, before it joins): receivers
        keep it until the seat is known, and refuse it if it never is.
        """
        self._me()
        if self.game_id is None:
            raise LocalProtocolError("no game yet: nothing to be present in")
        fields = [("game", self.game_id or ""), ("seq", str(seq)), ("state", "here" if here else "gone")]
        line = encode("presence", fields, self._identity())  # not applied here: a will is signed long before it is sent
        message = decode(line, verify=False)
        return Outgoing(line, message, topic_for(message), ())

    # -- what a receiver keeps ----------------------------------------------------------
    def _seated(self, key: PublicKey) -> bool:
        return key == self._host or key == self._state.guest or key in self._named

    def _keep(self, message: Message, token: str) -> list[str]:
        """Keep a line until what it waits for comes (``token``), within the limits; nothing to release."""
        self._waiting.keep(message, token)
        return []

    def _reclassify(self, events: list[Event]) -> None:
        """A seat became known: ask for the game again if lines were dropped meanwhile."""
        if self._waiting.seat_known():
            events.append(ResyncNeeded())

    # -- the local player's actions -------------------------------------------------------
    def _me(self) -> PublicKey:
        return self._identity().public

    def _identity(self) -> Identity:
        if self.identity is None:
            raise LocalProtocolError("a spectator session has no key to sign with")
        return self.identity

    def _draft(self, kind: str, extra: list[tuple[str, str]], guard: bool = True) -> tuple[Message, list[tuple[str, str]]]:
        """The main-chain (or chat) message the local player would sign now, judged as a receiver would."""
        me = self._me()
        if not self._chain:
            raise LocalProtocolError("no game yet: the offer has not arrived")
        if kind == "chat":
            if self.role_of(me) is None:
                raise LocalProtocolError("only the host and the guest can chat")
            seq, head = self._chats.get(me, (0, self._chain[0].hash))
            if seq >= MAX_CHAT_LINES:
                raise LocalProtocolError(f"at most {MAX_CHAT_LINES} chat lines a player")
            fields = [("game", self.game_id or ""), ("seq", str(seq + 1)), ("prev", head), *extra]
        else:
            fields = [("game", self.game_id or ""), ("seq", str(len(self._chain))), ("prev", self._chain[-1].hash), *extra]
        draft = Message.make(kind, tuple(fields), me, "draft")
        if kind != "chat":
            try:
                self._rank(draft, self._state, guard)
            except RemoteProtocolError as exc:
                raise LocalProtocolError(f"cannot {kind} now: {exc.detail}", reason=exc.detail) from None
        return draft, fields

    def _send(self, kind: str, extra: list[tuple[str, str]] | None = None) -> Outgoing:
        """Judge, sign and apply a local action; return what to publish."""
        retry = self._retry(kind, extra or [])
        if retry is not None:
            return retry
        _, fields = self._draft(kind, extra or [])
        return self._publish(encode(kind, fields, self._identity()))

    def _publish(self, line: str) -> Outgoing:
        """Apply a line the local player signed; its events (others' lines it unblocked or purged included).

        The line is judged like anyone's, but its signature is not checked again: we just made it.
        """
        message = decode(line, verify=False)
        conflicts = self._conflicts(message) if message.type not in SIDE_LINES else []
        if conflicts:  # another process of this key's signed it (the journal lock forbids that)
            raise LocalProtocolError(f"refusing to send: this key signed another line for seq {conflicts[0].seq} "
                                     f"already ({conflicts[0].type}), which this one cannot stand with")
        events = self._receive(message)
        if line not in self._known and line not in self._waiting:  # judged like anyone's line, and refused
            mine = line[:200]
            problem = next((e for e in events if isinstance(e, LineRejected) and e.line == mine
                            or isinstance(e, EquivocationDetected) and e.second == line), None)
            raise LocalProtocolError(f"refusing to send: {problem}")
        return Outgoing(line, message, topic_for(message), tuple(events))

    def _retry(self, kind: str, extra: list[tuple[str, str]]) -> Outgoing | None:
        """The same line again when the local player asks for what they just did (never a second, different line)."""
        if self.identity is None or kind == "chat":
            return None
        last = self._last.get(self.identity.public.raw)
        if last is None or last.type != kind or last.fields[3:] != tuple(extra):
            return None
        if last is self.head or last.type in FINAL or last.hash in self._superseded:
            return Outgoing(last.line, last, topic_for(last), ())
        return None

    @classmethod
    def offer(cls, kind: str, identity: Identity, *, invite: PublicKey | None = None, nonce: str | None = None,
              terms: str = DEFAULT_TERMS, at: int | None = None) -> tuple[GameSession, Outgoing]:
        """A new game hosted by ``identity``: the session, and its offer to publish (``at``: Unix seconds, now)."""
        fields = [("kind", kind), ("nonce", nonce or random_token()), ("terms", terms),
                  ("at", str(int(time.time()) if at is None else at))]
        if invite is not None:
            fields.append(("invite", invite.text))
        line = encode("offer", fields, identity)
        session = cls(None, identity)
        return session, session._publish(line)

    @classmethod
    def restore(cls, lines: Iterable[str], identity: Identity | None = None, *, game_id: str | None = None,
                secret: str | None = None) -> GameSession:
        """Rebuild a session from its journal (the lines it applied, in order), the guest's coin secret included."""
        session = cls(game_id, identity)
        session.receive_all(lines)
        if secret is not None:
            me = session._me()
            join = session._joins.get(me)
            if join is None and session.guest == me:
                join = session._chain[1]
            if join is None or join.value("commit") != commitment(secret):
                raise LocalProtocolError("the secret does not open this player's join")
            session._secret = secret
        return session

    @property
    def secret(self) -> str | None:
        """The guest's coin-flip secret, until revealed (keep it in the journal: :meth:`restore` needs it)."""
        return self._secret

    def join(self, secret: str | None = None) -> Outgoing:
        """Ask to take the guest's seat, committing to a secret coin-flip value (a retry sends the same join)."""
        me = self._me()
        if not self._chain:
            raise LocalProtocolError("cannot join before the offer has arrived")
        mine = self._joins.get(me) or (self._chain[1] if self.guest == me else None)
        if mine is not None:
            if secret is not None and commitment(secret) != mine.value("commit"):
                raise LocalProtocolError("this key has joined already, with another secret")
            return Outgoing(mine.line, mine, topic_for(mine), ())
        if self.phase is not Phase.OFFERED:
            why = f"the game is {self.phase.value}" + (f" ({self.result.text()})" if self.result else "")
            raise LocalProtocolError(f"cannot join: {why}", reason=why)
        if me == self._host:
            raise LocalProtocolError("the host cannot join their own game")
        if self.invite is not None and me != self.invite:
            raise LocalProtocolError("the game is for the invited key only")
        secret = secret or random_token()
        fields = [("game", self.game_id or ""), ("seq", "1"), ("prev", self._chain[0].hash),
                  ("terms", self.terms or ""), ("commit", commitment(secret))]
        self._secret = secret
        return self._publish(encode("join", fields, self._identity()))

    def accept(self, guest: PublicKey, salt: str | None = None) -> Outgoing:
        """Host: seat the guest whose join is ``guest``'s (a retry for the same guest sends the same accept)."""
        me = self._me()
        if len(self._chain) >= 3 and self._chain[2].signer == me and self._chain[2].type == "accept":
            accepted = self._chain[2]
            if accepted.peer != guest or (salt is not None and accepted.value("salt") != salt):
                raise LocalProtocolError("a guest is accepted already")
            return Outgoing(accepted.line, accepted, topic_for(accepted), ())
        join = self._joins.get(guest)
        if join is None:
            raise LocalProtocolError(f"no join from {guest.fingerprint} has arrived")
        fields = [("game", self.game_id or ""), ("seq", "2"), ("prev", join.hash), ("guest", guest.text),
                  ("salt", salt or random_token())]
        draft = Message.make("accept", tuple(fields), me, "draft")
        try:
            self._rank(draft, self._state)
        except RemoteProtocolError as exc:
            raise LocalProtocolError(f"cannot accept now: {exc.detail}", reason=exc.detail) from None
        return self._publish(encode("accept", fields, self._identity()))

    def reveal(self) -> Outgoing:
        """Guest: open the commitment; the coin is then decided."""
        if self._secret is None:
            raise LocalProtocolError("this session did not send the join, so it has no secret to reveal")
        return self._send("reveal", [("secret", self._secret)])

    def claim(self) -> Outgoing:
        """Host: end a game whose guest never revealed (the host wins by forfeit; a later reveal still stands)."""
        return self._send("claim")

    def move(self, text: str) -> Outgoing:
        """Sign a move (any letter case in; canonical text on the wire)."""
        if self._board is None:
            raise LocalProtocolError("no game yet")
        try:
            move = self._board.parse_move(text)
        except InvalidMoveError as exc:
            raise LocalProtocolError(str(exc)) from None
        return self._send("move", [("move", move.text())])

    def propose(self) -> Outgoing:
        """Propose to end the game (Olix: scored as it stands; Oxono: a draw); it stands until answered or withdrawn."""
        return self._send("propose")

    def withdraw(self) -> Outgoing:
        return self._send("withdraw")

    def decline(self) -> Outgoing:
        return self._send("decline")

    def agree(self) -> Outgoing:
        return self._send("agree")

    def resign(self) -> Outgoing:
        """Resign, on one's turn or not: the other player wins."""
        return self._send("resign")

    def abort(self) -> Outgoing:
        """End the game without a result: the host before seating anyone, a player before their first move.

        The guest, before revealing, walks away instead (the host wins by forfeit).
        """
        return self._send("abort")

    def chat(self, text: str) -> Outgoing:
        """Send a chat line (host or guest, any time); :class:`LocalProtocolError` for text chat may not hold."""
        try:
            problem = check_text(text)
            encoded = encode_text(text)
        except UnicodeEncodeError:
            problem = "it is not valid Unicode"
        if problem is not None:
            raise LocalProtocolError(f"cannot send that chat: {problem}", reason=problem)
        _, fields = self._draft("chat", [("text", encoded)])
        return self._publish(encode("chat", fields, self._identity()))


def _shown(data: bytes | str) -> str:
    return data[:200] if isinstance(data, str) else bytes(data[:200]).decode("utf-8", "replace")


def _text(line: bytes | str) -> str:
    return line if isinstance(line, str) else bytes(line).decode("utf-8", "replace")


def _rank_of_point(point: int | None) -> int:
    """Proofs with a lower point decide the game first; those with none (chat, confirmations) come last."""
    return MAX_CHAIN + 1 if point is None else point


def _where(point: int | None, slot: str) -> str:
    """What a proof proves: the point at which its signer loses, or for chat and confirmations the slot."""
    return slot if point is None else str(point)


def _point(a: Message, b: Message) -> tuple[int | None, bool]:
    """Where two lines of one key conflict (a sequence number: the one slot they share, or the final line's), and
    whether they are a final line and a later one; ``None`` for chat and confirmations, which never change the game.
    (Where the record stops for it is :meth:`GameSession._cut_point`.)"""
    if a.type in ("chat", "confirm") or b.type in ("chat", "confirm"):
        return None, False
    if a.slot == b.slot:
        return a.seq, False
    final = a if a.type in FINAL and a.seq < b.seq else b
    return final.seq, True


def verify_transcript(lines: Iterable[bytes | str]) -> tuple[GameSession, int | None, LineRejected | None]:
    """Replay a record strictly in order.

    Returns the session, and for the first line that does not apply at once,
    its 1-based number and why (``gap`` for a line that would have to wait,
    ``superseded`` for a line that sets aside one before it or is set aside).
    The lines of an equivocation proof of a seated key are part of a record
    (``GameSession.record``): they need not apply, and the session ends the
    game by the forfeit rule.
    """
    session = GameSession()
    problems: list[tuple[int, LineRejected, str]] = []
    read: set[str] = set()
    for number, line in enumerate(lines, 1):
        text = _text(line)
        again = text in read
        read.add(text)
        events = session.receive(line)
        shown = _shown(line)
        problem: LineRejected | None = None
        for event in events:
            if isinstance(event, LineRejected) and event.line == shown:
                problem = event
            elif isinstance(event, EquivocationDetected):
                problem = LineRejected("equivocation", f"{event.slot} signed twice", shown)
            elif isinstance(event, Superseded):
                problem = LineRejected("superseded", f"seq {event.message.seq} holds two players' lines", shown)
            if problem is not None:
                break
        if problem is None and (again or text not in session._known):
            if again:
                why = "duplicate line"
            elif " presence " in text[:30]:
                why = "a presence line is not part of a transcript"
            else:
                why = "it depends on a line that is not before it"
            problem = LineRejected("gap", why, shown)
        if problem is not None:
            problems.append((number, problem, text))
    proven = {line for proof in session.proofs if session.role_of(proof.key) is not None
              for line in (proof.first, proof.second)}
    for number, problem, text in problems:
        if text not in proven:
            return session, number, problem
    return session, None, None


def check_equivocation_proof(first: str, second: str) -> PublicKey | None:
    """Check a portable equivocation proof offline: the key that signed both lines, or ``None``.

    The proof holds when both lines are valid signed messages of one game by
    one key that cannot both be part of it: two different lines for one slot
    (sequence number, chat number or confirmation number), or a final line
    (``agree``, ``resign``, ``abort``) and a main-chain line of a later
    sequence number.
    """
    try:
        a, b = decode(first), decode(second)
    except RemoteProtocolError:
        return None
    if a.signer != b.signer or a.game != b.game or a.line == b.line or {"offer", "presence"} & {a.type, b.type}:
        return None
    if a.type not in SIDE_LINES and max(a.seq, b.seq) >= MAX_CHAIN:
        return None  # no receiver holds a line numbered beyond any game against its signer
    if a.slot == b.slot:
        return a.signer
    if {a.type, b.type} & {"chat", "confirm"}:
        return None
    early, late = (a, b) if a.seq < b.seq else (b, a)
    return a.signer if early.type in FINAL and early.seq < late.seq else None
