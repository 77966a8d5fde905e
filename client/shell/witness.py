"""A time witness on a relay (``olixono witness``, ``olixono relay --witness``): it follows every game whose offer
names its key, and signs when it saw each line (``PROTOCOL.md`` §3, "A time witness").

What it signs is :class:`protocol.session.Witnessing`'s to decide (it verifies every line as a player does); this
module is the shell around it:

- it reads the relay's lobby (every game's offer) and follows each game whose offer verifies and names its key, one
  subscription a game, at most ``most`` games at once (an embedded relay allows a connection 32 subscriptions): more
  wait their turn, in the order they were found. Anyone can publish offers that name a witness, so a game that has
  seated nobody for :data:`UNSEATED_FOR` s gives its place up while others wait, and is followed again, first of
  the games waiting, once its host accepts someone (the witness reads every host's accept);
- within :data:`BATCH` s of a new line of a game it signs one witness line for every line verified since its last,
  at one time for all the games it signs in (:func:`steady_clock_ms`: a witness's time never goes back, or its chain
  would prove it lies); only lines it saw live: what a catch-up brings (the relay's store, when it starts following
  a game or after a lost connection) it never names, since its time for them would be late (for those lines the
  rules without a witness hold), and it signs nothing before the relay's lines of the game are in;
- each witness line is written to the game's file in its folder (one flush to disk a pass) before it is published,
  retained; on every connection what it signed is published again (a relay that lost it gets it back), and a witness
  that restarts reads its files first and goes on from its chain: it never signs a second line for one ``seq``,
  which would prove it lies. One process at a time witnesses with a key (a lock, :func:`witness_lock`): two would do
  just that;
- a game that ends is followed :data:`FOLLOW_AFTER_END` s more (a move set aside by a timeout may still come), then
  left, and marked done in its folder (a restart does not follow it again); a game over when it was found is left at
  once.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from client.shell.transport import Link, LinkFactory
from protocol import Identity, MessageType, Phase, PublicKey, Witnessing, game_filter, lobby_filter, topic_for
from protocol.errors import RemoteProtocolError
from protocol.events import Outgoing
from protocol.messages import decode
from protocol.rules import witnesses_of
from protocol.topics import game_and_key, slot_filter

log = logging.getLogger("olixono.witness")

BATCH = 0.05
"""Seconds a witness gathers a game's new lines before it signs them in one witness line."""
FOLLOW_AFTER_END = 60.0
"""Seconds a witness still follows a game after its end (an answer to a claim, set aside, may come)."""
SETTLE_QUIET, SETTLE_MAX = 0.25, 3.0
"""Before its first line in a game: the relay's lines are taken as in once none came for this long (at most)."""
MOST_GAMES = 24
"""Games followed at once by default (one subscription each, beside the lobby's two)."""
UNSEATED_FOR = 120.0
"""Seconds a game nobody has been seated in may hold a place while other games wait for one: then it gives its place
up, and is followed again once its host accepts someone (anyone can publish offers that name a witness)."""
MOST_WAITING = 1000
"""Games waiting for a place, at most (more are not noted: the lobby tells them again on the next connection)."""
MOST_PARKED = 10_000
"""Unseated games that gave their place up, remembered to be followed again once seated."""


@dataclass
class Followed:
    """A game the witness follows: its receiver that signs, and when things happened (the event loop's time)."""

    session: Witnessing
    since: float
    last: float = 0.0
    """When a line of it last arrived."""
    ended: float | None = None
    """When it was seen over."""
    ready: bool = False
    """Whether it may sign: the relay's lines are in (a live line came after them, or none came for a while)."""
    signed: list[str] = field(default_factory=list)
    """Its witness lines in this game, in order (published again on every connection)."""


class WitnessBusy(Exception):
    """Another process witnesses with this key and folder (two would sign two lines for one ``seq``: a proven lie)."""


