"""A takeback by agreement: a player's signed takeback line names the chain's head and asks to take back the last
moves (or consents to the other's asking, or refuses it); the player to move's undo, on the main chain, carries the
other's signature of it, so that the record proves the consent by itself (``PROTOCOL.md`` §3, "A takeback")."""

from __future__ import annotations

import random

import pytest
from protocol_helpers import (
    AT,
    GUEST,
    HOST,
    NONCE,
    SALT,
    SECRET,
    STRANGER,
    board_of,
    clocks_of,
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

from protocol import Event, GameSession, LocalProtocolError, verify_transcript
from protocol.clock import TimeControl
from protocol.events import MovesTakenBack, Superseded, TakebackAsked
from protocol.messages import encode
from protocol.rules import DEFAULT_TERMS


def played(kind: str, plies: int, terms: str = DEFAULT_TERMS) -> tuple[GameSession, GameSession]:
    """A game of ``kind`` with ``plies`` moves played (timed games: each move thought 1 s)."""
    if terms == DEFAULT_TERMS:
        host, guest = start(kind)
        play_moves(host, guest, seed=3, plies=plies)
        return host, guest
    host, out = GameSession.offer(kind, HOST, nonce=NONCE, at=AT, terms=terms)
    guest = GameSession(host.game_id, GUEST)
    guest.receive(out.line)
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(GUEST.public, SALT).line)
    host.receive(guest.reveal().line)
    rng = random.Random(3)
    for _ in range(plies):
        mine, theirs = mover(host, guest)
        theirs.receive(mine.move(rng.choice(playable(mine)), think_ms=1000).line)
    return host, guest


def takeback_line(session: GameSession, identity, plies: int, seq: int | None = None, prev: str | None = None) -> str:
    head = head_of(session)
    fields = [
        ("game", game_id_in(session)),
        ("seq", str(head.seq if seq is None else seq)),
        ("prev", head.hash if prev is None else prev),
        ("plies", str(plies)),
    ]
    return encode("takeback", fields, identity)


def exchange(sender: GameSession, receiver: GameSession, line: str) -> list[Event]:
    events = receiver.receive(line)
    assert not rejected(events), events
    return events


@pytest.mark.parametrize("kind", ["oxono", "olix"])
def test_the_player_who_just_moved_asks_and_the_other_takes_its_move_back(kind):
    host, guest = played(kind, 4)
    actor, waiter = mover(host, guest)
    before = board_of(waiter).copy()
    before.pop()  # the position before the waiter's last move
    asked = waiter.takeback(1)
    assert asked.topic.endswith(f"/takeback-{head_of(waiter).seq}")
    events = exchange(waiter, actor, asked.line)
    (asking,) = events
    assert isinstance(asking, TakebackAsked) and asking.plies == 1
    taken = actor.takeback_of(identity_of(waiter).public)
    assert taken is not None and taken.line == asked.line
    undo = actor.undo()
    events = exchange(actor, waiter, undo.line)
    assert next(e for e in events if isinstance(e, MovesTakenBack)).plies == 1
    assert host.position == guest.position == before.position()
    assert host.actor == guest.actor == identity_of(waiter).public  # its move again
    assert host.moves == guest.moves == 5  # a turn ended: the undo is on the clock as a move is
    assert not any(" takeback " in line for line in host.transcript) and undo.line in host.transcript
    assert host.transcript == guest.transcript
    spectator, _, problem = verify_transcript(host.transcript)
    assert problem is None and spectator.position == before.position()
    mine, theirs = mover(host, guest)  # and the game goes on
    exchange(mine, theirs, mine.move(playable(mine)[0]).line)


def test_the_player_to_move_asks_for_two_and_the_other_consents():
    host, guest = played("olix", 6)
    actor, waiter = mover(host, guest)
    before = board_of(actor).copy()
    before.pop(), before.pop()
    exchange(actor, waiter, actor.takeback(2).line)
    with pytest.raises(LocalProtocolError, match="no takeback"):
        actor.undo()  # asking is not consenting: the other must
    exchange(waiter, actor, waiter.takeback(2).line)
    exchange(actor, waiter, actor.undo().line)
    assert host.position == guest.position == before.position()
    assert host.actor == guest.actor == identity_of(actor).public  # the turn stays
    assert host.moves == 6  # (and its clock runs on: no turn ended)
    exchange(actor, waiter, actor.takeback(2).line)  # once a turn
    consent = waiter.takeback(2)
    exchange(waiter, actor, consent.line)
    assert actor.undo().line == head_of(actor).line  # asked again: the same line, never a second
    head = head_of(actor)
    again = encode(
        "undo",
        [
            ("game", game_id_in(actor)),
            ("seq", str(head.seq + 1)),
            ("prev", head.hash),
            ("plies", "2"),
            ("consent", consent.line.rsplit(" sig=", 1)[1]),
        ],
        identity_of(actor),
    )
    assert rejected(waiter.receive(again)) == ["wrong-seat"] and waiter.head == head


