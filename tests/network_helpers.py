"""Network flows in this process, for the tests: a seat's options, identity, journal and printed lines."""

from __future__ import annotations

import asyncio
import re
from typing import Any, Protocol, TextIO

from protocol_helpers import board_of, result_of
from relay_fixtures import Relay

from client.flows import network
from client.shell.journal import Journal
from protocol import GameSession, Identity


class Reachable(Protocol):
    """What a :class:`Seat` is given to play through: anything with a relay's URL (a relay, a proxy, several)."""

    @property
    def url(self) -> str: ...


class Seat:
    """One flow's options, identity, journal folder and printed lines."""

    typing: TextIO
    """Where a test that types the seat's commands types them (set by that test)."""

    def __init__(self, tmp_path, name: str, relay: Reachable, **changes) -> None:
        self.lines: list[str] = []
        self.identity = Identity.generate()
        self.options = network.Options(
            relay=relay.url,
            identity=self.identity,
            journal_dir=tmp_path / name,
            write=self.lines.append,
            timeout=20,
            **changes,
        )

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
    """The game as this seat's journal has it, but the lines beside the chain (:func:`on_the_chain`)."""
    journal = Journal.open(game, seat.options.journal_dir)
    return on_the_chain(GameSession.restore(journal.lines(), game_id=game).transcript)


def on_the_chain(lines) -> list[str]:
    """A record's lines but the players' confirmations (each leaves once its own is out) and chat (a bot seat's word
    once the game is over, which a player may leave before it comes; a chat line sits where it was applied)."""
    return [line for line in lines if line.split()[1] not in ("confirm", "chat")]


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


async def said(seat: Seat, text: str, after: int = 0, timeout: float = 20.0) -> int:
    """The index of the first line this seat was told, from ``after`` on, that holds ``text`` (waited for)."""
    try:
        async with asyncio.timeout(timeout):
            while True:
                found = next((i for i, line in enumerate(seat.lines[after:], after) if text in line), None)
                if found is not None:
                    return found
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"never told {text!r} (from line {after}):\n{seat.text()}") from None


def rematch_line(seat: Seat) -> int:
    """The number of the line where ``seat`` said it hosts or joins the rematch (``Rematch: …``): what the rematch
    printed is read from there on."""
    return next(i for i, line in enumerate(seat.lines) if line.startswith("Rematch: "))


def check_rematch(host: Seat, guest: Seat, game: str, rematch: str) -> None:
    """``game``, which the guest resigned, and its ``rematch``: the host's new game, inviting the guest alone, its
    colours swapped, which the guest resigned too."""
    first, later = GameSession.restore(transcript(host, game)), GameSession.restore(transcript(guest, rematch))
    assert result_of(first).reason == "resigned" and result_of(first).winner_key == host.identity.public
    assert later.host == host.identity.public and later.invite == guest.identity.public
    players = board_of(first).PLAYERS
    assert [later.seats[p] for p in players] == [first.seats[p] for p in reversed(players)]  # colours swapped
    assert result_of(later).reason == "resigned" and result_of(later).winner_key == host.identity.public


async def cancelled(*tasks: asyncio.Task[Any]) -> None:
    """``tasks`` cancelled, and waited for (what a test leaves running, on its way out)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
