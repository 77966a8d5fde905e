"""Network flows in this process, for the tests: a seat's options, identity, journal and printed lines."""

from __future__ import annotations

import asyncio
import re

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


class Via:
    """A relay URL to give a :class:`Seat` instead of a relay's own (a proxy in front of it)."""

    def __init__(self, port: int) -> None:
        self.url = f"mqtt://127.0.0.1:{port}"
