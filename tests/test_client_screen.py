"""The full-screen console as the person sees it: the app driven by prompt-toolkit pipe input, its output fed to a
terminal emulator (pyte), the emulated screen read back."""

from __future__ import annotations

import asyncio
import logging
import random
import re
import shutil
import tempfile
from pathlib import Path

import pyte
import pytest
from engine_helpers import outcome_of
from network_helpers import Seat, game_id_of, transcript
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from protocol_helpers import board_of, identity_of, playable, result_of, seat_of

from client.flows import network
from client.frontends.network_screen import NetworkTable, game_screen
from client.frontends.screen import MIN_COLUMNS, MIN_ROWS, TOO_SMALL, board_fragments, fill, screen_candidates
from client.shell.runner import GameRunner
from client.words.commands import completer
from olixono.common import GameKind
from olixono.games import new_board
from olixono.olix import OlixBoard
from protocol import GameSession, verify_transcript


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
        found = re.match(r"\s*(\d+) .*\S\s+(\d+)\s*$", row.split("│")[0])
        if found:
            assert found.group(1) == found.group(2), row
            ranks.append(found.group(1))
    return ranks


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch):
    """The screen's log file goes under the test's own state folder."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


async def wait_for(terminal: Terminal, words: str, seconds: float = 20) -> None:
    try:
        async with asyncio.timeout(seconds):
            while words not in terminal.text():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"the screen never showed {words!r}:\n{terminal.text()}") from None


async def person(
    box: dict[str, GameRunner], pipe, terminal: Terminal, rng: random.Random, seen: dict[str, str], kind: str
) -> None:
    """Mistakes first, then a legal move whenever it is their turn (and once a move the rules forbid, once one out
    of turn), then /quit once the game is over."""
    while "runner" not in box:
        await asyncio.sleep(0.02)
    core = box["runner"].core
    while not core.session.started:
        await asyncio.sleep(0.02)
    for text, answer in (
        ("/help", "/flip                turn the board round"),
        ("hello there", "not a move or a command"),
        ("resign", "Type /resign again to confirm"),
        ("/help", "/flip                turn the board round"),
        ("/nonsense", "no command /nonsense"),
        ("/say good luck", "good luck"),
    ):
        pipe.send_text(text + "\r")
        await wait_for(terminal, answer)
    pipe.send_text("/flip\r")
    await asyncio.sleep(0.2)
    seen["flipped"] = terminal.text()
    pipe.send_text("/flip\r")
    tried = illegal = False
    for _ in range(1200):
        if core.session.over:
            break
        board = board_of(core.session)
        if core.my_turn and not illegal and (not isinstance(board, OlixBoard) or board.occupied):
            wrong = (
                next(  # a pawn on its totem's square; a stone on a stone
                    square
                    for square in (f"{f}{r}" for r in range(1, 12) for f in "abcdefghijk")
                    if board.stone_at(board.parse_move(square).square) is not None
                )
                if isinstance(board, OlixBoard)
                else "Xa1a1"
            )
            pipe.send_text(wrong + "\r")  # parses, but the rules forbid it: the reason, and nothing sent
            await wait_for(terminal, "error: illegal: ")
            illegal = True
        if core.my_turn:
            moves = core.session.moves
            pipe.send_text(rng.choice(board.legal_moves()).text() + "\r")
            async with asyncio.timeout(10):
                while core.session.moves == moves and not core.session.over:
                    await asyncio.sleep(0.01)
            if not tried and not core.session.over:  # at once, while the bot thinks: refused, never sent
                pipe.send_text(playable(core.session)[0] + "\r")
                await wait_for(terminal, "it is not your turn", 5)
                tried = True
        await asyncio.sleep(0.05)
    assert tried or core.session.over
    assert illegal or core.session.over
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
    box: dict[str, GameRunner] = {}
    seen: dict[str, str] = {}
    with create_pipe_input() as pipe:
        screen = game_screen(input=pipe, output=terminal.output())

        async def front(runner: GameRunner) -> int:
            box["runner"] = runner
            status: int = await screen(runner)
            return status

        guest = Seat(tmp_path, "guest", relay, console=front)
        typing = asyncio.create_task(person(box, pipe, terminal, random.Random(4), seen, kind))
        joining = asyncio.create_task(network.join(game, guest.options))
        try:
            async with asyncio.timeout(120):
                await asyncio.wait({typing, joining}, return_when=asyncio.FIRST_EXCEPTION)
                if typing.done() and (failed := typing.exception()) is not None:
                    raise failed  # what the person saw, not a hang
                assert await joining == 0 and await hosting == 0
            await typing
        finally:
            for task in (typing, joining, hosting):
                task.cancel()
            await asyncio.gather(typing, joining, hosting, return_exceptions=True)
    core = box["runner"].core
    final = seen["over"]
    sentence = result_of(core.session).sentence()
    toolbar = final.rstrip().splitlines()[-1]
    assert toolbar.startswith("game over | ") and "(you)" in toolbar  # yours marked
    assert re.search(r"-[0-9a-f]{4} (here|gone)", toolbar) and toolbar.endswith("relay ok")  # the opponent's presence
    assert not re.search(r" \d+:\d\d", toolbar)  # over: nobody's turn runs (untimed: only the side to move's shows)
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
    pieces = "XOxo" if kind == "oxono" else "#o"
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
        await asyncio.sleep(0.2)
        rows = [row.rstrip() for row in terminal.text().splitlines() if row.strip()][:-1]  # (the input line last)
        assert len(rows) > 1 and " ".join(rows) == TOO_SMALL, rows  # broken at spaces only, never mid-word
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
        result = r"Game over: (\w+) wins by (?!\1)\w+'s resignation"  # the log's line: the board pane's may come first
        for _ in range(100):
            if re.search(result, terminal.text()):
                break
            await asyncio.sleep(0.05)
        assert re.search(result, terminal.text()), terminal.text()
        pipe.send_text("/quit\r")
        async with asyncio.timeout(30):
            assert await joining == 0 and await hosting == 0


def test_screen_is_the_front_end_asked_for():
    from client.flows import network

    options = network.Options(screen=True)
    assert "game_screen" in network.front_end(options, True).__qualname__
    assert "line_console" in network.front_end(network.Options(), True).__qualname__


def network_table(session: GameSession) -> NetworkTable:
    from types import SimpleNamespace

    from client.cores.network_game import GameCore

    runner = SimpleNamespace(core=GameCore(session), link=SimpleNamespace(connected=True))
    return NetworkTable(runner)  # type: ignore[arg-type]  # what the table reads of a runner


def completed(table, text: str) -> list[str]:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    return [
        c.text
        for c in completer(lambda word: screen_candidates(table, word)).get_completions(Document(text), CompleteEvent())
    ]


def test_completion_offers_the_legal_moves_and_the_slash_commands():
    from protocol_helpers import start

    host, guest = start("olix")
    table = network_table(host) if network_table(host).movable() else network_table(guest)
    assert completed(table, "/res") == ["/resign"] and "/rematch" in completed(table, "/re")
    assert completed(table, "k1") == ["k1", "k10", "k11"]  # 1 is a prefix of 10 and 11
    waiting = network_table(guest) if table.core.session is host else network_table(host)
    assert completed(waiting, "k1") == []  # no moves out of turn


def test_oxono_completion_goes_one_segment_at_a_time():
    from protocol_helpers import start

    host, guest = start("oxono")
    table = network_table(host) if network_table(host).movable() else network_table(guest)
    assert completed(table, "") == ["O", "X"] + [
        f"/{name}" for name in (*table.commands, "help", "flip", "moves", "quit")
    ]
    to = completed(table, "o")
    assert to and all(len(text) == 3 and text[0] == "O" for text in to)  # where totem O may go
    pawns = completed(table, to[0])
    assert pawns and all(len(text) == 5 and text.startswith(to[0]) for text in pawns)  # the pawn's squares
    board = table.board()
    assert board is not None
    legal = {move.text() for move in board.legal_moves()}
    assert set(pawns) == {move for move in legal if move.startswith(to[0])}


def test_the_board_marks_the_last_moves_squares():
    from protocol_helpers import mover, start

    host, guest = start("oxono")
    actor, other = mover(host, guest)
    other.receive(actor.move("Oc6c5").line)
    marked = "".join(text for style, text, *_ in board_fragments(network_table(host), False) if "class:last" in style)
    assert marked == "[O]O"  # the totem on c6, the pawn on c5


def test_the_moves_pane_follows_the_shown_move_unless_scrolled():
    from client.frontends.screen import moves_window

    assert moves_window(20, 20, None) == 11  # a game in play: the last nine moves
    assert moves_window(20, 5, None) == 0 and moves_window(20, 15, None) == 10  # a replay: the shown move in the middle
    assert moves_window(20, 20, 3) == 3 and moves_window(20, 20, 99) == 11 and moves_window(5, 5, None) == 0


@pytest.mark.parametrize("name", ["olix-ended-by-agreement.txt", "olix-game.txt", "oxono-draw-agreed.txt"])
def test_the_game_over_screen_fits_the_smallest_terminal(name):
    """The board, Olix's scoreboard and the ending in words with the export command: all in the board pane of an
    80 x 24 terminal (20 rows above the divider, the export command's row, input line and toolbar; 39 columns)."""
    from pathlib import Path

    from test_analysis import loaded

    _, session = loaded(str(Path(__file__).parent.parent / "protocol" / "vectors" / name))
    table = network_table(session)
    rows = "".join(fragment[1] for fragment in board_fragments(table, False)).splitlines()
    assert len(rows) <= MIN_ROWS - 4 and max(map(len, rows)) <= 39, rows
    text = " ".join(rows)
    assert f"Game over: {result_of(session).sentence()}." in text
    assert (
        "Save its record: the command below." in text
        and table.paste() == f"olixono export {session.game_id} > game.txt"
    )


def test_a_watcher_is_offered_no_player_commands():
    from pathlib import Path

    from test_analysis import loaded

    _, session = loaded(str(Path(__file__).parent.parent / "protocol" / "vectors" / "oxono-game.txt"))
    table = network_table(session)  # no identity: a spectator
    assert table.commands == ("legal", "board", "clock", "say") and table.prompt() == "watching> "
    assert completed(table, "/re") == [] and "Watching" in table.help()


def test_a_click_on_a_square_types_it():
    from prompt_toolkit.buffer import Buffer

    field = Buffer()
    fill(field, GameKind.OLIX, "f6", ". ")
    fill(field, GameKind.OLIX, "k11", "# ")
    assert field.text == "k11"  # Olix: the square
    field.text = ""
    for square, cell in (("c4", "[O]"), ("c6", " . "), ("c5", " . ")):  # Oxono: totem, destination, pawn
        fill(field, GameKind.OXONO, square, cell)
    assert field.text == "Oc6c5" and field.cursor_position == 5
    fill(field, GameKind.OXONO, "d4", "[X]")  # a new move starts at a totem
    assert field.text == "X"


def test_olix_shows_its_scoreboard_and_underlines_the_stones_that_hold_markers():
    from protocol_helpers import play_moves, start

    from client.frontends.screen import held_squares

    host, guest = start("olix")
    table = network_table(host)
    assert "markers 0 to 0: level" in "".join(f[1] for f in board_fragments(table, False))
    play_moves(host, guest, seed=0, plies=60)
    board = board_of(host)
    assert isinstance(board, OlixBoard)
    held = held_squares(board)
    assert held  # some formations hold markers after 60 stones
    fragments = board_fragments(table, False)
    underlined = [text for style, text, *_ in fragments if "class:held" in style]
    assert len(underlined) == len(held) and set(underlined) <= {"#", "o"}
    text = "".join(f[1] for f in fragments)
    scoreboard = board.scoreboard()
    for track in scoreboard.tracks:
        assert f"  {track.kind}  " in text
    leader = scoreboard.leader()
    assert (f"{leader} leads" if leader else "level") in text


# -- the same screen for a game at one terminal and for a replay ---------------------------------
def board_rows(terminal: Terminal, count: int) -> list[str]:
    """The board's rank rows as drawn (left of the divider), top first."""
    return [row.split("│")[0].rstrip() for row in terminal.text().splitlines()[:count]]


def shown_ranks(board) -> list[str]:
    """What the board's rank rows should read: its own picture, with the rank again at the right edge, in one column
    (after the last square's whole width: the engine's lines end at their last mark)."""
    width, full = (11, 3 + 11 * 2) if isinstance(board, OlixBoard) else (6, 2 + 6 * 3)
    return [f"{line.ljust(full)} {line.split()[0]}" for line in board.show().splitlines()[:width]]


@pytest.mark.parametrize("size", [(110, 34), (MIN_COLUMNS, MIN_ROWS)], ids=["large", "smallest"])
@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_a_game_at_one_terminal_on_the_full_screen(kind, size):
    from client.frontends.local_screen import LocalTable
    from client.frontends.screen import run_screen

    table = LocalTable(kind, vs="random", seed=3)
    terminal = Terminal(*size)
    rng = random.Random(5)
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(run_screen(table, input=pipe, output=terminal.output()))
        await wait_for(terminal, "your move>")
        pipe.send_text("\t")  # Tab draws the candidates, in a menu by the input line
        await wait_for(terminal, "a10" if kind == "olix" else "/legal")
        pipe.send_text("\x15")  # Ctrl-U: the input line emptied again
        board = table.board()
        for text, answer in (
            ("zz9", "a command: 'zz9'"),
            ("/undo", "nothing to undo"),  # the log may be narrow
            ("/nonsense", "no command /nonsense"),
        ):
            pipe.send_text(text + "\r")
            await wait_for(terminal, answer)
        if kind == "oxono":  # a move the rules forbid, in words
            pipe.send_text("Xa1a2\r")
            await wait_for(terminal, "error: illegal: ")
        else:
            pipe.send_text("/formations\r")
            await wait_for(terminal, "O=0, L=0, I=0, X=0")
        pipe.send_text(rng.choice(board.legal_moves()).text() + "\r")
        async with asyncio.timeout(10):
            while len(table.moves()) < 2:  # the bot answered
                await asyncio.sleep(0.02)
        pipe.send_text("/undo\r")
        await wait_for(terminal, "took back 2 moves")
        assert table.moves() == [] and board_rows(terminal, 1)[0] == shown_ranks(new_board(kind))[0]
        async with asyncio.timeout(60):
            while not board.is_game_over() and len(table.moves()) < 30:
                if table.movable():
                    count = len(table.moves())
                    pipe.send_text(rng.choice(board.legal_moves()).text() + "\r")
                    while len(table.moves()) == count:
                        await asyncio.sleep(0.01)
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        assert board_rows(terminal, len(shown_ranks(board))) == shown_ranks(board)  # the position as the engine has it
        if not board.is_game_over():
            pipe.send_text("/resign\r")
            await wait_for(terminal, "again to confirm")
            pipe.send_text("/resign\r")  # while the bot may be thinking: the person resigns, never the bot
            await wait_for(terminal, "resignation")
            assert outcome_of(board).winner != table.human
        sentence = outcome_of(board).sentence(board.PLAYERS)
        await wait_for(terminal, f"Game over: {sentence}"[:20])
        await asyncio.sleep(0.2)
        rows = terminal.text().rstrip().splitlines()
        assert rows[-1].startswith("game over | ") and len(rows) == size[1]  # the toolbar on the last row
        assert "/quit leaves." in [row.split("│")[0].strip() for row in rows]  # all of the ending fits the board pane
        pipe.send_text("/quit\r")
        assert await screen == 0


def vector_games() -> list[str]:
    from pathlib import Path

    # the timed games step through as the others do (their clocks are the protocol's tests'): a minute saved
    return sorted(
        str(path)
        for path in (Path(__file__).parent.parent / "protocol" / "vectors").glob("*.txt")
        if "timed" not in path.name and "correspondence" not in path.name
    )


@pytest.mark.parametrize("path", vector_games(), ids=lambda path: path.rsplit("/", 1)[-1])
async def test_replay_steps_through_the_protocol_vector_games(path):
    from client.flows.verify import load
    from client.frontends.replay import ReplayTable
    from client.frontends.screen import run_screen

    _status, summary, session = load(path)
    assert session is not None, summary
    table = ReplayTable(session, summary)
    count = len(table.moves())
    terminal = Terminal()

    async def at(number: int) -> None:
        await wait_for(terminal, f"replay: move {number} of {count}")
        board = table.boards[number]
        await asyncio.sleep(0.05)
        assert board_rows(terminal, len(shown_ranks(board))) == shown_ranks(board)

    with create_pipe_input() as pipe:
        screen = asyncio.create_task(run_screen(table, input=pipe, output=terminal.output(), notes=[summary]))
        await at(0)  # it opens at the start
        pipe.send_text("\x1b[F")  # End: the end, the result in words under the board
        await at(count)
        if session.result is not None:
            assert f"Game over: {session.result.sentence()}"[:28] in terminal.text()  # the pane wraps at 39
        pipe.send_text("\x1b[H")  # Home: the start
        await at(0)
        for number in range(1, count + 1):  # forward one move at a time: → and n
            pipe.send_text("\x1b[C" if number % 2 else "n")
            await at(number)
        pipe.send_text("\x1b[C")  # past the end: it stays there
        await at(count)
        for number in range(count - 1, max(-1, count - 4), -1):  # and back: ← and p
            pipe.send_text("\x1b[D" if number % 2 else "p")
            await at(number)
        pipe.send_text(f"{count + 5}\r")
        await wait_for(terminal, f"the game has {count} moves")
        pipe.send_text("1\r" if count else "0\r")  # a move number jumps there
        await at(min(1, count))
        pipe.send_text("/last\r")
        await at(count)
        if count > 2 * 9:  # PageUp / PageDown scroll the moves pane, nine moves at a time
            pipe.send_text("\x1b[5~")
            await wait_for(terminal, f"moves {count - 17}-{count - 9} of {count}")
            pipe.send_text("\x1b[6~")
            await wait_for(terminal, f"moves {count - 8}-{count} of {count}")
        pipe.send_text("q")  # q leaves a replay (the input line is empty)
        assert await screen == 0


async def test_a_click_on_the_board_types_the_square():
    from client.frontends.local_screen import LocalTable
    from client.frontends.screen import run_screen

    table = LocalTable("olix")  # two people at one terminal
    terminal = Terminal()
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(run_screen(table, input=pipe, output=terminal.output()))
        await wait_for(terminal, "first> ")
        column, row = 3 + 2 * 5, 11 - 6  # f6: after "11 " / " 6 ", two characters a square; rank 11 at the top
        pipe.send_text(f"\x1b[<0;{column + 1};{row + 1}M\x1b[<0;{column + 1};{row + 1}m")  # press and release
        await wait_for(terminal, "first> f6")
        pipe.send_text("\r")
        async with asyncio.timeout(5):
            while table.moves() != [("first", "f6")]:
                await asyncio.sleep(0.02)
        await wait_for(terminal, "second> ")
        pipe.send_text("/quit\r")
        assert await screen == 0


def test_the_full_screen_is_the_default_only_in_a_terminal_that_can_draw_it(monkeypatch):
    import io

    from client.cli import Front, full_screen

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Tty())
    monkeypatch.setattr("sys.stdout", Tty())
    assert full_screen(Front(), {"TERM": "xterm-256color"})
    assert not full_screen(Front(), {"TERM": "dumb"})  # TERM=dumb: plain
    assert not full_screen(Front(plain=True), {"TERM": "xterm"}) and not full_screen(
        Front(line=True), {"TERM": "xterm"}
    )
    monkeypatch.setattr("sys.stdout", io.StringIO())  # a pipe: plain, unless asked for
    assert not full_screen(Front(), {"TERM": "xterm"})
    assert full_screen(Front(screen=True), {"TERM": "xterm"})


