"""Each player's clock starts with its first move, as on lichess (``rules:2`` offers): the first move's thinking is
not charged, but must be below the first-move limit; a player who makes no first move in that time can be claimed
against like a flag, and the game then ends aborted, naming who did not move, never lost. ``rules:1`` records judge
as they always did. On the simulated timeline of the receipts' tests."""

from __future__ import annotations

import pytest
from protocol_helpers import identity_of, playable, rejected
from test_protocol_receipts import OFFSETS, Table, table

from protocol import GameSession, verify_transcript
from protocol.clock import DAY_MS, GRACE_MS, TimeControl, answer_window
from protocol.domain import ResultReason
from protocol.errors import LocalProtocolError
from protocol.messages import encode
from protocol.rules import DEFAULT_TERMS, check_terms

LIVE = "clock:300+5,rules:2"  # five minutes and five seconds a move: 30 s for a first move, a 30 s window
FIRST_MS = 30_000


def waiter_sent(seated: Table) -> tuple[GameSession, int]:
    """The player not to move, and when its turn's start was by its own clock (its last line left it; the host, on
    the first turn: it verified the reveal)."""
    waiter = seated.other(seated.mover())
    name = seated.name(waiter)
    return waiter, seated.sent.get(name, seated.turn_seen[name]) + OFFSETS[name]


def everyone(seated: Table, *lines: str) -> None:
    for session in (seated.host, seated.guest, seated.watcher):
        for line in lines:
            session.receive(line)


def name_of(seated: Table, session: GameSession) -> str:
    return seated.watcher.player_of(identity_of(session).public) or ""


def forged_move(seated: Table, think: int, left: int) -> str:
    """The player to move's first legal move, signed with ``think`` and ``left`` of its choosing."""
    mover, watcher = seated.mover(), seated.watcher
    return encode(
        "move",
        [
            ("game", watcher.game_id or ""),
            ("seq", str(watcher.next_seq)),
            ("prev", watcher.chain[-1].hash),
            ("move", playable(mover)[0]),
            ("think", str(think)),
            ("left", str(left)),
        ],
        identity_of(mover),
    )


def test_new_offers_say_rules_2_and_old_ones_still_play():
    assert DEFAULT_TERMS == "rules:2"
    for terms in ("clock:300+5,rules:2", "rules:1", "days:3,rules:2"):
        check_terms(terms)  # valid: no exception
    with pytest.raises(Exception, match="rules:3"):
        check_terms("rules:3")


def test_the_first_move_limit_follows_from_the_time_control():
    assert TimeControl.parse("1+0").first_move_ms == 30_000 == TimeControl.parse("5+3").first_move_ms
    assert TimeControl.parse("15+10").first_move_ms == 90_000  # a tenth of the base, where that is more
    assert TimeControl.parse("180+0").first_move_ms == 18 * 60_000
    assert TimeControl.correspondence(3).first_move_ms == 3 * DAY_MS
    control = TimeControl.parse("1+2")
    assert control.first(29_999) == 60_000 and control.first(0) == 60_000  # no thinking charged, no increment
    with pytest.raises(ValueError, match="too late for a first move"):
        control.first(30_000)


def test_each_players_first_move_is_free_and_the_clocks_start_after_it():
    seated = table(LIVE)
    first, second = seated.mover(), seated.other(seated.mover())
    assert seated.watcher.first_move_ms == FIRST_MS
    seated.play(20_000)  # 20 s: not charged
    assert seated.watcher.clocks == {name_of(seated, first): 300_000, name_of(seated, second): 300_000}
    assert seated.watcher.first_move_ms == FIRST_MS  # the second player's first move is free too
    seated.play(29_999)
    assert seated.watcher.clocks == {name_of(seated, first): 300_000, name_of(seated, second): 300_000}
    assert seated.watcher.first_move_ms is None  # from here on, every move is on its mover's clock
    seated.play(4000)
    assert seated.watcher.clocks[name_of(seated, first)] == 300_000 - 4000 + 5000
    for session in (seated.host, seated.guest):
        assert session.clocks == seated.watcher.clocks
    replayed, bad, problem = verify_transcript(seated.watcher.record)
    assert bad is None and problem is None and replayed.clocks == seated.watcher.clocks


def test_a_first_move_not_below_the_limit_is_refused_like_a_move_out_of_time():
    seated = table(LIVE)
    mover = seated.mover()
    with pytest.raises(LocalProtocolError, match="your time for a first move ran out"):
        mover.move(playable(mover)[0], think_ms=FIRST_MS)
    # (each on a fresh table: a signer's second line for one slot would be an equivocation, whatever the first was)
    assert rejected(seated.watcher.receive(forged_move(seated, FIRST_MS, 300_000))) == ["bad-clock"]
    assert seated.watcher.moves == 0 and not seated.watcher.over
    # the clock of rules:1 (thinking charged, the increment added) does not follow for a first move under rules:2
    seated = table(LIVE)
    assert rejected(seated.watcher.receive(forged_move(seated, 1000, 300_000 - 1000 + 5000))) == ["bad-clock"]
    seated = table(LIVE)
    assert not rejected(seated.watcher.receive(forged_move(seated, FIRST_MS - 1, 300_000)))
    assert seated.watcher.moves == 1


