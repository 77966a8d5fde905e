"""Liveness: what a client does when a game goes quiet, as decisions over the clock and the game's state (no I/O).

A relay (or a bridge between two) may drop one delivery; a TCP connection may stay open with nobody at the other
end. Neither may stall a game in silence. The runner tells a :class:`Liveness` what it sent and what came back, asks
it every :data:`TICK` s what to do (:meth:`Liveness.tick`), and does it:

- **acknowledgements.** Each line of this player's (presence aside) waits for a sign that the opponent has it: a
  later main-chain line of the opponent's (the usual sign, in a game that flows), or the opponent's copy of it
  (``PROTOCOL.md`` §7: every client copies the other's lines as it verifies them, before it signs its own next
  one). Copies are not sent to a player unasked (they would cost every move a delivery): with no sign after a few
  round trips (:data:`ACK_ROUND_TRIPS`, at least :data:`ACK_FIRST` s) while the opponent is not known to be gone,
  the client asks the relay for that one copy (:class:`AskCopy`: a retained copy comes at once); with still none
  after as long again, the line is sent again (:class:`Resend`: the relay forwards it once more, and the same line
  on its topic changes nothing there), then after twice as long, and so on up to :data:`ACK_MOST` s between two.
  The person is told the first time, and after :data:`TELL_AFTER` s how long it has waited. With the opponent gone,
  only a line the relay has not sent back is sent again (on their return they catch up with what the relay
  retains, but it may lack that one).
- **the connection.** MQTT sends a subscriber its own lines back: a line of ours that never comes back after
  :data:`DEAD_AFTER_TRIES` sends says the connection is dead though TCP has not noticed (half-open):
  :class:`Reconnect`.
- **gaps.** The game's offer that has not come, a line that waits for one before it that has not (the relay kept
  no order, or lost one), or a confirmation that names an ending beyond what arrived: after a few round trips, the
  client asks the relay again (:class:`Resubscribe`: it resends what it retains), and again after twice as long
  while the gap stays.
- **a quiet opponent.** On the opponent's turn, with the opponent here, after :data:`QUIET_FIRST` s the relay is
  asked again, silently, in case their line was lost on its way (then after twice as long, up to :data:`QUIET_MOST`
  s); when the opponent leaves while this client waits on them, once at once (their last line may have been lost). Once
  asking has brought a line that live delivery had not (a relay that withholds: the line came with the retain flag, from
  the relay's store, soon after the asking; an opponent who moved just then is no such sign), it asks after a few round
  trips instead.

The round trip is measured from this client's own lines: from sending one to the relay sending it back.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.messages import line_hash

TICK = 0.25
"""Seconds between two looks."""
RTT_GUESS = 0.2
"""The round trip assumed before one is measured (seconds)."""
ACK_ROUND_TRIPS = 4
ACK_FIRST = 1.0
"""The least a line waits for its acknowledgement before it is sent again (seconds)."""
ACK_MOST = 30.0
"""The most between two sends of one line (seconds)."""
TELL_AFTER = 20.0
"""After this long without a sign (seconds), each send again says how long it has been."""
DEAD_AFTER_TRIES = 3
"""Sends of one line (the first one included) that never come back before the connection is made again."""
QUIET_FIRST, QUIET_MOST = 10.0, 300.0
"""Seconds of the opponent's turn (they being here) before the relay is asked again; the most between two asks."""
GAP_MOST = 60.0
KEPT = 64
"""Lines of ours waiting for a sign, at most (the oldest are forgotten: a later one's sign covers them)."""


@dataclass(frozen=True, slots=True)
class Resend:
    """Send this line of ours again."""

    topic: str
    line: str


@dataclass(frozen=True, slots=True)
class AskCopy:
    """Ask the relay for the opponent's copy of this line of ours (by its hash): it comes at once if they keep one."""

    line_hash: str


@dataclass(frozen=True, slots=True)
class Resubscribe:
    """Ask the relay for the game's retained lines again."""


@dataclass(frozen=True, slots=True)
class Reconnect:
    """The connection is dead though TCP says nothing: make it again."""


@dataclass(frozen=True, slots=True)
class Tell:
    """A sentence for the person."""

    text: str


Action = AskCopy | Resend | Resubscribe | Reconnect | Tell


