"""One game's verified record, sans I/O, as any receiver keeps it: feed it lines, get events out.

A :class:`Receiver` may be fed lines in any order, any number of times, from
anyone. It ignores exact duplicates, keeps (within bounds) lines that arrive
before their parent, applies every line that verifies, and answers every
other with a :class:`~protocol.events.LineRejected` naming a code from
``protocol.errors.CODES``. Who may send what is the table of
:mod:`protocol.rules`; each message type's transition is :data:`TRANSITIONS`.

A seated key that signs two lines which cannot both stand (two lines for one
slot, or a final line and a later one) loses the game at that point, the same
for every receiver whatever the order of arrival: the record stops before the
point and the result is a forfeit (``equivocation``). Players confirm how a
game ended with ``confirm`` lines, which never change the game.

What is kept beside the chain has an owner each, with its own state (h11's
manner), which the receiver holds together and asks: :mod:`protocol.seating`
(joins, the host's accepts, the canonical seat), :mod:`protocol.evidence` (what
each key signed, the proofs, the forfeit point) and :mod:`protocol.claims` (a
timed game's receipts and flag claims, the answers they time, a timeout's
verdict). The receiver keeps the chain, its races and the forfeit, and the
arrival-order loop that releases waiting lines.

The local player's side (signing) is :class:`protocol.session.GameSession`, a
receiver that also signs; whole records are checked by :mod:`protocol.transcript`.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from olixono.common import Board, EndReason, GameKind, InvalidMoveError, MoveLike, Outcome
from olixono.games import new_board
from protocol.claims import ANSWERS, Claims
from protocol.clock import LAG_MOST_MS, SLACK_MS, Answer, TimeControl, TimeUsed, answer_window, claim_after, time_used
from protocol.domain import Code, MessageType, Presence, ResultReason
from protocol.errors import RemoteProtocolError
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
    PresenceChanged,
    ProposalWithdrawn,
    RematchAsked,
    Result,
    ResyncNeeded,
    Superseded,
    TakebackAsked,
)
from protocol.evidence import Evidence, ForfeitPoint
from protocol.keys import Identity, PublicKey
from protocol.messages import VERSION, Message, consents, decode, line_hash
from protocol.rules import (
    CONFIRMED,
    DISPUTED,
    GUEST,
    HOST,
    MAX_CHAIN,
    MAX_JOINS,
    MAX_SUPERSEDED,
    REMARKS,
    RULES,
    SIDE_LINES,
    UNSEEN,
    Phase,
    Rank,
    Sender,
    State,
    begins_turn,
    check_terms,
    clocked,
    commitment,
    first_move_free,
    host_moves_first,
    refused_on_sight,
    witnesses_of,
)
from protocol.seating import Seated, Seating
from protocol.waiting import WaitingRoom
from protocol.witness import Witnesses


class Receiver:
    """The verified state of one game, as any receiver keeps it: a player's (with ``identity``; its signing is
    :class:`protocol.session.GameSession`'s) or a spectator's.

    Read-only views for front ends: :attr:`phase`, :attr:`board` (a copy),
    :attr:`chain`, :attr:`transcript`, :attr:`seats`, :attr:`host`,
    :attr:`guest`, :attr:`joins`, :attr:`actor`, :attr:`proposal`, :attr:`result`,
    :attr:`proofs`, :attr:`compromised_by`.
    """

    def __init__(self, game_id: str | None = None, identity: Identity | None = None) -> None:
        self.game_id = game_id
        self.identity = identity
        self.kind: GameKind | None = None
        self.terms: str | None = None
        self.invite: PublicKey | None = None
        self._host: PublicKey | None = None
        self._board: Board[Any] | None = None
        self._state = State(Phase.WAITING)
        self._chain: list[Message] = []
        self._before: list[State] = []  # the state before each chain line, to judge races and roll back
        self._transcript: list[str] = []
        # the owners of what is kept beside the chain, each with its own state (h11's manner): who may sit where,
        # what each key signed and the proofs, the receipts and claims on time
        self._seating = Seating()
        self._evidence = Evidence()
        self._claims = Claims()
        self._witnesses = Witnesses()
        self._void: dict[str, Message] = {}  # claimants' timeouts the witnesses void (early, or after the answer)
        self._superseded: dict[str, Message] = {}
        self._chats: dict[PublicKey, tuple[int, str]] = {}  # each seated key's chat head: (seq, hash)
        self._rematches: dict[
            PublicKey, Message
        ] = {}  # each player's rematch line (one a player), once the game is over
        self._takebacks: dict[PublicKey, Message] = {}  # each player's latest takeback line, by the head it names
        # the moves each undo on the chain took back, by its hash, last first
        self._undone: dict[str, list[MoveLike]] = {}
        self._presence: dict[PublicKey, tuple[int, bool]] = {}  # each seated key's latest presence: (seq, here)
        self._relay_runners: set[PublicKey] = (
            set()
        )  # the seated keys that said a relay of the game runs in their program
        self._confirms: dict[PublicKey, dict[int, Message]] = {}  # each seated key's confirmations, by number
        self._forfeited_at: int | None = None  # where the forfeit the state holds cut the record, if any
        self._released: list[str] = []  # tokens to release besides those a judged line gives (a seat made elsewhere)
        self._again: list[
            Message
        ] = []  # refused lines to judge again (early claims, once the claimant's receipts grow)
        self._forfeit_base = self._state  # the state before that forfeit
        self._known: set[str] = set()  # every line applied, joined or set aside
        self._waiting = WaitingRoom(self._seated)
        self._secret: str | None = None

    @property
    def clock(self) -> TimeControl | None:
        """The game's time control, from its offer's terms (``None``: untimed)."""
        return self._claims.clock

    @property
    def first_move_ms(self) -> int | None:
        """While the player to move has yet to make its first move, off its clock (``rules:2``, a timed game): the time
        that move has (:attr:`protocol.clock.TimeControl.first_move_ms`); ``None`` otherwise (its clock runs)."""
        clock = self.clock
        if clock is None or self._state.phase is not Phase.PLAYING or not self._free_first(self._state):
            return None
        return clock.first_move_ms

    def _free_first(self, state: State) -> bool:
        """Whether the player to move in ``state`` is on its first move and that move is off its clock (``rules:2``, a
        timed game: each player's clock starts with its first move, ``PROTOCOL.md`` §3). Plies alternate, so the
        first two moves are each player's first."""
        return self._claims.first_free and state.clocks is not None and state.moves < 2

    def _turn_clock(self, state: State) -> int:
        """The clock of the player to move in ``state`` as the record has it (0 in an untimed game); on a first move
        off the clock, the time a first move has."""
        if self._free_first(state):
            assert self.clock is not None
            return self.clock.first_move_ms
        return _remaining(state)

    def _charged(self, moves: int) -> bool:
        """Whether the move numbered ``moves`` (from 0, in the order played) was on its mover's clock: its thinking,
        and what the receipts or witnesses leave unexplained of it, count against that clock (not a first move off
        the clock, ``rules:2``)."""
        return not (self._claims.first_free and moves < 2)

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
        """The verified lines in the order they were applied (chat included), each chain line followed by the players'
        receipts of it and flag claims against the turn it began (the host's, then the guest's: a claimant's timeout
        comes after its claim, and a claim after the receipts that show the other's clock), then the players'
        confirmations (the host's, then the guest's, each by number: they never change the game, so every receiver
        lists them alike): what ``olixono verify`` checks."""
        confirms = [
            self._confirms[key][n].line
            for key in (self._host, self._state.guest)
            if key is not None and key in self._confirms
            for n in sorted(self._confirms[key])
        ]
        beside: dict[int, list[str]] = {}
        for kept in (self._claims.receipts_of, self._claims.flags_of):
            for key in self._seated_keys():
                for seq, line in sorted(kept(key, self._chain).items()):
                    beside.setdefault(seq, []).append(line.line)
        if not beside:
            return (*self._transcript, *confirms)
        placed = {message.line: message.seq for message in self._chain}
        lines: list[str] = []
        for text in self._transcript:
            lines.append(text)
            at = placed.get(text)
            if at is not None:
                lines.extend(beside.get(at, ()))
        return (*lines, *confirms)

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
        return self._seating.candidates

    @property
    def seats(self) -> dict[str, PublicKey]:
        """Each player name's key, once the coin flip is done (empty before)."""
        if self._state.seats is None or self._board is None:
            return {}
        return dict(zip(self._board.PLAYERS, self._state.seats, strict=False))

    @property
    def started(self) -> bool:
        return self._state.seats is not None

    @property
    def clocks(self) -> dict[str, int] | None:
        """A timed game's clocks once the seats are drawn: each player's time left, in ms, as the record has it (the
        clock of the player to move runs from there)."""
        clocks, board = self._state.clocks, self._board
        if clocks is None or board is None:
            return None
        return dict(zip(board.PLAYERS, clocks, strict=False))

    @property
    def moves(self) -> int:
        """The turns played: every move, and every undo of one move (which ends its signer's turn as a move does,
        ``PROTOCOL.md`` §3, "A takeback"); the board's moves are :meth:`standing`'s."""
        return self._state.moves

    def standing(self, before: int | None = None) -> list[Message]:
        """The moves on the board after the chain's lines before seq ``before`` (``None``: all, the board now), in the
        order played: every move but those an undo took back."""
        moves: list[Message] = []
        for line in self._chain[:before]:
            if line.type is MessageType.MOVE:
                moves.append(line)
            elif line.type is MessageType.UNDO:
                del moves[len(moves) - line.plies :]
        return moves

    # -- receipts and claims (:mod:`protocol.claims`) --------------------------------------------
    def _receipts_of(self, key: PublicKey) -> dict[int, Message]:
        """``key``'s receipts of lines that are on the chain as it stands."""
        return self._claims.receipts_of(key, self._chain)

    def flag_of(self, key: PublicKey) -> Message | None:
        """``key``'s flag claim against the turn now being played (the player to move's, unanswered), if any."""
        began = self._turn_began(len(self._chain))
        if self._state.phase is not Phase.PLAYING or began is None:
            return None
        return self._claims.flags_of(key, self._chain).get(began.seq)

    def claims(self) -> list[tuple[Message, str]]:
        """Every flag claim on the record, in the order of the turns claimed, and how it stands: ``answered`` (the
        player to move moved), ``conceded``, ``closed`` (the claimant's timeout ended the game), ``ended`` (the game
        ended otherwise in that turn) or ``open``."""
        return self._claims.statuses(self._chain, self._seated_keys())

    def _seated_keys(self) -> tuple[PublicKey, ...]:
        """The host and the guest, as far as they are known."""
        return tuple(key for key in (self._host, self._state.guest) if key is not None)

    @property
    def answerable(self) -> Message | None:
        """The other player's timeout that ended the game on this receiver's own turn (its identity's), while this
        player has signed nothing for that slot: a move in time may still answer it (set aside, it makes the ending a
        time dispute, :meth:`protocol.claims.Claims.verdict`)."""
        head = self._chain[-1] if self._chain else None
        me = self.identity.public if self.identity is not None else None
        if me is None or head is None or head.type is not MessageType.TIMEOUT or head.now is None or head.signer == me:
            return None
        if self._actor(self._before[head.seq]) != me or self._evidence.signed(me, head.slot):
            return None
        return head

    @property
    def late_move(self) -> Message | None:
        """The other player's move, at the head, that came after this receiver's own flag claim against its turn (its
        identity's), while this player has signed nothing for its place nor confirmed the ending it made: the claimant
        may close its claim's window over it all the same, a timeout in its place that sets it aside (a time dispute,
        never a win: :meth:`protocol.claims.Claims.verdict`)."""
        late = self._late()
        return late[0] if late is not None else None

    def late_flag(self) -> Message | None:
        """This receiver's own flag claim that :attr:`late_move` came after, if any."""
        late = self._late()
        return late[1] if late is not None else None

    def _late(self) -> tuple[Message, Message] | None:
        """:attr:`late_move` and the flag claim it came after."""
        head = self._chain[-1] if self._chain else None
        me = self.identity.public if self.identity is not None else None
        if (
            me is None
            or head is None
            or not clocked(head)
            or head.signer == me
            or self._forfeited_at is not None
            or self._evidence.signed(me, head.slot)
        ):
            return None
        if MessageType.CONFIRM in self._evidence.said(me, head.seq):
            return None
        began = self._turn_began(head.seq)
        flag = self._claims.flags_of(me, self._chain).get(began.seq) if began is not None else None
        return (head, flag) if flag is not None else None

    def _turn_began(self, seq: int) -> Message | None:
        """The line that began the turn in which the line at ``seq`` is sent: the last move or reveal before it."""
        for line in reversed(self._chain[:seq]):
            if begins_turn(line):
                return line
        return None

    def claim_remaining(self) -> int | None:
        """While the game is played: the clock of the player to move as a claim against this turn is judged (ms, at
        the turn's start; :meth:`_claim_remaining`), and in a game with time witnesses as they time it too
        (:meth:`_witnessed_remaining`), whichever is more (a claim must hold by both); ``None`` otherwise."""
        began = self._turn_began(len(self._chain))
        if self._state.phase is not Phase.PLAYING or began is None:
            return None
        remaining = self._claim_remaining(self._state, began.seq)
        if self._witnesses.keys:
            remaining = max(remaining, self._witnessed_remaining(self._state, began.seq))
        return remaining

    def _claim_remaining(self, state: State, began: int) -> int:
        """The clock of the player to move in ``state`` (whose turn the line at ``began`` began) as a claim against it
        is judged (``PROTOCOL.md`` §3, flag claims): in a live game, what the record says less the thinking its moves
        before left unexplained by the claimant's receipts (the claimant's own watch of that clock, whatever its
        ``think`` said); else the record's."""
        remaining = self._turn_clock(state)
        if self.clock is None or self.clock.days or state.seats is None or self._board is None:
            return remaining
        player = self._board.PLAYERS[state.turn]
        moves = [line.seq for line in self._chain if clocked(line)]
        unexplained = sum(
            answer.unexplained or 0
            for ply, (seq, answer) in enumerate(zip(moves, self.answers(), strict=False))
            if seq < began + 1 and answer.player == player and self._charged(ply)
        )
        return max(0, remaining - unexplained)

    def answers(self) -> list[Answer]:
        """Every move of a timed game as the receipts show it (:class:`protocol.clock.Answer`), in order; empty for an
        untimed game. The same for every receiver with the same lines."""
        if self.clock is None or self._state.seats is None or self._host is None or self._state.guest is None:
            return []
        return self._claims.answers(
            self._chain, (self._host, self._state.guest), self.player_of, self._evidence.doubled
        )

    def time_used(self) -> dict[str, TimeUsed]:
        """Each player's thinking and unexplained time so far (:func:`protocol.clock.time_used`); empty untimed."""
        board = self._board
        if board is None or self.clock is None or self._state.seats is None:
            return {}
        return time_used(self.answers(), board.PLAYERS)

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
        """The proofs of the keys that hold a seat, or may (a guest one of the host's accepts names); a stranger's
        are reported as they come (:class:`~protocol.events.EquivocationDetected`), never kept against the game."""
        return tuple(
            proof
            for proof in self._evidence.proofs
            if self.role_of(proof.key) is not None or self._seating.evident(proof.key)
        )

    @property
    def seated_proofs(self) -> tuple[EquivocationDetected, ...]:
        """The proofs of the keys that hold a seat: what a record holds against the game (a key the host's accepts
        named but seated none decides nothing)."""
        return tuple(proof for proof in self.proofs if self.role_of(proof.key) is not None)

    @property
    def compromised_by(self) -> frozenset[PublicKey]:
        """The seated keys proven to have equivocated."""
        return frozenset(key for key in self._evidence.proven() if self.role_of(key) is not None)

    @property
    def waiting(self) -> tuple[str, ...]:
        """The lines kept until what they wait for arrives (a line before them that has not come)."""
        return self._waiting.lines()

    def waiting_of(self, key: PublicKey) -> tuple[Message, ...]:
        """The lines of ``key``'s kept until a line before them arrives (a gap, while it lasts)."""
        return self._waiting.lines_of(key) if key in self._waiting.keys() else ()  # noqa: SIM118 (keys, not lines)

    @property
    def record(self) -> tuple[str, ...]:
        """What a game's record holds: the transcript, then both lines of every seated key's proof not in it, the
        lines a claimant's timeout set aside (:attr:`displaced`) and what decided a host's seating
        (:meth:`seating_lines`), the claimants' timeouts the time witnesses voided and the second lines that prove a
        witness lies: ``olixono export`` writes it, ``olixono verify`` reads it and reaches the same result. A key
        without a seat decides nothing: its proofs are reported as they come."""
        lines = list(self.transcript)
        held = set(lines)
        for line in [
            *(line for proof in self.seated_proofs for line in (proof.first, proof.second)),
            *self.displaced,
            *self.seating_lines(),
            *(timeout.line for timeout in self._void.values()),
            *(line.line for line in self._witnesses.conflicts()),
        ]:
            if line not in held:
                held.add(line)
                lines.append(line)
        return tuple(lines)

    @property
    def displaced(self) -> tuple[str, ...]:
        """The lines of the player to move for the place of the claimant's timeout that ended the game, which the
        timeout set aside (a move, or a remark: its answer to the claim, which makes the ending a time dispute): part
        of the record."""
        head = self._chain[-1] if self._chain else None
        if head is None or head.type is not MessageType.TIMEOUT or head.now is None or not self.over:
            return ()
        return tuple(move.line for move in self._claims.displaced(head))

    @property
    def forfeit_pending(self) -> int | None:
        """The point at which a seated key's proof will end the game, while the lines before it have not all come."""
        point = self._forfeit_point()
        if point is None or self._forfeited_at is not None or len(self._chain) >= point.cut:
            return None
        return point.slot

    @property
    def branch(self) -> tuple[Message, Message] | None:
        """After a forfeit: the equivocator's line the opponent answered, and that answer (who played what), if seen.

        The opponent's next line names one of the two lines by its hash: that branch is the one played (never the
        equivocator's choice of the two)."""
        result = self._state.result
        if self._forfeited_at is None or result is None or result.by is None or result.slot is None:
            return None
        at, equivocator = result.slot, result.by
        candidates = {
            line
            for proof in self._evidence.proofs_of(equivocator)
            if proof.point == at
            for line in (proof.first, proof.second)
        }
        opponent = result.winner_key
        answer = self._evidence.seen(opponent, str(at + 1)) if opponent is not None else None
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
        if any(proof.slot.startswith("confirm-") for proof in self._evidence.proofs_of(key)):
            return DISPUTED  # it confirmed two endings under one number: neither counts
        latest = confirms[max(confirms)]
        result = self._state.result
        if result is None or not self._chain:
            return UNSEEN
        head = self._chain[-1]
        final = latest.final
        if final == head.seq and latest.prev == head.hash and latest.result == result.code():
            return CONFIRMED
        if final > head.seq and self._forfeited_at is None:  # (past a forfeit's point it confirms what it overrode)
            return UNSEEN
        return DISPUTED

    @property
    def confirmed_by(self) -> frozenset[PublicKey]:
        """The seated keys whose latest confirmation names this receiver's ending (the test vectors name them:
        ``protocol/vectors``)."""
        return frozenset(
            key for key in self._confirms if self.role_of(key) is not None and self.confirmation(key) == CONFIRMED
        )

    def confirmed_ending(self, key: PublicKey) -> tuple[int, str] | None:
        """The final sequence number and result code that ``key``'s latest confirmation names, if any."""
        confirms = self._confirms.get(key)
        if not confirms:
            return None
        latest = confirms[max(confirms)]
        return latest.final, latest.result

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

    # -- the table ---------------------------------------------------------------
    def _actor(self, state: State) -> PublicKey | None:
        if state.phase is Phase.OFFERED:
            return self._host
        if state.phase is Phase.ACCEPTED:
            return state.guest
        if state.phase is Phase.PLAYING and state.seats is not None:
            return state.seats[state.turn]
        return None

    def _sender(self, key: PublicKey, state: State) -> Sender | None:
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

    def _rank(self, message: Message, state: State, guard: bool = True) -> Rank:
        """Check that the table lets ``message``'s signer send it in ``state`` (and its guard); its rank."""
        return self._judge(message, state, guard)[0]

    def _judge(self, message: Message, state: State, guard: bool = True) -> tuple[Rank, MoveLike | None]:
        """:meth:`_rank`, and for a move the parsed move (so that it is parsed once)."""
        if state.phase is Phase.OVER:
            assert state.result is not None
            raise RemoteProtocolError(Code.AFTER_END, f"the game ended ({state.result.text()})")
        sender = self._sender(message.signer, state)
        if sender is None:
            raise RemoteProtocolError(Code.WRONG_SIGNER, f"{message.signer.fingerprint} is not a player here")
        ranks = RULES[state.phase].get(sender, {})
        rank = ranks.get(message.type)
        if rank is None:
            allowed = ", ".join(ranks) or "nothing"
            raise RemoteProtocolError(
                Code.WRONG_SEAT,
                f"{sender.value} may send {allowed} while the game is {state.phase.value}, not {message.type}",
            )
        return rank, self._guard(message, state, sender) if guard else None

    def _guard(self, message: Message, state: State, sender: Sender) -> MoveLike | None:
        """The checks a type needs beyond the table (raises :class:`RemoteProtocolError`); a move's parse."""
        kind = message.type
        if kind == MessageType.MOVE:
            move = self._check_move(message.move)
            self._claims.check_move(
                message, state.clocks[state.turn] if state.clocks is not None else None, self._free_first(state)
            )
            return move
        if kind == MessageType.UNDO:
            self._check_undo(message, state)
            return None
        mine = state.turn if sender is Sender.ACTOR else 1 - state.turn
        if kind == MessageType.TIMEOUT:
            began = self._turn_began(message.seq)
            self._claims.check_timeout(
                message,
                sender is Sender.ACTOR,
                self._claim_remaining(state, began.seq if began is not None else 0),
                self._free_first(state),
            )
        elif kind == MessageType.REVEAL:
            if commitment(message.secret) != self._chain[1].commit:
                raise RemoteProtocolError(Code.BAD_REVEAL, "SHA-256 of secret= is not the join's commit=")
        elif kind == MessageType.ABORT and state.phase is Phase.PLAYING:
            if state.moves > 0:  # the actor at ply 0 is the first seat: the better one, which an abort gives up
                raise RemoteProtocolError(
                    Code.WRONG_SEAT,
                    "after the coin flip only the first player may abort, before "
                    "their first move (the second may resign)",
                )
        elif kind in REMARKS and kind in state.remarks:
            raise RemoteProtocolError(Code.WRONG_SEAT, f"{kind} is allowed once a turn")
        if kind == MessageType.PROPOSE and state.proposal is not None:
            why = (
                "a proposal of theirs is open"
                if state.proposal == mine
                else "the other player's proposal is open: agree"
            )
            raise RemoteProtocolError(Code.WRONG_SEAT, f"cannot propose: {why}")
        if kind == MessageType.WITHDRAW and state.proposal != mine:
            raise RemoteProtocolError(Code.WRONG_SEAT, "withdraw takes back one's own open proposal, and none is open")
        if kind in (MessageType.AGREE, MessageType.DECLINE) and state.proposal != 1 - mine:
            raise RemoteProtocolError(Code.WRONG_SEAT, f"{kind} answers the other player's proposal, and none is open")
        return None

    def _check_undo(self, message: Message, state: State) -> None:
        """An undo takes back one or two moves, none of either player's first, with the other player's consent (its
        signature of the takeback line the undo names, :func:`protocol.messages.consents`); one of one move is on the
        clock as a move is, one of two leaves the turn (and its clock) where it is, once a turn."""
        board, plies = self._board, message.plies
        assert board is not None and state.seats is not None
        if plies == 0:
            raise RemoteProtocolError(
                Code.BAD_FIELD, "an undo takes back 1 or 2 moves (plies=0 is a takeback line's refusal)"
            )
        if len(board.move_stack) - plies < 2:
            raise RemoteProtocolError(Code.WRONG_SEAT, "each player's first move stays: no undo takes it back")
        if plies == 2 and MessageType.UNDO in state.remarks:
            raise RemoteProtocolError(Code.WRONG_SEAT, "an undo of two moves is allowed once a turn")
        waiter = state.seats[1 - state.turn]
        if not consents(message, waiter):
            raise RemoteProtocolError(
                Code.BAD_SIGNATURE,
                f"consent= is not {waiter.fingerprint}'s signature of a "
                f"takeback of {plies} naming seq {message.seq - 1}",
            )
        if plies == 1:
            self._claims.check_move(message, state.clocks[state.turn] if state.clocks is not None else None)
        elif message.get("think") is not None or message.get("left") is not None:
            raise RemoteProtocolError(
                Code.BAD_CLOCK,
                "an undo of two moves leaves the turn, and its clock, where it is: it carries no think= or left=",
            )

    def _check_move(self, text: str) -> MoveLike:
        """The legal move ``text`` spells in canonical form, or :class:`RemoteProtocolError`."""
        board = self._board
        assert board is not None
        try:
            move: MoveLike = board.parse_move(text)
        except InvalidMoveError as exc:
            raise RemoteProtocolError(Code.ILLEGAL_MOVE, str(exc)) from None
        if move.text() != text:
            raise RemoteProtocolError(Code.NON_CANONICAL, f"move={text} is written {move.text()}")
        reason = board.why_illegal(move)
        if reason is not None:
            raise RemoteProtocolError(Code.ILLEGAL_MOVE, f"{text}: {reason}")
        return move

    # -- feeding lines -------------------------------------------------------------
    def receive(self, data: bytes | str) -> list[Event]:
        """Check one line and apply it if it verifies, then anything it unblocks."""
        if self.holds(data):  # QoS 1 repeats and one's own lines echoed back: no need to verify again
            return []
        try:
            message = decode(data)
        except RemoteProtocolError as exc:
            return [LineRejected(exc.code, exc.detail, quoted(data))]
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
                    if exc.code == Code.EARLY_CLAIM:  # early by the receipts held: perhaps not once more come
                        self._claims.hold_early(message)
                for token in [*released, *self._released]:
                    work.extend(self._waiting.release(token))
                self._released.clear()
                work.extend(self._again)
                self._again.clear()
            self._settle(events)
            self._witness_claims(events)
            self._claim_verdict(events)
            for token in self._released:
                work.extend(self._waiting.release(token))
            self._released.clear()
            work.extend(sorted(self._again, key=lambda line: (line.seq, line.hash)))
            self._again.clear()
            if not work:
                break
        return events

    def holds(self, data: bytes | str) -> bool:
        """Whether this line is part of what the session verified: applied, a join, or set aside (not a line that
        waits for its predecessors, nor one refused)."""
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
        if message.type is MessageType.OFFER:
            return self._offer(message, events)
        if message.type is MessageType.TALK:  # a watcher's: the gallery's (protocol.gallery), never the record's
            raise RemoteProtocolError(
                Code.WRONG_SEAT, "a watcher's talk is no line of the game's record: it is kept beside it"
            )
        if self.game_id is not None and message.game != self.game_id:
            raise RemoteProtocolError(Code.WRONG_GAME, f"for game {message.game}, not {self.game_id}")
        problem = refused_on_sight(message)  # (what no receiver holds as its signer's word, whatever else it holds)
        if problem is not None:
            raise problem
        if not self._chain:
            return self._keep(message, MessageType.OFFER)
        if message.line in self._known:
            return []
        beside = BESIDE_THE_CHAIN.get(message.type)
        if beside is not None:
            return beside(self, message, events)
        role = self.role_of(message.signer)
        if role == HOST and message.type is MessageType.ACCEPT and message.seq == 2:
            self._host_accept(message, events)
        if message.type is MessageType.REVEAL:
            self._seating.reveal(message)  # at first sight: a guest's reveal may decide whom the host seated
        if (role is not None or self._seating.evident(message.signer)) and self._equivocates(message, events):
            return []
        if role is None:
            return self._unseated(message)
        if message.type is MessageType.ACCEPT and message.seq != 2:
            raise RemoteProtocolError(Code.WRONG_SEAT, "an accept is always seq 2, after the join it names")
        if message.prev in self._superseded:
            return self._set_aside(message, self._superseded[message.prev], events)
        if message.type is MessageType.ACCEPT and self._state.phase is Phase.OFFERED and message.seq == 2:
            return self._accept(message, events)
        n = len(self._chain)
        head = self._chain[-1]
        if message.seq > n or (message.seq == n and message.prev != head.hash):
            if message.prev == head.hash:
                raise RemoteProtocolError(Code.BROKEN_LINK, f"prev= is the hash of seq {n - 1}, so seq= is {n}")
            reopened = (
                head.type is MessageType.CLAIM
            )  # the guest's reveal may yet replace it: its children may come first
            if message.seq == n and not (reopened or self.over):
                raise RemoteProtocolError(Code.BROKEN_LINK, f"prev= is not the hash of seq {n - 1}")
            return self._keep(message, message.prev)
        if (
            message.type is MessageType.TIMEOUT
            and None not in (message.sent, message.flagged, message.now)
            and message.seq <= n
        ):
            state = self._before[message.seq] if message.seq < n else self._state
            began = self._turn_began(message.seq)
            if (
                self._sender(message.signer, state) is Sender.WAITER
                and began is not None
                and not self._claims.claimed(message, began)
            ):
                return self._keep(message, _flag_token(message.signer, began.hash))  # the claim it closes first
            if message.hash in self._void or self._witnessed_claim(message) is False:
                self._void_claim(message, events)
                return []
        if message.seq < n:
            return self._race(message, events)
        _, move = self._judge(message, self._state)
        return self._place(message, events, move)

    def _accept(self, message: Message, events: list[Event]) -> list[str]:
        """The host's accept: seat the join it names (kept until that join comes)."""
        join = self._join_by_hash(message.prev)
        if join is None:
            if message.signer == self._host and message.peer is not None and self._seating.name(message.peer):
                self._reclassify(events)
            return self._keep(message, message.prev)
        self._rank(message, self._state)
        guest = message.peer
        if guest != join.signer:
            raise RemoteProtocolError(Code.BAD_FIELD, "guest= is not the key that signed the join")
        problem = self._seating.problem(join)
        if problem is not None:
            raise RemoteProtocolError(problem.code, f"the accept seats a join that is refused: {problem.detail}")
        assert guest is not None
        self._place(join, events)
        self._place(message, events)
        self._seat_guest(guest, events)
        return [join.hash, message.hash, f"seat {guest.text}"]

    def _host_accept(self, message: Message, events: list[Event]) -> None:
        """Keep one of the host's accepts (a few): the guest it names is evident from now on, its waiting lines
        go into its history."""
        peer = self._seating.add_accept(message)
        if message.peer is not None:  # its guest's reveal of it may have come first, and be waiting
            for waiting in self._waiting.lines_of(message.peer):
                if waiting.type is MessageType.REVEAL:
                    self._seating.reveal(waiting)
        if peer is not None:  # its lines so far, into its history: its joins, and the lines waiting
            for seen in [
                *self._seating.joins_of(peer),
                *(line for line in self._waiting.lines_of(peer) if line.type not in SIDE_LINES),
            ]:
                self._equivocates(seen, events)
            self._released.append(f"seat {peer.text}")  # its confirmations are kept from now on
            self._reclassify(events)  # its lines may have been refused while another guest sat: the game again

    def _join_by_hash(self, digest: str) -> Message | None:
        """The join with this hash, if known: a candidate's first, or one it signed after it (kept, a few a key, since
        the host may have accepted that one)."""
        if len(self._chain) > 1 and self._chain[1].hash == digest:
            return self._chain[1]
        return self._seating.join(digest)

    def _race(self, message: Message, events: list[Event]) -> list[str]:
        """A line for a sequence number another key's line holds: judge both as of before it; the higher rank stands."""
        seq = message.seq
        if message.prev != self._chain[seq - 1].hash:
            raise RemoteProtocolError(Code.BROKEN_LINK, f"prev= is not the hash of seq {seq - 1}")
        held = self._chain[seq]
        before = self._before[seq]
        if before.phase not in (Phase.ACCEPTED, Phase.PLAYING):
            raise RemoteProtocolError(Code.WRONG_SEAT, f"seq {seq} is already taken")
        rank = self._rank(message, before)
        if rank <= self._rank_held(held, before):
            if held.type is MessageType.TIMEOUT and message.type in ANSWERS:
                self._claims.displace(message)  # an answer to the claim at its own seq, checked as of before it
            return self._set_aside(message, held, events)
        for later in reversed(self._chain[seq:]):  # at most the rest of one turn, all by the other key
            self._unplace()
            self._superseded[later.hash] = later
            if message.type is MessageType.TIMEOUT and later.type in ANSWERS and later.seq == seq:
                self._claims.displace(later)  # (a line after a proposal in that turn is not: in every order)
            events.append(Superseded(later, message))
        return self._place(message, events)

    def _rank_held(self, message: Message, state: State) -> Rank:
        sender = self._sender(message.signer, state)
        assert sender is not None
        return RULES[state.phase][sender][message.type]

    def _set_aside(self, message: Message, by: Message, events: list[Event]) -> list[str]:
        if len(self._superseded) >= MAX_SUPERSEDED:
            raise RemoteProtocolError(Code.SUPERSEDED, "and no more lines are kept for this game")
        self._superseded[message.hash] = message
        self._evidence.note(message)
        self._remember(message)
        events.append(Superseded(message, by))
        return [message.hash]

    # -- equivocation: one key, one history (:mod:`protocol.evidence`) ---------------------------------
    def _equivocates(self, message: Message, events: list[Event]) -> bool:
        """Keep ``message`` in its (seated) signer's history, with a proof for every line it cannot stand with;
        whether there was any (the line then goes no further: the forfeit rule decides).

        Every main-chain line of a seated key is kept at first sight, whether it is then placed, kept waiting or
        refused, so that which proofs exist does not depend on the order in which the lines came.
        """
        conflicts = self._evidence.conflicts(message)
        self._evidence.note(message)
        for earlier in conflicts:
            self._proof(earlier, message, events)
        return bool(conflicts)

    def _proof(self, first: Message, second: Message, events: list[Event]) -> None:
        """Two lines of one key that cannot both stand: kept as a proof (one a point), its lines known."""
        proven = self._evidence.prove(first, second, self._known.__contains__)
        for line in proven.known:
            self._remember(line)
        if proven.proof is not None:
            events.append(proven.proof)

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
        seated = self._canonical_seating()
        return 3 if seated is not None and not seated.ambiguous else 1

    def _canonical_seating(self) -> Seated | None:
        """Whom a host that signed more than one line for its seating seated
        (:meth:`protocol.seating.Seating.canonical`: a guest that revealed first, one whose own record of its seating is
        clean before the rest)."""
        return self._seating.canonical(
            self._placed_join(), self._clean, lambda key, reveal: self._first_move(key, reveal) is not None
        )

    def _placed_join(self) -> Message | None:
        return self._chain[1] if len(self._chain) > 1 else None

    def _first_move(self, key: PublicKey, reveal: Message) -> Message | None:
        """``key``'s first move after ``reveal``, if it signed one (the lowest hash of its lines for seq 4)."""
        line = self._evidence.seen(key, "4")
        return line if line is not None and line.type is MessageType.MOVE and line.prev == reveal.hash else None

    def seating_lines(self) -> tuple[str, ...]:
        """When the host signed more than one line for its seating: what decided whom it seated, beside the chain
        (each accept, its join, the reveals of it and the first move after one, and the proofs of the guests they
        name for seq 1 to 3), so that a reader of the record decides alike; else nothing."""
        if self._host is None or not self._host_seating_proof():
            return ()
        lines = [line.line for line in self._seating.lines(self._placed_join(), self._first_move)]
        lines += [
            line
            for proof in self.proofs
            if proof.key != self._host and proof.point is not None and proof.point <= 3
            for line in (proof.first, proof.second)
        ]
        return tuple(lines)

    def _clean(self, key: PublicKey) -> bool:
        """Whether ``key`` signed no two lines that cannot both stand before the play (seq 1 to 3)."""
        return not any(proof.point is not None and proof.point <= 3 for proof in self._evidence.proofs_of(key))

    def _forfeit_point(self) -> ForfeitPoint | None:
        """The lowest cut of a seated key's proof (:meth:`_cut_point`), who has one there, and where their lines are
        (the lowest such slot)."""
        return self._evidence.forfeit_point(
            lambda key, point: self._cut_point(key, point) if self.role_of(key) is not None else None
        )

    def _settle(self, events: list[Event]) -> None:
        """Apply the forfeit rule once the lines before its point are in: the same state in every order of arrival.

        A seated key's proof ends the game at its cut unless the game had ended before: the record is cut back to
        the lines before it and the result is a forfeit.
        """
        point = self._forfeit_point()
        if point is None:
            return
        cut, keys, slot = point.cut, point.keys, point.slot
        seated = self._canonical_seating() if cut == 3 and self._host in keys and self._host_seating_proof() else None
        if (
            seated is not None
            and seated.join is not None
            and seated.accept is not None
            and (len(self._chain) < 3 or self._chain[2].hash != seated.accept.hash)
        ):
            self._reseat(seated.join, seated.accept, events)  # the host's own canonical accept, whatever came first
            point = self._forfeit_point()  # the guest may be another one now
            assert point is not None
            cut, keys, slot = point.cut, point.keys, point.slot
        n = len(self._chain)
        if n < cut:
            return  # the lines before the point have not all come (a late spectator's view): later
        if self._forfeited_at is None and self._state.phase is Phase.OVER and n <= cut:
            return  # the game ended (at n - 1) before the point: the proof is reported, the result stands
        guest = self._state.guest
        while len(self._chain) > cut:
            self._unplace()
        if guest is not None and self._state.guest is None:
            self._unseat(guest)  # cut back before its seat: its chat waits again, as a guest's before the seating
            self._reclassify(events)  # what was refused while it sat may be another's: the game again
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
        return any(proof.point is not None and proof.point <= 2 for proof in self._evidence.proofs_of(self._host))

    def _unseated(self, message: Message) -> list[str]:
        """A line of a key that holds no seat. While no guest is seated it may be the guest's (even after a
        withdrawal, which a second line of the host's may undo), and while one is, a guest that one of the host's
        accepts names may yet take the seat (:mod:`protocol.seating`): such a line is kept until its seat is known,
        judged then and kept in its history, so that no line of the guest's is refused in one order of arrival and
        held against it in another. Any other key's is refused; since an accept may yet name that key, a receiver
        that refused one asks for the game again when a seat changes (``ResyncNeeded``)."""
        if self._state.guest is None or self._seating.evident(message.signer):
            return self._keep(message, f"seat {message.signer.text}")
        self._waiting.mark_dropped()
        raise RemoteProtocolError(Code.WRONG_SIGNER, f"{message.signer.fingerprint} is not a player here")

    def _reseat(self, join: Message, accept: Message, events: list[Event]) -> None:
        """Seat the guest of the host's canonical accept in place of whatever seating came first: the lines the
        guest it displaces had applied beside the chain (its chat) wait again, as the lines of a guest an accept
        names do."""
        displaced = self._state.guest if self._forfeited_at is None else self._forfeit_base.guest
        if self._forfeited_at is not None:  # a forfeit before anyone was seated: undone, it is decided again
            self._state, self._forfeited_at = self._forfeit_base, None
        while len(self._chain) > 1:
            self._unplace()
        if displaced is not None:  # (the same key too: its chat comes after its join again)
            self._unseat(displaced)
        assert accept.peer is not None
        self._place(join, events)
        self._place(accept, events)
        self._seat_guest(accept.peer, events)
        self._released.extend([join.hash, accept.hash, f"seat {accept.peer.text}"])

    def _unseat(self, guest: PublicKey) -> None:
        """A guest the host's canonical accept no longer seats: what it applied beside the chain (its chat, its
        presence) is taken back, its chat lines waiting again for its seat (it stays evident: it may be seated again
        as more lines come)."""
        mine = [
            line
            for line in self._transcript
            if line.startswith(_CHAT_PREFIX) and decode(line, verify=False).signer == guest
        ]
        for line in mine:
            self._transcript.remove(line)
            self._known.discard(line)
        self._chats.pop(guest, None)
        self._presence.pop(guest, None)
        for line in mine:
            with contextlib.suppress(RemoteProtocolError):  # no room: the game is asked for again at the next seat
                self._keep(decode(line, verify=False), f"seat {guest.text}")

    def _forfeit_result(self, state: State, keys: tuple[PublicKey, ...], slot: int) -> Result:
        if len(keys) > 1:
            return Result(ResultReason.EQUIVOCATION, scored=False, slot=slot)
        key = keys[0]
        if state.seats is not None:
            assert self._board is not None
            mine = 0 if key == state.seats[0] else 1
            return Result(
                ResultReason.EQUIVOCATION,
                self._board.PLAYERS[1 - mine],
                state.seats[1 - mine],
                key,
                self._board.PLAYERS[mine],
                slot=slot,
            )
        if key == self._host:
            if state.phase is Phase.ACCEPTED and state.guest is not None:
                return Result(ResultReason.EQUIVOCATION, GUEST, state.guest, key, HOST, slot=slot)
            seated = self._canonical_seating()
            if seated is not None and seated.ambiguous:  # two guests revealed: it loses, and neither is named
                return Result(ResultReason.EQUIVOCATION, GUEST, None, key, HOST, slot=slot)
            return Result(ResultReason.EQUIVOCATION, None, None, key, HOST, scored=False, slot=slot)
        return Result(ResultReason.EQUIVOCATION, HOST, self._host, key, GUEST, slot=slot)

    # -- applying ------------------------------------------------------------------
    def _remember(self, message: Message) -> None:
        self._known.add(message.line)

    def _offer(self, message: Message, events: list[Event]) -> list[str]:
        game = message.game
        if self._chain:
            raise RemoteProtocolError(Code.WRONG_GAME, f"an offer of game {game}, not {self.game_id}")
        if self.game_id is not None and game != self.game_id:
            raise RemoteProtocolError(Code.WRONG_GAME, f"an offer of game {game}, not {self.game_id}")
        terms = message.terms
        check_terms(terms)
        kind = message.kind
        self.game_id, self.kind, self.terms = game, kind, terms
        self._claims.clock = TimeControl.of_terms(terms)  # checked with the terms: it names a control
        self._claims.first_free = first_move_free(terms)
        self._board = new_board(kind)
        self._host = message.signer
        self.invite = message.peer
        self._seating.offer(message.signer, message.peer, terms)
        self._witnesses.name(witnesses_of(terms))
        self._evidence.witnessed = bool(self._witnesses.keys)
        self._chain.append(message)
        self._before.append(self._state)
        self._state = State(Phase.OFFERED)
        self._transcript.append(message.line)
        self._remember(message)
        events.append(LineApplied(message))
        events.append(OfferReceived(game, kind, message.signer, message.peer, terms, message.at))
        self._reclassify(events)
        return [MessageType.OFFER]

    def _join(self, message: Message, events: list[Event]) -> list[str]:
        if message.prev != self._chain[0].hash:
            raise RemoteProtocolError(Code.BROKEN_LINK, "prev= of a join is the hash of the offer")
        self._seating.remember_join(message)  # whatever else it meets: the host may have accepted it
        if self._seating.evident(message.signer) or message.signer == self._state.guest:
            self._equivocates(
                message, events
            )  # any other line of its for seq 1 (a second join too), whatever the phase
        state = self._state
        if state.phase is not Phase.OFFERED:
            if state.phase is Phase.OVER and len(self._chain) < 3:
                assert state.result is not None
                raise RemoteProtocolError(Code.AFTER_END, f"the game ended ({state.result.text()})")
            if message.signer == state.guest:
                if self._chain[1].line != message.line:
                    self._proof(self._chain[1], message, events)
                return []
            raise RemoteProtocolError(Code.WRONG_SEAT, "the game already has its guest")
        problem = self._seating.problem(message)
        if problem is not None:
            raise problem
        earlier = self._seating.candidate(message.signer)
        if earlier is not None:
            self._proof(earlier, message, events)
            return [message.hash]  # the host may have accepted this one: its accept is judged again
        if not self._seating.add_candidate(message):
            self._waiting.mark_dropped()
            raise RemoteProtocolError(Code.LIMIT, f"{MAX_JOINS} joins are waiting already")
        self._remember(message)
        events.append(JoinRequested(message.signer))
        return [message.hash]

    def _place(self, message: Message, events: list[Event], move: MoveLike | None = None) -> list[str]:
        """Append a judged main-chain line (``move``: a move's parse): the next state, the board, the events."""
        before = self._state
        self._before.append(before)
        self._chain.append(message)
        self._transcript.append(message.line)
        self._evidence.note(message)
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
        if message.type is MessageType.MOVE:
            assert self._board is not None
            self._board.pop()
        elif message.type is MessageType.UNDO:
            assert self._board is not None
            for move in reversed(self._undone.pop(message.hash)):
                self._board.push(move)

    def _advance(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        """The state after ``message`` (and the board moved, for a move): its type's transition
        (:data:`TRANSITIONS`)."""
        return TRANSITIONS[message.type](self, state, message, move, events)

    def _moved(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        board = self._board
        assert board is not None and state.seats is not None
        board.push(move)
        events.append(MoveApplied(message.seq, board.PLAYERS[state.turn], message.move, len(board.move_stack)))
        clocks = state.clocks
        if clocks is not None:
            left = int(message.value("left"))
            clocks = (left, clocks[1]) if state.turn == 0 else (clocks[0], left)
        outcome = board.outcome()
        if outcome is None:  # the common case, built directly (NamedTuple._replace is slow)
            return State(
                Phase.PLAYING, state.guest, state.seats, 1 - state.turn, state.moves + 1, state.proposal, clocks=clocks
            )
        return state._replace(
            turn=1 - state.turn,
            moves=state.moves + 1,
            remarks=frozenset(),
            phase=Phase.OVER,
            result=self._ruled(outcome, state.seats, None),
            clocks=clocks,
        )

    def _taken_back(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        """An undo: the board as it was before the last ``plies`` moves. Of one, the turn goes to the player whose move
        it took back (a new turn: the undo is on the actor's clock as a move is); of two, it stays with the actor, whose
        clock runs on."""
        board, plies = self._board, message.plies
        assert board is not None
        popped: list[MoveLike] = []
        for _ in range(plies):
            taken = board.pop()
            assert taken is not None  # the game is played: no ending on the board to take back first
            popped.append(taken)
        self._undone[message.hash] = popped
        events.append(MovesTakenBack(message.seq, board.PLAYERS[state.turn], plies, tuple(m.text() for m in popped)))
        if plies == 2:
            return state._replace(remarks=state.remarks | {MessageType.UNDO})
        clocks = state.clocks
        if clocks is not None:
            left = int(message.value("left"))
            clocks = (left, clocks[1]) if state.turn == 0 else (clocks[0], left)
        return state._replace(turn=1 - state.turn, moves=state.moves + 1, remarks=frozenset(), clocks=clocks)

    def _joined(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        return state  # the guest's join changes nothing until the host accepts it

    def _accepted(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        assert message.peer is not None
        events.append(GuestAccepted(message.peer))
        return state._replace(phase=Phase.ACCEPTED, guest=message.peer)

    def _revealed(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        board, guest = self._board, state.guest
        assert board is not None and guest is not None and self._host is not None
        host_first = host_moves_first(message.secret, self._chain[2].salt, self.terms)
        seats = (self._host, guest) if host_first else (guest, self._host)
        events.append(GameStarted(tuple(zip(board.PLAYERS, seats, strict=True))))
        clocks = None if self.clock is None else (self.clock.start_ms, self.clock.start_ms)
        return state._replace(phase=Phase.PLAYING, seats=seats, clocks=clocks)

    def _claimed(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        """The host withdraws its offer (an abort before seating anyone), or claims a forfeit: a guest that never
        revealed (a claim), or walked away before revealing (the guest's abort)."""
        if state.phase is Phase.OFFERED:
            result = Result(ResultReason.WITHDRAWN, by=message.signer, by_name=HOST, scored=False)
        else:
            role = HOST if message.type is MessageType.CLAIM else GUEST
            result = Result(ResultReason.FORFEIT, HOST, self._host, message.signer, role)
        return state._replace(phase=Phase.OVER, result=result)

    def _timed_out(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        """The player to move concedes on time, or the other's flag claim went unanswered (:meth:`_claim_result`)."""
        assert state.seats is not None
        mine, player, other = self._players(state, message)
        if mine == state.turn:
            result = Result(
                ResultReason.TIME, other, state.seats[1 - mine], message.signer, player, detail=f"{player} conceded"
            )
        else:
            result = self._claim_result(state, message)
        return state._replace(phase=Phase.OVER, result=result, proposal=None)

    def _claim_result(self, state: State, timeout: Message) -> Result:
        """How a claimant's timeout ends the game (:meth:`protocol.claims.Claims.verdict`), judged in ``state``, the
        state before it."""
        assert state.seats is not None and self._board is not None
        mine, player, other = self._players(state, timeout)
        board = self._board
        return self._claims.verdict(
            timeout,
            player,
            other,
            state.seats[1 - mine],
            lambda: time_used(self.answers(), board.PLAYERS),
            witnessed=self._witnessed_claim(timeout) is True,
            first=self._free_first(state),
        )

    def _claim_verdict(self, events: list[Event]) -> None:
        """Decide a claimant's timeout again once more lines are in (a receipt, an answer the timeout set aside): its
        result is a function of the lines held."""
        state, chain = self._state, self._chain
        if state.phase is not Phase.OVER or not chain or self._forfeited_at is not None:
            return
        head = chain[-1]
        result = state.result
        if head.type is not MessageType.TIMEOUT or result is None or result.detail is None or head.now is None:
            return
        again = self._claim_result(self._before[head.seq], head)
        if again != result:
            self._state = state._replace(result=again)
            events.append(GameOver(again))

    def _players(self, state: State, message: Message) -> tuple[int, str, str]:
        """The signer's seat (0 or 1), its player name and the other's, once the seats are drawn."""
        board = self._board
        assert board is not None and state.seats is not None
        mine = state.turn if message.signer == state.seats[state.turn] else 1 - state.turn
        return mine, board.PLAYERS[mine], board.PLAYERS[1 - mine]

    def _remarked(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        """A proposal to end the game, its withdrawal or its refusal: the turn stays with the actor."""
        mine, player, _ = self._players(state, message)
        remarks = state.remarks | {message.type}
        if message.type is MessageType.PROPOSE:
            events.append(EndProposed(player))
            return state._replace(proposal=mine, remarks=remarks)
        events.append(ProposalWithdrawn(player) if message.type is MessageType.WITHDRAW else EndDeclined(player))
        return state._replace(proposal=None, remarks=remarks)

    def _resigned(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        assert state.seats is not None
        mine, player, other = self._players(state, message)
        result = Result(EndReason.RESIGNED, other, state.seats[1 - mine], message.signer, player)
        return state._replace(phase=Phase.OVER, result=result, proposal=None)

    def _aborted(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        if state.phase is not Phase.PLAYING:
            return self._claimed(state, message, move, events)
        _, player, _ = self._players(state, message)
        result = Result(ResultReason.ABORTED, by=message.signer, by_name=player, scored=False)
        return state._replace(phase=Phase.OVER, result=result, proposal=None)

    def _agreed(self, state: State, message: Message, move: MoveLike | None, events: list[Event]) -> State:
        """A draw in Oxono, the position scored on the markers in Olix."""
        assert self._board is not None and state.seats is not None
        result = self._ruled(self._board.agreed(), state.seats, message.signer)
        return state._replace(phase=Phase.OVER, result=result, proposal=None)

    def _ruled(self, outcome: Outcome, seats: tuple[PublicKey, PublicKey], by: PublicKey | None) -> Result:
        board = self._board
        assert board is not None
        winner = outcome.winner
        key = seats[board.PLAYERS.index(winner)] if winner is not None else None
        by_name = self.player_of(by) if by is not None else None
        return Result(outcome.reason, winner, key, by, by_name, markers=outcome.markers)

    def _seat_guest(self, guest: PublicKey, events: list[Event]) -> None:
        """The guest is known: forget the other candidates and every waiting line no seated key signed."""
        self._seating.seat(guest)
        self._evidence.keep_proofs_of(lambda key: key in (guest, self._host) or self._seating.evident(key))
        assert self._host is not None
        for waiting in self._waiting.drop_others((guest, self._host, *self._seating.evident_keys())):
            self._waiting.mark_dropped()  # an accept may yet name its key: the game again when one does
            events.append(
                LineRejected(
                    Code.WRONG_SIGNER, f"{waiting.signer.fingerprint} is not a player here", waiting.line[:200]
                )
            )
        for waiting in self._waiting.lines_of(guest):  # seen before the seat was known: into the guest's history now
            if waiting.type not in SIDE_LINES:
                self._equivocates(waiting, events)
        self._reclassify(events)

    # -- chat --------------------------------------------------------------------------
    def _chat(self, message: Message, events: list[Event]) -> list[str]:
        key = message.signer
        if self.role_of(key) is None:
            return self._unseated(message)
        earlier = self._evidence.seen(key, message.slot)
        if earlier is not None and earlier.line != message.line:
            self._proof(earlier, message, events)
            return []
        self._evidence.note(
            message
        )  # kept at first sight, placed or not: which proofs exist does not depend on the order
        seq, head = self._chats.get(key, (0, self._chain[0].hash))
        if message.seq > seq + 1:
            return self._keep(message, message.prev)
        if message.seq <= seq:
            raise RemoteProtocolError(Code.WRONG_SEAT, f"chat {message.seq} of this key is already taken")
        if message.prev != head:
            raise RemoteProtocolError(Code.BROKEN_LINK, "prev= is not the hash of this key's previous chat")
        self._chats[key] = (message.seq, message.hash)
        self._transcript.append(message.line)
        self._remember(message)
        events.append(LineApplied(message))
        events.append(ChatReceived(key, message.text))
        return [message.hash]

    # -- confirmations ------------------------------------------------------------------
    def _confirm(self, message: Message, events: list[Event]) -> list[str]:
        """A player's confirmation of an ending: kept (it never changes the game), judged by :meth:`confirmation`."""
        key = message.signer
        if not self._of_a_player(message):
            return []
        self._acknowledge(message, events)
        mine = self._confirms.setdefault(key, {})
        earlier = mine.get(message.seq)
        if earlier is not None:
            if message.hash < earlier.hash:  # which one is listed does not depend on which came first, nor on the
                mine[message.seq] = message  # cap of proofs below; applied, so that a journal keeps it
                self._remember(message)
                events.append(LineApplied(message))
                events.append(ConfirmationReceived(key))
            self._proof(earlier, message, events)  # a second, different confirmation numbered alike
            return []
        mine[message.seq] = message
        self._remember(message)
        events.append(LineApplied(message))
        events.append(ConfirmationReceived(key))
        return [message.hash]

    def _receipt(self, message: Message, events: list[Event]) -> list[str]:
        """A player's receipt of the other's move or reveal (a timed game's): kept beside the chain, it never changes
        the game; :meth:`answers` reads it."""
        key = message.signer
        if not self._of_a_player(message):
            return []
        self._word(message, events)  # its signer said it, whether or not the line it names is here (a timeout set it
        if self.clock is None:  # aside) and whether or not the game is timed
            raise RemoteProtocolError(Code.BAD_CLOCK, "an untimed game has no receipts")
        receipted = self._line_named(message)
        if receipted is None:
            return self._keep(message, message.prev)
        if not begins_turn(receipted) or receipted.signer == key:
            raise RemoteProtocolError(
                Code.WRONG_SEAT, "a receipt is of the other player's move (or undo of one), or the host's of the reveal"
            )
        return self._by_line(message, events)

    def _acknowledge(self, message: Message, events: list[Event]) -> None:
        """Keep a seated player's word that the other's line for a seq came
        (:meth:`protocol.evidence.Evidence.acknowledge`): with a timeout of its own there it is a proof
        (:func:`protocol.rules.contradicts`): a loser cannot take back the move that beat it once its client has
        receipted or confirmed it."""
        contradicted = self._evidence.acknowledge(message)
        if contradicted is not None:
            self._proof(message, contradicted, events)

    def _word(self, message: Message, events: list[Event]) -> None:
        """A seated player's line beside the chain that names a chain line (a receipt, a flag claim), at first sight,
        before anything that depends on the chain as it stands (the line it names may be set aside, or not come): a
        second line for its slot is a proof, reported, never deciding the game (and neither receipt then counts,
        :meth:`answers`); a receipt is its signer's word that the line it names came (:meth:`_acknowledge`). So which
        proofs exist never depends on the order of arrival."""
        self._acknowledge(message, events)
        earlier = self._evidence.word(message)
        if earlier is not None:
            try:
                self._proof(earlier, message, events)
            except RemoteProtocolError as exc:  # its proofs are full: said so, and the line judged on all the same, so
                events.append(LineRejected(exc.code, exc.detail, message.line[:200]))  # that which of the two counts
                # (:meth:`_by_line`) does not depend on the order of arrival

    def _by_line(self, message: Message, events: list[Event]) -> list[str]:
        """Keep a checked line that names a chain line (a receipt, a flag claim), one a line and signer: of two (a
        proof already, :meth:`_word`), the one with the lower hash counts, whichever came first, whatever the cap of
        proofs (:meth:`protocol.claims.Claims.keep`)."""
        kept = self._claims.keep(message)
        if kept is None:
            return []
        self._remember(message)  # applied, so that a journal keeps it
        events.append(LineApplied(message))
        if (
            message.type is MessageType.RECEIPT
        ):  # the claimant's watch of the other's clock grew: its early claims again
            self._again.extend(self._claims.take_early(message.signer))
        return [message.hash] if kept else []

    def _of_a_player(self, message: Message) -> bool:
        """Whether a line beside the chain (a confirmation, a receipt, a flag claim) is a seated player's, or of a
        guest one of the host's accepts names; ``False``: it was kept until its seat is known, or refused
        (:meth:`_unseated`)."""
        key = message.signer
        if self.role_of(key) is not None or self._seating.evident(key):
            return True
        self._unseated(message)  # kept, or refused
        return False

    def _line_named(self, message: Message) -> Message | None:
        """The chain line a seated player's line beside the chain names (a receipt, a flag claim, a rematch or
        takeback line: by ``seq`` and ``prev``), if it has come (``None``: not yet, so the caller keeps the line until
        it does); ``broken-link`` for a line that names another of the chain's lines by the wrong number."""
        chain = self._chain
        named = chain[message.seq] if message.seq < len(chain) else None
        if named is None or named.hash != message.prev:
            if any(line.hash == message.prev for line in chain):
                raise RemoteProtocolError(Code.BROKEN_LINK, f"prev= is not the hash of seq {message.seq}'s line")
            return None
        return named

    # -- flag claims and timeouts ---------------------------------------------------------
    def _flag(self, message: Message, events: list[Event]) -> list[str]:
        """A flag claim: the player not to move says the other's time ran out, by its own clock (``sent``: when the
        turn began, ``now``: when it signed). Kept beside the chain, it never changes the game: it opens the answer
        window, which the claimant's ``timeout`` closes (:meth:`_check_timeout`)."""
        if not self._of_a_player(message):
            return []
        self._word(message, events)  # a second claim for its slot is a proof, whatever the chain holds
        began = self._line_named(message)
        if began is None:
            return self._keep(message, message.prev)
        chain = self._chain
        if began.seq + 1 < len(chain):
            after = self._before[began.seq + 1]
        else:  # the head: the state after it (before a forfeit that cut the record there, in every order)
            after = self._forfeit_base if self._forfeited_at is not None else self._state
        if not begins_turn(began) or after.phase is not Phase.PLAYING:
            raise RemoteProtocolError(
                Code.WRONG_SEAT, "a flag claim names the move or reveal that began a turn of the game"
            )
        assert after.seats is not None
        if message.signer.raw == after.seats[after.turn].raw:
            raise RemoteProtocolError(Code.WRONG_SEAT, "a flag claim is against the player to move, by the other")
        self._claims.check_wait(message.sent, message.now, self._claim_remaining(after, began.seq), "the flag claim")
        self._claims.note_claim(message)
        return [*self._by_line(message, events), _flag_token(message.signer, message.prev)]  # its timeout may wait

    # -- time witnesses (:mod:`protocol.witness`) --------------------------------------------
    def _witness_line(self, message: Message, events: list[Event]) -> list[str]:
        """A line of one of the game's time witnesses: the next of its chain gives the lines it names their times; a
        second line for one of its ``seq``, or times that go back, prove it lies (its times then count for nothing)."""
        key = message.signer
        if not self._witnesses.named(key):
            raise RemoteProtocolError(Code.WRONG_SIGNER, f"{key.fingerprint} is no witness the game's terms name")
        held = self._witnesses.held(message)
        if held is not None:
            if held.line != message.line:
                self._witnesses.conflict(message)
                self._remember(message)
            return []
        seq, head = self._witnesses.head(key, self._chain[0].hash)
        if message.seq > seq + 1:
            return self._keep(message, message.prev)
        if message.prev != head:
            raise RemoteProtocolError(Code.BROKEN_LINK, "prev= is not the hash of this witness's previous line")
        self._witnesses.apply(message)
        self._transcript.append(message.line)
        self._remember(message)
        events.append(LineApplied(message))
        return [message.hash]

    @property
    def witnesses(self) -> tuple[PublicKey, ...]:
        """The time witnesses the game's terms name (none: the game has none)."""
        return self._witnesses.keys

    def witness_lies(self) -> dict[PublicKey, str]:
        """The witnesses proven to lie (their times count for nothing), and why."""
        self._hold_witnesses()
        return self._witnesses.lies

    def _hold_witnesses(self) -> None:
        """Hold the witnesses to the order of the game: each chain line after the line it follows, each flag claim
        after the line that began the turn it claims."""
        chain = self._chain
        follows = [(line.prev, line.hash) for line in chain[1:]]
        follows += [
            (flag.prev, flag.hash) for key in self._seated_keys() for flag in self._claims.flags_of(key, chain).values()
        ]
        self._witnesses.check(follows)

    def _witnessed_claim(self, timeout: Message) -> bool | None:
        """Whether the witnesses hold a claimant's ``timeout`` good: its claim came when the other's clock as they
        timed it, and the grace, had run out since the turn began, the timeout a whole answer window after the claim,
        and before any line of the other's for its place (the first of them they saw stands). ``False``: they void
        it; ``None``: they do not tell (no witness, or none saw the lines yet): the rules without a witness hold."""
        if not self._witnesses.keys or timeout.now is None or timeout.seq > len(self._chain):
            return None
        began = self._turn_began(timeout.seq)
        claim = self._claims.claim_of(timeout, began) if began is not None else None
        if began is None or claim is None:
            return None
        self._hold_witnesses()
        duration = self._witnesses.duration
        waited, window = duration(began.hash, claim.hash), duration(claim.hash, timeout.hash)
        if waited is None or window is None:
            return None
        state = self._before[timeout.seq] if timeout.seq < len(self._chain) else self._state
        needed = claim_after(self.clock, self._witnessed_remaining(state, began.seq))
        if waited < needed or window < answer_window(self.clock):
            return False
        answers = self._claims.displaced(timeout)
        if timeout.seq < len(self._chain) and self._chain[timeout.seq].signer != timeout.signer:
            answers.append(self._chain[timeout.seq])  # the other's line that holds its place now
        for answer in answers:
            first = duration(answer.hash, timeout.hash)
            if first is None:
                return None
            if first > 0:
                return False  # the other's line for its place came first: it stands
        return True

    def _witnessed_remaining(self, state: State, began: int) -> int:
        """The clock of the player to move in ``state`` (whose turn the line at ``began`` began) as the witnesses
        timed its moves: what the record says less what each of its moves before took beyond its ``think`` (and the
        lag allowed a move), by the witnesses' durations; the record's for a correspondence or untimed game."""
        remaining = self._turn_clock(state)
        if self.clock is None or self.clock.days or state.seats is None:
            return remaining
        mover, start, beyond, ply = state.seats[state.turn], None, 0, 0
        for line in self._chain[: began + 1]:
            if clocked(line) and line.signer == mover and start is not None and self._charged(ply):
                took = self._witnesses.duration(start.hash, line.hash)
                if took is not None:
                    beyond += max(0, took - int(line.value("think")) - LAG_MOST_MS - SLACK_MS)
            if clocked(line):
                ply += 1
            if begins_turn(line):
                start = line
        return max(0, remaining - beyond)

    def _witness_claims(self, events: list[Event]) -> None:
        """Void a claimant's timeout at the head that the witnesses void, putting back the other's lines it set aside;
        and put back one they voided that they no longer do (a witness proven to lie since)."""
        head = self._chain[-1] if self._chain else None
        if (
            head is not None
            and head.type is MessageType.TIMEOUT
            and head.now is not None
            and self._forfeited_at is None
            and self._witnessed_claim(head) is False
        ):
            self._unplace()
            self._void_claim(head, events)
        for timeout in list(self._void.values()):
            if self._witnessed_claim(timeout) is not False:
                del self._void[timeout.hash]
                self._known.discard(timeout.line)
                self._again.append(timeout)

    def _void_claim(self, timeout: Message, events: list[Event]) -> None:
        """A claimant's timeout the witnesses void: kept aside (a record holds it), and the other's lines it had set
        aside, and what followed them, judged again."""
        self._void[timeout.hash] = timeout
        self._remember(timeout)
        events.append(ClaimVoided(timeout))
        self._waiting.mark_dropped()  # the claimant's lines after it were refused as after the end: the game again
        self._reclassify(events)
        again = sorted(
            (line for line in self._superseded.values() if line.seq >= timeout.seq and line.signer != timeout.signer),
            key=lambda line: (line.seq, line.hash),
        )
        for line in again:
            del self._superseded[line.hash]
            self._known.discard(line.line)
        self._again.extend(again)

    # -- presence ----------------------------------------------------------------------
    def present(self, key: PublicKey) -> bool | None:
        """Whether ``key``'s client says it is connected (``None``: it has said nothing yet)."""
        latest = self._presence.get(key)
        return None if latest is None else latest[1]

    def runs_relay(self, key: PublicKey) -> bool:
        """Whether ``key`` (seated) said, in a presence line, that a relay of this game runs inside its program: that
        relay ends when that player leaves. Advice, like all presence."""
        return key in self._relay_runners

    def _presence_line(self, message: Message, events: list[Event]) -> list[str]:
        """The latest presence line of each seated key counts: the higher ``seq``, and at one ``seq`` ``gone``.

        Presence never changes the game and is not part of the transcript; its lines are checked each
        time they come (never remembered, so a flood of them costs no memory).
        """
        key = message.signer
        if self.role_of(key) is None:
            return self._unseated(message)
        here = message.state is not Presence.GONE
        if message.state is Presence.HOSTING:
            self._relay_runners.add(key)
        latest = self._presence.get(key)
        if latest is None or message.seq > latest[0] or (message.seq == latest[0] and latest[1] and not here):
            self._presence[key] = (message.seq, here)
            if latest is None or latest[1] != here:
                events.append(PresenceChanged(key, here))
        return []

    # -- rematch ------------------------------------------------------------------------
    def rematch_of(self, key: PublicKey) -> str | None:
        """The game ``key`` asked, once this one was over, to play next (its rematch line's ``next=``; ``None``:
        none)."""
        line = self._rematches.get(key)
        return None if line is None else line.next_game

    @property
    def rematch(self) -> str | None:
        """The game both players agreed to play next (``None``: not both asked): of the games their rematch lines
        name, the lower id (each names one it hosts, or the other's: ``PROTOCOL.md`` §3, "A rematch")."""
        if len(self._rematches) < 2:
            return None
        return min(line.next_game for line in self._rematches.values())

    def _rematch_line(self, message: Message, events: list[Event]) -> list[str]:
        """A player asks for a rematch, naming the game's last line and the game to play next. It never changes this
        game and is no part of its transcript (like presence): a receiver keeps each player's first, kept until the
        line it names has come, and refuses it while the game is not over there, or once its signer asked already."""
        key = message.signer
        if not self._of_a_player(message):
            return []
        named = self._line_named(message)
        if named is None:
            return self._keep(message, message.prev)
        if not self.over or named is not self._chain[-1]:
            raise RemoteProtocolError(
                Code.WRONG_SEAT, "a rematch is asked for once the game is over, naming its last line"
            )
        earlier = self._rematches.get(key)
        if earlier is not None:
            if earlier.line == message.line:
                return []
            raise RemoteProtocolError(Code.WRONG_SEAT, "this player asked for a rematch already")
        if message.next_game == self.game_id:
            raise RemoteProtocolError(Code.BAD_FIELD, "next= names this game, not the next")
        self._rematches[key] = message
        self._remember(message)
        events.append(RematchAsked(key, message.next_game, message))
        return []

    # -- takeback -----------------------------------------------------------------------
    def takeback_of(self, key: PublicKey) -> Message | None:
        """``key``'s takeback line naming the chain's head while the game is played (``None``: none; one naming an
        earlier head lapsed when the game went on)."""
        line, head = self._takebacks.get(key), self.head
        if line is None or head is None or self._state.phase is not Phase.PLAYING or line.prev != head.hash:
            return None
        return line

    def _takeback_line(self, message: Message, events: list[Event]) -> list[str]:
        """A player asks to take back the last moves, consents to the other's asking the same, or refuses it
        (``plies=0``), naming the chain's head. It never changes the game by itself and is no part of its transcript:
        the player to move's undo carries the other's signature of it (``PROTOCOL.md`` §3, "A takeback"). A receiver
        keeps each player's one line for the head (the first: a takeback line decides nothing, so which one counts
        may differ between receivers); one naming an earlier head lapsed and is kept silently."""
        key = message.signer
        if not self._of_a_player(message):
            return []
        named = self._line_named(message)
        if named is None:
            return self._keep(message, message.prev)
        self._remember(message)
        if named is not self._chain[-1]:
            return []
        if self._state.phase is not Phase.PLAYING:
            raise RemoteProtocolError(Code.WRONG_SEAT, "a takeback is asked for while the game is played")
        board = self._board
        assert board is not None
        if message.plies and len(board.move_stack) - message.plies < 2:
            raise RemoteProtocolError(Code.WRONG_SEAT, "each player's first move stays: no takeback reaches it")
        earlier = self._takebacks.get(key)
        if earlier is not None and earlier.prev == message.prev:
            if earlier.line == message.line:
                return []
            raise RemoteProtocolError(Code.WRONG_SEAT, "one takeback line a player for each head of the chain")
        self._takebacks[key] = message
        events.append(TakebackAsked(self.player_of(key) or "", message.plies, message.seq, message))
        return []

    # -- what a receiver keeps ----------------------------------------------------------
    def _seated(self, key: PublicKey) -> bool:
        return key == self._host or key == self._state.guest or self._seating.named(key) or self._seating.evident(key)

    def _keep(self, message: Message, token: str) -> list[str]:
        """Keep a line until what it waits for comes (``token``), within the limits; nothing to release."""
        self._waiting.keep(message, token)
        return []

    def _reclassify(self, events: list[Event]) -> None:
        """A seat became known: ask for the game again if lines were dropped meanwhile."""
        if self._waiting.seat_known():
            events.append(ResyncNeeded())


def quoted(data: bytes | str) -> str:
    """The start of a line as an event quotes it (at most 200 characters, whatever its bytes)."""
    return data[:200] if isinstance(data, str) else bytes(data[:200]).decode("utf-8", "replace")


_CHAT_PREFIX = f"{VERSION} {MessageType.CHAT} "


def _flag_token(key: PublicKey, began: str) -> str:
    """What a claimant's timeout waits for: its flag claim against the turn that the line ``began`` (a hash) began."""
    return f"flag {key.text} {began}"


def _remaining(state: State) -> int:
    """The clock of the player to move in ``state`` (0 in an untimed game)."""
    return state.clocks[state.turn] if state.clocks is not None else 0


Transition = Callable[[Receiver, State, Message, MoveLike | None, list[Event]], State]
TRANSITIONS: dict[MessageType, Transition] = {
    MessageType.MOVE: Receiver._moved,
    MessageType.JOIN: Receiver._joined,
    MessageType.ACCEPT: Receiver._accepted,
    MessageType.REVEAL: Receiver._revealed,
    MessageType.CLAIM: Receiver._claimed,
    MessageType.PROPOSE: Receiver._remarked,
    MessageType.WITHDRAW: Receiver._remarked,
    MessageType.DECLINE: Receiver._remarked,
    MessageType.RESIGN: Receiver._resigned,
    MessageType.ABORT: Receiver._aborted,
    MessageType.AGREE: Receiver._agreed,
    MessageType.TIMEOUT: Receiver._timed_out,
    MessageType.UNDO: Receiver._taken_back,
}
"""Each main-chain message type's transition: the state after a line of it (the table says who may send it)."""
BESIDE_THE_CHAIN: dict[MessageType, Callable[[Receiver, Message, list[Event]], list[str]]] = {
    MessageType.CHAT: Receiver._chat,
    MessageType.PRESENCE: Receiver._presence_line,
    MessageType.CONFIRM: Receiver._confirm,
    MessageType.RECEIPT: Receiver._receipt,
    MessageType.FLAG: Receiver._flag,
    MessageType.JOIN: Receiver._join,
    MessageType.WITNESS: Receiver._witness_line,
    MessageType.REMATCH: Receiver._rematch_line,
    MessageType.TAKEBACK: Receiver._takeback_line,
}
"""The lines judged beside the main chain's table, once the offer is in: each type's handler (the offer's is
:meth:`Receiver._offer`); it returns the tokens whose waiting lines it may unblock."""
