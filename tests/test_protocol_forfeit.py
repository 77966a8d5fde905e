"""Equivocation decides: a seated key that signs two lines which cannot both stand loses the game at that point, and
every receiver reaches the same record, result and proofs whatever the order in which the lines arrive.

Also the co-signed result (``confirm`` lines) and the record a proof travels with (``GameSession.record``).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import GameSession, LocalProtocolError, check_equivocation_proof, verify_transcript
from protocol.keys import b64
from protocol.messages import Message, decode, encode
from protocol.session import CONFIRMED, DISPUTED, UNSEEN
from protocol_helpers import GUEST, HOST, STRANGER, identity_of, mover, play_moves, rejected, start

KEYS = {HOST.public: HOST, GUEST.public: GUEST}


def ending(session: GameSession) -> tuple:
    """What every receiver must agree on: the main chain, the result, who has a proof where, the transcript's lines.

    (Which two lines a proof shows may differ: with three lines for one slot, any two of them prove it.)
    """
    proofs = {(p.key, p.point if p.point is not None else p.slot) for p in session.proofs
              if session.role_of(p.key) is not None}
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
            line = (twin.move(rng.choice(twin.board.legal_moves()).text()) if kind == "move"
                    else getattr(twin, kind)()).line
        except LocalProtocolError:
            continue
        if line != chain[seq].line:
            out.append(line)
    bogus = encode("move", [("game", chain[0].game), ("seq", str(seq)), ("prev", b64(rng.randbytes(32))),
                            ("move", "Oc6c5")], KEYS[signer])
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
        extras.append(encode("move", [("game", host.game_id), ("seq", str(len(chain) - 1)),
                                      ("prev", chain[-2].hash), ("move", "Oc6c5")], STRANGER))
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
            {reference.result.by} if reference.result.by else set())
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
    """The attack of issue 17: after the game, the loser re-signs its own last slot (a different move, or an agree
    of an open draw offer); a late watcher gets the forgery and the winner's copy of the true line, in any order."""
    for seed in range(40):
        host, guest = start("oxono")
        rng = random.Random(seed)
        winner_proposed = False
        while not host.over:
            mine, theirs = mover(host, guest)
            if forgery == "agree" and not winner_proposed and mine.moves > 6 and mine.proposal is None:
                theirs.receive(mine.propose().line)  # a proposal stays open through later moves
                winner_proposed = mine
            theirs.receive(mine.move(rng.choice(mine.board.legal_moves()).text()).line)
        result = host.result
        if result.winner is None or (forgery == "agree" and not winner_proposed):
            continue
        if forgery == "agree" and host.player_of(identity_of(winner_proposed).public) != result.winner:
            continue
        loser = next(key for player, key in host.seats.items() if player != result.winner)
        last = max(m.seq for m in host.chain if m.signer == loser)
        twin = twin_at(host.chain, last, loser)
        try:
            forged = (twin.agree() if forgery == "agree" else twin.move(
                next(m.text() for m in twin.board.legal_moves() if m.text() != host.chain[last].value("move")))).line
        except LocalProtocolError:
            continue
        true_line = host.chain[last].line
        ends = set()
        for order in ([forged, true_line], [true_line, forged]):
            watcher = GameSession()
            watcher.receive_all([m.line for m in host.chain[:last]])
            watcher.receive_all(order)
            watcher.receive_all([m.line for m in host.chain[last + 1:]])
            assert watcher.result.reason == "equivocation" and watcher.result.winner == result.winner
            assert watcher.result.by == loser and watcher.result.slot == last
            assert watcher.branch is not None and watcher.branch[0].line == true_line  # the winner answered it
            ends.add(ending(watcher))
        assert len(ends) == 1
        return
    pytest.fail("no seed gave the position the attack needs")


def test_a_forfeit_waits_for_the_lines_before_its_point():
    host, guest = finished()
    chain = host.chain
    seq = len(chain) - 3
    forged = alternatives(chain, seq, random.Random(1))[0]
    spectator = GameSession()
    spectator.receive_all([chain[seq].line, forged])  # both before the offer: they wait
    assert spectator.result is None
    spectator.receive_all([m.line for m in chain[:seq]])
    assert spectator.result.reason == "equivocation" and len(spectator.chain) == seq
    assert not rejected(spectator.receive_all([m.line for m in chain[seq + 1:]])) or spectator.over


def test_a_proof_after_the_end_is_reported_and_changes_nothing():
    host, guest = finished()
    key = host.chain[-1].signer
    twin = GameSession.restore(host.transcript, KEYS[key])
    late = [encode("resign", [("game", host.game_id), ("seq", str(host.next_seq + 2)), ("prev", b64(bytes([n]) * 32))],
                   KEYS[key]) for n in (1, 2)]
    spectator = GameSession.restore(host.transcript)
    spectator.receive_all(late)
    assert spectator.result == host.result and spectator.proofs and twin.result == host.result


def test_confirmations_say_who_agrees_with_the_ending():
    host, guest = finished("olix", 3)
    spectator = GameSession.restore(host.transcript)
    assert spectator.confirmation(HOST.public) is None
    mine = host.confirm()
    assert host.confirm() is None  # the latest says it already
    spectator.receive(mine.line)
    assert spectator.confirmation(HOST.public) == CONFIRMED and spectator.confirmation(GUEST.public) is None
    assert mine.message.slot == "confirm-1" and mine.topic.endswith("/confirm-1")
    theirs = guest.confirm()
    spectator.receive(theirs.line)
    assert spectator.confirmed_by == {HOST.public, GUEST.public}
    # a confirmation of another ending is a dispute; one beyond what a receiver has is unseen
    lie = encode("confirm", [("game", host.game_id), ("seq", "2"), ("prev", host.chain[-2].hash),
                             ("final", str(host.chain[-2].seq)), ("result", "draw-agreed")], GUEST)
    spectator.receive(lie)
    assert spectator.confirmation(GUEST.public) == DISPUTED
    short = GameSession.restore(host.transcript[:-3])
    short.receive(mine.line)
    assert short.confirmation(HOST.public) == UNSEEN
    # a second, different confirmation under the same number is a proof
    twice = encode("confirm", [("game", host.game_id), ("seq", "1"), ("prev", host.chain[-2].hash),
                               ("final", str(host.chain[-2].seq)), ("result", "draw-agreed")], HOST)
    spectator.receive(twice)
    proof = [p for p in spectator.proofs if p.key == HOST.public][0]
    assert proof.slot == "confirm-1" and proof.point is None and check_equivocation_proof(proof.first, proof.second)
    assert spectator.result == host.result  # confirmations never change the game
    session, number, problem = verify_transcript(spectator.record)
    assert problem is None and session.confirmation(HOST.public) == CONFIRMED


def test_a_player_confirms_again_when_the_ending_changes():
    """Both resign at once: the waiter's resignation stands over the actor's. The actor confirmed its own first, and
    confirms the one that stands under the next number; nobody is held to the first."""
    host, guest = start("oxono")
    play_moves(host, guest, 5, plies=6)
    actor, waiter = mover(host, guest)
    theirs = waiter.resign()
    mine = actor.resign()
    first = actor.confirm()
    actor.receive(theirs.line)
    assert actor.result == waiter.result and actor.result.by == identity_of(waiter).public
    second = actor.confirm()
    assert decode(first.line).seq == 1 and decode(second.line).seq == 2
    spectator = GameSession.restore([*waiter.transcript, mine.line])
    for out in (first, second, waiter.confirm()):
        spectator.receive(out.line)
    assert spectator.confirmed_by == {HOST.public, GUEST.public} and not spectator.proofs
