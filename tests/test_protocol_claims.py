"""Flag claims and timeouts: a player whose opponent's clock has run out, by its own observation, signs a
flag claim; a move in time or a concession answers it; an unanswered claim ends the game on time once its answer
window has passed. A time win needs the other's silence and the claimant's own unexplained time within a bound:
otherwise the result is a time dispute, with the figures. On the simulated timeline of the receipts' tests."""

from __future__ import annotations

import itertools

import pytest
from protocol_helpers import (
    GUEST,
    HOST,
    board_of,
    identity_of,
    play_moves,
    playable,
    rejected,
    result_of,
    seat_of,
    start,
)
from test_protocol_receipts import OFFSETS, Table, table

from protocol import Event, GameSession, Outgoing, check_equivocation_proof, verify_transcript
from protocol.clock import ABANDONED_MS, DAY_MS, GRACE_MS, LAG_MOST_MS, SLACK_MS, answer_window, dispute_bound
from protocol.domain import ResultReason
from protocol.errors import LocalProtocolError
from protocol.events import GameOver
from protocol.messages import encode, line_hash
from protocol.rules import MAX_CHAIN, MAX_CHAT_LINES, MAX_CONFIRMS

LIVE = "clock:300+5,rules:1"  # five minutes and five seconds a move: a 30 s window, a 6 s bound


def waiter_of(seated: Table) -> tuple[GameSession, int]:
    """The player not to move, and when its last line left it (on its own clock)."""
    waiter = seated.other(seated.mover())
    name = seated.name(waiter)
    return waiter, seated.sent[name] + OFFSETS[name]


def remaining(seated: Table) -> int:
    mover = seated.mover()
    clocks = seated.watcher.clocks
    assert clocks is not None
    return clocks[seated.watcher.player_of(identity_of(mover).public) or ""]


def everyone(seated: Table, *lines: str) -> list[Event]:
    """Deliver lines to both players and the watcher; the watcher's events."""
    events = []
    for session in (seated.host, seated.guest, seated.watcher):
        for line in lines:
            got = session.receive(line)
            if session is seated.watcher:
                events.extend(got)
    return events


def claim(seated: Table, extra: int = 0, wait: int | None = None) -> tuple[GameSession, str, str]:
    """The waiter claims ``extra`` ms after its clock allows, and times out when the window has passed."""
    waiter, sent = waiter_of(seated)
    flagged = sent + remaining(seated) + GRACE_MS + extra
    flag = waiter.flag(sent, flagged)
    everyone(seated, flag.line)
    timeout = waiter.timeout(flagged + (answer_window(seated.watcher.clock) if wait is None else wait))
    return waiter, flag.line, timeout.line


def test_an_unanswered_claim_wins_on_time_for_every_receiver_and_offline():
    seated = table(LIVE)
    for _ in range(6):
        seated.play(800)
    loser = seated.watcher.player_of(identity_of(seated.mover()).public)
    waiter, flag, timeout = claim(seated)
    winner = seated.watcher.player_of(identity_of(waiter).public)
    events = everyone(seated, timeout)
    results = {session.result for session in (seated.host, seated.guest, seated.watcher)}
    assert len(results) == 1
    result = results.pop()
    assert result is not None and result.reason == ResultReason.TIME and result.winner == winner
    assert result.sentence() == f"{winner} wins on time: {loser}'s clock ran out and the claim went unanswered"
    assert result.code() == f"{winner}-time" and any(isinstance(event, GameOver) for event in events)
    assert flag in seated.watcher.record and timeout in seated.watcher.record
    assert [(claim.line, status) for claim, status in seated.watcher.claims()] == [(flag, "closed")]
    replayed, bad, problem = verify_transcript(seated.watcher.record)
    assert bad is None and problem is None and replayed.result == result


def test_a_claim_before_the_clock_and_the_grace_have_run_out_is_refused_and_changes_nothing():
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    waiter, sent = waiter_of(seated)
    needed = remaining(seated) + GRACE_MS
    with pytest.raises(LocalProtocolError, match="early-claim"):
        waiter.flag(sent, sent + needed - 1)
    assert waiter.flag_of(identity_of(waiter).public) is None
    flag = waiter.flag(sent, sent + needed)
    assert waiter.flag(sent, sent + needed).line == flag.line  # asked again: the same line
    everyone(seated, flag.line)
    assert seated.watcher.flag_of(identity_of(waiter).public) is not None
    with pytest.raises(LocalProtocolError, match="within its 30000 ms answer window"):
        waiter.timeout(sent + needed + answer_window(seated.watcher.clock) - 1)
    assert not seated.watcher.over and not waiter.over


def test_a_move_in_time_answers_the_claim_and_the_game_goes_on():
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    waiter, sent = waiter_of(seated)
    flag = waiter.flag(sent, sent + remaining(seated) + GRACE_MS)
    everyone(seated, flag.line)
    seated.play(2000)  # the mover was thinking all along, in time: the network ate the rest
    assert not seated.watcher.over and seated.watcher.flag_of(identity_of(waiter).public) is None
    with pytest.raises(LocalProtocolError):
        waiter.timeout(sent + 10 * 60_000)  # the turn it claimed is over: no claim of its own stands against this one
    assert flag.line in seated.watcher.record  # the claim stays on the record, answered
    assert [status for _, status in seated.watcher.claims()] == ["answered"]


def test_the_player_to_move_concedes_on_time():
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    mover = seated.mover()
    loser = seated.watcher.player_of(identity_of(mover).public)
    waiter, _flag, _ = claim(seated)
    concession = mover.timeout()
    assert mover.timeout().line == concession.line  # asked again: the same line
    everyone(seated, concession.line)
    result = seated.watcher.result
    assert result is not None and result.reason == ResultReason.TIME
    assert result.winner == seated.watcher.player_of(identity_of(waiter).public)
    assert result.sentence().endswith(f": {loser} conceded")
    assert [status for _, status in seated.watcher.claims()] == ["conceded"]


