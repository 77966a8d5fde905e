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
import dataclasses
import logging
import re
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from client.cores import liveness
from client.cores.intents import Intent, IntentRefused
from client.cores.liveness import Liveness
from client.cores.network_game import UNSEATED_LEFT, Connection, GameCore, Notice, ProofSaved, Publish, Step, UiEvent
from client.cores.relay_books import Check, RelayBooks, Restore
from client.shell.journal import Journal
from client.shell.transport import Link, LinkFactory, digest
from client.words.network import HOST_RELAY_GONE, relay_left_with_host
from client.words.record import lacking_text
from protocol import (
    NUMBERED_APART,
    GuestAccepted,
    LineApplied,
    LineRejected,
    MessageType,
    Phase,
    PublicKey,
    decode,
    game_filter,
)
from protocol.messages import line_hash
from protocol.topics import game_and_key, held_copy_topic, own_filter, player_filter, talk_filter

log = logging.getLogger("olixono.runner")
SHOWN_PER_PLAYER = 10
"""Refused lines of a seated key shown one by one; the rest, and every stranger's after the first, are counted."""
COUNT_EVERY = 5.0
"""Seconds between two notices of the running count of ignored lines."""
LINE_WORDS = {
    "offer": "offer",
    "join": "join",
    "accept": "acceptance",
    "reveal": "coin reveal",
    "move": "move",
    "claim": "claim",
    "resign": "resignation",
    "propose": "proposal",
    "withdraw": "withdrawal",
    "agree": "agreement",
    "decline": "refusal",
    "abort": "abort",
    "chat": "chat line",
    "confirm": "confirmation of the ending",
}
"""A line of one's own as the liveness notices name it (``no sign yet that … has your move``)."""
SEEN_UNSEATED = 2000
"""Topics of keys that hold no seat the link remembers (a hash each) while a seat is still unknown."""
GOODBYE_SECONDS = 5.0
"""How long leaving waits for the presence ``gone`` to reach the relay."""
GOODBYE_MOST = 15.0
"""How long leaving waits, connected, at most, for a sign that the opponent has our last lines: time without a
connection does not count (it may come back meanwhile, and nobody else can publish them again)..."""
GOODBYE_CAP = 60.0
"""... and at most this long in all, however often the connection was lost (Ctrl-C leaves at once)."""
GOODBYE_TELL = 2.0
"""After this long, leaving says what it waits for."""
CATCH_UP_SECONDS = 15.0
"""How long an intent waits for the first catch-up with the relay (its retained lines in) before it is refused:
nothing is signed before this client has seen what its own key already signed there."""
CHECK_AFTER = 1.0
"""A line of another's seen live on a topic where we keep one may be junk that changed nothing the relay keeps (a line
published without being retained): the relay is asked what it keeps there this long after (one question a topic at a
time, however many such lines come), and put right only if it lost ours."""
STALLED = 1.0
"""A watch tick this much later than its period shows that the loop was stalled (the process stopped and continued,
the machine asleep): what time alone calls for then waits :data:`STALL_HOLD` s..."""
STALL_HOLD = 2.0
"""... so that the reader takes first what arrived meanwhile (the other's move, waiting in the socket's buffer: an
automatic claim against a move already here is a needless line on the record), and a connection the relay dropped
meanwhile is found lost and caught up again."""
FrontEnd = Callable[["GameRunner"], Awaitable[int]]


