"""The judge's owners, each alone (``protocol.seating``, ``protocol.evidence``, ``protocol.claims``): what each keeps
and rules on, fed signed lines directly, without a receiver around it. The receiver's tests (test_protocol_*.py) hold
them together; these hold each one's own rules and bounds."""

from __future__ import annotations

import itertools

import pytest
from protocol_helpers import GUEST, HOST, STRANGER

from protocol.claims import Claims
from protocol.clock import TimeControl, TimeUsed, answer_window, dispute_bound
from protocol.domain import MessageType, ResultReason
from protocol.errors import RemoteProtocolError
from protocol.evidence import Evidence
from protocol.keys import Identity, b64
from protocol.messages import Message, decode, encode
from protocol.rules import MAX_JOINS, MAX_JOINS_PER_KEY, MAX_NAMED, MAX_PROOFS_PER_KEY, MAX_PROVEN_LINES, commitment
from protocol.seating import Seated, Seating

GAME = b64(bytes(16))
OFFER_HASH = b64(bytes(16) + bytes(range(16)))  # begins with the game id's bytes, as an offer's hash does
TERMS = "rules:1"


def line(kind: str, who: Identity, seq: int, prev: str = OFFER_HASH, *extra: tuple[str, str]) -> Message:
    return decode(encode(kind, [("game", GAME), ("seq", str(seq)), ("prev", prev), *extra], who))


def token(n: int) -> str:
    return b64(n.to_bytes(16, "big"))


def join(who: Identity, n: int = 0, terms: str = TERMS) -> Message:
    return line("join", who, 1, OFFER_HASH, ("terms", terms), ("commit", b64(n.to_bytes(32, "big"))))


def accept(joined: Message, salt: int = 0, guest: Identity | None = None) -> Message:
    named = guest.public if guest is not None else joined.signer
    return line("accept", HOST, 2, joined.hash, ("guest", named.text), ("salt", token(salt)))


def move(who: Identity, seq: int, text: str = "Oc6c5", prev: str | None = None, **clock: int) -> Message:
    extra = [("move", text), *((name, str(value)) for name, value in clock.items())]
    return line("move", who, seq, prev or b64(seq.to_bytes(32, "big")), *extra)


def receipt(who: Identity, of: Message, recv: int, sent: int | None = None, ack: int | None = None) -> Message:
    times = [
        ("recv", str(recv)),
        *([("sent", str(sent))] if sent is not None else []),
        *([("ack", str(ack))] if ack is not None else []),
    ]
    return line("receipt", who, of.seq, of.hash, *times)


def claimed(who: Identity, seq: int, sent: int, flagged: int, now: int) -> Message:
    return line(
        "timeout",
        who,
        seq,
        b64((seq - 1).to_bytes(32, "big")),
        ("sent", str(sent)),
        ("flagged", str(flagged)),
        ("now", str(now)),
    )


# -- seating -------------------------------------------------------------------------------------------
def seating(invite: Identity | None = None) -> Seating:
    seats = Seating()
    seats.offer(HOST.public, invite.public if invite is not None else None, TERMS)
    return seats


def code(problem: RemoteProtocolError | None) -> str | None:
    return None if problem is None else problem.code


def test_a_join_that_can_never_be_seated_says_why():
    seats = seating(invite=GUEST)
    assert seats.problem(join(GUEST)) is None
    assert code(seats.problem(join(STRANGER))) == "wrong-signer"  # not the key invited
    assert code(seats.problem(join(HOST))) == "wrong-seat"  # the host's own
    assert code(seats.problem(join(GUEST, terms="clock:60+0,rules:1"))) == "bad-field"  # other terms than the offer's


def test_joins_are_remembered_a_few_a_key_but_always_the_one_an_accept_names():
    seats = seating()
    joins = [join(STRANGER, n) for n in range(MAX_JOINS_PER_KEY + 3)]
    for each in joins:
        seats.remember_join(each)
    assert len(seats.joins_of(STRANGER.public)) == MAX_JOINS_PER_KEY
    late = joins[-1]
    seats.add_accept(accept(late))
    seats.remember_join(late)
    assert seats.join(late.hash) == late
    seats.remember_join(join(HOST))
    assert seats.joins_of(HOST.public) == []  # the host's own join is nobody's candidacy


def test_candidates_are_bounded_but_a_named_guest_always_fits():
    seats = seating()
    for n in range(MAX_JOINS):
        assert seats.add_candidate(join(Identity.from_seed(n.to_bytes(32, "big"))))
    assert not seats.add_candidate(join(STRANGER))
    assert seats.name(GUEST.public) and seats.named(GUEST.public)
    assert seats.add_candidate(join(GUEST))
    seats.seat(GUEST.public)
    assert list(seats.candidates) == [GUEST.public] and not seats.named(GUEST.public)


