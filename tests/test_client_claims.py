"""The client's claims on time, on an injected clock: the ``claim`` command waits for the other's clock to
run out by this client's watch, then signs the flag claim, then the timeout once the window has passed; a player out
of time concedes when claimed against; ``--claim auto`` does it all as time passes (:meth:`GameCore.tick`)."""

from __future__ import annotations

import asyncio
import io
import re
from typing import cast

import pytest
from protocol_helpers import GUEST, HOST, board_of, clocks_of, playable, result_of
from test_client_clock import Clock, movers, play, timed_game
from test_client_core import Relay, hosted, my_key, my_player

from client.cores.intents import Intent, IntentRefused
from client.cores.network_game import ClaimReady, GameCore, Publish, Step, UiEvent, duration_text
from client.cores.turn_clock import TurnSeen
from client.frontends.console import clocks_text as console_clocks
from client.frontends.console import prompt_text
from client.frontends.plain import plain_front
from client.shell.runner import GameRunner
from client.words.commands import parse
from client.words.network import claim_brief, claim_text, clocks_now_text, describe, my_turn_text, who
from protocol import GameSession, LineApplied, Superseded, verify_transcript
from protocol.clock import GRACE_MS
from protocol.domain import ResultReason


def untimed_game() -> tuple[Relay, Clock, GameCore, GameCore]:
    """An untimed Olix game on one injected clock, its first move played: the relay, the clock, its first player and
    the second (to move)."""
    relay, host, guest, _, _ = hosted("olix")
    clock = Clock()
    for core in (host, guest):
        core.clock = clock
        core.turn_clock.turn = TurnSeen(core.session.moves, clock.now)
    first, second = movers(host, guest)
    play(relay, first)
    return relay, clock, first, second


def claim(relay: Relay, core: GameCore) -> None:
    relay.publish(core.act(Intent("claim")), core)


def claimed_while_away() -> tuple[Relay, Clock, GameCore, GameCore, GameCore]:
    """A 1+0 game whose second player left after the first move; 61.5 s later the first claims: the relay, the
    clock, the claimant, the player claimed against (not on the relay) and a watcher."""
    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    relay.cores.remove(second)
    clock.now += 61.5
    claim(relay, first)
    return relay, clock, first, second, watcher


def test_the_claim_command_waits_for_the_clock_then_flags_then_ends_the_game_on_time():
    relay, clock, host, guest, watcher = timed_game("1+2")
    first, second = movers(host, guest)
    clock.now += 2.0
    play(relay, first)
    relay.cores.remove(second)  # the second walks away: nothing of its answers
    clock.now += 30.0
    with pytest.raises(IntentRefused, match=r"clock has not run out by your watch: you may claim in 31 s"):
        first.act(Intent("claim"))
    clock.now += 31.5
    claim(relay, first)
    assert watcher.session.flag_of(my_key(first)) is not None and not watcher.session.over
    clock.now += 10.0
    with pytest.raises(IntentRefused, match=r"your claim is open: .* has 20 s to answer it"):
        first.act(Intent("claim"))
    clock.now += 20.0
    claim(relay, first)
    relay.attach(second)  # back: it reads how its game ended
    for core in (host, guest, watcher):
        result = core.session.result
        assert result is not None and result.reason == ResultReason.TIME and result.winner == first.my_player
    session, bad, _ = verify_transcript(watcher.session.record)
    assert bad is None and session.result == watcher.session.result


def test_a_player_out_of_time_concedes_when_claimed_against():
    relay, clock, host, guest, watcher = timed_game("1+2")
    first, second = movers(host, guest)
    play(relay, first)
    clock.now += 62.0
    with pytest.raises(IntentRefused, match="time ran out"):
        play(relay, second)  # refused before anything is signed
    claim(relay, first)
    result = watcher.session.result
    assert result is not None and result.reason == ResultReason.TIME and result.detail == f"{second.my_player} conceded"


def test_a_player_in_time_answers_with_a_move_and_a_late_clock_concedes_by_itself():
    """A claim that came early by the mover's watch (the network ate its time) is answered by a move in time; a
    claim met while still thinking is conceded by the runner's tick as soon as the mover's own clock is out."""
    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    second.clock = Clock()  # the mover saw its turn 1.5 s later than the claimant: its clock is behind
    second.clock.now = clock.now - 1.5
    second.turn_clock.turn = TurnSeen(second.session.moves, second.clock.now + 1.5)
    clock.now += 61.2
    second.clock.now += 61.2
    claim(relay, first)
    assert second.flag_against_me() is not None and not watcher.session.over
    assert second.tick().publish == ()  # 0.3 s left by its own watch: no concession yet
    second.clock.now += 0.4
    relay.publish(second.tick(), second)
    result = watcher.session.result
    assert result is not None and result.detail == f"{second.my_player} conceded"


def test_a_move_in_time_answers_the_claim():
    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    second.clock = Clock()
    second.clock.now = clock.now
    # it saw its turn 2.5 s late: the network was slow
    second.turn_clock.turn = TurnSeen(second.session.moves, clock.now + 2.5)
    clock.now += 61.5
    second.clock.now += 61.5
    claim(relay, first)
    assert second.flag_against_me() is not None
    play(relay, second)  # 1 s left by its watch
    assert not watcher.session.over and first.my_flag() is None
    with pytest.raises(IntentRefused, match="it is your turn"):
        first.act(Intent("claim"))


def test_claim_auto_flags_and_ends_the_game_as_time_passes():
    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    first.auto_claim = True
    play(relay, first)
    relay.cores.remove(second)  # the opponent's client is gone: nothing answers
    clock.now += 30.0
    assert first.tick().publish == ()
    clock.now += 31.1
    relay.publish(first.tick(), first)
    assert first.my_flag() is not None
    clock.now += 29.0
    assert first.tick().publish == ()
    clock.now += 1.5
    relay.publish(first.tick(), first)
    assert watcher.session.result is not None and watcher.session.result.reason == ResultReason.TIME


def slow_exchange(relay: Relay, clock: Clock, mover: GameCore, away: GameCore, out: float, back: float) -> None:
    """``mover`` plays after a second's thought; its lines reach ``away`` (a player off the test relay) ``out`` s later,
    and the receipt ``away`` signs at once comes back ``back`` s after that: a round trip of ``out + back``."""
    clock.now += 1.0
    step = mover.act(Intent("move", playable(mover)[0]))
    relay.publish(step, mover)
    clock.now += out
    answers: list[Publish] = []
    for item in step.publish:
        fed = away.feed(item.line)
        relay.record(away, fed)
        answers.extend(fed.publish)
    clock.now += back
    relay.publish(Step(tuple(answers)))


