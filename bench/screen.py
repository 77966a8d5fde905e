"""The full-screen console's cost at the terminal: prints one figure a line as ``name: value``.

    python bench/screen.py [--moves N]

- ``join_to_screen_s``: from starting ``olixono join GAME --screen`` in a 110 x 34 pty (which answers cursor
  requests, as a terminal does) to the first full screen: the board drawn and the toolbar saying whose turn it is
  (read back through the pyte terminal emulator; best of 3; target under 0.5 s);
- ``bytes_per_opponent_move``: what the screen writes to the terminal when the opponent's move arrives (median
  over the game's opponent moves, from the moment the person's own move was drawn to the frame after the reply);
- ``idle_bytes_per_s``: what it writes in a second of an idle game (the person's turn, nothing typed: only the
  thinking clock changes).

A full-screen app must redraw only what changed: prompt-toolkit's renderer writes the difference between frames.
The opponent is a bot in its own process (``olixono host olix --bot mcts``) through Mosquitto.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyte  # noqa: E402
from prompt_toolkit.data_structures import Size  # noqa: E402
from prompt_toolkit.input import create_pipe_input  # noqa: E402
from prompt_toolkit.output.vt100 import Vt100_Output  # noqa: E402

from bench.latency import join_to_prompt  # noqa: E402
from client.flows import network  # noqa: E402
from client.frontends.network_screen import game_screen  # noqa: E402
from client.shell.identity import save_identity  # noqa: E402
from client.shell.runner import GameRunner  # noqa: E402
from harness import options  # noqa: E402
from harness.clients import home_env, offered_game  # noqa: E402
from harness.figures import median, print_figures  # noqa: E402
from harness.relays import RelayProcess  # noqa: E402
from protocol import Identity  # noqa: E402

ROWS, COLUMNS = 34, 110


class CountingTerminal:
    """A terminal that counts the bytes written to it (and draws them with pyte)."""

    encoding = "utf-8"

    def __init__(self) -> None:
        self.written = 0
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.Stream(self.screen)

    def write(self, data: str) -> None:
        self.written += len(data.encode("utf-8"))
        self.stream.feed(data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def screen_ready(seen: bytes) -> bool:
    screen = pyte.Screen(COLUMNS, ROWS)
    pyte.ByteStream(screen).feed(seen)
    return any(line.startswith("your move | ") or " to move | " in line for line in screen.display)


async def play(folder: Path, moves: int) -> tuple[list[int], float]:
    relay = RelayProcess("mosquitto", folder / "relay").start()
    url = f"mqtt://127.0.0.1:{relay.port}"
    save_identity(Identity.generate(), folder / "host" / "config" / "olixono" / "identity")
    env = home_env(folder / "host")
    host = subprocess.Popen(  # noqa: ASYNC220 (starts it and returns: no wait)
        [sys.executable, "-m", "client", "host", "olix", "--relay", url, "--bot", "mcts", "--seconds", "0.3"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    terminal = CountingTerminal()
    per_move: list[int] = []
    idle = 0.0
    try:
        assert host.stdout is not None
        game = offered_game(host.stdout)
        if not game:
            raise RuntimeError("the host offered no game")
        box: dict[str, GameRunner] = {}
        with create_pipe_input() as pipe:
            output = Vt100_Output(
                terminal,  # type: ignore[arg-type]
                lambda: Size(rows=ROWS, columns=COLUMNS),
                term="xterm-256color",
                enable_cpr=False,
            )
            screen = game_screen(input=pipe, output=output, log_file=folder / "client.log")

            async def front(runner: GameRunner) -> int:
                box["runner"] = runner
                status: int = await screen(runner)
                return status

            options = network.Options(
                relay=url,
                identity=Identity.generate(),
                journal_dir=folder / "guest",
                write=lambda _: None,
                timeout=20,
                console=front,
            )
            joining = asyncio.create_task(network.join(game, options))
            while "runner" not in box:
                await asyncio.sleep(0.01)
            core = box["runner"].core
            rng = random.Random(1)
            async with asyncio.timeout(300):
                while not (core.session.started and core.my_turn):
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.5)
                before = terminal.written
                await asyncio.sleep(3.0)
                idle = (terminal.written - before) / 3.0
                while not core.session.over and len(per_move) < moves:
                    if not core.my_turn:
                        await asyncio.sleep(0.01)
                        continue
                    count = core.session.moves
                    assert core.session.board is not None
                    pipe.send_text(rng.choice(core.session.board.legal_moves()).text() + "\r")
                    while core.session.moves == count:
                        await asyncio.sleep(0.005)
                    await asyncio.sleep(0.1)  # the person's own move drawn
                    drawn = terminal.written
                    while not core.my_turn and not core.session.over:
                        await asyncio.sleep(0.005)
                    await asyncio.sleep(0.1)  # the reply drawn
                    if not core.session.over:  # (a move that ended the game had no reply)
                        per_move.append(terminal.written - drawn)
                pipe.send_text("/resign\r")
                await asyncio.sleep(0.3)
                pipe.send_text("/resign\r")
                while not core.session.over:
                    await asyncio.sleep(0.01)
                pipe.send_text("/quit\r")
                await joining
    finally:
        host.kill()
        host.wait(10)
        relay.stop()
    return per_move, idle


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--moves", type=int, default=20, help="opponent moves measured (default 20)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        start = time.perf_counter()
        joined = join_to_prompt(folder / "join", extra=("--screen",), ready=screen_ready, size=(ROWS, COLUMNS))
        print_figures([("join_to_screen_s", joined)], digits=3)
        per_move, idle = asyncio.run(play(folder / "play", args.moves))
        print_figures(
            [
                (
                    "bytes_per_opponent_move",
                    f"{median(per_move):.0f} (min {min(per_move)}, max {max(per_move)}, {len(per_move)} moves)",
                ),
                ("idle_bytes_per_s", idle, 0),
                ("seconds", time.perf_counter() - start, 1),
            ]
        )


if __name__ == "__main__":
    main()
