"""Front ends with no terminal UI: the ``--plain`` event printer (a player's commands from stdin) and a bot seat.

Both print one event a line, in words (``move 12 pink Oc6c5``, ``result pink colour: …``,
``warning: line rejected: illegal-move …``), and return once the game is over: 0, or
:data:`client.record.PROVEN` (4) when a player's proof of equivocation was seen.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from client.commands import help_text, legal_text, parse
from client.core import Intent, IntentRefused
from client.local import status_text
from client.record import PROVEN, seated_proofs
from client.runner import GameRunner
from client.words import describe

Write = Callable[[str], object]


def stdout_writer(stream: TextIO | None = None) -> Write:
    def write(text: str) -> None:
        out = stream or sys.stdout
        out.write(text + "\n")
        out.flush()

    return write


async def _lines_from(stream: TextIO) -> asyncio.Queue[str | None]:
    """Lines read from ``stream`` by a daemon thread (``None`` at end of input): stdin never blocks the loop."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def read() -> None:
        for line in stream:
            loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\n"))
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, name="olixono-stdin", daemon=True).start()
    return queue


CONFIRM_WAIT = 3.0
"""Seconds a front end whose game is over waits for the players' confirmations of the ending to come in."""


async def ended(runner: GameRunner, out: Write) -> int:
    """Once the game is over: wait a moment for both players' confirmations (printing what comes meanwhile); the exit
    status: 0, or 4 when a player's proof of equivocation was seen."""
    core = runner.core
    session = core.session
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONFIRM_WAIT
    players = [key for key in (session.host, session.guest) if key is not None]
    while any(session.confirmation(key) is None for key in players) and loop.time() < deadline:
        try:
            async with asyncio.timeout(deadline - loop.time()):
                event = await runner.events.get()
        except TimeoutError:
            break
        text = describe(core, event)
        if text is not None:
            out(text)
    return PROVEN if seated_proofs(session) else 0


async def handle_typed(runner: GameRunner, text: str, write: Write) -> bool:
    """Act on one typed line; ``False`` when the person asked to quit."""
    core = runner.core
    typed = parse(text, core)
    if typed.problem is not None:
        write(f"error: {typed.problem}")
    elif typed.local == "quit":
        return False
    elif typed.local == "help":
        write(help_text(core))
    elif typed.local == "legal":
        write(legal_text(core))
    elif typed.local == "board" and core.session.board is not None:
        write(status_text(core.session.board))
    elif typed.intent is not None:
        try:
            await runner.act(typed.intent)
        except IntentRefused as exc:
            write(f"error: {exc}")
    return True


def plain_front(write: Write | None = None, commands: TextIO | None = None) -> Callable[[GameRunner], Any]:
    """The ``--plain`` front end: events in words; a player's commands, one a line, from ``commands`` (stdin).

    Returns 0 once the game is over; quitting (``quit``, or the end of the commands) returns 0 too and leaves the
    game resumable.
    """
    out = write or stdout_writer()

    async def run(runner: GameRunner) -> int:
        core = runner.core
        typed: asyncio.Queue[str | None] | None = await _lines_from(commands) if commands is not None else None
        waits: set[asyncio.Task[Any]] = set()
        while True:
            event_wait = asyncio.ensure_future(runner.events.get())
            waits = {event_wait}
            if typed is not None:
                waits.add(asyncio.ensure_future(typed.get()))
            done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            for task in done:
                item = task.result()
                if task is event_wait:
                    text = describe(core, item)
                    if text is not None:
                        out(text)
                    if core.session.over and runner.events.empty():
                        return await ended(runner, out)
                elif item is None or not await handle_typed(runner, item, out):
                    out(f"left the game; olixono resume {core.session.game_id} takes it up again")
                    return 0
                elif core.session.over and runner.events.empty():
                    return await ended(runner, out)

    return run


def bot_front(bot: Any, write: Write | None = None) -> Callable[[GameRunner], Any]:
    """A bot holds the seat: it moves whenever it is its turn (thinking in a thread), and prints events as --plain."""
    out = write or stdout_writer()

    async def run(runner: GameRunner) -> int:
        core = runner.core
        while True:
            while core.my_turn and not core.session.over:
                board = core.session.board
                assert board is not None
                mine = core.my_player
                if core.session.proposal not in (None, mine) and mine is not None:  # the opponent's proposal
                    agree = await asyncio.to_thread(bot.answer_end, board.copy(), mine)
                    try:
                        await runner.act(Intent("agree" if agree else "decline"))
                    except IntentRefused as exc:
                        out(f"notice: the bot's answer was not sent: {exc}")
                        break
                    continue
                move = await asyncio.to_thread(bot.choose, board.copy())  # lines may arrive while it thinks
                try:
                    await runner.act(Intent("move", move.text()))
                except IntentRefused as exc:  # the game changed while the bot thought (a resignation)
                    out(f"notice: the bot's move was not sent: {exc}")
                    break
            event = await runner.events.get()
            text = describe(core, event)
            if text is not None:
                out(text)
            if core.session.over and runner.events.empty():
                return await ended(runner, out)

    return run