def test_a_claim_waits_the_95th_percentile_of_the_round_trips_beyond_the_clock_and_the_grace():
    """The claimant's lines took 0.3 s, 0.8 s and 0.5 s to come back receipted (the 95th percentile of three is the
    largest): its claim waits the other's clock, the second's grace and 0.8 s, to the millisecond, where the protocol
    alone would take it 0.8 s sooner."""
    relay, clock, host, guest, watcher = timed_game("1+0", "olix")
    claimant, other = movers(host, guest)
    relay.cores.remove(other)  # off the relay: its lines are carried by hand, slowly
    for out, back in ((0.1, 0.2), (0.5, 0.3), (0.25, 0.25)):
        slow_exchange(relay, clock, claimant, other, out, back)
        clock.now += 1.0
        relay.publish(other.act(Intent("move", playable(other)[0])), other)
    name = other.my_player or ""
    trips = [answer.round_trip for answer in watcher.session.answers() if answer.player == name]
    assert trips == [300, 800, 500]  # every receiver reads them from the claimant's receipts
    assert claimant.round_trip_ms() == 800
    slow_exchange(relay, clock, claimant, other, 0.0, 0.0)  # its last move: then the other goes quiet
    began = claimant.turn_seen
    assert began is not None
    remaining = clocks_of(claimant.session)[name]
    clock.now = began[1] + (remaining + GRACE_MS + 800 - 1) / 1000
    assert claimant.claim_in_ms() == 1 and claimant.claim_ready() is None
    with pytest.raises(IntentRefused, match="you may claim in 1 s"):
        claimant.act(Intent("claim"))
    clock.now += 0.001
    assert claimant.claim_in_ms() == 0 and claimant.claim_ready() == ClaimReady("flag", name)
    claim(relay, claimant)
    flag = watcher.session.flag_of(my_key(claimant))
    assert flag is not None and flag.now is not None and flag.sent is not None
    assert flag.now - flag.sent == remaining + GRACE_MS + 800


@pytest.mark.parametrize(
    "control, window",
    [pytest.param("15+0", 45.0, id="live-5%-of-the-base"), pytest.param("days:3", 86_400.0, id="correspondence-a-day")],
)
def test_a_claim_is_answered_within_its_window_then_claim_wins_on_time(control, window):
    """The answer window of a live game with a base over 10 minutes is 5% of it (15+0: 45 s, not the least 30 s), a
    correspondence game's a day: ``claim`` is refused a second before it has passed, and wins on time once it has,
    for every receiver and offline."""
    relay, clock, host, guest, watcher = timed_game(control)
    first, second = movers(host, guest)
    play(relay, first)
    relay.cores.remove(second)  # gone: nothing answers
    clocks = first.session.clocks
    assert clocks is not None
    clock.now += (clocks[second.my_player or ""] + GRACE_MS) / 1000
    claim(relay, first)
    assert watcher.session.flag_of(my_key(first)) is not None
    assert claim_brief(first) == f"{second.my_player} has {duration_text(round(window * 1000))} to answer"
    clock.now += window - 1.0
    with pytest.raises(IntentRefused, match=r"has 1 s to answer it"):
        first.act(Intent("claim"))
    assert not watcher.session.over
    clock.now += 1.0
    claim(relay, first)
    for core in (first, watcher):
        result = core.session.result
        assert result is not None and result.reason == ResultReason.TIME and result.winner == first.my_player
    session, bad, _ = verify_transcript(watcher.session.record)
    assert bad is None and session.result == watcher.session.result


def test_claims_are_never_signed_for_a_player_who_did_not_set_them_up():
    relay, clock, host, guest, _ = timed_game("1+0")
    first, _ = movers(host, guest)
    play(relay, first)
    clock.now += 3600.0
    assert first.tick().publish == () and first.my_flag() is None


def test_an_untimed_game_may_be_claimed_after_seven_days_of_silence():
    relay, clock, first, second = untimed_game()
    clock.now += 6 * 86400.0
    with pytest.raises(IntentRefused, match=r"silence has not lasted 7 days by your watch: you may claim in 24 h"):
        first.act(Intent("claim"))
    clock.now += 86400.0 + 1.0
    claim(relay, first)
    with pytest.raises(IntentRefused, match="has 24 h to answer it"):
        first.act(Intent("claim"))
    clock.now += 86400.0
    claim(relay, first)
    result = second.session.result
    assert result is not None and result.reason == ResultReason.ABANDONED and result.winner == first.my_player


def test_claim_is_a_command_of_the_players():
    _relay, _clock, host, _guest, watcher = timed_game("1+0")
    assert parse("claim", host).intent == Intent("claim")
    with pytest.raises(IntentRefused, match="watching"):
        watcher.act(Intent("claim"))


def test_a_player_back_after_a_disconnect_sees_the_claim_open_against_it():
    """Its client resumed from the record, its turn begun 40 s ago by its journal (it saw it late): the claim and the
    time left to answer it (its own clock's 20 s, less than the window), in words, the same as the line that told of
    the claim; back with its own clock out too, that its client concedes."""
    _relay, clock, first, second, watcher = claimed_while_away()
    back = GameCore(GameSession.restore(watcher.session.record, second.session.identity), clock=clock)
    back.resume_turn(back.session.moves, 40.0)
    assert claim_text(back) == f"{first.my_player} claims your time ran out: move within 20 s or lose on time"
    flag = first.my_flag()
    assert flag is not None
    assert describe(back, LineApplied(flag)) == f"claim: {claim_text(back)}"
    assert claim_text(first) == f"your claim is open: {second.my_player} has 30 s to answer it"
    assert claim_text(watcher) == f"{first.my_player} claims {second.my_player}'s time ran out: 30 s left to answer"
    late = GameCore(GameSession.restore(watcher.session.record, second.session.identity), clock=clock)
    late.resume_turn(late.session.moves, 61.5 + 10.0)  # its own watch: its clock ran out 11.5 s ago
    assert claim_text(late) == (
        f"{first.my_player} claims your time ran out, and your clock shows none left: your client concedes the game"
    )


