"""A client's watch of the turn, driven directly (:class:`client.cores.turn_clock.TurnClock`): the turn's start, the
times its receipts and claims sign, what a claim waits, an answer window, a move that came late after a claim. Every
reading of the monotonic clock is given (``now``, in seconds); the lines are real, signed by protocol sessions."""

from __future__ import annotations

import pytest
from protocol_helpers import GUEST, HOST, playable

from client.cores.clock import LOW_MS
from client.cores.turn_clock import (
    ORIGIN_MS,
    WITNESS_MARGIN_MS,
    LateMove,
    TurnClock,
    TurnSeen,
    last_turn_line,
    move_clock,
    round_trip_ms,
    signed_ms,
)
from protocol import GameSession, Message, MessageType
from protocol.clock import GRACE_MS, Answer, TimeControl, answer_window, dispute_bound

LIVE = TimeControl.parse("1+0")
"""A minute each: a claim waits the clock and a second of grace, its window is 30 s, a dispute needs 5 s."""
DAY_S = 86_400.0


def seated(terms: str = f"{LIVE.term},rules:1") -> tuple[GameSession, GameSession]:
    """A host's and a guest's sessions of an Oxono game under ``terms``, the seats drawn: (the player to move's, the
    other's)."""
    host, offer = GameSession.offer("oxono", HOST, terms=terms)
    guest = GameSession(host.game_id, GUEST)
    guest.receive(offer.line)
    host.receive(guest.join().line)
    guest.receive(host.accept(GUEST.public).line)
    host.receive(guest.reveal().line)
    return (host, guest) if host.actor == HOST.public else (guest, host)


def a_move(think_ms: int = 2000) -> Message:
    """A first move of a 5+0 game, saying it thought ``think_ms`` (the watch reads only its thinking and its hash)."""
    mover, _ = seated(f"{TimeControl.parse('5+0').term},rules:1")
    board = mover.board
    assert board is not None
    return mover.move(board.legal_moves()[0].text(), think_ms).message


def a_flag(sent_ms: int, now_ms: int) -> Message:
    """A flag claim of the player waiting, against the player to move, with these times (valid for a 1+0 game)."""
    _, waiting = seated()
    return waiting.flag(sent_ms, now_ms).message


def watching(at: float, moves: int = 1) -> TurnClock:
    """A watch that saw the turn after ``moves`` moves begin, live, at ``at``."""
    clock = TurnClock()
    clock.note_turn(moves, at)
    return clock


# -- the turn ------------------------------------------------------------------------------------------------
def test_a_turn_is_noted_once_and_a_line_that_leaves_it_where_it_is_starts_nothing():
    clock = TurnClock()
    assert clock.turn is None and clock.thinking_ms(5.0) == 0
    clock.note_turn(3, 10.0)
    clock.note_turn(3, 12.0)  # a proposal: the same turn
    assert clock.turn == TurnSeen(3, 10.0) and clock.seen_live
    assert clock.thinking_ms(13.25) == 3250
    clock.note_turn(4, 20.0, live=False)  # the next turn, from the relay's store
    assert clock.turn == TurnSeen(4, 20.0) and not clock.seen_live


def test_nobody_to_move_forgets_the_turn_unless_a_timeout_of_ours_may_be_answered():
    clock = watching(10.0)
    clock.note_turn(None, 11.0, kept=True)  # the other's timeout of our turn: answerable, the start kept
    assert clock.turn == TurnSeen(1, 10.0)
    clock.note_turn(None, 12.0)
    assert clock.turn is None and clock.thinking_ms(99.0) == 0


def test_a_turn_seen_after_now_has_thought_nothing():
    """A client whose own clock is behind (it saw its turn late) counts no negative thinking."""
    clock = TurnClock()
    clock.turn = TurnSeen(1, 1002.5)
    assert clock.thinking_ms(1000.0) == 0
    assert clock.left_ms(60_000, 1000.0) == 60_000


def test_a_clock_runs_for_the_side_to_move_alone_and_stops_at_zero():
    clock = watching(100.0)
    assert clock.left_ms(60_000, 112.3) == 60_000 - 12_300
    assert clock.left_ms(60_000, 112.3, running=False) == 60_000  # the waiting side's clock stands
    assert clock.left_ms(60_000, 160.0) == 0 == clock.left_ms(60_000, 300.0)  # a clock at zero has run out