def test_an_accepted_guest_is_evident_once_and_the_accepts_kept_are_few():
    seats = seating()
    first = join(GUEST)
    assert seats.add_accept(accept(first)) == GUEST.public
    assert seats.add_accept(accept(first, salt=1)) is None  # evident already
    assert seats.evident(GUEST.public) and not seats.evident(STRANGER.public)
    for n in range(2, 2 + MAX_NAMED):
        seats.add_accept(accept(join(STRANGER, n), salt=n))
    assert len(seats.accepts) == MAX_NAMED


def reveal_of(joined: Message, accepted: Message, n: int = 0) -> Message:
    """The reveal of ``joined``'s guest on ``accepted``, opening the commitment of :func:`join` (``n``)."""
    return line("reveal", GUEST if joined.signer == GUEST.public else STRANGER, 3, accepted.hash, ("secret", token(n)))


def joined_with(who: Identity, n: int) -> Message:
    """A join whose commitment :func:`reveal_of` opens."""
    return line("join", who, 1, OFFER_HASH, ("terms", TERMS), ("commit", commitment(token(n))))


def clean(key) -> bool:
    return True


def unmoved(key, reveal) -> bool:
    return False


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_the_canonical_seating_is_the_lowest_accept_with_a_valid_join_in_any_order(order):
    joins = [join(GUEST), join(STRANGER), join(HOST)]
    accepts = [accept(joins[0], salt=1), accept(joins[1], salt=2), accept(joins[2], salt=3)]
    seats = seating()
    for index in order:
        seats.remember_join(joins[index])
        seats.add_accept(accepts[index])
    valid = sorted(accepts[:2], key=lambda each: each.hash)  # the host's own join is never a seat
    best = seats.canonical(None, clean, unmoved)
    assert best == Seated(next(j for j in joins if j.hash == valid[0].prev), valid[0])
    placed = joins[0]
    only = seating()
    only.add_accept(accepts[0])
    assert only.canonical(None, clean, unmoved) is None  # its join unknown
    assert only.canonical(placed, clean, unmoved) == Seated(placed, accepts[0])  # the join the chain holds
    assert seating().canonical(None, clean, unmoved) is None
    wrong = seating()
    wrong.remember_join(joins[0])
    wrong.add_accept(accept(joins[0], guest=STRANGER))  # guest= is not the join's signer
    assert wrong.canonical(None, clean, unmoved) is None


def test_once_a_guest_revealed_no_accept_reseats_the_game():
    """A host's later accept, ground to the lowest hash, seats nobody once the first accept's guest revealed; a
    reveal that does not open the join's commitment is no reveal; a guest that signed two lines for seq 1 to 3 comes
    after a clean one; two clean guests that revealed cannot be told apart (the host forfeits, nobody is named),
    unless the first move followed one reveal only."""
    played, puppet = joined_with(GUEST, 1), joined_with(STRANGER, 2)
    first = accept(played, salt=1)
    later = min((accept(puppet, salt=n) for n in range(2, 40)), key=lambda each: each.hash)
    assert later.hash < first.hash
    seats = seating()
    for each in (played, puppet):
        seats.remember_join(each)
    seats.add_accept(first)
    seats.add_accept(later)
    assert seats.canonical(None, clean, unmoved) == Seated(puppet, later)  # nobody revealed: the lowest hash
    seats.reveal(line("reveal", GUEST, 3, first.hash, ("secret", token(9))))  # opens nothing
    assert seats.canonical(None, clean, unmoved) == Seated(puppet, later)
    honest = reveal_of(played, first, 1)
    seats.reveal(honest)
    assert seats.canonical(None, clean, unmoved) == Seated(played, first)
    assert seats.reveals(first, played) == [honest]
    seats.reveal(reveal_of(puppet, later, 2))
    assert seats.canonical(None, clean, unmoved) == Seated(ambiguous=True)
    assert seats.canonical(None, lambda key: key != GUEST.public, unmoved) == Seated(puppet, later)
    assert seats.canonical(None, clean, lambda key, reveal: reveal == honest) == Seated(played, first)
    assert seats.first_mover(first, honest) in (HOST.public, GUEST.public)


