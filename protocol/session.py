"""One game's verified transcript, sans I/O: feed it lines, get events out.

A :class:`GameSession` may be fed lines in any order, any number of times,
from anyone. It ignores exact duplicates, keeps lines that arrive before
their parent until the parent comes, applies every line that verifies, and
answers every other with a :class:`LineRejected` event naming a code from
``protocol.errors.CODES``. It also signs the local player's own actions, and
refuses (:class:`LocalProtocolError`) to sign anything the game forbids.

The main chain is single-writer: at each sequence number exactly one seat
may send (the :meth:`GameSession.actor`), so order comes from the data, never
from arrival:

    seq 0  offer    host           the game's id is derived from this line
    seq 1  join     anyone (or the invited key); several candidates may ask
    seq 2  accept   host           names the guest, links to that guest's join
    seq 3  reveal   guest          opens the coin-flip commitment; seats are fixed
    seq 4… move | resign | abort (before the first move) | propose (Olix)
                    the player to move;  agree | decline  the player asked

``abort`` may also replace ``accept`` (the host withdraws, seq 1) or ``reveal``
(the guest backs out, seq 3). Chat lines form one side chain per seated key
and never change the game.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass
from typing import Iterable

from olixono.common import InvalidMoveError, Outcome
from olixono.games import new_board
from protocol.errors import CODES, LocalProtocolError, RemoteProtocolError
from protocol.keys import Identity, b64, random_token, unb64
from protocol.messages import Message, decode, decode_text, encode, encode_text, game_id_of

MAX_PENDING = 512
"""Lines kept while they wait for their predecessors; more are refused (``buffer-full``)."""

HOST, GUEST = "host", "guest"


# -- events -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class OfferReceived:
    game: str
    kind: str
    host: str
    invite: str | None


@dataclass(frozen=True, slots=True)
class JoinRequested:
    key: str


@dataclass(frozen=True, slots=True)
class GuestAccepted:
    key: str


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The coin flip is done: ``seats`` maps each player name to its key."""

    seats: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class MoveApplied:
    seq: int
    player: str
    move: str


@dataclass(frozen=True, slots=True)
class EndProposed:
    player: str


@dataclass(frozen=True, slots=True)
class EndDeclined:
    player: str


@dataclass(frozen=True, slots=True)
class ChatReceived:
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class GameOver:
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class LineRejected:
    code: str
    detail: str
    line: str

    @property
    def sentence(self) -> str:
        return f"{CODES[self.code]} ({self.detail})"


@dataclass(frozen=True, slots=True)
class EquivocationDetected:
    """``key`` signed both lines for one slot: the pair is a portable proof."""

    key: str
    slot: str
    first: str
    second: str


Event = (OfferReceived | JoinRequested | GuestAccepted | GameStarted | MoveApplied | EndProposed | EndDeclined
         | ChatReceived | GameOver | LineRejected | EquivocationDetected)


def commitment(secret: str) -> str:
    """The join's commitment to the guest's coin-flip secret."""
    return b64(hashlib.sha256(unb64(secret, 16)).digest())


def host_moves_first(secret: str, salt: str) -> bool:
    """The coin: the low bit of SHA-256(secret bytes ‖ salt bytes); 0 seats the host first."""
    return hashlib.sha256(unb64(secret, 16) + unb64(salt, 16)).digest()[0] & 1 == 0


@dataclass
class _Chat:
    seq: int = 0
    hash: str = ""