def test_a_resumed_turn_begins_as_the_journal_says_for_that_turn_only():
    clock = TurnClock()
    clock.note_turn(0, 50.0, live=False)  # made mid-turn
    clock.resume(5, 99.0, 50.0, current=0)  # another turn's: ignored
    assert clock.turn == TurnSeen(0, 50.0) and not clock.seen_live
    clock.resume(0, 20.0, 50.0, current=0)
    assert clock.turn == TurnSeen(0, 30.0) and clock.seen_live  # as this client saw it then
    assert clock.thinking_ms(51.0) == 21_000
    clock.resume(0, -5.0, 50.0, current=0)  # never after now
    assert clock.turn == TurnSeen(0, 50.0)


def test_a_resume_needs_the_turn_noted_and_played_now():
    clock = TurnClock()
    clock.resume(0, 20.0, 50.0, current=0)  # nobody is to move
    assert clock.turn is None
    clock.resume(0, 20.0, 50.0, current=0, kept=True)  # a timeout of our turn, answerable: its start kept
    assert clock.turn == TurnSeen(0, 30.0)
    clock.resume(0, 10.0, 50.0, current=1)  # the record has moved on
    assert clock.turn == TurnSeen(0, 30.0)


def test_a_resume_soon_after_the_machine_started_signs_times_that_are_never_negative():
    """The machine restarted 5 s ago (the monotonic clock near zero) and the wait began 100 s ago: our line that began
    it left at a time before the clock's zero, which the signed times still hold (a year's origin); older than a year
    is taken as a year."""
    clock = TurnClock()
    clock.note_turn(1, 5.0)
    clock.resume(1, 100.0, 5.0, current=1, ours=7)
    recv, sent, ack = clock.receipt_times(7, 5.0)
    assert sent == ORIGIN_MS - 95_000 > 0 and recv == signed_ms(5.0) == ORIGIN_MS + 5000 and ack is None
    assert clock.thinking_ms(5.0) == 100_000
    clock.resume(1, 10 * 365 * DAY_S, 5.0, current=1)
    assert clock.thinking_ms(5.0) == ORIGIN_MS


def test_the_players_own_clock_is_told_low_once_a_turn_and_never_once_out():
    clock = watching(0.0)
    assert not clock.low(LOW_MS, 1) and not clock.low(None, 1) and not clock.low(0, 1)
    assert clock.low(9500, 1)
    assert not clock.low(9000, 1)  # once a turn
    assert clock.low(9000, 2)  # the next one's
    assert clock.tell_once("flag", 2) and not clock.tell_once("flag", 2) and clock.tell_once("timeout", 2)


# -- receipts ----------------------------------------------------------------------------------------------
def test_a_receipt_says_when_our_line_before_left_and_when_its_receipt_came_the_first_time_each():
    clock = TurnClock()
    assert clock.receipt_times(None, 1.0) == (signed_ms(1.0), None, None)
    assert clock.receipt_times(4, 1.0) == (signed_ms(1.0), None, None)
    clock.line_left(4, 2.0)
    clock.line_left(4, 3.0)  # the same line seen again: it left the first time
    assert clock.round_trip(4) is None  # no receipt yet
    clock.line_receipted(4, 2.3)
    clock.line_receipted(4, 9.0)
    assert clock.receipt_times(4, 5.0) == (signed_ms(5.0), signed_ms(2.0), signed_ms(2.3))
    assert clock.round_trip(4) == 300


def test_a_claim_waits_the_95th_percentile_of_the_round_trips_this_player_measured():
    mine = [Answer("first", 1000, 1500, 9000)]  # the other's measure of our moves: not ours
    theirs = [Answer("second", 1000, 1500, trip) for trip in (300, 800, 500)]
    assert round_trip_ms([*mine, *theirs, Answer("second", 1000)], "first") == 800  # of three, the largest
    many = [Answer("second", 1000, 1500, trip) for trip in range(100, 2200, 100)]  # 21 of them
    assert round_trip_ms(many, "first") == 2000  # the 20th
    assert round_trip_ms(mine, "first") == 0


# -- claims on time --------------------------------------------------------------------------------------------
def test_a_claim_is_due_after_the_clock_the_grace_the_round_trip_and_for_witnesses_a_margin():
    clock = watching(100.0)
    assert clock.claim_in_ms(LIVE, 60_000, 800, 100.0) == 60_000 + GRACE_MS + 800
    began = 100.0 + (60_000 + GRACE_MS + 800 - 1) / 1000
    assert clock.claim_in_ms(LIVE, 60_000, 800, began) == 1
    assert clock.claim_in_ms(LIVE, 60_000, 800, began + 0.001) == 0 == clock.claim_in_ms(LIVE, 60_000, 800, 999.0)
    assert clock.claim_in_ms(LIVE, 60_000, 0, 130.0, witnessed=True) == 31_000 + WITNESS_MARGIN_MS
    untimed = clock.claim_in_ms(None, 0, 0, 100.0 + 6 * DAY_S)
    assert untimed == DAY_S * 1000 + GRACE_MS  # 7 days of silence and the grace


