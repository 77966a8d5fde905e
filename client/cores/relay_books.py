"""What this client keeps on the relay, and how far it has caught up with it, sans I/O (h11's manner).

A player keeps lines on the relay: its own, and copies of the opponent's (``PROTOCOL.md`` §7). The runner
(:mod:`client.shell.runner`) tells a :class:`RelayBooks` what happens, and does what it answers:

- **copies wait for a quiet moment.** :meth:`RelayBooks.outgoing` takes each step's lines and says which leave now: a
  line of this player's own at once, with every copy waiting just after it (a copy protects a line the relay already
  holds, and never delays a move on its way); a copy alone waits until no line came or went for :data:`COPY_QUIET`
  s, at most :data:`COPY_MAX_WAIT` s after the first one waiting (:meth:`RelayBooks.copies_due` at
  :attr:`RelayBooks.copies_at`).
- **what the relay holds of ours.** Each line this client keeps there is noted (:meth:`RelayBooks.keep`); a line
  seen back that is not ours (:meth:`RelayBooks.seen`) calls for ours again (:class:`Restore`) when the relay sent it
  from its store or it erased ours, and otherwise for asking the relay what it keeps there (:class:`Check`): live,
  junk it never kept looks the same as a line that replaced ours. One connection puts one line back at most
  :data:`MAX_RESTORES` times.
- **catching up.** Each connection to a relay begins a catch-up (:meth:`RelayBooks.catching_up`); once that relay's
  retained lines are in, :meth:`RelayBooks.caught_up` says which of our lines it lacks (:class:`CatchUp`).
  :attr:`RelayBooks.up_to_date` is the state the runner's decisions read (the first catch-up done, and no relay
  catching up now); the runner's ``caught_up`` event is what an intent awaits: the first catch-up alone.
- **wills.** Each connection leaves its will (a presence ``gone`` line) with its relay: :meth:`RelayBooks.will_seq`
  says the presence seq of the will a relay holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from client.cores.network_game import Publish
from client.cores.relays import digest

COPY_QUIET, COPY_MAX_WAIT = 0.02, 1.0
"""Copies of the opponent's lines are sent once no line came or went for ``COPY_QUIET`` s (at most ``COPY_MAX_WAIT`` s
after the first one waiting), and always before a line of this player's own: a copy protects a line the relay
already holds, and never delays a move on its way."""
MAX_RESTORES = 20
"""Times one connection publishes again one line of ours that vanished from the relay (or was replaced) before it
stops, for a stranger who clears it as fast as it comes back (each line its own count: clearing one spends nothing of
another's)."""
WILLS_KEPT = 16
"""How many of this client's latest wills (one a connection, each relay's own) it remembers the presence seq of."""


@dataclass(frozen=True, slots=True)
class Restore:
    """Publish ``line`` again on ``topic``: the relay lost it, or keeps another line there."""

    topic: str
    line: str
    last: bool
    """Whether this is the last time on this connection (someone keeps clearing it)."""


@dataclass(frozen=True, slots=True)
class Check:
    """Another's line came live on ``topic``, where we keep one: ask the relay what it keeps there (the topics to ask
    about are :meth:`RelayBooks.take_checks`)."""

    topic: str


@dataclass(frozen=True, slots=True)
class CatchUp:
    """What one relay's catch-up calls for."""

    send: tuple[Publish, ...]
    """The lines the relay lacks: ours it holds no longer (or holds another in place of), and others' it holds
    nothing for (a watcher's, a time witness's copies)."""
    first: bool
    """Whether it is this client's first catch-up (with any relay)."""


class RelayBooks:
    """The lines a client keeps on the relay and the copies waiting to go; whether it has caught up with the relays.

    ``me``: the text of this client's key (``None``: a watcher without one, who keeps no line of its own).
    """

    def __init__(self, me: str | None) -> None:
        self.me = me
        self.kept: dict[str, str] = {}
        """Each topic where this client keeps a line (its own, or a copy; presence aside): the line."""
        self.catching: set[int] = set()
        """The relays (one number each: the runner's ``id`` of its link) catching up now."""
        self.caught_up_once = False
        """Whether one catch-up (with any relay) is done: the relay's retained lines came in once."""
        self._restores: dict[str, int] = {}  # each topic of ours put back on this connection: how often
        self._checks: set[str] = set()  # topics of ours where another line came live, not asked about yet
        self._copies: list[Publish] = []  # copies waiting for a quiet moment, in order
        self._copies_since = 0.0  # when the first of them began to wait
        self._last_line = 0.0  # when a line last came or went
        self._wills: dict[str, int] = {}  # each will (a ``gone`` line) left with a relay: its presence seq

    # -- what goes out ---------------------------------------------------------------------------------------------
    def outgoing(self, now: float, publish: Sequence[Publish]) -> list[Publish]:
        """A step at ``now`` (a line came in, or one is signed) called for ``publish``: what to send now, in order.

        A line of this player's own leaves at once, and the copies waiting leave just after the step's own lines;
        copies alone wait (:attr:`copies_at`).
        """
        self._last_line = now
        own = [item for item in publish if not item.copy]
        for item in publish:
            self.keep(item)
            if item.copy:
                if not self._copies:
                    self._copies_since = now
                self._copies.append(item)
        return own + self.take_copies() if own else []

    @property
    def copies_at(self) -> float | None:
        """When to ask :meth:`copies_due` next (``None``: no copy waits)."""
        if not self._copies:
            return None
        return min(self._last_line + COPY_QUIET, self._copies_since + COPY_MAX_WAIT)

    def copies_due(self, now: float) -> list[Publish]:
        """The copies to send at ``now``: every one waiting once no line came or went for :data:`COPY_QUIET` s, or the
        first has waited :data:`COPY_MAX_WAIT` s; else none yet."""
        at = self.copies_at
        if at is None or now < at:
            return []
        return self.take_copies()

    def take_copies(self) -> list[Publish]:
        """Every copy waiting, to send now (leaving, or with a line of our own)."""
        copies, self._copies = self._copies, []
        return copies

    # -- what the relay holds of ours ---------------------------------------------------------------------------------
    def keep(self, item: Publish) -> bool:
        """Note a line this client keeps on the relay under its own key (its own lines and copies, presence aside), to
        put it back should it vanish; whether it is one."""
        if self.me is None or f"/{self.me}/" not in item.topic or item.topic.endswith("/presence"):
            return False
        self.kept[item.topic] = item.line
        return True

    def seen(self, topic: str, payload: bytes, *, retained: bool) -> Restore | Check | None:
        """``payload`` came from the relay on ``topic`` (``retained``: from its store): what it calls for.

        On a topic where we keep another line: ours again when the relay sent that one from its store or erased ours
        (an empty payload), once the cap of this connection allows; a line seen live may be junk the relay never
        kept, so it calls for asking the relay instead (MQTT 3.1.1 clears the retain flag of what it delivers live).
        """
        kept = self.kept.get(topic)
        if kept is None or payload == kept.encode("utf-8"):
            return None
        if retained or not payload:
            times = self._restores.get(topic, 0)
            if times >= MAX_RESTORES:
                return None
            self._restores[topic] = times + 1
            return Restore(topic, kept, last=times + 1 == MAX_RESTORES)
        self._checks.add(topic)
        return Check(topic)

    def take_checks(self) -> list[str]:
        """The topics to ask the relay about (each once, however many lines came there), sorted."""
        topics, self._checks = sorted(self._checks), set()
        return topics

    # -- catching up -------------------------------------------------------------------------------------------------
    def catching_up(self, relay: int) -> None:
        """A connection to ``relay`` was made: its catch-up begins."""
        self.catching.add(relay)

    def caught_up(self, relay: int, held: Mapping[str, bytes], republish: Sequence[Publish]) -> CatchUp:
        """``relay``'s retained lines are in (``held``: the digest of the line it holds on each topic, as the link
        saw them); ``republish``: every line this client keeps on the relay. What the catch-up calls for.

        A new connection begins each line's count of restores again. (``relay`` stays catching up until
        :meth:`stopped_catching`: the runner does what this calls for first.)
        """
        self._restores.clear()
        lacking: list[Publish] = []
        for item in republish:
            had = held.get(item.topic)
            if (self.keep(item) and had != digest(item.line.encode("utf-8"))) or had is None:
                lacking.append(item)  # ours, or (a watcher's) another's line the relay lacks
        first = not self.caught_up_once
        self.caught_up_once = True
        return CatchUp(tuple(lacking), first)

    def stopped_catching(self, relay: int) -> None:
        """``relay``'s catch-up is over (done, or given up with its connection)."""
        self.catching.discard(relay)

    @property
    def up_to_date(self) -> bool:
        """Whether the relays' retained lines are in now: a catch-up is done, and no relay is catching up (a claim on
        time never races lines a relay holds)."""
        return self.caught_up_once and not self.catching

    # -- wills -------------------------------------------------------------------------------------------------------
    def will(self, line: str, seq: int) -> None:
        """A connection leaves ``line`` (presence ``gone`` at ``seq``) with its relay as its will."""
        self._wills = {kept: at for kept, at in self._wills.items() if at > seq - WILLS_KEPT}
        self._wills[line] = seq

    def will_seq(self, line: str | None, default: int) -> int:
        """The presence seq of the will ``line`` a relay holds (``default``: none, or one forgotten)."""
        return self._wills.get(line, default) if line is not None else default
