"""The line console, driven by prompt-toolkit pipe input: a person at the console plays a bot through a real relay."""

from __future__ import annotations

import asyncio
import random

import pytest
from network_helpers import Seat, game_id_of, rematch_line
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from protocol_helpers import board_of, identity_of, offered, playable, result_of, start

from client.cores.intents import Intent
from client.cores.network_game import GameCore, UiEvent
from client.flows import network
from client.frontends.console import line_console, prompt_text, toolbar_text
from client.shell.runner import GameRunner
from client.words.commands import completer as make_completer
from client.words.commands import completions
from olixono.olix import OlixBoard


async def typing(runner_box: dict[str, GameRunner], pipe, lines: list[str], rng: random.Random) -> None:
    """The person: a few mistakes first, then a legal move whenever it is their turn, until the game ends."""
    while "runner" not in runner_box:
        await asyncio.sleep(0.02)
    runner: GameRunner = runner_box["runner"]
    core = runner.core
    while not core.session.started:
        await asyncio.sleep(0.02)
    for text in ("help", "nonsense words", "legal", "say hello"):
        pipe.send_text(text + "\r")
        await asyncio.sleep(0.15)
    # An error in some background task: one warning line, never a "Press ENTER" that holds the game.
    asyncio.get_running_loop().call_exception_handler(
        {"message": "a background task failed", "exception": RuntimeError("boom")}
    )
    tried_out_of_turn = False
    for _ in range(400):
        if core.session.over:
            break
        board = board_of(core.session)
        if core.my_turn:
            pipe.send_text(rng.choice(board.legal_moves()).text().lower() + "\r")  # any letter case
        elif not tried_out_of_turn and board.legal_moves():
            pipe.send_text(board.legal_moves()[0].text() + "\r")
            tried_out_of_turn = True
        await asyncio.sleep(0.1)
    async with asyncio.timeout(10):  # over: the console stays for a rematch, until the person leaves
        while not any(line.startswith("Type rematch (or yes) for a rematch") for line in lines):
            await asyncio.sleep(0.05)
    pipe.send_text("quit\r")


@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_a_person_at_the_line_console_plays_a_whole_game(relay, tmp_path, kind):
    host = Seat(tmp_path, "host", relay, bot="mcts", seconds=0.15, seed=1)  # thinks long enough to type out of turn
    hosting = asyncio.create_task(network.host(kind, host.options))
    game = await game_id_of(host)
    printed: list[str] = []
    box: dict[str, GameRunner] = {}
    with create_pipe_input() as pipe:
        console = line_console(input=pipe, output=DummyOutput(), write=printed.append)

        async def front(runner: GameRunner) -> int:
            box["runner"] = runner
            status: int = await console(runner)
            return status

        guest = Seat(tmp_path, "guest", relay, console=front)
        person = asyncio.create_task(typing(box, pipe, printed, random.Random(3)))
        async with asyncio.timeout(90):
            assert await network.join(game, guest.options) == 0
            assert await hosting == 0
        person.cancel()
    text = "\n".join(printed)
    assert "Type help for the commands." in text and "say TEXT" in text  # help
    assert "error: not a move or a command: 'nonsense words'" in text
    assert "error: it is not your turn" in text
    assert "chat " in text and "(you): hello" in text
    assert "warning: a background task failed: RuntimeError('boom')" in text
    assert "seats " in text and "move 1 " in text
    core = box["runner"].core
    assert f"Game over: {result_of(core.session).sentence()}" in text
    files = "   a  b  c  d  e  f" if kind == "oxono" else "   a b c d e f g h i j k"
    boards = [line for line in printed if files in line]
    assert len(boards) >= core.session.moves  # the board, printed again after every move
    ranks = 6 if kind == "oxono" else 11
    assert boards[-1].splitlines()[:ranks] == board_of(core.session).show().splitlines()[:ranks]  # the final position


