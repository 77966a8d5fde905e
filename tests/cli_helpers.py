"""Real ``olixono`` processes for tests: a person's own environment, starting a command, reading what it prints.

Every process a test starts here it stops by its PID (``stop``); every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

from client.shell.identity import save_identity
from client.shell.journal import Journal
from harness.clients import home_env
from protocol import GameSession, Identity

ROOT = Path(__file__).resolve().parent.parent


def home(tmp_path: Path, name: str, identity: Identity | None = None) -> tuple[dict[str, str], Identity]:
    """An environment of its own (XDG folders) for one person, and their identity (``identity``, or a new one)."""
    identity = identity or Identity.generate()
    save_identity(identity, tmp_path / name / "config" / "olixono" / "identity")
    return home_env(tmp_path / name), identity


def games_dir(env: dict[str, str]) -> Path:
    return Path(env["XDG_STATE_HOME"]) / "olixono" / "games"


def _as_on_a_terminal() -> None:
    """In the child: Ctrl-C as a person's terminal gives it. A suite started in the background (``cmd &``) runs with
    SIGINT ignored, which its children inherit: a Ctrl-C sent while one starts would then be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def spawn(env: dict[str, str], *args: str, stdin: bool = False) -> asyncio.subprocess.Process:
    """``olixono ARGS`` in ``env``: stdout and stderr together, stdin a pipe (``stdin``) or nothing."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client",
        *args,
        env=env,
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        preexec_fn=_as_on_a_terminal,
    )


async def read_until(
    process: asyncio.subprocess.Process, pattern: str, seen: list[str], timeout: float = 30
) -> re.Match[str]:
    """Read the process's lines into ``seen`` until one matches ``pattern``."""
    async with asyncio.timeout(timeout):
        while True:
            for line in seen:
                found = re.search(pattern, line)
                if found:
                    return found
            assert process.stdout is not None
            raw = await process.stdout.readline()
            if not raw:
                raise AssertionError(f"the process ended before printing {pattern!r}:\n" + "\n".join(seen))
            seen.append(raw.decode().rstrip())


async def typed(process: asyncio.subprocess.Process, line: bytes) -> None:
    """``line`` written to the process's stdin (a pipe: spawned with ``stdin=True``), and drained."""
    assert process.stdin is not None
    process.stdin.write(line)
    await process.stdin.drain()


async def finish(process: asyncio.subprocess.Process, seen: list[str], timeout: float = 120) -> int:
    """Read the rest of what the process prints into ``seen``; its exit status."""
    assert process.stdout is not None
    async with asyncio.timeout(timeout):
        async for raw in process.stdout:
            seen.append(raw.decode().rstrip())
        return await process.wait()


async def run(
    env: dict[str, str], *args: str, timeout: float = 60, stdin_text: str | None = None
) -> tuple[int, str, str]:
    """``olixono ARGS`` to its end (``stdin_text`` piped in, else nothing): the exit status, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client",
        *args,
        env=env,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL if stdin_text is None else asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(timeout):
            out, err = await process.communicate(None if stdin_text is None else stdin_text.encode())
    finally:
        await stop(process)
    assert process.returncode is not None  # it ended: communicate() waited for it
    return process.returncode, out.decode(), err.decode()


async def stop(process: asyncio.subprocess.Process | None) -> None:
    """Kill ``process`` (one the test started) if it still runs, and wait for it: its pipes close while the event loop
    runs, not after (which asyncio reports as an unraisable error)."""
    if process is None:
        return
    if process.returncode is None:
        process.kill()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(10):
            await process.wait()


def transcript(env: dict[str, str], game: str) -> list[str]:
    """The game as this person's journal has it (the players' confirmations aside: each leaves once its own is out)."""
    return game_lines(GameSession.restore(Journal.open(game, games_dir(env)).lines(), game_id=game).transcript)


def game_lines(lines) -> list[str]:
    """A transcript's lines but the players' confirmations (which each player may leave before the other's comes) and
    chat (a bot seat's word once the game is over, which a player may leave before it comes; a chat line sits where it
    was applied)."""
    return [line for line in lines if line.split()[1] not in ("confirm", "chat")]


class Terminal:
    """``olixono ARGS`` on a terminal of its own: a pty that is its controlling terminal (so a hidden prompt reads it,
    and Ctrl-C is a SIGINT), read and typed into by the test; stopped by its PID."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.primary, secondary = pty.openpty()

        def controlling() -> None:  # in the child, after setsid: this pty is its terminal
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.process = subprocess.Popen(
            [sys.executable, "-m", "client", *args],
            env=dict(env, TERM="dumb"),
            cwd=ROOT,
            stdin=secondary,
            stdout=secondary,
            stderr=secondary,
            close_fds=True,
            start_new_session=True,
            preexec_fn=controlling,
        )
        os.close(secondary)
        self.seen = ""

    def read_until(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.seen)
            if found:
                return found
            readable, _, _ = select.select([self.primary], [], [], 0.05)
            if readable:
                try:
                    self.seen += os.read(self.primary, 65536).decode("utf-8", "replace")
                except OSError:  # the process ended and closed its side
                    break
        raise AssertionError(f"the terminal never showed {pattern!r}:\n{self.seen}")

    def type(self, text: str) -> None:
        os.write(self.primary, text.encode())

    def wait(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            readable, _, _ = select.select([self.primary], [], [], 0.05)
            if readable:
                try:
                    self.seen += os.read(self.primary, 65536).decode("utf-8", "replace")
                except OSError:
                    break
        return self.process.wait(max(0.1, deadline - time.monotonic()))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        os.close(self.primary)
