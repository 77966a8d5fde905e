"""The bell: the terminal's BEL byte when the turn becomes the person's and when a claim on time is made against them,
counted where a terminal hears it (pyte's bell) through the real front ends: ``olixono play --screen`` on a pty, the
full screen and the line console over network cores; never for a watcher, one's own move, two people at one
terminal, nor twice a turn; silenced by ``--no-bell`` and ``NO_BELL``."""

from __future__ import annotations

import asyncio
import os
import select
import time
from types import SimpleNamespace

import pyte
import pytest
from cli_helpers import Terminal as ProcessTerminal
from cli_helpers import home
from prompt_toolkit.input import create_pipe_input
from protocol_helpers import playable
from test_client_claims import FrontRunner, claim, forward
from test_client_clock import Clock, movers, play, timed_game
from test_client_screen import Terminal

from client.cores.turn_clock import TurnSeen
from client.frontends.console import line_console
from client.frontends.network_screen import NetworkTable
from client.frontends.screen import run_screen
from olixono.games import new_board


class Seat(FrontRunner):
    """A front end's runner over the test relay, connected."""

    link = SimpleNamespace(connected=True)


class Heard(pyte.Screen):
    """A pyte screen that counts the times the terminal's bell rang."""

    bells = 0

    def bell(self, *args: object) -> None:
        self.bells += 1


class HeardTerminal(Terminal):
    """The screen tests' terminal, counting its bells."""

    screen: Heard

    def __init__(self, columns: int = 110, rows: int = 34) -> None:
        super().__init__(columns, rows)
        self.screen = Heard(columns, rows)
        self.stream = pyte.Stream(self.screen)


