"""Who may take the guest's seat, and whom the host seated, sans I/O: joins, the host's accepts, the canonical seat.

A join is a candidacy, not on the chain, until the host's accept (seq 2)
names it (``PROTOCOL.md`` §3). :class:`Seating` keeps the candidates the host
may choose from, every join it saw (a few a key: the host may have accepted a
later one of an equivocating guest), and the host's accepts (a few: a host that
signed more than one is seated by its canonical one, :meth:`Seating.canonical`).
A guest that one of the host's accepts names is *evident*: its lines go into its
history even before its seat is drawn, so that which proofs exist does not depend
on the order in which they came.

The chain, the phase and the forfeit are the receiver's (:mod:`protocol.judge`).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from protocol.domain import Code
from protocol.errors import RemoteProtocolError
from protocol.keys import PublicKey
from protocol.messages import Message
from protocol.rules import MAX_JOINS, MAX_JOINS_PER_KEY, MAX_NAMED


class Seating:
    """The joins and the host's accepts of one game."""

    def __init__(self) -> None:
        self.host: PublicKey | None = None
        self.invite: PublicKey | None = None
        self.terms: str | None = None
        self._candidates: dict[PublicKey, Message] = {}  # the join of each candidate key the host may accept
        self._joins: dict[str, Message] = {}  # every join kept, by hash (a few a key)
        self._accepts: dict[str, Message] = {}  # the host's accepts (seq 2) by hash, a few
        self._named: set[PublicKey] = set()  # guests named by the host's accepts whose joins have not come

    def offer(self, host: PublicKey, invite: PublicKey | None, terms: str) -> None:
        """The offer is in: its host, the key it invites (if any) and its terms."""
        self.host, self.invite, self.terms = host, invite, terms

    # -- joins ---------------------------------------------------------------------------------
    @property
    def candidates(self) -> Mapping[PublicKey, Message]:
        """The join candidates kept for the host to choose from."""
        return MappingProxyType(self._candidates)

    def problem(self, join: Message) -> RemoteProtocolError | None:
        """Why ``join`` can never be seated (the host's own, another key than the one invited, other terms than the
        offer's), or ``None``: kept all the same (every join is remembered, for proofs), it is refused, and so is an
        accept that names it."""
        if join.signer == self.host:
            return RemoteProtocolError(Code.WRONG_SEAT, "the host cannot join their own game")
        if self.invite is not None and join.signer != self.invite:
            return RemoteProtocolError(Code.WRONG_SIGNER, "the game is for the invited key only")
        if join.terms != self.terms:
            return RemoteProtocolError(Code.BAD_FIELD, "the join does not accept the offer's terms")
        return None

    def remember_join(self, join: Message) -> None:
        """Keep a join by its hash, whatever else it meets (the host may have accepted it): always one that an accept
        names, else within :data:`MAX_JOINS_PER_KEY` a key and :data:`MAX_JOINS` keys' worth."""
        if join.signer == self.host:
            return
        named = any(accept.prev == join.hash for accept in self._accepts.values())
        if named or len(self._joins) < MAX_JOINS * MAX_JOINS_PER_KEY \
                and sum(kept.signer == join.signer for kept in self._joins.values()) < MAX_JOINS_PER_KEY:
            self._joins[join.hash] = join

    def joins_of(self, key: PublicKey) -> list[Message]:
        """The joins of ``key`` kept."""
        return [join for join in self._joins.values() if join.signer == key]

    def join(self, digest: str) -> Message | None:
        """The join with this hash, if kept."""
        return self._joins.get(digest)

    def candidate(self, key: PublicKey) -> Message | None:
        """``key``'s candidacy: its first join."""
        return self._candidates.get(key)

    def add_candidate(self, join: Message) -> bool:
        """Make ``join`` its key's candidacy; ``False`` when :data:`MAX_JOINS` candidates wait already and no accept
        names the key."""
        if len(self._candidates) >= MAX_JOINS and join.signer not in self._named:
            return False
        self._candidates[join.signer] = join
        return True

    # -- the host's accepts ------------------------------------------------------------------------
    @property
    def accepts(self) -> tuple[Message, ...]:
        return tuple(self._accepts.values())

    def evident(self, key: PublicKey) -> bool:
        """Whether ``key``'s lines go into its history even while it holds no seat: a guest one of the host's accepts
        names (the host may have signed more than one; its canonical one decides the seat)."""
        return any(accept.peer == key for accept in self._accepts.values())

    def add_accept(self, accept: Message) -> PublicKey | None:
        """Keep one of the host's accepts (a few); the guest it names, when that guest was not evident before."""
        if accept.hash in self._accepts or len(self._accepts) >= MAX_NAMED:
            return None
        peer = accept.peer
        new = peer is not None and not self.evident(peer)
        self._accepts[accept.hash] = accept
        return peer if new else None

    def name(self, guest: PublicKey) -> bool:
        """An accept names ``guest`` whose join has not come: its lines are kept as a seated player's meanwhile (a
        few); whether it was named now."""
        if len(self._named) >= MAX_NAMED:
            return False
        self._named.add(guest)
        return True

    def named(self, key: PublicKey) -> bool:
        return key in self._named

    def canonical(self, placed: Message | None) -> tuple[Message, Message] | None:
        """Among the host's accepts whose join is known (``placed``: the join the chain holds, if any), the one with
        the lowest hash, and its join: whom a host that signed more than one line for its seating seated, whichever
        line came first."""
        best: tuple[Message, Message] | None = None
        for accept in self._accepts.values():
            join = placed if placed is not None and placed.hash == accept.prev else self._joins.get(accept.prev)
            if join is not None and join.signer == accept.peer and self.problem(join) is None and (
                    best is None or accept.hash < best[1].hash):
                best = (join, accept)
        return best

    def seat(self, guest: PublicKey) -> None:
        """The guest is known: forget the other candidates."""
        self._candidates = {key: join for key, join in self._candidates.items() if key == guest}
        self._named = set()
