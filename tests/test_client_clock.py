"""The client on the clock: it measures its own thinking (monotonic, injected here), signs the clock that
follows, shows both official clocks ticking, keeps a timed move on the disk before it leaves, and hosts a timed game."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from protocol_helpers import GUEST, HOST, board_of, playable
from test_client_core import MemoryJournal, Relay, my_player

from client.cores.intents import Intent, IntentRefused
from client.cores.network_game import GameCore
from client.shell.runner import GameRunner
from protocol import GameSession, LineRejected, MoveApplied, Phase, verify_transcript
from protocol.clock import FLOOR_MS, TimeControl


class Clock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def timed_game(
    control: str = "1+2", kind: str = "oxono", rules: str = "rules:1"
) -> tuple[Relay, Clock, GameCore, GameCore, GameCore]:
    """A host, a guest and a watcher of a timed game (``control``: live, ``5+3``, or correspondence, ``days:3``) with
    the seats drawn, all on one injected clock. Under ``rules:1`` by default: every move on the clock from the reveal
    on, as these tests of the clock's running have it (``rules:2``, whose first moves are off the clock, has its
    own tests: ``test_client_first_move.py``)."""
    clock, relay = Clock(), Relay()
    timed = TimeControl.of_terms(control) if control.startswith("days:") else TimeControl.parse(control)
    host, offer = GameCore.hosting(kind, HOST, control=timed, rules=rules)
    host.clock = clock
    relay.attach(host)
    relay.publish(offer, host)
    watcher = GameCore(GameSession(host.game_id), watching=True, clock=clock)
    relay.attach(watcher)
    guest = GameCore(GameSession(host.game_id, GUEST), clock=clock)
    relay.attach(guest)
    relay.publish(guest.join(), guest)
    assert host.phase is Phase.PLAYING and guest.phase is Phase.PLAYING
    return relay, clock, host, guest, watcher


def play(relay: Relay, core: GameCore, move: str | None = None) -> None:
    board = core.board
    assert board is not None
    relay.publish(core.act(Intent("move", move or board.legal_moves()[0].text())), core)


def last_clock(core: GameCore) -> tuple[int, int]:
    timed = core.move_clock(len(core.session.chain) - 1)
    assert timed is not None
    return timed


def untimed_on_a_clock() -> tuple[Relay, Clock, GameCore, GameCore]:
    """A host and a guest of an untimed Olix game with the seats drawn, on one injected clock."""
    clock, relay = Clock(), Relay()
    host, offer = GameCore.hosting("olix", HOST)
    host.clock = clock
    relay.attach(host)
    relay.publish(offer, host)
    guest = GameCore(GameSession(host.game_id, GUEST), clock=clock)
    relay.attach(guest)
    relay.publish(guest.join(), guest)
    return relay, clock, host, guest


def movers(host: GameCore, guest: GameCore) -> tuple[GameCore, GameCore]:
    return (host, guest) if host.my_turn else (guest, host)


def test_a_move_carries_the_thinking_measured_from_the_line_that_gave_the_turn():
    relay, clock, host, guest, watcher = timed_game("1+2")
    first, second = movers(host, guest)
    clock.now += 3.25
    play(relay, first)
    assert last_clock(watcher) == (3250, 60_000 - 3250 + 2000)
    clock.now += 0.04  # under the floor: charged the floor
    play(relay, second)
    assert last_clock(watcher) == (40, 60_000 - FLOOR_MS + 2000)
    assert host.session.clocks == guest.session.clocks == watcher.session.clocks
    for core in (host, guest, watcher):  # every receiver agrees on the official clocks
        session = core.session
        assert session.clocks == {my_player(first): 58_750, my_player(second): 61_900}


def test_a_proposal_leaves_the_turn_and_its_thinking_running():
    relay, clock, host, guest, _ = timed_game("1+0")
    first, _ = movers(host, guest)
    clock.now += 2.0
    relay.publish(first.act(Intent("propose")), first)
    clock.now += 1.5
    play(relay, first)
    assert last_clock(first) == (3500, 56_500)


def test_both_clocks_tick_for_the_side_to_move_the_same_for_every_client():
    _relay, clock, host, guest, watcher = timed_game("1+2")
    first, second = movers(host, guest)
    player = first.my_player
    assert player is not None
    clock.now += 12.3
    for core in (host, guest, watcher):
        assert core.clock_left(player) == 60_000 - 12_300
        assert core.clock_left(second.my_player or "") == 60_000  # the waiting side's clock stands
    untimed = GameCore(GameSession(host.game_id))
    assert untimed.clock_left(player) is None


def test_a_move_after_the_clock_ran_out_is_refused_and_nothing_is_signed():
    _relay, clock, host, guest, _ = timed_game("1+0")
    first, _ = movers(host, guest)
    clock.now += 60.0  # a clock at zero has run out
    before = first.session.transcript
    with pytest.raises(IntentRefused, match="your time ran out"):
        first.act(Intent("move", playable(first)[0]))
    assert first.session.transcript == before
    assert first.clock_left(first.my_player or "") == 0


def test_a_resumed_turn_counts_the_time_the_player_was_away():
    relay, clock, host, guest, _ = timed_game("1+2")
    first, _ = movers(host, guest)
    moves, _ = first.turn_seen or (None, None)
    assert moves == 0
    journal = MemoryJournal()
    journal.written = list(first.session.transcript)
    again = GameCore(GameSession.restore(journal.written, first.session.identity), clock=clock)
    again.resume_turn(0, 20.0)  # the journal: the turn began 20 s before this process
    again.resume_turn(5, 99.0)  # another turn's: ignored
    clock.now += 1.0
    assert again.thinking_ms() == 21_000
    relay.attach(again)
    play(relay, again)
    assert last_clock(again) == (21_000, 60_000 - 21_000 + 2000)


def test_a_timed_move_is_described_with_its_thinking_and_the_clock_left():
    from client.words.network import describe

    relay, clock, host, guest, watcher = timed_game("5+3")
    first, _ = movers(host, guest)
    clock.now += 7.5
    play(relay, first)
    moved = [event for event in relay.events[id(watcher)] if isinstance(event, MoveApplied)]
    assert describe(watcher, moved[-1]) == f"move 1 {first.my_player} {moved[-1].move} (thought 7.5 s, 4:55 left)"


def test_the_toolbars_show_the_official_clocks_with_a_warning_under_ten_seconds():
    from client.frontends.console import clocks_text
    from client.words.board import clock_left_text

    _relay, clock, host, guest, watcher = timed_game("0:12+0")
    first, second = movers(host, guest)
    clock.now += 2.55
    text = clocks_text(watcher)
    assert f"{first.my_player} 0:09.4!*" in text and f"{second.my_player} 0:12" in text
    assert (clock_left_text(10_000), clock_left_text(9_999), clock_left_text(0)) == ("0:10", "0:09.9!", "0:00.0!")


def test_the_full_screen_toolbar_shows_the_official_clock_in_a_timed_game():
    from client.frontends.network_screen import NetworkTable

    _relay, clock, host, _guest, _ = timed_game("3+0")
    runner = GameRunner(host, _NoLink)  # type: ignore[arg-type]
    clock.now += 65
    status = " | ".join(NetworkTable(runner, None).status(lambda player: 0.0))
    mover = host.turn
    assert f"{mover} " in status and "1:55" in status and "3:00" in status


class _NoLink:
    connected = True

    def __init__(self, **callbacks: object) -> None:
        pass


# -- the bot on the clock ---------------------------------------------------------------------------------
MOVES_A_SIDE = 60
"""More moves than either game gives a player (Oxono: 16 pawns each; Olix: fewer stones)."""


@pytest.mark.parametrize("control", ["0:01+1", "0:02+0", "1+0", "5+3", "180+0"])
def test_a_bot_budget_never_spends_the_clock_and_keeps_it_in_time(control):
    from client.shell.thinking import clock_budget

    rule = TimeControl.parse(control)
    left, moves = rule.start_ms, 0
    overhead_ms = 60  # what a move costs besides the search: a thread, signing, a slow machine
    for moves in range(1, MOVES_A_SIDE + 1):  # noqa: B007 (how many it made, read after the loop)
        budget = clock_budget(rule, left)
        assert budget * 1000 <= max(10, left / 2)
        think = int(budget * 1000) + overhead_ms
        if think >= left:
            break
        left = rule.after(left, think)
    if rule.base_ms / MOVES_A_SIDE + rule.increment_ms >= 1000:  # at least a second a move: it never runs out
        assert moves == MOVES_A_SIDE and left > 0


def test_within_bounds_a_searching_bot_by_the_clock_and_leaves_the_others_as_they_are():
    from olixono.bots import MctsBot, make_bot, within

    mcts = make_bot("mcts", seed=1, seconds=5.0)
    bounded, unbounded = within(mcts, 0.2), within(mcts, 9.0)
    assert isinstance(bounded, MctsBot) and isinstance(unbounded, MctsBot)
    assert bounded.seconds == 0.2 and unbounded.seconds == 5.0
    greedy = make_bot("greedy", seed=1)
    assert within(greedy, 0.2) is greedy


# -- the runner: on the disk before it leaves; the turn kept for a resume -----------------------------------
class SyncedJournal(MemoryJournal):
    """A journal that records each fsync among the lines, and keeps its metadata."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

        class Meta:
            turn: list[float] | None = None
            connections = 0
            ran_relay = False

        self.meta = Meta()

    def write(self, line: str) -> None:
        self.events.append("write")
        self.written.append(line)

    def sync(self) -> None:
        self.events.append("sync")

    def update(self, **changes: object) -> None:
        for name, value in changes.items():
            setattr(self.meta, name, value)


