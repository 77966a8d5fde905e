"""The seating is the same for every receiver whatever the order of arrival, when the host, the guests and strangers
cheat while the seats are taken (PROTOCOL.md §3 the coin flip, §6 "The forfeit rule", "What a receiver keeps",
"Transcripts").

A seeded fuzzer (:func:`seating_cast.seating_game`) makes one game's lines with a cheating cast; five receivers are
fed them, one in the order they were signed and four in seeded random orders with repeats, each fed everything again
when it asks (``ResyncNeeded``, as a client subscribes again). The properties:

1. every receiver reaches the same result and main chain;
2. … holds the same proofs (by key, point and lines);
3. … exports the same record (as a set of lines: chat sits in a transcript where it was applied);
4. ``olixono verify`` (:func:`protocol.verify_transcript`) accepts each receiver's record and reaches its result;
5. a game its seated, revealed players ended, then re-seated by the host with a puppet of its own, stays won by
   the same winner.

Each fails on a judge that lets a host's puppet re-seat a game it lost, loses the lines of a guest a later accept
seats, or leaves records that differ or fail ``verify``; the named tests below them are those failures, each
reduced to a handful of lines.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import pytest
from seating_cast import Cast, SeatingGame, seating_game

from protocol import GameSession, Identity, PublicKey, ResyncNeeded, decode, verify_transcript

ORDERS = 4
"""Receivers fed a game in a shuffled order (besides the one fed it in the order signed)."""
DELIVERIES = 4
"""Times a receiver is fed the whole game at most: once, and again for each ``ResyncNeeded``."""
SEEDS = range(150)
"""The seeds a CI run tries (each property stops at its first failures, or after :data:`BUDGET`)."""
BUDGET = 6.0
"""Seconds one property may spend on :data:`SEEDS` in a CI run."""
SLOW_SEEDS = range(150, 2150)


# -- feeding a receiver, and what it ends with -------------------------------------------------------------
def fed(lines: Iterable[str], rng: random.Random | None = None) -> GameSession:
    """A receiver fed ``lines`` (shuffled by ``rng``, with repeats; as given without), and fed them again, in another
    order, each time it asks (``ResyncNeeded``)."""
    lines = list(lines)
    receiver = GameSession()
    for _ in range(DELIVERIES):
        order = list(lines)
        if rng is not None:
            order += rng.sample(order, k=len(order) // 3)  # QoS 1 repeats
            rng.shuffle(order)
        if not any(isinstance(event, ResyncNeeded) for event in receiver.receive_all(order)):
            break
    return receiver


@dataclass(frozen=True)
class Ending:
    """What every receiver of the same lines must agree on."""

    result: tuple[str, str, PublicKey | None, PublicKey | None, int | None] | None
    chain: tuple[str, ...]
    proofs: frozenset[tuple[str, str, int | None, frozenset[str]]]
    record: frozenset[str]


def ending(receiver: GameSession) -> Ending:
    result = receiver.result
    said = None if result is None else (result.code(), result.text(), result.winner_key, result.by, result.slot)
    proofs = frozenset(
        (proof.key.text, proof.slot, proof.point, frozenset((proof.first, proof.second))) for proof in receiver.proofs
    )
    return Ending(said, tuple(m.line for m in receiver.chain), proofs, frozenset(receiver.record))


# -- saying what differs, readably ---------------------------------------------------------------------------
def line_name(names: Mapping[str, str], line: str) -> str:
    """``guest-a's reveal 3``, ``host's accept 2 of puppet``."""
    message = decode(line, verify=False)
    what = f"{names.get(message.signer.text, message.signer.fingerprint)}'s {message.type.value} {message.slot}"
    if message.type.value == "accept" and message.peer is not None:
        what += f" of {names.get(message.peer.text, message.peer.fingerprint)}"
    return f"{what} [{message.hash[:4]}]"  # (a key's two lines for one slot)


def describe(names: Mapping[str, str], end: Ending) -> str:
    def who(key: PublicKey | None) -> str:
        return "none" if key is None else names.get(key.text, key.fingerprint)

    result = (
        "none"
        if end.result is None
        else f"{end.result[1]} (winner {who(end.result[2])}, by {who(end.result[3])}, slot {end.result[4]})"
    )
    chain = ", ".join(line_name(names, line) for line in end.chain)
    proofs = (
        "; ".join(
            f"{names.get(key, key[:8])} at {point} ({slot}): "
            + " / ".join(sorted(line_name(names, line) for line in lines))
            for key, slot, point, lines in sorted(end.proofs, key=str)
        )
        or "none"
    )
    return f"result {result}\n      chain [{chain}]\n      proofs {proofs}"


def difference(names: Mapping[str, str], a: Ending, b: Ending) -> str:
    """Two endings one above the other, and the lines one record holds and the other does not."""
    out = [f"  one receiver:     {describe(names, a)}", f"  another receiver: {describe(names, b)}"]
    only_a = sorted(line_name(names, line) for line in a.record - b.record)
    only_b = sorted(line_name(names, line) for line in b.record - a.record)
    if only_a or only_b:
        out.append(f"  records differ: only the first holds {only_a}, only the second {only_b}")
    return "\n".join(out)


def verify_problem(names: Mapping[str, str], receiver: GameSession) -> str | None:
    """Why ``olixono verify`` refuses ``receiver``'s record or ends otherwise, or ``None``."""
    session, number, problem = verify_transcript(receiver.record)
    if problem is not None:
        assert number is not None
        return (
            f"  verify refuses line {number} of the record, {line_name(names, receiver.record[number - 1])}: "
            f"{problem.code} ({problem.detail})\n  the receiver: {describe(names, ending(receiver))}"
        )
    if ending(session).result != ending(receiver).result or session.chain != receiver.chain:
        return f"  verify ends otherwise than the receiver\n{difference(names, ending(receiver), ending(session))}"
    return None


