"""Time controls, sans I/O: what the offer's terms say of the clock, and the rule every receiver applies to it.

A game is untimed (its terms name no clock), live (``clock:BASE+INCREMENT``, in seconds: ``clock:300+3`` is five
minutes and three seconds a move) or correspondence (``days:N``: N days a move). In a timed game each move carries
its mover's own measure of its thinking time (``think=``, milliseconds) and the time left on the mover's clock after
it (``left=``), which must follow from the signed record alone by :meth:`TimeControl.after`::

    live:            left = max(0, remaining - max(think, FLOOR_MS)) + increment     (think < remaining)
    correspondence:  left = N days                                                    (think < N days)

so the clock is the same for both players and every watcher, computed from signed data; the network's
delay is never charged to either side (``PROTOCOL.md`` §3).

Under the rules of ``rules:2`` offers each player's clock starts with its first move, as on lichess: that move's
thinking is not charged (:meth:`TimeControl.first`: ``left`` is the clock at the start, no increment added) but must be
below :attr:`TimeControl.first_move_ms`, derived from the control (so every offer names it already); a player who
makes no first move in that time can be claimed against like a flag, and the game then ends aborted, not lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FLOOR_MS = 100
"""The least thinking a live move is charged: a client that claims less (zero, say) is charged this."""
MAX_BASE_S = 3 * 3600
MAX_INCREMENT_S = 600
MAX_DAYS = 30
DAY_MS = 24 * 3600 * 1000
MAX_THINK_MS = MAX_DAYS * DAY_MS
"""No move's ``think=`` is more (above 2**31, below 2**32: implementations count in 64-bit integers)."""

FIRST_MOVE_MIN_MS = 30_000
"""A live game's first-move limit is the larger of this (lichess's, for fast games) and :data:`FIRST_MOVE_SHARE` of
the base; a correspondence game's is its N days."""
FIRST_MOVE_SHARE = 10
"""(one tenth of the base: a minute and a half for 15 minutes, 18 minutes for 3 hours)"""

