"""Each key's history, sans I/O: the lines it signed, the proofs of the ones that cannot both stand, the forfeit point.

One key, one history (``PROTOCOL.md`` §6): a key that signs two lines which
cannot both be part of one game has *equivocated*, and the two lines are a
portable proof. :class:`Evidence` keeps, for every key a receiver holds to
account, a line of each slot it signed (placed, waiting, refused or set aside:
which proofs exist must not depend on the order of arrival; of two, the lower
hash), its final lines and its highest line, its word that the other player's line for a place
came (a receipt, a confirmation by the rules), and the proofs; and it says where
the lowest proof of a seated key stops the record (:meth:`Evidence.forfeit_point`).

One proof is kept a point (a key loses once), and which two lines it shows does
not depend on the order either: of the pairs that prove one point, the lowest by
:func:`_order` (two lines for the slot before a final line and a later one, then
the lower hashes), so that every receiver's record holds the same lines.

Who is seated is the receiver's to say (:mod:`protocol.seating`); what a proof
does to the game is the receiver's too (:mod:`protocol.judge`): this module only
keeps and weighs what was signed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol.domain import Code, MessageType
from protocol.errors import RemoteProtocolError
from protocol.events import EquivocationDetected
from protocol.keys import PublicKey
from protocol.messages import NUMBERED_APART, Message, line_hash
from protocol.rules import (
    FINAL,
    MAX_CHAIN,
    MAX_PROOFS_PER_KEY,
    MAX_PROVEN_LINES,
    acknowledged,
    contradicts,
    waited,
)


@dataclass(frozen=True, slots=True)
class Proven:
    """What one more conflicting pair of lines gave: a proof to tell (a new point, or a lower pair for a point proven
    already; ``None`` otherwise), and the lines a receiver now knows as part of a record (it ignores them when they
    come again)."""

    proof: EquivocationDetected | None
    known: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class ForfeitPoint:
    """Where the lowest proofs of seated keys stop the record (``cut``), whose they are, and the lowest slot among
    them (``slot``: where their lines conflict)."""

    cut: int
    keys: tuple[PublicKey, ...]
    slot: int


class Evidence:
    """The histories of the keys a receiver holds to account, and their proofs."""

    def __init__(self) -> None:
        # by raw key bytes (cheap to hash), then slot: a line of each slot each key signed (main-chain lines placed,
        # waiting or set aside, chat, receipts and flag claims), the one with the lowest hash
        self._seen: dict[bytes, dict[str, Message]] = {}
        self._last: dict[bytes, Message] = {}  # each key's highest main-chain line
        self._finals: dict[bytes, list[Message]] = {}  # each key's final lines (agree, resign, abort, timeout)
        self._proofs: dict[PublicKey, list[EquivocationDetected]] = {}
        self._proven_lines: dict[bytes, int] = {}  # lines known only as more evidence of a proof already held, a key
        self._doubled: set[tuple[bytes, str]] = set()  # (key, slot) of receipts and flag claims signed twice
        # each key's word that the other's line at a seq came, at first sight: its receipt that waited least, its
        # confirmation by the rules with the lowest hash (by type; the same whatever the order)
        self._acknowledged: dict[bytes, dict[int, dict[MessageType, Message]]] = {}
        self.witnessed = False
        """Whether the game has time witnesses: a claimant's timeout is then no final line (the witnesses may void it,
        and its signer play on), only a concession is."""

    def final(self, message: Message) -> bool:
        """Whether ``message`` is a line after which its signer never signs another main-chain line."""
        return message.type in FINAL and not (
            self.witnessed and message.type is MessageType.TIMEOUT and message.now is not None
        )

    # -- what a key signed ------------------------------------------------------------------
    def seen(self, key: PublicKey, slot: str) -> Message | None:
        """A line ``key`` was seen to sign for ``slot`` (``"17"``, ``"chat-3"``, ``"receipt-5"``…): of several, the
        one with the lowest hash."""
        return self._seen.get(key.raw, {}).get(slot)

    def signed(self, key: PublicKey, slot: str) -> bool:
        """Whether ``key`` was seen to sign a line for ``slot``."""
        return slot in self._seen.get(key.raw, {})

    def last(self, key: PublicKey) -> Message | None:
        """``key``'s highest main-chain line seen."""
        return self._last.get(key.raw)

    def said(self, key: PublicKey, seq: int) -> dict[MessageType, Message]:
        """``key``'s word, by type, that the other player's line at ``seq`` came (:meth:`acknowledge`)."""
        return self._acknowledged.get(key.raw, {}).get(seq, {})

    def doubled(self, message: Message) -> bool:
        """Whether ``message``'s signer signed two receipts, or two flag claims, for its slot (neither is its word)."""
        return (message.signer.raw, message.slot) in self._doubled

    def note(self, message: Message) -> None:
        """Keep a line of ``message.signer`` in its history: a line of each slot (the lowest hash), every final line,
        its highest line."""
        key = message.signer.raw
        mine = self._seen.setdefault(key, {})
        held = mine.get(message.slot)
        if held is None or message.hash < held.hash:
            mine[message.slot] = message
        if message.type in NUMBERED_APART:
            return
        last = self._last.get(key)
        if last is None or message.seq > last.seq or (message.seq == last.seq and message.hash < last.hash):
            self._last[key] = message
        if self.final(message):
            finals = self._finals.setdefault(key, [])
            if message not in finals:
                finals.append(message)

    def conflicts(self, message: Message) -> list[Message]:
        """The lines ``message``'s signer signed before that cannot stand with it: another line for its slot, a
        final line before it, or (``message`` being final) every line after it, or (a timeout) its word that the
        other's line for that place came (:func:`protocol.rules.contradicts`)."""
        key = message.signer.raw
        mine = self._seen.get(key, {})
        earlier = mine.get(message.slot)
        out = [earlier] if earlier is not None and earlier.line != message.line else []
        finals = self._finals.get(key)
        if finals:
            out.extend(final for final in finals if final.seq < message.seq)
        if self.final(message):
            last = self._last.get(key)
            if last is not None and last.seq > message.seq:  # (every later line: the proof shows the lowest pair)
                out.extend(line for line in mine.values() if line.type not in NUMBERED_APART and line.seq > message.seq)
            said = self._acknowledged.get(key, {}).get(message.seq)
            if said:
                out.extend(line for line in said.values() if contradicts(line, message))
        return out

    def acknowledge(self, message: Message) -> Message | None:
        """Keep a key's word that the other's line for a seq came (:func:`protocol.rules.acknowledged`), at first
        sight, one of each type a seq, whatever the order: the receipt that waited least (the one that contradicts if
        any does, :func:`protocol.rules.waited`), the confirmation with the lowest hash. The key's own timeout for
        that place that the word contradicts, if any (:func:`protocol.rules.contradicts`): a proof."""
        seq = acknowledged(message)
        if seq is None:
            return None
        key = message.signer.raw
        kept = self._acknowledged.setdefault(key, {}).setdefault(seq, {})
        held = kept.get(message.type)
        if held is None or _weight(message) < _weight(held):
            kept[message.type] = message
        own = self._seen.get(key, {}).get(str(seq))
        return own if own is not None and contradicts(message, own) else None

    def word(self, message: Message) -> Message | None:
        """A line beside the chain that names a chain line (a receipt, a flag claim), at first sight: kept; the
        earlier, other line its signer signed for that slot, if any (a proof that never decides the game, and neither
        line then counts: :meth:`doubled`)."""
        mine = self._seen.setdefault(message.signer.raw, {})
        earlier = mine.get(message.slot)
        if earlier is None:
            mine[message.slot] = message
            return None
        if earlier.line == message.line:
            return None
        self._doubled.add((message.signer.raw, message.slot))
        if message.hash < earlier.hash:
            mine[message.slot] = message
        return earlier

    # -- proofs ----------------------------------------------------------------------------------
    @property
    def proofs(self) -> tuple[EquivocationDetected, ...]:
        return tuple(proof for proofs in self._proofs.values() for proof in proofs)

    def proofs_of(self, key: PublicKey) -> tuple[EquivocationDetected, ...]:
        return tuple(self._proofs.get(key, ()))

    def proven(self) -> frozenset[PublicKey]:
        """The keys with a proof kept."""
        return frozenset(self._proofs)

    def keep_proofs_of(self, keep: Callable[[PublicKey], bool]) -> None:
        """Forget the proofs of every key but those ``keep`` names (the seats are known: the rest never matter)."""
        self._proofs = {key: proofs for key, proofs in self._proofs.items() if keep(key)}

    def prove(self, first: Message, second: Message, known: Callable[[str], bool]) -> Proven:
        """Two lines of one key that cannot both stand: a new proof, unless one of its point is held already (then the
        line is known as more evidence, a few a key); ``equivocation`` when the key's proofs are full and this one
        decides no sooner. ``known``: whether the receiver knows a line already."""
        first, second = _pair(first, second)
        proofs = self._proofs.setdefault(first.signer, [])
        point, played_on = _point(first, second)
        where = _where(point, second.slot)
        proof = EquivocationDetected(first.signer, second.slot, first.line, second.line, point, played_on)
        for index, kept in enumerate(proofs):
            if _where(kept.point, kept.slot) != where:
                continue
            if _order(proof) < _order(kept):  # the canonical pair of this point, whichever came first: told again
                proofs[index] = proof
                return Proven(proof, tuple(line for line in (first, second) if not known(line.line)))
            seen = self._proven_lines.get(first.signer.raw, 0)
            if seen < MAX_PROVEN_LINES and not known(second.line):
                self._proven_lines[first.signer.raw] = seen + 1
                return Proven(None, (second,))
            return Proven(None, ())
        if len(proofs) >= MAX_PROOFS_PER_KEY:  # keep the proofs that decide the game: the lowest points
            worst = max(proofs, key=lambda kept: _rank_of_point(kept.point))
            if _rank_of_point(point) >= _rank_of_point(worst.point):
                raise RemoteProtocolError(Code.EQUIVOCATION, f"{first.signer.fingerprint} equivocated again")
            proofs.remove(worst)
        proofs.append(proof)
        return Proven(proof, (first, second))

    def forfeit_point(self, cut_of: Callable[[PublicKey, int], int | None]) -> ForfeitPoint | None:
        """The lowest cut of a seated key's proof, who has one there, and the lowest slot among them. ``cut_of`` says
        where a key's proof at a point stops the record (:meth:`protocol.judge.Receiver._cut_point`), ``None`` for a key
        that holds no seat (its proofs are reported, never held against the game)."""
        best: ForfeitPoint | None = None
        for key, proofs in self._proofs.items():
            for proof in proofs:
                if proof.point is None:
                    continue
                cut = cut_of(key, proof.point)
                if cut is None:
                    break
                if best is None or cut < best.cut:
                    best = ForfeitPoint(cut, (key,), proof.point)
                elif cut == best.cut:
                    keys = best.keys if key in best.keys else (*best.keys, key)
                    best = ForfeitPoint(cut, keys, min(best.slot, proof.point))
        return best


