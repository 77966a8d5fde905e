"""Time controls in the terms, and the clock rule every receiver applies to a timed game's moves: the official clock
follows from signed data alone, the same for the players and a watcher."""

from __future__ import annotations

import pytest
from protocol_helpers import AT, GUEST, HOST, NONCE, SALT, SECRET, board_of, game_id_in, mover, playable, rejected

from protocol import GameSession, LineRejected, verify_transcript
from protocol.clock import DAY_MS, FLOOR_MS, MAX_THINK_MS, TimeControl
from protocol.keys import Identity
from protocol.messages import decode, encode
from protocol.rules import check_terms


def timed(terms: str = "clock:60+2,rules:1", kind: str = "olix") -> tuple[GameSession, GameSession, GameSession]:
    """A host and a guest of a timed game with the seats drawn, and a watcher that saw every line."""
    host, out = GameSession.offer(kind, HOST, nonce=NONCE, at=AT, terms=terms)
    guest, watcher = GameSession(host.game_id, GUEST), GameSession(host.game_id)
    lines = [out.line]
    guest.receive(out.line)
    lines.append(guest.join(SECRET).line)
    host.receive(lines[-1])
    lines.append(host.accept(GUEST.public, SALT).line)
    guest.receive(lines[-1])
    lines.append(guest.reveal().line)
    host.receive(lines[-1])
    watcher.receive_all(lines)
    return host, guest, watcher


def test_a_time_control_reads_and_writes_as_people_and_the_terms_write_it():
    control = TimeControl.parse("5+3")
    assert (control.base_ms, control.increment_ms, control.term, control.text()) == (
        300_000,
        3000,
        "clock:300+3",
        "5+3",
    )
    assert TimeControl.parse("0.5+2").term == "clock:30+2" == TimeControl.parse("0:30+2").term
    assert TimeControl.parse("2.05+0").term == "clock:123+0" and TimeControl.parse("1:30+2").text() == "1:30+2"
    for base in (1, 7, 59, 60, 61, 123, 3599, 10_799, 10_800):  # what text() writes, parse() reads back
        written = TimeControl(base_ms=base * 1000, increment_ms=2000)
        assert TimeControl.parse(written.text()) == written, written.text()
    assert TimeControl.of_terms("clock:300+3,rules:1") == control and TimeControl.of_terms("rules:1") is None
    assert (
        TimeControl.correspondence(3).term == "days:3"
        and TimeControl.correspondence(3) == TimeControl.of_terms("days:3,rules:1")
        and TimeControl.correspondence(3).text() == "3 days a move"
    )
    for typed in ("5", "5+", "+3", "five+3", "0+3", "500+3", "5+900", "0.01+1", "1:60+0", "1" * 400 + "+0"):
        with pytest.raises(ValueError, match=r"time control|a base from|whole number"):
            TimeControl.parse(typed)


@pytest.mark.parametrize(
    "terms",
    [
        "clock:99999+3,rules:1",
        "clock:0+3,rules:1",
        "clock:60+601,rules:1",
        "clock:060+2,rules:1",
        "days:31,rules:1",
        "days:0,rules:1",
        "clock:60+2,days:3,rules:1",
        "clock:60,rules:1",
    ],
)
def test_an_offer_under_a_control_nobody_plays_is_refused_as_an_unknown_term(terms):
    from protocol.errors import RemoteProtocolError

    with pytest.raises(RemoteProtocolError) as caught:
        check_terms(terms)
    assert caught.value.code == "unknown-term"


def test_the_rule_charges_each_move_its_thinking_at_least_the_floor_and_adds_the_increment():
    live = TimeControl.parse("1+2")
    assert live.after(60_000, 5_000) == 57_000 and live.after(60_000, 0) == 60_000 - FLOOR_MS + 2_000
    assert live.after(50, 40) == 2_000  # never below zero before the increment
    for remaining, think in ((1_000, 1_001), (1_000, 1_000), (0, 0), (10**12, MAX_THINK_MS + 1)):
        with pytest.raises(ValueError):  # out of time: a clock at zero has run out; no move thinks past the bound
            live.after(remaining, think)
    days = TimeControl.correspondence(2)
    assert days.start_ms == 2 * DAY_MS and days.after(days.start_ms, DAY_MS) == 2 * DAY_MS


def test_every_receiver_computes_the_same_clocks_from_the_signed_moves():
    host, guest, watcher = timed()
    assert host.clocks == guest.clocks == watcher.clocks == {"first": 60_000, "second": 60_000}
    thinks = [1_200, 0, 35_000, 800]
    for think in thinks:
        mine, theirs = mover(host, guest)
        out = mine.move(playable(mine)[0], think_ms=think)
        assert not rejected(theirs.receive(out.line)) and not rejected(watcher.receive(out.line))
    first = 60_000 - 1_200 + 2_000 - 35_000 + 2_000
    second = 60_000 - FLOOR_MS + 2_000 - 800 + 2_000  # zero thinking is charged the floor
    assert host.clocks == guest.clocks == watcher.clocks == {"first": first, "second": second}
    replayed, number, problem = verify_transcript(watcher.transcript)
    assert (number, problem) == (None, None) and replayed.clocks == watcher.clocks


