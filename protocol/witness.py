"""A game's time witnesses, sans I/O: when each says it saw each line, and which of them are proven to lie.

Nobody's clock is trusted, so without a witness a claim on time is its
claimant's word and a move's thinking its mover's (``PROTOCOL.md`` §3). An offer
may name one to three **time witnesses** (``witness:KEY[.KEY…]``), which the
guest's join accepts with the terms: a witness is any key that watches the game
(a club's relay, a public service) and signs, on its own chain of ``witness``
lines, the lines of the game it verified and when, by its own clock::

    olixono/1 witness game=… seq=<n> prev=<its previous line, or the offer> time=<ms> lines=<hash>.<hash>… by=… sig=…

:class:`Witnesses` keeps, for each witness the terms name, the time it gave each line (the first that named it),
and judges what its lines say against each other: a witness that signs two lines for one ``seq``, whose times go
backwards along its chain, or that says it saw a line before the line it follows (a chain line before its ``prev``,
a flag claim before the line that began the turn it claims) is proven to lie, and its times count for nothing from
then on, for every receiver alike (the lines that prove it are in every record).

Only durations between two lines as one witness saw them are compared (each witness has its own clock), and of
several witnesses the median of their durations counts (:meth:`Witnesses.duration`). What the durations decide is
the receiver's (:mod:`protocol.judge`): a claim on time, its window, and which of a claimant's timeout and the other
player's line for its place came first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from protocol.keys import PublicKey
from protocol.messages import Message

MAX_CONFLICTS = 8
"""Second lines for one ``seq`` kept (one proves a witness lies)."""


class Witnesses:
    """The times the game's witnesses gave its lines, and which witnesses are proven to lie."""

    def __init__(self) -> None:
        self.keys: tuple[PublicKey, ...] = ()
        """The witnesses the offer's terms name (none: the game has no witness)."""
        self._heads: dict[PublicKey, tuple[int, str, int]] = {}  # each witness's last line applied: seq, hash, time
        self._lines: dict[PublicKey, dict[int, Message]] = {}  # each witness's lines applied, by seq
        self._times: dict[PublicKey, dict[str, int]] = {}  # each witness's time of each line it named, the first
        self._lies: dict[PublicKey, str] = {}  # why a witness is proven to lie
        self._conflicts: dict[str, Message] = {}  # second lines for one seq, kept for the record

    def name(self, keys: Sequence[PublicKey]) -> None:
        """The offer is in: the witnesses its terms name."""
        self.keys = tuple(keys)

    def named(self, key: PublicKey) -> bool:
        return key in self.keys

    # -- feeding ------------------------------------------------------------------------------------
    def head(self, key: PublicKey, offer: str) -> tuple[int, str]:
        """The ``seq`` and hash that ``key``'s next witness line follows (0 and the offer's hash before its first)."""
        seq, digest, _ = self._heads.get(key, (0, offer, 0))
        return seq, digest

    def head_time(self, key: PublicKey) -> int:
        """The time of ``key``'s last witness line applied (0 before its first): its next is never earlier."""
        return self._heads.get(key, (0, "", 0))[2]

    def held(self, message: Message) -> Message | None:
        """The witness line its signer signed for ``message``'s ``seq``, if one was applied."""
        return self._lines.get(message.signer, {}).get(message.seq)

    def apply(self, message: Message) -> None:
        """Apply the next line of a witness's chain (its ``prev`` checked by the receiver): the times of the lines it
        names. A time before its previous line's proves the witness lies (the line is applied all the same: a record
        holds the proof)."""
        key = message.signer
        _, _, before = self._heads.get(key, (0, "", 0))
        time = int(message.value("time"))
        self._heads[key] = (message.seq, message.hash, max(time, before))
        self._lines.setdefault(key, {})[message.seq] = message
        times = self._times.setdefault(key, {})
        for digest in message.value("lines").split("."):
            times.setdefault(digest, time)
        if time < before:
            self.lie(key, f"its time went back from {before} to {time} ms at witness line {message.seq}")

    def conflict(self, message: Message) -> None:
        """A second, other line of a witness for a ``seq`` it signed already: it lies (the line is kept for the
        record, a few)."""
        self.lie(message.signer, f"it signed two lines for witness line {message.seq}")
        if len(self._conflicts) < MAX_CONFLICTS:
            self._conflicts[message.line] = message

    def lie(self, key: PublicKey, why: str) -> None:
        """``key`` is proven to lie: its times count for nothing (the first reason is kept)."""
        self._lies.setdefault(key, why)

    # -- reading ------------------------------------------------------------------------------------
    @property
    def lies(self) -> dict[PublicKey, str]:
        """The witnesses proven to lie, and why."""
        return dict(self._lies)

    def time_of(self, key: PublicKey, digest: str) -> int | None:
        """When witness ``key`` says it saw the line with hash ``digest`` (its own clock), if it said so."""
        return self._times.get(key, {}).get(digest)

    def check(self, follows: Iterable[tuple[str, str]]) -> None:
        """Hold each witness to the order of the game's lines: for each pair (``earlier``, ``later``) of hashes, the
        later line follows the earlier (its ``prev``, the line that began the turn a claim is against); a witness
        that gave the later a time before the earlier's is proven to lie."""
        pairs = list(follows)
        for key, times in self._times.items():
            if key in self._lies:
                continue
            for earlier, later in pairs:
                first, then = times.get(earlier), times.get(later)
                if first is not None and then is not None and then < first:
                    self.lie(key, f"it saw line {later[:8]} before the line {earlier[:8]} it follows")
                    break

    def duration(self, earlier: str, later: str) -> int | None:
        """How long (ms) after the line ``earlier`` the witnesses saw the line ``later`` (hashes): of the witnesses not
        proven to lie that saw both, the median of their durations (the lower of the two middle ones); ``None`` when
        none saw both."""
        spans = sorted(
            times[later] - times[earlier]
            for key, times in self._times.items()
            if key not in self._lies and earlier in times and later in times
        )
        if not spans:
            return None
        return spans[(len(spans) - 1) // 2]

    def lines(self) -> list[Message]:
        """Every witness line applied, each witness's in order (what a transcript holds of them)."""
        return [line for key in self.keys for _, line in sorted(self._lines.get(key, {}).items())]

    def conflicts(self) -> list[Message]:
        """The second lines for one ``seq`` that prove witnesses lie (what a record holds besides)."""
        return sorted(self._conflicts.values(), key=lambda line: line.hash)