def test_a_watcher_arriving_after_the_claim_shows_its_window_as_at_most_the_whole_window():
    """A watcher arriving 20 s after the claim cannot know when the window began: it shows at most the whole window,
    marked, never 50 s and more left to answer (its turn seen begin only on arrival) where every other client shows
    10 s."""
    from test_client_clock import late_watcher

    relay, clock, first, second, watcher = claimed_while_away()
    clock.now += 20.0
    late = late_watcher(relay, first)
    flag = first.my_flag()
    assert flag is not None and late.window_left_ms(flag) == 30_000 and watcher.window_left_ms(flag) == 10_000
    name, theirs = first.my_player, second.my_player
    assert claim_text(watcher) == f"{name} claims {theirs}'s time ran out: 10 s left to answer"
    assert claim_text(late) == f"{name} claims {theirs}'s time ran out: \u226430 s left to answer"
    assert claim_brief(late) == "\u226430 s left to answer"


def test_a_player_claimed_against_is_told_the_lesser_of_the_window_and_its_own_clock():
    """It saw its turn begin 50 s late (the network): 10 s on its clock where the claim's window has 30; it is told
    10 s, in the sentence and in the toolbar's few words; once its clock is out, that its client concedes, which the
    runner's tick then does, and says so once."""
    relay, clock, first, second, watcher = claimed_while_away()
    second.turn_clock.turn = TurnSeen(second.session.moves, clock.now - 50.0)
    relay.attach(second)  # it reads the claim
    name = first.my_player
    assert claim_text(second) == f"{name} claims your time ran out: move within 10 s or lose on time"
    assert claim_brief(second) == "move within 10 s"
    assert (
        claim_brief(first) == f"{second.my_player} has 30 s to answer" and claim_brief(watcher) == "30 s left to answer"
    )
    clock.now += 10.0
    assert (
        claim_text(second)
        == f"{name} claims your time ran out, and your clock shows none left: your client concedes the game"
    )
    assert (
        my_turn_text(second)
        == f"your time ran out: you can no longer move, and your client concedes the game to {name}'s claim"
    )
    step = second.tick()
    relay.publish(step, second)
    said = [text for text in (describe(second, event) for event in step.events) if text is not None]
    conceded = f"claim: your time ran out with {name}'s claim open: your client conceded the game on time"
    assert said[:2] == [conceded, f"result: {name} wins on time: {second.my_player} conceded ({name}-time)"], said
    assert said.count(conceded) == 1 and not any(
        conceded in (describe(core, event) or "") for core in (first, watcher) for event in relay.events[id(core)]
    )
    assert watcher.session.result is not None and watcher.session.result.reason == ResultReason.TIME


def test_the_clock_of_a_player_who_lost_on_time_reads_zero_on_the_screens_in_verify_and_in_resume():
    """The record's clock of the player to move stops at its turn's start (1:00 here), which a loss on time shows
    wrongly: every front end, ``verify`` and ``resume`` say 0:00."""
    from types import SimpleNamespace

    from client.flows.verify import summary
    from client.frontends.network_screen import NetworkTable

    relay, clock, first, second, watcher = claimed_while_away()
    clock.now += 30.0
    claim(relay, first)  # unanswered for the window: a win on time
    loser, winner = second.my_player, first.my_player
    assert watcher.session.result is not None and watcher.session.result.reason == ResultReason.TIME
    relay.attach(second)  # back: it reads how its game ended
    for core in (first, second, watcher):
        clocks = console_clocks(core)
        assert f"{loser} 0:00.0!" in clocks and f"{winner} 0:59" in clocks and "*" not in clocks, clocks
        table = NetworkTable(SimpleNamespace(core=core, link=SimpleNamespace(connected=True)))  # type: ignore[arg-type]
        assert re.search(rf"\| {loser} \S+( \(you\))? 0:00.0!", " | ".join(table.status(lambda player: 0.0)))
    session, bad, _ = verify_transcript(watcher.session.record)
    assert bad is None and f"{loser} 0:00 left" in summary(session) and f"{winner} 0:59 left" in summary(session)
    for core in (first, second):  # resume: "Taking up ... (1 move so far; clock 1+0: ...)"
        back = GameCore(GameSession.restore(watcher.session.record, core.session.identity), clock=clock)
        back.resume_turn(back.session.moves, 100.0)
        assert f"{loser} 0:00 left" in (clocks_now_text(back) or ""), clocks_now_text(back)


async def test_the_list_of_unfinished_games_shows_the_claims_open_in_each(tmp_path):
    from client.flows import network
    from client.shell.journal import Journal, JournalMeta

    _relay, _clock, first, second, watcher = claimed_while_away()
    for core in (first, second):
        role = "host" if core.me == core.host else "guest"
        assert core.me is not None
        journal = Journal.create(
            JournalMeta(core.game_id, "oxono", role, core.me.text, "mqtt://127.0.0.1:1"), tmp_path / role
        )
        for line in watcher.session.transcript:  # the claimed-against player's too: as if it had come back
            journal.append(line)
        journal.close()
    shown = {}
    for core in (first, second):
        lines: list[str] = []
        role = "host" if core.me == core.host else "guest"
        assert await network.resume(None, network.Options(journal_dir=tmp_path / role, write=lines.append)) == 0
        shown[core.my_player] = lines
    claimant, claimed = first.my_player, second.my_player
    role = "host" if first.me == first.host else "guest"
    listed = (
        f"{first.game_id}  oxono  {role}  1 move  mqtt://127.0.0.1:1\n"
        f"    a claim on time is open: your claim that {claimed}'s time ran out is open"
    )
    assert shown[claimant][1:] == [listed]
    assert shown[claimed][1].endswith(f"\n    a claim on time is open: {claimant} claims your time ran out")


def test_the_screens_say_that_a_players_time_ran_out_not_your_move():
    from types import SimpleNamespace

    from client.frontends.network_screen import NetworkTable

    relay, clock, host, guest, _watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    table = NetworkTable(SimpleNamespace(core=second, link=SimpleNamespace(connected=True)))  # type: ignore[arg-type]
    me, versus = my_player(second), f" vs {my_key(first).fingerprint}"
    assert (table.status(lambda player: 0.0)[0], table.prompt(), table.alert()) == ("your move", "your move> ", [])
    assert prompt_text(second) == f"{me} (you) to move{versus}> "
    clock.now += 60.0
    out = (
        f"your time ran out: you can no longer move, and your client concedes the game when {first.my_player} claims it"
    )
    assert (table.status(lambda player: 0.0)[0], table.prompt(), table.alert()) == (
        "your time ran out",
        "time ran out> ",
        [out],
    )
    assert prompt_text(second) == f"{me} (you): your time ran out{versus}> "
    assert my_turn_text(second) == out and my_turn_text(first) is None