def forged(session: GameSession, identity: Identity, fields: list[tuple[str, str]]) -> str:
    """A move line of ``identity``'s for the next slot of ``session``'s chain, with exactly ``fields`` after prev=."""
    head = session.chain[-1]
    return encode(
        "move", [("game", game_id_in(session)), ("seq", str(head.seq + 1)), ("prev", head.hash), *fields], identity
    )


@pytest.mark.parametrize(
    "extra, why",
    [
        ([], "carries think= and left="),
        ([("think", "1000")], "carries think= and left="),
        ([("think", "1000"), ("left", "60000")], "does not follow"),  # a claim of no time spent: it shows
        ([("think", "0"), ("left", "62000")], "does not follow"),  # zero thinking, uncharged: the floor is charged
        ([("think", "60001"), ("left", "2000")], "out of time"),
    ],
)
def test_a_move_whose_clock_does_not_follow_is_refused_and_changes_nothing(extra, why):
    host, guest, watcher = timed()
    mine, _ = mover(host, guest)
    identity = HOST if mine is host else GUEST
    line = forged(watcher, identity, [("move", playable(mine)[0]), *extra])
    before = (watcher.transcript, watcher.clocks)
    events = watcher.receive(line)
    problem = next(e for e in events if isinstance(e, LineRejected))
    assert problem.code == "bad-clock" and why in problem.detail
    assert (watcher.transcript, watcher.clocks) == before


def test_an_untimed_games_moves_carry_no_clock():
    host, guest, watcher = timed(terms="rules:1")
    assert watcher.clocks is None
    mine, _ = mover(host, guest)
    identity = HOST if mine is host else GUEST
    line = forged(watcher, identity, [("move", playable(mine)[0]), ("think", "5"), ("left", "5")])
    assert rejected(watcher.receive(line)) == ["bad-clock"]
    out = mine.move(playable(mine)[0], think_ms=1234)  # a time measured is not written
    assert decode(out.line).get("think") is None


def test_the_local_player_cannot_sign_a_timed_move_without_its_time_nor_after_it_ran_out():
    from protocol.errors import LocalProtocolError

    host, guest, _ = timed(terms="clock:1+0,rules:1")
    mine, _ = mover(host, guest)
    text = playable(mine)[0]
    with pytest.raises(LocalProtocolError, match="needs its thinking time"):
        mine.move(text)
    with pytest.raises(LocalProtocolError, match="your time ran out"):
        mine.move(text, think_ms=1_000)
    with pytest.raises(LocalProtocolError, match="whole ms"):
        mine.move(text, think_ms=True)
    first = mine.move(text, think_ms=400)
    assert mine.move(text, think_ms=450).line == first.line  # asked again: the same line, never a second one


def test_this_client_takes_a_seat_in_a_timed_game_and_names_its_control():
    from client.cores.network_game import GameCore
    from client.words.network import control_text

    host, out = GameSession.offer("oxono", HOST, nonce=NONCE, at=AT, terms="clock:300+3,rules:1")
    candidate = GameSession(host.game_id, GUEST)
    candidate.receive(out.line)
    assert GameCore(candidate).join_refusal(GUEST.public) is None
    assert control_text(candidate.clock) == "5+3" and control_text(None) == "untimed"


def test_verify_prints_each_players_official_clock():
    from pathlib import Path

    from client.flows.verify import summary
    from client.words.board import clock_text

    vectors = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
    session, _, problem = verify_transcript((vectors / "oxono-timed-1+2.txt").read_text().splitlines())
    assert problem is None and "; clock 1+2: pink 0:52 left, black 0:56 left" in summary(session)
    assert (clock_text(59.9), clock_text(3 * 3600 + 62), clock_text(2 * 86_400 + 1)) == (
        "0:59",
        "3:01:02",
        "2 d 0:00:01",
    )


def test_a_timed_move_out_of_turn_is_refused_for_the_turn_not_the_clock():
    from protocol.errors import LocalProtocolError

    host, guest, _ = timed(terms="clock:1+0,rules:1")
    _, waiting = mover(host, guest)
    with pytest.raises(LocalProtocolError, match="cannot move now"):
        waiting.move(playable(waiting)[0], think_ms=5_000)


def test_a_clock_at_zero_has_run_out_even_without_an_increment():
    host, guest, watcher = timed(terms="clock:1+0,rules:1")
    for think in (999, 500, 0, 100):  # the first player's clock: 1000 - 999 = 1, then 1 - max(0, 100) -> 0
        mine, theirs = mover(host, guest)
        out = mine.move(playable(mine)[0], think_ms=think)
        theirs.receive(out.line), watcher.receive(out.line)
    assert watcher.clocks is not None and watcher.clocks["first"] == 0
    mine, _ = mover(host, guest)
    assert board_of(mine).turn == "first"
    identity = HOST if mine is host else GUEST
    line = forged(watcher, identity, [("move", playable(mine)[0]), ("think", "0"), ("left", "0")])
    assert rejected(watcher.receive(line)) == ["bad-clock"]  # no more moves for free on a clock at zero
