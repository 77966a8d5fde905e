"""Real processes: a player SIGKILLed mid-game and resumed; two players and a watcher in real terminals (tmux).

Every process here is started by the test and stopped by its PID (tmux: the test's own server, on its own
socket); traffic goes to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import ROOT, finish, game_lines, home, read_until, spawn, stop, transcript
from protocol_helpers import playable, result_of
from relay_fixtures import TOOLS_REQUIRED, RelayProcess

from harness.mqtt import bare_client
from protocol import GameSession, Identity, PublicKey, game_filter, verify_transcript
from relay.mosquitto import free_port


@pytest.mark.network
async def test_a_player_killed_mid_game_resumes_and_the_game_finishes(tmp_path):
    relay = await RelayProcess(free_port()).start()
    url = f"mqtt://127.0.0.1:{relay.port}"
    host_env, _ = home(tmp_path, "host")
    guest_env, _ = home(tmp_path, "guest")
    host = guest = resumed = None
    try:
        host = await spawn(
            host_env, "host", "olix", "--relay", url, "--bot", "mcts", "--seconds", "0.05", "--seed", "1"
        )
        host_lines: list[str] = []
        game = (await read_until(host, r"olixono join (\S{22})", host_lines)).group(1)
        guest = await spawn(
            guest_env, "join", game, "--relay", url, "--bot", "mcts", "--seconds", "0.05", "--seed", "2"
        )
        guest_lines: list[str] = []
        await read_until(guest, r"^move 9 ", guest_lines)
        guest.send_signal(signal.SIGKILL)  # no goodbye, no clean disconnect: the relay sends its will
        await guest.wait()
        before = len(transcript(guest_env, game))
        resumed = await spawn(guest_env, "resume", game, "--relay", url, "--bot", "random", "--seed", "3")
        resumed_lines: list[str] = []
        assert await finish(resumed, resumed_lines) == 0, "\n".join(resumed_lines)
        assert await finish(host, host_lines) == 0, "\n".join(host_lines)
    finally:
        for process in (host, guest, resumed):
            await stop(process)
        await relay.stop(kill=True)
    assert any("gone" in line and "presence" in line for line in host_lines)  # the will told the host
    assert any(line.startswith("Taking up olix game") for line in resumed_lines)
    lines = transcript(guest_env, game)
    assert lines == transcript(host_env, game) and len(lines) > before
    session, _, problem = verify_transcript(lines)
    assert problem is None and session.result is not None


# -- two real terminals ---------------------------------------------------------------------------------------
needs_tmux = pytest.mark.skipif(
    shutil.which("tmux") is None and not TOOLS_REQUIRED, reason="tmux is not installed (bash scripts/test installs it)"
)


class Tmux:
    """A tmux server of the test's own (its own socket), ended by its PID."""

    def __init__(self, tmp_path: Path) -> None:
        self.socket = str(tmp_path / "tmux.sock")
        self.pid: int | None = None

    def run(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=10)
        if result.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {result.stderr}")
        return result.stdout

    def start(self, env: dict[str, str], command: list[str]) -> None:
        environment = [f"{name}={env[name]}" for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "PYTHONPATH")]
        shell = " ".join(["env", *environment, "TERM=xterm-256color", sys.executable, "-m", "client", *command])
        if self.pid is None:
            # keep each screen readable after its program ends: set in the same tmux command as the session is made,
            # before a program that ends at once (a usage message) can take the server down with it
            self.run(
                "new-session",
                "-d",
                "-s",
                "olixono",
                "-x",
                "140",
                "-y",
                "45",
                shell,
                ";",
                "set-option",
                "-g",
                "remain-on-exit",
                "on",
            )
            self.pid = int(self.run("display-message", "-p", "#{pid}").strip())
        else:
            self.run("new-window", "-t", "olixono", shell)

    def screen(self, window: int) -> str:
        return self.run("capture-pane", "-p", "-J", "-S", "-400", "-t", f"olixono:{window}")

    def type(self, window: int, text: str) -> None:
        self.run("send-keys", "-t", f"olixono:{window}", "-l", text)
        self.run("send-keys", "-t", f"olixono:{window}", "Enter")

    def keys(self, window: int, *names: str) -> None:
        """Keys by tmux's names (``Left``, ``Home``, ``PageUp``)."""
        self.run("send-keys", "-t", f"olixono:{window}", *names)

    def wait_exit(self, window: int, timeout: float = 20) -> int:
        """Wait until the window's program has ended (its pane is kept: remain-on-exit); its exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.run("display-message", "-p", "-t", f"olixono:{window}", "#{pane_dead} #{pane_dead_status}")
            dead, _, status = state.strip().partition(" ")
            if dead == "1":
                return int(status or 0)
            time.sleep(0.1)
        raise AssertionError(f"window {window} never ended:\n{self.screen(window)}")

    def wait_for(self, window: int, pattern: str, timeout: float = 20) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.screen(window), re.M)
            if found:
                return found
            time.sleep(0.1)
        raise AssertionError(f"window {window} never showed {pattern!r}:\n{self.screen(window)}")

    def wait_for_prompt(self, window: int, words: str, timeout: float = 20) -> None:
        """Until the prompt now shown (the last prompt line on the screen) holds ``words``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            prompts = re.findall(r"^\S[^>\n]*>(?: |$)", self.screen(window), re.M)
            if prompts and words in prompts[-1]:
                return
            time.sleep(0.05)
        raise AssertionError(f"window {window}'s prompt never said {words!r}:\n{self.screen(window)}")

    def stop(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)  # the server ends its panes' processes with it
            self.pid = None