# -- the properties, one seed at a time ------------------------------------------------------------------------
@dataclass(frozen=True)
class Judged:
    game: SeatingGame
    receivers: tuple[GameSession, ...]
    endings: tuple[Ending, ...]


def judge(seed: int, cheating: bool = True) -> Judged:
    """The game of ``seed`` fed to a receiver in the order signed and to :data:`ORDERS` others, each shuffled."""
    game = seating_game(seed, cheating=cheating)
    orders = random.Random(seed)
    receivers = (fed(game.lines), *(fed(game.lines, random.Random(orders.random())) for _ in range(ORDERS)))
    return Judged(game, receivers, tuple(ending(receiver) for receiver in receivers))


judged = lru_cache(maxsize=len(SEEDS) + 60)(judge)
"""The CI seeds' cases, judged once for all the properties (and the honest ones')."""


def disagreement(case: Judged, part: Callable[[Ending], object]) -> str | None:
    """Two receivers whose endings differ in ``part``, shown, or ``None``."""
    first = case.endings[0]
    for other in case.endings[1:]:
        if part(other) != part(first):
            return f"{case.game.describe()}\n{difference(case.game.names, first, other)}"
    return None


def result_and_chain(case: Judged) -> str | None:
    return disagreement(case, lambda end: (end.result, end.chain))


def proofs(case: Judged) -> str | None:
    return disagreement(case, lambda end: end.proofs)


def record(case: Judged) -> str | None:
    return disagreement(case, lambda end: end.record)


def verified(case: Judged) -> str | None:
    for receiver in case.receivers:
        problem = verify_problem(case.game.names, receiver)
        if problem is not None:
            return f"{case.game.describe()}\n{problem}"
    return None


def played_before_reseat(game: SeatingGame) -> GameSession | None:
    """A receiver of the lines signed before the host re-seated a puppet, where they end a played game (the seats
    drawn) with a winner other than the host; else ``None``."""
    if game.before_reseat is None:
        return None
    before = fed(game.before_reseat)
    winner = before.result.winner_key if before.result is not None else None
    return before if before.started and winner is not None and winner != game.host else None


def winner_kept(case: Judged) -> str | None:
    """Where the host re-seated a puppet after a played game it did not win, every receiver of all the lines names
    the same winner and seats no puppet. (A host that won and then signs a second accept may lose by the forfeit
    rule: that costs only itself.)"""
    game = case.game
    before = played_before_reseat(game)
    if before is None:
        return None
    assert before.result is not None
    for receiver, end in zip(case.receivers, case.endings, strict=True):
        result = receiver.result
        if (
            result is None
            or result.winner_key != before.result.winner_key
            or game.puppet in (receiver.guest, *receiver.seats.values())
        ):
            return (
                f"{game.describe()}\n  before the re-seat: {describe(game.names, ending(before))}\n"
                f"  after it:           {describe(game.names, end)}"
            )
    return None


