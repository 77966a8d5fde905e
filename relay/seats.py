"""Who plays each game, as the relay learns it from the lines it keeps, and what a seated game refuses: no I/O.

A game's seats are written in its own signed lines, which the relay keeps anyway:

- the **host** signed the offer, on ``…/<host>/offer`` (a game has one offer: its id is the offer's hash);
- the **guest** is the ``guest=`` of the host's accept, on ``…/<host>/2`` (a slot keeps its first line), or, in a game
  for an invited key, the offer's ``invite=`` from the offer on (no other key can be seated: every receiver refuses
  another's join, and an accept that names it);
- the **time witnesses**, if any, are the keys the offer's ``witness:`` term names (``PROTOCOL.md`` §3, "A time
  witness"): they sign no move, only ``witness`` lines, on ``…/<witness>/witness-<n>``. An offer whose term names them
  badly names none here (every receiver refuses it).

Lines come in any order (a relay re-seeded from a transcript, a store loaded with ``--data``): the guest is learnt
from the offer, or from the accept, whichever of the two comes last. Seats are never unlearnt: the offer and the accept
cannot be replaced or erased on the embedded relay (:mod:`relay.lines`).

Once both seats are known the game is **seated**, and the relay keeps only what its players need, live or retained:
each player's own lines, each named witness's witness lines (at most ``MAX_WITNESS_LINES``: receivers refuse more),
and copies held by a player of a line a player signed or of a named witness's witness line. A stranger's join, chat,
presence, copy, anything under a key of its own, a copy of a stranger's line under a player's key, and anything else
of a witness's (its chat, its presence, a copy it holds), are refused. A key that signs witness lines but that the
offer does not name is a stranger like any other. Any key's talk (``…/<key>/talk/<n>``, a watcher's, beside the game)
stands all the same, in a share of its own (:mod:`relay.quotas`). What strangers left before the game was seated stays,
counted apart (:mod:`relay.quotas`).
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.domain import MessageType
from protocol.errors import RemoteProtocolError
from protocol.messages import Message, decode
from protocol.rules import MAX_WITNESS_LINES, witnesses_of
from protocol.topics import GAMES
from relay.lines import is_copy, is_talk_slot, is_witness_line, place, signer_text


class Seats:
    """The host, the guest and the time witnesses of each game whose offer the relay keeps (key texts)."""

    def __init__(self, held: Callable[[str], bytes | None]) -> None:
        self._held = held  # the line the relay keeps on a topic, if any
        self._games: dict[str, list[str | None]] = {}  # game: [host, guest]
        self._witnesses: dict[str, tuple[str, ...]] = {}  # game: the witnesses its offer names, if it names any

    def players(self, game: str) -> tuple[str, ...]:
        """The keys known to play ``game``: none, the host, or both."""
        seats = self._games.get(game)
        return () if seats is None else tuple(key for key in seats if key is not None)

    def witnesses(self, game: str) -> tuple[str, ...]:
        """The time witnesses the offer of ``game`` names: none before the offer is known, or if it names none."""
        return self._witnesses.get(game, ())

    def seated(self, game: str) -> bool:
        seats = self._games.get(game)
        return seats is not None and seats[1] is not None

    def party(self, game: str, key: str, slot: str, signer: str, witness_line: bool) -> bool:
        """Whether a line on ``…/<key>/<slot>``, signed by ``signer`` (a witness line or not), is a line of the game's
        parties, as far as its seats are known: a player's own line, a named witness's witness line on its slot, or a
        player's copy of a player's line or of a named witness's witness line."""
        players = self.players(game)
        if key in players:
            return not is_copy(slot) or signer in players or (witness_line and signer in self.witnesses(game))
        return key in self.witnesses(game) and _witness_slot(slot)

    def refusal(self, topic: str, line: bytes) -> str | None:
        """Why a seated game refuses ``line`` on ``topic``: it is no line of the game's parties (:meth:`party`);
        ``None`` if it may stand (or the game is not seated, or this is no game topic)."""
        where = place(topic)
        if where is None or not self.seated(where[0]):
            return None
        game, key, slot = where
        if is_talk_slot(slot):  # any key's: the watchers' talk, counted apart
            return None
        if self.party(game, key, slot, signer_text(line) if is_copy(slot) else key, is_witness_line(line)):
            return None
        if key in self.players(game):
            return (
                "a copy of a line by a key that does not play this game: players keep copies of players' lines "
                "and of the time witnesses' witness lines only"
            )
        if key in self.witnesses(game):
            return (
                f"key {key[:12]}… is a time witness of this game: it signs only witness lines here, "
                f"{MAX_WITNESS_LINES:,} at most"
            )
        return f"key {key[:12]}… does not play this game: once its seats are known, only its players' lines stand"

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
            try:
                witnesses = tuple(witness.text for witness in witnesses_of(offer.terms))
            except (RemoteProtocolError, ValueError):  # every receiver refuses such an offer: it names nobody here
                witnesses = ()
            if witnesses:
                self._witnesses[game] = witnesses
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
        if (
            accept is None
            or accept.type is not MessageType.ACCEPT
            or accept.game != game
            or accept.peer is None
            or accept.signer.text != seats[0]
        ):
            return False
        seats[1] = accept.peer.text
        return True


def _witness_slot(slot: str) -> bool:
    """Whether ``slot`` is ``witness-<n>``, with ``n`` no more than a witness may sign."""
    kind, _, number = slot.partition("-")
    return kind == "witness" and number.isdigit() and int(number) <= MAX_WITNESS_LINES


def _checked(line: bytes) -> Message | None:
    """``line`` decoded and its signature checked (a store may hold lines an older relay never checked), or ``None``."""
    try:
        return decode(line)
    except RemoteProtocolError:
        return None