def test_replay_without_a_terminal_prints_every_move_and_refuses_a_bad_transcript(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).parent.parent
    game = root / "protocol" / "vectors" / "oxono-game.txt"

    def replay(path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "client", "replay", str(path)],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )

    done = replay(game)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("oxono game ") and "move 1 pink " in done.stdout
    assert lines[-1] == "Game over: pink wins: four in a row of one symbol."
    forged = tmp_path / "forged.txt"
    text = game.read_text().splitlines()
    forged.write_text("\n".join([*text[:4], text[4].replace("move=", "move=X", 1), *text[5:]]) + "\n")  # signed no more
    bad = replay(forged)
    assert bad.returncode == 1 and bad.stderr.startswith(f"{forged}: line 5: ") and not bad.stdout
    missing = replay(tmp_path / "nothing.txt")
    assert missing.returncode == 1 and missing.stderr.startswith("olixono replay: cannot read ")


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
async def test_marks_survive_without_colour(no_color, monkeypatch):
    """The last move in reverse and Olix's stones that hold markers underlined: attributes, not colours, so they show
    under NO_COLOR too."""
    from pathlib import Path

    from test_analysis import loaded

    from client.frontends.replay import ReplayTable
    from client.frontends.screen import held_squares, run_screen

    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    summary, session = loaded(str(Path(__file__).parent.parent / "protocol" / "vectors" / "olix-game.txt"))
    table = ReplayTable(session, summary)
    terminal = Terminal()
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(run_screen(table, input=pipe, output=terminal.output()))
        await wait_for(terminal, "replay: move 0 ")
        pipe.send_text("\x1b[F")  # End: the last position, its stones that hold markers
        count = len(table.moves())
        await wait_for(terminal, f"replay: move {count} of {count}")
        await asyncio.sleep(0.1)
        cells = [(row, column, terminal.screen.buffer[row][column]) for row in range(11) for column in range(40)]
        underlined = {(row, column) for row, column, cell in cells if cell.underscore}
        reversed_ = [(row, column) for row, column, cell in cells if cell.reverse]
        pipe.send_text("/quit\r")
        assert await screen == 0

    def position(square: str) -> tuple[int, int]:  # rank 11 on the top row; "11 " then two columns a file
        return 11 - int(square[1:]), 3 + 2 * (ord(square[0]) - ord("a"))

    assert underlined == {position(square) for square in held_squares(table.board())} and underlined
    assert reversed_ == [position(table.moves()[-1][1])]
    if no_color:
        assert terminal.colour_of("#o") <= {"default"}