PROPERTIES: dict[str, Callable[[Judged], str | None]] = {
    "result and chain": result_and_chain,
    "proofs": proofs,
    "record": record,
    "verify": verified,
    "winner kept": winner_kept,
}


def failures(
    check: Callable[[Judged], str | None], seeds: Iterable[int], budget: float, most: int = 3, cheating: bool = True
) -> tuple[list[str], int]:
    """The first ``most`` failures of ``check`` over ``seeds`` within ``budget`` seconds, and how many seeds it
    tried."""
    deadline = time.monotonic() + budget
    found: list[str] = []
    tried = 0
    for seed in seeds:
        if time.monotonic() > deadline or len(found) >= most:
            break
        tried += 1
        why = check(judged(seed, cheating))
        if why is not None:
            found.append(why)
    return found, tried


class PropertyFails(AssertionError):
    """A property does not hold (a crash of the generator is no such failure)."""


def holds(name: str) -> None:
    found, tried = failures(PROPERTIES[name], SEEDS, BUDGET)
    if found:
        raise PropertyFails(f"{name}: {len(found)} of the {tried} seeds tried fail; the first:\n{found[0]}")


# -- the properties over the CI seeds ------------------------------------------------------------------------


def test_every_order_reaches_the_same_result_and_chain():
    holds("result and chain")


def test_every_order_holds_the_same_proofs():
    holds("proofs")


def test_every_order_exports_the_same_record():
    holds("record")


def test_verify_accepts_every_receivers_record_and_reaches_its_result():
    holds("verify")


def test_a_game_its_players_ended_stays_won_by_its_winner_when_the_host_reseats():
    holds("winner kept")


def test_honest_casts_hold_every_property():
    """The same generator with no cheats (strangers still join, chat and are present; the host may claim, the guest
    walk away): every property holds, so what fails above is the cheats, not the harness."""
    for name, check in PROPERTIES.items():
        found, tried = failures(check, range(60), BUDGET / 2, cheating=False)
        assert not found and tried, f"{name}: {found[:1]}"


def test_the_cast_cheats_in_every_way_it_knows():
    """The fuzzer's cast does each of its cheats within the CI seeds (a generator that stopped cheating would pass)."""
    ways = [
        "joins twice",
        "chats before its seat",
        "also accepts",
        "lower hash",
        "higher hash",
        "withdraws",
        "reveals on the host's other accept",
        "also aborts at 3",
        "chats as a guest the host's other accept names",
        "host claims at 3",
        "walks away",
        "confirms the ending, unseated",
        "signs an abort for 3 after the game",
        "accepts its puppet's join",
        "the puppet reveals",
        "the puppet also aborts",
        "the puppet aborts at 3",
    ]
    games = [seating_game(seed) for seed in SEEDS]
    done = " | ".join(cheat for game in games for cheat in game.cheats)
    assert [way for way in ways if way not in done] == []
    assert sum(played_before_reseat(game) is not None for game in games) >= 5  # the puppet property is tried


@pytest.mark.slow
def test_every_property_over_two_thousand_seeds():
    """The larger run (about two minutes): how many seeds fail each property, and the first failure of each."""
    deadline = time.monotonic() + 600
    found: dict[str, list[str]] = {name: [] for name in PROPERTIES}
    tried = 0
    for seed in SLOW_SEEDS:
        if time.monotonic() > deadline:
            break
        tried += 1
        case = judge(seed)
        for name, check in PROPERTIES.items():
            why = check(case)
            if why is not None:
                found[name].append(why)
    report = [
        f"{name}: {len(whys)} of {tried} seeds fail; the first:\n{whys[0]}" for name, whys in found.items() if whys
    ]
    if report:
        raise PropertyFails("\n".join(report))


# -- the distinct failures, each in a few lines ---------------------------------------------------------------
def hashed(line: str) -> str:
    return decode(line, verify=False).hash


def one_ending(names: Mapping[str, str], orders: list[list[str]]) -> list[GameSession]:
    """Receivers fed each of ``orders``; they must end alike (result, chain, proofs, record)."""
    receivers = [fed(order) for order in orders]
    ends = [ending(receiver) for receiver in receivers]
    for end in ends[1:]:
        if end != ends[0]:
            raise PropertyFails(difference(names, ends[0], end))
    return receivers


def all_verify(names: Mapping[str, str], receivers: list[GameSession]) -> None:
    for receiver in receivers:
        problem = verify_problem(names, receiver)
        if problem is not None:
            raise PropertyFails(problem)