# -- evidence -----------------------------------------------------------------------------------------
def test_two_lines_for_one_slot_and_a_final_line_before_another_conflict():
    evidence = Evidence()
    first = move(GUEST, 4)
    evidence.note(first)
    assert evidence.conflicts(first) == []  # the same line again
    assert evidence.conflicts(move(GUEST, 4, "Xa3a2")) == [first]
    resigned = line("resign", GUEST, 6, b64(bytes(32)))
    evidence.note(resigned)
    later = move(GUEST, 8)
    assert evidence.conflicts(later) == [resigned]  # played on after its own end
    assert evidence.conflicts(line("abort", GUEST, 5, b64(bytes(32)))) == [resigned]  # a later line it signed
    assert evidence.seen(GUEST.public, "4") == first and evidence.last(GUEST.public) == resigned
    assert evidence.conflicts(move(HOST, 4)) == []  # one key, one history


@pytest.mark.parametrize("receipt_first", [True, False])
def test_a_timeout_that_a_receipt_of_the_same_key_contradicts_is_found_in_either_order(receipt_first):
    evidence = Evidence()
    came = move(GUEST, 9)
    had = receipt(HOST, came, recv=5_000, sent=1_000)  # waited 4 s for it
    timeout = claimed(HOST, 9, sent=1_000, flagged=70_000, now=100_000)  # says it waited 69 s before claiming
    if receipt_first:
        assert evidence.acknowledge(had) is None
        assert evidence.conflicts(timeout) == [had]
    else:
        evidence.note(timeout)
        assert evidence.acknowledge(had) == timeout
    late = receipt(HOST, came, recv=90_000, sent=1_000)  # had it after the claim: a late move, disputed, no proof
    fresh = Evidence()
    fresh.acknowledge(late)
    assert fresh.conflicts(timeout) == []


def test_of_a_keys_receipts_for_one_line_the_one_that_waited_least_is_its_word_in_any_order():
    came = move(GUEST, 9)
    quick, slow = receipt(HOST, came, recv=2_000, sent=1_000), receipt(HOST, came, recv=80_000, sent=1_000)
    for order in ((quick, slow), (slow, quick)):
        evidence = Evidence()
        assert evidence.word(order[0]) is None
        assert evidence.word(order[1]) == order[0] and evidence.doubled(order[1])
        for each in order:
            evidence.acknowledge(each)
        assert evidence.said(HOST.public, 9)[MessageType.RECEIPT] == quick


def test_a_point_is_proven_once_by_its_lowest_pair_whatever_came_first():
    lines = [move(GUEST, 4, text) for text in ("Oc6c5", "Xa3a2", "Xb1a2", "Xc1a2", "Xd1a2", "Xe1a2")]
    low = sorted(lines, key=lambda each: each.hash)[:2]
    for order in (lines, lines[::-1], sorted(lines, key=lambda each: each.hash, reverse=True)):
        evidence, known = Evidence(), set[str]()
        for each in order:
            for earlier in evidence.conflicts(each):
                proven = evidence.prove(earlier, each, known.__contains__)
                known.update(line.line for line in proven.known)
            evidence.note(each)
        (proof,) = evidence.proofs_of(GUEST.public)
        assert {proof.first, proof.second} == {each.line for each in low} and proof.point == 4 and proof.slot == "4"
    evidence = Evidence()
    first = evidence.prove(lines[0], lines[1], lambda text: False)
    assert first.proof is not None and first.known
    again = [
        evidence.prove(lines[0], line(*args), lambda text: False)
        for args in [("move", GUEST, 4, b64(bytes(32)), ("move", f"X{c}2a2")) for c in "abcdef" * 4]
    ]
    assert sum(len(each.known) for each in again if each.proof is None) <= MAX_PROVEN_LINES


def test_a_keys_proofs_keep_the_lowest_points():
    evidence = Evidence()

    def never(text: str) -> bool:
        return False

    for seq in range(20, 20 + MAX_PROOFS_PER_KEY):
        evidence.prove(move(GUEST, seq), move(GUEST, seq, "Xa3a2"), never)
    with pytest.raises(RemoteProtocolError) as refused:
        evidence.prove(move(GUEST, 40), move(GUEST, 40, "Xa3a2"), never)
    assert refused.value.code == "equivocation"
    lower = evidence.prove(move(GUEST, 5), move(GUEST, 5, "Xa3a2"), never)
    assert lower.proof is not None
    assert sorted(proof.point or 0 for proof in evidence.proofs_of(GUEST.public)) == [5, 20, 21, 22]