def _pair(a: Message, b: Message) -> tuple[Message, Message]:
    """Two conflicting lines in the order a proof shows them, whichever came first: a receipt's or a confirmation's
    word before the timeout it contradicts; else the lower sequence number, then the lower hash, first."""
    if (a.type in NUMBERED_APART) != (b.type in NUMBERED_APART):
        return (a, b) if a.type in NUMBERED_APART else (b, a)
    apart = a.type in NUMBERED_APART
    return (a, b) if (0 if apart else a.seq, a.hash) <= (0 if apart else b.seq, b.hash) else (b, a)


def _order(proof: EquivocationDetected) -> tuple[int, str, str]:
    """Which of the pairs that prove one point a key keeps: two lines for one slot before a final line and a later
    one, then the lower hashes."""
    low, high = sorted((line_hash(proof.first), line_hash(proof.second)))
    return (1 if proof.played_on else 0, low, high)


def _weight(said: Message) -> tuple[int, int, str]:
    """Which of one key's receipts, or confirmations, for one seq counts: the least (of receipts, the one that waited
    least, :func:`protocol.rules.waited`, which contradicts a claim if any does; one without ``sent`` last)."""
    wait = waited(said) if said.type is MessageType.RECEIPT else 0
    return (1, 0, said.hash) if wait is None else (0, wait, said.hash)


def _rank_of_point(point: int | None) -> int:
    """Proofs with a lower point decide the game first; those with none (chat, confirmations) come last."""
    return MAX_CHAIN + 1 if point is None else point


def _where(point: int | None, slot: str) -> str:
    """What a proof proves: the point at which its signer loses, or for chat and confirmations the slot."""
    return slot if point is None else str(point)


def _point(a: Message, b: Message) -> tuple[int | None, bool]:
    """Where two lines of one key conflict (a sequence number: the one slot they share, the final line's, or a
    timeout's that the key's receipt or confirmation contradicts), and whether they are a final line and a later one;
    ``None`` for two chat lines, confirmations, receipts or flag claims, which never change the game."""
    if {a.type, b.type} & NUMBERED_APART:
        chained = [line for line in (a, b) if line.type not in NUMBERED_APART]
        return (chained[0].seq, False) if chained else (None, False)  # a timeout a receipt or confirmation contradicts
    if a.slot == b.slot:
        return a.seq, False
    final = a if a.type in FINAL and a.seq < b.seq else b
    return final.seq, True