@dataclass(frozen=True, slots=True)
class View:
    """What :meth:`Liveness.tick` needs of the game, as the runner sees it now."""

    opponent: str | None
    """The opponent as people see them (``None``: no opponent known, or this client watches)."""
    present: bool | None
    """Whether the opponent's client says it is connected (``None``: it has said nothing yet)."""
    answered: int
    """The highest ``seq`` of the opponent's main-chain lines (``-1``: none)."""
    their_turn: bool
    """The game waits on the opponent's line (their move, or their answer)."""
    gap: str | None
    """What has not come though it should have, in words (``None``: nothing): the game's offer, a line that one
    after it waits for, the ending a confirmation names."""
    connected: bool
    asked_for: bool = False
    """Whether the opponent's line at ``answered`` came from the relay's store (the MQTT retain flag: a catch-up, or
    this client asking again), not delivered live as it was published."""


@dataclass(slots=True)
class _Pending:
    topic: str
    line: str
    seq: int | None  # a main-chain line's seq, which a later line of the opponent's answers (None: a side line)
    what: str
    first: float
    due: float
    tries: int = 1
    asked: bool = False  # whether the opponent's copy of it was asked for
    echoed: bool = False
    sent_at: float | None = None  # its last send, until the relay sends it back (the round trip)


class Liveness:
    """The decisions of the module docstring, for one game; times are the event loop's clock, in seconds."""

    def __init__(self) -> None:
        self.rtt: float | None = None
        """The latest measured round trip, smoothed (seconds)."""
        self._pending: dict[str, _Pending] = {}  # by line hash
        self._by_topic: dict[str, str] = {}  # topic: hash of the line waiting there
        self._gap_since: float | None = None
        self._gap_next = 0.0
        self._gap_wait = 0.0
        self._quiet_since: float | None = None
        self._quiet_next = 0.0
        self._quiet_wait = QUIET_FIRST
        self._answered = -1
        self._present: bool | None = None
        self._asked_at: float | None = None  # when the quiet opponent's turn last made us ask the relay again
        self.lossy = False
        """Asking again brought a line that live delivery had not: from now on, ask as soon as a line is overdue."""

    @property
    def waiting(self) -> int:
        """Lines of ours without a sign yet that the opponent has them."""
        return len(self._pending)

    def waiting_in_chain(self) -> int:
        """Lines of ours in the main chain (chat and confirmations aside) without a sign yet that the opponent has
        them: the ones a game waits on."""
        return sum(1 for pending in self._pending.values() if pending.seq is not None)

    def unechoed(self) -> int:
        """Lines of ours the relay has not sent back yet (it may lack them: nobody else can send them again)."""
        return sum(1 for pending in self._pending.values() if not pending.echoed)

    def ask_all(self, now: float) -> list[AskCopy]:
        """Ask at once for the opponent's copy of every line of ours the relay has and they have not answered (one
        who leaves does not wait for the first ask)."""
        return [
            self._ask(digest, pending, now)
            for digest, pending in self._pending.items()
            if pending.echoed and not pending.asked
        ]

    def _ask(self, digest: str, pending: _Pending, now: float) -> AskCopy:
        """Ask for the opponent's copy of ``pending`` once; what comes next is due after as long again."""
        pending.asked, pending.due = True, now + self.ack_wait()
        return AskCopy(digest)

    def ack_wait(self) -> float:
        return max(ACK_FIRST, ACK_ROUND_TRIPS * (self.rtt if self.rtt is not None else RTT_GUESS))

    # -- what the runner tells it --------------------------------------------------------------
    def sent(self, topic: str, line: str, now: float, *, seq: int | None, what: str, echoed: bool = False) -> None:
        """A line of ours went to the relay (``seq``: its main-chain number; ``what``: ``move 12``, ``chat``…), or
        (``echoed``) the relay is known to have it already."""
        digest = line_hash(line)
        if digest in self._pending:
            if not echoed:
                self._pending[digest].sent_at = now
            return
        if len(self._pending) >= KEPT:
            oldest = next(iter(self._pending))
            self._forget(oldest)
        self._pending[digest] = _Pending(
            topic, line, seq, what, now, now + self.ack_wait(), echoed=echoed, sent_at=None if echoed else now
        )
        self._by_topic[topic] = digest

    def came_back(self, topic: str, payload: bytes, now: float) -> None:
        """A line arrived on one of our own topics: the relay has it, and the round trip is measured."""
        digest = self._by_topic.get(topic)
        if digest is None:
            return
        pending = self._pending.get(digest)
        if pending is None or payload != pending.line.encode("utf-8"):
            return
        pending.echoed = True
        if pending.sent_at is not None:
            sample = now - pending.sent_at
            self.rtt = sample if self.rtt is None else 0.8 * self.rtt + 0.2 * sample
            pending.sent_at = None

    def copied(self, digest: str) -> None:
        """The opponent keeps a copy of our line with this hash: they have it."""
        if digest in self._pending:
            self._forget(digest)

    def _forget(self, digest: str) -> None:
        pending = self._pending.pop(digest)
        if self._by_topic.get(pending.topic) == digest:
            del self._by_topic[pending.topic]

    # -- what to do -------------------------------------------------------------------------
    def tick(self, now: float, view: View) -> list[Action]:
        """What to do now (in this order)."""
        if not view.connected:
            return []  # the link reconnects by itself, and then publishes again what the relay lacks
        actions: list[Action] = []
        for digest, pending in list(self._pending.items()):  # answered by a later line of the opponent's
            if pending.seq is not None and view.answered > pending.seq:
                self._forget(digest)
        if view.opponent is not None:
            actions += self._acknowledgements(now, view)
        actions += self._gaps(now, view)
        actions += self._quiet(now, view)
        return actions

    def _acknowledgements(self, now: float, view: View) -> list[Action]:
        actions: list[Action] = []
        for digest, pending in self._pending.items():
            if now < pending.due or (view.present is False and pending.echoed):
                continue  # they are away: on their return they catch up with what the relay retains
            if pending.tries >= DEAD_AFTER_TRIES and not pending.echoed:
                for each in self._pending.values():  # the new connection sends them all again
                    each.tries, each.due, each.sent_at = 1, now + self.ack_wait(), None
                return [
                    Tell(
                        f"the relay has not sent back your {pending.what} after {now - pending.first:.0f} s: "
                        "connecting again"
                    ),
                    Reconnect(),
                ]
            if not pending.asked and pending.echoed:  # the relay has it: first, whether they have it already
                actions.append(self._ask(digest, pending, now))
                continue
            waited = now - pending.first
            pending.tries += 1
            pending.due = now + min(ACK_MOST, self.ack_wait() * 2 ** (pending.tries - 1))
            pending.sent_at = now
            actions.append(Resend(pending.topic, pending.line))
            if pending.tries == 2 and view.present is False:
                actions.append(
                    Tell(
                        f"the relay has not sent back your {pending.what} (for {view.opponent}, who is "
                        "away): sent it again"
                    )
                )
            elif pending.tries == 2:
                actions.append(Tell(f"no sign yet that {view.opponent} has your {pending.what}: sent it again"))
            elif waited >= TELL_AFTER:
                actions.append(
                    Tell(
                        f"still no sign that {view.opponent} has your {pending.what}, after "
                        f"{_duration(waited)}: sent it again"
                    )
                )
        return actions

    def _gaps(self, now: float, view: View) -> list[Action]:
        if not view.gap:
            self._gap_since = None
            return []
        if self._gap_since is None:
            self._gap_since, self._gap_wait = now, self.ack_wait()
            self._gap_next = now + self._gap_wait
        if now < self._gap_next:
            return []
        waited = now - self._gap_since
        self._gap_wait = min(GAP_MOST, self._gap_wait * 2)
        self._gap_next = now + self._gap_wait
        return [Resubscribe(), Tell(f"{view.gap} (for {_duration(waited)}): asked the relay again")]

    def _quiet(self, now: float, view: View) -> list[Action]:
        left = self._present is True and view.present is False
        self._present = view.present
        waiting = view.their_turn and view.opponent is not None
        actions: list[Action] = []
        answered = view.answered != self._answered
        came_when_asked = view.asked_for and self._asked_at is not None and now - self._asked_at <= self.ack_wait() * 2
        if answered and came_when_asked and not self.lossy:  # the answer came when asked for, not live
            self.lossy = True
            actions.append(Tell("the relay seems to lose lines on their way here: asking it again sooner"))
        if not waiting or answered or self._quiet_since is None:
            first = self.ack_wait() if self.lossy else QUIET_FIRST
            self._answered, self._quiet_since, self._asked_at = view.answered, (now if waiting else None), None
            self._quiet_wait, self._quiet_next = first, now + first
        if not waiting:
            return actions
        if left:
            return [
                Resubscribe(),
                Tell(f"{view.opponent} left while the game waits on them: asked the relay for their last lines"),
            ]
        if view.present is not True or now < self._quiet_next:
            return actions
        self._quiet_wait = min(QUIET_MOST, self._quiet_wait * 2)
        self._quiet_next, self._asked_at = now + self._quiet_wait, now
        # asked silently: an opponent who thinks is no news, and a line that comes when asked for is told above
        return [*actions, Resubscribe()]


def _duration(seconds: float) -> str:
    """``12 s``, ``3 min 05 s``."""
    whole = int(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60:02d} s"