def test_leaving_never_waits_for_a_bot_still_thinking():
    """/quit while the bot thinks (here one that would think for ten minutes): the program ends without waiting for
    it, since the bot thinks in a daemon thread (``asyncio.to_thread`` would make ``asyncio.run`` wait for it). The
    bounds are the bot's: the screen's own waits may take what a loaded machine needs."""
    import threading

    from client.frontends.local_screen import LocalTable
    from client.frontends.screen import run_screen

    class SlowBot:
        release = threading.Event()

        def choose(self, board):
            self.release.wait(600)  # blocked, not busy: nothing left burning CPU after the test
            return board.legal_moves()[0]

    results: list[int] = []

    async def session() -> None:
        table = LocalTable("olix", vs="mcts", human="second")  # the bot moves first
        table.core.bot = SlowBot()  # type: ignore[assignment]  # the core is what the screen asks to think (the table's ``bot`` only names it)
        terminal = Terminal()
        with create_pipe_input() as pipe:
            screen = asyncio.create_task(run_screen(table, input=pipe, output=terminal.output()))
            await wait_for(terminal, "(mcts) thinking")
            await wait_for(terminal, "mcts thinking>")  # the prompt says so too: no "your move" while it thinks
            pipe.send_text("/quit\r")
            results.append(await screen)

    runner = threading.Thread(target=lambda: asyncio.run(session()), daemon=True)
    runner.start()
    try:
        runner.join(120)  # the screen's two waits (20 s each at most) and its end, far below the bot's ten minutes
        assert not runner.is_alive() and results == [0]
    finally:
        SlowBot.release.set()


