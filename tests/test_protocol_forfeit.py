"""Equivocation decides: a seated key that signs two lines which cannot both stand loses the game at that point, and
every receiver reaches the same record, result and proofs whatever the order in which the lines arrive.

Also the co-signed result (``confirm`` lines) and the record a proof travels with (``GameSession.record``).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    GUEST,
    HOST,
    STRANGER,
    confirm_of,
    game_id_in,
    identity_of,
    mover,
    offered,
    play_moves,
    playable,
    rejected,
    result_of,
    start,
)

from protocol import GameSession, LocalProtocolError, Phase, check_equivocation_proof, verify_transcript
from protocol.keys import b64
from protocol.messages import Message, decode, encode
from protocol.rules import CONFIRMED, DISPUTED, UNSEEN

KEYS = {HOST.public: HOST, GUEST.public: GUEST}


def ending(session: GameSession) -> tuple[object, ...]:
    """What every receiver must agree on: the main chain, the result, who has a proof where, the transcript's lines.

    (Which two lines a proof shows may differ: with three lines for one slot, any two of them prove it.)
    """
    proofs = {
        (p.key, p.point if p.point is not None else p.slot)
        for p in session.proofs
        if session.role_of(p.key) is not None
    }
    return tuple(m.line for m in session.chain), session.result, frozenset(proofs), frozenset(session.transcript)


def twin_at(chain: tuple[Message, ...], seq: int, key) -> GameSession:
    """The session of ``key`` as it stood before ``seq``: what a second process of that key would sign from."""
    return GameSession.restore([m.line for m in chain[:seq]], KEYS[key])


def alternatives(chain: tuple[Message, ...], seq: int, rng: random.Random) -> list[str]:
    """Lines the signer of chain[seq] could have signed instead (some valid, some not): a forger's choices."""
    signer = chain[seq].signer
    out = []
    for kind in ("move", "resign", "propose", "agree", "abort"):
        twin = twin_at(chain, seq, signer)
        try:
            line = (twin.move(rng.choice(playable(twin))) if kind == "move" else getattr(twin, kind)()).line
        except LocalProtocolError:
            continue
        if line != chain[seq].line:
            out.append(line)
    bogus = encode(
        "move",
        [("game", chain[0].game), ("seq", str(seq)), ("prev", b64(rng.randbytes(32))), ("move", "Oc6c5")],
        KEYS[signer],
    )
    return [*out, bogus]


