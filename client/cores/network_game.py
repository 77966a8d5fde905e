"""One game's client core, sans I/O: intents and lines in; lines to journal and publish, and events, out.

A :class:`GameCore` owns the game's :class:`protocol.GameSession`. Every front
end (the line console, a bot seat, the ``--plain`` printer, the full-screen
console) and the transport talk only to it, through the runner:

- :meth:`GameCore.act` takes the local person's intent (:class:`Intent`) and
  either refuses it with one clear sentence (:class:`IntentRefused`) before
  anything is signed, or returns a :class:`Step`: the lines to journal, to
  publish, and the events the intent caused;
- :meth:`GameCore.feed` takes a line the transport delivered and returns a Step;
- :meth:`GameCore.republish` lists everything this client keeps on the relay,
  for a (re)connection.

The core does what the protocol asks of every client without being told: it
copies the other player's lines under this player's key (``PROTOCOL.md`` §7),
accepts the first valid join when hosting, reveals the coin when accepted,
confirms how the game ended once it has (and again if the ending changes), and
hands on every equivocation proof (its lines go to the journal and, as copies,
to the relay: the proof travels with the record). It touches no file and no socket: the
runner journals what a Step says (own lines before they are published) and
publishes the rest.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from client.cores.intents import Intent, IntentKind, IntentRefused
from client.cores.turn_clock import WITNESS_MARGIN_MS as WITNESS_MARGIN_MS
from client.cores.turn_clock import (
    TurnClock,
    TurnSeen,
    last_turn_line,
    move_clock,
    round_trip_ms,
    signed_ms,
)
from olixono.common import Board, GameKind
from protocol import (
    CONFIRMED,
    NUMBERED_APART,
    EquivocationDetected,
    Event,
    GameOver,
    GameSession,
    GuestAccepted,
    Identity,
    JoinRequested,
    LineApplied,
    LocalProtocolError,
    Message,
    MessageType,
    Outgoing,
    Phase,
    PublicKey,
    RematchAsked,
    RemoteProtocolError,
    Result,
    ResyncNeeded,
    Superseded,
    TakebackAsked,
    TalkReceived,
    copy_topic,
    decode,
    topic_for,
)
from protocol.clock import TimeControl
from protocol.domain import ResultReason
from protocol.gallery import Gallery, is_talk
from protocol.rules import DEFAULT_TERMS, begins_turn, rematch_terms, witness_term

UNSEATED_LEFT = (
    "You leave before the host seated you: nothing binds you to this game, and it is closed on your side "
    "(olixono resume lists it no more; should the host seat you after all, olixono resume {game} takes it "
    "up again)."
)
"""What a guest who quits before the host seated it is told (``GameRunner``: its journal marks the game closed)."""


@dataclass(frozen=True, slots=True)
class Publish:
    """One retained line to publish (QoS 1) on ``topic``; ``copy``: our copy of another key's line (PROTOCOL.md §7),
    which may wait a moment, where the game's own lines may not."""

    topic: str
    line: str
    copy: bool = False


@dataclass(frozen=True, slots=True)
class ProofSaved:
    """An equivocation proof was written next to the journal (an event for front ends)."""

    proof: EquivocationDetected
    path: str


@dataclass(frozen=True, slots=True)
class Connection:
    """The relay connection changed: ``sentence`` says how (an event for front ends)."""

    connected: bool
    sentence: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to tell the person that is no protocol event (``warning``: something is wrong)."""

    text: str
    warning: bool = False


@dataclass(frozen=True, slots=True)
class ClaimReady:
    """``claim`` would now be accepted, by this client's watch (:meth:`GameCore.tick` tells a player once a turn, unless
    its client signs it by itself: ``--claim auto``): ``what`` it would sign against ``player``: ``flag``, a claim on
    time (their clock has run out; untimed, 7 days of silence); ``timeout``, the end of the game (our claim's window
    passed unanswered); ``dispute``, a time dispute of their move that came late after our claim (the claim's window
    has passed)."""

    what: Literal["flag", "timeout", "dispute"]
    player: str


@dataclass(frozen=True, slots=True)
class ClockLow:
    """This player's own clock went under :data:`client.cores.clock.LOW_MS` on its turn (told once a turn)."""

    left_ms: int


@dataclass(frozen=True, slots=True)
class NextGame:
    """The rematch both players agreed to (``PROTOCOL.md`` §3, "A rematch"): the game's id, its host, the terms its
    offer must name, and, when this client hosts it, its core and the step that publishes its offer."""

    game: str
    kind: GameKind
    host: PublicKey
    terms: str
    hosting: tuple[GameCore, Step] | None = None


UiEvent = Event | TalkReceived | ProofSaved | Connection | Notice | ClaimReady | ClockLow
"""Everything a front end is told: the protocol's events and the client's own."""


@dataclass(frozen=True, slots=True)
class Step:
    """What one intent or one incoming line caused."""

    publish: tuple[Publish, ...] = ()
    events: tuple[UiEvent, ...] = ()
    journal: tuple[str, ...] = ()
    """Lines to append to the journal: before anything is published for an intent, at once for a received line."""
    secret: str | None = None
    """The guest's coin-flip secret, to keep with the journal before its join is published."""
    proofs: tuple[EquivocationDetected, ...] = ()
    """Equivocation proofs to keep next to the journal."""
    resubscribe: bool = False
    """The session asks for the game's lines again (subscribe once more: the relay resends what it retains)."""


WATCHERS_HIDDEN = "the watchers' talk is hidden (watchers on shows it again)"
WATCHERS_SHOWN = "the watchers' talk is shown (watchers off hides it)"
"""What ``watchers off`` and ``watchers on`` say."""

NO_UNDO = "a network game's moves are signed: ask your opponent to take one back with takeback"