class RecordingLink(_NoLink):
    stopping = False

    def __init__(self, journal: SyncedJournal, **callbacks: object) -> None:
        self.journal = journal

    def send(self, topic: str, line: str) -> bool:
        self.journal.events.append("send")
        return True


async def test_a_timed_move_is_on_the_disk_before_it_is_sent_and_the_turn_is_kept():
    _relay, clock, host, guest, _ = timed_game("1+2")
    first, _ = movers(host, guest)
    journal = SyncedJournal()
    runner = GameRunner(first, lambda **callbacks: RecordingLink(journal, **callbacks), journal)  # type: ignore[arg-type]
    runner.caught_up.set()
    clock.now += 1.0
    await runner.act(Intent("move", playable(first)[0]))
    assert journal.events[:3] == ["write", "sync", "send"]  # signed again, a timed move would be another line
    assert journal.meta.turn is not None and journal.meta.turn[0] == 1  # the opponent's turn, as this client saw it


async def test_a_resumed_runner_takes_the_turns_start_from_the_journal():
    import time

    _relay, _clock, host, guest, _ = timed_game("1+2")
    first, _ = movers(host, guest)
    journal = SyncedJournal()
    journal.meta.turn = [0, time.time() - 30.0]
    GameRunner(first, lambda **callbacks: RecordingLink(journal, **callbacks), journal)  # type: ignore[arg-type]
    assert 29_500 < first.thinking_ms() < 31_000


