"""The client under ``rules:2``: each player's clock starts with its first move, as on lichess. A new offer says
``rules:2``; on a first move the clock shown does not run (the first move's own time does, in the clocks' words);
the move is described with the whole clock left; ``--claim auto`` ends a game whose player made no first move as
aborted, in the words every front end prints. On an injected clock, as the claims' tests."""

from __future__ import annotations

import asyncio

from protocol_helpers import HOST
from test_client_clock import movers, play, timed_game
from test_client_core import my_key, my_player

from client.cores.network_game import GameCore
from client.words.network import claim_text, clocks_now_text, describe, my_turn_text, ready_text
from protocol import CONFIRMED, MoveApplied
from protocol.domain import ResultReason


def test_a_new_offer_says_rules_2():
    core, _ = GameCore.hosting("olix", HOST)
    assert core.session.terms == "rules:2"


def test_the_first_moves_are_off_the_clock_and_the_clocks_say_so():
    relay, clock, host, guest, watcher = timed_game("1+2", rules="rules:2")
    first, second = movers(host, guest)
    clock.now += 20.0
    for core in (first, second, watcher):
        assert core.clock_left(my_player(first)) == 60_000  # not running: its clock starts after this move
        assert core.first_move_left_ms() == 10_000
    assert clocks_now_text(first) == (
        f"clock 1+2: {first.my_player} 1:00 left, {second.my_player} 1:00 left; "
        f"{first.my_player}'s first move: 0:10 left (the clock starts after it)"
    )
    play(relay, first)
    move = watcher.session.chain[-1]
    assert (
        describe(watcher, MoveApplied(move.seq, my_player(first), move.move, 1))
        == f"move 1 {first.my_player} {move.move} (thought 20.0 s, 1:00 left)"
    )  # the whole minute: nothing charged
    clock.now += 5.0
    play(relay, second)
    assert watcher.session.clocks == {first.my_player: 60_000, second.my_player: 60_000}
    clock.now += 4.0
    assert watcher.clock_left(my_player(first)) == 56_000 and watcher.first_move_left_ms() is None  # now it runs


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
    assert my_turn_text(first) == (
        f"your time for a first move ran out: you can no longer move, and the game is "
        f"aborted when {second.my_player} claims it"
    )
    clock.now += 30.5
    relay.publish(second.tick(), second)
    result = watcher.session.result
    assert result is not None and result.reason == ResultReason.ABORTED and result.winner is None
    assert result.sentence() == f"aborted: {name} made no first move in time"


def test_a_player_whose_missing_first_move_aborted_the_game_confirms_at_once_its_clock_untouched():
    """The player who made no first move, there all along (its client only slow), reads the abort: its first move's
    time is out by its own watch, so it may no longer answer with a move, and confirms the ending at once, though its
    clock, which never started, shows the whole base (5 min here: it held the ending that long, front ends open)."""
    relay, clock, host, guest, watcher = timed_game("5+0", rules="rules:2")
    first, second = movers(host, guest)
    second.auto_claim = True
    clock.now += 31.1
    relay.publish(second.tick(), second)
    assert first.flag_against_me() is not None and first.tick().publish == ()  # nobody concedes a first move
    clock.now += 30.5
    relay.publish(second.tick(), second)
    result = first.session.result
    assert result is not None and result.reason == ResultReason.ABORTED
    assert first.clock_left(my_player(first)) == 300_000 and first.answer_left_ms() == 0
    assert not first.answering and not first.unsettled
    assert first.session.confirmation(my_key(first)) == CONFIRMED == watcher.session.confirmation(my_key(first))


def test_a_player_is_told_claim_would_abort_the_game_of_a_missing_first_move():
    relay, clock, host, guest, _watcher = timed_game("1+0", rules="rules:2")
    first, second = movers(host, guest)
    play(relay, first)
    relay.cores.remove(second)
    clock.now += 31.1
    ready = first.claim_ready()
    assert ready is not None and ready.what == "flag"
    assert (
        ready_text(first, ready)
        == f"claim: {second.my_player} made no first move in time: type claim to abort the game"
    )


async def test_a_game_whose_first_move_never_comes_is_aborted_through_the_commands(relay, tmp_path, monkeypatch, pipes):
    """Two ``--plain`` players (``host`` and ``join``, with ``--claim auto``) of a live game, and nobody moves: the
    player to move first loses no clock; its first move's time runs out, the other's client claims and, the window
    over, closes the claim, and the game ends aborted, in the words both read. The protocol's least first-move time
    and answer window (30 s each) are shortened here, for both players alike, so that it runs in seconds."""
    from network_helpers import Seat, cancelled, game_id_of, said, transcript

    from client.flows import network
    from protocol import clock as protocol_clock
    from protocol import verify_transcript
    from protocol.clock import TimeControl

    monkeypatch.setattr(protocol_clock, "FIRST_MOVE_MIN_MS", 1500)
    monkeypatch.setattr(protocol_clock, "WINDOW_MIN_MS", 1500)
    typings, seats = [], []
    for name in ("host", "guest"):
        reader, typing = pipes()
        typings.append(typing)
        seats.append(
            Seat(
                tmp_path,
                name,
                relay,
                plain=True,
                commands=reader,
                auto_claim=True,
                control=TimeControl.parse("0.5+0") if name == "host" else None,
            )
        )
    host, guest = seats
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    joining = asyncio.create_task(network.join(game, guest.options))
    try:
        seated = host.lines[await said(host, "seats ")]
        first = host if seated.split(",")[0].endswith("(you)") else guest  # pink moves first
        other = guest if first is host else host
        pink = seated.split()[1]
        result = f"result: aborted: {pink} made no first move in time (aborted)"
        await said(
            first,
            "your time for a first move ran out: you can no longer move, and the game is aborted when "
            f"{other_colour(seated)} claims it",
        )
        await said(first, f"claim: {other_colour(seated)} claims you made no first move, and your time for it ran out")
        for seat in (other, first):
            await said(seat, result)
            await said(seat, "result confirmed by both players")  # settled: leaving from here does not leave the game
        for typing in typings:
            typing.close()
        async with asyncio.timeout(20):
            assert await hosting == 0 and await joining == 0
    finally:
        await cancelled(hosting, joining)
    record = transcript(host, game)
    session, _, problem = verify_transcript(record)
    assert problem is None and session.result is not None and session.result.reason == ResultReason.ABORTED
    assert session.moves == 0 and record == transcript(guest, game)


def other_colour(seats: str) -> str:
    """The player who does not move first, from a ``seats pink KEY, black KEY; pink moves first`` line."""
    return seats.split(", ")[1].split()[0]