def pasted_rows(terminal: Terminal) -> list[str]:
    """The rows between the divider under the game and the input line: the command to paste."""
    rows = terminal.text().splitlines()
    divider = max(index for index, row in enumerate(rows) if row.startswith("─" * 40))
    prompt = next(
        index
        for index, row in enumerate(rows)
        if index > divider and row.startswith(("> ", "your move>", "game over>"))
    )
    return [row.rstrip() for row in rows[divider + 1 : prompt]]


@pytest.mark.network
@pytest.mark.parametrize("tls", [False, True], ids=["mqtt", "mqtts-cafile"])
async def test_the_host_sees_the_join_command_whole_across_the_terminal_and_can_copy_it(tmp_path, tls):
    """At 80 columns the join command (a relay not the default; a TLS relay's --cafile too) is on a row of its own
    across the terminal, never wrapped mid-word: one row when it fits, else rows that a shell reads, pasted, as the
    one command (each but the last ends in a backslash). /copy puts it on the clipboard (OSC 52)."""
    from relay_fixtures import Relay, make_tls

    relay = Relay("embedded", tmp_path / "relay", tls=make_tls(tmp_path) if tls else None)
    relay.workdir.mkdir()
    await relay.start()
    terminal = Terminal(80, 24)
    short = Path(tempfile.mkdtemp(prefix="ca"))  # a CA path as a person's is, shorter than a row (pytest's is not)
    ca = short / "cert.pem"
    if tls:
        shutil.copy(tmp_path / "cert.pem", ca)
    try:
        with create_pipe_input() as pipe:
            host = Seat(tmp_path, "host", relay, cafile=ca if tls else None)
            host.options.console = lambda runner: game_screen(
                input=pipe, output=terminal.output(), notes=host.options.notes, invitation=host.options.invitation
            )(runner)
            hosting = asyncio.create_task(network.host("oxono", host.options))
            try:
                game = await game_id_of(host)
                command = host.options.invitation
                assert command is not None and f"--relay {relay.url}" in command
                assert (f"--cafile {ca}" in command) is tls
                await wait_for(terminal, f"olixono join {game}")
                rows = pasted_rows(terminal)
                assert all(len(row) <= 80 for row in rows) and (len(rows) == 1) is (len(command) <= 80), rows
                assert all(row.endswith(" \\") for row in rows[:-1]) and not rows[-1].endswith("\\"), rows
                assert " ".join(row.removesuffix(" \\").strip() for row in rows) == command, rows
                screen = terminal.text().splitlines()
                assert "under the board (/copy copies it)." in terminal.text(), terminal.text()  # the log says where
                assert sum(f"olixono join {game}" in row for row in screen) == 1, screen  # never in the log's width
                assert f"game id: {game}" in terminal.text()
                pipe.send_text("/copy\r")
                await wait_for(terminal, "copied the command to the")
                pipe.send_text("/quit\r")
                async with asyncio.timeout(20):
                    assert await hosting == 0
            finally:
                hosting.cancel()
                await asyncio.gather(hosting, return_exceptions=True)
    finally:
        shutil.rmtree(short)
        await relay.stop()