class GameSession:
    """The verified state of one game, as seen by a player (with ``identity``) or a spectator."""

    def __init__(self, game_id: str | None = None, identity: Identity | None = None) -> None:
        self.game_id = game_id
        self.identity = identity
        self.chain: list[Message] = []
        self.transcript: list[str] = []
        self.kind: str | None = None
        self.board = None
        self.host: bytes | None = None
        self.invite: bytes | None = None
        self.guest: bytes | None = None
        self.joins: dict[bytes, Message] = {}
        self.seats: dict[str, bytes] = {}
        self.proposal: str | None = None
        self.outcome: Outcome | None = None
        self.equivocations: list[EquivocationDetected] = []
        self.compromised_by: set[bytes] = set()
        self._seen: dict[tuple[bytes, str], Message] = {}
        self._pending: dict[str, list[Message]] = {}  # by the hash of the parent they wait for
        self._pending_chats: list[Message] = []
        self._pending_lines: set[str] = set()
        self._known: set[str | bytes] = set()  # every line applied (or joined), as text and as bytes
        self._chats: dict[bytes, _Chat] = {}
        self._secret: str | None = None
        self._checked_move = None  # the move the last check() parsed, for _apply()

    # -- the state, read-only ---------------------------------------------
    @property
    def started(self) -> bool:
        return bool(self.seats)

    @property
    def moves(self) -> int:
        return len(self.board.move_stack) if self.board is not None else 0

    @property
    def head(self) -> Message | None:
        return self.chain[-1] if self.chain else None

    def player_of(self, key: bytes) -> str | None:
        """The player name (``pink``, ``first``, …) seated with ``key``, if any."""
        for player, seated in self.seats.items():
            if seated == key:
                return player
        return None

    def role_of(self, key: bytes) -> str | None:
        """``host``, ``guest`` or ``None``."""
        if key == self.host:
            return HOST
        if key == self.guest:
            return GUEST
        return None

    def actor(self) -> bytes | None:
        """The key that may send the next main-chain message (``None``: anyone may join, or it is over)."""
        if self.outcome is not None or not self.chain:
            return None
        seq = len(self.chain)
        if seq == 1:
            return None
        if seq == 3:
            return self.guest
        if self.proposal is not None:
            return self.seats[self._other(self.proposal)]
        return self.seats[self.board.turn]

    def _other(self, player: str) -> str:
        a, b = self.board.PLAYERS
        return b if player == a else a

    # -- feeding lines ----------------------------------------------------
    def receive(self, data: bytes | str) -> list[Event]:
        """Check one line and apply it if it verifies, then anything it unblocks."""
        if isinstance(data, (str, bytes)) and data in self._known:  # QoS 1 repeats and one's own lines echoed back: no need to verify again
            return []
        try:
            message = decode(data)
        except RemoteProtocolError as exc:
            shown = data[:200] if isinstance(data, str) else bytes(data[:200]).decode("utf-8", "replace")
            return [LineRejected(exc.code, exc.detail, shown)]
        events: list[Event] = []
        work = deque([message])  # first in, first out: lines waiting for one parent go in arrival order
        while work:
            message = work.popleft()
            try:
                applied = self._process(message, events)
            except RemoteProtocolError as exc:
                events.append(LineRejected(exc.code, exc.detail, message.line[:200]))
                continue
            if applied:
                work.extend(self._unpend(self._pending.pop(message.hash, [])))
                work.extend(self._release_chats())
        return events

    def receive_all(self, lines: Iterable[bytes | str]) -> list[Event]:
        events: list[Event] = []
        for line in lines:
            events.extend(self.receive(line))
        return events

    def _process(self, message: Message, events: list[Event]) -> bool:
        """Apply ``message`` if it verifies; ``False`` if it was a duplicate or is kept for later."""
        if message.type == "offer":
            return self._offer(message, events)
        if self.game_id is not None and message.game != self.game_id:
            raise RemoteProtocolError("wrong-game", f"for game {message.game}, not {self.game_id}")
        slot = f"chat-{message.seq}" if message.type == "chat" else str(message.seq)
        earlier = self._seen.get((message.by, slot))
        if earlier is not None:
            if earlier.line == message.line:
                return False
            self._equivocation(earlier, message, slot, events)
            return False
        if not self.chain:
            return self._keep(message, "the offer has not arrived")
        if message.type == "chat":
            return self._chat(message, events)
        expected = len(self.chain)
        if message.type == "join":
            return self._join(message, events)
        if message.seq < expected:
            if self.outcome is not None:
                raise RemoteProtocolError("after-end", f"seq {message.seq} is taken and the game is over")
            raise RemoteProtocolError("wrong-seat", f"seq {message.seq} is already taken by another signer")
        if message.type == "accept" and expected == 1 and message.seq == 2:
            if not any(j.hash == message.prev for j in self.joins.values()):
                return self._keep(message, "the join it accepts has not arrived")
        elif message.seq > expected:
            return self._keep(message, f"seq {message.seq} while the game is at seq {expected}")
        self.check(message)
        self._apply(message, events)
        return True

    def _keep(self, message: Message, why: str) -> bool:
        if self.seats and self.role_of(message.by) is None:
            raise RemoteProtocolError("wrong-signer", f"{message.signer.fingerprint} is not a player here")
        if message.line in self._pending_lines:
            return False
        if len(self._pending_lines) >= MAX_PENDING:
            raise RemoteProtocolError("buffer-full", why)
        self._pending_lines.add(message.line)
        if message.type == "chat":
            self._pending_chats.append(message)
        else:  # several lines may claim one parent: all are judged when it comes
            self._pending.setdefault(message.prev, []).append(message)
        return False

    def _unpend(self, messages: list[Message]) -> list[Message]:
        for message in messages:
            self._pending_lines.discard(message.line)
        return messages

    def _equivocation(self, first: Message, second: Message, slot: str, events: list[Event]) -> None:
        proof = EquivocationDetected(first.signer.text, slot, first.line, second.line)
        self.equivocations.append(proof)
        self.compromised_by.add(first.by)
        events.append(proof)

    # -- the checks ---------------------------------------------------------
    def check(self, message: Message) -> None:
        """Raise :class:`RemoteProtocolError` unless ``message`` may extend the main chain now.

        ``message.seq`` is the next sequence number (or 2 for an ``accept``).
        Checks the seat, the hash link, and what the type needs (the
        commitment, the move's legality, the phase).
        """
        seq, kind = message.seq, message.type
        if self.outcome is not None:
            raise RemoteProtocolError("after-end", f"the game ended ({self.outcome.text()})")
        if seq == 1:
            if kind != "abort":
                raise RemoteProtocolError("wrong-seat", f"{kind} cannot answer an offer")
            self._check_signer(message, self.host, "only the host can withdraw the offer")
            self._check_link(message, self.chain[0])
            return
        if seq == 2:
            if kind != "accept":
                raise RemoteProtocolError("wrong-seat", f"{kind} cannot come at seq 2")
            self._check_signer(message, self.host, "only the host accepts a guest")
            join = next((j for j in self.joins.values() if j.hash == message.prev), None)
            if join is None:
                raise RemoteProtocolError("broken-link", "prev= names no join of this game")
            if unb64(message.get("guest"), 32) != join.by:
                raise RemoteProtocolError("bad-field", "guest= is not the key that signed the join")
            return
        actor = self.actor()
        if message.by != actor:
            if self.role_of(message.by) is None:
                raise RemoteProtocolError("wrong-signer", f"{message.signer.fingerprint} is not a player here")
            raise RemoteProtocolError("wrong-seat", f"it is not {message.signer.fingerprint}'s turn to send")
        self._check_link(message, self.chain[-1])
        if seq == 3:
            if kind == "reveal":
                if commitment(message.get("secret")) != self.chain[1].get("commit"):
                    raise RemoteProtocolError("bad-reveal", "SHA-256 of secret= is not the join's commit=")
            elif kind != "abort":
                raise RemoteProtocolError("wrong-seat", f"the guest must reveal or abort, not {kind}")
            return
        if self.proposal is not None:
            if kind not in ("agree", "decline", "resign"):
                raise RemoteProtocolError("wrong-seat", f"an end was proposed: agree, decline or resign, not {kind}")
            return
        if kind == "move":
            self._check_move(message.get("move"))
        elif kind == "abort":
            if self.moves:
                raise RemoteProtocolError("wrong-seat", "abort is allowed only before the first move")
        elif kind == "propose":
            if self.kind != "olix":
                raise RemoteProtocolError("wrong-seat", "only Olix games end by agreement")
            last = self.chain[-1]
            if last.type == "decline":
                raise RemoteProtocolError("wrong-seat", "after a declined proposal, move first")
        elif kind in ("agree", "decline"):
            raise RemoteProtocolError("wrong-seat", f"{kind} answers a proposal, and none is open")
        elif kind != "resign":
            raise RemoteProtocolError("wrong-seat", f"{kind} is not allowed during the game")

    def _check_signer(self, message: Message, key: bytes | None, why: str) -> None:
        if message.by != key:
            code = "wrong-seat" if self.role_of(message.by) else "wrong-signer"
            raise RemoteProtocolError(code, why)

    @staticmethod
    def _check_link(message: Message, parent: Message) -> None:
        if message.prev != parent.hash:
            raise RemoteProtocolError("broken-link", f"prev= is not the hash of seq {parent.seq}")

    def _check_move(self, text: str) -> None:
        """Raise unless ``text`` is a legal move in canonical text; keep the parsed move for ``_apply``."""
        try:
            move = self.board.parse_move(text)
        except InvalidMoveError as exc:
            raise RemoteProtocolError("illegal-move", str(exc)) from None
        if move.text() != text:
            raise RemoteProtocolError("non-canonical", f"move={text} is written {move.text()}")
        reason = self.board.why_illegal(move)
        if reason is not None:
            raise RemoteProtocolError("illegal-move", f"{text}: {reason}")
        self._checked_move = move

    # -- applying -----------------------------------------------------------
    def _record(self, message: Message) -> None:
        slot = f"chat-{message.seq}" if message.type == "chat" else str(message.seq)
        self._seen[(message.by, slot)] = message
        self.transcript.append(message.line)
        self._remember(message)

    def _remember(self, message: Message) -> None:
        """Note an applied line in both forms ``receive`` may be given, to skip its repeats cheaply."""
        self._known.add(message.line)
        self._known.add(message.line.encode("utf-8"))

    def _offer(self, message: Message, events: list[Event]) -> bool:
        game = game_id_of(message.line)
        if self.chain:
            if self.chain[0].line == message.line:
                return False
            raise RemoteProtocolError("wrong-game", f"an offer of game {game}, not {self.game_id}")
        if self.game_id is not None and game != self.game_id:
            raise RemoteProtocolError("wrong-game", f"an offer of game {game}, not {self.game_id}")
        self.game_id = game
        self.kind = message.get("kind")
        self.board = new_board(self.kind)
        self.host = message.by
        invite = message.get("invite")
        self.invite = unb64(invite, 32) if invite else None
        self.chain.append(message)
        self._record(message)
        events.append(OfferReceived(game, self.kind, message.signer.text, invite))
        for parent, waiting in list(self._pending.items()):  # lines that came first: judge them now
            for other in [m for m in waiting if m.game != game]:
                waiting.remove(other)
                self._pending_lines.discard(other.line)
                events.append(LineRejected("wrong-game", f"for game {other.game}", other.line[:200]))
            if not waiting:
                del self._pending[parent]
        for other in [m for m in self._pending_chats if m.game != game]:
            self._pending_chats.remove(other)
            self._pending_lines.discard(other.line)
            events.append(LineRejected("wrong-game", f"for game {other.game}", other.line[:200]))
        return True

    def _join(self, message: Message, events: list[Event]) -> bool:
        if message.seq != 1:
            raise RemoteProtocolError("wrong-seat", "a join is always seq 1")
        self._check_link(message, self.chain[0])
        if self.outcome is not None:
            raise RemoteProtocolError("after-end", f"the game ended ({self.outcome.text()})")
        if len(self.chain) > 1:
            raise RemoteProtocolError("wrong-seat", "the game already has its guest")
        if message.by == self.host:
            raise RemoteProtocolError("wrong-seat", "the host cannot join their own game")
        if self.invite is not None and message.by != self.invite:
            raise RemoteProtocolError("wrong-signer", "the game is for the invited key only")
        self.joins[message.by] = message
        self._seen[(message.by, "1")] = message
        self._remember(message)
        events.append(JoinRequested(message.signer.text))
        return True

    def _apply(self, message: Message, events: list[Event]) -> None:
        kind = message.type
        if kind == "accept":
            join = next(j for j in self.joins.values() if j.hash == message.prev)
            self.guest = join.by
            self.chain.append(join)
            self.transcript.append(join.line)
            events.append(GuestAccepted(join.signer.text))
        self.chain.append(message)
        self._record(message)
        if kind == "reveal":
            first, second = self.board.PLAYERS
            host_first = host_moves_first(message.get("secret"), self.chain[2].get("salt"))
            self.seats = {first: self.host, second: self.guest} if host_first else {first: self.guest, second: self.host}
            events.append(GameStarted(tuple((p, b64(k)) for p, k in self.seats.items())))
        elif kind == "move":
            player = self.board.turn
            self.board.push(self._checked_move)
            events.append(MoveApplied(message.seq, player, message.get("move")))
            self._finish(self.board.outcome(), events)
        elif kind == "abort":
            self._finish(Outcome(None, "aborted"), events)
        elif kind == "resign":
            loser = self.player_of(message.by)
            self.proposal = None
            self._finish(Outcome(self._other(loser), "resigned"), events)
        elif kind == "propose":
            self.proposal = self.player_of(message.by)
            events.append(EndProposed(self.proposal))
        elif kind == "decline":
            self.proposal = None
            events.append(EndDeclined(self.player_of(message.by)))
        elif kind == "agree":
            self.proposal = None
            self._finish(self.board.end(), events)

    def _finish(self, outcome: Outcome | None, events: list[Event]) -> None:
        if outcome is not None and self.outcome is None:
            self.outcome = outcome
            events.append(GameOver(outcome))

    def _chat(self, message: Message, events: list[Event]) -> bool:
        if self.role_of(message.by) is None:
            if self.guest is None and message.by != self.host:
                return self._keep(message, "the chat's signer may yet be accepted as the guest")
            raise RemoteProtocolError("wrong-signer", f"{message.signer.fingerprint} is not a player here")
        head = self._chats.setdefault(message.by, _Chat(0, self.chain[0].hash))
        if message.seq > head.seq + 1:
            return self._keep(message, f"chat {message.seq} before chat {head.seq + 1}")
        if message.seq <= head.seq:
            raise RemoteProtocolError("wrong-seat", f"chat {message.seq} of this key is already taken")
        if message.prev != head.hash:
            raise RemoteProtocolError("broken-link", "prev= is not the hash of this key's previous chat")
        head.seq, head.hash = message.seq, message.hash
        self._record(message)
        events.append(ChatReceived(message.signer.text, decode_text(message.get("text"))))
        return True

    def _release_chats(self) -> list[Message]:
        """Waiting chats whose turn may have come (their signer is now known, or their parent arrived)."""
        ready = []
        for waiting in list(self._pending_chats):
            head = self._chats.get(waiting.by)
            known = self.role_of(waiting.by) is not None or self.guest is not None
            if known and (head is None and waiting.seq == 1 or head is not None and waiting.seq == head.seq + 1):
                self._pending_chats.remove(waiting)
                ready.extend(self._unpend([waiting]))
        return ready

    # -- the local player's actions ----------------------------------------
    def _sign(self, kind: str, fields: list[tuple[str, str]]) -> str:
        """Check the action as a receiver would, sign it, apply it, and return the line."""
        if self.identity is None:
            raise LocalProtocolError("a spectator session has no key to sign with")
        line = encode(kind, fields, self.identity)
        message = decode(line, verify=False)
        if kind not in ("join", "chat", "offer"):
            try:
                self.check(message)
            except RemoteProtocolError as exc:
                raise LocalProtocolError(f"refusing to sign {kind}: {exc.detail}") from None
        events = self.receive(line)
        rejected = [e for e in events if isinstance(e, LineRejected)]
        if rejected:
            raise LocalProtocolError(f"refusing to send {kind}: {rejected[0].sentence}")
        return line

    def _next(self) -> list[tuple[str, str]]:
        """The chain fields of the next main-chain message."""
        if self.identity is None:
            raise LocalProtocolError("a spectator session has no key to sign with")
        if not self.chain:
            raise LocalProtocolError("no game yet: the offer has not arrived")
        return [("game", self.game_id), ("seq", str(len(self.chain))), ("prev", self.chain[-1].hash)]

    @classmethod
    def offer(cls, kind: str, identity: Identity, invite: str | None = None, nonce: str | None = None) -> GameSession:
        """A new game hosted by ``identity``; its first transcript line is the offer."""
        fields = [("kind", kind), ("nonce", nonce or random_token())]
        if invite:
            fields.append(("invite", invite))
        line = encode("offer", fields, identity)
        session = cls(game_id_of(line), identity)
        session.receive(line)
        return session

    def join(self, secret: str | None = None) -> str:
        """Ask to take the guest's seat, committing to a secret coin-flip value."""
        if not self.chain:
            raise LocalProtocolError("cannot join before the offer has arrived")
        self._secret = secret or random_token()
        fields = [("game", self.game_id), ("seq", "1"), ("prev", self.chain[0].hash), ("commit", commitment(self._secret))]
        return self._sign("join", fields)

    def accept(self, guest: str, salt: str | None = None) -> str:
        """Host: seat the guest whose key is ``guest`` (base64url)."""
        join = self.joins.get(unb64(guest, 32)) if len(guest) == 43 else None
        if join is None:
            raise LocalProtocolError(f"no join from {guest[:43]!r} has arrived")
        fields = [("game", self.game_id), ("seq", "2"), ("prev", join.hash), ("guest", guest), ("salt", salt or random_token())]
        return self._sign("accept", fields)

    def reveal(self) -> str:
        """Guest: open the commitment; the coin is then decided."""
        if self._secret is None:
            raise LocalProtocolError("this session did not send the join, so it has no secret to reveal")
        return self._sign("reveal", [*self._next(), ("secret", self._secret)])

    def move(self, text: str) -> str:
        """Sign a move (any letter case in; canonical text on the wire)."""
        if self.board is None:
            raise LocalProtocolError("no game yet")
        try:
            move = self.board.parse_move(text)
        except InvalidMoveError as exc:
            raise LocalProtocolError(str(exc)) from None
        return self._sign("move", [*self._next(), ("move", move.text())])

    def resign(self) -> str:
        return self._sign("resign", self._next())

    def abort(self) -> str:
        return self._sign("abort", self._next())

    def propose_end(self) -> str:
        return self._sign("propose", self._next())

    def agree_end(self) -> str:
        return self._sign("agree", self._next())

    def decline_end(self) -> str:
        return self._sign("decline", self._next())

    def chat(self, text: str) -> str:
        if self.identity is None or self.role_of(self.identity.public.raw) is None:
            raise LocalProtocolError("only the host and the guest can chat")
        head = self._chats.get(self.identity.public.raw) or _Chat(0, self.chain[0].hash)
        fields = [("game", self.game_id), ("seq", str(head.seq + 1)), ("prev", head.hash), ("text", encode_text(text))]
        return self._sign("chat", fields)