def test_a_guest_whose_host_never_seats_it_is_told_that_nothing_binds_it():
    relay = Relay()
    host, offer = GameCore.hosting("oxono", HOST)
    host.auto_accept = False
    relay.attach(host)
    relay.publish(offer, host)
    guest = GameCore(GameSession(host.game_id, GUEST))
    relay.attach(guest)
    relay.publish(guest.join(), guest)
    with pytest.raises(IntentRefused, match="nothing binds you to this game"):
        guest.act(Intent("claim"))


def test_a_claim_with_made_up_times_meets_the_move_of_a_player_in_time_a_dispute_never_a_win():
    """The claimant signs a flag and its timeout at once, two seconds into its opponent's minute, with times it made
    up (its clock is its own word). The player to move, present and in time by its own watch, is told so, holds its
    confirmation, and answers with a move: set aside by the timeout, it is on the record, and the ending is a time
    dispute for every reader."""
    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    clock.now += 2.0
    flag = first.session.flag(0, 62_000)
    timeout = first.session.timeout(92_000)
    for line in (flag.line, timeout.line):
        relay.retained[line] = line
        for core in (second, watcher):
            relay.deliver(core, line)
    assert second.session.over and second.answering and second.answer_left_ms() == 58_000
    assert second.session.confirmation(my_key(second)) is None  # not confirmed: it may answer
    assert "move now, and the record shows a time dispute" in (claim_text(second) or "")
    mover = second.my_player
    assert f"{mover} 0:58*" in console_clocks(second)  # its own clock runs: it may still move
    assert f"{mover} 0:00.0!" in console_clocks(watcher)  # lost on time, as the record stands
    assert prompt_text(second).startswith(f"{mover} (you) to move, answering the timeout")
    assert prompt_text(watcher) == "game over> "
    clock.now += 3.0
    play(relay, second)
    for core in (second, watcher):
        result = core.session.result
        assert result is not None and result.reason == ResultReason.DISPUTE, result
        assert f"{mover} 1:00" in console_clocks(core)  # no loss on time: the clock as the record has it
    set_aside = [event for event in relay.events[id(watcher)] if isinstance(event, Superseded)]
    assert [describe(watcher, event) for event in set_aside] == [  # numbered as the moves are, not by seq
        f"set aside: {who(watcher, my_key(second))}'s move 2 ({set_aside[0].message.move}) does not count: "
        f"{who(watcher, my_key(first))}'s timeout (the game's end on time) in the turn of move 2 was sent for the same "
        "place in the game, and stands over it"
    ]
    assert not second.answering and second.session.confirmation(second.me) is not None
    session, bad, _ = verify_transcript(watcher.session.record)
    assert bad is None and session.result == watcher.session.result


def test_a_player_answers_a_timeout_only_while_its_own_clock_shows_time():
    """Once its clock is out by its own watch, the timeout stands as it came: no move is offered, none signed, and
    the client confirms the ending (it stays so: the turn's start is kept, the clock does not start again)."""
    relay, clock, host, guest, _watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    clock.now += 1.0
    for line in (first.session.flag(0, 62_000).line, first.session.timeout(92_000).line):
        relay.retained[line] = line
        relay.deliver(second, line)
    assert second.answering
    clock.now += 60.0
    assert not second.answering and second.answer_left_ms() == 0
    relay.publish(second.tick(), second)
    assert second.session.confirmation(second.me) is not None
    relay.publish(second.tick(), second)
    assert not second.answering
    with pytest.raises(IntentRefused, match="the game is over"):
        play(relay, second)


def test_an_untimed_player_answers_a_made_up_claim_of_abandonment():
    relay, clock, first, second = untimed_game()
    clock.now += 5.0
    for line in (first.session.flag(0, 7 * 86_400_000 + 1000).line, first.session.timeout(8 * 86_400_000 + 1000).line):
        relay.retained[line] = line
        relay.deliver(second, line)
    assert second.session.over and second.answering
    play(relay, second)
    result = first.session.result
    assert result is not None and result.reason == ResultReason.DISPUTE


def test_a_remark_met_by_a_timeout_is_a_dispute_not_a_win():
    """The player to move declines the claimant's proposal 1 s into its turn; the claimant's made-up timeout for that
    place sets the decline aside: on the record, a time dispute (a trap with a proposal wins nothing)."""
    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    relay.publish(first.act(Intent("propose")), first)
    play(relay, first)
    clock.now += 1.0
    relay.publish(second.act(Intent("decline")), second)
    decline = second.session.chain[-1]
    before = [line for line in first.session.transcript if line != decline.line]  # as if it had not come yet
    fake_session = GameSession.restore(before, first.session.identity)
    flag = fake_session.flag(0, 62_000)
    timeout = fake_session.timeout(92_000)
    assert timeout.message.seq == decline.seq
    for line in (flag.line, timeout.line):
        relay.deliver(watcher, line)
    result = watcher.session.result
    assert result is not None and result.reason == ResultReason.DISPUTE and "decline" in result.sentence()