async def follow(url: str, game: str, session: GameSession, stop_event: asyncio.Event) -> None:
    """The test's own eyes on the game: a spectator session fed by the relay."""
    host, port = url.removeprefix("mqtt://").split(":")
    assert host == "127.0.0.1", url
    async with bare_client(int(port), timeout=10) as client:
        await client.subscribe(game_filter(game), qos=1)
        async for message in client.messages:
            session.receive(bytes(message.payload))
            if stop_event.is_set():
                return


@dataclass
class Terminals:
    """Two players and a watcher, each in a tmux window of one server (0 host, 1 guest, 2 watcher), and the test's
    own spectator session of their game."""

    tmux: Tmux
    game: str
    session: GameSession
    window: dict[PublicKey | None, int]  # a seated key -> its window
    envs: dict[str, tuple[dict[str, str], Identity]]  # a name -> its environment and key


@contextlib.asynccontextmanager
async def three_terminals(tmp_path: Path, kind: str, *extra: str) -> AsyncIterator[Terminals]:
    """A relay, then ``olixono host``, ``join`` and ``watch`` (with ``extra`` options) in real terminals, until the
    seats are drawn; everything is stopped by PID afterwards, and both players' journals must hold the game the
    test's spectator saw."""
    relay = await RelayProcess(free_port()).start()
    url = f"mqtt://127.0.0.1:{relay.port}"
    envs = {name: home(tmp_path, name) for name in ("host", "guest", "watcher")}
    tmux = Tmux(tmp_path)
    stop_event = asyncio.Event()
    follower = None
    try:
        tmux.start(envs["host"][0], ["host", kind, "--relay", url, *extra])
        game = (await asyncio.to_thread(tmux.wait_for, 0, r"olixono join (\S{22})")).group(1)
        tmux.start(envs["guest"][0], ["join", game, "--relay", url, *extra])
        tmux.start(envs["watcher"][0], ["watch", game, "--relay", url, *extra])
        session = GameSession(game)
        follower = asyncio.create_task(follow(url, game, session, stop_event))
        async with asyncio.timeout(30):
            while not session.started:
                await asyncio.sleep(0.1)
        yield Terminals(tmux, game, session, {envs["host"][1].public: 0, envs["guest"][1].public: 1}, envs)
    finally:
        stop_event.set()
        tmux.stop()
        if follower is not None:
            follower.cancel()
            await asyncio.gather(follower, return_exceptions=True)
        await relay.stop(kill=True)
    assert transcript(envs["host"][0], game) == transcript(envs["guest"][0], game) == game_lines(session.transcript)


async def play_by_keys(terminals: Terminals, rng: random.Random, my_turn_shown: Callable[[int], object]) -> None:
    """Random legal moves typed into the terminal of the player to move (once the screen there says it is their
    turn, ``my_turn_shown``), and once a move typed by the other player, which must be refused and never sent."""
    tmux, session, window = terminals.tmux, terminals.session, terminals.window
    refused = False
    async with asyncio.timeout(240):
        while not session.over:
            actor = window[session.actor]
            moves = sorted(playable(session))
            if not refused:
                tmux.type(1 - actor, moves[0])
                await asyncio.to_thread(tmux.wait_for, 1 - actor, r"error: it is not your turn")
                refused = True
            before = session.moves
            # the test's own spectator may see the last move before the player's client does
            await asyncio.to_thread(my_turn_shown, actor)
            tmux.type(actor, rng.choice(moves))
            while session.moves == before and not session.over:
                await asyncio.sleep(0.05)