@pytest.mark.parametrize("kind, moves", [("oxono", ["Xf3f4"]), ("olix", ["k1", "k10", "a9"])])
def test_the_right_hand_rank_labels_stand_in_one_column(kind, moves):
    """A rank whose last square is empty is as wide as one whose last square holds a piece (the engine's own lines
    end at their last mark), and Olix's ranks 9 and 10 line up: every right-hand label starts in one column."""
    from client.frontends.local_screen import LocalTable

    table = LocalTable(kind)
    for move in moves:
        table.game.play(move)
    rows = "".join(fragment[1] for fragment in board_fragments(table, False)).splitlines()
    ranked = [row for row in rows if re.match(r"\s*\d+ ", row)]
    assert len(ranked) == (6 if kind == "oxono" else 11)
    columns = {len(row) - len(row.split()[-1]) for row in ranked}
    assert len(columns) == 1, ranked
    assert [row.split()[0] for row in ranked] == [row.split()[-1] for row in ranked]


def test_a_row_of_help_continues_under_its_description():
    """The log pane is narrow: a wrapped row of /help continues indented under its first row (under the
    description where that fits in half the pane), never at the pane's edge as if a new row began."""
    from client.frontends.screen import wrap_hanging

    row = "  /resign               give up: your opponent wins (asks you to confirm)"
    assert wrap_hanging(row, 80) == [row]
    wide = wrap_hanging(row, 60)
    assert wide[0].startswith("  /resign ") and all(r.startswith(" " * 24) and r[24] != " " for r in wide[1:])
    narrow = wrap_hanging(row, 40)
    assert len(narrow) > 1 and all(r.startswith("    ") and r[4] != " " for r in narrow[1:])
    assert wrap_hanging("error: a sentence long enough to wrap twice over", 20)[1][0] != " "
    assert wrap_hanging("", 20) == [""] and max(map(len, narrow + wide)) <= 60


