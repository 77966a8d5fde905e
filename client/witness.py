"""A time witness on a relay (``olixono witness``, ``olixono relay --witness``): it follows every game whose offer
names its key, and signs when it saw each line (``PROTOCOL.md`` §3, "A time witness").

What it signs is :class:`protocol.session.Witnessing`'s to decide (it verifies every line as a player does); this
module is the shell around it:

- it reads the relay's lobby (every game's offer) and follows each game whose offer verifies and names its key, one
  subscription a game, at most ``most`` games at once (an embedded relay allows a connection 32 subscriptions): more
  wait their turn, in the order they were found;
- within :data:`BATCH` s of a new line of a game it signs one witness line for every line verified since its last,
  at the time it signs, in ms (:func:`steady_clock_ms`: a witness's time never goes back, or its chain would prove it
  lies);
  only lines it saw live: what a catch-up brings (the relay's store, when it starts following a game or after a lost
  connection) it never names, since its time for them would be late (for those lines the rules without a witness
  hold);
- each witness line is written to the game's file in its folder before it is published, retained; on every
  connection what it signed is published again (a relay that lost it gets it back), and a witness that restarts
  reads its files first and goes on from its chain: it never signs a second line for one ``seq``, which would prove
  it lies. A game it has not signed in yet waits until the relay's lines of it are in before it signs;
- a game that ends is followed :data:`FOLLOW_AFTER_END` s more (a move set aside by a timeout may still come), then
  left, and marked done in its folder (a restart does not follow it again); a game over when it was found is left at
  once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from client.transport import Link, LinkFactory
from protocol import Identity, MessageType, PublicKey, Witnessing, game_filter, lobby_filter, topic_for
from protocol.errors import RemoteProtocolError
from protocol.messages import decode
from protocol.rules import witnesses_of
from protocol.topics import game_and_key

log = logging.getLogger("olixono.witness")

BATCH = 0.05
"""Seconds a witness gathers a game's new lines before it signs them in one witness line."""
FOLLOW_AFTER_END = 60.0
"""Seconds a witness still follows a game after its end (an answer to a claim, set aside, may come)."""
SETTLE_QUIET, SETTLE_MAX = 0.25, 3.0
"""Before its first line in a game: the relay's lines are taken as in once none came for this long (at most)."""
MOST_GAMES = 24
"""Games followed at once (one subscription each, beside the lobby's)."""


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
    """Whether it may sign (the relay's lines are in, or it has signed in this game before)."""
    signed: list[str] = field(default_factory=list)
    """Its witness lines in this game, in order (published again on every connection)."""