def test_a_refusal_a_lapsed_request_and_the_first_moves():
    host, guest = played("oxono", 2)
    actor, waiter = mover(host, guest)
    with pytest.raises(LocalProtocolError, match="first move stays"):
        waiter.takeback(1)
    assert rejected(actor.receive(takeback_line(actor, waiter.identity, 1))) == ["wrong-seat"]
    play_moves(host, guest, seed=5, plies=1)
    actor, waiter = mover(host, guest)
    with pytest.raises(LocalProtocolError, match="nothing to refuse"):
        actor.takeback(0)
    exchange(waiter, actor, waiter.takeback(1).line)
    refusal = actor.takeback(0)
    assert [e.plies if isinstance(e, TakebackAsked) else e for e in exchange(actor, waiter, refusal.line)] == [0]
    with pytest.raises(LocalProtocolError, match="answered a takeback here already"):
        actor.takeback(1)
    exchange(actor, waiter, actor.move(playable(actor)[0]).line)
    assert waiter.takeback_of(identity_of(waiter).public) is None  # the game went on: it lapsed


def test_an_undo_without_the_others_consent_is_refused_and_changes_nothing():
    host, guest = played("olix", 4)
    actor, waiter = mover(host, guest)
    consent = waiter.takeback(1)
    exchange(waiter, actor, consent.line)
    undo = actor.undo()
    own = takeback_line(actor, actor.identity, 1).rsplit(" sig=", 1)[1]
    for forged, code in [
        (_resigned(undo.line, actor.identity, "consent", own), "bad-signature"),  # its own signature
        (_resigned(undo.line, actor.identity, "plies", "2"), "bad-signature"),  # consent to one move is not to two
        (_resigned(undo.line, actor.identity, "plies", "0"), "bad-field"),
        (_resigned(undo.line, STRANGER, "plies", "1"), "wrong-signer"),
    ]:
        spectator, _, _ = verify_transcript(waiter.transcript)  # each to a receiver of its own: two are equivocation
        position, moves = spectator.position, spectator.moves
        assert rejected(spectator.receive(forged)) == [code], forged
        assert (spectator.position, spectator.moves) == (position, moves)
    assert rejected(waiter.receive(takeback_line(waiter, STRANGER, 1))) == ["wrong-signer"]
    exchange(actor, waiter, undo.line)


def _resigned(line: str, identity, name: str, value: str) -> str:
    """``line`` with field ``name`` set to ``value``, signed again by ``identity``."""
    words = line.split(" ")
    kind = words[1]
    pairs = [word.split("=", 1) for word in words[2:-2]]
    return encode(kind, [(key, value if key == name else old) for key, old in pairs], identity)


def test_a_timed_undo_of_one_move_is_on_the_clock_and_one_of_two_carries_none():
    terms = f"{TimeControl(base_ms=300_000, increment_ms=2_000).term},{DEFAULT_TERMS}"
    host, guest = played("oxono", 4, terms)
    actor, waiter = mover(host, guest)
    exchange(waiter, actor, waiter.takeback(1).line)
    with pytest.raises(LocalProtocolError, match="thinking time"):
        actor.undo()
    left = clocks_of(actor)[board_of(actor).turn]
    undo = actor.undo(think_ms=5_000)
    assert f" think=5000 left={left - 5_000 + 2_000} " in undo.line
    exchange(actor, waiter, undo.line)
    assert waiter.clocks == actor.clocks
    receipt = waiter.receipt(undo.message.seq, recv_ms=10_000, sent_ms=4_000)  # it began the waiter's turn
    assert receipt is not None
    exchange(waiter, actor, receipt.line)
    play_moves(host, guest, seed=1, plies=0)
    actor, waiter = mover(host, guest)  # the player who waited in the last turn, to move again
    exchange(actor, waiter, actor.move(playable(actor)[0], think_ms=1_000).line)
    actor, waiter = mover(host, guest)
    exchange(actor, waiter, actor.takeback(2).line)
    exchange(waiter, actor, waiter.takeback(2).line)
    undo = actor.undo(think_ms=1)
    assert " think=" not in undo.line and " left=" not in undo.line
    exchange(actor, waiter, undo.line)
    assert verify_transcript(host.transcript)[2] is None


def test_a_resignation_racing_an_undo_stands_over_it_in_either_order():
    host, guest = played("olix", 4)
    actor, waiter = mover(host, guest)
    exchange(waiter, actor, waiter.takeback(1).line)
    undo, resign = actor.undo(), waiter.resign()  # each signed before seeing the other's
    assert undo.message.seq == resign.message.seq
    spectators = []
    for order in ([undo.line, resign.line], [resign.line, undo.line]):
        spectator, _, problem = verify_transcript(host.transcript[:-1])
        assert problem is None
        for line in order:
            spectator.receive(line)
        spectators.append(spectator)
    first, second = spectators
    assert first.result == second.result and first.position == second.position
    assert result_of(first).by == identity_of(waiter).public and head_of(first).line == resign.line
    events = waiter.receive(undo.line)
    assert any(isinstance(e, Superseded) for e in events) and waiter.position == first.position
