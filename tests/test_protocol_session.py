"""The per-game session: set-up and coin flip, moves, endings, delivery in any order, bad input, equivocation."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import GameSession, LocalProtocolError
from protocol.errors import CODES
from protocol.keys import b64
from protocol.messages import encode
from protocol.session import (
    ChatReceived,
    EquivocationDetected,
    GameOver,
    GameStarted,
    GuestAccepted,
    JoinRequested,
    LineRejected,
    MoveApplied,
    OfferReceived,
    check_equivocation_proof,
    commitment,
    host_moves_first,
    verify_transcript,
)
from protocol_helpers import GUEST, HOST, NONCE, SALT, SECRET, STRANGER, full_game, play_moves, start


def rejected(events) -> list[str]:
    return [e.code for e in events if isinstance(e, LineRejected)]


def test_set_up_coin_flip_and_seats():
    host = GameSession.offer("oxono", HOST, nonce=NONCE)
    guest = GameSession(host.game_id, GUEST)
    assert guest.receive(host.transcript[0]) == [OfferReceived(host.game_id, "oxono", HOST.public.text, None)]
    assert guest.receive(host.transcript[0]) == []  # a duplicate changes nothing
    join = guest.join(SECRET)
    assert host.receive(join) == [JoinRequested(GUEST.public.text)]
    accept = host.accept(GUEST.public.text, SALT)
    assert guest.receive(accept) == [GuestAccepted(GUEST.public.text)]
    reveal = guest.reveal()
    events = host.receive(reveal)
    assert len(events) == 1 and isinstance(events[0], GameStarted)
    host_first = host_moves_first(SECRET, SALT)
    assert host.seats["pink"] == (HOST if host_first else GUEST).public.raw
    assert host.seats == guest.seats and host.transcript == guest.transcript
    assert host.actor() == host.seats["pink"]


def test_the_coin_depends_on_both_secrets():
    salts = [b64(bytes([i]) * 16) for i in range(40)]
    results = {host_moves_first(SECRET, salt) for salt in salts}
    assert results == {True, False}
    secrets = [b64(bytes([i]) * 16) for i in range(40)]
    assert {host_moves_first(secret, SALT) for secret in secrets} == {True, False}


def test_reveal_must_open_the_commitment():
    host = GameSession.offer("oxono", HOST, nonce=NONCE)
    guest = GameSession(host.game_id, GUEST)
    guest.receive(host.transcript[0])
    host.receive(guest.join(SECRET))
    guest.receive(host.accept(GUEST.public.text, SALT))
    guest._secret = b64(bytes(16))  # a guest who changes their mind after seeing the salt
    with pytest.raises(LocalProtocolError, match="SHA-256"):
        guest.reveal()
    forged = encode("reveal", [("game", host.game_id), ("seq", "3"), ("prev", host.chain[-1].hash), ("secret", b64(bytes(16)))], GUEST)
    assert rejected(host.receive(forged)) == ["bad-reveal"]
    assert not host.started


@pytest.mark.parametrize("kind", ["oxono", "olix"])
@pytest.mark.parametrize("seed", range(3))
def test_a_full_game_ends_alike_for_both_players_and_a_spectator(kind, seed):
    host, guest = full_game(kind, seed)
    assert host.outcome is not None and host.outcome == guest.outcome
    assert host.transcript == guest.transcript
    spectator = GameSession(host.game_id)
    events = spectator.receive_all(host.transcript)
    assert not rejected(events)
    assert spectator.outcome == host.outcome and spectator.board.position() == host.board.position()
    assert sum(isinstance(e, MoveApplied) for e in events) == host.moves
    assert isinstance(events[-1], GameOver)


@pytest.mark.parametrize("seed", range(8))
def test_shuffled_and_duplicated_delivery_gives_the_same_game(seed):
    host, guest = start()
    guest_chat = guest.chat("hi")
    host.receive(guest_chat)
    host_chat = host.chat("hello there")
    play_moves(host, guest, seed)
    rng = random.Random(seed)
    lines = list(host.transcript) + [guest_chat, host_chat]
    lines += rng.sample(lines, k=len(lines) // 2)  # QoS 1 duplicates
    rng.shuffle(lines)
    spectator = GameSession(host.game_id)
    events = spectator.receive_all(lines)
    assert not rejected(events)
    assert spectator.outcome == host.outcome
    assert [m.line for m in spectator.chain] == [m.line for m in host.chain]
    assert sorted(e.text for e in events if isinstance(e, ChatReceived)) == ["hello there", "hi"]
    assert sorted(spectator.transcript) == sorted(host.transcript)


def test_a_spectator_rebuilds_from_a_transcript_that_holds_an_unaccepted_join():
    host = GameSession.offer("oxono", HOST, nonce=NONCE)
    other = GameSession(host.game_id, STRANGER)
    other.receive(host.transcript[0])
    host.receive(other.join())
    guest = GameSession(host.game_id, GUEST)
    guest.receive(host.transcript[0])
    join = guest.join(SECRET)
    host.receive(join)
    guest.receive(host.accept(GUEST.public.text, SALT))
    assert guest.guest == GUEST.public.raw
    with pytest.raises(LocalProtocolError):
        other.reveal()  # the stranger was not accepted


def test_invited_game_refuses_other_keys():
    host = GameSession.offer("oxono", HOST, invite=GUEST.public.text, nonce=NONCE)
    stranger = GameSession(host.game_id, STRANGER)
    stranger.receive(host.transcript[0])
    line = encode("join", [("game", host.game_id), ("seq", "1"), ("prev", host.chain[0].hash), ("commit", commitment(SECRET))], STRANGER)
    assert rejected(host.receive(line)) == ["wrong-signer"]


def next_fields(session: GameSession) -> list[tuple[str, str]]:
    return [("game", session.game_id), ("seq", str(len(session.chain))), ("prev", session.chain[-1].hash)]


def test_each_check_has_its_code_and_changes_nothing():
    host, guest = start()
    play_moves(host, guest, 3, plies=4)
    mover = host if host.actor() == HOST.public.raw else guest
    waiter = guest if mover is host else host
    waiter_key = GUEST if mover is host else HOST
    mover_key = HOST if mover is host else GUEST
    legal = mover.board.legal_moves()[0].text()
    before = list(host.transcript)
    cases = {
        "wrong-signer": encode("move", [*next_fields(host), ("move", legal)], STRANGER),
        "wrong-seat": encode("move", [*next_fields(host), ("move", legal)], waiter_key),
        "broken-link": encode("move", [("game", host.game_id), ("seq", str(len(host.chain))), ("prev", b64(bytes(32))), ("move", legal)], mover_key),
        "illegal-move": encode("move", [*next_fields(host), ("move", "Xa1a1")], mover_key),
        "non-canonical": encode("move", [*next_fields(host), ("move", legal.lower())], mover_key),
        "wrong-game": encode("move", [("game", b64(bytes(16))), *next_fields(host)[1:], ("move", legal)], mover_key),
    }
    for code, line in cases.items():
        assert rejected(host.receive(line)) == [code], code
    assert host.transcript == before
    assert not rejected(waiter.receive(mover.move(legal)))
    assert len(mover.transcript) == len(before) + 1


def test_local_actions_are_refused_when_the_game_forbids_them():
    host, guest = start()
    mover = host if host.actor() == HOST.public.raw else guest
    waiter = guest if mover is host else host
    with pytest.raises(LocalProtocolError, match="turn"):
        waiter.move(waiter.board.legal_moves()[0].text())
    with pytest.raises(LocalProtocolError, match="illegal-move|cannot reach"):
        mover.move("Xa1a1")
    with pytest.raises(LocalProtocolError, match="not an Oxono move"):
        mover.move("hello")
    with pytest.raises(LocalProtocolError, match="Olix"):
        mover.propose_end()
    spectator = GameSession(host.game_id)
    with pytest.raises(LocalProtocolError, match="no game yet|no key"):
        spectator.resign()
    spectator.receive_all(host.transcript)
    with pytest.raises(LocalProtocolError, match="no key"):
        spectator.resign()
    waiter.receive(mover.move(mover.board.legal_moves()[0].text()))
    with pytest.raises(LocalProtocolError, match="before the first move"):
        waiter.abort()
    assert len(host.transcript) == len(guest.transcript)


def test_abort_before_the_first_move_and_resign():
    host, guest = start()
    mover = host if host.actor() == HOST.public.raw else guest
    other = guest if mover is host else host
    events = other.receive(mover.abort())
    assert [e.outcome.reason for e in events if isinstance(e, GameOver)] == ["aborted"]
    host, guest = start()
    mover = host if host.actor() == HOST.public.raw else guest
    other = guest if mover is host else host
    loser = mover.board.turn
    events = other.receive(mover.resign())
    over = [e.outcome for e in events if isinstance(e, GameOver)][0]
    assert over.reason == "resigned" and over.winner != loser
    late = encode("move", [*next_fields(other), ("move", "Oc6c5")], GUEST if other is host else HOST)
    assert rejected(other.receive(late)) == ["after-end"]


def test_host_may_withdraw_the_offer():
    host = GameSession.offer("oxono", HOST, nonce=NONCE)
    guest = GameSession(host.game_id, GUEST)
    guest.receive(host.transcript[0])
    withdraw = host.abort()
    assert any(isinstance(e, GameOver) for e in guest.receive(withdraw))
    with pytest.raises(LocalProtocolError, match="already over"):
        guest.join()


def test_equivocation_is_detected_kept_and_provable():
    host, guest = start()
    play_moves(host, guest, 5, plies=2)
    mover = host if host.actor() == HOST.public.raw else guest
    key = HOST if mover is host else GUEST
    twin = GameSession(host.game_id, key)
    twin.receive_all(host.transcript)
    moves = mover.board.legal_moves()
    first = mover.move(moves[0].text())
    second = twin.move(moves[1].text())
    spectator = GameSession(host.game_id)
    spectator.receive_all(host.transcript[:-1] if host is mover else host.transcript)
    spectator.receive(first)
    events = spectator.receive(second)
    proofs = [e for e in events if isinstance(e, EquivocationDetected)]
    assert len(proofs) == 1 and proofs[0].first == first and proofs[0].second == second
    assert spectator.compromised_by == {key.public.raw}
    assert check_equivocation_proof(first, second) == key.public.text
    assert check_equivocation_proof(first, first) is None
    _, number, problem = verify_transcript([*spectator.transcript, second])
    assert problem.code == "equivocation" and number == len(spectator.transcript) + 1


def test_chat_side_chain():
    host, guest = start()
    first = guest.chat("hello")
    second = guest.chat("are you there?")
    assert host.receive(second) == []  # waits for the first
    events = host.receive(first)
    assert [e.text for e in events if isinstance(e, ChatReceived)] == ["hello", "are you there?"]
    stranger_chat = encode("chat", [("game", host.game_id), ("seq", "1"), ("prev", host.chain[0].hash), ("text", "hi")], STRANGER)
    assert rejected(host.receive(stranger_chat)) == ["wrong-signer"]
    with pytest.raises(LocalProtocolError):
        GameSession(host.game_id, STRANGER).chat("hi")


def test_every_single_byte_change_of_a_valid_transcript_is_rejected():
    host, _ = full_game("oxono", 2)
    rng = random.Random(0)
    session = GameSession()
    for number, line in enumerate(host.transcript, 1):
        data = line.encode("utf-8")
        for index in range(len(data)):
            for value in (data[index] ^ 1, rng.randrange(256)):
                if value == data[index]:
                    continue
                changed = data[:index] + bytes([value]) + data[index + 1 :]
                events = session.receive(changed)
                assert rejected(events), (number, index, value)
        assert not rejected(session.receive(line))
    assert session.outcome == host.outcome


@settings(max_examples=300, deadline=None)
@given(garbage=st.one_of(st.binary(max_size=3000), st.text(max_size=3000)))
def test_garbage_never_raises_and_never_disturbs_the_game(garbage):
    host, guest = start()
    before = list(host.transcript)
    events = host.receive(garbage)
    assert all(isinstance(e, LineRejected) and e.code in CODES for e in events)
    assert host.transcript == before
    play_moves(host, guest, 1, plies=2)


def test_huge_line_and_control_characters_get_codes():
    host, _ = start()
    assert rejected(host.receive(b"x" * 100_000)) == ["oversize"]
    assert rejected(host.receive("olixono/1 move\x1b[31m")) == ["control-character"]
    assert rejected(host.receive(b"\xff\xfe")) == ["bad-utf8"]


def test_pending_lines_are_bounded():
    host, guest = start()
    spectator = GameSession(host.game_id)
    spectator.receive_all(host.transcript)
    far = [encode("resign", [("game", host.game_id), ("seq", str(1000 + i)), ("prev", b64(bytes([i % 256, i // 256]) + bytes(30)))], HOST) for i in range(600)]
    codes = [c for line in far for c in rejected(spectator.receive(line))]
    assert codes.count("buffer-full") == 600 - 512
    assert spectator.transcript == host.transcript


def test_transcript_round_trip_and_strict_verify():
    host, _ = full_game("oxono", 4)
    session, number, problem = verify_transcript(host.transcript)
    assert problem is None and session.outcome == host.outcome
    lines = list(host.transcript)
    del lines[6]
    _, number, problem = verify_transcript(lines)
    assert number == 7 and problem.code in ("gap", "broken-link")
    _, number, problem = verify_transcript([*host.transcript, host.transcript[5]])
    assert problem.code == "gap" and "duplicate" in problem.detail


def test_olix_end_by_agreement_propose_decline_agree():
    host, guest = start("olix")
    play_moves(host, guest, 9, plies=6)
    by_key = {HOST.public.raw: (host, guest), GUEST.public.raw: (guest, host)}
    proposer, answerer = by_key[host.actor()]
    events = answerer.receive(proposer.propose_end())
    assert [type(e).__name__ for e in events] == ["EndProposed"]
    with pytest.raises(LocalProtocolError, match="turn"):
        proposer.move(proposer.board.legal_moves()[0].text())  # the other player must answer first
    with pytest.raises(LocalProtocolError):
        proposer.agree_end()  # one cannot accept one's own proposal
    proposer.receive(answerer.decline_end())
    with pytest.raises(LocalProtocolError, match="move first"):
        proposer.propose_end()
    answerer.receive(proposer.move(proposer.board.legal_moves()[0].text()))
    proposer, answerer = answerer, proposer
    answerer.receive(proposer.propose_end())
    events = proposer.receive(answerer.agree_end())
    over = [e.outcome for e in events if isinstance(e, GameOver)]
    assert len(over) == 1 and over[0].reason == "agreed" and host.outcome == guest.outcome == over[0]
    session, _, problem = verify_transcript(host.transcript)
    assert problem is None and session.outcome == over[0]


def test_olix_agree_without_a_proposal_is_refused():
    host, guest = start("olix")
    mover = host if host.actor() == HOST.public.raw else guest
    with pytest.raises(LocalProtocolError, match="none is open"):
        mover.agree_end()


def test_equivocation_is_caught_even_when_both_lines_arrive_before_their_parent():
    host, guest = start()
    play_moves(host, guest, 6, plies=3)
    mover = host if host.actor() == HOST.public.raw else guest
    key = HOST if mover is host else GUEST
    twin = GameSession(host.game_id, key)
    twin.receive_all(mover.transcript)
    moves = mover.board.legal_moves()
    first, second = mover.move(moves[0].text()), twin.move(moves[1].text())
    spectator = GameSession(host.game_id)
    assert spectator.receive(first) == [] and spectator.receive(second) == []  # both wait for the offer
    events = spectator.receive_all(host.transcript[: len(mover.transcript) - 1])
    assert [e.second for e in events if isinstance(e, EquivocationDetected)] == [second]
    assert spectator.compromised_by == {key.public.raw}


def test_lines_for_another_game_that_came_before_the_offer_are_dropped_when_it_comes():
    host, guest = start()
    other_host, _ = start("olix")
    spectator = GameSession()
    foreign_chat = other_host.chat("elsewhere")
    assert spectator.receive(foreign_chat) == [] and spectator.receive(other_host.transcript[1]) == []
    events = spectator.receive(host.transcript[0])
    assert sorted(rejected(events)) == ["wrong-game", "wrong-game"]
    assert not spectator._pending_lines