_CLOCK = re.compile(r"([1-9][0-9]{0,4})\+(0|[1-9][0-9]{0,2})")
_DAYS = re.compile(r"[1-9][0-9]?")
_TYPED = re.compile(r"(?:([0-9]{1,3})(?::([0-5][0-9]))?|([0-9]{1,3})\.([0-9]{1,2}))\+([0-9]{1,3})")


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A live control (``base_ms`` and ``increment_ms``) or a correspondence one (``days``)."""

    base_ms: int = 0
    increment_ms: int = 0
    days: int = 0

    # -- the terms --------------------------------------------------------------------
    @classmethod
    def from_term(cls, name: str, value: str) -> TimeControl:
        """The control a ``clock:`` or ``days:`` term names; ``ValueError`` for a value no implementation plays."""
        if name == "clock":
            match = _CLOCK.fullmatch(value)
            if match is None or int(match[1]) > MAX_BASE_S or int(match[2]) > MAX_INCREMENT_S:
                raise ValueError(
                    f"clock:{value} is no time control (BASE+INCREMENT seconds: a base from 1 to "
                    f"{MAX_BASE_S}, an increment from 0 to {MAX_INCREMENT_S})"
                )
            return cls(base_ms=int(match[1]) * 1000, increment_ms=int(match[2]) * 1000)
        if name == "days":
            if _DAYS.fullmatch(value) is None or int(value) > MAX_DAYS:
                raise ValueError(f"days:{value} is no time control (1 to {MAX_DAYS} days a move)")
            return cls(days=int(value))
        raise ValueError(f"{name}: is no time control")

    @classmethod
    def of_terms(cls, terms: str | None) -> TimeControl | None:
        """The control an offer's ``terms=`` names (``None``: untimed); ``ValueError`` for one it cannot name."""
        found = [
            cls.from_term(name, value)
            for name, _, value in (item.partition(":") for item in (terms or "").split(","))
            if name in ("clock", "days")
        ]
        if len(found) > 1:
            raise ValueError("an offer names one time control: clock: or days:, not both")
        return found[0] if found else None

    @property
    def term(self) -> str:
        """The term that names it: ``clock:300+3``, ``days:3``."""
        if self.days:
            return f"days:{self.days}"
        return f"clock:{self.base_ms // 1000}+{self.increment_ms // 1000}"

    # -- as people write it -----------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A live control as people write it: ``5+3`` (minutes, then seconds a move), ``1:30+2`` or ``1.5+2`` (a
        minute and a half); ``ValueError`` with a sentence for anything else."""
        match = _TYPED.fullmatch(text.strip())
        if match is None:
            raise ValueError(f"{text!r} is no time control: write minutes+seconds, e.g. 5+3 (5 minutes, 3 s a move)")
        minutes, seconds, whole, hundredths, increment = match.groups()
        if whole is not None:  # decimal minutes: exact in hundredths, whole seconds only
            centi = int(whole) * 100 + int(hundredths.ljust(2, "0"))
            if centi * 60 % 100:
                raise ValueError(f"{text!r} is not a whole number of seconds: write it as minutes:seconds, e.g. 2:03+0")
            base_s = centi * 60 // 100
        else:
            base_s = int(minutes) * 60 + int(seconds or 0)
        if not 1 <= base_s <= MAX_BASE_S or int(increment) > MAX_INCREMENT_S:
            raise ValueError(
                f"{text!r}: a base from 1 s to {MAX_BASE_S // 60} minutes and an increment of at most "
                f"{MAX_INCREMENT_S} s"
            )
        return cls(base_ms=base_s * 1000, increment_ms=int(increment) * 1000)

    @classmethod
    def correspondence(cls, days: int) -> TimeControl:
        """``days`` a move (``ValueError`` beyond 1 to :data:`MAX_DAYS`)."""
        return cls.from_term("days", str(days))

    def text(self) -> str:
        """``5+3``, ``0:30+2`` (what :meth:`parse` reads back), ``3 days a move``."""
        if self.days:
            return f"{self.days} day{'s' if self.days > 1 else ''} a move"
        minutes, seconds = divmod(self.base_ms // 1000, 60)
        base = f"{minutes}" if not seconds else f"{minutes}:{seconds:02d}"
        return f"{base}+{self.increment_ms // 1000}"

    # -- the rule -----------------------------------------------------------------------
    @property
    def start_ms(self) -> int:
        """Each clock at the start."""
        return self.days * DAY_MS if self.days else self.base_ms

    @property
    def first_move_ms(self) -> int:
        """The time each player has for its first move, where the rules make that move free (``rules:2``): live, the
        larger of 30 s and a tenth of the base; correspondence, the N days."""
        if self.days:
            return self.start_ms
        return max(FIRST_MOVE_MIN_MS, self.base_ms // FIRST_MOVE_SHARE)

    def first(self, think_ms: int) -> int:
        """The mover's clock after its first move, where the rules make that move free (``rules:2``): the clock at the
        start (its thinking not charged, no increment added); ``ValueError`` if the move took :attr:`first_move_ms` or
        more (too late: the game is to be aborted)."""
        _check_think(think_ms)
        if think_ms >= self.first_move_ms:
            raise ValueError(
                f"too late for a first move: think={think_ms} is not within the {self.first_move_ms} ms "
                f"a first move has"
            )
        return self.start_ms

    def after(self, remaining_ms: int, think_ms: int) -> int:
        """The mover's clock after a move that took ``think_ms`` with ``remaining_ms`` on it; ``ValueError`` if the
        move came after the clock ran out (a move in time beats a flag; one out of time is no move: a clock at zero
        has run out)."""
        _check_think(think_ms)
        if think_ms >= remaining_ms:
            raise ValueError(f"out of time: think={think_ms} is not within the {remaining_ms} ms the mover had left")
        if self.days:
            return self.start_ms
        return max(0, remaining_ms - max(think_ms, FLOOR_MS)) + self.increment_ms


def _check_think(think_ms: int) -> None:
    """``ValueError`` for a ``think=`` beyond any move's (:data:`MAX_THINK_MS`)."""
    if not 0 <= think_ms <= MAX_THINK_MS:
        raise ValueError(f"think={think_ms} is beyond any move's thinking ({MAX_THINK_MS} ms at most)")