def test_a_claim_that_races_a_move_in_time_is_a_dispute_in_every_order_of_arrival():
    """The claimant times out a turn whose move it had, or the move comes after the timeout: the record holds both,
    and neither player's word decides: no result, with the figures."""
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    mover = seated.mover()
    _waiter, flag, timeout = claim(seated)
    think = remaining(seated) - 1000
    move = mover.move(playable(mover)[0], think_ms=think)
    results = set()
    for order in itertools.permutations([flag, timeout, move.line]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        assert watcher.over
        results.add(watcher.result)
        replayed, bad, _problem = verify_transcript(watcher.record)
        assert bad is None and replayed.result == watcher.result
    assert len(results) == 1
    result = results.pop()
    assert result is not None and result.reason == ResultReason.DISPUTE and result.winner is None
    assert f"is on the record (it says it thought {think / 1000:.1f} s)" in result.sentence()
    assert result.code() == "dispute"


def test_a_claimant_whose_own_moves_leave_too_much_unexplained_gets_a_dispute_not_a_win():
    """The host hides 8 s of its thinking on one move (the bound of a 5+5 game is 6 s), then flags the guest: no
    win. Its opponent's receipt that shows it may come after the timeout: the result follows the lines held."""
    seated = table(LIVE)
    for _ in range(3):
        seated.play(800)
    while seated.mover() is not seated.host:
        seated.play(800)
    seated.play(9000, claimed=1000)
    receipt = next(
        line
        for line in seated.guest.transcript
        if " receipt " in line and f"seq={len(seated.guest.chain) - 1} " in line
    )
    bound = dispute_bound(seated.watcher.clock)
    assert bound is not None and seated.watcher.time_used()[seat_of(seated.watcher, HOST.public)].unexplained > bound
    waiter, _flag, timeout = claim(seated)
    assert waiter is seated.host
    everyone(seated, timeout)
    result = seated.watcher.result
    assert result is not None and result.reason == ResultReason.DISPUTE and "unexplained" in result.sentence()
    late = GameSession(seated.watcher.game_id)  # the receipt last: a time win until it comes, then the dispute
    record = [line for line in seated.watcher.record if line != receipt]
    late.receive_all(record)
    assert late.result is not None and late.result.reason == ResultReason.TIME
    events = late.receive(receipt)
    assert late.result == result and GameOver(result) in events


def test_a_cheat_that_withholds_its_move_until_the_claim_never_wins_and_shows():
    """Out of time, the guest holds its move back until the host claims, then answers at once saying it thought
    1 s. Measured by the host's receipt, the answer leaves the whole wait unexplained; the host closes the window
    all the same, and the record holds both: a dispute, never the cheat's win."""
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    mover = seated.mover()
    cheat = seated.watcher.player_of(identity_of(mover).public)
    waiter, sent = waiter_of(seated)
    flagged = sent + remaining(seated) + GRACE_MS
    flag = waiter.flag(sent, flagged)
    everyone(seated, flag.line)
    seated.play(remaining(seated) + 5000, claimed=1000)  # seen 5 s after its clock ran out
    answer = seated.watcher.answers()[-1]
    assert answer.unexplained is not None and answer.unexplained > remaining(seated) - 60_000
    late = seated.watcher.chain[-1]
    late_flag = waiter.late_flag()
    assert waiter.late_move == late and late_flag is not None and late_flag.line == flag.line
    with pytest.raises(LocalProtocolError, match="within its 30000 ms answer window"):  # the window first
        waiter.timeout(flagged + 29_999)
    timeout = waiter.timeout(flagged + 30_000)  # its client closes the window all the same, in the late move's place
    assert timeout.message.seq == late.seq and waiter.late_move is None
    everyone(seated, timeout.line)
    result = seated.watcher.result
    assert result is not None and result.reason == ResultReason.DISPUTE and result.winner != cheat
    assert f"{cheat}'s move" in result.sentence()


def test_a_cheat_that_reports_no_thinking_shows_and_cannot_turn_the_claim():
    seated = table(LIVE)
    for _ in range(8):
        cheat_moves = seated.mover() is seated.guest
        seated.play(3000 if cheat_moves else 800, claimed=0 if cheat_moves else None)
    guest = seated.watcher.player_of(GUEST.public) or ""
    assert seated.watcher.time_used()[guest].unexplained >= 3 * (3000 - 1000 - 100)
    while seated.mover() is not seated.guest:
        seated.play(800)
    _, _, timeout = claim(seated)
    everyone(seated, timeout)
    result = seated.watcher.result
    assert (
        result is not None
        and result.reason == ResultReason.TIME
        and result.winner == seated.watcher.player_of(HOST.public)
    )


def test_a_live_game_with_a_base_over_ten_minutes_answers_a_claim_within_5_percent_of_it():
    """15+0: the window is 45 s, not the least 30 s; a timeout within it is refused, and one at its end wins."""
    seated = table("clock:900+0,rules:1")
    for _ in range(4):
        seated.play(800)
    assert answer_window(seated.watcher.clock) == 45_000
    waiter, sent = waiter_of(seated)
    flagged = sent + remaining(seated) + GRACE_MS
    everyone(seated, waiter.flag(sent, flagged).line)
    for early in (30_000, 44_999):
        with pytest.raises(LocalProtocolError, match="within its 45000 ms answer window"):
            waiter.timeout(flagged + early)
    assert not waiter.over
    everyone(seated, waiter.timeout(flagged + 45_000).line)
    result = seated.watcher.result
    assert result is not None and result.reason == ResultReason.TIME
    assert result.winner == seated.watcher.player_of(identity_of(waiter).public)


def test_a_correspondence_claim_waits_the_days_then_a_day_to_answer_and_wins_on_time():
    """days:3: the claim waits 3 days and the grace, its answer window is a day; then the claimant wins on time for
    every receiver and offline. No bound applies (a correspondence client may be closed for days between moves): the
    claimant's own hours left out of its thinking do not turn its win into a dispute, as they would in a live game."""
    seated = table("days:3,rules:1")
    for _ in range(4):
        seated.play(800)
    claimant = seated.watcher.player_of(identity_of(seated.mover()).public) or ""
    seated.play(5 * 3600_000, claimed=1000)  # away five hours, its thinking says a second
    assert seated.watcher.time_used()[claimant].unexplained > 5 * 3600_000 - 2000
    waiter, sent = waiter_of(seated)
    assert seated.watcher.player_of(identity_of(waiter).public) == claimant and remaining(seated) == 3 * DAY_MS
    loser = seated.watcher.player_of(identity_of(seated.mover()).public)
    with pytest.raises(LocalProtocolError, match="early-claim"):
        waiter.flag(sent, sent + 3 * DAY_MS + GRACE_MS - 1)
    flagged = sent + 3 * DAY_MS + GRACE_MS
    flag = waiter.flag(sent, flagged)
    everyone(seated, flag.line)
    with pytest.raises(LocalProtocolError, match="within its 86400000 ms answer window"):
        waiter.timeout(flagged + DAY_MS - 1)
    assert not seated.watcher.over
    timeout = waiter.timeout(flagged + DAY_MS)
    everyone(seated, timeout.line)
    for session in (seated.host, seated.guest, seated.watcher):
        result = session.result
        assert result is not None and result.reason == ResultReason.TIME and result.winner == claimant
        assert result.sentence() == f"{claimant} wins on time: {loser}'s clock ran out and the claim went unanswered"
    assert [(line.line, status) for line, status in seated.watcher.claims()] == [(flag.line, "closed")]
    replayed, bad, problem = verify_transcript(seated.watcher.record)
    assert (bad, problem) == (None, None) and replayed.result == seated.watcher.result


@pytest.mark.parametrize("cheats, ending", [(2, ResultReason.TIME), (3, ResultReason.DISPUTE)])
def test_a_claimant_that_delays_its_receipts_and_under_reports_its_thinking_gets_a_dispute_past_the_bound(
    cheats, ending
):
    """The host thinks 5 s a move and says 1 s, and holds each receipt of the guest's moves back 3 s so that the round
    trips the guest measures pass its thinking off as the network's: that hides the lag allowance (1 s less the
    network's own 40 ms) and no more, so 2.94 s a move still shows. Then it claims the guest's turn: within the bound
    of a 5+5 game (6 s: two such moves, 5.88 s) a win on time; past it (three) a time dispute with the figure, never
    a win."""
    seated = table(LIVE)
    host = seated.watcher.player_of(HOST.public) or ""
    while seated.watcher.time_used()[host].measured < cheats:
        if seated.mover() is seated.host:
            seated.play(5000, claimed=1000)
        else:
            seated.play(800, receipt_delay=3000)  # the host, receiving, holds its receipt back
    hidden = 4000 - (LAG_MOST_MS - 2 * seated.delay) - SLACK_MS
    assert seated.watcher.time_used()[host].unexplained == cheats * hidden
    waiter, _flag, timeout = claim(seated)
    assert waiter is seated.host
    everyone(seated, timeout)
    result = seated.watcher.result
    assert result is not None and result.reason == ending, result
    if ending == ResultReason.DISPUTE:
        assert result.winner is None
        assert result.sentence().endswith(
            f", and {host}'s own moves leave {cheats * hidden / 1000:.1f} s unexplained "
            "(a claim wins with 6.0 s at most)"
        )
    else:
        assert result.winner == host
    replayed, bad, problem = verify_transcript(seated.watcher.record)
    assert (bad, problem) == (None, None) and replayed.result == result


def test_an_untimed_game_ends_for_the_player_that_walked_away_after_seven_days():
    host, guest = start("olix")
    mover, waiter = (host, guest) if host.actor == HOST.public else (guest, host)
    with pytest.raises(LocalProtocolError, match="early-claim"):
        waiter.flag(0, ABANDONED_MS)
    flag = waiter.flag(0, ABANDONED_MS + GRACE_MS)
    mover.receive(flag.line)
    with pytest.raises(LocalProtocolError, match="concede"):
        mover.timeout()  # an untimed game has no clock to concede on
    with pytest.raises(LocalProtocolError, match="answer window"):
        waiter.timeout(ABANDONED_MS + GRACE_MS + DAY_MS - 1)
    timeout = waiter.timeout(ABANDONED_MS + GRACE_MS + DAY_MS)
    mover.receive(timeout.line)
    result = mover.result
    assert result is not None and result.reason == ResultReason.ABANDONED
    assert (
        result.sentence() == f"{waiter.player_of(identity_of(waiter).public)} wins: "
        f"{mover.player_of(identity_of(mover).public)} did not move for 7 days 0 h"
    )


def test_bad_claims_are_refused_each_with_its_reason():
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    watcher, mover = seated.watcher, seated.mover()
    waiter, sent = waiter_of(seated)
    began = watcher.chain[-1]
    game = watcher.game_id or ""

    def line(type_: str, signer, fields) -> str:
        return encode(type_, [("game", game), *fields], signer.identity)

    late = sent + remaining(seated) + GRACE_MS
    own = line("flag", mover, [("seq", str(began.seq)), ("prev", began.hash), ("sent", "0"), ("now", str(late))])
    assert rejected(watcher.receive(own)) == ["wrong-seat"]  # the player to move's claim against itself
    accept = watcher.chain[2]  # not a line that began a turn
    assert rejected(
        watcher.receive(line("flag", waiter, [("seq", "2"), ("prev", accept.hash), ("sent", "0"), ("now", str(late))]))
    ) == ["wrong-seat"]
    head = [("seq", str(len(watcher.chain))), ("prev", watcher.chain[-1].hash)]
    assert rejected(watcher.receive(line("timeout", waiter, [*head, ("sent", "0")]))) == ["bad-field"]
    assert rejected(
        watcher.receive(line("timeout", mover, [*head, ("sent", "0"), ("flagged", "1"), ("now", "2")]))
    ) == ["bad-field"]
    stranger = GameSession(game, type(HOST).from_seed(bytes(range(7, 39))))
    assert rejected(
        watcher.receive(
            line("flag", stranger, [("seq", str(began.seq)), ("prev", began.hash), ("sent", "0"), ("now", str(late))])
        )
    ) == ["wrong-signer"]
    assert not watcher.over and watcher.flag_of(identity_of(waiter).public) is None


def test_two_flag_claims_for_one_turn_are_a_proof_that_never_decides_the_game():
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    waiter, sent = waiter_of(seated)
    began = seated.watcher.chain[-1]
    flagged = sent + remaining(seated) + GRACE_MS
    lines = [
        encode(
            "flag",
            [
                ("game", seated.watcher.game_id or ""),
                ("seq", str(began.seq)),
                ("prev", began.hash),
                ("sent", str(sent)),
                ("now", str(flagged + extra)),
            ],
            identity_of(waiter),
        )
        for extra in (0, 5)
    ]
    kept = set()
    for order in (lines, lines[::-1]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        assert len(watcher.proofs) == 1 and not watcher.over
        flagged_by = watcher.flag_of(identity_of(waiter).public)
        assert flagged_by is not None
        kept.add(flagged_by.line)
    assert len(kept) == 1


@pytest.mark.parametrize("ending", ["agree", "abort", "resign", "concede"])
def test_a_claimants_timeout_never_stands_over_the_player_to_moves_ending(ending):
    """The player to move agrees to the claimant's proposal, aborts (the first player, at once), resigns or
    concedes; the other's timeout for that same place, made up or not, is set aside in every order of arrival: an
    agreed draw, an abort, stay what they were (a claim is no way out of a game one is losing)."""
    seated = table(LIVE)
    if ending == "agree":
        waiter = seated.other(seated.mover())
        seated.play(800)  # so that the waiter of now proposes on its turn, then moves
        proposal = seated.mover().propose()
        everyone(seated, proposal.line)
        seated.play(800)
    elif ending != "abort":
        for _ in range(4):
            seated.play(800)
    mover = seated.mover()
    waiter, _sent = waiter_of(seated) if seated.sent.get(seated.name(seated.other(mover))) else (seated.other(mover), 0)
    end = {"agree": mover.agree, "abort": mover.abort, "resign": mover.resign, "concede": mover.timeout}[ending]()
    seq = end.message.seq
    fake = encode(
        "timeout",
        [
            ("game", seated.watcher.game_id or ""),
            ("seq", str(seq)),
            ("prev", end.message.prev),
            ("sent", "0"),
            ("flagged", str(10**9)),
            ("now", str(2 * 10**9)),
        ],
        identity_of(waiter),
    )
    results = set()
    for order in ([end.line, fake], [fake, end.line]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        results.add(watcher.result)
        assert watcher.chain[-1].line == end.line
    assert len(results) == 1


@pytest.mark.parametrize("flagged", [False, True], ids=["no claim", "a made-up claim"])
def test_a_move_that_ends_the_game_met_by_a_made_up_timeout(flagged):
    """The loser's made-up timeout against the move that wins the game for the player to move. Without a flag claim on
    record it closes no claim: it waits for one, and the win stands in every order. With a made-up claim as well,
    without a time witness: its word against the move's, a dispute, never the claimant's win (what PROTOCOL.md calls
    a claimant's one power without a witness: a dispute)."""
    seated, mover, move = _winning_move()
    loser = seated.other(mover)
    fake = [_made_up_flag(seated, loser, move.message)] if flagged else []
    fake.append(_made_up_timeout(seated, loser, move.message))
    results = set()
    for order in itertools.permutations([move.line, *fake]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        results.add(watcher.result)
        replayed, bad, problem = verify_transcript(watcher.record)
        assert bad is None and replayed.result == watcher.result, problem
    result = results.pop()
    assert not results and result is not None
    if flagged:
        assert result.reason == ResultReason.DISPUTE
    else:
        assert result.winner_key == identity_of(mover).public and result.reason != ResultReason.DISPUTE


def test_a_loser_that_confirmed_the_move_that_beat_it_cannot_take_it_back_with_a_timeout():
    """The loser's client confirms the winning move at once; a timeout it signs afterwards for that move's place,
    with made-up times, contradicts its own confirmation: equivocation, so the loser forfeits the game it lost (a
    dispute no more), for every receiver in every order, offline too, with a proof that stands on its own."""
    seated, mover, move = _winning_move()
    loser = seated.other(mover)
    loser.receive(move.line)
    confirm = loser.confirm()
    assert confirm is not None
    fake = _made_up_timeout(seated, loser, move.message)
    _forfeits_in_every_order(seated, mover, move.message, confirm.line, fake)
    assert check_equivocation_proof(confirm.line, fake) == loser.identity.public
    assert check_equivocation_proof(fake, confirm.line) == loser.identity.public


@pytest.mark.parametrize("dodge", [False, True])
def test_a_player_that_receipted_a_move_cannot_say_with_a_timeout_that_it_never_came(dodge):
    """The waiter's client receipts the other's move at once; a timeout it signs for that move's place says the move
    never came: the two lines are a proof, and the waiter forfeits, in every order of arrival (the receipt may come
    before the move it names, or after the timeout set that move aside). Its times are its own word, so it cannot
    dodge by dating its claim no later than its receipt (``dodge``: ``flagged`` at the receipt's ``recv``, ``sent``
    moved back to keep the claim's wait): the receipt and the timeout are weighed by how long each waited from the
    turn's start."""
    seated = table(LIVE)
    for _ in range(5 if seated.mover() is seated.host else 6):  # the host waits: its clock reads over the claim's wait
        seated.play(800)
    mover = seated.mover()
    waiter, sent = waiter_of(seated)
    move = mover.move(playable(mover)[0], think_ms=800)
    waiter.receive(move.line)
    receipt = waiter.receipt(move.message.seq, sent + 800 + seated.delay, sent)
    assert receipt is not None
    if dodge:
        flagged = receipt.message.recv
        wait = remaining(seated) + GRACE_MS
        fake = encode(
            "timeout",
            [
                ("game", seated.watcher.game_id or ""),
                ("seq", str(move.message.seq)),
                ("prev", move.message.prev),
                ("sent", str(flagged - wait)),
                ("flagged", str(flagged)),
                ("now", str(flagged + 30_000)),
            ],
            identity_of(waiter),
        )
    else:
        fake = _made_up_timeout(seated, waiter, move.message)
    _forfeits_in_every_order(seated, mover, move.message, receipt.line, fake)
    with pytest.raises(LocalProtocolError, match="no flag claim of yours"):  # its own session signs no such thing
        waiter.timeout(10**9)
    assert check_equivocation_proof(receipt.line, fake) == identity_of(waiter).public


@pytest.mark.parametrize("had, clock", [("before", "one"), ("after", "one"), ("after", "restarted")])
def test_the_claimants_own_session_weighs_its_receipt_against_its_timeout_as_every_receiver(had, clock):
    """The claimant's session refuses to sign a timeout over a move its own receipt says it had before its claim
    (``before``: a take-back, which every receiver would hold against it), and signs one over a move that came after
    (a dispute), even when its clock restarted between its claim and its receipt (``restarted``: the receipt's
    readings are on a new origin, below the claim's, and only durations from the turn's start are compared)."""
    seated = table(LIVE)
    for _ in range(5):
        seated.play(800)
    waiter, sent = waiter_of(seated)
    wait = remaining(seated) + GRACE_MS
    flag = waiter.flag(sent, sent + wait)
    everyone(seated, flag.line)
    mover = seated.mover()
    late = mover.move(playable(mover)[0], think_ms=800)
    waiter.receive(late.line)
    origin = sent if clock == "one" else 7  # the turn's start on the clock the receipt is read on
    received = waiter.receipt(late.message.seq, origin + (820 if had == "before" else wait + 4000), origin)
    assert received is not None
    if had == "before":
        with pytest.raises(LocalProtocolError, match="refusing to send"):
            waiter.timeout(sent + wait + answer_window(seated.watcher.clock))
        return
    timeout = waiter.timeout(sent + wait + answer_window(seated.watcher.clock))
    everyone(seated, late.line, received.line, timeout.line)
    assert seated.watcher.proofs == () and result_of(seated.watcher).reason == ResultReason.DISPUTE


def test_a_confirmation_of_the_ending_that_set_a_timeout_aside_is_no_proof():
    """The claimant's timeout loses the race to the other's resignation for that place, and the claimant's client
    confirms the resignation: honest, no proof, the resignation stands (the rule catches a player that says the
    other's move came, and only that)."""
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    waiter, _flag, timeout = claim(seated)
    mover = seated.mover()
    resign = mover.resign()
    everyone(seated, timeout, resign.line)
    assert waiter.result is not None and waiter.result.reason == "resigned"
    confirm = waiter.confirm()
    assert confirm is not None
    everyone(seated, confirm.line)
    assert seated.watcher.proofs == () and seated.watcher.result == waiter.result
    assert check_equivocation_proof(confirm.line, timeout) is None


def test_a_cheat_that_withholds_the_winning_move_until_the_claim_gets_a_dispute_not_the_win():
    """The winning move, withheld until after the claim and sent saying it thought little: the claimant's session
    has not confirmed it and closes its window over it, a dispute; had the claimant confirmed the loss, it could not
    take it back (its own session refuses, and a hand-made timeout is a proof against it)."""
    seated, mover, move = _winning_move(sign=False)
    waiter, sent = waiter_of(seated)
    flagged = sent + remaining(seated) + GRACE_MS
    flag = waiter.flag(sent, flagged)
    everyone(seated, flag.line)
    late = mover.move(move.text(), think_ms=300)
    everyone(seated, late.line)
    assert seated.watcher.result is not None and seated.watcher.result.winner == seated.watcher.player_of(
        mover.identity.public
    )
    assert waiter.late_move == late.message
    timeout = waiter.timeout(flagged + answer_window(seated.watcher.clock))
    everyone(seated, timeout.line)
    result = seated.watcher.result
    assert result is not None and result.reason == ResultReason.DISPUTE and late.line in seated.watcher.record
    replayed, bad, problem = verify_transcript(seated.watcher.record)
    assert (bad, problem) == (None, None) and replayed.result == result

    seated, mover, move = _winning_move(sign=False)  # again, the claimant confirming the loss first
    waiter, sent = waiter_of(seated)
    flag = waiter.flag(sent, sent + remaining(seated) + GRACE_MS)
    everyone(seated, flag.line)
    everyone(seated, mover.move(move.text(), think_ms=300).line)
    assert waiter.confirm() is not None and waiter.late_move is None
    assert flag.message.now is not None
    with pytest.raises(LocalProtocolError):
        waiter.timeout(flag.message.now + answer_window(seated.watcher.clock))


def _forfeits_in_every_order(seated: Table, mover: GameSession, move, said: str, fake: str) -> None:
    """``move``, the other's ``said`` (a receipt, a confirmation) and its ``fake`` timeout, in every order: the other
    forfeits at the move's place, with the two lines as the proof, and the record verifies to that."""
    winner = seated.watcher.player_of(identity_of(mover).public)
    for order in itertools.permutations([move.line, said, fake]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        result = watcher.result
        assert result is not None and result.reason == ResultReason.EQUIVOCATION, order
        assert result.winner == winner and result.slot == move.seq
        assert [(proof.first, proof.second) for proof in watcher.proofs] == [(said, fake)]
        replayed, bad, problem = verify_transcript(watcher.record)
        assert (bad, problem) == (None, None) and replayed.result == result


def _winning_move(sign: bool = True):
    """A timed game played on until the player to move has a move that ends it: the table, that player, its move
    (signed, sent to nobody yet; with ``sign`` false, the move unsigned)."""
    seated = table("clock:300+5,rules:1")
    while True:
        mover = seated.mover()
        board = board_of(mover)
        ending = next((m for m in board.legal_moves() if _ends(board, m)), None)
        if ending is not None or len(seated.watcher.chain) > 400:
            break
        seated.play(300)
    if ending is None:
        pytest.skip("no game-ending move came up")
    return seated, mover, mover.move(ending.text(), think_ms=300) if sign else ending


def _made_up_flag(seated: Table, signer: GameSession, move) -> str:
    """A flag claim against the turn ``move`` answers, signed by ``signer`` with times it made up (those of
    :func:`_made_up_timeout`)."""
    began = next(line for line in reversed(seated.watcher.chain[: move.seq]) if line.type in ("move", "reveal"))
    return encode(
        "flag",
        [
            ("game", seated.watcher.game_id or ""),
            ("seq", str(began.seq)),
            ("prev", began.hash),
            ("sent", "0"),
            ("now", str(10**9)),
        ],
        identity_of(signer),
    )


def _made_up_timeout(seated: Table, signer: GameSession, move) -> str:
    """A timeout for ``move``'s place, signed by ``signer`` with times it made up (no client of ours signs it)."""
    return encode(
        "timeout",
        [
            ("game", seated.watcher.game_id or ""),
            ("seq", str(move.seq)),
            ("prev", move.prev),
            ("sent", "0"),
            ("flagged", str(10**9)),
            ("now", str(2 * 10**9)),
        ],
        identity_of(signer),
    )


def _ends(board, move) -> bool:
    after = board.copy()
    after.push(move)
    return after.outcome() is not None


def test_a_receipt_signed_twice_counts_for_nothing():
    """After a time win, the loser signs a second receipt of one of the winner's moves, 60 s late, over and over
    until its hash is the lower one: neither receipt is its word, and the win stands."""
    seated = table(LIVE)
    for _ in range(5):
        seated.play(800)
    _, _flag, timeout = claim(seated)
    everyone(seated, timeout)
    result = seated.watcher.result
    assert result is not None and result.reason == ResultReason.TIME
    winner = result.winner_key
    loser = seated.host if winner == GUEST.public else seated.guest
    theirs = [
        line for line in seated.watcher.transcript if " receipt " in line and identity_of(loser).public.text in line
    ]
    original = next(
        line
        for line in theirs
        if " sent=" in line and seated.watcher.chain[int(line.split("seq=")[1].split()[0])].signer == winner
    )
    fields = dict(part.split("=", 1) for part in original.split()[2:] if "=" in part)
    for bump in itertools.count(60_000):
        again = encode(
            "receipt",
            [
                ("game", fields["game"]),
                ("seq", fields["seq"]),
                ("prev", fields["prev"]),
                ("recv", str(int(fields["recv"]) + bump)),
                ("sent", fields["sent"]),
                *([("ack", fields["ack"])] if "ack" in fields else []),
            ],
            identity_of(loser),
        )
        if line_hash(again) < line_hash(original):
            break
    events = seated.watcher.receive(again)
    assert seated.watcher.proofs and seated.watcher.result == result, events


def receipted_twice_then_disputed() -> tuple[Table, Outgoing, list[str], str]:
    """The claimant receipts the move that came after its claim twice (a proof, never deciding), then closes the claim
    over it (a time dispute): the table (the watcher has the lines up to the claim), the late move, the two receipts
    and the timeout."""
    seated = table(LIVE)
    for _ in range(5):
        seated.play(800)
    waiter, sent = waiter_of(seated)
    flagged = sent + remaining(seated) + GRACE_MS
    flag = waiter.flag(sent, flagged)
    everyone(seated, flag.line)
    mover = seated.mover()
    late = mover.move(playable(mover)[0], think_ms=300)
    waiter.receive(late.line)
    receipts = [
        encode(
            "receipt",
            [
                ("game", seated.watcher.game_id or ""),
                ("seq", str(late.message.seq)),
                ("prev", late.message.hash),
                ("recv", str(flagged + extra)),
                ("sent", str(sent)),
            ],
            identity_of(waiter),
        )
        for extra in (4000, 5000)
    ]
    waiter.receive_all(receipts)
    return seated, late, receipts, waiter.timeout(flagged + answer_window(seated.watcher.clock)).line


def test_two_receipts_of_a_move_a_timeout_set_aside_are_one_proof_in_every_order_and_the_record_verifies():
    """The record of a time dispute lists the claimant's two receipts of the late move (a proof, reported) and the
    set-aside move. Every order of arrival holds the same proof, whether or not the move is on the chain when the
    receipts come, and the record verifies (it reported a gap when only a receiver that had the move on its chain made
    the proof)."""
    seated, late, receipts, timeout = receipted_twice_then_disputed()
    outcomes = set()
    for order in itertools.permutations([late.line, *receipts, timeout]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        assert watcher.result is not None and watcher.result.reason == ResultReason.DISPUTE, order
        assert [proof.slot for proof in watcher.proofs] == [f"receipt-{late.message.seq}"], order
        replayed, bad, problem = verify_transcript(watcher.record)
        assert (bad, problem) == (None, None) and replayed.result == watcher.result, order
        outcomes.add((watcher.result, frozenset(watcher.record)))
    assert len(outcomes) == 1


def test_two_flag_claims_of_a_turn_a_resignation_set_aside_are_a_proof_in_every_order():
    """The other player resigns for the place of the move that began the turn the waiter claims twice (a resignation
    outranks a move): the two claims name a line set aside, and are the same proof whichever came first."""
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    mover = seated.mover()
    waiter = seated.other(mover)
    resign = waiter.resign().line  # the waiter's resignation, sent while the mover plays: it stands over the move
    move = mover.move(playable(mover)[0], think_ms=800)
    claimant, sent = mover, seated.clock(seated.name(mover))
    flags = [
        encode(
            "flag",
            [
                ("game", seated.watcher.game_id or ""),
                ("seq", str(move.message.seq)),
                ("prev", move.message.hash),
                ("sent", str(sent)),
                ("now", str(sent + 10**6 + extra)),
            ],
            identity_of(claimant),
        )  # long past its clock
        for extra in (0, 5)
    ]
    outcomes = set()
    for order in itertools.permutations([move.line, resign, *flags]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        assert watcher.result is not None and watcher.result.reason == "resigned", order
        assert [proof.slot for proof in watcher.proofs] == [f"flag-{move.message.seq}"], order
        replayed, bad, problem = verify_transcript(watcher.record)
        assert (bad, problem) == (None, None) and replayed.result == watcher.result, order
        outcomes.add(frozenset(watcher.record))
    assert len(outcomes) == 1


def test_of_two_receipts_of_one_move_the_same_counts_in_every_order_once_the_signers_proofs_are_full():
    """A player with proofs enough already (four pairs of chat lines) signs a second receipt of a move: which of the
    two counts (the lower hash) does not depend on which came first, though no receiver keeps the new proof."""
    seated = table(LIVE)
    for _ in range(6):
        seated.play(800)
    signer = seated.other(seated.mover())
    key = identity_of(signer).public.text
    original = next(
        line for line in seated.watcher.transcript if " receipt " in line and " sent=" in line and f"by={key}" in line
    )
    fields = [tuple(part.split("=", 1)) for part in original.split()[2:-2]]
    second = encode(
        "receipt",
        [(name, str(int(value) + 1) if name == "recv" else value) for name, value in fields],
        identity_of(signer),
    )
    chats = [
        encode(
            "chat",
            [("game", seated.watcher.game_id or ""), ("seq", str(n)), ("prev", line_hash(original)), ("text", text)],
            identity_of(signer),
        )
        for n in range(1, 5)
        for text in ("a", "b")
    ]
    before = [line for line in seated.watcher.transcript if line != original]
    kept = set()
    for order in ([original, second], [second, original]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*before, *chats, *order])
        assert len(watcher.proofs) == 4
        kept.add(tuple(line for line in watcher.transcript if line in (original, second)))
    assert kept == {(min(original, second, key=line_hash),)}


def test_a_move_after_a_proposal_in_a_timed_out_turn_gives_one_result_in_every_order():
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    mover = seated.mover()
    _waiter, _flag, timeout = claim(seated)
    proposal = mover.propose()
    move = mover.move(playable(mover)[0], think_ms=2000)
    results = set()
    for order in itertools.permutations([proposal.line, move.line, timeout]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        results.add((watcher.result, watcher.record))
    assert len(results) == 1


def test_a_flag_claim_of_a_turn_a_forfeit_cut_is_kept_in_every_order():
    """The player to move signs two moves for one place (it forfeits there); the other's claim against that turn is
    on the record whichever came first."""
    seated = table(LIVE)
    for _ in range(4):
        seated.play(800)
    mover = seated.mover()
    waiter, sent = waiter_of(seated)
    flag = waiter.flag(sent, sent + remaining(seated) + GRACE_MS).line
    twin = GameSession.restore(mover.transcript, mover.identity)
    moves = [
        session.move(text, think_ms=500).line
        for session, text in zip(
            (mover, twin), [move.text() for move in board_of(mover).legal_moves()[:2]], strict=True
        )
    ]
    records = set()
    for order in itertools.permutations([flag, *moves]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        assert watcher.result is not None and watcher.result.reason == "equivocation"
        records.add(frozenset(watcher.record))  # (a proof's two lines are listed in the order they came)
    assert len(records) == 1


def test_which_word_of_the_loser_counts_against_its_timeout_does_not_depend_on_the_order_of_arrival():
    """The loser's confirmation of the winning move, a receipt of that move it made by hand (saying it had it long
    after any claim: no contradiction of its own) and its made-up timeout, in every order: the confirmation is
    weighed whatever came first, so every receiver, and the record offline, reach the same forfeit."""
    seated, mover, move = _winning_move()
    loser = seated.other(mover)
    loser.receive(move.line)
    confirm = loser.confirm()
    assert confirm is not None
    harmless = encode(
        "receipt",
        [
            ("game", seated.watcher.game_id or ""),
            ("seq", str(move.message.seq)),
            ("prev", move.message.hash),
            ("recv", str(3 * 10**9)),
        ],
        loser.identity,
    )
    fake = _made_up_timeout(seated, loser, move.message)
    results = set()
    for order in itertools.permutations([move.line, harmless, confirm.line, fake]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all([*seated.watcher.transcript, *order])
        replayed, _, _ = verify_transcript(watcher.record)
        results.add((result_of(watcher).code(), result_of(replayed).code()))
    assert results == {(f"{seated.watcher.player_of(mover.identity.public)}-equivocation",) * 2}


def _pairs() -> dict[str, tuple[list[str], list[str], tuple[str, str], object]]:
    """Pairs of one key's lines, and whom they prove equivocated (``None``: nobody): for each, the lines before them
    (a game's record), lines that come with them in any order, the pair, the key."""
    seated = table(LIVE)
    for _ in range(5):
        seated.play(800)
    mover = seated.mover()
    waiter, sent = waiter_of(seated)
    move = mover.move(playable(mover)[0], think_ms=800)
    prefix, game = list(seated.watcher.transcript), seated.watcher.game_id or ""
    named = [("game", game), ("seq", str(move.message.seq)), ("prev", move.message.hash)]
    fake = _made_up_timeout(seated, waiter, move.message)

    def receipt(*times: tuple[str, int], seq: int | None = None) -> str:
        fields = [*named, *((name, str(value)) for name, value in times)]
        if seq is not None:
            fields[1] = ("seq", str(seq))
        return encode("receipt", fields, identity_of(waiter))

    won, winner, winning = _winning_move()
    loser = won.other(winner)
    loser.receive(winning.line)
    confirm = loser.confirm()
    assert confirm is not None
    result = confirm.message.result
    beyond = encode(
        "confirm",
        [
            ("game", won.watcher.game_id or ""),
            ("seq", str(MAX_CONFIRMS + 1)),
            ("prev", winning.message.hash),
            ("final", str(winning.message.seq)),
            ("result", result),
        ],
        loser.identity,
    )
    won_fake = _made_up_timeout(won, loser, winning.message)

    host, guest = start("olix")  # untimed
    play_moves(host, guest, 4, 4)
    untimed_mover, untimed_waiter = (host, guest) if host.actor == HOST.public else (guest, host)
    untimed_move = untimed_mover.move(playable(untimed_mover)[0])
    untimed_named = [
        ("game", host.game_id or ""),
        ("seq", str(untimed_move.message.seq)),
        ("prev", untimed_move.message.hash),
    ]
    untimed_receipt = encode(
        "receipt", [*untimed_named, ("recv", "5000"), ("sent", "4000")], identity_of(untimed_waiter)
    )
    untimed_fake = encode(
        "timeout",
        [*untimed_named, ("sent", "0"), ("flagged", str(10**9)), ("now", str(2 * 10**9))],
        identity_of(untimed_waiter),
    )

    chats = [
        encode(
            "chat",
            [("game", game), ("seq", str(MAX_CHAT_LINES + 1)), ("prev", move.message.hash), ("text", text)],
            identity_of(waiter),
        )
        for text in ("one", "two")
    ]
    offer = seated.watcher.chain[0]
    guest_move = next(line for line in seated.watcher.chain if line.type == "move" and line.signer == GUEST.public)
    joins = [
        encode(
            "join",
            [("game", game), ("seq", str(seq)), ("prev", prev), ("terms", offer.terms), ("commit", offer.hash)],
            GUEST,
        )
        for seq, prev in ((1, move.message.hash), (guest_move.seq, offer.hash))
    ]
    waiter_key = identity_of(waiter).public
    return {
        "a receipt before the claim, and the timeout": (
            prefix,
            [move.line],
            (receipt(("recv", sent + 820), ("sent", sent)), fake),
            waiter_key,
        ),
        "a receipt after the claim, and the timeout over it": (
            prefix,
            [move.line],
            (receipt(("recv", sent + 2 * 10**9), ("sent", sent)), fake),
            None,
        ),
        "a receipt whose sent is after its recv": (
            prefix,
            [move.line],
            (receipt(("recv", sent), ("sent", sent + 1)), fake),
            None,
        ),
        "a receipt whose sent is after its ack": (
            prefix,
            [move.line],
            (receipt(("recv", sent + 820), ("sent", sent), ("ack", sent - 1)), fake),
            None,
        ),
        "a receipt without sent (the host's of the guest's first move)": (
            prefix,
            [move.line],
            (receipt(("recv", 5)), fake),
            None,
        ),
        "two receipts naming a line beyond any game": (
            prefix,
            [],
            (receipt(("recv", 5), seq=MAX_CHAIN), receipt(("recv", 6), seq=MAX_CHAIN)),
            None,
        ),
        "a confirmation of the loss, and the timeout": (
            won.watcher.transcript,
            [winning.line],
            (confirm.line, won_fake),
            loser.identity.public,
        ),
        "a confirmation numbered beyond 32, and the timeout": (
            won.watcher.transcript,
            [winning.line],
            (beyond, won_fake),
            None,
        ),
        "an untimed game's receipt, and the timeout": (
            list(host.transcript),
            [untimed_move.line],
            (untimed_receipt, untimed_fake),
            identity_of(untimed_waiter).public,
        ),
        "two chat lines numbered beyond 256": (prefix, [], (chats[0], chats[1]), None),
        "a join naming another line than the offer, and the join": (
            prefix,
            [],
            (joins[0], seated.watcher.chain[1].line),
            None,
        ),
        "a join numbered as a move, and that move": (prefix, [], (joins[1], guest_move.line), None),
    }


def test_a_pair_proves_offline_exactly_what_every_receiver_acts_on():
    """``check_equivocation_proof`` names a key exactly when every receiver, given the pair with the lines around it
    in any order, holds those two lines as that key's proof: a line every receiver refuses by itself (beyond its
    limits; a receipt whose times are out of order) proves nothing; a receipt without ``sent`` contradicts no claim;
    an untimed game's receipt, refused, is its signer's word all the same (a proof of two lines cannot tell the
    game's terms)."""
    for name, (prefix, around, pair, key) in _pairs().items():
        assert check_equivocation_proof(*pair) == key and check_equivocation_proof(*pair[::-1]) == key, name
        for order in itertools.permutations([*around, *pair]):
            watcher = GameSession()
            watcher.receive_all([*prefix, *order])
            proofs = [(proof.key, {proof.first, proof.second}) for proof in watcher.proofs]
            assert proofs == ([(key, set(pair))] if key is not None else []), (name, order)


@pytest.mark.parametrize("answer", ["never", "late"])
def test_a_player_who_hides_its_thinking_is_claimed_against_by_the_clock_its_opponent_watched(answer):
    """A 1+0 game: one player takes 50 s a move while signing 0.1 s, so that the record's clock never runs down. Its
    opponent's receipts show the 48.8 s each move leaves unexplained, and its claim on the clock it watched (the
    record's less that) is taken, 12 s into the next such turn, though the record says 59 s are left: unanswered, a
    win on time; answered late, a time dispute. Never the hider's win. Every receiver agrees, whatever came first
    (a claim that comes before the receipts that show it is judged again when they come), and so does verify."""
    seated = table("clock:60+0,rules:1")
    seated.play(800)  # the honest one moves (the player seated first)
    hider = seated.mover()
    seated.play(50_000, 100)  # the hider: 50 s, signed 0.1 s
    seated.play(800)
    assert seated.mover() is hider and remaining(seated) > 59_000
    waiter, sent = waiter_of(seated)
    flagged = sent + 12_000
    flag = waiter.flag(sent, flagged)
    everyone(seated, flag.line)
    timeout = waiter.timeout(flagged + answer_window(seated.watcher.clock)).line
    lines = [timeout]
    if answer == "late":
        late = hider.move(playable(hider)[0], think_ms=100).line
        lines = [late, timeout]
    chain_only = [line for line in seated.watcher.transcript if " receipt " not in line]
    receipts = [line for line in seated.watcher.transcript if " receipt " in line]
    results = set()
    for order in ([*seated.watcher.transcript, *lines], [*chain_only, flag.line, *lines, *receipts]):
        watcher = GameSession(seated.watcher.game_id)
        watcher.receive_all(order)
        results.add(watcher.result)
        replayed, bad, problem = verify_transcript(watcher.record)
        assert bad is None and replayed.result == watcher.result, problem
    result = results.pop()
    assert not results and result is not None
    if answer == "never":
        assert result.reason == ResultReason.TIME and result.winner_key == identity_of(waiter).public
    else:
        assert result.reason == ResultReason.DISPUTE
