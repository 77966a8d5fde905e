"""Front ends with no terminal UI: the ``--plain`` event printer (a player's commands from stdin) and a bot seat.

Both print one event a line, in words (``move 12 pink Oc6c5``, ``result pink colour: …``,
``warning: line rejected: illegal-move …``), and return once the game is over: 0, or
:data:`client.words.record.PROVEN` (4) when a player's proof of equivocation was seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TextIO

from client.cores.intents import Intent, IntentKind, IntentRefused
from client.cores.network_game import ClaimReady, GameCore
from client.shell.runner import GameRunner
from client.shell.thinking import clock_budget, in_daemon_thread
from client.words.board import resume_text
from client.words.commands import Write, handle_typed, leaving_text, parse
from client.words.network import bot_rematch_chat, bot_said, describe, my_turn_text, ready_text, shown_now
from client.words.record import PROVEN, moves_text

if TYPE_CHECKING:
    from olixono.bots import Bot


def stdout_writer(stream: TextIO | None = None) -> Write:
    def write(text: str) -> None:
        out = stream or sys.stdout
        out.write(text + "\n")
        out.flush()

    return write


_READING: dict[tuple[TextIO, asyncio.AbstractEventLoop], asyncio.Queue[str | None]] = {}
"""The lines of each command stream being read (one thread a stream: a rematch's front end reads on where the last
game's stopped)."""


async def _lines_from(stream: TextIO) -> asyncio.Queue[str | None]:
    """Lines read from ``stream`` by a daemon thread (``None`` at end of input, again for every later reader): stdin
    never blocks the loop."""
    loop = asyncio.get_running_loop()
    if (stream, loop) in _READING:
        return _READING[stream, loop]
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    _READING[stream, loop] = queue

    def read() -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody reads on
            with contextlib.suppress(ValueError):  # the stream was closed by its owner: the end of the input too
                for line in stream:
                    loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\n"))
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, name="olixono-stdin", daemon=True).start()
    return queue


CONFIRM_WAIT = 3.0
"""Seconds a front end whose game is over waits for the players' confirmations of the ending to come in."""


REMATCH_WAIT = 600.0
"""Seconds a ``--plain`` player who asked for a rematch waits for the answer (unless it leaves, or the other does)."""
REMATCH_GRACE = 5.0
"""Seconds a ``--plain`` player whose commands go on stays once the game is over (and confirmed) for a rematch to be
asked, by either player, before it leaves."""


BOT_REMATCH_WAIT = 20.0
"""Seconds a bot seat whose game is over waits for its opponent to ask for a rematch (it accepts, and plays it; then
waits again): it leaves at once when the opponent leaves, or says a bot holds its seat too (nobody is there to ask)."""
BOT_HEARD_WAIT = 2.0
"""Seconds a bot seat that hosts, its game over and confirmed, listens for the guest's word that a bot holds its seat
too before it says its own: of two bot seats only the guest speaks, and both records keep the same lines."""


class BotSeat:
    """A bot seat's rematch: whether the opponent said a bot holds its seat too, and whether this one said so."""

    def __init__(self) -> None:
        self.other_bot = False
        self.said = False

    def hear(self, core: GameCore, event: object) -> None:
        self.other_bot = self.other_bot or bot_said(core, event)

    async def say(self, runner: GameRunner, out: Write) -> None:
        """Say in chat that a bot holds this seat and waits for a rematch
        (:func:`client.words.network.bot_rematch_chat`)."""
        self.said = True
        try:
            await runner.act(Intent(IntentKind.CHAT, bot_rematch_chat(BOT_REMATCH_WAIT)))
        except IntentRefused as exc:
            out(f"notice: the bot's chat was not sent: {exc}")


