"""Network flows in this process, for the tests: a seat's options, identity, journal and printed lines."""

from __future__ import annotations

import asyncio
import re
from typing import Protocol

from client import network
from client.journal import Journal
from protocol import GameSession, Identity
from relay_fixtures import Relay


class Seat:
    """One flow's options, identity, journal folder and printed lines."""

    def __init__(self, tmp_path, name: str, relay: Relay | Via, **changes) -> None:
        self.lines: list[str] = []
        self.identity = Identity.generate()
        self.options = network.Options(relay=relay.url, identity=self.identity, journal_dir=tmp_path / name,
                                       write=self.lines.append, timeout=20, **changes)

    def text(self) -> str:
        return "\n".join(self.lines)


async def game_id_of(seat: Seat, timeout: float = 10.0) -> str:
    async with asyncio.timeout(timeout):
        while True:
            for line in seat.lines:
                found = re.search(r"olixono join ([A-Za-z0-9_-]{22})", line)
                if found:
                    return found.group(1)
            await asyncio.sleep(0.02)


def transcript(seat: Seat, game: str) -> list[str]:
    """The game as this seat's journal has it (the players' confirmations aside: each leaves once its own is out)."""
    journal = Journal.open(game, seat.options.journal_dir)
    return [line for line in GameSession.restore(journal.lines(), game_id=game).transcript if " confirm " not in line[:20]]


async def started(tmp_path, name: str, kind: str = "embedded", port: int = 0) -> Relay:
    """A relay of ``kind`` in its own folder ``tmp_path/name``, started (on ``port``, else a free one)."""
    relay = Relay(kind, tmp_path / name, port=port)
    relay.workdir.mkdir()
    return await relay.start()


class Addressed(Protocol):
    """A relay, or a way to it, as a seat names it."""

    @property
    def url(self) -> str: ...


class Both:
    """Two relays or more, as a seat names them (``--relay A --relay B``)."""

    def __init__(self, *relays: Addressed) -> None:
        self.url = " ".join(relay.url for relay in relays)


class Via:
    """A relay URL to give a :class:`Seat` instead of a relay's own (a proxy in front of it)."""

    def __init__(self, port: int) -> None:
        self.url = f"mqtt://127.0.0.1:{port}"