# -- claims: the end of a game whose player to move has run out of time, or walked away ------------------------
GRACE_MS = 1000
"""The least a flag claim waits beyond the time the player to move had: a claimant's client adds its round trip."""
ABANDONED_MS = 7 * DAY_MS
"""How long the player to move of an untimed game may stay silent before it can be claimed against."""
WINDOW_MIN_MS = 30_000
"""A live game's answer window is the larger of this and :data:`WINDOW_SHARE` of the base."""
WINDOW_SHARE = 20
"""(one twentieth: 5% of the base)"""
CORRESPONDENCE_WINDOW_MS = DAY_MS
"""A correspondence or untimed game's answer window."""
BOUND_MIN_MS = 5000
"""A claimant's own unexplained time that still lets its claim win, at least (live games, :func:`dispute_bound`)."""
BOUND_SHARE = 50
"""(one fiftieth: 2% of the base, where that is more)"""


def claim_after(control: TimeControl | None, remaining_ms: int) -> int:
    """How long the player to move must have been silent, by the claimant's clock, before a flag claim against it:
    its clock (a correspondence game's N days, an untimed game's :data:`ABANDONED_MS`), plus :data:`GRACE_MS`."""
    if control is None:
        return ABANDONED_MS + GRACE_MS
    return remaining_ms + GRACE_MS


def answer_window(control: TimeControl | None) -> int:
    """How long a flag claim stays open for its answer (a move in time, or a concession) before the claimant may end
    the game: live, the larger of 30 s and 5% of the base; correspondence and untimed, 24 hours."""
    if control is None or control.days:
        return CORRESPONDENCE_WINDOW_MS
    return max(WINDOW_MIN_MS, control.base_ms // WINDOW_SHARE)


def dispute_bound(control: TimeControl | None) -> int | None:
    """The most unexplained time a claimant's own moves may show for its claim to win on time (live games: the larger
    of 5 s and 2% of the base); ``None`` where no bound applies (correspondence and untimed games, whose clients may
    be closed for days between moves: their receipts measure absence as much as thinking)."""
    if control is None or control.days:
        return None
    return max(BOUND_MIN_MS, control.base_ms // BOUND_SHARE)


# -- receipts: the thinking the record leaves unexplained -----------------------------------------------------
LAG_MOST_MS = 1000
"""The most of a move's round trip put down to the network (a lag allowance, as lichess compensates lag): a client
that delays its receipts to hide thinking in the round trip hides this much at most."""
SLACK_MS = 100
"""What a move's delivery may take beyond its receipt's without counting: honest jitter between two lines."""


@dataclass(frozen=True, slots=True)
class Answer:
    """One move of a timed game as the receipts show it: its ``player`` said it thought ``think`` ms; the other player
    measured, on their own monotonic clock, ``elapsed`` ms from sending the line it answers to verifying it, and
    ``round_trip`` ms from sending that line to having the mover's receipt of it (``None``: that receipt had not come,
    and the whole lag allowance is granted); ``offset``: the mover's clock less the other's (as NTP estimates it).
    ``elapsed`` is ``None`` where the receipts do not tell (the other's receipt of this move missing, or without
    ``sent``: a receipt of the guest's first move that left it out)."""

    player: str
    think: int
    elapsed: int | None = None
    round_trip: int | None = None
    offset: int | None = None

    @property
    def unexplained(self) -> int | None:
        """The time the other player waited for this move that neither its thinking nor the network explains::

            max(0, elapsed - think - min(round_trip, LAG_MOST_MS) - SLACK_MS)   (round_trip: LAG_MOST_MS if unknown)

        Either the mover reported less thinking than it took, or the other's receipt misstates the times. ``None``
        when it cannot be measured."""
        if self.elapsed is None:
            return None
        lag = LAG_MOST_MS if self.round_trip is None else min(self.round_trip, LAG_MOST_MS)
        return max(0, self.elapsed - self.think - lag - SLACK_MS)


@dataclass(frozen=True, slots=True)
class TimeUsed:
    """One player's time in a timed game: the thinking its moves claim, what the receipts leave unexplained, and over
    how many of its ``moves`` that could be ``measured``."""

    used: int = 0
    unexplained: int = 0
    moves: int = 0
    measured: int = 0


def time_used(answers: list[Answer], players: tuple[str, ...]) -> dict[str, TimeUsed]:
    """Each player's :class:`TimeUsed` over ``answers``."""
    totals = {player: TimeUsed() for player in players}
    for answer in answers:
        before = totals[answer.player]
        unexplained = answer.unexplained
        totals[answer.player] = TimeUsed(
            before.used + answer.think,
            before.unexplained + (unexplained or 0),
            before.moves + 1,
            before.measured + (unexplained is not None),
        )
    return totals
