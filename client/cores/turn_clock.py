"""A network game's turn as this client's watch measures it, sans I/O: when it saw the turn begin, the times its
receipts and claims sign, what a claim waits, an answer window, a move that came late after a claim.

The rules are the protocol's: what a claim waits, how long its window stays open, how much a dispute needs
(:mod:`protocol.clock`), and what the record holds of receipts and claims (:mod:`protocol.claims`, read through the
judge's views). A :class:`TurnClock` only keeps what this client saw and when, and applies those rules to it. It reads
no clock and signs nothing: each method is given what it needs, the game's time control, the judge's views and
``now`` (a reading of the client's monotonic clock, in seconds), and the core
(:class:`client.cores.network_game.GameCore`) signs what it finds due.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from client.cores.clock import LOW_MS
from protocol.clock import Answer, TimeControl, answer_window, claim_after, dispute_bound
from protocol.domain import MessageType
from protocol.messages import Message
from protocol.rules import begins_turn

ORIGIN_MS = 365 * 24 * 3600 * 1000
"""Added to the monotonic clock's readings in the times this client signs (receipts, claims): the protocol takes any
origin, and a process started soon after the machine was may resume a turn that began before it, its start below the
monotonic clock's zero (times are never negative on the wire). A year of a turn's start before that zero is kept
exact; an older one is taken as a year (a claim then waits longer, never less)."""

WITNESS_MARGIN_MS = 2000
"""In a game with time witnesses, how much longer than its own watch says a claimant waits before its flag claim, and
before the timeout that closes its window: the witnesses judge both on their times (``PROTOCOL.md`` §3), which may
have seen the turn begin, or the claim come, a little later than this client did, and what they find early is
void."""


def signed_ms(seconds: float) -> int:
    """A reading of the client's monotonic clock as the times this client signs (ms, from :data:`ORIGIN_MS` before its
    zero)."""
    return round(seconds * 1000) + ORIGIN_MS


def last_turn_line(chain: Sequence[Message], before: int | None = None) -> Message | None:
    """The last line that gave a turn (a move, or the reveal), of the whole ``chain`` or before seq ``before``."""
    return next((line for line in reversed(chain[:before]) if begins_turn(line)), None)


def move_clock(chain: Sequence[Message], seq: int) -> tuple[int, int] | None:
    """A timed game's move at ``seq`` of the main ``chain``: ``(think, left)`` in ms, as it was signed (``None``
    otherwise)."""
    message = chain[seq] if 0 <= seq < len(chain) else None
    think, left = (message.get("think"), message.get("left")) if message is not None else (None, None)
    if message is None or message.type is not MessageType.MOVE or think is None or left is None:
        return None
    return int(think), int(left)


def round_trip_ms(answers: Iterable[Answer], mine: str | None) -> int:
    """The 95th percentile of the round trips the player ``mine`` measured (its lines to the other's receipts, over the
    judge's ``answers``), 0 when none is known: what a claim waits beyond the clock and the grace."""
    trips = sorted(answer.round_trip for answer in answers if answer.player != mine and answer.round_trip is not None)
    return trips[min(len(trips) - 1, len(trips) * 95 // 100)] if trips else 0


class TurnSeen(NamedTuple):
    """When this client saw a turn begin."""

    moves: int
    """The moves played before the turn."""
    at: float
    """When, by the client's monotonic clock (seconds)."""


@dataclass(frozen=True, slots=True)
class LateMove:
    """The other's move that came after our flag claim against its turn, late: its thinking leaves more of our wait
    unexplained than a claim may (what ``claim`` may dispute)."""

    move: str
    """The move's hash."""
    came_ms: int
    """When it came, on our watch (as the times this client signs, :func:`signed_ms`)."""
    claim_clock_ms: int
    """The claim's clock when it came: the turn's start, as the claim says, plus our watch of the turn."""
    waited_ms: int
    """How long we had waited for it by then, by our watch."""


class TurnClock:
    """One client's watch of a game's turns: when it saw the current one begin, when its own turn lines left and the
    other's receipts of them came, when each flag claim came, the late move it may dispute, and what time alone told
    the player in which turn."""

    def __init__(self) -> None:
        self.turn: TurnSeen | None = None
        """When this client saw the current turn begin (``None``: nobody is to move)."""
        self.seen_live = False
        """Whether this client saw the current turn begin as it happened (:meth:`note_turn`)."""
        self.late: LateMove | None = None
        """The other's move that came late after our claim (:meth:`note_late`)."""
        self._sent: dict[int, int] = {}  # when (signed ms) each turn line of ours left, by its seq
        self._acks: dict[int, int] = {}  # when (signed ms) the other's receipt of each line of ours came, by its seq
        self._flags_seen: dict[str, int] = {}  # when (signed ms) each flag claim came, by its hash
        self._told: dict[str, int] = {}  # what time alone told the player (a ClaimReady's what, "low"): in which turn

    # -- the turn -------------------------------------------------------------------------------------
    def note_turn(self, moves: int | None, now: float, *, kept: bool = False, live: bool = True) -> None:
        """Note when this client saw the current turn begin, the turn after ``moves`` moves (``None``: nobody is to
        move): the line that gave it (the opponent's move, or the reveal for the first) verified, or our own move
        signed; lines that leave the turn where it is (a proposal) change nothing. ``kept``: the turn's start outlives
        the game's end (a timeout of our turn that we may answer); ``live``: whether the lines that began it came as
        they were sent (not from the relay's store)."""
        if moves is None:
            if not kept:
                self.turn = None
        elif self.turn is None or self.turn.moves != moves:
            self.turn = TurnSeen(moves, now)
            self.seen_live = live

    def resume(
        self, moves: int, seconds_ago: float, now: float, *, current: int, kept: bool = False, ours: int | None = None
    ) -> None:
        """A resumed game: the turn after ``moves`` moves began ``seconds_ago`` (as the journal says), if that is the
        turn noted (``current``: the moves played now; ``kept``: as :meth:`note_turn`'s). ``ours``: the seq of our
        line that began it, on the other's turn: it left then."""
        if (self.turn is None and not kept) or (self.turn is not None and self.turn.moves != moves):
            return
        if moves != current:
            return
        began = now - min(max(0.0, seconds_ago), ORIGIN_MS / 1000)
        self.turn = TurnSeen(moves, began)
        self.seen_live = True  # as this client saw it then, by its journal
        if ours is not None:
            self._sent.setdefault(ours, signed_ms(began))

    def thinking_ms(self, now: float) -> int:
        """How long (ms) the side to move has thought on this turn, by this watch: from its seeing the turn begin to
        ``now``."""
        return 0 if self.turn is None else max(0, round((now - self.turn.at) * 1000))

    def left_ms(self, clock_ms: int, now: float, *, running: bool = True) -> int:
        """A clock of ``clock_ms`` at the turn's start, ``now``: less the thinking on this turn if it is ``running``
        (the side to move's)."""
        return max(0, clock_ms - (self.thinking_ms(now) if running else 0))

    def low(self, left_ms: int | None, moves: int) -> bool:
        """Whether to tell the player to move that its clock (``left_ms``, ``None``: not running) went under
        :data:`client.cores.clock.LOW_MS`: once in the turn after ``moves`` moves."""
        return left_ms is not None and 0 < left_ms < LOW_MS and self.tell_once("low", moves)

    def tell_once(self, what: str, moves: int) -> bool:
        """Whether ``what`` is yet to be told in the turn after ``moves`` moves (it counts as told from now on)."""
        if self._told.get(what) == moves:
            return False
        self._told[what] = moves
        return True

    # -- receipts -----------------------------------------------------------------------------------------
    def line_left(self, seq: int, now: float) -> None:
        """A line of ours that gave the other its turn, at ``seq``, left ``now`` (or the reveal, verified: the guest's
        first move answers it)."""
        self._sent.setdefault(seq, signed_ms(now))

    def line_receipted(self, seq: int, now: float) -> None:
        """The other's receipt of our line at ``seq`` came ``now``."""
        self._acks.setdefault(seq, signed_ms(now))

    def receipt_times(self, before: int | None, now: float) -> tuple[int, int | None, int | None]:
        """What a receipt signed ``now`` says: when this client verified the line (now), when its own line before it
        (at seq ``before``) left, and when it had the other's receipt of that (``None``: not known)."""
        if before is None:
            return signed_ms(now), None, None
        return signed_ms(now), self._sent.get(before), self._acks.get(before)

    def round_trip(self, seq: int) -> int | None:
        """The round trip (ms) of our line at ``seq``: from its leaving to the other's receipt of it (``None``: not
        known)."""
        sent, acked = self._sent.get(seq), self._acks.get(seq)
        return acked - sent if sent is not None and acked is not None else None

    # -- claims on time -----------------------------------------------------------------------------------
    def flag_came(self, flag: Message, now: float) -> None:
        """A flag claim came ``now``: the other's claim's window runs from here (:meth:`window_left_ms`)."""
        self._flags_seen.setdefault(flag.hash, signed_ms(now))

    def claim_in_ms(
        self, control: TimeControl | None, remaining: int, round_trip: int, now: float, *, witnessed: bool = False
    ) -> int:
        """How long (ms) until a claim against the player to move (``remaining`` on its clock at the turn's start, as
        a claim is judged) is due by this watch, 0 now: the protocol's wait (:func:`protocol.clock.claim_after`),
        ``round_trip`` (:func:`round_trip_ms`) and, ``witnessed``, :data:`WITNESS_MARGIN_MS`, from the turn's start."""
        margin = WITNESS_MARGIN_MS if witnessed else 0
        return max(0, claim_after(control, remaining) + round_trip + margin - self.thinking_ms(now))

    def answer_left_ms(
        self, control: TimeControl | None, clock_ms: int | None, now: float, *, aborted: bool = False
    ) -> int:
        """While the other's timeout of our turn stands unanswered: how long (ms) a move of ours may still answer it,
        by this watch: our clock (``clock_ms``, at the turn's start; ``None``: untimed, our silence short of a claim's
        days); the game ``aborted`` (a first move's timeout), that move's own time. 0 with no turn's start kept:
        nothing shows we were here in time."""
        if self.turn is None:
            return 0
        thought = self.thinking_ms(now)
        if clock_ms is None:
            return max(0, claim_after(None, 0) - thought)
        if aborted and control is not None:
            return max(0, control.first_move_ms - thought)
        return max(0, clock_ms - thought)

    def window_left_ms(
        self, flag: Message, control: TimeControl | None, now: float, *, ours: bool, witnessed: bool = False
    ) -> int:
        """How long (ms) the answer window of ``flag`` (a claim against the turn being played; ``ours``: our own)
        stays open by this watch: from the other's claim's coming here (its times are not on our clock; the network's
        delay is ours to lose); else (ours, or one known only from a resume) from the claim's own times and this
        client's seeing the turn begin. Never more than the whole window (a client that saw the turn begin after the
        claim knows only that much); ours in a ``witnessed`` game, :data:`WITNESS_MARGIN_MS` more (our timeout must
        come a whole window after the claim as the witnesses time it too)."""
        assert flag.sent is not None and flag.now is not None
        window = answer_window(control)
        if ours and witnessed:
            window += WITNESS_MARGIN_MS
        seen = self._flags_seen.get(flag.hash)
        if not ours and seen is not None:
            return max(0, window - (signed_ms(now) - seen))
        return max(0, min(window, window - (self.thinking_ms(now) - (flag.now - flag.sent))))

    # -- a move that came late after our claim ----------------------------------------------------------
    def note_late(
        self, move: Message, flag: Message, player: str, control: TimeControl | None, moves: int, now: float
    ) -> None:
        """The other's ``move`` (``player``'s) came ``now`` after our ``flag`` claim against its turn: noted as late
        (:attr:`late`) if its thinking leaves more of our wait unexplained than a claim may
        (:func:`protocol.clock.dispute_bound`: a live game's), by the receipts' own rule
        (:attr:`protocol.clock.Answer.unexplained`: this turn's round trip, as far as the lag allowance goes, and the
        slack); a move in time that the network slowed is no such move. When it may be disputed at once, that counts
        as told (its sentence says so) in the turn after ``moves`` moves."""
        bound = dispute_bound(control)
        if flag.sent is None or bound is None or self.turn is None:
            return
        waited = self.thinking_ms(now)
        answer = Answer(player, int(move.get("think") or 0), waited, self.round_trip(flag.seq))
        if (answer.unexplained or 0) > bound:
            self.late = LateMove(move.hash, signed_ms(now), flag.sent + waited, waited)
            if not self.dispute_in_ms(flag, control, now):
                self._told["dispute"] = moves

    def late_clock_ms(self, now: float) -> int:
        """``now`` on the clock of our claim that the late move came after."""
        assert self.late is not None
        return self.late.claim_clock_ms + signed_ms(now) - self.late.came_ms

    def disputable(
        self, late_move: Message | None, flag: Message | None, control: TimeControl | None, now: float, *, over: bool
    ) -> bool:
        """Whether the judge's ``late_move`` (after our ``flag``) is the one noted late, and may still be disputed: the
        game goes on (``over``: not); a move that ended the game, for a whole answer window after a dispute may be
        signed (the claim's window passed, and the move here)."""
        late = self.late
        if late_move is None or late is None or late.move != late_move.hash:
            return False
        if not over:
            return True
        if flag is None or flag.now is None:
            return False
        window = answer_window(control)
        opens = max(late.claim_clock_ms, flag.now + window)  # on the claim's clock: a dispute may be signed from then,
        return self.late_clock_ms(now) < opens + window  # and is held open for a whole window after

    def late_by_ms(self, flag: Message | None) -> tuple[int, int]:
        """How long (ms) after our ``flag`` claim the late move came, and how long we had waited for it, by our watch
        (zeros when none is)."""
        if self.late is None or flag is None or flag.now is None:
            return 0, 0
        return max(0, self.late.claim_clock_ms - flag.now), self.late.waited_ms

    def dispute_in_ms(self, flag: Message | None, control: TimeControl | None, now: float) -> int:
        """How long (ms) until the late move may be disputed: the answer window of our ``flag`` must have passed first
        (``PROTOCOL.md`` §3: within it, a move answers the claim), on the claim's clock; 0 once it has (or when there
        is no such move)."""
        if self.late is None or flag is None or flag.now is None:
            return 0
        return max(0, answer_window(control) - (self.late_clock_ms(now) - flag.now))