@pytest.mark.parametrize("late", [30.0, 58.0])
def test_the_full_screen_shows_a_claim_under_the_board_in_red_and_briefly_after_the_clocks(late):
    """The whole sentence under the board; in a 100-column toolbar, both clocks and the claim in a few words (a long
    claim there pushed the clocks off it). The line console's toolbar alike."""
    from types import SimpleNamespace

    from client.frontends.console import toolbar_text
    from client.frontends.network_screen import NetworkTable
    from client.frontends.screen import board_fragments

    relay, clock, first, second, _ = claimed_while_away()
    # it saw its turn late: time left by its own watch
    second.turn_clock.turn = TurnSeen(second.session.moves, clock.now - late)
    relay.attach(second)  # it reads the claim
    table = NetworkTable(SimpleNamespace(core=second, link=SimpleNamespace(connected=True)))  # type: ignore[arg-type]
    red = "".join(text for style, text, *_ in board_fragments(table, False) if "class:error" in style)
    left = "30 s" if late == 30.0 else "2 s"
    assert red.replace("\n", " ").strip() == f"CLAIM: {claim_text(second)}" and f"move within {left}" in red.replace(
        "\n", " "
    )
    players = [player for player in ("pink", "black") if second.seat_of(player) is not None]
    for core in (second, first):
        shown = NetworkTable(SimpleNamespace(core=core, link=SimpleNamespace(connected=True)))  # type: ignore[arg-type]
        for toolbar in (" | ".join(shown.status(lambda player: 0.0)), toolbar_text(core, {"connected": True})):
            brief = claim_brief(core)
            assert f"CLAIM: {brief}" in toolbar[:100], toolbar
            for player in players:
                assert re.search(rf"{player} [^|]*\d:\d\d", toolbar[:100]), toolbar  # each clock, in 100 columns
    assert f"CLAIM: move within {left}" in " | ".join(table.status(lambda player: 0.0))


def withheld_until_the_claim(winning: bool) -> tuple[Relay, Clock, GameCore, GameCore, GameCore, str]:
    """A 1+0 game in which the player to move (with a move that ends the game, if ``winning``) goes quiet until the
    other has claimed, then sends its move saying it thought 2 s: the relay, the clock, the claimant, the
    cheat, a watcher and the cheat's late line (delivered)."""
    relay, clock, host, guest, watcher = timed_game("1+0")
    for _ in range(300):
        cheat, claimant = movers(host, guest)
        board = cheat.board
        assert board is not None
        move = next((m for m in board.legal_moves() if _ends(board, m) == winning), None)
        if move is not None and len(cheat.session.chain) > 4:
            break
        clock.now += 0.05
        play(relay, cheat)
    else:
        pytest.skip("no game-ending move came up")
    relay.cores.remove(cheat)
    clock.now += left_ms(cheat) / 1000 + 1.5  # its clock is out by the claimant's watch
    claim(relay, claimant)
    assert claimant.session.flag_of(my_key(claimant)) is not None
    clock.now += 4.0
    late = cheat.session.move(move.text(), think_ms=2000).line
    relay.retained[late] = late
    for core in (claimant, watcher):
        relay.deliver(core, late)
    return relay, clock, claimant, cheat, watcher, late


def _ends(board, move) -> bool:
    after = board.copy()
    after.push(move)
    return after.outcome() is not None


def test_a_move_that_comes_after_the_claim_may_be_disputed_by_the_claimant_once_the_window_has_passed():
    """The withholding cheat's move answers the claim late: the game goes on, and the claimant is told it may
    dispute it; once the claim's window has passed, ``claim`` sets the move aside: a time dispute, for every reader
    and offline, never the cheat's gain."""
    relay, clock, claimant, cheat, watcher, late = withheld_until_the_claim(winning=False)
    assert not claimant.session.over and claimant.my_turn and claimant.disputable
    waited = claimant.late_by_ms()[1]
    assert claimant.late_by_ms()[0] == 4000 and waited > 60_000
    came = (
        f"{cheat.my_player}'s move came 4 s after your claim, saying it thought 2 s of the "
        f"{duration_text(waited)} you waited"
    )
    assert claim_text(claimant) == (
        f"{came}: claim may dispute it in 26 s, once your claim's window to answer has "
        f"passed (the game then ends as a time dispute; your clock runs meanwhile), or play on"
    )
    assert claim_brief(claimant) == "late move: claim disputes it in 26 s"
    with pytest.raises(
        IntentRefused,
        match="whose window to answer runs 26 s more: claim then to dispute the move "
        r"\(your clock runs meanwhile",
    ):
        claimant.act(Intent("claim"))
    assert not [event for event in claimant.tick().events if isinstance(event, ClaimReady)]
    clock.now += 26.0
    told = [event for event in claimant.tick().events if isinstance(event, ClaimReady)]  # the wait is over: said once
    assert told == [ClaimReady("dispute", my_player(cheat))] and not claimant.tick().events
    assert describe(claimant, told[0]) == (
        f"claim: {came}: type claim to dispute it (the game ends as a time dispute), or play on"
    )
    assert claim_brief(claimant) == "late move: claim disputes it"
    claim(relay, claimant)
    for core in (claimant, watcher):
        result = core.session.result
        assert result is not None and result.reason == ResultReason.DISPUTE, result
        assert late in core.session.record
    session, bad, _ = verify_transcript(watcher.session.record)
    assert bad is None and session.result == watcher.session.result


def test_a_claimant_whose_clock_restarted_after_its_claim_may_still_dispute_the_late_move():
    """The claimant's machine restarts after its claim (its monotonic clock starts again near zero) and its client
    resumes from the journal; the cheat's move comes after, and is receipted on the new clock. The receipt and the
    timeout are weighed by how long each waited from the turn's start, not by two readings of clocks that are not
    one: the claimant's own session signs the dispute (it refused it, as a take-back, when a receipt's ``recv`` on
    the new clock was compared with the claim's ``flagged`` on the old one)."""
    relay, clock, host, guest, watcher = timed_game("1+0", "olix")
    for _ in range(4):
        clock.now += 0.05
        play(relay, movers(host, guest)[0])
    cheat, claimant = movers(host, guest)
    assert not cheat.session.over
    relay.cores.remove(cheat)
    clock.now += left_ms(cheat) / 1000 + 1.5
    claim(relay, claimant)
    flag = claimant.my_flag()
    assert flag is not None and flag.now is not None and flag.sent is not None
    assert claimant.turn_seen is not None
    waited = clock.now - claimant.turn_seen[1]
    relay.cores.remove(claimant)
    rebooted = Clock()
    rebooted.now = 100.0  # the new origin: far below the claim's times (yet past the turn's start: times are >= 0)
    back = GameCore(GameSession.restore(watcher.session.record, claimant.session.identity), clock=rebooted)
    relay.attach(back)
    back.resume_turn(back.session.moves, waited + 1.0)  # back a second after its claim
    rebooted.now += 3.0
    late = cheat.session.move(playable(cheat)[0], think_ms=2000).line
    relay.retained[late] = late
    for core in (back, watcher):
        relay.deliver(core, late)
    receipt = back.session._receipts_of(my_key(back))[back.session.chain[-1].seq]
    assert receipt.recv < flag.now  # its recv, on the new clock, reads before the claim's on the old one
    assert back.disputable
    rebooted.now += 30.0
    claim(relay, back)
    for core in (back, watcher):
        result = core.session.result
        assert result is not None and result.reason == ResultReason.DISPUTE, result
        assert core.session.proofs == ()
    session, bad, _ = verify_transcript(watcher.session.record)
    assert bad is None and session.result == watcher.session.result