@pytest.fixture
def cast() -> Cast:
    return Cast(random.Random(1), cheating=True)


@pytest.mark.parametrize("lost", ["dropped while waiting", "refused on arrival"])
def test_a_guests_lines_count_when_a_later_accept_seats_it(cast, lost):
    """The host accepts guest-a (lower hash) and guest-b; guest-a signs a reveal and an abort for seq 3. Both
    players equivocated at the seating: no result. But a receiver that seats guest-b first (its join and accept came
    first) drops guest-a's lines waiting for a seat, or refuses them as they come (``wrong-signer``); when guest-a's
    accept comes, the canonical seating re-seats guest-a, whose proof is gone and never asked for again (no
    ``ResyncNeeded``): guest-a wins by forfeit."""
    host = cast.identity("host")
    guest_a, guest_b = cast.identity("guest-a"), cast.identity("guest-b")
    cast.open("oxono", host)
    offer = cast.lines[0]
    join_a, join_b = cast.join(guest_a), cast.join(guest_b)
    accept_a = cast.accept(host, join_a)
    accept_b = cast.accept(host, join_b, above=hashed(accept_a))
    reveal = cast.after("reveal", guest_a, accept_a, ("secret", join_a.secret))
    abort = cast.after("abort", guest_a, accept_a)
    late = (
        [offer, reveal, abort, join_b.line, accept_b, join_a.line, accept_a]
        if lost == "dropped while waiting"
        else [offer, join_b.line, accept_b, reveal, abort, join_a.line, accept_a]
    )
    receivers = one_ending(cast.names, [[offer, join_a.line, accept_a, reveal, abort, join_b.line, accept_b], late])
    result = receivers[0].result
    assert result is not None and result.by is None  # (the first order: both players' proofs, no result)


@pytest.mark.parametrize("seated", ["another guest", "the same guest's other join"])
def test_a_reseat_leaves_a_transcript_that_verify_replays(cast, seated):
    """guest-a chats; the host accepts guest-a, then (lower hash) guest-b or guest-a's second join. A receiver that
    had seated guest-a first keeps its chat in the transcript, before the new seating's join and accept: ``verify``
    refuses the record (``gap``), and a receiver that saw the canonical accept first exports another record (without
    guest-a's chat, or with it after the seating)."""
    host = cast.identity("host")
    guest_a = cast.identity("guest-a")
    cast.open("olix", host)
    offer = cast.lines[0]
    first = cast.join(guest_a)
    second = cast.join(cast.identity("guest-b") if seated == "another guest" else guest_a)
    chat = cast.chat(guest_a)
    accept_first = cast.accept(host, first)
    accept_second = cast.accept(host, second, below=hashed(accept_first))
    receivers = one_ending(
        cast.names,
        [
            [offer, first.line, second.line, accept_first, chat, accept_second],
            [offer, first.line, second.line, accept_second, chat, accept_first],
        ],
    )
    all_verify(cast.names, receivers)


@pytest.mark.parametrize("unseated", ["a stranger's double join, nobody seated", "a guest a lesser accept names"])
def test_a_proof_by_a_key_without_a_seat_leaves_a_record_verify_accepts(cast, unseated):
    """A proof by a key that holds no seat is reported, never held against the game; but ``record`` writes its two
    lines, and ``verify`` excuses only a seated key's proof: a stranger's two joins while nobody is seated (a
    receiver that had the host's withdrawal first refuses them, and holds no proof), or guest-b's reveal and abort
    on the host's accept that is not the canonical one (held only where that accept came before guest-a's seat)."""
    host = cast.identity("host")
    cast.open("oxono", host)
    offer = cast.lines[0]
    if unseated == "a stranger's double join, nobody seated":
        stranger = cast.identity("stranger")
        joins = [cast.join(stranger).line, cast.join(stranger).line]
        withdraw = cast.after("abort", host, offer)
        orders = [[offer, *joins, withdraw], [offer, withdraw, *joins]]
    else:
        guest_a, guest_b = cast.identity("guest-a"), cast.identity("guest-b")
        join_a, join_b = cast.join(guest_a), cast.join(guest_b)
        accept_a = cast.accept(host, join_a)
        accept_b = cast.accept(host, join_b, above=hashed(accept_a))
        lines = [
            cast.after("reveal", guest_b, accept_b, ("secret", join_b.secret)),
            cast.after("abort", guest_b, accept_b),
        ]
        orders = [
            [offer, join_a.line, join_b.line, accept_b, *lines, accept_a],
            [offer, join_a.line, join_b.line, accept_a, *lines, accept_b],
        ]
    all_verify(cast.names, [fed(order) for order in orders])
    one_ending(cast.names, orders)