def test_the_forfeit_point_is_the_lowest_cut_of_a_seated_key():
    evidence = Evidence()

    def never(text: str) -> bool:
        return False

    evidence.prove(move(GUEST, 9), move(GUEST, 9, "Xa3a2"), never)
    evidence.prove(move(HOST, 9), move(HOST, 9, "Xa3a2"), never)
    evidence.prove(move(STRANGER, 4), move(STRANGER, 4, "Xa3a2"), never)
    seated = {HOST.public, GUEST.public}
    point = evidence.forfeit_point(lambda key, at: at if key in seated else None)
    assert point is not None and point.cut == 9 and set(point.keys) == seated and point.slot == 9
    evidence.keep_proofs_of(lambda key: key == GUEST.public)
    point = evidence.forfeit_point(lambda key, at: 3 if at < 3 else at)
    assert point is not None and point.keys == (GUEST.public,)
    assert Evidence().forfeit_point(lambda key, at: at) is None


# -- claims ------------------------------------------------------------------------------------------
LIVE = TimeControl.of_terms("clock:300+5,rules:1")


def test_of_two_receipts_of_one_line_the_lower_hash_counts_in_either_order():
    came = move(GUEST, 9)
    one, two = receipt(HOST, came, recv=2_000, sent=1_000), receipt(HOST, came, recv=3_000, sent=1_000)
    low, high = sorted((one, two), key=lambda each: each.hash)
    for first, second in ((low, high), (high, low)):
        claims = Claims(LIVE)
        assert claims.keep(first) is True
        assert claims.keep(second) is (False if second is low else None)
        assert claims.kept(MessageType.RECEIPT, HOST.public, 9) == low
        chain = [join(GUEST), *(move(GUEST, n) for n in range(1, 10))]
        assert claims.receipts_of(HOST.public, chain) == {9: low}
        assert claims.receipts_of(HOST.public, chain[:9]) == {}  # a line the chain does not hold: not counted


def test_a_moves_clock_must_follow_from_the_record():
    claims = Claims(LIVE)
    claims.check_move(move(GUEST, 4, think=1_000, left=304_000), 300_000)
    for clock, code in (
        ({}, "bad-clock"),
        ({"think": 1_000, "left": 303_000}, "bad-clock"),
        ({"think": 300_000, "left": 5_000}, "bad-clock"),
    ):
        with pytest.raises(RemoteProtocolError) as refused:
            claims.check_move(move(GUEST, 4, "Oc6c5", None, **clock), 300_000)
        assert refused.value.code == code
    with pytest.raises(RemoteProtocolError):
        Claims(None).check_move(move(GUEST, 4, think=1_000, left=304_000), None)
    Claims(None).check_move(move(GUEST, 4), None)


def test_a_claim_waits_for_the_clock_and_the_grace_and_a_timeout_for_the_window():
    claims = Claims(LIVE)
    with pytest.raises(RemoteProtocolError) as early:
        claims.check_wait(0, 10_999, 10_000, "the flag claim")
    assert early.value.code == "early-claim"
    claims.check_wait(0, 11_000, 10_000, "the flag claim")
    window = answer_window(LIVE)
    closing = claimed(HOST, 9, sent=0, flagged=11_000, now=11_000 + window)
    claims.check_timeout(closing, False, 10_000)
    with pytest.raises(RemoteProtocolError) as soon:
        claims.check_timeout(claimed(HOST, 9, sent=0, flagged=11_000, now=10_999 + window), False, 10_000)
    assert soon.value.code == "early-claim"
    with pytest.raises(RemoteProtocolError) as timed:
        claims.check_timeout(closing, True, 10_000)  # a concession carries no times
    assert timed.value.code == "bad-field"
    with pytest.raises(RemoteProtocolError) as untimed:
        Claims(None).check_timeout(line("timeout", GUEST, 9, b64(bytes(32))), True, 0)
    assert untimed.value.code == "wrong-seat"


def test_a_timeout_wins_unless_an_answer_it_set_aside_or_the_claimants_own_time_says_otherwise():
    claims = Claims(LIVE)
    timeout = claimed(HOST, 9, sent=0, flagged=70_000, now=100_000)
    honest = {"pink": TimeUsed(), "black": TimeUsed()}
    won = claims.verdict(timeout, "pink", "black", GUEST.public, lambda: honest)
    assert won.reason == ResultReason.TIME and won.winner_key == HOST.public
    bound = dispute_bound(LIVE)
    assert bound is not None
    slow = {"pink": TimeUsed(unexplained=bound + 1), "black": TimeUsed()}
    assert claims.verdict(timeout, "pink", "black", GUEST.public, lambda: slow).reason == ResultReason.DISPUTE
    claims.displace(move(GUEST, 9, think=2_000, left=1_000))
    answered = claims.verdict(timeout, "pink", "black", GUEST.public, lambda: honest)
    assert answered.reason == ResultReason.DISPUTE and "thought 2.0 s" in (answered.detail or "")
    untimed = Claims(None).verdict(timeout, "pink", "black", GUEST.public, lambda: honest)
    assert untimed.reason == ResultReason.ABANDONED
