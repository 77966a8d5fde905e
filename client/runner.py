"""One game on the network: the link to the relay, the core and its journal, and a front end, as tasks.

Under one ``asyncio.TaskGroup``: the link keeps the connection up and queues
what arrives; the pump feeds each line to the core; the publisher sends what
the core says to publish, in order, so that neither the front end nor the pump
ever waits on the network (a line is journaled before it is queued, and a
reconnection publishes again what the relay lacks); the front end reads
:attr:`GameRunner.events` and calls :meth:`GameRunner.act`. No front end
touches the session; a failed task ends the group and its error is shown,
never swallowed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from client.core import GameCore, Intent, ProofSaved, Publish, Step
from client.journal import Journal
from client.transport import Link
from protocol import Event, game_filter


@dataclass(frozen=True, slots=True)
class Connection:
    """The relay connection changed: ``sentence`` says how."""

    connected: bool
    sentence: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to tell the person that is no protocol event."""

    text: str


UiEvent = Event | ProofSaved | Connection | Notice
STOP = ("", b"")
"""Put in the link's queue to end the pump."""
GOODBYE_SECONDS = 5.0
"""How long leaving waits for the last lines (and the presence ``gone``) to reach the relay."""
FrontEnd = Callable[["GameRunner"], Awaitable[int]]


class GameRunner:
    """Runs one game: ``await GameRunner(core, link, journal).run(front_end)`` returns the front end's exit status."""

    def __init__(self, core: GameCore, link: Link, journal: Journal | None = None) -> None:
        self.core = core
        self.link = link
        self.journal = journal
        self.events: asyncio.Queue[UiEvent] = asyncio.Queue()
        self.outbox: asyncio.Queue[Publish | None] = asyncio.Queue()
        self.changed = asyncio.Event()
        """Set whenever something happened (front ends that redraw from state wait on it)."""
        link.on_connect = self._connected
        link.on_state = self._state
        link.will = self._will
        self._game = core.session.game_id
        assert self._game is not None, "a runner needs the game's id"
        self.connections = journal.meta.connections if journal is not None else 0
        """This client's connections to the game so far (the presence ``seq``), kept in the journal when there is one."""

    async def run(self, front: FrontEnd) -> int:
        """Connect and run ``front`` until it returns; say goodbye (presence) and disconnect.

        The first error of any task (the relay's, the front end's) is raised as it is, not in a group.
        """
        try:
            return await self._run(front)
        except BaseExceptionGroup as group:
            first = group.exceptions[0]
            while isinstance(first, BaseExceptionGroup):
                first = first.exceptions[0]
            raise first from None

    async def _run(self, front: FrontEnd) -> int:
        await self.link.subscribe(game_filter(self._game or ""))
        async with asyncio.TaskGroup() as group:
            group.create_task(self.link.run())
            group.create_task(self._pump())
            publisher = group.create_task(self._publisher())
            try:
                status = await front(self)
            finally:  # stopped by signals, not cancellation (see Link.run)
                self._goodbye()
                self.outbox.put_nowait(None)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(GOODBYE_SECONDS):
                        await asyncio.shield(publisher)
                self.link.incoming.put_nowait(STOP)
                self.link.stop()
        return status

    async def act(self, intent: Intent) -> None:
        """Do what the person asked (``IntentRefused`` when it cannot be done: nothing is sent)."""
        await self.apply(self.core.act(intent))

    async def apply(self, step: Step) -> None:
        """Pass a step's events on, and queue what it calls for to publish."""
        for event in step.events:
            self.emit(event)
        for item in step.publish:
            self.outbox.put_nowait(item)
        if step.resubscribe:
            self.emit(Notice("asking the relay for the game's lines again"))
            await self.link.resubscribe(game_filter(self._game or ""))

    def emit(self, event: UiEvent) -> None:
        self.events.put_nowait(event)
        self.changed.set()

    async def _publisher(self) -> None:
        while (item := await self.outbox.get()) is not None:
            await self.link.publish(item.topic, item.line)

    async def _pump(self) -> None:
        while True:
            item = await self.link.incoming.get()
            if item is STOP:
                return
            await self.apply(self.core.feed(item[1]))

    # -- the link's hooks -------------------------------------------------------------------
    def attach(self, journal: Journal) -> None:
        """The journal, once it can be made (a guest's, when the offer has told the game's kind)."""
        self.journal = self.core.journal = journal
        journal.update(connections=self.connections)

    def _will(self) -> tuple[str, str] | None:
        """Before each connection: this player's presence ``gone`` line for it, left with the relay as its will."""
        gone = self.core.presence(False, self.connections + 1)
        if gone is None:
            return None
        self.connections += 1
        if self.journal is not None:
            self.journal.update(connections=self.connections)
        return gone.topic, gone.line

    async def _connected(self, link: Link) -> None:
        """After each connection: say we are here, then publish what the relay lacks of what we keep."""
        here = self.core.presence(True, self.connections)
        if here is not None:
            await link.publish(here.topic, here.line)
        await link.settled()
        for item in self.core.republish():
            if link.seen.get(item.topic) != item.line.encode("utf-8"):
                await link.publish(item.topic, item.line)

    def _state(self, connected: bool, sentence: str) -> None:
        self.emit(Connection(connected, sentence))

    def _goodbye(self) -> None:
        gone = self.core.presence(False, self.connections)
        if gone is not None and self.link.connected:
            self.outbox.put_nowait(gone)