class TimeWitness:
    """A witness's games on one relay; :meth:`run` it with a :data:`client.shell.transport.LinkFactory`."""

    def __init__(
        self,
        identity: Identity,
        folder: Path,
        *,
        most: int = MOST_GAMES,
        announce: Callable[[str], object] = print,
        clock_ms: Callable[[], int] | None = None,
        lock: Path | None = None,
    ) -> None:
        self.identity = identity
        self.folder = folder
        self.lock = lock or folder / "lock"
        """The file one process at a time holds while it witnesses with this key (:func:`witness_lock`)."""
        self.most = most
        self.announce = announce
        self._clock_ms = clock_ms or steady_clock_ms()
        self.games: dict[str, Followed] = {}
        self.waiting: dict[str, None] = {}
        """Games found that name this witness and wait for a place, in the order found."""
        self.parked: dict[str, str] = {}
        """Unseated games that gave their place up (and their hosts' keys), followed again once the host accepts
        someone."""
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.done = {path.stem for path in folder.glob("*.done")}
        """Games it followed to their end (a restart does not follow them again)."""
        self.link: Link | None = None
        self._wake = asyncio.Event()
        self._lock: int | None = None

    @property
    def key(self) -> PublicKey:
        return self.identity.public

    # -- the relay -------------------------------------------------------------------------------
    async def run(self, connect: LinkFactory, stop: asyncio.Event) -> None:
        """Witness until ``stop`` is set (the link's failure, when it gives up, is raised); :class:`WitnessBusy` when
        another process witnesses from this folder."""
        self._take_folder()
        try:
            self.link = link = connect(on_connect=self._connected, on_line=self._line, remember=lambda _: False)
            await link.subscribe(lobby_filter())
            await link.subscribe(slot_filter(2))  # the hosts' accepts: a parked game is seated
            async with link:
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(1.0):  # the games that ended, the games waiting to settle
                            await self._wake.wait()
                    self._wake.clear()
                    await asyncio.sleep(BATCH)  # the lines that come with this one
                    for game, done in self.sign(asyncio.get_running_loop().time()):
                        await self.leave(game, done=done)
        finally:
            self._give_folder()

    def _take_folder(self) -> None:
        """Hold the folder for this process alone (an advisory lock, released when it ends however it ends)."""
        self._lock = hold(self.lock)

    def _give_folder(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    async def _connected(self, link: Link) -> None:
        """A (new) connection: what this witness signed goes to the relay again (the link subscribes)."""
        for followed in list(self.games.values()):
            for line in followed.signed:
                link.send(topic_for(decode(line, verify=False)), line)

    async def _line(self, topic: str, payload: bytes, retained: bool) -> None:
        where = game_and_key(topic)
        if where is None or not payload:
            return
        game = where[0]
        followed = self.games.get(game)
        if followed is None:
            if topic.endswith("/offer"):
                await self.found(game, payload, live=not retained)
            elif self.parked.get(game) == where[1] and topic.endswith("/2"):  # its host accepted someone: again,
                del self.parked[game]  # first of the games waiting (it had a place, and gave it up for them)
                if len(self.games) < self.most:
                    await self.follow(game)
                else:
                    self.waiting = {game: None, **self.waiting}
            return
        # what a catch-up brings it never names (its time for it would be late); a relay sends a subscription's
        # retained lines before anything live, so the first live line says the relay's lines of the game are in
        if not retained:
            followed.ready = True
        followed.session.receive(payload, live=not retained)
        followed.last = asyncio.get_running_loop().time()
        self._wake.set()

    async def found(self, game: str, offer: bytes, *, live: bool = False) -> None:
        """An offer in the lobby (``live``: as it was published, not from the relay's store): follow its game if it
        verifies and names this witness."""
        if game in self.done or game in self.waiting or game in self.parked or self.key.text.encode() not in offer:
            return  # (the key's text first: most offers name no witness, and a signature costs 0.1 ms)
        try:
            message = decode(offer)
            named = self.key in witnesses_of(message.terms)
        except RemoteProtocolError:
            return
        if named and message.type is MessageType.OFFER and message.game == game:
            await self.place(game, offer if live else None)

    async def place(self, game: str, offer: bytes | None = None) -> None:
        """Follow ``game`` (``offer``: its offer, seen live) if there is a place for it, else it waits its turn."""
        if len(self.games) < self.most:
            await self.follow(game, offer)
        elif len(self.waiting) < MOST_WAITING:
            self.waiting[game] = None
            log.info("witnessing %d games already: game %s waits its turn", len(self.games), game)

    async def follow(self, game: str, offer: bytes | None = None) -> None:
        """Follow ``game`` (``offer``: its offer, seen live): its own chain first (it goes on from it), then the relay's
        lines of it."""
        now = asyncio.get_running_loop().time()
        session = Witnessing(game, self.identity)
        followed = self.games[game] = Followed(session, since=now, last=now)
        for line in self._read(game):
            session.receive(line, live=False)
            followed.signed.append(line)
        if offer is not None:
            session.receive(offer)
        self.announce(f"witnessing game {game}")
        assert self.link is not None
        await self.link.subscribe(game_filter(game))
        for line in followed.signed:
            self.link.send(topic_for(decode(line, verify=False)), line)

    async def leave(self, game: str, *, done: bool = True) -> None:
        """Stop following ``game``: over long enough ago (``done``: marked so), or unseated while others wait (parked,
        followed again once seated); its place to a waiting game."""
        followed = self.games.pop(game, None)
        host = followed.session.host if followed is not None else None
        if done:
            (self.folder / f"{game}.done").touch()
            self.done.add(game)
            self.announce(f"done with game {game}")
        elif len(self.parked) < MOST_PARKED and host is not None:
            self.parked[game] = host.text
            log.info("game %s has seated nobody in %g s while others wait: its place goes to one", game, UNSEATED_FOR)
        assert self.link is not None
        await self.link.unsubscribe(game_filter(game))
        while self.waiting and len(self.games) < self.most:
            waiting = next(iter(self.waiting))
            del self.waiting[waiting]
            await self.follow(waiting)

    # -- signing -------------------------------------------------------------------------------
    def sign(self, now: float) -> list[tuple[str, bool]]:
        """Sign, in every game ready for it, the lines verified since its last witness line (written, then published),
        at one time for all (taken before any file is written); the games to leave, and whether each is done: over for
        :data:`FOLLOW_AFTER_END` s, or over when found (done), or unseated for :data:`UNSEATED_FOR` s while others
        wait (not done)."""
        at = self._clock_ms()
        leaving: list[tuple[str, bool]] = []
        written: list[tuple[str, Outgoing]] = []
        for game, followed in self.games.items():
            if not followed.ready and (now - followed.last >= SETTLE_QUIET or now - followed.since >= SETTLE_MAX):
                followed.ready = True
                if followed.session.result is not None:  # over before it was found: nothing more will come
                    followed.ended = now - FOLLOW_AFTER_END
            if not followed.ready:
                self._wake.set()  # look again soon
                continue
            signed = False
            while (out := followed.session.attest(at)) is not None:  # a few dozen lines a witness line
                written.append((game, out))
                followed.signed.append(out.line)
                signed = True
            if followed.session.result is not None and followed.ended is None:
                followed.ended = now
            if followed.ended is not None and now - followed.ended >= FOLLOW_AFTER_END and not signed:
                leaving.append((game, True))
            elif self.waiting and followed.session.phase is Phase.OFFERED and now - followed.since >= UNSEATED_FOR:
                leaving.append((game, False))
        self._write(written)
        for _, out in written:
            if self.link is not None:
                self.link.send(out.topic, out.line)
        return leaving

    def _path(self, game: str) -> Path:
        return self.folder / f"{game}.lines"

    def _read(self, game: str) -> list[str]:
        """Its witness lines in ``game``, as written; a line a crash cut short is cut off the file (it was never
        published: each is written before it is)."""
        path = self._path(game)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        whole = data[: data.rfind(b"\n") + 1]
        if len(whole) != len(data):
            with open(path, "r+b") as file:
                file.truncate(len(whole))
        return [line for line in whole.decode("utf-8", "replace").split("\n") if line]

    def _write(self, written: list[tuple[str, Outgoing]]) -> None:
        """Keep witness lines before they are published (a restart goes on from them): one flush to disk a pass."""
        if not written:
            return
        games: dict[str, list[str]] = {}
        for game, out in written:
            games.setdefault(game, []).append(out.line)
        for game, lines in games.items():
            with open(self._path(game), "a", encoding="utf-8") as file:
                file.write("".join(line + "\n" for line in lines))
                file.flush()
                os.fsync(file.fileno())


def hold(path: Path) -> int:
    """Hold the lock file ``path`` for this process alone (an advisory lock, released when the process ends however
    it ends, or its descriptor is closed); :class:`WitnessBusy` when another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        raise WitnessBusy(
            f"another process witnesses with this key already ({path}): one at a time (two would sign "
            "two lines for one place, which proves a witness lies)"
        ) from None
    return handle


def witness_lock(state: Path, key: PublicKey) -> Path:
    """The lock a witness of ``key`` holds, wherever it keeps its lines (``olixono witness`` in the state folder,
    ``olixono relay --witness --data DIR`` in DIR): one file a key under the state folder."""
    return state / "witness" / f"{key.text}.lock"


def steady_clock_ms() -> Callable[[], int]:
    """The witness's clock: the wall clock at start, then the monotonic clock's progress (a wall clock set back by NTP
    or a person would shorten every duration across it; a restart anchors it again, and a witness's times never go
    back along its chain, whatever its clock says)."""
    wall, start = time.time_ns() // 1_000_000, time.monotonic_ns() // 1_000_000
    return lambda: wall + time.monotonic_ns() // 1_000_000 - start


def witness_folder(state: Path, key: PublicKey) -> Path:
    """Where a witness keeps its lines: one folder a key under the state folder."""
    return state / "witness" / key.text
