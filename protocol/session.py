"""A player's (or a spectator's) session of one game: a :class:`~protocol.judge.Receiver` that also signs.

:class:`GameSession` signs the local player's own actions, refusing
(:class:`LocalProtocolError`) before anything is signed whatever the game
forbids, and never signing two lines that could not both be in one game: each
draft is judged as any receiver would judge it (:mod:`protocol.judge`), then
applied like anyone's line.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from olixono.common import InvalidMoveError
from protocol.domain import MessageType, Presence
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.events import EquivocationDetected, Event, LineApplied, LineRejected, Outgoing, Superseded
from protocol.judge import Receiver
from protocol.keys import Identity, PublicKey, random_token
from protocol.messages import MAX_WITNESSED, Message, decode, encode, text_to_send
from protocol.rules import (
    CONFIRMED,
    DEFAULT_TERMS,
    FINAL,
    MAX_CHAT_LINES,
    MAX_CONFIRMS,
    SIDE_LINES,
    Phase,
    State,
    begins_turn,
    commitment,
)
from protocol.topics import topic_for


class GameSession(Receiver):
    """The session of one game at this client: a receiver, and with ``identity`` the local player who signs."""

    def check_move(self, text: str) -> str:
        """The canonical text of a move the local player may play now; :class:`LocalProtocolError` saying why not.

        Nothing is signed: a front end checks typed text with this before sending it.
        """
        board = self._board
        _, state = self._drafting(MessageType.MOVE)  # (a move answering the other's timeout of our turn: as of then)
        if board is None or state.phase is not Phase.PLAYING:
            raise LocalProtocolError("the game has not started yet: the players' seats are not drawn")
        if self._actor(state) != self._me():
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
            extra = [("text", "x")] if kind == MessageType.CHAT else []
            self._draft(kind, extra, guard=kind not in (MessageType.MOVE, MessageType.REVEAL))
        except LocalProtocolError as exc:
            return str(exc)
        return None

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
        fields = [
            ("game", self.game_id or ""),
            ("seq", str(number)),
            ("prev", head.hash),
            ("final", str(head.seq)),
            ("result", result.code()),
        ]
        return self._publish(encode(MessageType.CONFIRM, fields, self._identity()))

    def receipt(self, seq: int, recv_ms: int, sent_ms: int | None = None, ack_ms: int | None = None) -> Outgoing | None:
        """Sign the local player's receipt of the other player's move (or, the host's, of the reveal) at ``seq`` in a
        timed game, on this client's own monotonic clock in ms: ``recv_ms``, when it had verified it; ``sent_ms``,
        when its own line that the move answers (its last move, or the guest's reveal) left it; ``ack_ms``, when it
        had the other's receipt of that line. ``None`` when this player has receipted that line already (a receipt is
        signed once: a second would be two lines for one slot)."""
        me = self._me()
        if self.clock is None:
            raise LocalProtocolError("an untimed game has no receipts")
        chain = self._chain
        line = chain[seq] if 0 < seq < len(chain) else None
        if line is None or self.role_of(me) is None or not begins_turn(line) or line.signer == me:
            raise LocalProtocolError(f"seq {seq} is neither the other player's move nor the reveal: nothing to receipt")
        if self._claims.kept(MessageType.RECEIPT, me, seq) is not None:
            return None
        fields = [
            ("game", self.game_id or ""),
            ("seq", str(seq)),
            ("prev", chain[seq].hash),
            ("recv", str(recv_ms)),
            *([("sent", str(sent_ms))] if sent_ms is not None else []),
            *([("ack", str(ack_ms))] if ack_ms is not None and sent_ms is not None else []),
        ]
        return self._publish(encode(MessageType.RECEIPT, fields, self._identity()))

    def flag(self, sent_ms: int, now_ms: int) -> Outgoing:
        """Sign a flag claim against the player to move (this player waits): on this client's own clock, the turn
        began at ``sent_ms`` (its line left, or the reveal, verified) and it is ``now_ms``, which must show the other's
        clock and the grace gone (:func:`protocol.clock.claim_after`). An untimed game's player to move may be claimed
        against after 7 days. The same claim again is the same line; a second, other one is refused."""
        me = self._me()
        began = self._turn_began(len(self._chain))
        if self.phase is not Phase.PLAYING or began is None or self.actor == me or self.role_of(me) is None:
            raise LocalProtocolError("a flag claim is against the player to move, while the game is played")
        earlier = self._claims.kept(MessageType.FLAG, me, began.seq)
        if earlier is not None and earlier.prev == began.hash:
            return Outgoing(earlier.line, earlier, topic_for(earlier), ())
        fields = [
            ("game", self.game_id or ""),
            ("seq", str(began.seq)),
            ("prev", began.hash),
            ("sent", str(sent_ms)),
            ("now", str(now_ms)),
        ]
        return self._publish(encode(MessageType.FLAG, fields, self._identity()))

    def timeout(self, now_ms: int | None = None) -> Outgoing:
        """End the game on time: with ``now_ms`` (this client's clock, as its flag claim's), the claimant closes its
        unanswered claim's answer window (:func:`protocol.clock.answer_window`), or, over a move that came after the
        claim (:attr:`late_move`), disputes it; without, the player to move concedes (a timed game's)."""
        last = self._evidence.last(self._me())
        if last is not None and last.type is MessageType.TIMEOUT and last.hash in self._void:
            raise LocalProtocolError(
                "the time witnesses voided your ending of this turn (they saw it too early, or "
                "after the answer): the game goes on, and this turn has no other ending of yours"
            )
        if last is not None and last.type is MessageType.TIMEOUT and last.hash not in self._superseded:
            return Outgoing(last.line, last, topic_for(last), ())  # asked again: never a second, other line
        if now_ms is None:
            return self._send(MessageType.TIMEOUT)
        claim = self.flag_of(self._me()) or self.late_flag()
        if claim is None:
            raise LocalProtocolError("there is no flag claim of yours against this turn to end the game on")
        assert claim.sent is not None and claim.now is not None
        return self._send(
            MessageType.TIMEOUT, [("sent", str(claim.sent)), ("flagged", str(claim.now)), ("now", str(now_ms))]
        )

    def presence(self, here: bool, seq: int, *, hosting: bool = False) -> Outgoing:
        """A presence line of the local player's (``seq``: this client's connection count for the game, from 1;
        ``hosting``: here, and the relay it goes to runs inside this program).

        It may be signed before the player holds a seat (a guest's first connection, before it joins): receivers
        keep it until the seat is known, and refuse it if it never is.
        """
        self._me()
        if self.game_id is None:
            raise LocalProtocolError("no game yet: nothing to be present in")
        state = (Presence.HOSTING if hosting else Presence.HERE) if here else Presence.GONE
        fields = [("game", self.game_id or ""), ("seq", str(seq)), ("state", state)]
        line = encode(
            MessageType.PRESENCE, fields, self._identity()
        )  # not applied here: a will is signed long before it is sent
        message = decode(line, verify=False)
        return Outgoing(line, message, topic_for(message), ())

    def ask_rematch(self, next_game: str) -> Outgoing:
        """Sign the local player's rematch line, once the game is over: it asks to play ``next_game`` next (a game
        this player hosts for the other, or the other's that it agrees to). One a player: asked again, the same line."""
        me = self._me()
        earlier = self._rematches.get(me)
        if earlier is not None:
            if earlier.next_game != next_game:
                raise LocalProtocolError("you asked for a rematch already, of another game")
            return Outgoing(earlier.line, earlier, topic_for(earlier), ())
        if self.role_of(me) is None:
            raise LocalProtocolError("only the players ask for a rematch")
        if not self.over or not self._chain:
            raise LocalProtocolError("a rematch is asked for once the game is over")
        head = self._chain[-1]
        fields = [("game", self.game_id or ""), ("seq", str(head.seq)), ("prev", head.hash), ("next", next_game)]
        return self._publish(encode(MessageType.REMATCH, fields, self._identity()))

    # -- the local player's actions -------------------------------------------------------
    def _me(self) -> PublicKey:
        return self._identity().public

    def _identity(self) -> Identity:
        if self.identity is None:
            raise LocalProtocolError("a spectator session has no key to sign with")
        return self.identity

    def _draft(
        self, kind: str, extra: list[tuple[str, str]], guard: bool = True
    ) -> tuple[Message, list[tuple[str, str]]]:
        """The main-chain (or chat) message the local player would sign now, judged as a receiver would."""
        me = self._me()
        if not self._chain:
            raise LocalProtocolError("no game yet: the offer has not arrived")
        if kind == MessageType.CHAT:
            if self.role_of(me) is None:
                raise LocalProtocolError("only the host and the guest can chat")
            seq, head = self._chats.get(me, (0, self._chain[0].hash))
            if seq >= MAX_CHAT_LINES:
                raise LocalProtocolError(f"at most {MAX_CHAT_LINES} chat lines a player")
            fields = [("game", self.game_id or ""), ("seq", str(seq + 1)), ("prev", head), *extra]
        else:
            seq, state = self._drafting(kind, kind == MessageType.TIMEOUT and bool(extra))
            fields = [("game", self.game_id or ""), ("seq", str(seq)), ("prev", self._chain[seq - 1].hash), *extra]
        draft = Message.make(kind, tuple(fields), me, "draft")
        if kind != MessageType.CHAT:
            try:
                self._rank(draft, state, guard)
            except RemoteProtocolError as exc:
                raise LocalProtocolError(f"cannot {kind} now: {exc.detail}", reason=exc.detail) from None
        return draft, fields

    def _drafting(self, kind: str, claimed: bool = False) -> tuple[int, State]:
        """Where the local player's next main-chain line goes, and the state it is judged in: after the chain; or, a
        move answering the other's timeout of this player's turn (:attr:`answerable`), in that timeout's place; or a
        claimant's timeout (``claimed``: it carries the claim's times) over the move that came after its claim
        (:attr:`late_move`), in that move's place."""
        answering = self.answerable if kind == MessageType.MOVE else self.late_move if claimed else None
        if answering is not None:
            return answering.seq, self._before[answering.seq]
        return len(self._chain), self._state

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
        conflicts = self._evidence.conflicts(message) if message.type not in SIDE_LINES else []
        if conflicts:  # another process of this key's signed it (the journal lock forbids that)
            raise LocalProtocolError(
                f"refusing to send: this key signed another line for seq {conflicts[0].seq} "
                f"already ({conflicts[0].type}), which this one cannot stand with"
            )
        events = self._receive(message)
        if line not in self._known and line not in self._waiting:  # judged like anyone's line, and refused
            mine = line[:200]
            problem = next(
                (
                    e
                    for e in events
                    if (isinstance(e, LineRejected) and e.line == mine)
                    or (isinstance(e, EquivocationDetected) and line in (e.first, e.second))
                ),
                None,
            )
            raise LocalProtocolError(f"refusing to send: {problem}")
        return Outgoing(line, message, topic_for(message), tuple(events))

    def _retry(self, kind: str, extra: list[tuple[str, str]]) -> Outgoing | None:
        """The same line again when the local player asks for what they just did (never a second, different line)."""
        if self.identity is None or kind == MessageType.CHAT:
            return None
        last = self._evidence.last(self.identity.public)
        timed = kind in (MessageType.MOVE, MessageType.UNDO)
        same = extra[:1] if timed else extra  # a move (an undo) asked again: its time was measured anew
        if (
            last is None
            or last.type != kind
            or last.fields[3 : 3 + len(same)] != tuple(same)
            or (not timed and len(last.fields) != 3 + len(extra))
        ):
            return None
        if last is self.head or last.type in FINAL or last.hash in self._superseded:
            return Outgoing(last.line, last, topic_for(last), ())
        return None

    @classmethod
    def offer(
        cls,
        kind: str,
        identity: Identity,
        *,
        invite: PublicKey | None = None,
        nonce: str | None = None,
        terms: str = DEFAULT_TERMS,
        at: int | None = None,
    ) -> tuple[GameSession, Outgoing]:
        """A new game hosted by ``identity``: the session, and its offer to publish (``at``: Unix seconds, now)."""
        fields = [
            ("kind", kind),
            ("nonce", nonce or random_token()),
            ("terms", terms),
            ("at", str(int(time.time()) if at is None else at)),
        ]
        if invite is not None:
            fields.append(("invite", invite.text))
        line = encode(MessageType.OFFER, fields, identity)
        session = cls(None, identity)
        return session, session._publish(line)

    @classmethod
    def restore(
        cls,
        lines: Iterable[str],
        identity: Identity | None = None,
        *,
        game_id: str | None = None,
        secret: str | None = None,
    ) -> GameSession:
        """Rebuild a session from its journal (the lines it applied, in order), the guest's coin secret included."""
        session = cls(game_id, identity)
        session.receive_all(lines)
        if secret is not None:
            me = session._me()
            join = session._seating.candidate(me)
            if join is None and session.guest == me:
                join = session._chain[1]
            if join is None or join.commit != commitment(secret):
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
        mine = self._seating.candidate(me) or (self._chain[1] if self.guest == me else None)
        if mine is not None:
            if secret is not None and commitment(secret) != mine.commit:
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
        fields = [
            ("game", self.game_id or ""),
            ("seq", "1"),
            ("prev", self._chain[0].hash),
            ("terms", self.terms or ""),
            ("commit", commitment(secret)),
        ]
        self._secret = secret
        return self._publish(encode(MessageType.JOIN, fields, self._identity()))

    def accept(self, guest: PublicKey, salt: str | None = None) -> Outgoing:
        """Host: seat the guest whose join is ``guest``'s (a retry for the same guest sends the same accept)."""
        me = self._me()
        if len(self._chain) >= 3 and self._chain[2].signer == me and self._chain[2].type is MessageType.ACCEPT:
            accepted = self._chain[2]
            if accepted.peer != guest or (salt is not None and accepted.salt != salt):
                raise LocalProtocolError("a guest is accepted already")
            return Outgoing(accepted.line, accepted, topic_for(accepted), ())
        join = self._seating.candidate(guest)
        if join is None:
            raise LocalProtocolError(f"no join from {guest.fingerprint} has arrived")
        fields = [
            ("game", self.game_id or ""),
            ("seq", "2"),
            ("prev", join.hash),
            ("guest", guest.text),
            ("salt", salt or random_token()),
        ]
        draft = Message.make(MessageType.ACCEPT, tuple(fields), me, "draft")
        try:
            self._rank(draft, self._state)
        except RemoteProtocolError as exc:
            raise LocalProtocolError(f"cannot accept now: {exc.detail}", reason=exc.detail) from None
        return self._publish(encode(MessageType.ACCEPT, fields, self._identity()))

    def reveal(self) -> Outgoing:
        """Guest: open the commitment; the coin is then decided."""
        if self._secret is None:
            raise LocalProtocolError("this session did not send the join, so it has no secret to reveal")
        return self._send(MessageType.REVEAL, [("secret", self._secret)])

    def claim(self) -> Outgoing:
        """Host: end a game whose guest never revealed (the host wins by forfeit; a later reveal still stands)."""
        return self._send(MessageType.CLAIM)

    def move(self, text: str, think_ms: int | None = None) -> Outgoing:
        """Sign a move (any letter case in; canonical text on the wire). In a timed game ``think_ms`` is this
        player's own measure of its thinking (from verifying the opponent's line to now), and the move carries the
        clock that follows from it (:mod:`protocol.clock`); an untimed game's move carries none."""
        if self._board is None:
            raise LocalProtocolError("no game yet")
        try:
            move = self._board.parse_move(text)
        except InvalidMoveError as exc:
            raise LocalProtocolError(str(exc)) from None
        fields = [("move", move.text())]
        _, state = self._drafting(MessageType.MOVE)
        clocks = state.clocks
        if self.clock is not None and clocks is not None and self._actor(state) == self._me():  # else out of turn
            if not isinstance(think_ms, int) or isinstance(think_ms, bool) or think_ms < 0:
                raise LocalProtocolError(f"a move of a {self.clock.text()} game needs its thinking time, in whole ms")
            try:
                if self._free_first(state):
                    left = self.clock.first(think_ms)
                else:
                    left = self.clock.after(clocks[state.turn], think_ms)
            except ValueError:
                if self._free_first(state):
                    raise LocalProtocolError(
                        "cannot move: your time for a first move ran out", reason="your time for a first move ran out"
                    ) from None
                raise LocalProtocolError("cannot move: your time ran out", reason="your time ran out") from None
            fields += [("think", str(think_ms)), ("left", str(left))]
        return self._send(MessageType.MOVE, fields)

    def takeback(self, plies: int) -> Outgoing:
        """Sign the local player's takeback line naming the chain's head: it asks to take back the last ``plies``
        moves (1 or 2), consents to the other's asking the same, or refuses the other's (0). It changes nothing by
        itself: the player to move's :meth:`undo` does, carrying the other's. One line a player a head: asked again,
        the same line."""
        me = self._me()
        board, head = self._board, self.head
        if self.role_of(me) is None or board is None or head is None:
            raise LocalProtocolError("only the players ask for a takeback")
        if self.phase is not Phase.PLAYING:
            raise LocalProtocolError("a takeback is asked for while the game is played")
        if plies not in (0, 1, 2):
            raise LocalProtocolError("a takeback is of 1 or 2 moves (0 refuses one)")
        earlier = self.takeback_of(me)
        if earlier is not None:
            if earlier.plies == plies:
                return Outgoing(earlier.line, earlier, topic_for(earlier), ())
            raise LocalProtocolError(
                "you answered a takeback here already"
                if earlier.plies == 0 or plies == 0
                else f"you asked for a takeback of {earlier.plies} here already"
            )
        if plies and len(board.move_stack) - plies < 2:
            raise LocalProtocolError("each player's first move stays: there is no move to take back yet")
        if plies == 0 and self.takeback_of(self._other(me)) is None:
            raise LocalProtocolError("your opponent asked for no takeback here: nothing to refuse")
        fields = [("game", self.game_id or ""), ("seq", str(head.seq)), ("prev", head.hash), ("plies", str(plies))]
        return self._publish(encode(MessageType.TAKEBACK, fields, self._identity()))

    def undo(self, think_ms: int | None = None) -> Outgoing:
        """Sign the undo the other player's takeback line naming the head asks for or consents to (the local player
        is to move): it takes back that many moves. In a timed game an undo of one move is on this player's clock as a
        move is (``think_ms``, as :meth:`move`'s); one of two leaves the turn, and the clock, running."""
        me, state = self._me(), self._state
        if state.phase is not Phase.PLAYING or state.seats is None or self._actor(state) != me:
            raise LocalProtocolError("the player to move signs the undo, on their turn")
        consent = self.takeback_of(state.seats[1 - state.turn])
        if consent is None or consent.plies == 0:
            raise LocalProtocolError("your opponent asked for or agreed to no takeback of this position")
        fields = [("plies", str(consent.plies))]
        if consent.plies == 1 and self.clock is not None and state.clocks is not None:
            if not isinstance(think_ms, int) or isinstance(think_ms, bool) or think_ms < 0:
                raise LocalProtocolError(f"an undo of a {self.clock.text()} game needs its thinking time, in whole ms")
            try:
                left = self.clock.after(state.clocks[state.turn], think_ms)
            except ValueError:
                raise LocalProtocolError("cannot undo: your time ran out", reason="your time ran out") from None
            fields += [("think", str(think_ms)), ("left", str(left))]
        fields.append(("consent", consent.line.rsplit(" sig=", 1)[1]))
        return self._send(MessageType.UNDO, fields)

    def _other(self, key: PublicKey) -> PublicKey:
        """The other seated key."""
        host, guest = self._host, self._state.guest
        assert host is not None and guest is not None
        return guest if key == host else host

    def propose(self) -> Outgoing:
        """Propose to end the game (Olix: scored as it stands; Oxono: a draw); it stands until answered or withdrawn."""
        return self._send(MessageType.PROPOSE)

    def withdraw(self) -> Outgoing:
        return self._send(MessageType.WITHDRAW)

    def decline(self) -> Outgoing:
        return self._send(MessageType.DECLINE)

    def agree(self) -> Outgoing:
        return self._send(MessageType.AGREE)

    def resign(self) -> Outgoing:
        """Resign, on one's turn or not: the other player wins."""
        return self._send(MessageType.RESIGN)

    def abort(self) -> Outgoing:
        """End the game without a result: the host before seating anyone, a player before their first move.

        The guest, before revealing, walks away instead (the host wins by forfeit).
        """
        return self._send(MessageType.ABORT)

    def chat(self, text: str) -> Outgoing:
        """Send a chat line (host or guest, any time); :class:`LocalProtocolError` for text chat may not hold."""
        problem, encoded = text_to_send(text)
        if problem is not None:
            raise LocalProtocolError(f"cannot send that chat: {problem}", reason=problem)
        _, fields = self._draft(MessageType.CHAT, [("text", encoded)])
        return self._publish(encode(MessageType.CHAT, fields, self._identity()))


class Witnessing(Receiver):
    """A time witness of one game (``PROTOCOL.md`` §3, "A time witness"): a receiver of the game that signs, on its own
    chain of ``witness`` lines, the lines it verified and when, by its own clock (ms; any origin, never going back).

    Feed it the game's lines (:meth:`receive`); :meth:`attest` signs what it verified since its last line. Its own
    earlier lines, fed back (a witness that restarts reads the game again), are its chain: it goes on from them, and
    never names a line twice. A line it did not see live (``live=False``: what a catch-up brings, a relay's store,
    after the witness started or reconnected) it never names: its time would be late, and every duration from it
    wrong; for such a line the rules without a witness hold.
    """

    def __init__(self, game_id: str | None, identity: Identity) -> None:
        super().__init__(game_id)
        self.signer = identity
        self._named: set[str] = set()  # every line its witness lines name, or that it never names (seen late)
        self._due: list[str] = []  # lines verified since its last witness line, in order

    def receive(self, data: bytes | str, *, live: bool = True) -> list[Event]:
        events = super().receive(data)
        for event in events:
            if isinstance(event, Superseded):  # a line set aside (an answer to a claim, say) was seen all the same
                (self._due.append if live else self._named.add)(event.message.hash)
            if not isinstance(event, LineApplied):
                continue
            line = event.message
            if line.type is MessageType.WITNESS and line.signer == self.signer.public:
                self._named.update(line.value("lines").split("."))
            elif line.type not in (
                MessageType.CHAT,
                MessageType.PRESENCE,
                MessageType.CONFIRM,
                MessageType.RECEIPT,
                MessageType.WITNESS,
            ):
                (self._due.append if live else self._named.add)(line.hash)
        return events

    @property
    def witnessing(self) -> bool:
        """Whether the game's terms name this witness (else it has nothing to sign)."""
        return self.signer.public in self.witnesses

    def attest(self, now_ms: int) -> Outgoing | None:
        """The witness line for the lines verified since the last (a few dozen at most), at ``now_ms`` on this
        witness's clock (never before its last line's); ``None`` when there is nothing new, or the game does not
        name this witness."""
        self._due = [digest for digest in dict.fromkeys(self._due) if digest not in self._named]
        due = self._due[:MAX_WITNESSED]
        if not due or not self.witnessing or not self._chain:
            return None
        me = self.signer.public
        seq, head = self._witnesses.head(me, self._chain[0].hash)
        fields = [
            ("game", self.game_id or ""),
            ("seq", str(seq + 1)),
            ("prev", head),
            ("time", str(max(now_ms, self._witnesses.head_time(me)))),
            ("lines", ".".join(due)),
        ]
        line = encode(MessageType.WITNESS, fields, self.signer)
        message = decode(line, verify=False)
        events = self.receive(line)
        self._due = self._due[len(due) :]
        return Outgoing(line, message, topic_for(message), tuple(events))