class Hurried:
    """A table whose toolbar shows a clock under 10 s on its turn and whose leaving would cost the game (the screen's
    side of it: the network table's words are :mod:`client.words.network`')."""

    from client.frontends.screen import Table as _Table

    class Table(_Table):
        kind = GameKind.OXONO
        greeting = "a hurried table"

        def board(self):
            return None

        def moves(self):
            return []

        def status(self, spent):
            from client.frontends.screen import Urgent

            return ["your move", Urgent("pink 0:07.1!"), "black 0:30"]

        def leaving(self):
            return "your clock runs while you are away: type /quit again to leave"


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
async def test_a_clock_under_ten_seconds_shows_in_the_warning_style_and_quit_asks_first(no_color, monkeypatch):
    """The 10 s warning stands out in the reverse-video toolbar: ``0:07.1!`` bold (and red, where colour is allowed).
    /quit and Ctrl-D, while leaving may cost the game, ask first; asked, they leave."""
    from client.frontends.screen import run_screen

    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    terminal = Terminal()
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(run_screen(Hurried.Table(), input=pipe, output=terminal.output()))
        await wait_for(terminal, "pink 0:07.1!")
        row = next(index for index, line in enumerate(terminal.screen.display) if "pink 0:07.1!" in line)
        start = terminal.screen.display[row].index("pink 0:07.1!")
        hurried = [terminal.screen.buffer[row][column] for column in range(start, start + len("pink 0:07.1!"))]
        calm = [terminal.screen.buffer[row][column] for column in range(len("your move"))]
        assert all(cell.bold for cell in hurried) and not any(cell.bold for cell in calm)
        colours = {cell.fg for cell in hurried}  # in the reversed toolbar: a red block
        assert colours == ({"default"} if no_color else {"red"}), colours
        pipe.send_text("/quit\r")
        await wait_for(terminal, "type /quit again to leave")
        assert not screen.done()
        pipe.send_text("/moves\r")  # something else first: the next /quit asks again
        await wait_for(terminal, "no moves yet")
        pipe.send_text("\x04")  # Ctrl-D
        await asyncio.sleep(0.2)
        assert not screen.done() and terminal.text().count("type /quit again to leave") == 2
        pipe.send_text("/quit\r")
        async with asyncio.timeout(10):
            assert await screen == 0


