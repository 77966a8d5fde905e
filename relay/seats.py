"""Who plays each game, as the relay learns it from the lines it keeps, and what a seated game refuses: no I/O.

A game's seats are written in its own signed lines, which the relay keeps anyway:

- the **host** signed the offer, on ``…/<host>/offer`` (a game has one offer: its id is the offer's hash);
- the **guest** is the ``guest=`` of the host's accept, on ``…/<host>/2`` (a slot keeps its first line), or, in a game
  for an invited key, the offer's ``invite=`` from the offer on (no other key can be seated: every receiver refuses
  another's join, and an accept that names it).

Lines come in any order (a relay re-seeded from a transcript, a store loaded with ``--data``): the guest is learnt
from the offer, or from the accept, whichever of the two comes last. Seats are never unlearnt: the offer and the accept
cannot be replaced or erased on the embedded relay (:mod:`relay.lines`).

Once both seats are known the game is **seated**, and the relay keeps only what its players need, live or retained:
each player's own lines, and copies held by a player of a line a player signed. A stranger's join, chat, presence,
copy, anything under a key of its own, and a copy of a stranger's line under a player's key, are refused. What
strangers left before the game was seated stays, counted apart (:mod:`relay.quotas`).
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.domain import MessageType
from protocol.errors import RemoteProtocolError
from protocol.messages import Message, decode
from protocol.topics import GAMES
from relay.lines import is_copy, place, signer_text


class Seats:
    """The host and the guest of each game whose offer the relay keeps (key texts)."""

    def __init__(self, held: Callable[[str], bytes | None]) -> None:
        self._held = held  # the line the relay keeps on a topic, if any
        self._games: dict[str, list[str | None]] = {}  # game: [host, guest]

    def players(self, game: str) -> tuple[str, ...]:
        """The keys known to play ``game``: none, the host, or both."""
        seats = self._games.get(game)
        return () if seats is None else tuple(key for key in seats if key is not None)

    def seated(self, game: str) -> bool:
        seats = self._games.get(game)
        return seats is not None and seats[1] is not None

    def refusal(self, topic: str, line: bytes) -> str | None:
        """Why a seated game refuses ``line`` on ``topic``: it is neither a player's own line nor a player's copy of a
        player's line; ``None`` if it may stand (or the game is not seated, or this is no game topic)."""
        where = place(topic)
        if where is None or not self.seated(where[0]):
            return None
        game, key, slot = where
        players = self.players(game)
        if key not in players:
            return f"key {key[:12]}… does not play this game: once its seats are known, only its players' lines stand"
        if is_copy(slot) and signer_text(line) not in players:
            return "a copy of a line by a key that does not play this game: players keep copies of players' lines only"
        return None

    def learn(self, topic: str, line: bytes) -> bool:
        """Note a line the relay now keeps on ``topic``; whether it made a seat known."""
        where = place(topic)
        if where is None:
            return False
        game, key, slot = where
        seats = self._games.get(game)
        if slot == "offer" and seats is None:
            offer = _checked(line)
            if offer is None or offer.type is not MessageType.OFFER or offer.game != game or offer.signer.text != key:
                return False
            seats = self._games[game] = [key, offer.peer.text if offer.peer is not None else None]
            if seats[1] is None:  # the accept may have come first
                self._seat_guest(game, seats, self._held(f"{GAMES}/{game}/{key}/2"))
            return True
        if slot == "2" and seats is not None and seats[0] == key and seats[1] is None:
            return self._seat_guest(game, seats, line)
        return False

    @staticmethod
    def _seat_guest(game: str, seats: list[str | None], line: bytes | None) -> bool:
        """Seat the guest that the host's line at seq 2 accepts, if it is an accept."""
        accept = _checked(line) if line is not None else None
        if accept is None or accept.type is not MessageType.ACCEPT or accept.game != game or accept.peer is None \
                or accept.signer.text != seats[0]:
            return False
        seats[1] = accept.peer.text
        return True


def _checked(line: bytes) -> Message | None:
    """``line`` decoded and its signature checked (a store may hold lines an older relay never checked), or ``None``."""
    try:
        return decode(line)
    except RemoteProtocolError:
        return None