async def ended(
    runner: GameRunner,
    out: Write,
    typed: asyncio.Queue[str | None] | None = None,
    held: list[str] | None = None,
    bot: BotSeat | None = None,
) -> int:
    """Once the game is over: wait a moment (:data:`CONFIRM_WAIT`) for both players' confirmations of this ending
    (printing what comes meanwhile), then see to a rematch (:func:`rematching`, or a ``bot`` seat's
    :func:`bot_rematching`); the exit status: 0, or 4 when a player's proof of equivocation was seen.

    A confirmation of another ending does not end the wait: in a race (a resignation sent while the other played a
    winning move) the other's first confirmation names the ending it saw before the line that stands reached it, and
    its next one, once it has, agrees. The last word said is then the one ``verify`` says."""
    core = runner.core
    opponent = core.opponent
    if (
        bot is not None
        and core.me == core.guest
        and opponent is not None
        and core.present(opponent) is not False
        and core.rematch_open
    ):
        await bot.say(runner, out)  # the guest's word first: a bot that hosts hears it before it would speak
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONFIRM_WAIT
    while (not runner.events.empty() or not core.ending_confirmed) and loop.time() < deadline:
        try:
            async with asyncio.timeout(deadline - loop.time()):
                event = await runner.events.get()
        except TimeoutError:
            break
        if bot is not None:
            bot.hear(core, event)
        text = describe(core, event)
        if text is not None:
            out(text)
    if bot is not None:
        await bot_rematching(runner, out, bot)
    elif not core.watching:
        await rematching(runner, out, typed, held or [])
    return PROVEN if core.seated_proofs else 0


async def rematching(runner: GameRunner, out: Write, typed: asyncio.Queue[str | None] | None, held: list[str]) -> None:
    """A player's ``--plain`` once the game is over stays while a rematch is in motion: it acts on the commands typed
    (``rematch`` or ``yes`` asks for one, or accepts the other's; ``quit`` leaves); while its commands go on it waits
    :data:`REMATCH_GRACE` for either player to ask; having asked, it waits for the answer (at most
    :data:`REMATCH_WAIT`), and asked, for the person's while its commands go on. It returns once the rematch is agreed
    (``core.next_game``: the command plays it next), or is no longer in motion: the person left, its commands ended
    with the other's question unanswered, nobody asked within the grace, the other player left."""
    core = runner.core
    loop = asyncio.get_running_loop()
    grace, deadline = loop.time() + REMATCH_GRACE, loop.time() + REMATCH_WAIT
    no_more = typed is None
    while core.next_game is None and loop.time() < deadline:
        if held:
            if not await handle_typed(runner, held.pop(0), out, partial(shown_now, core)):
                return
            continue
        asked, opponent = core.rematch_asked, core.opponent
        if asked != core.me and (no_more or (asked is None and loop.time() >= grace)):
            return
        if opponent is not None and core.present(opponent) is False:
            out(f"notice: no rematch: {opponent.fingerprint} left")
            return
        waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(runner.events.get())}
        if typed is not None and not no_more:
            waits.add(asyncio.ensure_future(typed.get()))
        until = deadline if asked is not None else grace
        done, pending = await asyncio.wait(
            waits, timeout=max(0.0, until - loop.time()), return_when=asyncio.FIRST_COMPLETED
        )
        for task in pending:
            task.cancel()
        for task in done:
            item = task.result()
            if isinstance(item, str):
                held.append(item)
            elif item is None:
                no_more = True
                assert typed is not None
                typed.put_nowait(None)  # the end, for whatever reads on
            else:
                text = describe(core, item)
                if text is not None:
                    out(text)