def duration_text(ms: int) -> str:
    """A wait in words: ``12 s``, ``3 min 5 s``, ``2 days 4 h``."""
    seconds = -(-ms // 1000)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{hours // 24} days {hours % 24} h" if hours % 24 else f"{hours // 24} days"


class GameCore:
    """The client side of one game, for a player or a spectator.

    The session's identity is the player's; a spectator has none, or has one and is a *witness*: it copies
    every line it verifies under its own key, one more holder that history needs to survive.
    """

    local = False
    """A network game's (:class:`client.cores.local_game.LocalCore` is the game at one terminal)."""

    def __init__(
        self,
        session: GameSession,
        *,
        auto_accept: bool = True,
        watching: bool = False,
        live: bool = True,
        clock: Callable[[], float] = time.monotonic,
        auto_claim: bool = False,
    ) -> None:
        self.session = session
        self.clock = clock
        """This client's monotonic clock, in seconds (injected in tests): what a timed game's thinking is measured
        by."""
        self.auto_accept = auto_accept
        self.auto_claim = auto_claim
        """Whether this player set up claims on time to be signed for them (``--claim auto``: :meth:`tick`); else
        only the ``claim`` command signs one."""
        self.watching = watching or session.identity is None
        self.host_relay = False
        """Whether the relay of this game runs inside the host's program, as this client knows it (the host's own
        process ran it, or a guest's journal kept it): see :attr:`relay_with_host`."""
        self.reach = ""
        """The options that reach this game's relays (``--relay``, ``--cafile``), for the commands a watcher is told to
        paste (a player's journal knows its relays: ``resume`` and ``export`` need none)."""
        self.live = live
        """Whether the protocol's automatic answers (accept, reveal, confirm) may be signed: a runner holds them back
        until its first catch-up with the relay (:meth:`ready`), so that nothing is signed for a slot this key may
        hold already there."""
        self._asked = False  # this client signed a join
        self._board: tuple[tuple[int, str], Board[Any] | None] | None = None  # (the chain it is of, the board)
        self.turn_clock = TurnClock()
        """This client's watch of the turn (the core's clock and claims read it; front ends read the core's views)."""
        self._seating_kept: set[str] = set()  # lines of a host's seating journaled by this process (seating_lines)
        self._rematch: tuple[GameCore, Step] | None = None  # the rematch this player offers: its core and offer
        self.talker: Identity | None = None
        """The key a watcher signs its talk with (``say``), beside the game (``None``: it cannot talk)."""
        self.watchers_shown = True
        """Whether the watchers' talk is shown (a player hides it with ``watchers off``, or ``--no-watchers-chat``)."""
        self._gallery: Gallery | None = None  # the watchers' talk, once the game's id is known
        self._note_turn(live=False)  # a session restored mid-turn: its turn began before this core was made

    @property
    def board(self) -> Board[Any] | None:
        """The game's board as the verified record has it (``None`` before the offer), for front ends to read, never
        to change (``copy()`` it first): one copy for as long as the record stays the same, where ``session.board``
        copies on every read (a redraw reads it several times)."""
        chain = self.session.chain
        key = (len(chain), chain[-1].hash if chain else "")
        if self._board is None or self._board[0] != key:
            self._board = (key, self.session.board)
        return self._board[1]

    @property
    def kind(self) -> GameKind:
        """The game's kind, from its offer: every front end starts after the offer arrived (``LookupError`` before)."""
        kind = self.session.kind
        if kind is None:
            raise LookupError(f"the offer of game {self.session.game_id} has not arrived: its kind is not known yet")
        return kind

    @property
    def playing(self) -> bool:
        """Whether this client holds (or asks for) a seat, rather than watching."""
        me = self.me
        return me is not None and (self.session.role_of(me) is not None or me in self.session.joins)

    @property
    def me(self) -> PublicKey | None:
        return self.session.identity.public if self.session.identity is not None else None

    @property
    def my_player(self) -> str | None:
        """This player's name (``pink``, ``first``, …) once the seats are drawn."""
        me = self.me
        return self.session.player_of(me) if me is not None else None

    @property
    def opponent(self) -> PublicKey | None:
        """The other seated key, once known."""
        me, host, guest = self.me, self.session.host, self.session.guest
        if me is None or host is None:
            return None
        return guest if me == host else host

    @property
    def my_turn(self) -> bool:
        return self.me is not None and self.session.actor == self.me and self.session.phase is Phase.PLAYING

    # -- read-only views, for front ends (which read these, never the session) ----------------
    @property
    def game_id(self) -> str:
        return self.session.game_id or ""

    @property
    def phase(self) -> Phase:
        return self.session.phase

    @property
    def started(self) -> bool:
        """Whether the seats are drawn (the first move may come)."""
        return self.session.started

    @property
    def over(self) -> bool:
        return self.session.over

    @property
    def result(self) -> Result | None:
        return self.session.result

    @property
    def ending_confirmed(self) -> bool:
        """Whether every seated player's latest confirmation names this ending (:data:`protocol.CONFIRMED`)."""
        return all(self.session.confirmation(key) == CONFIRMED for key in self.players)

    @property
    def seated_proofs(self) -> tuple[EquivocationDetected, ...]:
        """The proofs of the seated keys' equivocations: what the game's record holds against it."""
        return self.session.seated_proofs

    @property
    def time_control(self) -> TimeControl | None:
        """The game's time control, from its offer's terms (``None``: untimed)."""
        return self.session.clock

    @property
    def proposal(self) -> str | None:
        """The player whose proposal to end the game stands, if one does."""
        return self.session.proposal

    @property
    def host(self) -> PublicKey | None:
        return self.session.host

    @property
    def guest(self) -> PublicKey | None:
        return self.session.guest

    @property
    def players(self) -> list[PublicKey]:
        """The seated keys: the host, and the guest once accepted."""
        return [key for key in (self.session.host, self.session.guest) if key is not None]

    @property
    def turn(self) -> str | None:
        """The player to move (``pink``, ``first``, …) while the game is played; ``None`` before the seats are drawn
        and once it is over."""
        board = self.board
        return board.turn if board is not None and self.session.phase is Phase.PLAYING else None

    @property
    def moves(self) -> int:
        """How many moves were played."""
        return self.session.moves

    def played(self) -> list[tuple[str, str]]:
        """``(player, move)`` for every move on the board, in order (not those taken back by agreement)."""
        session = self.session
        return [(session.player_of(message.signer) or "?", message.move) for message in session.standing()]

    def seat_of(self, player: str) -> PublicKey | None:
        """The key in ``player``'s seat, once drawn."""
        return self.session.seats.get(player)

    def seat_name(self, key: PublicKey) -> str | None:
        """A key's player name once the seats are drawn, else its role (``host``, ``guest``); ``None`` for a key
        with no seat."""
        return self.session.player_of(key) or self.session.role_of(key)

    def present(self, key: PublicKey) -> bool | None:
        """Whether ``key``'s client is connected, by its presence lines (``None``: none seen yet)."""
        return self.session.present(key)

    @property
    def relay_with_host(self) -> bool:
        """Whether the game's relay runs inside the host's program, so that it ends when the host leaves: as this
        client knows it (:attr:`host_relay`), or as the host's presence says (``state=hosting``)."""
        host = self.session.host
        return self.host_relay or (host is not None and self.session.runs_relay(host))

    def seated(self, key: PublicKey | None) -> bool:
        """Whether ``key`` holds a seat."""
        return key is not None and self.session.role_of(key) is not None

    def join_refusal(self, key: PublicKey) -> str | None:
        """Why ``key`` may not take the guest's seat (one sentence), or ``None`` if it may ask for it (a key already
        asking or seated may: it takes its seat up again)."""
        session, game = self.session, self.game_id
        if session.over:
            assert session.result is not None
            return f"game {game} is over: {session.result.sentence()}"
        if session.invite is not None and session.invite != key:
            return f"game {game} is for another player ({session.invite.fingerprint}), not for you"
        if session.guest is not None and session.guest != key:
            return f"game {game} has its guest already ({session.guest.fingerprint})"
        return None

    # -- the clock (this client's watch of the turn: :class:`client.cores.turn_clock.TurnClock`) -----------
    def _note_turn(self, live: bool = True) -> None:
        """Note when this client saw the current turn begin (:meth:`TurnClock.note_turn`); ``live``: whether the
        lines that began it came as they were sent (not from the relay's store)."""
        session = self.session
        moves = session.moves if session.phase is Phase.PLAYING else None
        self.turn_clock.note_turn(moves, self.clock(), kept=session.answerable is not None, live=live)

    @property
    def turn_seen(self) -> TurnSeen | None:
        """``(moves played, when)``: when (by :attr:`clock`) this client saw the current turn begin; ``None`` when
        nobody is to move. The runner keeps it in the journal, so that a resumed player's thinking counts the time it
        was away (:meth:`resume_turn`)."""
        return self.turn_clock.turn

    def resume_turn(self, moves: int, seconds_ago: float) -> None:
        """A resumed game: the turn after ``moves`` moves began ``seconds_ago`` (as the journal says), not when this
        core was made. When it is the other's turn, that is when our last line left (a receipt of their answer says
        so)."""
        last = last_turn_line(self.session.chain)
        ours = (
            last.seq
            if last is not None and (last.signer == self.me or last.type is MessageType.REVEAL) and not self.my_turn
            else None
        )
        self.turn_clock.resume(
            moves,
            seconds_ago,
            self.clock(),
            current=self.session.moves,
            kept=self.session.answerable is not None,
            ours=ours,
        )

    @property
    def turn_seen_live(self) -> bool:
        """Whether this client saw the current turn begin as it happened: the line that began it came live, or it was
        our own, or the journal says when we saw it (a resume). Not when that line came from the relay's store (a
        watcher's catch-up, or the relay asked again: MQTT's retain flag) or the core was made mid-turn: the turn began
        earlier, by a time nobody here can know (the relay gives no time, and the lines carry only each signer's own
        monotonic times)."""
        return self.turn_clock.seen_live

    def clock_is_bound(self, player: str) -> bool:
        """Whether ``player``'s time on this turn, as this client shows it, is only a bound (a timed game's clock
        left: at most that; an untimed game's time on the move: at least that): ``player`` is to move, on a turn this
        client did not see begin (:attr:`turn_seen_live`). Our own turn is never one: our thinking counts from our
        verifying the line that gave it, whenever that came."""
        return player == self.turn and not self.turn_clock.seen_live and player != self.my_player

    def thinking_ms(self) -> int:
        """How long (ms) the side to move has thought on this turn, as this client measures it: from its seeing the
        turn begin to now."""
        return self.turn_clock.thinking_ms(self.clock())

    def clock_left(self, player: str) -> int | None:
        """``player``'s clock (ms) now, for a timed game (``None`` when untimed, or before the seats are drawn): the
        official time after their last move (the same for every receiver, from the signed record), less, for the side
        to move, the time since this client saw their turn begin (not on a first move that is off the clock,
        ``rules:2``: :meth:`first_move_left_ms` runs instead)."""
        clocks = self.session.clocks
        if clocks is None or player not in clocks:
            return None
        running = player == self.turn and not self.first_move
        return self.turn_clock.left_ms(clocks[player], self.clock(), running=running)

    @property
    def first_move(self) -> bool:
        """Whether the side to move is on its first move, off its clock (``rules:2``, a timed game): its clock starts
        after it; a claim against a missing one aborts the game."""
        return self.session.first_move_ms is not None

    def first_move_left_ms(self) -> int | None:
        """While the side to move is on its first move, off its clock (:attr:`first_move`): the time that move has
        left, by this client's watch (``None`` otherwise)."""
        limit = self.session.first_move_ms
        return None if limit is None else self.turn_clock.left_ms(limit, self.clock())

    def unexplained_ms(self, player: str) -> int:
        """What the receipts leave unexplained of ``player``'s thinking so far, in ms (0 untimed)."""
        used = self.session.time_used().get(player)
        return 0 if used is None else used.unexplained

    # -- claims on time ----------------------------------------------------------------------
    def silent_ms(self) -> int | None:
        """While the other player is to move: how long (ms) since this client saw their turn begin (our line left;
        the reveal, verified); ``None`` otherwise."""
        if self.me is None or self.watching or self.session.phase is not Phase.PLAYING or self.my_turn:
            return None
        return self.thinking_ms()

    def round_trip_ms(self) -> int:
        """The 95th percentile of the round trips this client measured (its lines to the other's receipts), 0 when
        none is known: what a claim waits beyond the clock and the grace."""
        return round_trip_ms(self.session.answers(), self.my_player)

    def claim_in_ms(self) -> int | None:
        """How long (ms) until this player may claim against the other's silence, by its own watch (0: now; ``None``:
        no claim applies: not playing, or our turn)."""
        remaining = self.session.claim_remaining()  # the other's clock as our receipts watched it
        if self.silent_ms() is None or remaining is None:
            return None
        return self.turn_clock.claim_in_ms(
            self.session.clock,
            remaining,
            self.round_trip_ms(),
            self.clock(),
            witnessed=bool(self.session.witnesses),
        )

    @property
    def answering(self) -> bool:
        """Whether the other player's timeout ended the game on our turn while we may still answer it with a move in
        time (our clock, by our watch, not out): set aside, the move makes the ending a time dispute (``PROTOCOL.md``
        §3). The claimant's times are its own word: a claim met by a present player never wins."""
        return self.answer_left_ms() > 0

    @property
    def unsettled(self) -> bool:
        """Whether the game is over, or seems so, while this player may still act on its ending: answer a timeout of
        its turn with a move (:attr:`answering`), or dispute a winning move that came after its claim
        (:attr:`disputable`). The front ends stay open meanwhile."""
        return self.answering or self.disputable

    def answer_left_ms(self) -> int:
        """While the other's timeout ended the game on our turn, unanswered: our clock now, by our watch (0 else); on a
        first move off the clock (the game aborted), that move's own time."""
        session, player = self.session, self.my_player
        if self.watching or player is None or session.answerable is None:
            return 0
        clocks, result = session.clocks, session.result
        aborted = result is not None and result.reason == ResultReason.ABORTED  # (only a first move's timeout aborts)
        return self.turn_clock.answer_left_ms(
            session.clock, None if clocks is None else clocks[player], self.clock(), aborted=aborted
        )

    def my_flag(self) -> Message | None:
        """This player's flag claim against the turn being played, if it signed one."""
        return self.session.flag_of(self.me) if self.me is not None else None

    def flag_against_me(self) -> Message | None:
        """The other player's flag claim against this player's current turn, if any."""
        other = self.opponent
        return self.session.flag_of(other) if other is not None and self.my_turn else None

    def window_left_ms(self, flag: Message) -> int:
        """How long (ms) the answer window of ``flag`` (a claim against the turn being played) stays open, as this
        client measures it (:meth:`TurnClock.window_left_ms`): never more than the whole window, which is all that a
        client that saw the turn begin after the claim (a watcher arriving late) knows (:meth:`clock_is_bound`)."""
        return self.turn_clock.window_left_ms(
            flag,
            self.session.clock,
            self.clock(),
            ours=flag.signer == self.me,
            witnessed=bool(self.session.witnesses),
        )

    @property
    def disputable(self) -> bool:
        """Whether the other's move that came after our flag claim (:attr:`GameSession.late_move`: it answered the
        claim late, saying it thought in time) may still be disputed here: a timeout in its place, a time dispute
        (``PROTOCOL.md`` §3). Until we play on; a move that ended the game, for a whole answer window after a dispute
        may be signed (the claim's window passed, and the move here), our confirmation held meanwhile (this process
        must have seen it come: a resumed one confirms)."""
        session = self.session
        if self.watching:
            return False
        return self.turn_clock.disputable(
            session.late_move, session.late_flag(), session.clock, self.clock(), over=session.over
        )

    def late_by_ms(self) -> tuple[int, int]:
        """How long (ms) after our claim the disputable move came, and how long we had waited for it, by our watch
        (zeros when none is)."""
        return self.turn_clock.late_by_ms(self.session.late_flag())

    def dispute_in_ms(self) -> int:
        """How long (ms) until ``claim`` may dispute the move that came late after our claim (:attr:`disputable`): the
        claim's answer window must have passed first (``PROTOCOL.md`` §3: within it, a move answers the claim), on the
        claim's clock; 0 once it has (or when there is no such move)."""
        return self.turn_clock.dispute_in_ms(self.session.late_flag(), self.session.clock, self.clock())

    def _dispute(self) -> Outgoing:
        """``claim`` against the move that came after our claim: once the claim's window has passed, a timeout in the
        move's place (it sets the move aside: a time dispute, never a win)."""
        session = self.session
        flag, late = session.late_flag(), session.late_move
        assert flag is not None and flag.now is not None and late is not None
        name = session.name_of(late.signer)
        left = self.dispute_in_ms()
        if left > 0:
            runs = "" if session.over else " (your clock runs meanwhile: a move of yours plays on instead)"
            raise IntentRefused(
                f"{name}'s move came {duration_text(self.late_by_ms()[0])} after your claim, whose "
                f"window to answer runs {duration_text(left)} more: claim then to dispute the "
                f"move{runs}"
            )
        return session.timeout(self.turn_clock.late_clock_ms(self.clock()))

    def _claim(self) -> Outgoing:
        """The ``claim`` command: a host's claim against a guest who never revealed; else, the other player to move,
        a flag claim when their time has run out by this client's watch, then, once its answer window has passed
        unanswered, the timeout that ends the game (:class:`IntentRefused` with the time to wait, before)."""
        session = self.session
        if self.disputable:
            return self._dispute()
        if session.phase is Phase.OFFERED and self.me != session.host:
            raise IntentRefused(
                "the host has seated nobody yet: there is nothing to claim, and nothing binds you to "
                "this game; quit closes it on your side"
            )
        if session.phase is not Phase.PLAYING:
            return session.claim()
        other = self.opponent
        name = session.player_of(other) if other is not None else None
        if self.my_turn or name is None:
            raise IntentRefused("it is your turn: a claim is against the player to move")
        silent = self.thinking_ms()
        flag = self.my_flag()
        if flag is not None:
            left = self.window_left_ms(flag)
            if left > 0:
                raise IntentRefused(
                    f"your claim is open: {name} has {duration_text(left)} to answer it (a move in time, "
                    f"or conceding); then claim again to end the game"
                )
            assert flag.sent is not None
            return session.timeout(flag.sent + silent)
        wait = self.claim_in_ms()
        if wait:
            what = "clock has not run out" if session.clock is not None else "silence has not lasted 7 days"
            raise IntentRefused(f"{name}'s {what} by your watch: you may claim in {duration_text(wait)}")
        now = signed_ms(self.clock())
        return session.flag(now - silent, now)  # when the turn began, and now, on this client's clock

    def claim_ready(self) -> ClaimReady | None:
        """What ``claim`` would sign now, by this client's watch (``None``: nothing; it would be refused): a time
        dispute of the other's late move once our claim's window has passed, a claim on time once their clock has
        run out (grace and round trip included: :meth:`claim_in_ms`), the end of the game once our claim's window has
        passed unanswered."""
        session = self.session
        if self.watching or not self.playing:
            return None
        late = session.late_move
        if self.disputable and late is not None:
            return None if self.dispute_in_ms() else ClaimReady("dispute", session.name_of(late.signer))
        other = self.opponent
        name = session.player_of(other) if other is not None else None
        if session.phase is not Phase.PLAYING or self.my_turn or name is None:
            return None
        flag = self.my_flag()
        if flag is not None:
            return ClaimReady("timeout", name) if self.window_left_ms(flag) == 0 else None
        return ClaimReady("flag", name) if self.claim_in_ms() == 0 else None

    def tick(self) -> Step:
        """What time alone calls for (the runner asks every moment, while a game is played): with ``auto_claim``, a
        flag claim once the other's time has run out by this client's watch, and the timeout once its window has
        passed unanswered; and, whoever set it up, the concession of a player whose clock has run out while the
        other's claim against it is open. Its events tell, once a turn, what ``claim`` would now do, where the client
        does not do it by itself (:class:`ClaimReady`), and that the player's own clock went under 10 s on its turn
        (:class:`ClockLow`)."""
        step = self._timed()
        told = self._tell() if self.live else []
        return dataclasses.replace(step, events=(*step.events, *told)) if told else step

    def _tell(self) -> list[UiEvent]:
        """What :meth:`tick` tells the player, each once a turn."""
        moves = self.session.moves
        told: list[UiEvent] = []
        ready = self.claim_ready()
        by_itself = self.auto_claim and (ready is None or ready.what != "dispute" or self.session.over)
        if ready is not None and not by_itself and self.turn_clock.tell_once(ready.what, moves):
            told.append(ready)
        player = self.my_player
        left = self.clock_left(player) if self.my_turn and player is not None and not self.first_move else None
        if left is not None and self.turn_clock.low(left, moves):
            told.append(ClockLow(left))
        return told

    def _timed(self) -> Step:
        """:meth:`tick`'s signing."""
        session = self.session
        if self.live and session.over and self.auto_claim and self.disputable:
            try:  # the winning move that came after our claim: disputed once the claim's window has passed
                out = self._dispute()
            except (IntentRefused, LocalProtocolError):
                return Step()
            return self._after(list(out.events), out)
        if (
            self.live
            and session.over
            and not self.answering
            and not self.disputable
            and (session.answerable is not None or session.late_move is not None)
        ):
            confirmed = self._confirmation()  # the window for our answer or our dispute has closed: as it stands
            return Step() if confirmed is None else self._after(list(confirmed.events), confirmed)
        if not (self.live and self.playing and self.session.phase is Phase.PLAYING):
            return Step()
        against = self.flag_against_me()
        if against is not None:
            conceded = self._concession(against)
            return Step() if conceded is None else self._after(list(conceded.events), conceded)
        if not self.auto_claim or self.my_turn:
            return Step()
        flag = self.my_flag()
        due = self.window_left_ms(flag) == 0 if flag is not None else self.claim_in_ms() == 0
        if not due:
            return Step()
        try:
            out = self._claim()
        except (IntentRefused, LocalProtocolError):
            return Step()
        return self._after(list(out.events), out)

    def move_clock(self, seq: int) -> tuple[int, int] | None:
        """A timed game's move at main-chain ``seq``: ``(think, left)`` in ms, as it was signed (``None`` otherwise)."""
        return move_clock(self.session.chain, seq)

    # -- lines in ------------------------------------------------------------------
    def feed(self, data: bytes | str, stored: bool = False) -> Step:
        """A line the transport delivered (``stored``: from the relay's store, MQTT's retain flag: a catch-up, or the
        relay asked again; not live, as it was sent). A watcher's talk goes to the gallery, never to the game."""
        if is_talk(data):
            return self._heard(data)
        return self._after(self.session.receive(data), stored=stored)

    # -- the watchers' talk, beside the game ------------------------------------------------
    @property
    def gallery(self) -> Gallery | None:
        """The watchers' talk this client keeps (``None`` before the game's id is known)."""
        game = self.session.game_id
        if self._gallery is None and game is not None:
            self._gallery = Gallery(game)
        return self._gallery

    def _heard(self, data: bytes | str) -> Step:
        """A talk line: kept, and shown unless the player hides the watchers' talk; one refused (a stranger's junk,
        one key too many) is dropped without a word: nothing it says can touch the game."""
        gallery = self.gallery
        if gallery is None:
            return Step()
        try:
            event = gallery.receive(data)
        except RemoteProtocolError:
            return Step()
        return Step(events=(event,)) if event is not None and self.watchers_shown else Step()

    def _talk(self, text: str) -> Step:
        """A watcher's ``say``: its next talk line, signed with its own key (:attr:`talker`), to publish."""
        gallery, talker = self.gallery, self.talker
        if not self.watching:
            raise IntentRefused("players talk to each other with say (the game's chat); the watchers' talk is theirs")
        if gallery is None or talker is None:
            raise IntentRefused("you have no key to sign with here: olixono id makes one")
        try:
            message = gallery.talk(talker, text)
        except LocalProtocolError as exc:
            raise IntentRefused(str(exc)) from None
        return Step((Publish(topic_for(message), message.line),), (TalkReceived(talker.public, message.seq, text),))

    def show_watchers(self, shown: bool) -> Step:
        """``watchers on`` or ``off``: show the watchers' talk from now on, or hide it (nothing is signed)."""
        self.watchers_shown = shown
        return Step(events=(Notice(WATCHERS_SHOWN if shown else WATCHERS_HIDDEN),))

    # -- intents in -------------------------------------------------------------------
    def act(self, intent: Intent) -> Step:
        """Sign and apply what the person asked for, or :class:`IntentRefused` (nothing signed)."""
        session = self.session
        if intent.kind is IntentKind.CHAT and self.watching:
            return self._talk(intent.text)
        if intent.kind is IntentKind.WATCHERS:
            return self.show_watchers(intent.text == "on")
        if not self.playing:
            raise IntentRefused("you are watching this game: only its players can act")
        if intent.kind is IntentKind.UNDO:
            raise IntentRefused(NO_UNDO)
        if (
            intent.kind is not IntentKind.REMATCH
            and session.over
            and intent.kind is not IntentKind.CHAT
            and not (intent.kind is IntentKind.MOVE and self.answering)
            and not (intent.kind is IntentKind.CLAIM and self.disputable)
        ):
            assert session.result is not None
            raise IntentRefused(f"the game is over: {session.result.sentence()}")
        try:
            out = self._sign(intent)
        except LocalProtocolError as exc:
            raise IntentRefused(self._why(intent, exc)) from None
        return self._after(list(out.events), out)

    def _sign(self, intent: Intent) -> Outgoing:
        session = self.session
        if intent.kind is IntentKind.MOVE:
            text = session.check_move(intent.text)
            return session.move(text, self.thinking_ms() if session.clock is not None else None)
        if intent.kind is IntentKind.CHAT:
            return session.chat(intent.text)
        action = {
            IntentKind.RESIGN: session.resign,
            IntentKind.PROPOSE: session.propose,
            IntentKind.WITHDRAW: session.withdraw,
            IntentKind.DECLINE: session.decline,
            IntentKind.AGREE: session.agree,
            IntentKind.ABORT: session.abort,
            IntentKind.CLAIM: self._claim,
            IntentKind.REMATCH: self._ask_rematch,
        }
        if intent.kind is IntentKind.TAKEBACK:
            return self._takeback(refuse=intent.text == "no")
        return action[intent.kind]()

    # -- a takeback -------------------------------------------------------------------
    def takeback_asked(self) -> Message | None:
        """The opponent's takeback line naming the position now, asking or consenting (``None``: none, a refusal, or
        it lapsed when the game went on)."""
        opponent = self.opponent
        line = self.session.takeback_of(opponent) if opponent is not None else None
        return line if line is not None and line.plies else None

    def _takeback(self, refuse: bool = False) -> Outgoing:
        """``takeback``: carry out the opponent's takeback on our turn (the undo), consent to it on theirs, or ask for
        one (having just moved, our move; on our turn, our last move and their reply); ``takeback no`` refuses it."""
        session, theirs = self.session, self.takeback_asked()
        if refuse:
            if theirs is None:
                raise LocalProtocolError("your opponent asked for no takeback here", reason="nothing to refuse")
            return session.takeback(0)
        if theirs is not None:
            return self._undo() if self.my_turn else session.takeback(theirs.plies)
        return session.takeback(2 if self.my_turn else 1)

    def _undo(self) -> Outgoing:
        """Our undo of the takeback the opponent asked for or consented to, on our turn (an undo of one move is on our
        clock, as a move)."""
        return self.session.undo(self.thinking_ms() if self.session.clock is not None else None)

    # -- a rematch ----------------------------------------------------------------------
    def rematch_terms(self, host: PublicKey) -> str:
        """The terms of this game's rematch hosted by ``host``: the same, with the colours swapped (the player seated
        first here is seated second there)."""
        first_here = self.session.seats.get(self.session.board.PLAYERS[0]) if self.session.board is not None else None
        return rematch_terms(self.session.terms or DEFAULT_TERMS, "guest" if first_here == host else "host")

    def _ask_rematch(self) -> Outgoing:
        """Agree to the other player's rematch, or (the first to ask) make the rematch's offer, inviting the other
        player alone, and ask for it; :class:`LocalProtocolError` before the game is over."""
        session, me, opponent = self.session, self.me, self.opponent
        if me is None or opponent is None or not session.over or not session.seats:
            raise LocalProtocolError(
                "a rematch is asked for once a game whose seats were drawn is over", reason="the game is not over"
            )
        asked = session.rematch_of(me) or session.rematch_of(opponent)
        if asked is None:
            identity = session.identity
            assert identity is not None
            offered, out = GameSession.offer(self.kind, identity, invite=opponent, terms=self.rematch_terms(me))
            nxt = type(self)(offered, auto_claim=self.auto_claim)
            self._rematch = (nxt, nxt._after(list(out.events), out))
            asked = nxt.game_id
        return session.ask_rematch(asked)

    @property
    def rematch_open(self) -> bool:
        """Whether this player may still ask for a rematch, or answer the other's: the game is over (and settled), its
        seats were drawn, this client holds one and no rematch is agreed yet. The consoles stay open while it is."""
        session = self.session
        return (
            not self.watching
            and self.me is not None
            and self.opponent is not None
            and session.over
            and not self.unsettled
            and bool(session.seats)
            and session.rematch is None
        )

    @property
    def rematch_asked(self) -> PublicKey | None:
        """Who asked for a rematch, when one did and the other has not answered yet (``None``: nobody, or both)."""
        session = self.session
        asking = [key for key in self.players if session.rematch_of(key) is not None]
        return asking[0] if len(asking) == 1 else None

    @property
    def next_game(self) -> NextGame | None:
        """The rematch both players agreed to (``None``: not agreed, or this client does not play it)."""
        game, me, opponent = self.session.rematch, self.me, self.opponent
        if game is None or me is None or opponent is None or self.watching:
            return None
        mine = self._rematch if self._rematch is not None and self._rematch[0].game_id == game else None
        if mine is None and self.session.rematch_of(opponent) != game:
            return None  # (the game we named, made by another process of ours: its offer is not here)
        host = me if mine is not None else opponent
        return NextGame(game, self.kind, host, self.rematch_terms(host), mine)

    def _why(self, intent: Intent, refused: LocalProtocolError) -> str:
        """One sentence for a refused intent, from the protocol's refusal."""
        session = self.session
        if intent.kind in (IntentKind.MOVE, IntentKind.TAKEBACK):  # (a takeback's sentences say it whole)
            return str(refused)
        if intent.kind is IntentKind.REMATCH:
            return f"no rematch now: {refused.reason}"
        board = self.board
        if intent.kind is IntentKind.ABORT and session.phase is Phase.PLAYING:
            return "only the first player may abort, before their first move: resign instead"
        if (
            session.phase is Phase.PLAYING
            and not self.my_turn
            and intent.kind not in (IntentKind.RESIGN, IntentKind.CHAT)
        ):
            assert board is not None
            if intent.kind in (IntentKind.AGREE, IntentKind.DECLINE) and session.proposal not in (None, self.my_player):
                return f"a proposal is answered on one's own turn: yours comes after {board.turn}'s move"
            return f"it is not your turn: {board.turn} is to move"
        return (
            f"you cannot {intent.kind} now: {refused.reason}" if intent.kind is not IntentKind.CHAT else refused.reason
        )

    # -- what the relay should hold ---------------------------------------------------
    def republish(self) -> list[Publish]:
        """Every line this client keeps on the relay: its own lines (a join not yet accepted too), and copies of
        the other's (or the watched game's lines, for a witness): published again on every (re)connection, for a
        relay that lost them."""
        messages = list(self.session.chain)
        me = self.me
        my_join = self.session.joins.get(me) if me is not None else None
        if my_join is not None and my_join not in messages:
            messages.append(my_join)
        for line in self.session.transcript:
            message = decode(line, verify=False)
            if message.type in NUMBERED_APART:
                messages.append(message)
        messages.extend(decode(line, verify=False) for line in self.session.displaced)  # a disputed claim's answer
        for proof in self.session.seated_proofs:  # the proof travels with the record: the equivocator cannot erase it
            if me is not None and proof.key != me:  # as copies
                messages.extend(decode(line, verify=False) for line in (proof.first, proof.second))
        return [self._placement(message) for message in messages]

    def _placement(self, message: Message) -> Publish:
        me = self.me
        if me is None or message.signer == me:
            return Publish(topic_for(message), message.line)
        return Publish(copy_topic(message, me), message.line, copy=True)

    def presence(self, here: bool, connection: int) -> Publish | None:
        """This player's presence line for connection number ``connection`` (``None`` for a watcher)."""
        if self.watching or connection < 1:
            return None
        hosting = here and self.host_relay and self.me == self.session.host  # the guest learns the relay ends with us
        out = self.session.presence(here, connection, hosting=hosting)
        return Publish(out.topic, out.line)

    # -- what follows from each step ----------------------------------------------------
    def _after(
        self, events: list[Event], own: Outgoing | None = None, *, secret: str | None = None, stored: bool = False
    ) -> Step:
        """What a step caused: lines to journal (all applied ones), to publish (ours, copies, automatic answers)
        (``stored``: a line that came from the relay's store caused it, :meth:`feed`)."""
        publish: list[Publish] = []
        shown: list[Event] = []
        journal: list[str] = []
        proofs: list[EquivocationDetected] = []
        resubscribe = False
        if own is not None and own.message.type is MessageType.JOIN:
            journal.append(own.line)  # a candidate's join is not applied yet: keep it for a resume
        queue = list(events)
        while queue:
            event = queue.pop(0)
            shown.append(event)
            if isinstance(event, LineApplied):
                mine_already = (
                    own is None and event.message.type is MessageType.JOIN and event.message.signer == self.me
                )
                if event.line not in journal and not mine_already:  # our join was journaled when it was signed
                    journal.append(event.line)
                if self.me is not None and event.message.signer != self.me:
                    publish.append(self._placement(event.message))
            elif isinstance(event, EquivocationDetected):
                proofs.append(event)
                for line in (event.first, event.second):  # a restored session reaches the same forfeit
                    if line not in journal:
                        journal.append(line)
                if self.me is not None and self.session.role_of(event.key) is not None and event.key != self.me:
                    publish.extend(self._placement(decode(line, verify=False)) for line in (event.first, event.second))
            elif isinstance(event, Superseded) and event.message.line in self.session.displaced:
                if event.message.line not in journal:  # an answer to a claim, set aside: the dispute's evidence
                    journal.append(event.message.line)
                if self.me is not None and event.message.signer != self.me:
                    publish.append(self._placement(event.message))
            elif isinstance(event, ResyncNeeded):
                resubscribe = True
            elif (
                isinstance(event, (RematchAsked, TakebackAsked))
                and self.me is not None
                and event.message.signer != self.me
            ):
                publish.append(self._placement(event.message))  # copied as every line: the sign that we have it
            follow = self._automatic(event)
            if follow is not None:
                queue.extend(follow.events)
                publish.append(Publish(follow.topic, follow.line))
        for line in self.session.seating_lines():  # what decided a host's seating: a restored session decides alike
            if line not in self._seating_kept:
                self._seating_kept.add(line)
                if line not in journal:
                    journal.append(line)
        if own is not None:
            publish.insert(0, Publish(own.topic, own.line))
        self._note_turn(live=not stored)
        return Step(tuple(publish), tuple(shown), tuple(journal), secret, tuple(proofs), resubscribe)

    def _automatic(self, event: Event) -> Outgoing | None:
        """The protocol's own next step, if this event calls for one of ours."""
        session, me = self.session, self.me
        if me is None or not self.live:
            return None
        if (
            isinstance(event, JoinRequested)
            and self.auto_accept
            and session.host == me
            and session.phase is Phase.OFFERED
        ):
            return session.accept(event.key)
        if isinstance(event, GuestAccepted) and event.key == me and session.phase is Phase.ACCEPTED and session.secret:
            return session.reveal()
        if isinstance(event, GameOver) and not self.watching and session.role_of(me) is not None and session.over:
            # a timeout we may yet answer, a late move we may yet dispute: not confirmed
            return None if self.answering or self.disputable else self._confirmation()
        if isinstance(event, TakebackAsked) and not self.watching and self.my_turn and event.player != self.my_player:
            mine = session.takeback_of(me)  # our own asking, which the opponent's line consents to: carried out
            if mine is not None and mine.plies == event.plies > 0:
                return self._undo()
        if isinstance(event, LineApplied) and event.message.type is MessageType.FLAG:
            self.turn_clock.flag_came(event.message, self.clock())
            return None if self.watching else self._concession(event.message)
        if isinstance(event, LineApplied) and event.message.type is MessageType.MOVE and event.message.signer != me:
            self._note_late(event.message)
        if isinstance(event, LineApplied) and session.clock is not None and not self.watching:
            line = event.message
            if line.type is MessageType.RECEIPT and line.signer != me:
                self.turn_clock.line_receipted(line.seq, self.clock())  # the other has our line at line.seq
            elif begins_turn(line) and line.signer == me:
                self.turn_clock.line_left(line.seq, self.clock())  # ours, leaving now
            elif begins_turn(line):
                if line.type is MessageType.REVEAL:  # the guest's first move answers it: its turn began here now
                    self.turn_clock.line_left(line.seq, self.clock())
                return self._receipt(line)
        return None

    def _note_late(self, move: Message) -> None:
        """The other's move came after our flag claim against its turn: noted, if late enough that ``claim`` may
        dispute it (:meth:`TurnClock.note_late`; a move in time that the network slowed is no such move)."""
        session = self.session
        flag = session.late_flag()
        if flag is None or session.late_move != move:
            return
        player = session.player_of(move.signer) or ""
        self.turn_clock.note_late(move, flag, player, session.clock, session.moves, self.clock())

    def _receipt(self, line: Message) -> Outgoing | None:
        """A timed game's receipt of ``line`` (the other's move, or the reveal), at once: when this client verified
        it, when its own line before it left, and when it had the other's receipt of that (``None``: not ours to
        receipt, or receipted already)."""
        session, me = self.session, self.me
        if me is None or session.clock is None or session.role_of(me) is None or session.over or line.signer == me:
            return None
        before = last_turn_line(session.chain, line.seq)
        recv, sent, ack = self.turn_clock.receipt_times(before.seq if before is not None else None, self.clock())
        try:
            return session.receipt(line.seq, recv, sent, ack)
        except LocalProtocolError:
            return None

    def _concession(self, flag: Message) -> Outgoing | None:
        """The other's flag claim against our turn when our own clock has run out too: concede at once (a move in
        time would answer it; we have none to make)."""
        if flag.signer == self.me or self.flag_against_me() is None or self.session.clock is None:
            return None
        player = self.my_player
        if player is None or self.clock_left(player) != 0:
            return None
        try:
            return self.session.timeout()
        except LocalProtocolError:
            return None

    def _confirmation(self) -> Outgoing | None:
        """This player's confirmation of the ending, unless its latest says so already (or it may sign no more: a
        loser who keeps changing the ending by equivocating cannot make this client fail)."""
        try:
            return self.session.confirm()
        except LocalProtocolError:
            return None

    def seated_elsewhere(self, event: UiEvent) -> bool:
        """Whether ``event`` seats another guest than this client, which had asked for the seat: from now on it
        watches (its own lines, presence included, would only be refused)."""
        if not (self._asked and isinstance(event, GuestAccepted) and event.key != self.me and not self.watching):
            return False
        self.watching = True
        return True

    def ready(self) -> Step:
        """The first catch-up with the relay is done: from now on the automatic answers go out, and any the
        catch-up calls for are signed now (a join to accept, a coin to reveal, an ending to confirm)."""
        self.live = True
        session, me = self.session, self.me
        if me is None or self.watching:
            return Step()
        out: Outgoing | None = None
        if self.auto_accept and session.host == me and session.phase is Phase.OFFERED and session.joins:
            out = session.accept(min(session.joins, key=lambda key: session.joins[key].hash))
        elif session.guest == me and session.phase is Phase.ACCEPTED and session.secret:
            out = session.reveal()
        elif session.role_of(me) is not None and session.over and not self.answering and not self.disputable:
            out = self._confirmation()
        elif session.phase is Phase.PLAYING:  # a timed game's last turn line, verified while catching up: now
            last = last_turn_line(session.chain)
            out = self._receipt(last) if last is not None else None
        return Step() if out is None else self._after(list(out.events), out)

    # -- starting a game ------------------------------------------------------------------
    @classmethod
    def hosting(
        cls,
        kind: str,
        identity: Identity,
        *,
        invite: PublicKey | None = None,
        control: TimeControl | None = None,
        witnesses: Sequence[PublicKey] = (),
        rules: str = DEFAULT_TERMS,
    ) -> tuple[GameCore, Step]:
        """A new game hosted by ``identity`` (``control``: its time control; none, untimed; ``witnesses``: the time
        witnesses it names, none to three; ``rules``: the rules term, ``rules:2`` unless a game must be played as
        older clients play it, ``rules:1``, whose first moves are on the clock): the core, and the offer to journal
        and publish."""
        terms = ",".join(
            sorted(
                [
                    rules,
                    *([control.term] if control is not None else []),
                    *([witness_term(witnesses)] if witnesses else []),
                ]
            )
        )
        session, out = GameSession.offer(kind, identity, invite=invite, terms=terms)
        core = cls(session)
        return core, core._after(list(out.events), out)

    def join(self) -> Step:
        """Ask for the guest's seat (the offer must have arrived): the join to journal and publish, and its secret."""
        try:
            out = self.session.join()
        except LocalProtocolError as exc:
            raise IntentRefused(f"cannot join: {exc}") from None
        self._asked = True
        return self._after(list(out.events), out, secret=self.session.secret)
