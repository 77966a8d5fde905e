"""One game over several relays at once: a :class:`Links` is a :class:`client.shell.transport.Link` to each, seen as
one.

Every line this client sends goes to each relay; every line that arrives from any of them reaches the game once
(:class:`client.cores.relays.Relays` keeps the books); each relay's link keeps itself up on its own, and one that is
down, or was never reachable, costs the others nothing: its lines are sent again when it is back, by the same hook that
seeds a single relay that lost them (``on_connect``, called with that relay's own link). So a relay that dies, withholds
one player's lines, delays or reorders them changes nothing a player sees beyond a notice, as long as one relay works; a
relay that lies can only show lines the game's own judging refuses.

It offers what the game's runner and the commands ask of a link (the same names as
:class:`client.shell.transport.Link`): what is asked of the whole set (subscriptions, sending) goes to every relay; what
belongs to one connection (``on_connect``, ``settled``, ``seen``) is the single relay's link, passed to the hook.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from client.cores.relays import Relays
from client.shell.transport import STOP_GRACE, Hook, Link, LinkFactory, RelayAddress, RelayError


class Links:
    """Links to several relays, one game's; ``async with links:`` keeps each up until the block ends."""

    def __init__(
        self,
        factories: Sequence[LinkFactory],
        *,
        will: Callable[[], tuple[str, str] | None] | None = None,
        on_connect: Hook | None = None,
        on_state: Callable[[bool, str], None] | None = None,
        on_line: Callable[[str, bytes, bool], Awaitable[None]] | None = None,
        remember: Callable[[str], bool] | None = None,
    ) -> None:
        self.on_connect, self.on_state, self.on_line = on_connect, on_state, on_line
        self.links: list[Link] = [
            factory(
                will=will,
                on_connect=self._connected,
                on_state=self._stated(index),
                on_line=self._arrived(index),
                remember=remember,
                patient=True,
            )
            for index, factory in enumerate(factories)
        ]
        self.relays = Relays([link.address.url for link in self.links])
        self.incoming: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self._host: asyncio.Task[Any] | None = None  # the task inside ``async with``, cancelled if every relay ends
        self._tasks: list[asyncio.Task[None]] = []
        self._ended: dict[int, RelayError] = {}  # the relays whose links gave up, and why
        self._failed_host = False

    # -- what a link is asked --------------------------------------------------------------------------
    @property
    def address(self) -> RelayAddress:
        """The first relay's address (where a command says it looks for a game: :attr:`addresses` has them all)."""
        return self.links[0].address

    @property
    def addresses(self) -> list[RelayAddress]:
        return [link.address for link in self.links]

    @property
    def connected(self) -> bool:
        """Whether one relay at least is connected."""
        return any(link.connected for link in self.links)

    @property
    def stopping(self) -> bool:
        return self.links[0].stopping

    @property
    def subscriptions(self) -> list[str]:
        return self.links[0].subscriptions

    @property
    def seen(self) -> dict[str, bytes]:
        """What arrived last on each topic, from the relay that sent most (a count's measure, as one link's is)."""
        return max((link.seen for link in self.links), key=len)

    def stop(self) -> None:
        for link in self.links:
            link.stop()

    def renew(self) -> None:
        for link in self.links:
            link.renew()

    def send(self, topic: str, line: str) -> bool:
        """Hand a line to each relay's connection; whether one took it (the others get it on their next connection)."""
        return [link.send(topic, line) for link in self.links].count(True) > 0

    async def publish(self, topic: str, line: str) -> bool:
        return any(await asyncio.gather(*(link.publish(topic, line) for link in self.links)))

    async def subscribe(self, topic_filter: str) -> None:
        await asyncio.gather(*(link.subscribe(topic_filter) for link in self.links))

    async def unsubscribe(self, topic_filter: str) -> None:
        await asyncio.gather(*(link.unsubscribe(topic_filter) for link in self.links))

    def follow(self, *topic_filters: str) -> None:
        for link in self.links:
            link.follow(*topic_filters)

    async def narrow(self, *topic_filters: str) -> None:
        await asyncio.gather(*(link.narrow(*topic_filters) for link in self.links))

    async def peek(self, topic_filter: str, *, stop: bool = False) -> None:
        await asyncio.gather(*(link.peek(topic_filter, stop=stop) for link in self.links))

    async def resubscribe(self, topic_filter: str) -> None:
        await asyncio.gather(*(link.resubscribe(topic_filter) for link in self.links))

    async def settled(self, marker: tuple[str, str] | None = None) -> None:
        """Until the relays that are up have sent their retained lines."""
        await asyncio.gather(*(link.settled(marker) for link in self.links if link.connected))

    def drain(self) -> list[tuple[str, bytes]]:
        taken = []
        while not self.incoming.empty():
            taken.append(self.incoming.get_nowait())
        return taken

    # -- running -----------------------------------------------------------------------------------------
    async def __aenter__(self) -> Links:
        """Keep each relay's link up, each in a task of its own: one that gives up (``--timeout``) or is refused for
        good ends that relay only; the block is cancelled, and raises, only when every relay has ended."""
        self._host = asyncio.current_task()
        self._tasks = [asyncio.create_task(self._keep(index, link)) for index, link in enumerate(self.links)]
        return self

    async def _keep(self, index: int, link: Link) -> None:
        try:
            await link.run()
        except RelayError as error:
            self._ended[index] = error
            if self.on_state is not None:
                self.on_state(self.connected, self.relays.given_up(index, str(error)))
            if len(self._ended) == len(self.links) and self._host is not None:
                self._failed_host = True
                self._host.cancel()  # as a task group would: the block stops, and __aexit__ raises the error

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        self._host = None
        self.stop()
        if exc_type is None or self._failed_host:
            await asyncio.gather(*self._tasks, return_exceptions=True)  # each disconnects cleanly
        else:  # the block failed or was cancelled from outside: a moment to end, then they go (as Link does)
            _, pending = await asyncio.wait(self._tasks, timeout=STOP_GRACE)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._failed_host:
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()  # the cancellation was ours: the relays' error stands in its place
            raise next(iter(self._ended.values()))

    # -- each relay's hooks ---------------------------------------------------------------------------
    async def _connected(self, link: Link) -> None:
        """A relay's (new) connection: the game's own hook, with that relay's link (what it lacks goes to it)."""
        if self.on_connect is not None:
            await self.on_connect(link)

    def _stated(self, index: int) -> Callable[[bool, str], None]:
        def stated(connected: bool, sentence: str) -> None:
            told = self.relays.connection(index, connected, sentence)
            if told is not None and self.on_state is not None:
                self.on_state(self.connected, told)

        return stated

    def _arrived(self, index: int) -> Callable[[str, bytes, bool], Awaitable[None]]:
        async def arrived(topic: str, payload: bytes, retained: bool) -> None:
            if not self.relays.arrived(index, topic, payload, live=not retained):
                return  # another relay brought it live first
            if self.on_line is not None:
                await self.on_line(topic, payload, retained)
            else:
                self.incoming.put_nowait((topic, payload))

        return arrived
