"""A rematch: each player's signed rematch line in the finished game, and the rematch's offer, whose terms seat the
players with the colours swapped (``PROTOCOL.md`` §3, "A rematch")."""

from __future__ import annotations

import pytest
from protocol_helpers import AT, GUEST, HOST, SALT, SECRET, STRANGER, game_id_in, head_of, rejected, start

from protocol import GameSession, LocalProtocolError, RematchAsked, topic_for, verify_transcript
from protocol.messages import encode
from protocol.rules import rematch_terms


def over() -> tuple[GameSession, GameSession]:
    host, guest = start("olix")
    guest.receive(host.resign().line)
    return host, guest


def rematch_line(
    session: GameSession, identity, next_game: str, seq: int | None = None, prev: str | None = None
) -> str:
    head = head_of(session)
    fields = [
        ("game", game_id_in(session)),
        ("seq", str(head.seq if seq is None else seq)),
        ("prev", head.hash if prev is None else prev),
        ("next", next_game),
    ]
    return encode("rematch", fields, identity)


def test_both_players_ask_and_the_rematch_is_the_game_they_name():
    host, guest = over()
    assert host.terms is not None
    nxt, _ = GameSession.offer("olix", GUEST, invite=HOST.public, terms=rematch_terms(host.terms, "host"), at=AT)
    asked = guest.ask_rematch(game_id_in(nxt))
    assert asked.topic == topic_for(asked.message) and asked.topic.endswith(f"/{GUEST.public.text}/rematch")
    assert guest.ask_rematch(game_id_in(nxt)).line == asked.line  # asked again: the same line
    events = host.receive(asked.line)
    (asked_for,) = events
    assert isinstance(asked_for, RematchAsked) and asked_for.game == nxt.game_id
    assert host.rematch_of(GUEST.public) == nxt.game_id and host.rematch is None  # one player only: not agreed yet
    guest.receive(host.ask_rematch(game_id_in(nxt)).line)
    assert host.rematch == guest.rematch == nxt.game_id
    assert host.transcript == guest.transcript and not any(" rematch " in line for line in host.transcript)
    assert verify_transcript(host.transcript)[1] is None  # the finished game's record is as it was


def test_two_players_who_both_proposed_agree_on_the_lower_game_id():
    host, guest = over()
    assert host.terms is not None
    mine, _ = GameSession.offer("olix", HOST, invite=GUEST.public, terms=rematch_terms(host.terms, "guest"), at=AT)
    theirs, _ = GameSession.offer("olix", GUEST, invite=HOST.public, terms=rematch_terms(host.terms, "host"), at=AT)
    guest.receive(host.ask_rematch(game_id_in(mine)).line)
    host.receive(guest.ask_rematch(game_id_in(theirs)).line)
    assert host.rematch == guest.rematch == min(game_id_in(mine), game_id_in(theirs))


def test_a_rematch_is_refused_before_the_end_by_a_stranger_forged_twice_or_naming_another_line():
    host, guest = start("olix")
    with pytest.raises(LocalProtocolError, match="once the game is over"):
        host.ask_rematch("A" * 21 + "A")
    early = rematch_line(host, HOST, "A" * 22)
    assert rejected(guest.receive(early)) == ["wrong-seat"]  # the game is not over
    guest.receive(host.resign().line)
    assert rejected(guest.receive(rematch_line(guest, STRANGER, "A" * 22))) == ["wrong-signer"]
    forged = rematch_line(guest, HOST, "A" * 22)[:-10] + "AAAAAAAAAA"
    assert rejected(guest.receive(forged)) == ["bad-signature"]
    assert rejected(guest.receive(rematch_line(guest, HOST, "A" * 22, seq=head_of(guest).seq - 1))) == ["broken-link"]
    assert rejected(guest.receive(rematch_line(guest, HOST, game_id_in(guest)))) == ["bad-field"]
    assert guest.receive(rematch_line(guest, HOST, "B" * 21 + "A")) != []
    assert rejected(guest.receive(rematch_line(guest, HOST, "C" * 21 + "A"))) == ["wrong-seat"]  # one a player
    assert guest.rematch_of(HOST.public) == "B" * 21 + "A" and guest.rematch is None


def test_a_rematch_line_waits_for_the_last_line_it_names():
    host, guest = start("olix")
    ending = host.resign()
    asked = host.ask_rematch("B" * 21 + "A")
    assert guest.receive(asked.line) == [] and guest.rematch_of(HOST.public) is None  # kept: its line is not here
    events = guest.receive(ending.line)
    assert any(isinstance(e, RematchAsked) for e in events) and guest.rematch_of(HOST.public) == "B" * 21 + "A"


@pytest.mark.parametrize("first", ["host", "guest"])
def test_the_rematch_terms_seat_the_players_whatever_the_coin(first):
    terms = rematch_terms("clock:60+1,rules:1", first)
    assert terms == f"clock:60+1,first:{first},rules:1"
    host, out = GameSession.offer("oxono", HOST, invite=GUEST.public, terms=terms, at=AT)
    guest = GameSession(host.game_id, GUEST)
    guest.receive(out.line)
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(GUEST.public, SALT).line)
    host.receive(guest.reveal().line)
    expected = HOST.public if first == "host" else GUEST.public
    assert host.seats["pink"] == guest.seats["pink"] == expected


def test_an_offer_naming_an_unknown_seat_is_refused():
    line = encode(
        "offer", [("kind", "oxono"), ("nonce", "A" * 22), ("terms", "first:nobody,rules:1"), ("at", str(AT))], HOST
    )
    assert rejected(GameSession(None, GUEST).receive(line)) == ["unknown-term"]
