"""The full-screen console as the person sees it: the app driven by prompt-toolkit pipe input, its output fed to a
terminal emulator (pyte), the emulated screen read back."""

from __future__ import annotations

import asyncio
import logging
import random
import re

import pyte
import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from client import network
from client.runner import GameRunner
from client.screen import MIN_COLUMNS, MIN_ROWS, game_screen
from test_client_network import Seat, game_id_of


class Terminal:
    """A terminal of ``columns`` x ``rows`` that prompt-toolkit writes to and pyte draws."""

    encoding = "utf-8"

    def __init__(self, columns: int = 110, rows: int = 34) -> None:
        self.size = Size(rows=rows, columns=columns)
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)

    def write(self, data: str) -> None:
        self.stream.feed(data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True

    def output(self) -> Vt100_Output:
        return Vt100_Output(self, lambda: self.size, term="xterm-256color", enable_cpr=False)  # type: ignore[arg-type]

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def colour_of(self, glyphs: str) -> set[str]:
        """The foreground colours the screen draws ``glyphs`` in (on the board, left of the divider)."""
        found = set()
        for row in range(self.screen.lines):
            for column in range(40):
                cell = self.screen.buffer[row][column]
                if cell.data in glyphs:
                    found.add(cell.fg)
        return found


def board_ranks(screen: str) -> list[str]:
    """The rank labels down the board's left edge, each also at its right edge."""
    ranks = []
    for row in screen.splitlines():
        found = re.match(r"\s*(\d+) .*\S (\d+)\s*$", row.split("│")[0])
        if found:
            assert found.group(1) == found.group(2), row
            ranks.append(found.group(1))
    return ranks


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch):
    """The screen's log file goes under the test's own state folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


async def wait_for(terminal: Terminal, words: str, seconds: float = 20) -> None:
    async with asyncio.timeout(seconds):
        while words not in terminal.text():
            await asyncio.sleep(0.05)


async def person(box: dict, pipe, terminal: Terminal, rng: random.Random, seen: dict) -> None:
    """Mistakes first, then a legal move whenever it is their turn, then /quit once the game is over."""
    while "runner" not in box:
        await asyncio.sleep(0.02)
    core = box["runner"].core
    while not core.session.started:
        await asyncio.sleep(0.02)
    for text, answer in (("/help", "/flip                 turn the board round"),
                         ("hello there", "not a move or a command"), ("resign", "commands start with /"),
                         ("/nonsense", "no command /nonsense"), ("/say good luck", "good luck")):
        pipe.send_text(text + "\r")
        await wait_for(terminal, answer)
    pipe.send_text("/flip\r")
    await asyncio.sleep(0.2)
    seen["flipped"] = terminal.text()
    pipe.send_text("/flip\r")
    tried = False
    for _ in range(1200):
        if core.session.over:
            break
        board = core.session.board
        if core.my_turn:
            moves = core.session.moves
            pipe.send_text(rng.choice(board.legal_moves()).text() + "\r")
            async with asyncio.timeout(10):
                while core.session.moves == moves and not core.session.over:
                    await asyncio.sleep(0.01)
            if not tried and not core.session.over:  # at once, while the bot thinks: refused, never sent
                pipe.send_text(core.session.board.legal_moves()[0].text() + "\r")
                await wait_for(terminal, "it is not your turn", 5)
                tried = True
        await asyncio.sleep(0.05)
    assert tried or core.session.over
    await wait_for(terminal, "game over")
    await asyncio.sleep(0.3)  # the last frame drawn
    seen["over"] = terminal.text()
    pipe.send_text("/quit\r")


@pytest.mark.parametrize("kind", ["oxono", "olix"])
@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
async def test_a_whole_game_on_the_full_screen(relay, tmp_path, kind, no_color, monkeypatch):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    host = Seat(tmp_path, "host", relay, bot="mcts", seconds=0.3, seed=1)  # thinks long enough to type out of turn
    hosting = asyncio.create_task(network.host(kind, host.options))
    game = await game_id_of(host)
    terminal = Terminal()
    box: dict = {}
    seen: dict = {}
    with create_pipe_input() as pipe:
        screen = game_screen(input=pipe, output=terminal.output())

        async def front(runner: GameRunner) -> int:
            box["runner"] = runner
            return await screen(runner)

        guest = Seat(tmp_path, "guest", relay, console=front)
        typing = asyncio.create_task(person(box, pipe, terminal, random.Random(4), seen))
        async with asyncio.timeout(120):
            assert await network.join(game, guest.options) == 0
            assert await hosting == 0
        await typing
    core = box["runner"].core
    final = seen["over"]
    sentence = core.session.result.sentence()
    toolbar = final.rstrip().splitlines()[-1]
    assert toolbar.startswith("game over | ") and "(you)" in toolbar and "opponent " in toolbar  # yours marked
    assert f"Game over: {sentence}"[:50] in final  # the log says how, in words
    files = " a  b  c  d  e  f" if kind == "oxono" else "a b c d e f g h i j k"
    assert files in final
    top, bottom = ("6", "1") if kind == "oxono" else ("11", "1")
    ranks = board_ranks(final)
    assert ranks[0] == top and ranks[-1] == bottom, final  # the top rank first, labelled on both sides
    flipped = board_ranks(seen["flipped"])
    assert flipped[0] == bottom and flipped[-1] == top, seen["flipped"]  # /flip turned it round
    moves = core.session.moves
    assert f"{moves:>3}." in final  # the last move numbered in the moves pane
    pieces = ("XOxo" if kind == "oxono" else "#o")
    colours = terminal.colour_of(pieces)
    if no_color:
        assert colours <= {"default"}
    else:
        assert colours - {"default"}  # drawn in the players' colours


async def test_below_the_minimum_size_it_says_so(relay, tmp_path):
    host = Seat(tmp_path, "host", relay, bot="random", seed=2)
    hosting = asyncio.create_task(network.host("olix", host.options))
    game = await game_id_of(host)
    terminal = Terminal(columns=MIN_COLUMNS - 10, rows=MIN_ROWS - 4)
    with create_pipe_input() as pipe:
        screen = game_screen(input=pipe, output=terminal.output())
        guest = Seat(tmp_path, "guest", relay, console=screen)
        joining = asyncio.create_task(network.join(game, guest.options))
        await wait_for(terminal, "too small")
        terminal.size = Size(rows=34, columns=110)  # made larger: the game appears
        terminal.screen.resize(34, 110)
        pipe.send_text("/moves\r")  # any key makes it redraw, as a resize would
        await wait_for(terminal, "seats ")
        logging.getLogger("olixono.test").warning("a warning from some task")  # never onto the terminal itself
        await wait_for(terminal, "warning: a warning from some task")
        assert "a warning from some task" in (tmp_path / "state" / "olixono" / "client.log").read_text()
        pipe.send_text("/resign\r")
        await wait_for(terminal, "Type /resign again to confirm")
        pipe.send_text("/resign\r")
        await wait_for(terminal, "Game over: second wins: first resigned"[:11])
        assert "resigned" in terminal.text()
        pipe.send_text("/quit\r")
        async with asyncio.timeout(30):
            assert await joining == 0 and await hosting == 0


def test_screen_is_the_front_end_asked_for():
    from client import network

    options = network.Options(screen=True)
    assert "game_screen" in network.front_end(options, True).__qualname__
    assert "line_console" in network.front_end(network.Options(), True).__qualname__


def test_completion_offers_the_legal_moves_and_the_slash_commands():
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from client.core import GameCore
    from client.screen import ScreenCompleter
    from protocol_helpers import start

    host, guest = start("olix")
    mover = GameCore(host) if GameCore(host).my_turn else GameCore(guest)
    words = [c.text for c in ScreenCompleter(mover).get_completions(Document("/re"), CompleteEvent())]
    assert words == ["/resign"]
    assert [c.text for c in ScreenCompleter(mover).get_completions(Document("k1"), CompleteEvent())] == [
        "k1", "k10", "k11"]


def test_the_board_marks_the_last_moves_squares():
    from client.core import GameCore
    from client.screen import board_fragments
    from protocol_helpers import mover, start

    host, guest = start("oxono")
    actor, other = mover(host, guest)
    other.receive(actor.move("Oc6c5").line)
    marked = "".join(text for style, text in board_fragments(GameCore(host), False) if "class:last" in style)
    assert marked == "[O]O"  # the totem on c6, the pawn on c5
