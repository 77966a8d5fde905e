"""Who may take the guest's seat, and whom the host seated, sans I/O: joins, the host's accepts, the canonical seat.

A join is a candidacy, not on the chain, until the host's accept (seq 2)
names it (``PROTOCOL.md`` §3). :class:`Seating` keeps the candidates the host
may choose from, every join it saw (a few a key: the host may have accepted a
later one of an equivocating guest), and the host's accepts (a few: a host that
signed more than one is seated by its canonical one, :meth:`Seating.canonical`).
A guest that one of the host's accepts names is *evident*: its lines go into its
history even before its seat is drawn, and are kept rather than refused while
another guest sits (a seat may still change), so that which proofs exist, and
what the record holds, does not depend on the order in which they came.

**Whom a host seated** when it signed more than one accept (:meth:`Seating.canonical`):
once a guest revealed, or the first move is on record, no accept re-seats the
game. The host's accepts come in tiers: the guest revealed (the reveal names the
accept and opens its join's commitment) and signed no other line for seq 1 to 3
(*clean*), and the first move follows its reveal; revealed and clean; revealed;
the rest (nothing was played on them). Within the best tier the lowest hash
decides, except between two clean revealed seatings of two guests, which no
record can tell apart (the host chose both salts, and may hold the other key):
the host forfeits and no guest is named (:attr:`Seated.ambiguous`). So a host who
lost cannot seat a puppet of its own after the game: its accept, ground to the
lowest hash, comes in a lower tier than the seating that was played.

The chain, the phase and the forfeit are the receiver's (:mod:`protocol.judge`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from protocol.domain import Code
from protocol.errors import RemoteProtocolError
from protocol.keys import PublicKey
from protocol.messages import Message
from protocol.rules import MAX_JOINS, MAX_JOINS_PER_KEY, MAX_NAMED, commitment, host_moves_first


@dataclass(frozen=True, slots=True)
class Seated:
    """Whom the host's accepts seat (:meth:`Seating.canonical`): a join and the accept that names it, or
    ``ambiguous``: two guests or more revealed cleanly on accepts of the host's, and no record can tell which one it
    played."""

    join: Message | None = None
    accept: Message | None = None
    ambiguous: bool = False


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
        self._reveals: dict[PublicKey, dict[str, Message]] = {}  # each evident guest's reveals by hash, a few

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
        if named or (
            len(self._joins) < MAX_JOINS * MAX_JOINS_PER_KEY
            and sum(kept.signer == join.signer for kept in self._joins.values()) < MAX_JOINS_PER_KEY
        ):
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

    def evident_keys(self) -> tuple[PublicKey, ...]:
        """The guests the host's accepts name."""
        return tuple(accept.peer for accept in self._accepts.values() if accept.peer is not None)

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

    def reveal(self, reveal: Message) -> None:
        """Keep a reveal of a guest one of the host's accepts names (a few a guest), whatever else it meets: it may
        decide the seat (:meth:`canonical`). A guest's reveal that came before any accept named it is given again when
        one does (the receiver keeps such a guest's lines meanwhile)."""
        if not self.evident(reveal.signer):
            return
        kept = self._reveals.setdefault(reveal.signer, {})
        if reveal.hash not in kept and len(kept) < MAX_JOINS_PER_KEY:
            kept[reveal.hash] = reveal

    def reveals(self, accept: Message, join: Message) -> list[Message]:
        """The reveals of ``accept``'s guest that name it and open ``join``'s commitment, lowest hash first."""
        assert accept.peer is not None
        return sorted(
            (
                reveal
                for reveal in self._reveals.get(accept.peer, {}).values()
                if reveal.prev == accept.hash and commitment(reveal.secret) == join.commit
            ),
            key=lambda reveal: reveal.hash,
        )

    def first_mover(self, accept: Message, reveal: Message) -> PublicKey | None:
        """Who moves first on the seating ``accept`` and its guest's ``reveal`` draw (the coin, ``PROTOCOL.md`` §3)."""
        return self.host if host_moves_first(reveal.secret, accept.salt, self.terms) else accept.peer

    def canonical(
        self, placed: Message | None, clean: Callable[[PublicKey], bool], moved: Callable[[PublicKey, Message], bool]
    ) -> Seated | None:
        """Whom the host seated, whichever of its lines came first (the module's docstring): among its accepts whose
        join is known (``placed``: the join the chain holds, if any) and valid, by tier, the lowest hash; ``clean``
        says whether a guest signed no other line for seq 1 to 3, ``moved`` whether a key's first move follows a
        reveal; ``None`` when no accept names a known join."""
        seatings = []
        for accept in self._accepts.values():
            join = placed if placed is not None and placed.hash == accept.prev else self._joins.get(accept.prev)
            if join is None or join.signer != accept.peer or self.problem(join) is not None:
                continue
            reveals = self.reveals(accept, join)
            tier = 3
            if reveals:
                tier = 2
                if clean(join.signer):
                    first = self.first_mover(accept, reveals[0])
                    tier = 0 if first is not None and moved(first, reveals[0]) else 1
            seatings.append((tier, accept.hash, join, accept))
        if not seatings:
            return None
        seatings.sort(key=lambda seating: seating[:2])
        tier, _, join, accept = seatings[0]
        if tier <= 1 and len(seatings) > 1 and seatings[1][0] == tier and seatings[1][2].signer != join.signer:
            return Seated(ambiguous=True)
        return Seated(join, accept)

    def lines(self, placed: Message | None, moved: Callable[[PublicKey, Message], Message | None]) -> list[Message]:
        """What decides the seating beside the chain, for a record: each accept of the host's, its join, the
        reveals of it and the first move that follows one (``moved``: a key's first move after a reveal, if any)."""
        out: list[Message] = []
        for accept in self._accepts.values():
            join = placed if placed is not None and placed.hash == accept.prev else self._joins.get(accept.prev)
            out.append(accept)
            if join is None:
                continue
            out.append(join)
            for reveal in self.reveals(accept, join):
                out.append(reveal)
                first = self.first_mover(accept, reveal)
                move = moved(first, reveal) if first is not None else None
                if move is not None:
                    out.append(move)
        return out

    def seat(self, guest: PublicKey) -> None:
        """The guest is known: forget the other candidates."""
        self._candidates = {key: join for key, join in self._candidates.items() if key == guest}
        self._named = set()