def test_a_late_move_is_disputable_only_until_the_claimant_plays_on():
    relay, clock, claimant, _cheat, _watcher, _late = withheld_until_the_claim(winning=False)
    clock.now += 1.0
    play(relay, claimant)
    assert not claimant.disputable and claim_text(claimant) is None
    with pytest.raises(IntentRefused, match="clock has not run out by your watch"):  # a claim of the new turn, alone
        claimant.act(Intent("claim"))


@pytest.mark.parametrize(
    "out, receipt_back, back, disputable",
    [pytest.param(3.0, 3.0, 3.0, False, id="both-legs-slow"), pytest.param(0.0, 0.0, 6.0, True, id="one-stall-back")],
)
def test_a_move_in_time_that_the_network_slowed_after_the_claim_is_disputable_only_beyond_the_lag_allowance(
    out, receipt_back, back, disputable
):
    """An honest move in time, 0.5 s left on its clock, that the network slowed (after fast moves, so that the claim
    waits only the clock, the grace and a round trip of 0) comes after the claim: 6 s of the claimant's wait beyond
    the move's thinking. The claimant's client offers a dispute only where the receipts' own rule
    (``Answer.unexplained``: the turn's round trip, up to the lag allowance, and the slack) leaves more than the bound
    unexplained: 4.9 s when our line and its receipt took 3 s each way (no dispute), 5.9 s when the receipt came back
    at once and only the move was held up (a dispute may be offered)."""
    relay, clock, host, guest, _ = timed_game("1+0")
    for _ in range(2):
        clock.now += 0.05
        play(relay, movers(host, guest)[0])
    claimant, mover = movers(host, guest)
    relay.cores.remove(mover)
    step = claimant.act(Intent("move", playable(claimant)[0]))
    relay.publish(step, claimant)
    clock.now += out
    turn_began = clock.now
    receipts: list[Publish] = []
    for item in step.publish:
        fed = mover.feed(item.line)
        relay.record(mover, fed)
        receipts.extend(fed.publish)
    left = left_ms(mover)
    clock.now += receipt_back
    relay.publish(Step(tuple(receipts)))
    clock.now = turn_began + left / 1000 - 0.5
    board = board_of(mover)
    move = next(m for m in board.legal_moves() if not _ends(board, m))
    answer = mover.act(Intent("move", move.text()))  # in time: 0.5 s left
    relay.record(mover, answer)
    clock.now += back - 0.5
    assert claimant.claim_in_ms() == 0
    claim(relay, claimant)
    clock.now += 0.5
    for item in answer.publish:
        relay.deliver(claimant, item.line)
    assert claimant.session.late_move is not None and not claimant.session.over
    assert claimant.disputable is disputable
    assert (claim_text(claimant) is not None) is disputable


@pytest.mark.parametrize("auto", [False, True])
def test_a_winning_move_withheld_until_the_claim_is_not_confirmed_while_it_may_be_disputed(auto):
    """The cheat's late move wins the game by the rules: the claimant's client holds its confirmation (a confirmed
    loss cannot be taken back: PROTOCOL.md §3) and says it may dispute; with ``--claim auto`` it does once the
    window has passed; else ``claim`` does, and left alone the loss is confirmed a whole window after a dispute
    became possible."""
    relay, clock, claimant, cheat, watcher, _late = withheld_until_the_claim(winning=True)
    claimant.auto_claim = auto
    assert claimant.session.over and claimant.disputable and claimant.unsettled
    assert claimant.session.confirmation(my_key(claimant)) is None
    assert claim_text(claimant) == (
        f"{cheat.my_player}'s winning move came 4 s after your claim, saying it thought "
        f"2 s of the {duration_text(claimant.late_by_ms()[1])} you waited: claim may "
        f"dispute it in 26 s, once your claim's window to answer has passed (a time "
        f"dispute, not their win)"
    )
    relay.publish(claimant.tick(), claimant)
    assert claimant.disputable  # the claim's window has 26 s to run
    clock.now += 26.0
    if not auto:
        relay.publish(claimant.tick(), claimant)
        assert claimant.disputable and result_of(claimant.session).reason != ResultReason.DISPUTE
        claim(relay, claimant)
    else:
        relay.publish(claimant.tick(), claimant)
    for core in (claimant, watcher):
        result = core.session.result
        assert result is not None and result.reason == ResultReason.DISPUTE, result
    assert not claimant.unsettled and claimant.session.confirmation(claimant.me) is not None


def test_a_winning_move_after_the_claim_left_undisputed_is_confirmed_as_it_stands():
    relay, clock, claimant, _cheat, watcher, _late = withheld_until_the_claim(winning=True)
    winner = watcher.session.result
    clock.now += 55.0
    relay.publish(claimant.tick(), claimant)
    assert claimant.disputable  # a whole window after a dispute may be signed (26 s from the move's coming here)
    clock.now += 1.0
    relay.publish(claimant.tick(), claimant)
    assert not claimant.disputable and claimant.session.confirmation(claimant.me) is not None
    assert claimant.session.result == winner and claim_text(claimant) is None
    with pytest.raises(IntentRefused, match="the game is over"):
        claimant.act(Intent("claim"))


class FrontRunner:
    """What a front end reads of a runner, over the test relay: the core, its events, acting on an intent."""

    def __init__(self, relay: Relay, core: GameCore) -> None:
        self.relay, self.core = relay, core
        self.events: asyncio.Queue[UiEvent] = asyncio.Queue()
        self.caught_up = asyncio.Event()
        self.caught_up.set()

    async def act(self, intent: Intent) -> None:
        step = self.core.act(intent)
        self.relay.publish(step, self.core)
        for event in step.events:
            self.events.put_nowait(event)


def as_runner(front: FrontRunner) -> GameRunner:
    """``front`` where a front end takes a runner: it offers what the front ends read of one."""
    return cast(GameRunner, front)


