"""The client under ``rules:2``: each player's clock starts with its first move, as on lichess. A new offer says
``rules:2``; on a first move the clock shown does not run (the first move's own time does, in the clocks' words);
the move is described with the whole clock left; ``--claim auto`` ends a game whose player made no first move as
aborted, in the words every front end prints. On an injected clock, as the claims' tests."""

from __future__ import annotations

from client.core import GameCore
from client.words import claim_text, clocks_now_text, describe, my_turn_text, ready_text
from protocol import MoveApplied
from protocol.domain import ResultReason
from protocol_helpers import HOST
from test_client_clock import movers, play, timed_game


def test_a_new_offer_says_rules_2():
    core, _ = GameCore.hosting("olix", HOST)
    assert core.session.terms == "rules:2"


def test_the_first_moves_are_off_the_clock_and_the_clocks_say_so():
    relay, clock, host, guest, watcher = timed_game("1+2", rules="rules:2")
    first, second = movers(host, guest)
    clock.now += 20.0
    for core in (first, second, watcher):
        assert core.clock_left(first.my_player) == 60_000  # not running: its clock starts after this move
        assert core.first_move_left_ms() == 10_000
    assert clocks_now_text(first) == (f"clock 1+2: {first.my_player} 1:00 left, {second.my_player} 1:00 left; "
                                      f"{first.my_player}'s first move: 0:10 left (the clock starts after it)")
    play(relay, first)
    move = watcher.session.chain[-1]
    assert describe(watcher, MoveApplied(move.seq, first.my_player, move.move, 1)) == \
        f"move 1 {first.my_player} {move.move} (thought 20.0 s, 1:00 left)"  # the whole minute: nothing charged
    clock.now += 5.0
    play(relay, second)
    assert watcher.session.clocks == {first.my_player: 60_000, second.my_player: 60_000}
    clock.now += 4.0
    assert watcher.clock_left(first.my_player) == 56_000 and watcher.first_move_left_ms() is None  # now it runs


def test_claim_auto_aborts_a_game_whose_player_makes_no_first_move():
    relay, clock, host, guest, watcher = timed_game("1+0", rules="rules:2")
    first, second = movers(host, guest)
    second.auto_claim = True
    relay.cores.remove(first)  # the first player's client is gone: nothing answers
    clock.now += 30.0
    assert second.tick().publish == ()
    clock.now += 1.1
    relay.publish(second.tick(), second)
    assert second.my_flag() is not None
    name = first.my_player
    assert claim_text(watcher) == f"{second.my_player} claims {name} made no first move: 30 s left to answer"
    assert my_turn_text(first) == (f"your time for a first move ran out: you can no longer move, and the game is "
                                   f"aborted when {second.my_player} claims it")
    clock.now += 30.5
    relay.publish(second.tick(), second)
    result = watcher.session.result
    assert result is not None and result.reason == ResultReason.ABORTED and result.winner is None
    assert result.sentence() == f"aborted: {name} made no first move in time"


def test_a_player_is_told_claim_would_abort_the_game_of_a_missing_first_move():
    relay, clock, host, guest, watcher = timed_game("1+0", rules="rules:2")
    first, second = movers(host, guest)
    play(relay, first)
    relay.cores.remove(second)
    clock.now += 31.1
    ready = first.claim_ready()
    assert ready is not None and ready.what == "flag"
    assert ready_text(first, ready) == f"claim: {second.my_player} made no first move in time: type claim to abort the game"