class PtyScreen:
    """``olixono ARGS`` on a pty of 80x24, its output drawn by pyte (counting the bells)."""

    def __init__(self, tmp_path, *args: str, **env: str) -> None:
        environ, _ = home(tmp_path, "player")
        self.process = ProcessTerminal(dict(environ, **env), *args)
        self.screen = Heard(80, 24)
        self.stream = pyte.Stream(self.screen)

    def pump(self, words: str, timeout: float = 20) -> None:
        """Draw what comes until the screen shows ``words``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if words in "\n".join(self.screen.display):
                return
            readable, _, _ = select.select([self.process.primary], [], [], 0.05)
            if readable:
                self.stream.feed(os.read(self.process.primary, 65536).decode("utf-8", "replace"))
        raise AssertionError(f"the screen never showed {words!r}:\n" + "\n".join(self.screen.display))

    def leave(self) -> int:
        self.process.type("/quit\r")
        status = self.process.wait(30)
        self.stream.feed(self.process.seen)  # what came after the last pump
        return status


@pytest.mark.parametrize(
    ("flag", "env", "bells"),
    [((), {}, 1), (("--no-bell",), {}, 0), ((), {"NO_BELL": "1"}, 0)],
    ids=["on", "no-bell", "NO_BELL"],
)
def test_the_full_screen_rings_once_when_the_bots_move_makes_it_your_turn(tmp_path, flag, env, bells):
    """Seated second against a bot: its first move gives the turn to the person, which rings (unless silenced)."""
    seat = PtyScreen(
        tmp_path, "play", "oxono", "--vs", "random", "--as", "black", "--seed", "1", "--screen", *flag, **env
    )
    try:
        seat.pump("your move |")  # the toolbar: the bot has moved
        time.sleep(0.5)
        assert seat.leave() == 0
    finally:
        seat.process.stop()
    assert seat.screen.bells == bells


def test_two_people_at_one_terminal_hear_no_bell(tmp_path):
    """Each turn comes with a move typed at this very terminal: nothing to hear."""
    move = new_board("oxono").legal_moves()[0].text()
    seat = PtyScreen(tmp_path, "play", "oxono", "--screen")
    try:
        seat.pump("pink to move |")
        seat.process.type(move + "\r")
        seat.pump("black to move |")
        assert seat.leave() == 0
    finally:
        seat.process.stop()
    assert seat.screen.bells == 0


async def test_the_local_full_screen_rings_once_a_turn_never_for_the_persons_own_move_or_undo():
    from client.frontends.local_screen import LocalTable

    table = LocalTable("oxono", vs="random", seed=3)
    terminal = HeardTerminal()
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(run_screen(table, input=pipe, output=terminal.output(), bell=True))
        for count in (2, 4):
            await asyncio.sleep(0.2)
            pipe.send_text(table.board().legal_moves()[0].text() + "\r")
            async with asyncio.timeout(10):
                while len(table.moves()) < count:  # the bot answered
                    await asyncio.sleep(0.02)
            await asyncio.sleep(0.2)
            assert terminal.screen.bells == count // 2
        pipe.send_text("/undo\r")  # back to a turn already heard
        await asyncio.sleep(0.3)
        pipe.send_text("/resign\r/resign\r")
        await asyncio.sleep(0.3)
        assert table.over() and terminal.screen.bells == 2
        pipe.send_text("/quit\r")
        async with asyncio.timeout(10):
            assert await screen == 0


async def console_bells(core, relay, moves, *, bell: bool = True, claimant=None) -> int:
    """The line console over ``core`` (its terminal counting the bells) while, on the test relay, ``moves`` is played
    out: each mover in turn, typed into the console when it is ``core``'s own move; then ``claimant`` claims (if
    given). The bells heard."""
    terminal = HeardTerminal()
    runner = Seat(relay, core)
    seen = len(relay.events[id(core)])
    with create_pipe_input() as pipe:
        console = asyncio.create_task(
            line_console(input=pipe, output=terminal.output(), write=lambda text: None, bell=bell)(runner)  # type: ignore[arg-type]
        )
        await asyncio.sleep(0.1)
        for mover in moves:
            if mover is core:
                pipe.send_text(core.board.legal_moves()[0].text() + "\r")
            else:
                play(relay, mover)
            await asyncio.sleep(0.15)
            seen = forward(relay, core, runner, seen)
            await asyncio.sleep(0.15)
        if claimant is not None:
            claim(relay, claimant)
            forward(relay, core, runner, seen)
            await asyncio.sleep(0.2)
        pipe.send_text("\x03")
        async with asyncio.timeout(10):
            await console
    return terminal.screen.bells


async def test_the_line_console_rings_when_the_opponents_move_comes_never_for_ones_own_nor_a_watcher():
    relay, _clock, host, guest, watcher = timed_game("5+3")
    first, second = movers(host, guest)
    assert await console_bells(second, relay, [first, second, first]) == 2  # each of the opponent's moves
    relay, _clock, host, guest, watcher = timed_game("5+3")
    first, second = movers(host, guest)
    assert await console_bells(watcher, relay, [first, second, first]) == 0
    relay, _clock, host, guest, watcher = timed_game("5+3")
    first, second = movers(host, guest)
    assert await console_bells(second, relay, [first, second, first], bell=False) == 0


async def test_a_claim_against_you_rings_once_more_on_a_turn_already_heard():
    """The opponent's flag claim against the person's turn (with time left by its own watch): one bell for it, none
    again for the turn it is on."""
    relay, clock, host, guest, _watcher = timed_game("1+0")
    first, second = movers(host, guest)
    play(relay, first)
    second.clock = Clock()
    second.clock.now = clock.now
    # it saw its turn late: time left by its own watch
    second.turn_clock.turn = TurnSeen(second.session.moves, clock.now + 2.5)
    clock.now += 61.5
    second.clock.now += 61.5
    assert await console_bells(second, relay, [], claimant=first) == 1
    assert second.flag_against_me() is not None and not second.over


async def test_the_network_full_screen_rings_when_the_turn_becomes_yours():
    relay, _clock, host, guest, _watcher = timed_game("5+3")
    first, second = movers(host, guest)
    runner = Seat(relay, second)
    terminal = HeardTerminal()
    seen = len(relay.events[id(second)])
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(
            run_screen(
                NetworkTable(runner),  # type: ignore[arg-type]
                input=pipe,
                output=terminal.output(),
                bell=True,
            )
        )
        await asyncio.sleep(0.2)
        assert terminal.screen.bells == 0
        play(relay, first)
        forward(relay, second, runner, seen)
        await asyncio.sleep(0.3)
        assert terminal.screen.bells == 1
        pipe.send_text(playable(second)[0] + "\r")  # its own move: no bell
        await asyncio.sleep(0.3)
        assert second.moves == 2 and terminal.screen.bells == 1
        pipe.send_text("/quit\r")
        await asyncio.sleep(0.2)
        pipe.send_text("/quit\r")  # asked to confirm while its clock runs
        async with asyncio.timeout(10):
            assert await screen == 0


def test_the_plain_front_end_never_rings(tmp_path):
    """``--plain`` is for scripts and screen readers: no BEL byte in its text, even against a bot on its turn."""
    import subprocess
    import sys

    from cli_helpers import ROOT

    environ, _ = home(tmp_path, "player")
    done = subprocess.run(
        [sys.executable, "-m", "client", "play", "oxono", "--vs", "random", "--as", "black", "--seed", "1", "--plain"],
        input="resign\n",
        env=environ,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "wins by black's resignation" in done.stdout and "\a" not in done.stdout + done.stderr