@pytest.mark.network
@needs_tmux
@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_two_players_and_a_watcher_in_real_terminals(tmp_path, kind):
    async with three_terminals(tmp_path, kind, "--line") as terminals:
        tmux, game, session = terminals.tmux, terminals.game, terminals.session
        await asyncio.to_thread(tmux.wait_for, 2, r"watching (pink|first) to move>")
        first = terminals.window[session.actor]
        await asyncio.to_thread(tmux.wait_for, first, r"(pink|first) \(you\) to move vs \w{4}-")
        await asyncio.to_thread(tmux.wait_for, 1 - first, r"to move vs \w{4}-\S+ \(waiting\)>")
        toolbar = await asyncio.to_thread(tmux.wait_for, first, r"relay: connected  \|  opponent \S+: here.*")
        assert toolbar.group(0).rstrip().endswith(f"game {game}")
        await play_by_keys(terminals, random.Random(7), lambda pane: tmux.wait_for_prompt(pane, "(you) to move"))
        sentence = result_of(session).sentence()
        for pane in (0, 1, 2):
            await asyncio.to_thread(tmux.wait_for, pane, re.escape(f"Game over: {sentence}"), 20)
        assert f"move {session.moves} " in tmux.screen(2)  # the watcher saw the last move


@pytest.mark.network
@needs_tmux
@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_two_players_and_a_watcher_on_the_full_screen_in_real_terminals(tmp_path, kind):
    """The same as above on the full screen, the default in a terminal: keys sent into real terminals, the full
    screens captured and checked; the watcher's /say shows on all three screens."""
    async with three_terminals(tmp_path, kind) as terminals:
        tmux, session = terminals.tmux, terminals.session
        await asyncio.to_thread(tmux.wait_for, 1, r"Joining \w+ game \S+, hosted by \S+:")  # check it!
        first = terminals.window[session.actor]
        await asyncio.to_thread(tmux.wait_for, first, r"^your move \| ")  # the toolbar
        await asyncio.to_thread(tmux.wait_for, 2, r"^\S+ to move \| .*relay ok")  # the watcher's
        talker = terminals.envs["watcher"][1].fingerprint
        tmux.type(2, "/say hi all")  # the watcher's talk, beside the game: both players see it
        for pane, mine in ((0, ""), (1, ""), (2, " (you)")):
            await asyncio.to_thread(tmux.wait_for, pane, re.escape(f"watcher {talker}{mine}: hi all"))

        def my_turn_shown(pane: int) -> None:
            """The last move in the player's moves pane (its client has it: a screen not yet redrawn after its own
            move still shows the 'your move' it showed before that move), then its toolbar's turn."""
            if session.moves:
                tmux.wait_for(pane, rf"│ *{session.moves}\. ")
            tmux.wait_for(pane, r"^your move \| ")

        await play_by_keys(terminals, random.Random(11), my_turn_shown)
        sentence = result_of(session).sentence()
        for pane in (0, 1, 2):
            await asyncio.to_thread(tmux.wait_for, pane, r"^game over \| ", 20)
            await asyncio.to_thread(tmux.wait_for, pane, re.escape(f"Game over: {sentence}"[:60]), 20)
        assert f"{session.moves:>3}. " in tmux.screen(2)  # the watcher's moves pane has the last move
        for pane in (0, 1, 2):
            tmux.type(pane, "/quit")