def played(cast: Cast, kind: str = "olix") -> tuple[GameSession, GameSession, Identity]:
    """A host and a guest session of ``cast``'s game with the seats drawn (the cast holds its four lines), and the
    guest's key."""
    host_key, guest_key = cast.identity("host"), cast.identity("guest")
    host = cast.open(kind, host_key)
    guest = GameSession(cast.game, guest_key)
    guest.receive(cast.lines[0])
    host.receive(cast.add(guest.join().line))
    guest.receive(cast.add(host.accept(guest_key.public).line))
    host.receive(cast.add(guest.reveal().line))
    return host, guest, guest_key


@pytest.mark.parametrize("lines", ["three accepts", "an abort beside the reveal and a move", "a withdrawal"])
def test_every_receiver_holds_the_same_proof_of_one_point(cast, lines):
    """One proof a point is kept: the first two conflicting lines that came. Where a key signed three lines for one
    slot (the host's three accepts), or a line that conflicts with two (the guest's abort for 3, beside its reveal and
    a later move of its), which two the proof shows depends on the order, and so does the record (``verify`` accepts
    each); a proof's ``slot`` is its second line's (the host's withdrawal at 1 and its accept at 2: ``1`` or ``2``)."""
    if lines == "three accepts":
        host = cast.identity("host")
        cast.open("oxono", host)
        offer = cast.lines[0]
        prefix, rivals = [offer], [cast.accept(host, cast.join(cast.identity(name))) for name in "abc"]
    elif lines == "an abort beside the reveal and a move":
        host, guest, guest_key = played(cast)
        offer, join, accept, reveal = cast.lines
        before: list[str] = []  # the host's first move, if the host is seated first
        while True:
            mover, other = (host, guest) if host.actor == host.host else (guest, host)
            board = mover.board
            assert board is not None
            move = cast.add(mover.move(board.legal_moves()[0].text()).line)
            other.receive(move)
            if mover is guest:
                break
            before.append(move)
        prefix, rivals = [offer, join, accept, *before], [reveal, move, cast.after("abort", guest_key, accept)]
    else:
        host_key, guest_key = cast.identity("host"), cast.identity("guest")
        host = cast.open("oxono", host_key)
        offer = cast.lines[0]
        join = cast.join(guest_key)
        host.receive(join.line)
        prefix, rivals = [offer, join.line], [host.accept(guest_key.public).line, cast.after("abort", host_key, offer)]
    orders = [[*prefix, *rivals[i:], *rivals[:i]] for i in range(len(rivals))]
    all_verify(cast.names, [fed(order) for order in orders])
    one_ending(cast.names, orders)


@pytest.mark.parametrize("puppet", ["accepted", "reveals and aborts at 3"])
def test_a_host_who_lost_cannot_reseat_a_puppet(cast, puppet):
    """The guest wins (the host resigns). Then the host signs a join for a puppet key of its own and an accept of it,
    its salt ground below the real accept's hash. The forfeit rule seats the canonical accept's guest: the puppet
    'wins by forfeit' for every receiver, the winner's own client included; with a puppet reveal and abort for seq 3
    as well, the game becomes 'no result' (in most orders: the puppet's lines are lost in others)."""
    host, guest, guest_key = played(cast)
    host_key = host.identity
    puppet_key = cast.identity("puppet")
    assert host_key is not None
    guest.receive(cast.add(host.resign().line))
    assert guest.result is not None and guest.result.winner_key == guest_key.public
    game = list(cast.lines)
    join = cast.join(puppet_key)
    accept = cast.accept(host_key, join, below=hashed(game[2]))
    reseat = [join.line, accept]
    if puppet == "reveals and aborts at 3":
        reseat += [
            cast.after("reveal", puppet_key, accept, ("secret", join.secret)),
            cast.after("abort", puppet_key, accept),
        ]
    guest.receive_all(reseat)
    receivers = [guest, *(fed([*game, *reseat], random.Random(n)) for n in range(4))]
    for receiver in receivers:
        result = receiver.result
        if result is None or result.winner_key != guest_key.public or receiver.guest != guest_key.public:
            raise PropertyFails(describe(cast.names, ending(receiver)))