async def test_the_full_screen_shows_the_seconds_a_players_moves_leave_unexplained_beside_its_clock():
    """A watcher of a 5+5 game in which one player thought 6 s and said 0.1 s: the toolbar shows ``(+5.8s)`` beside that
    player's clock (what the receipts leave unexplained, the slack aside), and nothing beside the other's."""
    from types import SimpleNamespace

    from test_protocol_receipts import table

    from client.cores.network_game import GameCore
    from client.frontends.screen import run_screen
    from protocol import GameSession

    seated = table("clock:300+5,rules:1")
    for _ in range(3):
        seated.play(500)
    cheat = seat_of(seated.watcher, identity_of(seated.mover()).public)
    seated.play(6000, claimed=100)
    seated.play(500)
    core = GameCore(GameSession(seated.watcher.game_id), watching=True)
    for line in seated.watcher.transcript:  # as they came, live: it saw the turn begin
        core.feed(line)
    honest = next(player for player in ("first", "second") if player != cheat)
    assert core.unexplained_ms(cheat) == 5800 and core.unexplained_ms(honest) == 0
    runner = SimpleNamespace(core=core, link=SimpleNamespace(connected=True), events=asyncio.Queue())
    terminal = Terminal()
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(run_screen(NetworkTable(runner), input=pipe, output=terminal.output()))  # type: ignore[arg-type]
        await wait_for(terminal, "(+5.8s)")
        toolbar = next(line for line in terminal.screen.display if "(+5.8s)" in line)
        assert re.search(rf"{cheat} \S+ \d:\d\d \(\+5\.8s\)", toolbar), toolbar
        assert re.search(rf"{honest} \S+ \d:\d\d(?! \(\+)", toolbar), toolbar
        assert toolbar.count("(+") == 1, toolbar
        pipe.send_text("/quit\r")
        async with asyncio.timeout(10):
            assert await screen == 0


async def both_leave(keys, host_typing, joining: asyncio.Task[int], hosting: asyncio.Task[int]) -> None:
    """The person on the screen types ``/quit`` and the ``--plain`` host's commands end: both commands end well."""
    keys.send_text("/quit\r")
    host_typing.close()
    async with asyncio.timeout(20):
        assert await joining == 0 and await hosting in (0, 3)


async def test_the_game_over_screen_asks_for_a_rematch_with_a_key_and_hands_over_to_it(
    relay, tmp_path, monkeypatch, pipes
):
    """A person on the full screen (the guest) plays a ``--plain`` host. Once the game is over the screen says how to
    ask for a rematch, its toolbar shows the key (``r: rematch``) and its help the key's row; the host asks, the
    toolbar says so, and the key agrees: the screen closes and the rematch (the host's new game, colours swapped)
    comes on a new screen in the same command. There the key asks, the host agrees: a third game, hosted by the
    guest. (One prompt-toolkit application a process: the other player is a ``--plain`` one.)"""
    from network_helpers import cancelled, check_rematch, said

    from client.frontends import plain

    monkeypatch.setattr(plain, "REMATCH_GRACE", 30.0)  # the --plain host waits for its test's rematch, however slow
    host_in, host_typing = pipes()
    host = Seat(tmp_path, "host", relay, plain=True, commands=host_in)
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    terminal = Terminal()

    def typed(text: str) -> None:
        host_typing.write(text + "\n")
        host_typing.flush()

    def toolbar() -> str:
        return terminal.text().rstrip().splitlines()[-1]

    with create_pipe_input() as keys:
        guest = Seat(tmp_path, "guest", relay, console=game_screen(input=keys, output=terminal.output()))
        joining = asyncio.create_task(network.join(game, guest.options))
        try:
            await wait_for(terminal, "seats ")
            for _ in range(2):
                keys.send_text("/resign\r")
                await asyncio.sleep(0.2)
            await wait_for(terminal, "Type /rematch (or r) for a rematch (the same terms, colours swapped);")
            await wait_for(terminal, "game over | r: rematch | ")
            keys.send_text("/help\r")
            await wait_for(terminal, "  r                    once the game is over, the input line empty:")
            await said(host, "result: ")  # (typed before the host saw the end, it would be refused)
            typed("rematch")
            await wait_for(terminal, "game over | rematch asked: r accepts | ")
            keys.send_text("r")  # the key alone, the input line empty
            second = await said(guest, "Rematch: joining")
            await said(guest, "Joining oxono game", second)
            await wait_for(terminal, "moves first")  # the rematch's screen, its seats drawn
            for _ in range(2):
                keys.send_text("/resign\r")
                await asyncio.sleep(0.2)
            await wait_for(terminal, "game over | r: rematch | ")
            keys.send_text("r")
            await wait_for(terminal, "game over | rematch asked: waiting | ")
            await said(host, "asks for a rematch: type rematch (or yes)", await said(host, "Rematch: "))
            typed("yes")
            third = await said(guest, "Rematch: hosting", second)
            await said(host, "seats ", await said(host, "Rematch: joining"))  # the third game, its seats drawn
            await both_leave(keys, host_typing, joining, hosting)
        finally:
            await cancelled(hosting, joining)
    check_rematch(host, guest, game, guest.lines[second].split()[4].rstrip(","))
    assert guest.lines[third].startswith("Rematch: hosting oxono game ")