@needs_tmux
async def test_local_play_and_a_replay_on_the_full_screen_in_a_real_terminal(tmp_path):
    """``olixono play`` and ``olixono replay`` in a real terminal: the full screen by default, keys sent, the screen
    read back."""
    env, _ = home(tmp_path, "player")
    tmux = Tmux(tmp_path)
    try:
        tmux.start(env, ["play", "olix", "--vs", "random", "--seed", "1"])
        await asyncio.to_thread(tmux.wait_for, 0, r"^your move \| first \(you\) ")
        tmux.type(0, "f6")
        await asyncio.to_thread(tmux.wait_for, 0, r"│ *2\. second ")  # the bot answered, in the moves pane
        assert re.search(r"^ 6 \. \. \. \. \. # ", tmux.screen(0), re.M)
        tmux.type(0, "/resign")
        await asyncio.to_thread(tmux.wait_for, 0, r"again to confirm")
        tmux.type(0, "/resign")
        await asyncio.to_thread(tmux.wait_for, 0, r"Game over: second wins by first's resignation")
        tmux.type(0, "/quit")

        tmux.start(env, ["replay", str(ROOT / "protocol" / "vectors" / "oxono-game.txt")])
        await asyncio.to_thread(tmux.wait_for, 1, r"^replay: move 0 of 13 \| ")  # it opens at the start
        tmux.keys(1, "End")
        await asyncio.to_thread(tmux.wait_for, 1, r"^replay: move 13 of 13 \| ")
        await asyncio.to_thread(tmux.wait_for, 1, r"Game over: pink wins: four in a row")
        tmux.keys(1, "Home")
        await asyncio.to_thread(tmux.wait_for, 1, r"^replay: move 0 of 13 \| ")
        tmux.keys(1, "Right")
        await asyncio.to_thread(tmux.wait_for, 1, r"^replay: move 1 of 13 \| ")
        assert re.search(r"^3  \.  X \[X\] \.  \.  \.  3", tmux.screen(1), re.M)  # pink's Xc3b3: X on b3
        tmux.keys(1, "Left")
        await asyncio.to_thread(tmux.wait_for, 1, r"^replay: move 0 of 13 \| ")
        tmux.type(1, "7")
        await asyncio.to_thread(tmux.wait_for, 1, r"^replay: move 7 of 13 \| ")
        tmux.keys(1, "q")  # q leaves a replay
        assert await asyncio.to_thread(tmux.wait_exit, 1) == 0
    finally:
        tmux.stop()


@needs_tmux
async def test_ctrl_z_suspends_the_full_screen_to_the_shell_and_ctrl_l_redraws_it(tmp_path):
    """In a shell with job control: Ctrl-Z stops the screen (the shell's prompt and its ``Stopped``, no ``^Z`` typed
    into the input line); ``fg`` draws it again whole; junk written over it goes with Ctrl-L, which redraws on the
    alternate screen and leaves the shell's own screen (and its scrollback) as the shell left it."""
    env, _ = home(tmp_path, "player")
    tmux = Tmux(tmp_path)
    try:
        tmux.start(env, [])  # a first window, then the shell of the test's own in a second
        tmux.run("new-window", "-t", "olixono", "env PS1='shell$ ' bash --norc --noprofile -i")
        environment = " ".join(f"{name}={env[name]}" for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "PYTHONPATH"))
        tmux.type(1, f"env {environment} TERM=xterm-256color {sys.executable} -m client play olix --vs random --seed 1")
        await asyncio.to_thread(tmux.wait_for, 1, r"^your move \| first \(you\) ")
        tmux.keys(1, "C-z")
        await asyncio.to_thread(tmux.wait_for, 1, r"Stopped")
        await asyncio.to_thread(tmux.wait_for, 1, r"^shell\$ $")
        tmux.type(1, "fg")

        def whole(screen: str) -> bool:  # drawn whole: the board, its help and the toolbar, nothing of the shell's
            return (
                "Stopped" not in screen
                and "shell$" not in screen
                and "^Z" not in screen
                and "GARBLED" not in screen
                and re.search(r"^ 6 \. \. \. \. \. \. ", screen, re.M) is not None
                and "Type a move" in screen
                and re.search(r"^your move \| first \(you\) ", screen, re.M) is not None
            )

        async def drawn_whole() -> None:  # the redraw takes a moment: looked at until whole, at most 10 s
            deadline = time.monotonic() + 10
            while not whole(tmux.screen(1)) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert whole(tmux.screen(1)), tmux.screen(1)

        await drawn_whole()
        tty = tmux.run("display-message", "-p", "-t", "olixono:1", "#{pane_tty}").strip()
        await asyncio.to_thread(Path(tty).write_text, "\x1b[5;5HGARBLED GARBLED GARBLED")  # another program writes
        await asyncio.to_thread(tmux.wait_for, 1, r"GARBLED")
        tmux.keys(1, "C-l")
        await drawn_whole()
        tmux.type(1, "f6")  # and it plays on
        await asyncio.to_thread(tmux.wait_for, 1, r"│ *2\. second ")
        tmux.type(1, "/quit")
        await asyncio.to_thread(tmux.wait_for, 1, r"^shell\$ fg\n(.*\n)*shell\$ $")
        shells = tmux.run("capture-pane", "-p", "-J", "-t", "olixono:1")  # its own screen, not the scrollback
        assert "Stopped" in shells and "shell$ fg" in shells, shells  # as the shell left it: Ctrl-L never erased it
    finally:
        tmux.stop()