# -- hosting a timed game, end to end --------------------------------------------------------------------------
def test_host_takes_a_live_or_a_correspondence_control_and_refuses_a_bad_one(capsys):
    from client.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["host", "oxono", "--clock", "5+3"]).clock == TimeControl(300_000, 3000)
    assert parser.parse_args(["host", "olix", "--days", "3"]).days == TimeControl(days=3)
    for bad in (["--clock", "5"], ["--days", "0"], ["--days", "x"], ["--clock", "5+3", "--days", "2"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["host", "oxono", *bad])
    assert "no time control" in capsys.readouterr().err


async def test_two_bots_play_a_timed_game_through_a_relay_and_the_record_keeps_the_clock(relay, tmp_path):
    from network_helpers import Seat, game_id_of, transcript

    from client.flows import network

    host = Seat(tmp_path, "host", relay, bot="mcts", seed=1, iterations=200, control=TimeControl.parse("0:20+1"))
    guest = Seat(tmp_path, "guest", relay, bot="greedy", seed=2)
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    assert "0:20+1" in host.text()
    async with asyncio.timeout(90):
        assert await network.join(game, guest.options) == 0
        assert await hosting == 0
    session, _, problem = verify_transcript(transcript(host, game))
    assert problem is None and session.result is not None and session.clock == TimeControl.parse("0:20+1")
    assert session.clocks is not None and all(left > 0 for left in session.clocks.values())
    assert any("thought" in line and "left)" in line for line in guest.lines)
    assert all(side.measured > 0 for side in session.time_used().values())  # the receipts came through the relay


def test_random_games_on_the_clock_agree_between_players_and_a_watcher():
    rng = random.Random(7)
    relay, clock, host, guest, watcher = timed_game("0:30+1", kind="olix")
    for _ in range(300):
        if host.over:
            break
        mover = host if host.my_turn else guest
        clock.now += rng.uniform(0.0, 1.5)
        play(relay, mover, rng.choice(playable(mover)))
    assert host.session.clocks == guest.session.clocks == watcher.session.clocks
    replayed, _, problem = verify_transcript(watcher.session.transcript)
    assert problem is None and replayed.clocks == watcher.session.clocks
    from client.words.record import clocks_text

    shown = clocks_text(replayed)  # what verify and resume print
    assert shown is not None and shown.startswith("clock 0:30+1: first ") and shown.endswith(" left")
    assert clocks_text(GameSession(host.game_id)) is None


# -- receipts, signed at once; what they leave unexplained --------------------------------------------------
@pytest.mark.parametrize("first", ["host", "guest"])
def test_each_player_receipts_the_others_moves_at_once_and_honest_play_leaves_nothing_unexplained(first):
    """Every move is measured, the first one too: a guest's first move answers its own reveal, and the host's receipt
    of it says when the host had verified that reveal (the turn's start by its clock), as a flag claim would."""
    for _ in range(40):  # the coin decides who moves first
        relay, clock, host, guest, watcher = timed_game("1+2", kind="olix")
        if (watcher.seat_of("first") == guest.me) is (first == "guest"):
            break
    else:
        pytest.fail(f"the {first} never moved first")
    for _ in range(8):
        mover = host if host.my_turn else guest
        clock.now += 0.7
        play(relay, mover)
    receipts = [line for line in watcher.session.transcript if " receipt " in line[:20]]
    assert len(receipts) == 8 + 1  # each move's, and the host's of the reveal
    answers = watcher.session.answers()
    assert answers == host.session.answers() == guest.session.answers() and len(answers) == 8
    assert [answer.unexplained for answer in answers] == [0] * 8
    assert all(core.unexplained_ms(player) == 0 for core in (host, guest) for player in ("first", "second"))


def test_a_client_that_reports_less_thinking_than_it_took_shows_it_to_everyone():
    from client.frontends.console import clocks_text
    from client.words.record import time_used_text

    relay, clock, host, guest, watcher = timed_game("5+0", kind="olix")
    cheat = guest
    true_think = cheat.thinking_ms
    cheat.thinking_ms = lambda: max(0, true_think() - 4000)  # type: ignore[method-assign]  # says 4 s less
    for _ in range(8):
        mover = host if host.my_turn else guest
        clock.now += 5.0
        play(relay, mover)
    player = cheat.my_player
    assert player is not None
    hidden = watcher.unexplained_ms(player)
    assert hidden >= 3 * (4000 - 100) and hidden == host.unexplained_ms(player) == guest.unexplained_ms(player)
    honest = host.my_player or ""
    assert watcher.unexplained_ms(honest) == 0
    assert f"{player} " in clocks_text(watcher) and "(+" in clocks_text(watcher)
    text = time_used_text(watcher.session)
    assert text is not None and f"{player} " in text and f"unexplained {hidden / 1000:.1f} s" in text


def test_a_resumed_player_receipts_the_move_that_came_while_it_was_away():
    relay, clock, host, guest, _ = timed_game("1+2", kind="olix")
    first, second = movers(host, guest)
    again = GameCore(
        GameSession.restore(list(second.session.transcript), second.session.identity), clock=clock, live=False
    )  # catching up: nothing is signed yet
    play(relay, first)
    again.feed(first.session.chain[-1].line)
    step = again.ready()
    signed = [item.line for item in step.publish if " receipt " in item.line[:20]]
    assert len(signed) == 1 and f"seq={again.session.chain[-1].seq} " in signed[0]


def test_a_player_resumed_soon_after_the_machine_started_signs_valid_times_and_may_claim():
    """A machine restarted 5 s ago (its monotonic clock near zero) resumes a player whose turn-wait began 100 s ago:
    the start of the wait lay below the clock's zero, so the receipt of the answer said ``sent=-95000`` (refused by
    every receiver) and a claim was refused. Signed times now count from a year before the clock's zero."""
    relay, clock, host, guest, watcher = timed_game("1+0", kind="olix")
    first, second = movers(host, guest)
    play(relay, first)
    rebooted = Clock()
    rebooted.now = 5.0
    again = GameCore(
        GameSession.restore(list(first.session.transcript), first.session.identity), clock=rebooted, live=False
    )
    again.resume_turn(first.session.moves, 100.0)
    assert again.claim_in_ms() == 0  # 60 s of clock, the grace: the wait began 100 s ago
    clock.now += 30.0
    play(relay, second)
    again.feed(second.session.chain[-1].line)
    receipts = [item.line for item in again.ready().publish if " receipt " in item.line[:20]]
    assert len(receipts) == 1 and " sent=-" not in receipts[0]
    step = watcher.feed(receipts[0])
    assert not [event for event in step.events if isinstance(event, LineRejected)], step.events


async def test_a_receipt_is_on_the_disk_before_it_leaves_and_nobody_waits_on_it():
    relay, _clock, host, guest, _ = timed_game("1+2", kind="olix")
    first, second = movers(host, guest)
    journal = SyncedJournal()
    runner = GameRunner(second, lambda **callbacks: RecordingLink(journal, **callbacks), journal)  # type: ignore[arg-type]
    runner.caught_up.set()
    second.live = True  # as after the first catch-up
    relay.cores.remove(second)  # it receives the move through its runner alone
    play(relay, first)
    moved = first.session.chain[-1].line
    journal.events.clear()
    await runner._received("olixono/1/games/g/k/4", moved.encode())
    assert "send" in journal.events and "sync" in journal.events[: journal.events.index("send")]
    assert not runner.liveness.waiting  # nobody waits on a receipt


def test_verify_prints_each_sides_time_used_and_unexplained():
    from client.flows.verify import summary

    relay, clock, host, guest, watcher = timed_game("1+2", kind="olix")
    for _ in range(4):
        mover = host if host.my_turn else guest
        clock.now += 1.0
        play(relay, mover)
    session, _, problem = verify_transcript(watcher.session.transcript)
    assert problem is None
    import re  # a guest moving first: its first move answers its own reveal, and is not measured

    assert re.search(
        r"time used: first 0:02 \(unexplained 0\.0 s of [12] moves? measured\), second 0:02 "
        r"\(unexplained 0\.0 s of 2 moves measured\)",
        summary(session),
    ), summary(session)


def test_an_untimed_games_toolbar_shows_the_side_to_moves_turn_the_same_for_players_and_watchers():
    """Untimed, the toolbar shows the side to move's time on this turn, from each client's seeing it begin: the same
    on every terminal, where counting each side's thinking its own way (a watcher from when it started, a resumed
    player from zero) would show three terminals three different times."""
    from client.frontends.network_screen import NetworkTable

    relay, clock, host, guest = untimed_on_a_clock()
    clock.now += 5.0
    mover = host if host.my_turn else guest
    play(relay, mover)
    watcher = GameCore(GameSession(host.game_id), watching=True, clock=clock)
    relay.attach(watcher)  # joins late: the turn began, for it, when it saw it
    clock.now += 12.0
    turn = host.turn
    assert turn is not None
    for core in (host, guest, watcher):
        status = NetworkTable(GameRunner(core, _NoLink), None).status(lambda player: 99.0)  # type: ignore[arg-type]
        seats = [part for part in status if " to move" not in part and part.startswith(("first ", "second "))]
        moving = next(part for part in seats if part.startswith(turn + " "))
        waiting = next(part for part in seats if not part.startswith(turn + " "))
        assert "0:12" in moving and "1:39" not in moving, status  # not the screen's own count (99 s)
        assert not any(":" in word for word in waiting.split()[1:]), status  # a waiting side's time is not shown


def test_a_time_control_in_words_for_a_newcomer():
    from client.words.network import control_words

    assert control_words(TimeControl.parse("5+3")) == "5+3 (5 min each, 3 s a move)"
    assert control_words(TimeControl.parse("1:30+0")) == "1:30+0 (1 min 30 s each, no time added a move)"
    assert control_words(TimeControl.correspondence(3)) == "3 days a move"
    assert control_words(None) == "untimed"


# -- the clock between moves: a warning, the clock command, the toolbars' warning style -------------------------------
def test_a_players_own_clock_under_ten_seconds_on_its_turn_is_told_once_a_turn():
    from client.cores.network_game import ClockLow
    from client.words.network import describe

    relay, clock, host, guest, watcher = timed_game("0:20+0")
    first, second = movers(host, guest)
    clock.now += 10.0
    assert not any(core.tick().events for core in (first, second, watcher))  # 10 s left: not under
    clock.now += 0.5
    events = first.tick().events
    assert events == (ClockLow(9500),)
    assert describe(first, events[0]) == "warning: under 10 s left on your clock (0:09.5!): move now"
    assert not any(core.tick().events for core in (first, second, watcher))  # once; the others' are not theirs
    play(relay, first)
    clock.now += 10.5
    assert [type(event) for event in second.tick().events] == [ClockLow] and not first.tick().events


async def test_the_clock_command_shows_both_clocks_the_control_and_the_unexplained_seconds():
    from functools import partial
    from types import SimpleNamespace

    from client.words.commands import handle_typed, parse
    from client.words.network import shown_now

    relay, clock, host, guest, watcher = timed_game("1+2")
    first, second = movers(host, guest)
    clock.now += 3.0
    play(relay, first)
    clock.now += 12.3
    shown = {
        first.my_player: f"{first.my_player} 0:59 left",
        second.my_player: f"{second.my_player} 0:47 left (to move)",
    }
    board = board_of(watcher)
    clocks = ", ".join(shown[player] for player in board.PLAYERS)
    none = ", ".join(f"{player} 0.0 s" for player in board.PLAYERS)
    expected = (
        f"clock 1+2 (1 min each, 2 s a move): {clocks}; unexplained (each side's, as the other's receipts "
        f"measure it): {none}"
    )
    for core in (first, second, watcher):
        assert parse("/clock", core).local == "clock"
        printed: list[str] = []
        assert await handle_typed(SimpleNamespace(core=core), "clock", printed.append, partial(shown_now, core))
        assert printed == [expected]


def test_the_clock_command_of_an_untimed_game_shows_the_side_to_moves_time_on_this_move():
    from client.words.network import clock_report

    _relay, clock, host, _guest = untimed_on_a_clock()
    clock.now += 42.0
    assert clock_report(host) == (
        f"clock untimed: {host.turn} to move, 0:42 on this move (a player silent for 7 days may be claimed against)"
    )


def test_the_side_under_ten_seconds_on_its_turn_shows_in_the_warning_style_in_both_toolbars():
    from client.frontends.console import toolbar_fragments
    from client.frontends.network_screen import NetworkTable
    from client.frontends.screen import Urgent

    relay, clock, host, guest, watcher = timed_game("0:12+0")
    first, second = movers(host, guest)
    clock.now += 2.55
    for core in (first, second, watcher):
        status = NetworkTable(GameRunner(core, _NoLink), None).status(lambda player: 0.0)  # type: ignore[arg-type]
        urgent = [part for part in status if isinstance(part, Urgent)]
        assert len(urgent) == 1 and urgent[0].startswith(f"{first.my_player} ") and "0:09.4!" in urgent[0], status
        warned = [part[1] for part in toolbar_fragments(core, {"connected": True}) if part[0] == "class:warning"]
        assert warned == [f"{first.my_player} 0:09.4!*"]
    play(relay, first)  # its clock stands under 10 s, no longer on its turn: no warning style
    for core in (first, second, watcher):
        status = NetworkTable(GameRunner(core, _NoLink), None).status(lambda player: 0.0)  # type: ignore[arg-type]
        assert not any(isinstance(part, Urgent) for part in status)
        assert all(part[0] == "" for part in toolbar_fragments(core, {"connected": True}))


def test_leaving_asks_first_while_a_claim_is_open_against_you_or_your_clock_runs():
    from client.words.network import leaving_warning

    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    clock.now += 3.0
    assert leaving_warning(first) == (
        f"your clock runs while you are away: {second.my_player} may claim the game on "
        "time in 58 s; type quit again to leave"
    )
    assert leaving_warning(second) is None and leaving_warning(watcher) is None  # not its turn; a watcher
    play(relay, first)
    relay.cores.remove(second)
    clock.now += 61.5
    relay.publish(first.act(Intent("claim")), first)
    back = GameCore(GameSession.restore(watcher.session.record, second.session.identity), clock=clock)
    back.resume_turn(back.session.moves, 40.0)  # 20 s on its clock: less than the claim's window
    assert leaving_warning(back, "/quit") == (
        f"{first.my_player}'s claim on time is open: unless you move within 20 s, "
        "you lose on time; type /quit again to leave"
    )
    assert leaving_warning(first) is None  # the claimant's clock does not run
    _, _, host, guest, _ = timed_game("days:3")
    assert leaving_warning(movers(host, guest)[0]) is None  # a correspondence game: days to come back


# -- a turn this client did not see begin: its time shown as a bound ----------------------------------------------
def late_watcher(relay: Relay, core: GameCore) -> GameCore:
    """A watcher that arrives now: the relay's stored lines first (MQTT's retain flag), then live ones."""
    late = GameCore(GameSession(core.game_id), watching=True, clock=core.clock)
    for line in list(relay.retained.values()):
        late.feed(line, stored=True)
    relay.attach(late)  # live from now on (what it has already changes nothing)
    return late


def test_a_watcher_arriving_mid_turn_shows_the_clock_to_move_as_at_most_until_a_turn_begins_live():
    """A watcher arriving 20 s into a 1+0 turn cannot know when it began (the relay gives no time; the lines carry
    only each signer's own monotonic times): where the players show 0:40, its toolbars (the line console's and the
    full screen's) show ``≤1:00`` for the side to move, which is true, and ``clock`` says why; the other clock is the
    record's, exact. Once a move comes live, its clocks are every other client's."""
    from types import SimpleNamespace

    from client.frontends.console import clocks_text, toolbar_text
    from client.frontends.network_screen import NetworkTable
    from client.words.board import BOUND_WHY
    from client.words.network import clock_report

    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    clock.now += 2.0
    play(relay, first)
    clock.now += 20.0
    late = late_watcher(relay, first)
    mover, waiter = my_player(second), my_player(first)
    assert not late.turn_seen_live and late.clock_is_bound(mover) and not late.clock_is_bound(waiter)
    for core in (first, second, watcher):
        assert f"{mover} 0:40*" in clocks_text(core) and "\u2264" not in clocks_text(core)
    shown = clocks_text(late)
    assert f"{mover} \u22641:00*" in shown and f"{waiter} 0:58" in shown and f"{waiter} \u2264" not in shown, shown
    assert f"{mover} \u22641:00*" in toolbar_text(late, {"connected": True})
    table = NetworkTable(SimpleNamespace(core=late, link=SimpleNamespace(connected=True)))  # type: ignore[arg-type]
    assert " \u22641:00" in " | ".join(table.status(lambda player: 0.0))
    report = clock_report(late)
    assert f"{mover} \u22641:00 left (to move)" in report and report.endswith(f"; \u2264: {BOUND_WHY}"), report
    clock.now += 5.0
    assert f"{mover} \u22640:55*" in clocks_text(late)  # it runs all the same
    play(relay, second)  # live
    clock.now += 3.0
    assert late.turn_seen_live and not late.clock_is_bound(waiter)
    assert clocks_text(late) == clocks_text(watcher) == clocks_text(first) and "\u2264" not in clocks_text(late)
    assert "\u2264" not in clock_report(late)


def test_a_turn_begun_from_the_relays_store_is_shown_at_least_in_an_untimed_game_and_never_on_ones_own_turn():
    """Untimed, the full screen shows the side to move's time on this move: a late watcher's is at least that
    (``≥0:05``). A player's own turn is never a bound: its thinking counts from its verifying the line that gave it,
    whenever that came, even from the relay's store."""
    from types import SimpleNamespace

    from client.frontends.console import clocks_text
    from client.frontends.network_screen import NetworkTable

    relay, clock, host, guest = untimed_on_a_clock()
    first, second = movers(host, guest)
    play(relay, first)
    clock.now += 20.0
    late = late_watcher(relay, first)
    clock.now += 5.0
    for core, shown in (
        (late, f"{second.my_player} \\S+ \u22650:05"),
        (second, f"{second.my_player} \\S+ \\(you\\) 0:25"),
    ):
        table = NetworkTable(SimpleNamespace(core=core, link=SimpleNamespace(connected=True)))  # type: ignore[arg-type]
        status = " | ".join(table.status(lambda player: 0.0))
        assert re.search(shown, status), status

    relay, clock, host, guest, watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    last = first.session.chain[-1].line
    back = GameCore(
        GameSession.restore([line for line in watcher.session.transcript if line != last], second.session.identity),
        clock=clock,
    )
    assert back.clock_is_bound(my_player(first))  # made mid-turn, no journal to say when: the other's clock, at most
    back.feed(last, stored=True)  # its turn, from the relay's store: its own clock is its own measure
    assert back.turn_seen_live is False and not back.clock_is_bound(my_player(second))
    assert "\u2264" not in clocks_text(back)