def test_a_toolbar_too_wide_for_its_terminal_keeps_whose_turn_and_the_relays_state():
    from client.frontends.screen import fit_parts

    parts = ["your move", "pink 1a2b-3c4d (you) 4:07 (+6.2s)", "black 5e6f-7a8b 3:59 here", "relay ok"]
    assert fit_parts(parts, 200) == parts
    assert fit_parts(parts, 60) == ["your move", "black 5e6f-7a8b 3:59 here", "relay ok"]
    assert fit_parts(parts, 20) == ["your move", "relay ok"]  # cut by the terminal from there on, never dropped
    lost = ["RELAY LOST: reconnecting; your move", *parts[1:3]]  # the network screen's, its relay lost
    assert fit_parts(lost, 70) == ["RELAY LOST: reconnecting; your move", "black 5e6f-7a8b 3:59 here"]


def test_the_log_pane_shows_the_newest_lines_that_fit_with_errors_and_warnings_in_red():
    from client.frontends.screen import log_fragments

    log = ["first", "error: a sentence long enough to wrap", "warning: late", "last"]
    rows = log_fragments(log, 20, 4)
    shown = [(style, text) for style, text, *_ in rows if text != "\n"]
    assert [text for _, text in shown] == ["error: a sentence", "long enough to wrap", "warning: late", "last"]
    assert [style for style, _ in shown] == ["class:error"] * 3 + [""]
    assert log_fragments(log, 20, 1) == [("", "last")]


def test_the_toolbar_marks_urgent_parts_in_the_warning_style():
    from client.frontends.screen import Urgent, toolbar_fragments

    parts = ["your move", Urgent("pink 0:09!"), "relay ok"]
    assert toolbar_fragments(parts, 80) == [
        ("class:toolbar", "your move"),
        ("class:toolbar", " | "),
        ("class:toolbar class:warning", "pink 0:09!"),
        ("class:toolbar", " | "),
        ("class:toolbar", "relay ok"),
    ]
    assert [fragment[1] for fragment in toolbar_fragments(parts, 15)] == ["your move", " | ", "relay ok"]


async def test_a_takeback_agreed_on_the_full_screen_takes_the_move_off_its_board_and_moves_pane(relay, tmp_path, pipes):
    """An Olix game between a person on the full screen (the guest) and a ``--plain`` host: the second player, having
    moved, asks for a takeback and the first agrees (``/takeback`` on the screen, ``takeback`` at the host, whichever
    side each is): the screen says so, and its moves pane and board follow the move that replaces the one taken back."""
    from network_helpers import cancelled, said

    host_in, host_typing = pipes()
    host = Seat(tmp_path, "host", relay, plain=True, commands=host_in)
    hosting = asyncio.create_task(network.host("olix", host.options))
    game = await game_id_of(host)
    terminal = Terminal()
    with create_pipe_input() as keys:
        guest = Seat(tmp_path, "guest", relay, console=game_screen(input=keys, output=terminal.output()))
        joining = asyncio.create_task(network.join(game, guest.options))

        def typed(guest_types: bool, text: str) -> None:
            if guest_types:
                keys.send_text(f"{'/' if text.startswith('takeback') else ''}{text}\r")
            else:
                host_typing.write(text + "\n")
                host_typing.flush()

        try:
            seats = host.lines[await said(host, "seats ")]
            await wait_for(terminal, "seats ")
            guest_first = not seats.split(",")[0].endswith("(you)")
            for number, move in enumerate(["a1", "k11", "a11", "k1"], 1):
                typed(guest_first == (number % 2 == 1), move)
                await said(host, f"move {number} ")
                await wait_for(terminal, move)
            typed(not guest_first, "takeback")
            if guest_first:
                await wait_for(terminal, "asks to take back the last move")
            else:
                await said(host, "asks to take back the last move")
            typed(guest_first, "takeback")
            await wait_for(terminal, "takeback: move 4 (k1) taken back by agreement; second to move")
            await said(host, "taken back by agreement")
            typed(not guest_first, "j11")
            await said(host, "move 4 second j11")
            await wait_for(terminal, "j11")
            shown = terminal.text()
            assert "4. second j11" in shown and "4. second k1 " not in shown  # the moves pane
            await both_leave(keys, host_typing, joining, hosting)
        finally:
            await cancelled(hosting, joining)
    session, _, problem = verify_transcript(transcript(host, game))
    assert problem is None and [message.move for message in session.standing()] == ["a1", "k11", "a11", "j11"]