def test_the_prompt_toolbar_and_completion_follow_the_game():
    host, guest = start("olix")
    core = GameCore(guest)
    mover = core.my_turn
    text = prompt_text(core)
    assert ("(you) to move" in text) == mover and "vs " + identity_of(host).fingerprint in text
    toolbar = toolbar_text(core, {"connected": False})
    assert "relay: RECONNECTING" in toolbar and f"opponent {identity_of(host).fingerprint}: unknown" in toolbar
    completer = make_completer(lambda word: completions(core, word))
    words = [c.text for c in completer.get_completions(Document("k1"), CompleteEvent())]
    if mover:
        assert words == ["k1", "k10", "k11"]  # "1" is a prefix of 10 and 11
    else:
        assert words == []
    assert [c.text for c in completer.get_completions(Document("res"), CompleteEvent())] == ["resign"]
    watcher = GameCore(type(host)(host.game_id))
    watcher.session.receive_all(host.transcript)
    assert prompt_text(watcher).startswith("watching first to move")


def test_the_prompt_says_what_a_player_waits_for_before_the_game_starts():
    host, guest = offered("oxono")  # the guest holds the offer and has not asked yet
    assert prompt_text(GameCore(host)) == "waiting for an opponent to join> "
    lost = GameCore(type(guest)(guest.game_id, identity_of(guest)))
    assert prompt_text(lost) == "looking for the game on the relay> "  # nothing received yet
    core = GameCore(guest)
    core.session.join()
    assert prompt_text(core) == "asking to join> "
    assert prompt_text(GameCore(type(host)(host.game_id))) == "looking for the game on the relay> "


async def test_quit_asks_first_while_the_players_clock_runs_and_clock_shows_the_clocks():
    """On its turn in a live timed game, quit (or Ctrl-D) says what leaving costs and asks again; anything typed in
    between asks anew; Ctrl-C leaves at once. ``clock`` prints both clocks."""
    from test_client_clock import movers, timed_game

    from client.words.network import clock_report

    _, clock, host, guest, _ = timed_game("1+0")
    first, second = movers(host, guest)
    clock.now += 3.0
    warning = (
        f"your clock runs while you are away: {second.my_player} may claim the game on time in 58 s; type quit "
        "again to leave"
    )
    left = f"Left the game; olixono resume {first.game_id} takes it up again."

    async def typing(*keys: str) -> list[str]:
        return (await console_typing(first, *keys, leave=False))[0]

    assert await typing("\x04", "clock\r", "quit\r", "quit\r") == [warning, clock_report(first), warning, left]
    assert await typing("\x03") == [left]  # Ctrl-C


def behind_on_markers():
    """An Olix game between the helpers' two sessions, played at random until the player to move is behind on markers:
    (that player's core, the other's session)."""
    from protocol_helpers import mover

    host, guest = start("olix")
    rng = random.Random(5)
    for _ in range(300):
        mine, theirs = mover(host, guest)
        board = board_of(mine)
        assert isinstance(board, OlixBoard)
        leader = board.scoreboard().leader()
        if leader is not None and leader != board.turn:
            return GameCore(mine), theirs
        theirs.receive(mine.move(rng.choice(playable(mine))).line)
    raise AssertionError("nobody fell behind")


async def console_typing(
    core: GameCore, *keys: str, leave: bool = True, events: tuple[UiEvent, ...] = ()
) -> tuple[list[str], list[Intent]]:
    """``keys`` typed into the line console over ``core`` (``leave``: then Ctrl-C; else the keys end it): what it
    printed (its greeting aside, and its last line when ``leave``), and the intents it acted on."""
    from types import SimpleNamespace

    acted: list[Intent] = []

    async def act(intent) -> None:
        acted.append(intent)

    runner = SimpleNamespace(core=core, events=asyncio.Queue(), link=SimpleNamespace(connected=True), act=act)
    for event in events:  # come from the relay
        runner.events.put_nowait(event)
    printed: list[str] = []
    with create_pipe_input() as pipe:
        console = asyncio.create_task(line_console(input=pipe, output=DummyOutput(), write=printed.append)(runner))  # type: ignore[arg-type]  # what the console reads of a runner
        for typed in keys:
            assert not console.done(), printed
            pipe.send_text(typed)
            await asyncio.sleep(0.1)
        if leave:
            pipe.send_text("\x03")  # Ctrl-C: leave
        async with asyncio.timeout(10):
            assert await console == 0
    return printed[1:-1] if leave else printed[1:], acted


