"""The per-game session: set-up and coin flip, moves, endings, delivery in any order, bad input, equivocation."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    AT,
    GUEST,
    HOST,
    NONCE,
    SALT,
    SECRET,
    STRANGER,
    board_of,
    full_game,
    game_id_in,
    head_of,
    identity_of,
    mover,
    offered,
    play_moves,
    playable,
    rejected,
    result_of,
    start,
)

from olixono.common import GameKind
from protocol import (
    ChatReceived,
    EquivocationDetected,
    GameOver,
    GameSession,
    GuestAccepted,
    JoinRequested,
    LineApplied,
    LineRejected,
    LocalProtocolError,
    MoveApplied,
    OfferReceived,
    Phase,
    check_equivocation_proof,
    topic_for,
    verify_transcript,
)
from protocol.keys import b64
from protocol.messages import encode
from protocol.rules import MAX_CHAIN, commitment, host_moves_first
from protocol.waiting import MAX_PER_KEY


def kinds(events) -> list[str]:
    return [type(e).__name__ for e in events]


def next_fields(session: GameSession) -> list[tuple[str, str]]:
    return [("game", game_id_in(session)), ("seq", str(session.next_seq)), ("prev", head_of(session).hash)]


def test_set_up_coin_flip_and_seats():
    host, out = GameSession.offer("oxono", HOST, nonce=NONCE, at=AT)
    assert kinds(out.events) == ["LineApplied", "OfferReceived"] and out.topic == topic_for(out.message)
    guest = GameSession(host.game_id, GUEST)
    events = guest.receive(out.line)
    assert events[1] == OfferReceived(
        game_id_in(host), GameKind.OXONO, HOST.public, None, "rules:2", AT
    )  # a new offer names the rules it plays
    assert guest.receive(out.line) == []  # a duplicate changes nothing
    join = guest.join(SECRET)
    assert host.receive(join.line) == [JoinRequested(GUEST.public)]
    accept = host.accept(GUEST.public, SALT)
    assert kinds(accept.events) == ["LineApplied", "LineApplied", "GuestAccepted"]
    assert guest.receive(accept.line)[-1] == GuestAccepted(GUEST.public)
    reveal = guest.reveal()
    events = host.receive(reveal.line)
    assert kinds(events) == ["LineApplied", "GameStarted"]
    host_first = host_moves_first(SECRET, SALT)
    assert host.seats["pink"] == (HOST if host_first else GUEST).public
    assert host.seats == guest.seats and host.transcript == guest.transcript
    assert host.actor == host.seats["pink"] and host.phase is Phase.PLAYING


def test_the_coin_depends_on_both_secrets():
    salts = [b64(bytes([i]) * 16) for i in range(40)]
    assert {host_moves_first(SECRET, salt) for salt in salts} == {True, False}
    secrets = [b64(bytes([i]) * 16) for i in range(40)]
    assert {host_moves_first(secret, SALT) for secret in secrets} == {True, False}


def test_reveal_must_open_the_commitment():
    host, guest = offered()
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(GUEST.public, SALT).line)
    forged = encode("reveal", [*next_fields(host), ("secret", b64(bytes(16)))], GUEST)
    assert rejected(host.receive(forged)) == ["bad-reveal"]
    assert not host.started


@pytest.mark.parametrize("kind", ["oxono", "olix"])
@pytest.mark.parametrize("seed", range(3))
def test_a_full_game_ends_alike_for_both_players_and_a_spectator(kind, seed):
    host, guest = full_game(kind, seed)
    assert host.result is not None and host.result == guest.result
    assert host.transcript == guest.transcript
    spectator = GameSession(host.game_id)
    events = spectator.receive_all(host.transcript)
    assert not rejected(events)
    assert spectator.result == host.result and spectator.position == host.position
    assert sum(isinstance(e, MoveApplied) for e in events) == host.moves
    assert [e.line for e in events if isinstance(e, LineApplied)] == list(host.transcript)
    assert isinstance(events[-1], GameOver)


def test_a_winning_move_returns_its_game_over():
    host, guest = start()
    rng = random.Random(4)
    for _ in range(200):
        mine, theirs = mover(host, guest)
        out = mine.move(rng.choice(playable(mine)))
        theirs.receive(out.line)
        if host.over:
            break
    assert isinstance(out.events[-1], GameOver) and out.events[-1].result == host.result


@pytest.mark.parametrize("seed", range(8))
def test_shuffled_and_duplicated_delivery_gives_the_same_game(seed):
    host, guest = start()
    guest_chat = guest.chat("hi").line
    host.receive(guest_chat)
    host_chat = host.chat("hello there").line
    play_moves(host, guest, seed)
    rng = random.Random(seed)
    lines = [*host.transcript, guest_chat, host_chat]
    lines += rng.sample(lines, k=len(lines) // 2)  # QoS 1 duplicates
    rng.shuffle(lines)
    spectator = GameSession(host.game_id)
    events = spectator.receive_all(lines)
    assert not rejected(events)
    assert spectator.result == host.result
    assert [m.line for m in spectator.chain] == [m.line for m in host.chain]
    assert sorted(e.text for e in events if isinstance(e, ChatReceived)) == ["hello there", "hi"]
    assert sorted(spectator.transcript) == sorted(host.transcript)


def test_a_spectator_rebuilds_from_lines_that_hold_an_unaccepted_join():
    host, guest = offered()
    other = GameSession(host.game_id, STRANGER)
    other.receive(host.transcript[0])
    other_join = other.join().line
    host.receive(other_join)
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(GUEST.public, SALT).line)
    assert guest.guest == GUEST.public
    spectator = GameSession(host.game_id)
    assert not rejected(spectator.receive_all([host.transcript[0], other_join, *host.transcript[1:]]))
    assert spectator.guest == GUEST.public and other_join not in spectator.transcript
    with pytest.raises(LocalProtocolError):
        other.reveal()  # the stranger was not accepted


def test_invited_game_refuses_other_keys():
    host, _ = offered(invite=GUEST.public)
    line = encode(
        "join",
        [
            ("game", game_id_in(host)),
            ("seq", "1"),
            ("prev", head_of(host).hash),
            ("terms", "rules:1"),
            ("commit", commitment(SECRET)),
        ],
        STRANGER,
    )
    assert rejected(host.receive(line)) == ["wrong-signer"]
    stranger = GameSession(host.game_id, STRANGER)
    stranger.receive(host.transcript[0])
    with pytest.raises(LocalProtocolError, match="invited"):
        stranger.join()


def test_each_check_has_its_code_and_changes_nothing():
    host, guest = start()
    play_moves(host, guest, 3, plies=4)
    mine, theirs = mover(host, guest)
    mover_key, waiter_key = identity_of(mine), identity_of(theirs)
    legal = playable(mine)[0]
    before = host.transcript
    cases = {
        "wrong-signer": encode("move", [*next_fields(host), ("move", legal)], STRANGER),
        "wrong-seat": encode("move", [*next_fields(host), ("move", legal)], waiter_key),
        "broken-link": encode("move", [*next_fields(host)[:2], ("prev", b64(bytes(32))), ("move", legal)], mover_key),
        "illegal-move": encode("move", [*next_fields(host), ("move", "Xa1a1")], mover_key),
        "non-canonical": encode("move", [*next_fields(host), ("move", legal.lower())], mover_key),
        "wrong-game": encode("move", [("game", b64(bytes(16))), *next_fields(host)[1:], ("move", legal)], mover_key),
    }
    for code, line in cases.items():
        receiver = GameSession.restore(before)  # a seated key's second line for one slot is an equivocation
        assert rejected(receiver.receive(line)) == [code], code
        assert receiver.transcript == before and not receiver.over
    assert not rejected(theirs.receive(mine.move(legal).line))
    assert len(mine.transcript) == len(before) + 1


@pytest.mark.parametrize("bad", ["broken-link", "illegal-move"])
def test_a_seated_key_that_signs_a_bad_line_and_a_good_one_for_one_slot_forfeits_in_either_order(bad):
    host, guest = start()
    play_moves(host, guest, 3, plies=4)
    mine, _theirs = mover(host, guest)
    legal = playable(mine)[0]
    fields = next_fields(host)
    lines = {
        "broken-link": encode("move", [*fields[:2], ("prev", b64(bytes(32))), ("move", legal)], identity_of(mine)),
        "illegal-move": encode("move", [*fields, ("move", "Xa1a1")], identity_of(mine)),
    }
    good = mine.move(legal).line
    ends = set()
    for order in ([lines[bad], good], [good, lines[bad]]):
        receiver = GameSession.restore(host.transcript)
        receiver.receive_all(order)
        assert result_of(receiver).reason == "equivocation" and result_of(receiver).by == identity_of(mine).public
        ends.add((receiver.transcript, receiver.result))
    assert len(ends) == 1


def test_local_actions_are_refused_before_anything_is_signed():
    host, guest = start()
    mine, theirs = mover(host, guest)
    with pytest.raises(LocalProtocolError, match="player not to move may send resign, timeout while"):
        theirs.move(playable(theirs)[0])
    with pytest.raises(LocalProtocolError, match="cannot reach"):
        mine.move("Xa1a1")
    with pytest.raises(LocalProtocolError, match="not an Oxono move"):
        mine.move("hello")
    with pytest.raises(LocalProtocolError, match="none is open"):
        mine.agree()
    assert theirs.may("move") is not None and mine.may("move") is None and mine.may("resign") is None
    spectator = GameSession(host.game_id)
    with pytest.raises(LocalProtocolError, match="no key"):
        spectator.resign()
    spectator.receive_all(host.transcript)
    with pytest.raises(LocalProtocolError, match="no key"):
        spectator.resign()
    theirs.receive(mine.move(playable(mine)[0]).line)
    mine.receive(theirs.move(playable(theirs)[0]).line)
    with pytest.raises(LocalProtocolError, match="only the first player may abort"):
        mine.abort()
    assert host.transcript == guest.transcript


def test_abort_before_the_first_move_and_resign():
    host, guest = start()
    mine, theirs = mover(host, guest)
    events = theirs.receive(mine.abort().line)
    result = next(e.result for e in events if isinstance(e, GameOver))
    assert result.reason == "aborted" and result.winner is None and result.by == identity_of(mine).public
    assert (
        result.text() == "aborted"
        and result.sentence() == f"aborted by {mine.player_of(result.by)} before their first move"
    )
    host, guest = start()
    mine, theirs = mover(host, guest)
    loser = board_of(mine).turn
    events = theirs.receive(mine.resign().line)
    result = next(e.result for e in events if isinstance(e, GameOver))
    assert result.reason == "resigned" and result.winner != loser
    assert result.sentence() == f"{result.winner} wins by {loser}'s resignation"
    late = encode("move", [*next_fields(theirs), ("move", "Oc6c5")], identity_of(theirs))
    assert rejected(theirs.receive(late)) == ["after-end"]


def test_host_may_withdraw_the_offer():
    host, guest = offered()
    withdraw = host.abort()
    events = guest.receive(withdraw.line)
    result = next(e.result for e in events if isinstance(e, GameOver))
    assert result.reason == "withdrawn" and result.sentence() == "withdrawn by the host before anyone was seated"
    with pytest.raises(LocalProtocolError, match="over"):
        guest.join()


def test_equivocation_is_detected_kept_and_provable():
    host, guest = start()
    play_moves(host, guest, 5, plies=2)
    mine, _ = mover(host, guest)
    key = identity_of(mine)
    twin = GameSession(host.game_id, key)
    twin.receive_all(host.transcript)
    moves = board_of(mine).legal_moves()
    first = mine.move(moves[0].text()).line
    second = twin.move(moves[1].text()).line
    prefix = mine.transcript[:-1]
    spectator = GameSession(host.game_id)
    spectator.receive_all(prefix)
    spectator.receive(first)
    events = spectator.receive(second)
    proofs = [e for e in events if isinstance(e, EquivocationDetected)]
    assert len(proofs) == 1 and proofs[0].first == first and proofs[0].second == second
    slot = int(proofs[0].slot)
    assert proofs[0].point == slot and spectator.compromised_by == {key.public}
    # the equivocator loses at that point: the record stops before it
    player = mine.player_of(key.public)
    result = result_of(spectator)
    assert spectator.over and result.reason == "equivocation" and result.by == key.public
    assert (
        result.sentence()
        == f"{result.winner} wins by forfeit: {player} signed two lines that cannot both stand (slot {slot})"
    )
    assert spectator.transcript == tuple(prefix) and spectator.next_seq == slot
    assert check_equivocation_proof(first, second) == key.public
    assert check_equivocation_proof(first, first) is None
    # the record carries the proof; verify reaches the same forfeit from it
    assert spectator.record == (*prefix, first, second)
    session, _number, problem = verify_transcript(spectator.record)
    assert problem is None and session.result == spectator.result
    # a record without the proof is an ordinary game in progress: the proof is what decides
    assert verify_transcript(spectator.record[:-1])[0].result is None


def test_chat_side_chain():
    host, guest = start()
    first = guest.chat("hello").line
    second = guest.chat("are you there?").line
    assert host.receive(second) == []  # waits for the first
    events = host.receive(first)
    assert [e.text for e in events if isinstance(e, ChatReceived)] == ["hello", "are you there?"]
    stranger_chat = encode(
        "chat", [("game", game_id_in(host)), ("seq", "1"), ("prev", host.chain[0].hash), ("text", "hi")], STRANGER
    )
    assert rejected(host.receive(stranger_chat)) == ["wrong-signer"]
    with pytest.raises(LocalProtocolError):
        GameSession(host.game_id, STRANGER).chat("hi")
    with pytest.raises(LocalProtocolError, match="format"):
        host.chat("sneaky\u200e")


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
                assert rejected(events) or (events == [] and number > 1), (number, index, value)
        assert not rejected(session.receive(line))
    assert session.result == host.result
    assert session.transcript == host.transcript


@settings(max_examples=300, deadline=None)
@given(garbage=st.one_of(st.binary(max_size=3000), st.text(max_size=3000)))
def test_garbage_never_raises_and_never_disturbs_the_game(garbage):
    host, guest = start()
    before = host.transcript
    events = host.receive(garbage)
    assert events and all(isinstance(e, LineRejected) and e.sentence for e in events)
    assert host.transcript == before
    play_moves(host, guest, 1, plies=2)


def test_huge_line_and_control_characters_get_codes():
    host, _ = start()
    assert rejected(host.receive(b"x" * 100_000)) == ["oversize"]
    assert rejected(host.receive("x" * 100_000)) == ["oversize"]
    assert rejected(host.receive("olixono/1 move\x1b[31m")) == ["control-character"]
    assert rejected(host.receive(b"\xff\xfe")) == ["bad-utf8"]


def test_a_seated_players_waiting_lines_are_bounded():
    host, guest = start()
    spectator = GameSession(host.game_id)
    spectator.receive_all(host.transcript)
    far = [
        encode(
            "move",
            [
                ("game", game_id_in(host)),
                ("seq", str(10 + i)),
                ("prev", b64(bytes([i % 256, i // 256]) + bytes(30))),
                ("move", "Oc6c5"),
            ],
            HOST,
        )
        for i in range(600)
    ]
    codes = [c for line in far for c in rejected(spectator.receive(line))]
    assert codes.count("limit") == 600 - (MAX_CHAIN - 10)  # no game is that long
    assert "buffer-full" not in codes and len(spectator._waiting) == MAX_CHAIN - 10 <= MAX_PER_KEY
    chats = [
        encode(
            "chat",
            [("game", game_id_in(host)), ("seq", str(2 + i)), ("prev", b64(bytes([i]) + bytes(31))), ("text", "x")],
            HOST,
        )
        for i in range(20)
    ]
    codes = [c for line in chats for c in rejected(spectator.receive(line))]
    assert codes.count("buffer-full") == 20 - (MAX_PER_KEY - (MAX_CHAIN - 10))
    assert spectator.transcript == host.transcript
    play_moves(host, guest, 2, plies=3)
    assert not rejected(spectator.receive_all(host.transcript))  # the other player's lines still get through
    assert spectator.transcript == host.transcript


def test_transcript_round_trip_and_strict_verify():
    host, _ = full_game("oxono", 4)
    session, number, problem = verify_transcript(host.transcript)
    assert problem is None and session.result == host.result
    lines = list(host.transcript)
    del lines[6]
    _, number, problem = verify_transcript(lines)
    assert number == 7 and problem is not None and problem.code in ("gap", "broken-link")
    _, number, problem = verify_transcript([*host.transcript, host.transcript[5]])
    assert problem is not None and problem.code == "gap" and "duplicate" in problem.detail


def test_equivocation_is_caught_even_when_both_lines_arrive_before_their_parent():
    host, guest = start()
    play_moves(host, guest, 6, plies=3)
    mine, _ = mover(host, guest)
    key = identity_of(mine)
    twin = GameSession(host.game_id, key)
    twin.receive_all(mine.transcript)
    moves = board_of(mine).legal_moves()
    first, second = mine.move(moves[0].text()).line, twin.move(moves[1].text()).line
    spectator = GameSession(host.game_id)
    assert spectator.receive(first) == [] and spectator.receive(second) == []  # both wait for the offer
    events = spectator.receive_all(host.transcript[: len(mine.transcript) - 1])
    assert [{e.first, e.second} for e in events if isinstance(e, EquivocationDetected)] == [{first, second}]
    assert spectator.compromised_by == {key.public}


def test_lines_for_another_game_that_came_before_the_offer_are_dropped_when_it_comes():
    host, _ = start()
    other_host, _ = start("olix")
    spectator = GameSession()
    foreign_chat = other_host.chat("elsewhere").line
    assert spectator.receive(foreign_chat) == [] and spectator.receive(other_host.transcript[1]) == []
    events = spectator.receive(host.transcript[0])
    assert sorted(rejected(events)) == ["wrong-game", "wrong-game"]
    assert not len(spectator._waiting)


def test_read_only_views_cannot_change_the_game():
    host, _guest = start()
    board = board_of(host)
    board.push(board.legal_moves()[0])
    seats = host.seats
    seats.clear()
    assert host.moves == 0 and host.seats and isinstance(host.chain, tuple) and isinstance(host.transcript, tuple)
    with pytest.raises(TypeError):
        host.joins[STRANGER.public] = None  # type: ignore[index]


def test_presence_is_the_latest_line_of_each_player_and_never_part_of_the_game():
    host, guest = start()
    spectator = GameSession(host.game_id)
    spectator.receive_all(host.transcript)
    here, gone = guest.presence(True, 1), guest.presence(False, 1)  # the will is signed when connecting
    assert gone.topic == here.topic and here.topic.endswith("/presence")
    events = spectator.receive(here.line)
    assert [type(e).__name__ for e in events] == ["PresenceChanged"] and spectator.present(GUEST.public) is True
    spectator.receive(gone.line)
    assert spectator.present(GUEST.public) is False
    assert spectator.receive(here.line) == [] and spectator.present(GUEST.public) is False  # at one seq, gone wins
    spectator.receive(guest.presence(True, 2).line)  # reconnected
    assert spectator.present(GUEST.public) is True
    spectator.receive(gone.line)  # an old will replayed changes nothing
    assert spectator.present(GUEST.public) is True and spectator.transcript == host.transcript
    stranger = encode("presence", [("game", game_id_in(host)), ("seq", "9"), ("state", "here")], STRANGER)
    assert rejected(spectator.receive(stranger)) == ["wrong-signer"]
    problem = verify_transcript([*host.transcript, here.line])[2]
    assert problem is not None and problem.code == "gap"


def test_a_player_may_say_its_program_runs_the_games_relay_and_is_here():
    """``state=hosting``: here, and the relay the line is on runs in the signer's program (it ends with it). A
    receiver counts it as here and remembers it of a seated key only."""
    host, _guest = start()
    spectator = GameSession(host.game_id)
    spectator.receive_all(host.transcript)
    assert not spectator.runs_relay(HOST.public)
    hosting = host.presence(True, 1, hosting=True)
    assert "state=hosting" in hosting.line and host.presence(False, 1, hosting=True).message.state.value == "gone"
    spectator.receive(hosting.line)
    assert spectator.present(HOST.public) is True and spectator.runs_relay(HOST.public)
    assert not spectator.runs_relay(GUEST.public)
    stranger = encode("presence", [("game", game_id_in(host)), ("seq", "9"), ("state", "hosting")], STRANGER)
    assert rejected(spectator.receive(stranger)) == ["wrong-signer"] and not spectator.runs_relay(STRANGER.public)
    assert spectator.transcript == host.transcript  # never part of the game