def left_ms(core: GameCore) -> int:
    """What is left on the clock of ``core``'s player (a timed game's)."""
    left = core.clock_left(my_player(core))
    assert left is not None
    return left


async def test_the_plain_front_end_stays_open_while_a_late_winning_move_may_be_disputed_and_claim_disputes_it(
    monkeypatch,
):
    monkeypatch.setattr("client.frontends.plain.CONFIRM_WAIT", 0.05)
    relay, clock, claimant, _cheat, watcher, _late = withheld_until_the_claim(winning=True)
    clock.now += 26.0  # the claim's window has passed: claim disputes at once
    printed: list[str] = []
    runner = FrontRunner(relay, claimant)
    async with asyncio.timeout(10):
        status = await plain_front(printed.append, io.StringIO("claim\n"))(as_runner(runner))
    assert status == 0, printed
    result = watcher.session.result
    assert result is not None and result.reason == ResultReason.DISPUTE
    assert any(line.startswith("result: no result, a time dispute: ") for line in printed), printed


async def test_the_plain_front_end_ends_once_a_late_winning_move_is_past_disputing(monkeypatch):
    monkeypatch.setattr("client.frontends.plain.CONFIRM_WAIT", 0.05)
    relay, clock, claimant, _cheat, watcher, _late = withheld_until_the_claim(winning=True)
    printed: list[str] = []
    runner = FrontRunner(relay, claimant)
    front = asyncio.ensure_future(plain_front(printed.append)(as_runner(runner)))  # nothing typed
    await asyncio.sleep(0.1)
    assert not front.done()  # open: the player may still dispute
    clock.now += 57.0
    step = claimant.tick()  # the runner's tick: the window has closed, the loss is confirmed
    relay.publish(step, claimant)
    for event in step.events:
        runner.events.put_nowait(event)
    async with asyncio.timeout(10):
        status = await front
    assert status == 0 and claimant.session.confirmation(my_key(claimant)) is not None
    assert watcher.session.result is not None and watcher.session.result.reason != ResultReason.DISPUTE


def test_the_plain_line_for_a_late_move_says_it_may_be_disputed():
    _relay, _clock, claimant, _cheat, watcher, _late = withheld_until_the_claim(winning=False)
    assert claimant.session.late_move is not None
    applied = LineApplied(claimant.session.late_move)
    assert describe(claimant, applied) == f"claim: {claim_text(claimant)}"
    assert describe(watcher, applied) is None


def forward(relay: Relay, core: GameCore, runner: FrontRunner, start: int = 0) -> int:
    """What the test relay gave ``core`` since event number ``start``, on to the front end (as the runner does)."""
    events = relay.events[id(core)]
    for event in events[start:]:
        runner.events.put_nowait(event)
    return len(events)


async def test_plain_says_that_a_players_time_ran_out_not_your_move_and_that_its_client_conceded(monkeypatch):
    """A player back with its clock out is not told ``your move`` (no move of its can count) but that its time ran
    out; the claim comes, its client concedes by itself and says so, once, before the result."""
    monkeypatch.setattr("client.frontends.plain.CONFIRM_WAIT", 0.05)
    relay, clock, host, guest, _watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    clock.now += 61.5
    printed: list[str] = []
    runner = FrontRunner(relay, second)
    front = asyncio.ensure_future(plain_front(printed.append)(as_runner(runner)))
    start = len(relay.events[id(second)])
    for _ in range(200):  # bounded: until it has said where the game stands
        if len(printed) >= 2:
            break
        await asyncio.sleep(0.01)
    claim(relay, first)
    forward(relay, second, runner, start)
    async with asyncio.timeout(10):
        assert await front == 0
    name, me = first.my_player, second.my_player
    conceded = f"claim: your time ran out with {name}'s claim open: your client conceded the game on time"
    assert printed[:4] == [
        f"game: oxono, 1 move, {me} to move",
        f"your time ran out: you can no longer move, and your client concedes the game when {name} claims it",
        conceded,
        f"result: {name} wins on time: {me} conceded ({name}-time)",
    ], printed
    assert "your move" not in printed and printed.count(conceded) == 1


async def test_plain_says_when_a_players_clock_runs_out_on_its_turn():
    """Nothing comes to wake ``--plain``: it wakes when the player's clock runs out, and says so once."""
    import time

    relay, _clock, host, guest, _watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    second.clock = time.monotonic
    second.turn_clock.turn = TurnSeen(second.session.moves, time.monotonic() - 59.9)  # 0.1 s left
    printed: list[str] = []
    front = asyncio.ensure_future(plain_front(printed.append)(as_runner(FrontRunner(relay, second))))
    try:
        for _ in range(500):  # bounded: until it says so
            if any(line.startswith("your time ran out") for line in printed):
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
    finally:
        front.cancel()
        await asyncio.gather(front, return_exceptions=True)
    out = (
        f"your time ran out: you can no longer move, and your client concedes the game when {first.my_player} claims it"
    )
    assert printed == [f"game: oxono, 1 move, {second.my_player} to move (your move)", out], printed


# -- telling the claimant what claim would do ------------------------------------------------------------------
def told(core: GameCore) -> list[str]:
    """What the runner's tick tells ``core``'s player now, in words."""
    return [text for text in (describe(core, event) for event in core.tick().events) if text is not None]


@pytest.mark.parametrize(
    "control, silence, ended",
    [("1+0", 61.0, "on time"), ("days:1", 86_401.0, "on time"), (None, 7 * 86_400.0 + 1.0, "(abandoned)")],
)
def test_a_player_is_told_once_when_claim_would_be_accepted_and_once_when_the_claim_may_end_the_game(
    control, silence, ended
):
    """The other's clock runs out by this client's watch (grace included): told once, in words every front end prints,
    and briefly in the toolbar; once its claim's window has passed unanswered, told once that claim ends the game.
    Live, correspondence and untimed alike; a watcher is told nothing."""
    if control is None:
        relay, clock, first, second = untimed_game()
        watcher = None
    else:
        relay, clock, host, guest, watcher = timed_game(control)
        first, second = movers(host, guest)
        play(relay, first)
    relay.cores.remove(second)  # gone: nothing answers
    name = second.my_player
    clock.now += silence - 1.0
    assert told(first) == [] and claim_brief(first) is None
    clock.now += 1.0
    due = (
        f"{name}'s clock has run out: type claim to claim the game on time"
        if control
        else f"{name} has not moved for 7 days: type claim to claim the game (abandoned)"
    )
    assert told(first) == [f"claim: {due}"]
    assert told(first) == [] and claim_brief(first) == f"{name} {'out of time' if control else 'silent'}: type claim"
    assert claim_text(first) is None  # no claim is open: resume's "a claim on time is open" says nothing of it
    if watcher is not None:
        assert told(watcher) == [] and claim_brief(watcher) is None
    claim(relay, first)
    assert told(first) == []
    clock.now += 86_400.0 if control != "1+0" else 30.0
    assert told(first) == [f"claim: {name} has not answered your claim: type claim to end the game {ended}"]
    assert told(first) == []