async def test_resign_asks_to_confirm_in_the_line_console_as_on_the_screen():
    """The README says resigning asks first: ``resign`` asks, the very next ``resign`` does it; anything else between
    asks anew."""
    from client.cores.intents import IntentKind

    host, _guest = start("oxono")
    core = GameCore(host)
    printed, acted = await console_typing(core, "resign\r", "legal\r", "resign\r")
    assert printed[0] == "Resign and lose the game? Type resign again to confirm." and printed[-1] == printed[0]
    assert acted == []  # asked twice, never confirmed
    printed, acted = await console_typing(core, "resign\r", "RESIGN\r")
    assert printed == ["Resign and lose the game? Type resign again to confirm."]
    assert [intent.kind for intent in acted] == [IntentKind.RESIGN]


async def test_olix_end_while_behind_says_it_loses_before_asking_to_confirm():
    from client.cores.intents import IntentKind

    core, leader = behind_on_markers()
    board = core.board
    me, other = core.my_player, next(name for name in board.PLAYERS if name != core.my_player)
    count = {name: len(board.scoreboard().positions(name)) for name in board.PLAYERS}
    printed, acted = await console_typing(core, "end\r", "end\r")
    assert printed[0].startswith(f"Ending now loses on markers ({me} holds {count[me]} marker")
    assert f"{other} {count[other]}: {other} leads" in printed[0] and printed[0].endswith(
        "Type end again to propose it anyway."
    ), printed
    assert [intent.kind for intent in acted] == [IntentKind.PROPOSE]
    printed, acted = await console_typing(GameCore(leader), "end\r")  # the one ahead: no question
    assert printed == [] and [intent.kind for intent in acted] == [IntentKind.PROPOSE]


async def test_a_declined_proposal_reads_as_one_sentence():
    """It read ``declined black refuses the proposal``: a verb twice."""
    from protocol_helpers import mover

    from protocol import EndDeclined

    host, guest = start("oxono")
    actor, waiter = mover(host, guest)
    waiter.receive(actor.propose().line)
    waiter.receive(actor.move(playable(actor)[0]).line)
    declined = [event for event in actor.receive(waiter.decline().line) if isinstance(event, EndDeclined)]
    printed, _ = await console_typing(GameCore(actor), events=tuple(declined))
    assert printed == [f"declined by {waiter.player_of(identity_of(waiter).public)}: the proposal is off"], printed


async def test_the_board_printed_after_a_move_and_by_board_names_the_last_move():
    """The full screen marks the last move's squares; the printed board says it on a line under it, numbered as the
    ``move N`` lines number the moves, the board's own lines as they were (a script reading them reads them still)."""
    from protocol_helpers import mover

    from protocol import MoveApplied

    host, guest = start("oxono")
    actor, waiter = mover(host, guest)
    text = playable(actor)[0]
    moved = [event for event in waiter.receive(actor.move(text).line) if isinstance(event, MoveApplied)]
    core = GameCore(waiter)
    printed, _ = await console_typing(core, "board\r", events=tuple(moved))
    last = f"last move: 1 {board_of(actor).PLAYERS[0]} {text} (totem {text[0]} to {text[1:3]}, pawn on {text[3:5]})"
    boards = [line for line in printed if "   a  b  c  d  e  f" in line]
    assert len(boards) == 2, printed  # after the move, and as board shows it
    for board in boards:
        assert board.splitlines()[:-1] == board_of(waiter).show().splitlines() and board.splitlines()[-1] == last, board


