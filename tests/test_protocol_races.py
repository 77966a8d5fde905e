"""Resigning at any moment, proposals that stand until answered or withdrawn, aborting before one's first move:
every receiver ends with the same game whatever the order in which the lines arrive."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    board_of,
    game_id_in,
    head_of,
    identity_of,
    mover,
    play_moves,
    playable,
    rejected,
    result_of,
    start,
)

from protocol import (
    EndDeclined,
    EndProposed,
    GameOver,
    GameSession,
    LocalProtocolError,
    ProposalWithdrawn,
    Superseded,
    check_equivocation_proof,
    verify_transcript,
)
from protocol.messages import decode, encode


def all_orders_agree(prefix: list[str], lines: list[str]) -> GameSession:
    """Feed ``prefix`` then every order of ``lines`` to fresh spectators; they must all end alike. One of them."""
    ends = set()
    for order in itertools.permutations(lines):
        spectator = GameSession()
        assert not rejected(spectator.receive_all([*prefix, *order])), order
        ends.add((spectator.transcript, spectator.result))
    assert len(ends) == 1, ends
    return spectator


@pytest.mark.parametrize("kind", ["oxono", "olix"])
def test_a_resignation_while_the_opponent_thinks_stands_over_their_move(kind):
    host, guest = start(kind)
    play_moves(host, guest, 1, plies=5)
    actor, waiter = mover(host, guest)
    prefix = list(host.transcript)
    resign = waiter.resign()  # not waiter's turn
    assert result_of(waiter).reason == "resigned" and result_of(waiter).winner == actor.player_of(
        identity_of(actor).public
    )
    move = actor.move(playable(actor)[0])  # signed before the resignation arrived
    events = actor.receive(resign.line)
    assert [type(e).__name__ for e in events][:2] == ["Superseded", "LineApplied"]
    assert (
        isinstance(events[0], Superseded) and events[0].message.line == move.line and isinstance(events[-1], GameOver)
    )
    assert waiter.receive(move.line)[0] == Superseded(move.message, resign.message)
    assert actor.transcript == waiter.transcript and actor.result == waiter.result
    spectator = all_orders_agree(prefix, [resign.line, move.line])
    assert spectator.result == waiter.result and move.line not in spectator.transcript
    assert verify_transcript(spectator.transcript)[2] is None
    _, number, problem = verify_transcript([*prefix, move.line, resign.line])
    assert problem is not None and problem.code == "superseded" and number == len(prefix) + 2


def test_a_resignation_stands_over_the_whole_turn_it_interrupts():
    host, guest = start("olix")
    play_moves(host, guest, 2, plies=6)
    actor, waiter = mover(host, guest)
    prefix = list(host.transcript)
    resign = waiter.resign().line
    propose = actor.propose().line  # a remark leaves the turn with the actor
    move = actor.move(playable(actor)[0]).line
    events = actor.receive(resign)
    assert [type(e).__name__ for e in events].count("Superseded") == 2
    assert actor.transcript == waiter.transcript
    all_orders_agree(prefix, [resign, propose, move])


def test_a_player_who_resigns_and_plays_on_has_equivocated():
    host, guest = start()
    play_moves(host, guest, 3, plies=4)
    actor, waiter = mover(host, guest)
    key = identity_of(waiter)
    twin = GameSession.restore(waiter.transcript, key)
    resign = waiter.resign().line
    move = actor.move(playable(actor)[0]).line
    twin.receive(move)
    reply = twin.move(playable(twin)[0]).line  # the same key continues after resigning
    ends = set()
    for order in ([resign, move, reply], [move, reply, resign], [reply, resign, move]):
        spectator = GameSession()
        spectator.receive_all([*host.transcript, *order])
        assert spectator.compromised_by == {key.public}
        proof = spectator.proofs[0]
        assert check_equivocation_proof(proof.first, proof.second) == key.public
        result = result_of(spectator)
        assert result.reason == "equivocation" and result.by == key.public and result.slot == decode(resign).seq
        assert result.sentence().endswith(f"signed two lines that cannot both stand (slot {result.slot})")
        ends.add((spectator.transcript, result))
    assert len(ends) == 1  # the record stops before the resignation, whichever line came first


@pytest.mark.parametrize("kind", ["oxono", "olix"])
def test_a_proposal_stands_until_agreed(kind):
    host, guest = start(kind)
    play_moves(host, guest, 4, plies=4)
    actor, waiter = mover(host, guest)
    proposal = actor.propose()
    events = waiter.receive(proposal.line)
    assert EndProposed(board_of(actor).turn) in events and actor.proposal == board_of(actor).turn
    assert actor.propose().line == proposal.line  # a retry, not a second proposal
    with pytest.raises(LocalProtocolError, match="none is open"):
        actor.agree()  # one cannot accept one's own proposal
    waiter.receive(actor.move(playable(actor)[0]).line)  # the proposal stands across the move
    assert waiter.proposal is not None
    over = next(e.result for e in actor.receive(waiter.agree().line) if isinstance(e, GameOver))
    assert over.reason == "agreed" and host.result == guest.result == over
    if kind == "oxono":
        assert over.winner is None and over.sentence() == "draw by agreement"
    else:
        assert over.markers and "after the game was ended by agreement" in over.sentence()
    assert verify_transcript(host.transcript)[2] is None


def test_a_proposal_can_be_withdrawn_on_ones_turn_or_declined_on_theirs():
    host, guest = start("oxono")
    actor, waiter = mover(host, guest)
    for out in (actor.propose(), actor.withdraw()):
        events = waiter.receive(out.line)
    assert ProposalWithdrawn(board_of(actor).turn) in events and waiter.proposal is None
    with pytest.raises(LocalProtocolError, match="once a turn"):
        actor.propose()
    waiter.receive(actor.move(playable(actor)[0]).line)
    actor, waiter = waiter, actor
    out = actor.propose()
    waiter.receive(out.line)
    waiter.receive(actor.move(playable(actor)[0]).line)
    decline = waiter.decline()
    events = actor.receive(decline.line)
    assert EndDeclined(board_of(waiter).turn) in events and actor.proposal is None
    assert waiter.decline().line == decline.line
    with pytest.raises(LocalProtocolError, match="none is open"):
        waiter.agree()
    assert host.transcript == guest.transcript and not host.over


def test_only_the_first_player_may_abort_and_only_before_their_first_move():
    """The coin cannot be chosen by walking away from it: the seat an abort gives up is the better one."""
    host, guest = start()
    first, second = mover(host, guest)
    with pytest.raises(LocalProtocolError, match="may send resign, timeout while"):
        second.abort()  # the second player, while the first thinks
    late = encode(
        "abort",
        [("game", game_id_in(host)), ("seq", str(host.next_seq)), ("prev", head_of(host).hash)],
        identity_of(second),
    )
    assert rejected(GameSession.restore(host.transcript).receive(late)) == ["wrong-seat"]
    spectator = GameSession.restore(host.transcript)
    spectator.receive(first.move(playable(first)[0]).line)
    with pytest.raises(LocalProtocolError, match="only the first player may abort"):
        GameSession.restore(spectator.transcript, identity_of(second)).abort()  # at their first move
    host, guest = start()
    first, _ = mover(host, guest)
    abort = first.abort()
    over = abort.events[-1]
    assert isinstance(over, GameOver) and over.result.by_name == board_of(first).turn == board_of(first).PLAYERS[0]
    with pytest.raises(LocalProtocolError):
        host.move("Oc6c5")


def race_lines(seed: int) -> tuple[list[str], list[str]]:
    """A game's prefix, then the lines of a race at a random point: a resignation or an abort against a whole turn."""
    rng = random.Random(seed)
    kind, plies = rng.choice(["oxono", "olix"]), rng.randrange(0, 6)
    while True:  # a race needs a game still on (an Oxono symbol line can end one in 5 plies)
        host, guest = start(kind)
        play_moves(host, guest, seed, plies=plies)
        if not host.over:
            break
        plies -= 1
    actor, waiter = mover(host, guest)
    prefix = list(host.transcript)
    ending = waiter.abort() if waiter.may("abort") is None and rng.random() < 0.5 else waiter.resign()
    turn = []
    if rng.random() < 0.5:
        turn.append(actor.propose().line)
    if rng.random() < 0.7:
        turn.append(actor.move(playable(actor)[0]).line)
    elif rng.random() < 0.5:
        turn.append(actor.resign().line)
    return prefix, [ending.line, *turn]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), shuffle=st.randoms(use_true_random=False))
def test_races_end_alike_in_any_order_of_arrival(seed, shuffle):
    prefix, lines = race_lines(seed)
    reference = GameSession()
    reference.receive_all([*prefix, *lines])
    order = list(lines) + shuffle.sample(lines, k=len(lines) // 2)  # with QoS 1 repeats
    shuffle.shuffle(order)
    spectator = GameSession()
    assert not rejected(spectator.receive_all([*prefix, *order]))
    assert (spectator.transcript, spectator.result) == (reference.transcript, reference.result)
    assert verify_transcript(reference.transcript)[2] is None


def test_a_waiting_player_cannot_move_remark_or_answer():
    host, guest = start()
    actor, waiter = mover(host, guest)
    for kind in ("propose", "withdraw", "decline", "agree", "abort"):
        line = encode(
            kind,
            [("game", game_id_in(host)), ("seq", str(host.next_seq)), ("prev", head_of(host).hash)],
            identity_of(waiter),
        )
        receiver = GameSession.restore(actor.transcript)  # a second line for one slot would be an equivocation
        assert rejected(receiver.receive(line)) == ["wrong-seat"], kind