def test_a_player_who_set_up_claim_auto_is_not_told_to_type_claim():
    relay, clock, host, guest, _ = timed_game("1+0")
    first, second = movers(host, guest)
    first.auto_claim = True
    play(relay, first)
    relay.cores.remove(second)
    clock.now += 61.0
    step = first.tick()
    relay.publish(step, first)
    assert first.my_flag() is not None and not [event for event in step.events if isinstance(event, ClaimReady)]
    assert claim_brief(first) == f"{second.my_player} has 30 s to answer"


def test_the_full_screen_says_under_the_board_that_claim_would_be_accepted():
    from types import SimpleNamespace

    from client.frontends.network_screen import NetworkTable

    relay, clock, host, guest, _ = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    relay.cores.remove(second)
    table = NetworkTable(SimpleNamespace(core=first, link=SimpleNamespace(connected=True)))  # type: ignore[arg-type]
    assert table.alert() == []
    clock.now += 61.0
    name = second.my_player
    assert table.alert() == [f"CLAIM: {name}'s clock has run out: type claim to claim the game on time"]
    assert table.status(lambda player: 0.0)[0] == f"CLAIM: {name} out of time: type claim"


async def test_a_bot_seat_says_how_to_have_the_claim_signed_since_it_reads_no_commands():
    """A bot seat without --claim auto reads no commands (in the background, reading the terminal would stop it): it
    says once that the other's clock has run out, and how to claim: --claim auto, or without --bot."""
    from client.frontends.plain import bot_front
    from olixono.bots import make_bot

    relay, clock, host, guest, _ = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    relay.cores.remove(second)
    clock.now += 61.0
    printed: list[str] = []
    runner = FrontRunner(relay, first)
    front = asyncio.ensure_future(bot_front(make_bot("random", seed=1), printed.append)(as_runner(runner)))
    for event in first.tick().events:  # the runner's tick
        runner.events.put_nowait(event)
    try:
        for _ in range(200):  # bounded: until it has said it
            if printed:
                break
            await asyncio.sleep(0.01)
    finally:
        front.cancel()
        await asyncio.gather(front, return_exceptions=True)
    assert printed == [
        (
            f"claim: {second.my_player}'s clock has run out: a bot seat claims only with --claim auto: leave "
            f"(Ctrl-C) and take the game up again with olixono resume {first.game_id} --claim auto and "
            "your --bot, or without --bot to type claim yourself"
        )
    ], printed
    assert first.my_flag() is None


def test_claims_and_the_clock_in_the_help():
    from client.words.commands import help_text

    _, _, host, _, watcher = timed_game("1+0")
    rows = {row.split()[0]: row for row in help_text(host).splitlines()[1:]}
    assert "claim again to win on time" in rows["claim"] and "you are told when" in rows["claim"]
    assert "both clocks" in rows["clock"] and "unexplained" in rows["clock"]
    assert "clock" in help_text(watcher) and "claim" not in help_text(watcher)


@pytest.mark.parametrize("moved", [True, False], ids=["its-move-on-the-relay-too", "nothing-else"])
async def test_a_claim_the_relay_stored_is_answered_only_once_the_client_has_caught_up(monkeypatch, moved):
    """A player claimed against comes back with its own clock out, from a journal that lost its last line: the relay's
    store holds the other's flag claim and (``moved``) the move it made in time, which the claimant had not seen when
    it claimed. Its client reads the claim first (order across topics is not kept) and concedes nothing while the
    relay's lines come in: the tick that concedes waits for the catch-up. Caught up, the move has answered the claim
    (a concession would be a second line for its place: the game lost by equivocation); with nothing else stored,
    the client concedes then."""
    from test_client_runner import FakeLink, caught_up, fake, own_lines

    from client.cores import liveness
    from client.shell.runner import GameRunner
    from protocol import decode

    monkeypatch.setattr(liveness, "TICK", 0.02)
    relay, clock, host, guest, _watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    journal = list(second.session.record)  # what its journal keeps: its move below was lost from it
    relay.cores.remove(first)  # the move in time is slow to reach the claimant
    clock.now += 59.0
    board = second.board
    assert board is not None
    move = second.act(Intent("move", board.legal_moves()[0].text())).publish[0]
    clock.now += 3.0  # 62 s by the claimant's watch: it claims
    flag = first.act(Intent("claim")).publish[0]
    clock.now += 10.0
    back = GameCore(GameSession.restore(journal, second.session.identity), clock=clock)
    back.resume_turn(back.session.moves, 72.0)  # its journal: its turn began 72 s ago; its clock shows none left
    runner = GameRunner(back, FakeLink)  # type: ignore[arg-type]
    watch = asyncio.create_task(runner._watch())
    try:
        await runner._received(flag.topic, flag.line.encode(), retained=True)
        await asyncio.sleep(0.2)  # ticks while the catch-up goes on
        assert back.flag_against_me() is not None and not own_lines(fake(runner))  # (a copy of the claim went)
        if moved:
            await runner._received(move.topic, move.line.encode(), retained=True)
        caught_up(runner)  # the relay's lines are in
        await runner.apply(back.ready())
        for _ in range(50):  # bounded: a few ticks, or until the concession
            if back.session.over:
                break
            await asyncio.sleep(0.02)
    finally:
        watch.cancel()
        await asyncio.gather(watch, return_exceptions=True)
    conceded = [line for line in own_lines(fake(runner)) if decode(line, verify=False).type == "timeout"]
    if moved:
        assert not conceded and not back.session.over and back.flag_against_me() is None
        assert not back.session.proofs
    else:
        result = back.session.result
        assert len(conceded) == 1 and result is not None and result.detail == f"{back.my_player} conceded"