class TimeWitness:
    """A witness's games on one relay; :meth:`run` it with a :data:`client.transport.LinkFactory`."""

    def __init__(self, identity: Identity, folder: Path, *, most: int = MOST_GAMES,
                 announce: Callable[[str], object] = print, clock_ms: Callable[[], int] | None = None) -> None:
        self.identity = identity
        self.folder = folder
        self.most = most
        self.announce = announce
        self._clock_ms = clock_ms or steady_clock_ms()
        self.games: dict[str, Followed] = {}
        self.waiting: dict[str, None] = {}
        """Games found that name this witness and wait for a place, in the order found."""
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.done = {path.stem for path in folder.glob("*.done")}
        """Games it followed to their end (a restart does not follow them again)."""
        self.link: Link | None = None
        self._wake = asyncio.Event()

    @property
    def key(self) -> PublicKey:
        return self.identity.public

    # -- the relay -------------------------------------------------------------------------------
    async def run(self, connect: LinkFactory, stop: asyncio.Event) -> None:
        """Witness until ``stop`` is set (the link's failure, when it gives up, is raised)."""
        self.link = link = connect(on_connect=self._connected, on_line=self._line)
        await link.subscribe(lobby_filter())
        async with link:
            while not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(1.0):  # the games that ended
                        await self._wake.wait()
                self._wake.clear()
                await asyncio.sleep(BATCH)  # the lines that come with this one
                for game in self.sign(asyncio.get_running_loop().time()):
                    await self.leave(game)

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
        now = asyncio.get_running_loop().time()
        if topic.endswith("/offer") and game not in self.games:
            await self.found(game, payload, live=not retained)
            return
        followed = self.games.get(game)
        if followed is None:
            return
        followed.session.receive(payload, live=not retained)  # what a catch-up brings, it never names
        followed.last = now
        self._wake.set()

    async def found(self, game: str, offer: bytes, *, live: bool = False) -> None:
        """An offer in the lobby (``live``: as it was published, not from the relay's store): follow its game if it
        verifies and names this witness."""
        if game in self.done or game in self.waiting:
            return
        try:
            message = decode(offer)
            named = self.key in witnesses_of(message.terms)
        except RemoteProtocolError:
            return
        if not named or message.type is not MessageType.OFFER or message.game != game:
            return
        if len(self.games) >= self.most:
            self.waiting[game] = None
            log.info("witnessing %d games already: game %s waits its turn", len(self.games), game)
            return
        await self.follow(game, offer if live else None)

    async def follow(self, game: str, offer: bytes | None = None) -> None:
        """Follow ``game`` (``offer``: its offer, seen live)."""
        now = asyncio.get_running_loop().time()
        session = Witnessing(game, self.identity)
        followed = self.games[game] = Followed(session, since=now, last=now)
        for line in self._read(game):  # its own chain first: it goes on from it
            session.receive(line, live=False)
            followed.signed.append(line)
        if offer is not None:
            session.receive(offer)
        followed.ready = bool(followed.signed)
        self.announce(f"witnessing game {game}")
        assert self.link is not None
        await self.link.subscribe(game_filter(game))
        for line in followed.signed:
            self.link.send(topic_for(decode(line, verify=False)), line)

    async def leave(self, game: str) -> None:
        """Stop following ``game`` (it ended long enough ago): marked done, its place to a waiting game."""
        self.games.pop(game, None)
        (self.folder / f"{game}.done").touch()
        self.done.add(game)
        assert self.link is not None
        await self.link.unsubscribe(game_filter(game))
        self.announce(f"done with game {game}")
        while self.waiting and len(self.games) < self.most:
            waiting = next(iter(self.waiting))
            del self.waiting[waiting]
            await self.follow(waiting)

    # -- signing -------------------------------------------------------------------------------
    def sign(self, now: float) -> list[str]:
        """Sign, in every game ready for it, the lines verified since its last witness line (written, then published);
        the games to leave: over for :data:`FOLLOW_AFTER_END` s, or over when found, with nothing left to sign."""
        over: list[str] = []
        for game, followed in self.games.items():
            if not followed.ready and (now - followed.last >= SETTLE_QUIET or now - followed.since >= SETTLE_MAX):
                followed.ready = True
                if followed.session.result is not None:  # over before it was found: nothing more will come
                    followed.ended = now - FOLLOW_AFTER_END
            if not followed.ready:
                self._wake.set()  # look again soon
                continue
            signed = False
            while (out := followed.session.attest(self._clock_ms())) is not None:  # a few dozen lines a witness line
                self._write(game, out.line)
                followed.signed.append(out.line)
                signed = True
                if self.link is not None:
                    self.link.send(out.topic, out.line)
            if followed.session.result is not None and followed.ended is None:
                followed.ended = now
            if followed.ended is not None and now - followed.ended >= FOLLOW_AFTER_END and not signed:
                over.append(game)
        return over

    def _path(self, game: str) -> Path:
        return self.folder / f"{game}.lines"

    def _read(self, game: str) -> list[str]:
        try:
            text = self._path(game).read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [line for line in text.split("\n") if line]  # a line cut by a crash is refused by the receiver

    def _write(self, game: str, line: str) -> None:
        """Keep a witness line before it is published: a restart goes on from it."""
        with open(self._path(game), "a", encoding="utf-8") as file:
            file.write(line + "\n")
            file.flush()
            os.fsync(file.fileno())


def steady_clock_ms() -> Callable[[], int]:
    """The witness's clock: the wall clock at start, then the monotonic clock's progress (a wall clock set back by NTP
    or a person would shorten every duration across it; a restart anchors it again, and a witness's times never go
    back along its chain, whatever its clock says)."""
    wall, start = time.time_ns() // 1_000_000, time.monotonic_ns() // 1_000_000
    return lambda: wall + time.monotonic_ns() // 1_000_000 - start


def witness_folder(state: Path, key: PublicKey) -> Path:
    """Where a witness keeps its lines: one folder a key under the state folder."""
    return state / "witness" / key.text
