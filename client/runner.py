"""One game on the network: the link to the relay, the core and its journal, and a front end, as tasks.

Under one ``asyncio.TaskGroup``: the link keeps the connection up and hands
each line that arrives to the core (in its reading task: no queue between
them); what the core says to publish is handed to the MQTT client at once
(``Link.send``), so that nothing ever waits on the network (a line is journaled
before it is sent, and a reconnection publishes again what the relay lacks);
the front end reads :attr:`GameRunner.events` and calls :meth:`GameRunner.act`.
No front end touches the session; a failed task ends the group and its error
is shown, never swallowed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from client.core import GameCore, Intent, IntentRefused, ProofSaved, Publish, Step
from client.journal import Journal
from client.record import lacking_text
from client.transport import Link
from protocol import Event, GuestAccepted, game_filter, player_filter
from protocol.topics import own_filter


@dataclass(frozen=True, slots=True)
class Connection:
    """The relay connection changed: ``sentence`` says how."""

    connected: bool
    sentence: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to tell the person that is no protocol event (``warning``: something is wrong)."""

    text: str
    warning: bool = False


UiEvent = Event | ProofSaved | Connection | Notice
COPY_QUIET, COPY_MAX_WAIT = 0.02, 1.0
"""Copies of the opponent's lines are sent once no line came or went for ``COPY_QUIET`` s (at most ``COPY_MAX_WAIT`` s
after the first one waiting): a copy protects a line the relay already holds, and never delays a move on its way."""
GOODBYE_SECONDS = 5.0
"""How long leaving waits for the last lines (and the presence ``gone``) to reach the relay."""
CATCH_UP_SECONDS = 15.0
"""How long an intent waits for the first catch-up with the relay (its retained lines in) before it is refused:
nothing is signed before this client has seen what its own key already signed there."""
MAX_RESTORES = 20
"""Times one connection publishes again a line of ours that vanished from the relay (or was replaced) before it
stops, for a stranger who clears it as fast as it comes back."""
FrontEnd = Callable[["GameRunner"], Awaitable[int]]