def test_a_timeout_of_our_turn_is_answered_while_our_clock_shows_time():
    clock = watching(100.0)
    assert clock.answer_left_ms(LIVE, 60_000, 102.0) == 58_000
    assert clock.answer_left_ms(LIVE, 60_000, 160.0) == 0
    assert clock.answer_left_ms(None, None, 105.0) == 7 * DAY_S * 1000 + GRACE_MS - 5000  # untimed: its days
    assert clock.answer_left_ms(LIVE, 60_000, 105.0, aborted=True) == LIVE.first_move_ms - 5000  # a first move's
    assert TurnClock().answer_left_ms(LIVE, 60_000, 102.0) == 0  # no turn's start: nothing shows we were in time


@pytest.mark.parametrize(
    "control, window",
    [
        pytest.param(LIVE, 30_000, id="live-at-least-30-s"),
        pytest.param(TimeControl.parse("15+0"), 45_000, id="live-5%-of-the-base"),
        pytest.param(TimeControl.correspondence(3), 86_400_000, id="correspondence-a-day"),
        pytest.param(None, 86_400_000, id="untimed-a-day"),
    ],
)
def test_our_claims_window_runs_from_its_own_times_on_our_watch(control, window):
    """Our claim, signed 61.5 s into the turn: its window runs from then, by our watch of the turn."""
    assert answer_window(control) == window
    flag = a_flag(0, 61_500)
    clock = watching(1000.0)
    assert clock.window_left_ms(flag, control, 1061.5, ours=True) == window
    assert clock.window_left_ms(flag, control, 1071.5, ours=True) == window - 10_000
    assert clock.window_left_ms(flag, control, 1061.5 + window / 1000, ours=True) == 0
    assert clock.window_left_ms(flag, control, 1061.5, ours=True, witnessed=True) == window + WITNESS_MARGIN_MS


def test_the_others_claims_window_runs_from_its_coming_here():
    """Its times are not on our clock, and the network's delay is ours to lose: from when it came, whatever our watch
    of the turn says."""
    flag = a_flag(0, 61_500)
    clock = watching(1000.0)
    clock.flag_came(flag, 1070.0)  # 70 s into the turn by our watch: we saw the turn late
    clock.flag_came(flag, 1080.0)  # the same claim again: it came the first time
    assert clock.window_left_ms(flag, LIVE, 1070.0, ours=False) == 30_000
    assert clock.window_left_ms(flag, LIVE, 1095.0, ours=False) == 5000
    assert clock.window_left_ms(flag, LIVE, 1100.0, ours=False) == 0


def test_a_claim_known_only_from_the_record_shows_at_most_its_whole_window():
    """A watcher that saw the turn begin 20 s after the claim (it arrived late) knows only that much."""
    flag = a_flag(0, 61_500)
    late = watching(2000.0)
    assert late.window_left_ms(flag, LIVE, 2000.0, ours=False) == 30_000
    assert late.window_left_ms(flag, LIVE, 2005.0, ours=False) == 30_000
    assert watching(1000.0).window_left_ms(flag, LIVE, 1081.5, ours=False) == 10_000  # one that saw it all


# -- a move that came late after our claim ---------------------------------------------------------------------
def late_after_claim(
    think_ms: int = 2000, trip: tuple[float, float] | None = None
) -> tuple[TurnClock, Message, Message]:
    """Our turn line left at 1000 s (its receipt back ``trip`` s later, if given); our 1+0 claim at 61.5 s of
    silence; the other's move, saying it thought ``think_ms``, 4 s after it: the watch, our claim and the move."""
    move, flag = a_move(think_ms), a_flag(0, 61_500)
    clock = watching(1000.0)
    if trip is not None:
        clock.line_left(flag.seq, 1000.0 - trip[0])
        clock.line_receipted(flag.seq, 1000.0 - trip[0] + sum(trip))
    clock.note_late(move, flag, "first", LIVE, 1, 1065.5)
    return clock, flag, move


def test_a_move_that_came_after_the_claim_with_its_thinking_unexplained_is_noted_late():
    clock, flag, move = late_after_claim()
    assert clock.late == LateMove(move.hash, signed_ms(1065.5), 65_500, 65_500)
    assert clock.late_by_ms(flag) == (4000, 65_500)
    assert clock.dispute_in_ms(flag, LIVE, 1065.5) == 26_000  # the claim's window first
    assert clock.dispute_in_ms(flag, LIVE, 1091.5) == 0
    assert clock.late_clock_ms(1070.5) == 70_500  # on the claim's clock: the turn's start as it says, and our watch
    assert clock.tell_once("dispute", 1)  # not told yet: it may not be disputed at once


