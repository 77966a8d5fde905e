"""The waiting room: lines kept until what they wait for arrives, within bounds no stranger can exhaust.

A line that arrives before its predecessor (the relay keeps no order) waits
here under a *token*: ``"offer"`` (before the offer), a parent's hash, or
``"seat <key>"`` (a chat whose signer may yet be seated). Each key may keep at
most :data:`MAX_PER_KEY` lines; keys not known to hold a seat may keep
:data:`MAX_UNSEATED` lines together, and beyond that their lines are dropped.
Since a late spectator cannot tell the future guest from a stranger before
the accept arrives, a drop is remembered: when a seat becomes known
(:meth:`seat_known`), the session asks for the game's lines again.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.domain import Code
from protocol.errors import RemoteProtocolError
from protocol.keys import PublicKey
from protocol.messages import Message

MAX_PER_KEY = 512
"""Lines one key may have waiting for their predecessors (a whole game of one player, chat included)."""
MAX_UNSEATED = 1024
"""Lines waiting from keys not (yet) known to hold a seat, all together; beyond, they are dropped."""


class WaitingRoom:
    """Lines waiting, by what they wait for; ``seated(key)`` says whose lines count against their own quota only."""

    def __init__(self, seated: Callable[[PublicKey], bool]) -> None:
        self._seated = seated
        self._lines: dict[str, tuple[Message, str]] = {}  # line: (message, its token)
        self._by_token: dict[str, list[Message]] = {}
        self._per_key: dict[PublicKey, int] = {}
        self._unseated = 0
        self._dropped = False

    def __len__(self) -> int:
        return len(self._lines)

    def __contains__(self, line: str) -> bool:
        return line in self._lines

    def keys(self) -> set[PublicKey]:
        """The keys that have lines waiting."""
        return set(self._per_key)

    def keep(self, message: Message, token: str) -> None:
        """Keep ``message`` until ``token`` is released; ``buffer-full`` if its signer has no room left."""
        if message.line in self._lines:
            return
        key = message.signer
        count = self._per_key.get(key, 0)
        seated = self._seated(key)
        if count >= MAX_PER_KEY or (not seated and self._unseated >= MAX_UNSEATED):
            if not seated:
                self._dropped = True
            raise RemoteProtocolError(
                Code.BUFFER_FULL, "too many lines wait already" + ("" if seated else " from keys with no seat")
            )
        self._lines[message.line] = (message, token)
        self._by_token.setdefault(token, []).append(message)
        self._per_key[key] = count + 1
        if not seated:
            self._unseated += 1

    def lines(self) -> tuple[str, ...]:
        """Every line waiting, in arrival order."""
        return tuple(self._lines)

    def lines_of(self, key: PublicKey) -> tuple[Message, ...]:
        """The lines ``key`` has waiting, in arrival order."""
        return tuple(message for message, _ in self._lines.values() if message.signer == key)

    def release(self, token: str) -> list[Message]:
        """The lines that waited for ``token``, in arrival order, taken out to be judged again."""
        messages = self._by_token.pop(token, [])
        for message in messages:
            self._forget(message)
        return messages

    def drop_others(self, seated: tuple[PublicKey, ...]) -> list[Message]:
        """Take out every line not signed by one of ``seated`` (the seats are all known: they never will be)."""
        dropped = []
        for message, token in list(self._lines.values()):
            if message.signer not in seated:
                waiting = self._by_token[token]
                waiting.remove(message)
                if not waiting:
                    del self._by_token[token]
                self._forget(message)
                dropped.append(message)
        return dropped

    def mark_dropped(self) -> None:
        """A line that may be a future seat's was refused elsewhere for lack of room (a join beyond the limit)."""
        self._dropped = True

    def seat_known(self) -> bool:
        """A seat became known: recount; whether lines were dropped meanwhile (then the game is needed again)."""
        self._unseated = sum(n for key, n in self._per_key.items() if not self._seated(key))
        dropped, self._dropped = self._dropped, False
        return dropped

    def _forget(self, message: Message) -> None:
        del self._lines[message.line]
        key = message.signer
        count = self._per_key[key] - 1
        if count:
            self._per_key[key] = count
        else:
            del self._per_key[key]
        if not self._seated(key):
            self._unseated -= 1