async def test_a_player_at_the_line_console_answers_a_rematch_then_asks_for_one(relay, tmp_path, monkeypatch, pipes):
    """A person at the line console (the guest) plays a ``--plain`` host: once the game is over the console says how
    to ask for a rematch and stays; the host asks, the console's yes agrees, and it hands over to the rematch (the
    host's new game, the colours swapped), played on in the same command. There the console asks, the host agrees:
    a third game. (One prompt-toolkit application a process: the other player is a ``--plain`` one.)"""
    from network_helpers import cancelled, check_rematch
    from network_helpers import said as seen

    from client.frontends import plain

    monkeypatch.setattr(plain, "REMATCH_GRACE", 30.0)  # the --plain host waits for its test's rematch, however slow
    host_in, host_typing = pipes()
    host = Seat(tmp_path, "host", relay, plain=True, commands=host_in)
    hosting = asyncio.create_task(network.host("olix", host.options))
    game = await game_id_of(host)
    with create_pipe_input() as guest_pipe:
        guest = Seat(
            tmp_path,
            "guest",
            relay,
            console=line_console(input=guest_pipe, output=DummyOutput(), write=lambda text: guest.lines.append(text)),
        )
        joining = asyncio.create_task(network.join(game, guest.options))

        def typed(text: str) -> None:
            host_typing.write(text + "\n")
            host_typing.flush()

        try:
            async with asyncio.timeout(60):
                await seen(guest, "seats ")
                guest_pipe.send_text("resign\r")
                await seen(guest, "Type resign again to confirm")
                guest_pipe.send_text("resign\r")
                over = await seen(guest, "Game over: ")
                await seen(guest, "Type rematch (or yes) for a rematch (the same terms, colours swapped); quit", over)
                await seen(host, "result: ")  # (typed before the host saw the end, it would be refused)
                typed("rematch")
                await seen(guest, "asks for a rematch: type rematch (or yes) to play it", over)
                guest_pipe.send_text("yes\r")
                second = await seen(guest, "Rematch: joining")
                await seen(guest, "seats ", second)
                guest_pipe.send_text("resign\r")
                await seen(guest, "Type resign again to confirm", second)
                guest_pipe.send_text("resign\r")
                await seen(guest, "Type rematch (or yes) for a rematch", second)
                guest_pipe.send_text("rematch\r")
                await seen(guest, "asks for a rematch: waiting for the answer", second)
                await seen(host, "asks for a rematch: type rematch (or yes)", rematch_line(host))
                typed("yes")
                third = await seen(guest, "Rematch: hosting")
                await seen(guest, "seats ", third)
                guest_pipe.send_text("quit\r")  # leaves the third game, unfinished: it stays resumable
                await seen(guest, "Left the game; ", third)
                host_typing.close()
                assert await joining == 0
                assert await hosting in (0, 3)  # (the host leaves the third game too, at the end of its commands)
        finally:
            await cancelled(hosting, joining)
    check_rematch(host, guest, game, guest.lines[second].split()[4].rstrip(","))
    assert guest.lines[third].startswith("Rematch: hosting olix game ")
    assert not any(line.startswith("Left the game") for line in guest.lines[:third])  # over: nothing to resume


def test_the_toolbar_fits_its_terminal_and_never_loses_the_relays_state():
    """In a narrow terminal the least wanted parts go first (the game's id, our fingerprint, the opponent's), never
    the relay's state, nor the opponent's presence."""
    _host, guest = start("olix")
    core = GameCore(guest)
    whole = toolbar_text(core, {"connected": False})
    assert len(whole) > 120 and whole.endswith(f"game {core.game_id}")
    for width in (120, 100, 80, 60):
        fitted = toolbar_text(core, {"connected": False}, width)
        assert len(fitted) <= width and "relay: RECONNECTING" in fitted and "unknown" in fitted, (width, fitted)
    assert f"you {identity_of(guest).public.fingerprint}" in toolbar_text(core, {"connected": True}, 120)