def test_a_late_move_the_game_goes_on_after_may_be_disputed_until_another_is_at_the_head():
    clock, flag, move = late_after_claim()
    assert clock.disputable(move, flag, LIVE, 9999.0, over=False)
    other = a_move(1000)
    assert other.hash != move.hash
    assert not clock.disputable(other, flag, LIVE, 1066.0, over=False)
    assert not clock.disputable(None, flag, LIVE, 1066.0, over=False)
    assert not TurnClock().disputable(move, flag, LIVE, 1066.0, over=False)


def test_a_late_winning_move_may_be_disputed_for_a_whole_window_after_a_dispute_may_be_signed():
    """A dispute may be signed from the end of the claim's window (26 s after the move came), and is held open for a
    whole window after that: until 56 s after the move came."""
    clock, flag, move = late_after_claim()
    assert clock.disputable(move, flag, LIVE, 1065.5 + 55.0, over=True)
    assert not clock.disputable(move, flag, LIVE, 1065.5 + 56.0, over=True)


def test_a_move_that_came_after_the_window_may_be_disputed_at_once_and_counts_as_told():
    move, flag = a_move(), a_flag(0, 61_500)
    clock = watching(1000.0)
    clock.note_late(move, flag, "first", LIVE, 1, 1100.0)  # 38.5 s after the claim
    assert clock.late is not None and clock.dispute_in_ms(flag, LIVE, 1100.0) == 0
    assert not clock.tell_once("dispute", 1)  # the move's own sentence says claim disputes it now: not twice


@pytest.mark.parametrize(
    "trip, late",
    [
        pytest.param(None, False, id="no-receipt-the-whole-lag-allowance"),
        pytest.param((0.0, 0.0), True, id="a-round-trip-of-nothing"),
        pytest.param((0.0, 0.3), True, id="a-short-round-trip"),
        pytest.param((0.0, 0.5), False, id="a-longer-round-trip"),
        pytest.param((3.0, 3.0), False, id="slow-legs-the-allowance-at-most"),
    ],
)
def test_what_a_late_move_leaves_unexplained_is_the_receipts_own_rule(trip, late):
    """The move said it thought 60 s of the 65.5 s we waited: unexplained, what the lag allowance (the turn's round
    trip, a second at most, the whole second when unknown) and the slack leave of the other 5.5 s, against the bound
    of 5 s."""
    clock, _, _ = late_after_claim(think_ms=60_000, trip=trip)
    rtt = None if trip is None else round(sum(trip) * 1000)
    unexplained = Answer("first", 60_000, 65_500, rtt).unexplained
    assert unexplained is not None and (unexplained > (dispute_bound(LIVE) or 0)) is late
    assert (clock.late is not None) is late


def test_a_move_that_the_network_slowed_is_no_late_move():
    clock, flag, move = late_after_claim(think_ms=61_000, trip=(0.0, 0.0))  # 4.4 s unexplained: under the bound
    assert clock.late is None and clock.late_by_ms(flag) == (0, 0) and clock.dispute_in_ms(flag, LIVE, 1070.0) == 0
    assert not clock.disputable(move, flag, LIVE, 1070.0, over=False)


@pytest.mark.parametrize("control", [TimeControl.correspondence(3), None], ids=["correspondence", "untimed"])
def test_no_move_is_late_where_no_dispute_bound_applies(control):
    """Clients may be closed for days between moves: their receipts measure absence as much as thinking."""
    assert dispute_bound(control) is None
    move, flag = a_move(), a_flag(0, 61_500)
    clock = watching(1000.0)
    clock.note_late(move, flag, "first", control, 1, 1065.5)
    assert clock.late is None


def test_a_late_move_needs_the_turns_start():
    move, flag = a_move(), a_flag(0, 61_500)
    clock = TurnClock()
    clock.note_late(move, flag, "first", LIVE, 1, 1065.5)
    assert clock.late is None


# -- the record's lines ----------------------------------------------------------------------------------------
def test_the_line_that_gave_the_turn_and_a_moves_signed_clock():
    mover, waiting = seated()
    chain = mover.chain
    reveal = last_turn_line(chain)
    assert reveal is not None and reveal.type is MessageType.REVEAL and last_turn_line(chain, reveal.seq) is None
    waiting.receive(mover.move(playable(mover)[0], 3250).line)
    chain = waiting.chain
    assert last_turn_line(chain) == chain[-1] and last_turn_line(chain, chain[-1].seq) == reveal
    assert move_clock(chain, chain[-1].seq) == (3250, 60_000 - 3250)
    assert move_clock(chain, reveal.seq) is None and move_clock(chain, len(chain)) is None
    assert move_clock(chain, -1) is None