async def bot_rematching(runner: GameRunner, out: Write, bot: BotSeat) -> None:
    """A bot seat once the game is over: it says in chat that it waits for a rematch (the guest at once, the host once
    :data:`BOT_HEARD_WAIT` has passed without the guest's word), then waits at most :data:`BOT_REMATCH_WAIT` for the
    opponent to ask, and accepts (the command then plays the rematch: :attr:`GameCore.next_game`). It returns at once
    when the opponent leaves (its presence says gone) or says a bot holds its seat: nobody is there to ask."""
    core = runner.core
    opponent = core.opponent
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOT_REMATCH_WAIT
    speak = loop.time() + (BOT_HEARD_WAIT if core.me == core.host else 0.0)
    while opponent is not None and core.next_game is None and core.rematch_open:
        if core.rematch_asked == opponent:
            try:
                await runner.act(Intent(IntentKind.REMATCH))
            except IntentRefused as exc:
                out(f"notice: the bot's rematch was not sent: {exc}")
                return
            continue
        if bot.other_bot or core.present(opponent) is False:
            return
        if not bot.said and loop.time() >= speak:
            await bot.say(runner, out)
            continue
        until = deadline if bot.said else speak
        try:
            async with asyncio.timeout(max(0.0, until - loop.time())):
                event = await runner.events.get()
        except TimeoutError:
            if bot.said:
                return
            continue
        bot.hear(core, event)
        text = describe(core, event)
        if text is not None:
            out(text)


LEFT = 3
"""The exit status of a ``--plain`` player who leaves (``quit``, or the end of its commands) before the game ends:
it stays resumable."""


def turn_text(core: GameCore) -> str | None:
    """Where the game stands, in one line: ``game: oxono, 12 moves, pink to move (your move)``."""
    turn = core.turn
    if turn is None:
        return None
    mine = " (your move)" if my_turn_text(core) == "your move" else ""
    moves = moves_text(core.moves)
    return f"game: {core.kind}, {moves}, {turn} to move{mine}"


def clock_out_in(core: GameCore) -> float | None:
    """Seconds until our clock runs out on our turn, a moment after it does (``None``: not our turn in a timed game,
    or it has run out already; on a first move off the clock, its time for that move): when ``--plain`` says so
    without an event to wake it."""
    player = core.my_player
    first = core.first_move_left_ms() if core.my_turn else None
    left = first if first is not None else core.clock_left(player) if core.my_turn and player is not None else None
    return None if not left else left / 1000 + 0.05


def waits_for_seats(core: GameCore, text: str) -> bool:
    """Whether a typed line needs what has not come yet: a seat (to chat), or the seats drawn (to play). A claim needs
    neither: before the seats it is the host's against a guest who never revealed (or, refused, says why)."""
    typed = parse(text, core)
    if typed.intent is None or typed.intent.kind is IntentKind.CLAIM or core.watching or core.over:
        return False
    if typed.intent.kind is IntentKind.CHAT:
        return core.me is not None and not core.seated(core.me)
    return not core.started