def scenario(seed: int) -> tuple[list[str], list[str]]:
    """A finished (or nearly finished) game's lines, and forged lines by one or both players and a stranger."""
    rng = random.Random(seed)
    kind = rng.choice(["oxono", "olix"])
    host, guest = start(kind)
    play_moves(host, guest, seed, plies=rng.randrange(4, 30))
    if not host.over and rng.random() < 0.5:
        actor, waiter = mover(host, guest)
        host_or_guest = rng.choice([actor, waiter])
        out = host_or_guest.resign()
        (guest if host_or_guest is host else host).receive(out.line)
    lines = list(host.transcript)
    for session in (host, guest):
        if session.over:
            confirm = session.confirm()
            if confirm is not None:
                lines.append(confirm.line)
    chain = host.chain
    extras = []
    for _ in range(rng.randrange(1, 4)):
        seq = rng.randrange(4, len(chain))
        extras.extend(rng.sample(alternatives(chain, seq, rng), k=1))
    if rng.random() < 0.3:  # a stranger's line for a slot: never held against anyone
        extras.append(
            encode(
                "move",
                [("game", game_id_in(host)), ("seq", str(len(chain) - 1)), ("prev", chain[-2].hash), ("move", "Oc6c5")],
                STRANGER,
            )
        )
    return lines, extras


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 100_000), shuffle=st.randoms(use_true_random=False))
def test_any_two_orders_of_the_same_lines_give_the_same_record_result_and_proofs(seed, shuffle):
    lines, extras = scenario(seed)
    everything = [*lines, *extras]
    reference = GameSession()
    reference.receive_all(everything)
    order = everything + shuffle.sample(everything, k=len(everything) // 3)  # QoS 1 repeats
    shuffle.shuffle(order)
    other = GameSession()
    for line in order:
        other.receive(line)
    assert ending(other) == ending(reference)
    for key in (HOST.public, GUEST.public):
        assert other.confirmation(key) == reference.confirmation(key)
    # whoever has a proof at or before the end loses, and the record says so
    seated = [p for p in reference.proofs if p.point is not None and reference.role_of(p.key) is not None]
    if reference.result is not None and reference.result.reason == "equivocation":
        assert {p.key for p in seated if p.point == reference.result.slot} >= (
            {reference.result.by} if reference.result.by else set()
        )
        assert len(reference.chain) == reference.result.slot
    for proof in reference.proofs:
        assert check_equivocation_proof(proof.first, proof.second) == proof.key
    # the record verifies to the same result
    session, number, problem = verify_transcript(reference.record)
    assert problem is None, (number, problem)
    assert session.result == reference.result


def finished(kind: str = "oxono", seed: int = 7) -> tuple[GameSession, GameSession]:
    host, guest = start(kind)
    play_moves(host, guest, seed)
    assert host.over
    return host, guest


@pytest.mark.parametrize("forgery", ["move", "agree"])
def test_the_loser_who_re_signs_its_last_slot_loses_whichever_line_a_late_watcher_gets_first(forgery):
    """The attack on a finished game's record: after the game, the loser re-signs its own last slot (a different move,
    or an agree of an open draw offer); a late watcher gets the forgery and the winner's copy of the true line, in any
    order."""
    for seed in range(40):
        host, guest = start("oxono")
        rng = random.Random(seed)
        winner_proposed: GameSession | None = None
        while not host.over:
            mine, theirs = mover(host, guest)
            if forgery == "agree" and winner_proposed is None and mine.moves > 6 and mine.proposal is None:
                theirs.receive(mine.propose().line)  # a proposal stays open through later moves
                winner_proposed = mine
            theirs.receive(mine.move(rng.choice(playable(mine))).line)
        result = result_of(host)
        if result.winner is None or (forgery == "agree" and winner_proposed is None):
            continue
        if winner_proposed is not None and host.player_of(identity_of(winner_proposed).public) != result.winner:
            continue
        loser = next(key for player, key in host.seats.items() if player != result.winner)
        last = max(m.seq for m in host.chain if m.signer == loser)
        twin = twin_at(host.chain, last, loser)
        try:
            forged = (
                twin.agree()
                if forgery == "agree"
                else twin.move(next(m for m in playable(twin) if m != host.chain[last].value("move")))
            ).line
        except LocalProtocolError:
            continue
        true_line = host.chain[last].line
        ends = set()
        for order in ([forged, true_line], [true_line, forged]):
            watcher = GameSession()
            watcher.receive_all([m.line for m in host.chain[:last]])
            watcher.receive_all(order)
            watcher.receive_all([m.line for m in host.chain[last + 1 :]])
            assert result_of(watcher).reason == "equivocation" and result_of(watcher).winner == result.winner
            assert result_of(watcher).by == loser and result_of(watcher).slot == last
            assert watcher.branch is not None and watcher.branch[0].line == true_line  # the winner answered it
            ends.add(ending(watcher))
        assert len(ends) == 1
        return
    pytest.fail("no seed gave the position the attack needs")


def test_a_forfeit_waits_for_the_lines_before_its_point():
    host, _guest = finished()
    chain = host.chain
    seq = len(chain) - 3
    forged = alternatives(chain, seq, random.Random(1))[0]
    spectator = GameSession()
    spectator.receive_all([chain[seq].line, forged])  # both before the offer: they wait
    assert spectator.result is None
    spectator.receive_all([m.line for m in chain[:seq]])
    assert result_of(spectator).reason == "equivocation" and len(spectator.chain) == seq
    assert not rejected(spectator.receive_all([m.line for m in chain[seq + 1 :]])) or spectator.over


def test_a_proof_after_the_end_is_reported_and_changes_nothing():
    host, _guest = finished()
    key = host.chain[-1].signer
    twin = GameSession.restore(host.transcript, KEYS[key])
    late = [
        encode(
            "resign",
            [("game", game_id_in(host)), ("seq", str(host.next_seq + 2)), ("prev", b64(bytes([n]) * 32))],
            KEYS[key],
        )
        for n in (1, 2)
    ]
    spectator = GameSession.restore(host.transcript)
    spectator.receive_all(late)
    assert spectator.result == host.result and spectator.proofs and twin.result == host.result


def test_confirmations_say_who_agrees_with_the_ending():
    host, guest = finished("olix", 3)
    spectator = GameSession.restore(host.transcript)
    assert spectator.confirmation(HOST.public) is None
    mine = confirm_of(host)
    assert host.confirm() is None  # the latest says it already
    spectator.receive(mine.line)
    assert spectator.confirmation(HOST.public) == CONFIRMED and spectator.confirmation(GUEST.public) is None
    assert mine.message.slot == "confirm-1" and mine.topic.endswith("/confirm-1")
    theirs = confirm_of(guest)
    spectator.receive(theirs.line)
    assert spectator.confirmed_by == {HOST.public, GUEST.public}
    # a confirmation of another ending is a dispute; one beyond what a receiver has is unseen
    lie = encode(
        "confirm",
        [
            ("game", game_id_in(host)),
            ("seq", "2"),
            ("prev", host.chain[-2].hash),
            ("final", str(host.chain[-2].seq)),
            ("result", "draw-agreed"),
        ],
        GUEST,
    )
    spectator.receive(lie)
    assert spectator.confirmation(GUEST.public) == DISPUTED
    short = GameSession.restore(host.transcript[:-3])
    short.receive(mine.line)
    assert short.confirmation(HOST.public) == UNSEEN
    # a second, different confirmation under the same number is a proof
    twice = encode(
        "confirm",
        [
            ("game", game_id_in(host)),
            ("seq", "1"),
            ("prev", host.chain[-2].hash),
            ("final", str(host.chain[-2].seq)),
            ("result", "draw-agreed"),
        ],
        HOST,
    )
    spectator.receive(twice)
    proof = next(p for p in spectator.proofs if p.key == HOST.public)
    assert proof.slot == "confirm-1" and proof.point is None and check_equivocation_proof(proof.first, proof.second)
    assert spectator.result == host.result  # confirmations never change the game
    assert spectator.confirmation(HOST.public) == DISPUTED  # two endings under one number: neither counts
    session, _number, problem = verify_transcript(spectator.record)
    assert problem is None and session.confirmation(HOST.public) == DISPUTED and session.result == host.result


def test_a_player_confirms_again_when_the_ending_changes():
    """Both resign at once: the waiter's resignation stands over the actor's. The actor confirmed its own first, and
    confirms the one that stands under the next number; nobody is held to the first."""
    host, guest = start("oxono")
    play_moves(host, guest, 5, plies=6)
    actor, waiter = mover(host, guest)
    theirs = waiter.resign()
    mine = actor.resign()
    first = confirm_of(actor)
    actor.receive(theirs.line)
    assert actor.result == waiter.result and result_of(actor).by == identity_of(waiter).public
    second = confirm_of(actor)
    assert decode(first.line).seq == 1 and decode(second.line).seq == 2
    spectator = GameSession.restore([*waiter.transcript, mine.line])
    for out in (first, second, confirm_of(waiter)):
        spectator.receive(out.line)
    assert spectator.confirmed_by == {HOST.public, GUEST.public} and not spectator.proofs


# -- the seating: what a host or a guest can sign before the coin is revealed ---------------------------------
def won_by_guest(kind: str = "oxono") -> tuple[GameSession, GameSession]:
    for seed in range(60):
        host, guest = start(kind)
        play_moves(host, guest, seed)
        if result_of(host).winner_key == GUEST.public:
            return host, guest
    raise AssertionError("no seed where the guest wins")


def same_in_every_order(prefix: list[str], lines: list[str], orders: int = 40) -> GameSession:
    """Feed ``prefix`` and ``lines`` shuffled together, many times: one ending (chain, result, proofs) for all."""
    rng = random.Random(len(lines))
    ends: set[tuple[object, ...]] = set()
    everything = [*prefix, *lines]
    for _ in range(orders):
        order = list(everything)
        rng.shuffle(order)
        session = GameSession()
        session.receive_all(order)
        ends.add(ending(session))
    assert len(ends) == 1, ends
    return session  # the last order's


@pytest.mark.parametrize("escape", ["withdraws", "accepts again"])
def test_a_host_that_lost_cannot_turn_the_loss_into_no_game(escape):
    """After losing, the host signs an abort for seq 1 (withdrawing an offer long accepted) or a second accept: it
    loses to the guest it seated, never 'no game' (which would leave it better off than playing)."""
    host, guest = won_by_guest()
    if escape == "withdraws":
        bad = encode("abort", [("game", game_id_in(host)), ("seq", "1"), ("prev", host.chain[0].hash)], HOST)
    else:
        bad = encode(
            "accept",
            [
                ("game", game_id_in(host)),
                ("seq", "2"),
                ("prev", b64(bytes(32))),
                ("guest", STRANGER.public.text),
                ("salt", b64(bytes(16))),
            ],
            HOST,
        )
    session = same_in_every_order(list(host.transcript), [bad])
    assert (
        result_of(session).winner == "guest"
        and result_of(session).winner_key == GUEST.public
        and result_of(session).scored
    )
    guest.receive(bad)
    assert result_of(guest).winner_key == GUEST.public  # in the winner's own session too


def test_an_accept_is_only_ever_seq_2():
    """A host's accept signed for seq 1 seated a key that never joined (then a claim 'won' against it), and made the
    guest's client fail on its reveal."""
    host, guest = offered("oxono")
    stray = encode(
        "accept",
        [
            ("game", game_id_in(host)),
            ("seq", "1"),
            ("prev", host.chain[0].hash),
            ("guest", GUEST.public.text),
            ("salt", b64(bytes(16))),
        ],
        HOST,
    )
    assert rejected(guest.receive(stray)) == ["wrong-seat"] and guest.guest is None
    host.receive(guest.join().line)
    guest.receive(host.accept(GUEST.public).line)
    assert guest.phase is Phase.ACCEPTED and guest.reveal() is not None


@pytest.mark.parametrize("kind", ["resign", "move", "accept"])
def test_the_guests_lines_from_before_its_seat_count_alike_in_every_order(kind):
    """A line of the future guest's for seq 1 or 2 (before the accept) goes into the guest's history whether it comes
    before the accept or after, never refused in one order and held against the guest in the other."""
    host, guest = start("olix")
    play_moves(host, guest, 3, plies=4)
    offer = host.chain[0].hash
    fields = {
        "resign": [("game", game_id_in(host)), ("seq", "2"), ("prev", offer)],
        "move": [("game", game_id_in(host)), ("seq", "1"), ("prev", offer), ("move", "f6")],
        "accept": [
            ("game", game_id_in(host)),
            ("seq", "2"),
            ("prev", host.chain[1].hash),
            ("guest", GUEST.public.text),
            ("salt", b64(bytes(16))),
        ],
    }[kind]
    bad = encode(kind, fields, GUEST)
    session = same_in_every_order(list(host.transcript), [bad])
    if kind == "accept":  # a line of its own for seq 2, the only one: refused, whenever it came; no proof
        assert session.result is None and not session.proofs and session.transcript == host.transcript
        return
    assert result_of(session).reason == "equivocation" and result_of(session).by == GUEST.public
    assert result_of(session).winner == "host" and session.guest == GUEST.public  # the guest stays seated
    assert verify_transcript(session.record)[2] is None


def test_a_third_join_the_host_accepted_seats_its_guest_in_every_order():
    host, offer = GameSession.offer("oxono", HOST)
    joins = []
    for _ in range(3):
        candidate = GameSession(host.game_id, GUEST)
        candidate.receive(offer.line)
        joins.append(candidate.join().line)
    host.receive(joins[2])
    accept = host.accept(GUEST.public).line
    session = same_in_every_order([offer.line], [*joins, accept])
    assert session.guest == GUEST.public and result_of(session).winner == "host"  # the guest signed three joins


def test_both_players_signing_two_lines_for_seq_2_leave_no_result_in_every_order():
    host, guest = start("oxono")
    play_moves(host, guest, 5, plies=3)
    offer_hash = host.chain[0].hash
    guest_lines = [
        encode("resign", [("game", game_id_in(host)), ("seq", "2"), ("prev", offer_hash)], GUEST),
        encode("resign", [("game", game_id_in(host)), ("seq", "2"), ("prev", b64(bytes(32)))], GUEST),
    ]
    second_accept = encode(
        "accept",
        [
            ("game", game_id_in(host)),
            ("seq", "2"),
            ("prev", host.chain[1].hash),
            ("guest", GUEST.public.text),
            ("salt", b64(bytes(range(16)))),
        ],
        HOST,
    )
    session = same_in_every_order(list(host.transcript), [*guest_lines, second_accept])
    assert (
        result_of(session).reason == "equivocation" and not result_of(session).scored and result_of(session).by is None
    )


def test_a_stranger_flooding_joins_leaves_no_trace_in_memory():
    host, offer = GameSession.offer("oxono", HOST)
    candidate = GameSession(host.game_id, STRANGER)
    candidate.receive(offer.line)
    for n in range(2000):
        join = encode(
            "join",
            [
                ("game", game_id_in(host)),
                ("seq", "1"),
                ("prev", host.chain[0].hash),
                ("terms", "rules:1"),
                ("commit", b64(n.to_bytes(32, "big"))),
            ],
            STRANGER,
        )
        host.receive(join)
    assert len(host._known) < 32 and len(host._seating.joins_of(STRANGER.public)) <= 4  # bounded, whatever the flood


def test_a_loser_who_keeps_changing_the_ending_cannot_make_the_winners_client_fail():
    """Each proof at a lower point changes the ending, and the winner confirms again; past the most confirmations
    the winner's client goes on without one (it never raises on input)."""
    from client.cores.network_game import GameCore

    host, guest = won_by_guest("olix")
    winner = GameCore(GameSession.restore(guest.transcript, GUEST))
    for seq in range(len(host.chain) - 1, 4, -1):
        signer = host.chain[seq].signer
        if signer != HOST.public:
            continue
        forged = encode(
            "resign", [("game", game_id_in(host)), ("seq", str(seq)), ("prev", b64(bytes([seq]) * 32))], HOST
        )
        winner.feed(forged)  # never raises
    assert result_of(winner.session).reason == "equivocation" and result_of(winner.session).winner_key == GUEST.public


def test_two_confirmations_numbered_alike_are_rated_alike_by_every_receiver():
    host, _guest = finished("olix", 3)
    good = confirm_of(host).line
    other = encode(
        "confirm",
        [
            ("game", game_id_in(host)),
            ("seq", "1"),
            ("prev", host.chain[-2].hash),
            ("final", str(host.chain[-2].seq)),
            ("result", "draw-agreed"),
        ],
        HOST,
    )
    seen = set()
    for order in ([good, other], [other, good]):
        receiver = GameSession.restore(host.transcript)
        receiver.receive_all(order)
        seen.add((receiver.confirmation(HOST.public), receiver.transcript))
    assert len(seen) == 1 and next(iter(seen))[0] == DISPUTED


def test_a_portable_proof_is_what_a_receiver_holds():
    host, _guest = finished("oxono", 7)
    resign = encode("resign", [("game", game_id_in(host)), ("seq", "5"), ("prev", b64(bytes(32)))], HOST)
    beyond = encode("resign", [("game", game_id_in(host)), ("seq", "600"), ("prev", b64(bytes(32)))], HOST)
    assert check_equivocation_proof(resign, beyond) is None  # no receiver considers seq 600 (limit)
    receiver = GameSession.restore(host.transcript)
    receiver.receive_all([resign, beyond])
    assert result_of(receiver).reason == "equivocation" or receiver.result == host.result