class GameRunner:
    """Runs one game: ``await GameRunner(core, link, journal).run(front_end)`` returns the front end's exit status."""

    def __init__(self, core: GameCore, link: Link, journal: Journal | None = None) -> None:
        self.core = core
        core.live = False  # no automatic answer before the first catch-up (GameCore.ready)
        self.link = link
        self.journal = journal
        self.events: asyncio.Queue[UiEvent] = asyncio.Queue()
        self.changed = asyncio.Event()
        """Set whenever something happened (front ends that redraw from state wait on it)."""
        link.on_connect = self._connected
        link.on_state = self._state
        link.will = self._will
        link.on_line = self._received
        self._game = core.session.game_id
        assert self._game is not None, "a runner needs the game's id"
        self.connections = journal.meta.connections if journal is not None else 0
        """This client's connections to the game so far (the presence ``seq``), kept in the journal when there is one."""
        self.narrowed = False
        """Whether this connection receives only the opponent's topics (a seated player, once caught up)."""
        self._caught_up = False
        self._narrowing: asyncio.Task[None] | None = None
        self._copies: list[Publish] = []
        self._copies_since = self._last_line = 0.0
        self._copy_timer: asyncio.TimerHandle | None = None
        self.caught_up = asyncio.Event()
        """Set once the first connection's catch-up is done: the relay's retained lines are in."""
        self._kept: dict[str, str] = {}  # each topic where this client keeps a line (its own, or a copy): the line
        self._restores = 0

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
            try:
                status = await front(self)
            finally:  # stopped by a signal, not cancellation (see Link.run)
                await self._goodbye()
                self.link.stop()
        return status

    async def act(self, intent: Intent) -> None:
        """Do what the person asked (``IntentRefused`` when it cannot be done: nothing is sent).

        Nothing is signed before the first catch-up with the relay: a journal that lost a line (or another
        process of this key's) could otherwise make this client sign a second line for a slot it already holds.
        """
        if not self.caught_up.is_set():
            try:
                async with asyncio.timeout(CATCH_UP_SECONDS):
                    await self.caught_up.wait()
            except TimeoutError:
                raise IntentRefused("not caught up with the relay yet (its lines are not in): nothing is signed "
                                    "before that; try again once it is connected") from None
        await self.apply(self.core.act(intent))

    async def apply(self, step: Step, *, received: bool = False) -> None:
        """Journal a step's lines, pass its events on, and send what it calls for to publish.

        The lines are written to the journal first (the operating system has them: a crash of this process cannot
        lose them, and our own are there before they are sent), and flushed to the disk last, once for everything
        the step and the front end wrote, so that nothing waits for the disk: a move leaves, and a received move is
        shown (and may be answered), before the flush.
        """
        self._record(step)
        for event in step.events:
            self.emit(event)
            if self.core.seated_elsewhere(event):
                assert isinstance(event, GuestAccepted)
                self.emit(Notice(f"this game has both players (the host seated {event.key.fingerprint}, not you): "
                                 "you are watching it"))
        if received:
            await asyncio.sleep(0)  # the front end shows it, and may answer it, before the flush
        self._last_line = asyncio.get_running_loop().time()
        for item in step.publish:
            self._keep(item)
            if item.copy:
                self._defer(item)
            else:
                self.link.send(item.topic, item.line)
        if self.journal is not None:
            self.journal.sync()  # nothing to do when the front end's answer has flushed it already
        if step.resubscribe:
            self.emit(Notice("asking the relay for the game's lines again"))
            await self.link.resubscribe(game_filter(self._game or ""))

    def _defer(self, copy: Publish) -> None:
        loop = asyncio.get_running_loop()
        if not self._copies:
            self._copies_since = loop.time()
        self._copies.append(copy)
        if self._copy_timer is None:
            self._copy_timer = loop.call_later(COPY_QUIET, self._copies_due)

    def _copies_due(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        quiet_at, latest = self._last_line + COPY_QUIET, self._copies_since + COPY_MAX_WAIT
        if now < quiet_at and now < latest:
            self._copy_timer = loop.call_later(min(quiet_at, latest) - now, self._copies_due)
            return
        self.send_copies()

    def send_copies(self) -> None:
        """Send the copies waiting, now (if the link is down, the next connection publishes what the relay lacks)."""
        if self._copy_timer is not None:
            self._copy_timer.cancel()  # harmless when it is the timer's own call
            self._copy_timer = None
        copies, self._copies = self._copies, []
        for item in copies:
            self.link.send(item.topic, item.line)

    def _record(self, step: Step) -> None:
        journal = self.journal
        if journal is None:
            return
        if step.secret is not None:
            journal.keep_secret(step.secret)  # written (and flushed) before the join that commits to it is sent
        for line in step.journal:
            journal.write(line)
        for proof in step.proofs:
            self.emit(ProofSaved(proof, str(journal.save_proof(proof))))

    def emit(self, event: UiEvent) -> None:
        self.events.put_nowait(event)
        self.changed.set()

    async def _received(self, topic: str, payload: bytes) -> None:
        kept = self._kept.get(topic)
        if kept is not None and payload != kept.encode("utf-8"):
            self._restore(topic, kept)  # a line of ours vanished from the relay (or was replaced): again
        if not payload:
            return  # a retained line cleared: nothing to judge
        await self.apply(self.core.feed(payload), received=True)
        if self._caught_up and not self.narrowed and self._can_narrow():
            self.narrowed = True  # in a task of its own: the reader never waits for the relay's answers
            self._narrowing = asyncio.get_running_loop().create_task(self._narrow())

    async def _narrow(self) -> None:
        """Once a player's seats are both known and the relay's lines are in: receive only the opponent's topics.

        MQTT 3.1.1 sends every publisher its own lines back, and the opponent's copies (of our own lines) would
        wake this client for nothing; strangers' lines never concern a seated player.
        """
        opponent, me = self.core.opponent, self.core.me
        if opponent is not None and me is not None and self._can_narrow():
            self.narrowed = True  # the opponent's lines, and ours: to see any of ours vanish, and publish it again
            await self.link.narrow(player_filter(self._game or "", opponent), own_filter(self._game or "", me))

    def _keep(self, item: Publish) -> bool:
        """Note a line this client keeps on the relay under its own key (its own lines and copies, presence aside),
        to put it back should it vanish; whether it is one."""
        me = self.core.me
        if me is None or f"/{me.text}/" not in item.topic or item.topic.endswith("/presence"):
            return False
        self._kept[item.topic] = item.line
        return True

    def _restore(self, topic: str, line: str) -> None:
        if self._restores >= MAX_RESTORES:
            return
        self._restores += 1
        self.link.send(topic, line)
        where = topic.rsplit("/", 2)
        what = f"copy of {where[-1][:8]}…" if where[-2] == "copy" else where[-1]
        note = " (no more this connection: someone keeps clearing them)" if self._restores == MAX_RESTORES else ""
        self.emit(Notice(f"the relay lost a line of yours ({what}): published it again{note}"))

    def _can_narrow(self) -> bool:
        core = self.core
        session = core.session
        return not core.watching and core.opponent is not None and session.guest is not None and (
            core.me in (session.host, session.guest))

    # -- the link's hooks -------------------------------------------------------------------
    def attach(self, journal: Journal) -> None:
        """The journal, once it can be made (a guest's, when the offer has told the game's kind): what was applied
        before it is written at once."""
        self.journal = journal
        for line in self.core.session.transcript:
            journal.append(line)
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
        """After each connection: say we are here, catch up on what the relay retains, publish what it lacks of what
        we keep, and from then on (a seated player) receive only the opponent's topics."""
        self.narrowed = self._caught_up = False
        here = self.core.presence(True, self.connections)
        if here is not None:
            link.send(here.topic, here.line)
        await link.settled((here.topic, here.line) if here is not None else None)
        self._restores = 0
        for item in self.core.republish():
            held = link.seen.get(item.topic)
            if self._keep(item) and held != item.line.encode("utf-8") or held is None:
                link.send(item.topic, item.line)  # ours, or (a watcher's) another's line the relay lacks
        self._caught_up = True
        first = not self.caught_up.is_set()
        self.caught_up.set()
        missing = lacking_text(self.core.session)
        if missing is not None:
            self.emit(Notice(missing, warning=True))
        if first:  # what the catch-up calls for (an accept, a reveal, a confirmation), now that it is safe to sign
            await self.apply(self.core.ready())
        await self._narrow()

    def _state(self, connected: bool, sentence: str) -> None:
        self.emit(Connection(connected, sentence))

    async def _goodbye(self) -> None:
        """Say we are gone, and wait (a little) until the relay has it and every line sent before it."""
        self.send_copies()
        gone = self.core.presence(False, self.connections)
        if gone is not None and self.link.connected:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(GOODBYE_SECONDS):
                    await self.link.publish(gone.topic, gone.line)