class GameRunner:
    """Runs one game: ``await GameRunner(core, connect, journal).run(front_end)`` returns the front end's exit status
    (``connect``: what makes its link, given the runner's callbacks: :data:`client.shell.transport.LinkFactory`)."""

    def __init__(self, core: GameCore, connect: LinkFactory, journal: Journal | None = None) -> None:
        self.core = core
        core.live = False  # no automatic answer before the first catch-up (GameCore.ready)
        self.link: Link = connect(
            on_connect=self._connected,
            on_state=self._state,
            will=self._will,
            on_line=self._received,
            remember=self._remember,
        )
        self.journal = journal
        if journal is not None and journal.meta.turn is not None:  # a resumed game: its turn began before this process
            moves, at = journal.meta.turn
            core.resume_turn(int(moves), time.time() - at)
        self.events: asyncio.Queue[UiEvent] = asyncio.Queue()
        self.changed = asyncio.Event()
        """Set whenever something happened (front ends that redraw from state wait on it)."""
        self._game = core.session.game_id
        assert self._game is not None, "a runner needs the game's id"
        self.connections = journal.meta.connections if journal is not None else 0
        """This client's connections to the game so far (the presence ``seq``), kept in the journal when there is
        one."""
        self.narrowed = False
        """Whether the relays were asked to send only the seated players' topics (a seated player, once caught up);
        each later connection is narrowed again at the end of its own catch-up."""
        self.books = RelayBooks(core.me.text if core.me is not None else None)
        """What this client keeps on the relay, the copies waiting, how far it has caught up
        (:mod:`client.cores.relay_books`; each link's catch-up is numbered by its ``id``)."""
        self._first_ready = False  # the first catch-up is done, and what it calls for is yet to be signed
        self._tasks: set[asyncio.Task[None]] = set()  # requests to the relay the reader does not wait for
        self._copy_timer: asyncio.TimerHandle | None = None
        self.caught_up = asyncio.Event()
        """Set once the first connection's catch-up is done: the relay's retained lines are in. What an intent awaits;
        what the runner decides by is whether it is up to date now (:attr:`RelayBooks.up_to_date`)."""
        self._check_timer: asyncio.TimerHandle | None = None
        self._gone = False  # the run has let go of everything (_let_go): no timer or request starts any more
        self._asked: set[str] = set()  # the opponent's copies of our lines asked for, until each comes
        self.ignored = Ignored()
        """The refused lines this client counted rather than showed."""
        self._count_timer: asyncio.TimerHandle | None = None
        self._front_done = False
        self._asked_for = -1  # the highest seq of the opponent's lines that came from the relay's store, not live
        self.farewell: Callable[[str], None] = _tell_stderr
        """Where what happens once the front end has returned is told (what leaving waits for): its screen is gone,
        so standard error, a line each."""
        self._counted_at = 0.0
        self.liveness = Liveness()
        """What this client does when the game goes quiet (:mod:`client.cores.liveness`)."""

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
        async with self.link, asyncio.TaskGroup() as group:  # the link stops by a signal, not cancellation (Link.run)
            watch = group.create_task(self._watch())
            try:
                status = await front(self)
            finally:
                self._front_done = True
                self._close_unseated()
                try:
                    await self._goodbye()
                finally:
                    watch.cancel()
                    self._let_go()
        return status

    def _let_go(self) -> None:
        """Leaving: nothing of this runner's may outlive the command (a timer or a request would hold it, its journal
        and so its seat, a while longer, and tell something after the command ended)."""
        self._gone = True  # what arrives while the connection closes starts nothing more
        self.send_copies()  # those still waiting for a quiet moment: now, while the connection is open
        for timer in (self._count_timer, self._check_timer):
            if timer is not None:
                timer.cancel()
        self._count_timer = self._check_timer = None
        for task in self._tasks:
            task.cancel()

    def _close_unseated(self) -> None:
        """A guest who leaves before the host seated it closes the game on its side (the journal says so: ``resume``
        lists it no more); nothing is signed, since nothing binds it (``PROTOCOL.md`` §3, the coin flip)."""
        core, journal = self.core, self.journal
        if journal is None or core.watching or core.me == core.session.host or core.session.phase is not Phase.OFFERED:
            return
        journal.update(left_unseated=True)
        self.emit(Notice(UNSEATED_LEFT.format(game=core.game_id)))

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
                raise IntentRefused(
                    "not caught up with the relay yet (its lines are not in): nothing is signed "
                    "before that; try again once it is connected"
                ) from None
        await self.apply(self.core.act(intent))

    async def apply(self, step: Step, *, received: bool = False, topic: str = "") -> None:
        """Journal a step's lines, pass its events on, and send what it calls for to publish.

        The lines are written to the journal first (the operating system has them: a crash of this process cannot
        lose them, and our own are there before they are sent), and flushed to the disk last, once for everything
        the step and the front end wrote, so that nothing waits for the disk: a move leaves, and a received move is
        shown (and may be answered), before the flush.
        """
        if any(isinstance(event, LineRejected) for event in step.events):  # (lines kept waiting: judged with ours too)
            step = self._count_refused(step, topic)
        self._record(step)
        own = any(not item.copy for item in step.publish)
        timed = self.core.session.clock is not None
        if self.journal is not None and timed:
            self._keep_turn(self.journal)
            if (
                own
            ):  # a timed move (or receipt) signed again would be another line (its times differ): on the disk first
                self.journal.sync()
        if self.journal is not None and not self.journal.meta.ran_relay and self.core.relay_with_host:
            self.journal.update(ran_relay=True)  # a guest learnt it from the host's presence: its resume says so
        for event in step.events:
            self.emit(event)
            if self.core.seated_elsewhere(event):
                assert isinstance(event, GuestAccepted)
                self.emit(
                    Notice(
                        f"this game has both players (the host seated {event.key.fingerprint}, not you): "
                        "you are watching it"
                    )
                )
        if received:
            await asyncio.sleep(0)  # the front end shows it, and may answer it, before the flush
        for item in self.books.outgoing(asyncio.get_running_loop().time(), step.publish):
            self.link.send(item.topic, item.line)  # ours first; the copies waiting just after them, else later
            if not item.copy:
                self._sent(item)
        self._time_copies()
        if self.journal is not None and not timed:
            self._keep_turn(self.journal)  # an untimed game's, for a claim after days of silence: nothing waits for it
        if self.journal is not None:
            self.journal.sync()  # nothing to do when the front end's answer has flushed it already
        if step.resubscribe:
            self.emit(Notice("asking the relay for the game's lines again"))
            await self._ask_again()

    def _keep_turn(self, journal: Journal) -> None:
        """Keep in the journal when this client saw the current turn begin (wall-clock time), once a turn."""
        seen = self.core.turn_seen
        if seen is None:
            return
        moves, at = seen
        if journal.meta.turn is None or journal.meta.turn[0] != moves:
            journal.update(turn=[moves, time.time() - (self.core.clock() - at)])

    def _time_copies(self) -> None:
        """Wake when the copies waiting may be due (:attr:`RelayBooks.copies_at`); none waiting, no timer."""
        at = self.books.copies_at
        if at is None and self._copy_timer is not None:
            self._copy_timer.cancel()
            self._copy_timer = None
        elif at is not None and self._copy_timer is None:
            loop = asyncio.get_running_loop()
            self._copy_timer = loop.call_later(max(0.0, at - loop.time()), self._copies_due)

    def _copies_due(self) -> None:
        self._copy_timer = None
        for item in self.books.copies_due(asyncio.get_running_loop().time()):
            self.link.send(item.topic, item.line)
        self._time_copies()

    def send_copies(self) -> None:
        """Send the copies waiting, now (if the link is down, the next connection publishes what the relay lacks)."""
        if self._copy_timer is not None:
            self._copy_timer.cancel()
            self._copy_timer = None
        for item in self.books.take_copies():
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
        if self._front_done and isinstance(event, Notice):  # leaving: nobody reads the queue any more
            self.farewell(event.text)
            return
        self.events.put_nowait(event)
        self.changed.set()

    def _sent(self, item: Publish, *, echoed: bool = False) -> None:
        """A line of ours went out (or, ``echoed``, the relay has it): it waits for a sign that the opponent has it
        (presence aside)."""
        if item.topic.endswith("/presence") or _slot(item.topic).startswith("receipt-") or not self.core.playing:
            return  # a receipt is sent once: nobody waits on it, and the game goes on without it
        message = decode(item.line, verify=False)
        side = message.type in NUMBERED_APART
        self.liveness.sent(
            item.topic,
            item.line,
            asyncio.get_running_loop().time(),
            echoed=echoed,
            seq=None if side else message.seq,
            what=LINE_WORDS.get(message.type, message.type),
        )

    def _unanswered(self, link: Link, kept: list[Publish]) -> None:
        """On the first catch-up (a resumed player's liveness knows nothing of earlier connections): our lines that
        the opponent has neither answered nor copied wait for a sign that they have them, as if just sent, so that
        leaving (a resumed game already over leaves at once) waits for them and a quiet game asks for them. ``kept``:
        what :meth:`client.cores.network_game.GameCore.republish` gave the catch-up."""
        opponent = self.core.opponent
        if opponent is None or not self._can_narrow():
            return
        answered = self._view().answered
        for item in kept:
            message = decode(item.line, verify=False)
            if (
                item.copy
                or message.type is MessageType.CHAT
                or (message.type is not MessageType.CONFIRM and message.seq < answered)
            ):
                continue
            copied = held_copy_topic(self._game or "", opponent, line_hash(item.line)) in link.seen
            if not copied:
                self._sent(item, echoed=link.seen.get(item.topic) == digest(item.line.encode("utf-8")))

    async def _watch(self) -> None:
        """Every :data:`client.cores.liveness.TICK` s: what the game's quiet calls for (re-sends, asking the relay
        again), and what time alone does (:meth:`GameCore.tick`: a claim on time set up to be automatic, a concession),
        once this connection has caught up with the relay (a claim never races the lines the relay holds), and not just
        after the loop was stalled (:data:`STALLED`)."""
        loop = asyncio.get_running_loop()
        before = held_until = loop.time()
        while True:
            await asyncio.sleep(liveness.TICK)
            now = loop.time()
            if now - before > liveness.TICK + STALLED:
                held_until = now + STALL_HOLD
            before = now
            if self.books.up_to_date and self.link.connected and now >= held_until:
                step = self.core.tick()
                if step.publish or step.events:
                    await self.apply(step)
            for action in self.liveness.tick(loop.time(), self._view()):
                if isinstance(action, liveness.AskCopy):
                    await self._ask_copy(action.line_hash)
                elif isinstance(action, liveness.Resend):
                    self.link.send(action.topic, action.line)
                elif isinstance(action, liveness.Resubscribe):
                    await self._ask_again()
                elif isinstance(action, liveness.Reconnect):
                    self.link.renew()
                else:
                    self.emit(Notice(action.text))

    def _view(self) -> liveness.View:
        core = self.core
        session = core.session
        opponent = core.opponent if core.playing and not core.watching else None
        answered = -1
        for message in reversed(session.chain):
            if message.signer == opponent:
                answered = message.seq
                break
        gap = None
        if self.books.up_to_date:
            if session.phase is Phase.WAITING:
                gap = "the game's offer has not come"
            elif any(session.waiting_of(key) for key in (session.host, session.guest) if key is not None):
                gap = "a line of this game has not come, though one after it has"
            elif lacking_text(session) is not None:
                gap = "the ending a player confirms has not come"
        return liveness.View(
            opponent=None if opponent is None else self._opponent_text(),
            present=None if opponent is None else session.present(opponent),
            answered=answered,
            their_turn=opponent is not None and session.actor == opponent,
            gap=gap,
            connected=self.link.connected,
            asked_for=answered >= 0 and answered == self._asked_for,
        )

    def _opponent_text(self) -> str:
        """The opponent as people see them (``second 1a2b-…``)."""
        opponent = self.core.opponent
        if opponent is None:
            return "the opponent"
        return (self.core.session.player_of(opponent) or "the opponent") + f" {opponent.fingerprint}"

    async def _ask_again(self) -> None:
        """Ask the relay for what it retains again: the opponent's lines (a narrowed player), else what this connection
        subscribed to (the game, or the two players' topics)."""
        opponent = self.core.opponent
        if self.narrowed and opponent is not None:
            for key in (opponent, *self.core.session.witnesses):
                await self.link.resubscribe(player_filter(self._game or "", key))
        else:
            for topic_filter in list(self.link.subscriptions):
                await self.link.resubscribe(topic_filter)

    async def _ask_copy(self, line_hash: str) -> None:
        """Receive the opponent's copy of a line of ours (narrowed, a player receives none unasked), until it comes."""
        opponent = self.core.opponent
        if self.narrowed and opponent is not None:
            topic = held_copy_topic(self._game or "", opponent, line_hash)
            self._asked.add(topic)
            await self.link.peek(topic)

    async def _received(self, topic: str, payload: bytes, retained: bool = False) -> None:
        """A line arrived (``retained``: from the relay's store, a catch-up or an asking again, not live)."""
        key = _topic_key(topic)
        me, opponent = self.core.me, self.core.opponent
        if me is not None and key == me.text:
            self.liveness.came_back(topic, payload, asyncio.get_running_loop().time())
        elif opponent is not None and key == opponent.text and "/copy/" in topic:
            self.liveness.copied(topic.rsplit("/", 1)[1])
            if topic in self._asked:
                self._asked.discard(topic)
                self._spawn(self.link.peek(topic, stop=True))  # the reader never waits for the relay's answers
        called = self.books.seen(topic, payload, retained=retained)
        if isinstance(called, Restore):
            self._restore(called)  # a line of ours vanished from the relay (or was replaced): again
        elif isinstance(called, Check):
            self._check()  # perhaps junk the relay did not keep: ask it what it keeps there
        if not payload:
            return  # a retained line cleared: nothing to judge
        step = self.core.feed(payload, stored=retained)
        if retained and opponent is not None and key == opponent.text:
            for event in step.events:
                if (
                    isinstance(event, LineApplied)
                    and event.message.signer == opponent
                    and event.message.type not in NUMBERED_APART
                ):
                    self._asked_for = max(self._asked_for, event.message.seq)
        await self.apply(step, received=True, topic=topic)
        if self.books.up_to_date and not self.narrowed and self._can_narrow():
            self.narrowed = True  # in a task of its own: the reader never waits for the relay's answers
            self._spawn(self._narrow())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` (a request to the relay) in a task of its own, so that the reader never waits for the relay's
        answer; an error in it is shown and logged, never lost. (Not in the run's task group: leaving would wait for
        an answer that a closing connection may never bring.)"""
        if self._gone:
            work.close()  # leaving: the connection closes, nothing is asked of the relay any more
            return
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            log.error("a request to the relay failed", exc_info=error)
            self.emit(Notice(f"a request to the relay failed: {error!r} (in the log)", warning=True))

    async def _narrow(self, link: Link | None = None) -> None:
        """Once a player's seats are both known and the relay's lines are in: receive only the two players' topics
        (and the game's time witnesses' lines).

        Strangers' lines never concern a seated player, nor the opponent's copies of our lines but when one is asked
        for (:mod:`client.cores.liveness`: most lines are answered by the opponent's next one), nor our own copies (each
        would cost a move a delivery; every connection's catch-up sees any that vanished); our own lines come back,
        to see any of them vanish and measure the round trip.
        """
        opponent, me = self.core.opponent, self.core.me
        if opponent is not None and me is not None and self._can_narrow():
            self.narrowed = True  # the opponent's lines, and ours: to see any of ours vanish, and publish it again
            game = self._game or ""
            # the time witnesses' witness lines, and the watchers' talk (beside the game, apart from every key's lines)
            also = [*(player_filter(game, key) for key in self.core.session.witnesses), talk_filter(game)]
            link = link or self.link  # one relay's, just caught up; else every relay's
            await link.narrow(player_filter(game, opponent), player_filter(game, me), *also)
            # then, the catch-ups of later connections: the two players' lines and copies, the time witnesses' lines
            # and the talk, never another stranger's line (what strangers leave in the game costs a player nothing)
            link.follow(own_filter(game, opponent), own_filter(game, me), *also)

    def _remember(self, topic: str) -> bool:
        """Which topics the link remembers (a hash each): the seated keys' and this client's; while a seat is unknown,
        a bounded number of others' (a stranger's topics cost nothing once the seats are known)."""
        key = _topic_key(topic)
        session = self.core.session
        if key in _key_texts(session.host, session.guest, self.core.me, *session.witnesses):
            return True
        return session.guest is None and len(self.link.seen) < SEEN_UNSEATED

    def _count_refused(self, step: Step, topic: str) -> Step:
        """Show the first refused lines and count the rest (a flood of junk is one notice every few seconds).

        Once the seats are known, a line of a key that holds none (a stranger, a candidate the host did not seat) is
        no warning about the game: nothing it says can change it. The first is told once, quietly, as harmless; the
        rest are counted (the running count is told only once they are more than a few: a flood)."""
        session = self.core.session
        seats = _key_texts(session.host, session.guest)
        events: list[UiEvent] = []
        for event in step.events:
            if not isinstance(event, LineRejected):
                events.append(event)
                continue
            key = _topic_key(topic)  # where it came from; a line kept waiting, judged with a later one: its signer
            key = key if key not in seats else _signer_text(event.line) or key
            seat = key if key in seats else None
            if seat is None and len(seats) == 2:
                self.ignored.count(key, None)
                if self.ignored.quiet is None:
                    self.ignored.quiet = self.ignored.lines + SHOWN_PER_PLAYER
                    events.append(Notice(unseated_text(event)))
            elif self.ignored.show(key, seat):
                events.append(event)
        if (
            self.ignored.lines > max(self.ignored.reported, self.ignored.quiet or 0)
            and self._count_timer is None
            and not self._gone
        ):
            loop = asyncio.get_running_loop()
            wait = max(0.0, self._counted_at + COUNT_EVERY - loop.time())
            self._count_timer = loop.call_later(wait, self._report_count)
        return dataclasses.replace(step, events=tuple(events))

    def _report_count(self) -> None:
        self._count_timer = None
        self._counted_at = asyncio.get_running_loop().time()
        self.emit(Notice(self.ignored.text()))
        self.ignored.reported = self.ignored.lines

    def _restore(self, restore: Restore) -> None:
        self.link.send(restore.topic, restore.line)
        where = restore.topic.rsplit("/", 2)
        what = f"copy of {where[-1][:8]}…" if where[-2] == "copy" else where[-1]
        note = " (no more this connection: someone keeps clearing it)" if restore.last else ""
        self.emit(Notice(f"the relay lost a line of yours ({what}): published it again{note}"))

    def _check(self) -> None:
        """Another's line came live on a topic of ours: a stranger's junk the relay did not keep changes nothing, but
        one it kept replaced ours. Live, the two look alike, so the relay is asked, :data:`CHECK_AFTER` s later, what it
        keeps there: its answer, from its store, puts ours back if it differs."""
        if self._check_timer is None and not self._gone:
            self._check_timer = asyncio.get_running_loop().call_later(CHECK_AFTER, self._ask_checks)

    def _ask_checks(self) -> None:
        self._check_timer = None
        for topic in self.books.take_checks():
            self._spawn(self._ask_kept(topic))

    async def _ask_kept(self, topic: str) -> None:
        await self.link.peek(topic)  # the relay sends what it keeps there, as retained: _received judges it
        await asyncio.sleep(CHECK_AFTER)
        await self.link.peek(topic, stop=True)

    def _can_narrow(self) -> bool:
        core = self.core
        session = core.session
        return (
            not core.watching
            and core.opponent is not None
            and session.guest is not None
            and (core.me in (session.host, session.guest))
        )

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
        self.books.will(gone.line, self.connections)
        return gone.topic, gone.line

    async def _connected(self, link: Link) -> None:
        """After each connection (to one relay, when there are several: ``link`` is that relay's): say we are here,
        catch up on what the relay retains, publish what it lacks of what we keep, and from then on (a seated player)
        receive only the opponent's topics."""
        self.books.catching_up(id(link))
        try:
            await self._catch_up(link)
        finally:
            self.books.stopped_catching(id(link))
        if link.stopping:  # the runner is leaving (a Ctrl-C while it connected): it signs nothing more
            return
        if self._first_ready:  # what the catch-up calls for (an accept, a reveal, a confirmation), now safe to sign
            self._first_ready = False
            await self.apply(self.core.ready())
        await self._narrow(link)

    async def _catch_up(self, link: Link) -> None:
        will = getattr(link, "last_will", None)
        # the presence seq of the will this relay holds: the relay says "gone" only for the connection it lost
        seq = self.books.will_seq(will[1] if will is not None else None, self.connections)
        here = self.core.presence(True, seq)
        if here is not None:
            link.send(here.topic, here.line)
        await link.settled((here.topic, here.line) if here is not None else None)
        kept = self.core.republish()
        catch_up = self.books.caught_up(id(link), link.seen, kept)
        for item in catch_up.send:
            link.send(item.topic, item.line)
        if catch_up.first:
            self._unanswered(link, kept)
            self._first_ready = True
        self.caught_up.set()
        missing = lacking_text(self.core.session)
        if missing is not None:
            self.emit(Notice(missing, warning=True))

    def _state(self, connected: bool, sentence: str) -> None:
        self.emit(Connection(connected, sentence))

    async def _goodbye(self) -> None:
        """Say we are gone, and wait until the relay has it and every line sent before it; first, until there is a sign
        that the opponent has our last lines (they are asked for at once, and sent again meanwhile:
        :mod:`client.cores.liveness`), at most :data:`GOODBYE_MOST` s connected (:data:`GOODBYE_CAP` s in all), so that
        a line lost on its way (or with a relay that was killed) never leaves them waiting on a player who has gone. A
        player whose game is over (its journal may say so before the first connection) waits for that first catch-up
        too: it publishes again what the relay lacks. With the opponent gone mid-game, the relay having sent our lines
        back is enough: we come back to go on, and publish them again then; once the game is over, nobody comes back,
        and the opponent is waited for though away. A lost connection does not end the wait: the next one publishes
        again what the relay lacks. A runner being cancelled (a test, the soak) waits for nothing."""
        self.send_copies()
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        started = before = loop.time()
        connected_for = 0.0
        core = self.core
        opponent = core.opponent
        over = core.session.over
        told = False
        while connected_for < GOODBYE_MOST and loop.time() - started < GOODBYE_CAP:
            if task is not None and task.cancelling():
                break
            if not self.link.connected and relay_left_with_host(core):
                self.farewell(f"leaving now: {HOST_RELAY_GONE.format(game=core.game_id)}")
                break
            if not self.caught_up.is_set():
                if not over or not self._can_narrow():
                    break  # nothing of ours the relay may lack, or we come back to go on
                what = "the relay has"
            else:
                for ask in self.liveness.ask_all(loop.time()):  # each line as soon as the relay has it
                    await self._ask_copy(ask.line_hash)
                if not self.liveness.waiting or opponent is None:
                    break
                if (
                    core.session.present(opponent) is False
                    and not self.liveness.unechoed()
                    and self.link.connected
                    and not (over and self.liveness.waiting_in_chain())
                ):
                    break  # the relay has them: gone mid-game, they come back to go on (a chat, a confirmation:
                    # nobody waits on those); only the last moves of a game over are waited for though they are gone
                what = f"{self._opponent_text()} has"
            if not told and loop.time() - started >= GOODBYE_TELL:
                told = True
                self.emit(
                    Notice(f"leaving once {what} your last lines (at most {GOODBYE_CAP:.0f} s; Ctrl-C leaves now)")
                )
            await asyncio.sleep(0.02)
            now = loop.time()
            if self.link.connected:
                connected_for += now - before
            before = now
        gone = core.presence(False, self.connections)
        if gone is not None and self.link.connected:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(GOODBYE_SECONDS):
                    await self.link.publish(gone.topic, gone.line)


def _tell_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _slot(topic: str) -> str:
    """The slot a game topic names (its last part: ``4``, ``chat-2``, ``receipt-7``)."""
    return topic.rsplit("/", 1)[-1]


def unseated_text(rejected: LineRejected) -> str:
    """What a player or a watcher is told, once, of the lines of keys that hold no seat, the seats known."""
    return (
        f"lines of keys that hold no seat here are ignored, harmless: they cannot change the game (the first: "
        f"{rejected.code} {rejected.detail})"
    )


def _signer_text(line: str) -> str:
    """The key a line names as its signer (its ``by=`` field; ``""``: none), verified or not: whose line was refused."""
    found = re.search(r" by=([A-Za-z0-9_-]{43}) ", line)
    return found.group(1) if found else ""


def _topic_key(topic: str) -> str:
    """The key a game topic names (``olixono/1/games/<game>/<key>/…``), or ``""``."""
    where = game_and_key(topic)
    return where[1] if where is not None else ""


def _key_texts(*keys: PublicKey | None) -> set[str]:
    return {key.text for key in keys if key is not None}


class Ignored:
    """The refused lines a client counts instead of showing: a seated key's first few and one stranger's line are
    shown, everything else adds to a running count, told in one notice every :data:`COUNT_EVERY` s. Its memory is
    bounded: strangers' keys are counted up to a limit."""

    MAX_KEYS = 10_000

    def __init__(self) -> None:
        self.lines = 0
        """Lines counted, not shown."""
        self.reported = 0
        """Of those, how many the last notice told."""
        self.keys: set[str] = set()
        self._shown: dict[str, int] = {}  # lines shown of each seated key, and "" for strangers
        self._players = False  # a seated key's lines are counted too
        self.quiet: int | None = None
        """Once the harmless lines of keys that hold no seat were told (:func:`unseated_text`): the count up to which
        the running count stays untold."""

    def show(self, key: str, seat: str | None) -> bool:
        """Whether a line refused on ``key``'s topic is shown (``seat``: the key holds a seat); if not, it is
        counted."""
        shown = self._shown.get(seat or "", 0)
        if shown < (SHOWN_PER_PLAYER if seat else 1):
            self._shown[seat or ""] = shown + 1
            return True
        self.count(key, seat)
        return False

    def count(self, key: str, seat: str | None) -> None:
        """A line refused on ``key``'s topic, counted, not shown."""
        self.lines += 1
        self._players |= seat is not None
        if len(self.keys) < self.MAX_KEYS:
            self.keys.add(key)

    def text(self) -> str:
        """``ignored 90,000 lines from 3 strangers``: the running count."""
        keys = len(self.keys)
        who = ("key" if keys == 1 else "keys") if self._players else ("stranger" if keys == 1 else "strangers")
        return (
            f"ignored {self.lines:,} lines from {keys:,}{'+' if keys >= self.MAX_KEYS else ''} {who} "
            "(refused, not shown)"
        )