def plain_front(write: Write | None = None, commands: TextIO | None = None) -> Callable[[GameRunner], Any]:
    """The ``--plain`` front end: events in words; the commands, one a line, from ``commands`` (stdin): a player's,
    or a watcher's (``say``, ``quit``…: the end of them ends no watch).

    Once caught up with the relay it says where the game stands; it says ``your move`` whenever the turn becomes
    the player's, and ``your time ran out: …`` when the player's clock runs out on its turn. Commands typed before the
    seats are drawn are held and acted on once they are. Returns once the game is over (:func:`ended`); a player leaving
    before (``quit``, or the end of the commands) returns :data:`LEFT` and leaves the game resumable; a watcher's
    ``quit`` returns 0.
    """
    out = write or stdout_writer()

    async def run(runner: GameRunner) -> int:
        core = runner.core
        typed: asyncio.Queue[str | None] | None = await _lines_from(commands) if commands is not None else None
        caught_up: asyncio.Task[Any] | None = asyncio.ensure_future(runner.caught_up.wait())
        held: list[str] = []  # typed, not acted on yet: the seats are not drawn, or what happened is still being said
        no_more = False  # the commands ended
        said: str | None = None  # what our turn asks of us, as last said
        restated = False
        while True:
            if runner.events.empty():  # what is said has caught up with what happened
                if caught_up is None and not restated:
                    restated = True
                    where = turn_text(core) if core.moves else None
                    if where is not None:  # a game taken up again: where it stands (and whether it is our move)
                        out(where)
                        said = "your move" if core.my_turn else None
                turn = my_turn_text(core) if caught_up is None else None  # (what the relay holds may change it)
                if turn is not None and turn != said:
                    out(turn)
                said = turn
                if core.over and not core.unsettled:
                    return await ended(runner, out, typed if not no_more else None, held)
                if held and caught_up is None and not waits_for_seats(core, held[0]):  # one at a time: its events
                    # said first; quit leaves at once (a script's: nobody is there to confirm it)
                    if not await handle_typed(runner, held.pop(0), out, partial(shown_now, core)):
                        out(leaving_text(core))
                        return 0 if core.watching else LEFT
                    continue
                if no_more and not held and not core.watching:  # a watcher without commands watches on
                    out(f"left the game (no more commands); {resume_text(core.game_id)}")
                    return LEFT
            event_wait = asyncio.ensure_future(runner.events.get())
            waits = {event_wait, *([caught_up] if caught_up is not None else [])}
            typing = asyncio.ensure_future(typed.get()) if typed is not None and not no_more else None
            if typing is not None:
                waits.add(typing)
            done, pending = await asyncio.wait(waits, timeout=clock_out_in(core), return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                if task is not caught_up:
                    task.cancel()
            if caught_up is not None and caught_up in done:
                caught_up = None
            if event_wait in done:
                text = describe(core, event_wait.result())
                if text is not None:
                    out(text)
            if typing is not None and typing in done:
                item = typing.result()
                if item is None:
                    no_more = True
                    assert typed is not None
                    typed.put_nowait(None)  # the end, for whatever reads on (a rematch's front end)
                else:
                    held.append(item)

    return run


def bot_front(bot: Bot, write: Write | None = None) -> Callable[[GameRunner], Any]:
    """A bot holds the seat: it moves whenever it is its turn (thinking in a thread), and prints events as --plain.

    It reads no commands (a bot run in the background would be stopped by the terminal were it to read one): a claim on
    time is signed for it only with ``--claim auto``; without, when one may be made it says so, and how to have it
    signed (take the game up again with ``--claim auto``, or without ``--bot`` to type ``claim``). Once the game is
    over it plays the rematch its opponent asks for (:func:`bot_rematching`).
    """
    out = write or stdout_writer()

    async def run(runner: GameRunner) -> int:
        from olixono.bots import within

        core = runner.core
        heard = BotSeat()
        while True:
            while (core.my_turn and not core.over) or core.answering:  # (answering: a timeout of our turn, in time)
                board = core.board
                assert board is not None
                mine = core.my_player
                left = core.answer_left_ms() if core.answering else core.clock_left(mine) if mine is not None else None
                control = core.time_control
                thinker = bot if left is None or control is None else within(bot, clock_budget(control, left))
                if core.proposal not in (None, mine) and mine is not None:  # the opponent's proposal
                    agree = await in_daemon_thread(thinker.answer_end, board.copy(), mine)
                    try:
                        await runner.act(Intent(IntentKind.AGREE if agree else IntentKind.DECLINE))
                    except IntentRefused as exc:
                        out(f"notice: the bot's answer was not sent: {exc}")
                        break
                    continue
                move = await in_daemon_thread(thinker.choose, board.copy())  # lines may arrive while it thinks
                try:
                    await runner.act(Intent(IntentKind.MOVE, move.text()))
                except IntentRefused as exc:  # the game changed while the bot thought (a resignation)
                    out(f"notice: the bot's move was not sent: {exc}")
                    break
            event = await runner.events.get()
            heard.hear(core, event)
            text = ready_text(core, event, bot=True) if isinstance(event, ClaimReady) else describe(core, event)
            if text is not None:
                out(text)
            if core.over and runner.events.empty() and not core.unsettled:
                return await ended(runner, out, bot=heard)

    return run