def verify_transcript(lines: Iterable[str]) -> tuple[GameSession, int | None, LineRejected | None]:
    """Replay a transcript strictly in order.

    Returns the session, and for the first line that does not apply at once,
    its 1-based number and why (``gap`` for a line that would have to wait).
    """
    session = GameSession()
    for number, line in enumerate(lines, 1):
        before = len(session.transcript)
        events = session.receive(line)
        problem = next((e for e in events if isinstance(e, (LineRejected, EquivocationDetected))), None)
        if isinstance(problem, EquivocationDetected):
            return session, number, LineRejected("equivocation", f"{problem.slot} signed twice", line[:200])
        if problem is not None:
            return session, number, problem
        joined = any(isinstance(e, JoinRequested) for e in events)
        if len(session.transcript) == before and not joined:
            why = "duplicate line" if line in session.transcript else "it depends on a line that is not before it"
            return session, number, LineRejected("gap", why, line[:200])
    return session, None, None


def check_equivocation_proof(first: str, second: str) -> str | None:
    """Check a portable equivocation proof offline: the key that signed both lines, or ``None``.

    The proof holds when both lines are valid signed messages of one game by
    one key, for one slot (sequence number, or chat number), and differ.
    """
    try:
        a, b = decode(first), decode(second)
    except RemoteProtocolError:
        return None
    same_slot = (a.type == "chat") == (b.type == "chat") and a.seq == b.seq
    if a.line != b.line and a.by == b.by and a.game == b.game and a.type != "offer" and same_slot:
        return a.signer.text
    return None