@pytest.mark.parametrize("moves", [0, 1], ids=["first-player", "second-player"])
def test_a_claim_on_a_missing_first_move_aborts_the_game_for_every_receiver(moves):
    seated = table(LIVE)
    for _ in range(moves):
        seated.play(1500)
    silent = seated.mover()
    waiter, sent = waiter_sent(seated)
    assert seated.watcher.claim_remaining() == FIRST_MS  # a claim waits the first-move limit, not the clock
    with pytest.raises(LocalProtocolError, match="early-claim"):
        waiter.flag(sent, sent + FIRST_MS + GRACE_MS - 1)
    flagged = sent + FIRST_MS + GRACE_MS
    flag = waiter.flag(sent, flagged)
    everyone(seated, flag.line)
    with pytest.raises(LocalProtocolError, match="answer window"):
        waiter.timeout(flagged + answer_window(seated.watcher.clock) - 1)
    timeout = waiter.timeout(flagged + answer_window(seated.watcher.clock))
    everyone(seated, timeout.line)
    results = {session.result for session in (seated.host, seated.guest, seated.watcher)}
    assert len(results) == 1
    result = results.pop()
    assert result is not None and result.reason == ResultReason.ABORTED and not result.scored
    assert result.sentence() == f"aborted: {name_of(seated, silent)} made no first move in time"
    assert result.code() == "aborted" and result.winner is None
    assert [status for _, status in seated.watcher.claims()] == ["closed"]
    replayed, bad, problem = verify_transcript(seated.watcher.record)
    assert bad is None and problem is None and replayed.result == result


def test_a_first_move_in_time_answers_the_claim_and_a_late_one_makes_a_dispute_not_an_abort():
    seated = table(LIVE)
    waiter, sent = waiter_sent(seated)
    flag = waiter.flag(sent, sent + FIRST_MS + GRACE_MS)
    everyone(seated, flag.line)
    seated.play(FIRST_MS - 1)  # the mover was there all along: the network ate the rest
    assert not seated.watcher.over and [status for _, status in seated.watcher.claims()] == ["answered"]

    seated = table(LIVE)
    mover = seated.mover()
    late = GameSession.restore(list(mover.transcript), mover.identity)
    waiter, sent = waiter_sent(seated)
    flagged = sent + FIRST_MS + GRACE_MS
    everyone(seated, waiter.flag(sent, flagged).line)
    timeout = waiter.timeout(flagged + answer_window(seated.watcher.clock))
    everyone(seated, timeout.line)
    move = late.move(playable(late)[0], think_ms=2000)  # signed before it heard of the timeout
    everyone(seated, move.line)
    result = seated.watcher.result
    assert result is not None and result.reason == ResultReason.DISPUTE


def test_nobody_concedes_on_time_on_a_first_move_and_bad_claims_are_refused():
    seated = table(LIVE)
    mover, watcher = seated.mover(), seated.watcher
    with pytest.raises(LocalProtocolError, match="first move is off the clock"):
        mover.timeout()
    game, began = watcher.game_id or "", watcher.chain[-1]
    head = [("game", game), ("seq", str(watcher.next_seq)), ("prev", began.hash)]
    assert rejected(watcher.receive(encode("timeout", head, identity_of(mover)))) == ["wrong-seat"]
    assert not watcher.over
    seated = table(LIVE)  # (a fresh one: the refused concession holds its signer's slot, §6)
    mover, watcher = seated.mover(), seated.watcher
    waiter, sent = waiter_sent(seated)
    late = sent + FIRST_MS + GRACE_MS
    claim = [("game", game), ("seq", str(began.seq)), ("prev", began.hash), ("sent", str(sent)), ("now", str(late))]
    assert rejected(watcher.receive(encode("flag", claim, identity_of(mover)))) == ["wrong-seat"]  # against itself
    early = [*claim[:4], ("now", str(late - 1))]
    assert rejected(watcher.receive(encode("flag", early, identity_of(waiter)))) == ["early-claim"]
    made_up = [*head, ("sent", str(sent)), ("flagged", str(late)), ("now", str(late + 60_000))]
    watcher.receive(encode("timeout", made_up, identity_of(waiter)))  # no claim on record: it closes nothing
    assert not watcher.over and watcher.moves == 0
    seated.play(1000)
    assert watcher.moves == 1 and not watcher.over  # the game goes on


def test_an_old_rules_record_charges_the_first_move_and_a_missing_one_loses_on_time():
    seated = table("clock:300+5,rules:1")
    first = seated.mover()
    assert seated.watcher.first_move_ms is None
    waiter, sent = waiter_sent(seated)
    with pytest.raises(LocalProtocolError, match="early-claim"):
        waiter.flag(sent, sent + FIRST_MS + GRACE_MS)  # under rules:1 the whole clock must run out
    seated.play(20_000)
    clocks = seated.watcher.clocks
    assert clocks is not None and clocks[name_of(seated, first)] == 300_000 - 20_000 + 5000
    waiter, sent = waiter_sent(seated)
    flagged = sent + 300_000 + GRACE_MS
    everyone(seated, waiter.flag(sent, flagged).line)
    everyone(seated, waiter.timeout(flagged + answer_window(seated.watcher.clock)).line)
    result = seated.watcher.result
    assert result is not None and result.reason == ResultReason.TIME and result.winner == name_of(seated, first)


def test_a_correspondence_first_move_has_the_n_days_and_keeps_them():
    seated = table("days:2,rules:2")
    assert seated.watcher.first_move_ms == 2 * DAY_MS
    seated.play(DAY_MS + 5)
    clocks = seated.watcher.clocks
    assert clocks is not None and set(clocks.values()) == {2 * DAY_MS}
    assert rejected(seated.watcher.receive(forged_move(seated, 2 * DAY_MS, 2 * DAY_MS))) == ["bad-clock"]
