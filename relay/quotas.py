"""How much of a relay's retained store each key, each game's non-players and each owner may fill: counts and caps.

A relay keeps every retained line for ever (with ``--data``, across restarts), and in anonymous mode anyone can
mint keys and sign lines of any game under them: without caps a stranger fills the relay's memory, and every late
watcher of the game is sent all of it. The embedded relay counts each retained topic it stores in one **share** of
its game (``olixono/1/games/<game>/<key>/…``), as the game's seats stand (:mod:`relay.seats`):

- a key's **own lines** (``…/<key>/<slot>``: only that key can sign them), any key's: a real player needs about 600
  lines a game (``Limits.lines_per_key``, ``bytes_per_key``), a time witness at most ``MAX_WITNESS_LINES`` (1,024).
  The offer always counts as its host's;
- the **copies a player holds of a party's line** (``…/<player>/copy/<hash>``: of a player's line, or of a named time
  witness's witness line), apart, one share for each signer, against the same caps: only the game's parties can sign
  such lines, so no stranger can fill a player's share, nor a flood of copies refuse a player's own line, and a
  witness that signs junk fills only the share of copies of its own lines;
- everything else in the game, the lines of everyone who is not (yet) a party: candidates' joins, strangers' lines
  before the game is seated (a key's witness lines too, if the offer does not name it), a witness's lines other than
  its witness lines, copies held by non-players or of non-parties' lines (``Limits.non_player_lines_per_game``), so
  that a late watcher's catch-up of a game is bounded. A seated game takes no more of them (:mod:`relay.seats`);
  when a seat becomes known, what its key left before, and the players' copies of it, move to the parties' shares.

- the watchers' **talk** (``…/<key>/talk/<n>``, any key's), apart from all the above: at most ``MAX_TALKERS`` keys a
  game (a key's talk is bounded by its slots, ``MAX_TALK_LINES``), so that a flood of talk neither fills a party's
  share nor the non-parties', and never refuses a line of the game.

Each line also counts against the **owner** who published it, in that game and in all games: the account (private
mode), or the source address (anonymous mode), so that a flood from one address spread over many connections and
many keys counts as one. A bridge account carries every player of another relay: only the per-key and per-game caps
apply to it.

A line that would pass a cap is refused (the relay logs it, summarised); what a topic already holds may be replaced
as before (presence), since that adds no topic. The counts of lines loaded from ``--data`` are made again at
start (the seats first): per key and per game always, per owner in private mode (where a player's account is its
key); an anonymous relay does not know who published what it loaded, so its per-address counts start at zero.
"""

from __future__ import annotations

from typing import TypeVar

from protocol.gallery import MAX_TALKERS
from relay.lines import is_copy, is_talk_slot, is_witness_line, place, signer_text
from relay.rules import Limits, is_key_text
from relay.seats import Seats

Where = TypeVar("Where")


class Quotas:
    """The retained lines (and bytes) counted per key and share in a game, per game for non-parties, and per owner."""

    def __init__(self, limits: Limits, seats: Seats) -> None:
        self.limits = limits
        self.seats = seats
        self._own: dict[tuple[str, str], list[int]] = {}  # (game, key): [lines, bytes] on its own slots
        # (game, player): {signer: [lines, bytes]}, the copies a player holds of each party's lines
        self._copies: dict[tuple[str, str], dict[str, list[int]]] = {}
        # game: {topic: (signer, witness line, bytes)} in no party's share
        self._others: dict[str, dict[str, tuple[str, bool, int]]] = {}
        self._talkers: dict[str, set[str]] = {}  # game: the keys whose talk it keeps
        self._owner_game: dict[tuple[str, str], int] = {}  # (owner, game): lines
        self._owner: dict[str, list[int]] = {}  # owner: [lines, bytes]

    def _party(self, game: str, key: str, slot: str, signer: str, witness_line: bool) -> bool:
        """Whether a line on ``…/<key>/<slot>`` signed by ``signer`` is in a party's share (else: non-parties')."""
        return slot == "offer" or self.seats.party(game, key, slot, signer, witness_line)

    def refusal(self, topic: str, line: bytes, owner: str | None) -> str | None:
        """Why ``line``, new on ``topic`` and published by ``owner`` (``None``: no owner caps), would pass a cap;
        ``None`` if it may be kept."""
        where = place(topic)
        if where is None:
            return None
        game, key, slot = where
        limits, size = self.limits, len(line)
        if is_talk_slot(slot):
            talkers = self._talkers.get(game, set())
            if key not in talkers and len(talkers) >= MAX_TALKERS:
                return f"{len(talkers)} keys talk in this game already (the most that may)"
            return self._owner_refusal(game, size, owner)
        copy = is_copy(slot)
        signer = signer_text(line) if copy else key
        party = self._party(game, key, slot, signer, is_witness_line(line))
        if not copy or party:
            counted = self._copies.get((game, key), {}).get(signer) if copy else self._own.get((game, key))
            lines, held = counted or (0, 0)
            holds = f"key {key[:12]}… holds"
            what = f"copies of key {signer[:12]}…'s lines" if copy else "lines of its own"
            if limits.lines_per_key and lines >= limits.lines_per_key:
                return f"{holds} {lines} {what} in this game already (the most a key may)"
            if limits.bytes_per_key and held + size > limits.bytes_per_key:
                return f"{holds} {held} bytes of {what} in this game already (at most {limits.bytes_per_key})"
        if not party:
            others = len(self._others.get(game, ()))
            if limits.non_player_lines_per_game and others >= limits.non_player_lines_per_game:
                return f"this game holds {others} lines of keys that are not its parties already (the most it may)"
        return self._owner_refusal(game, size, owner)

    def _owner_refusal(self, game: str, size: int, owner: str | None) -> str | None:
        """Why a new line of ``size`` bytes in ``game`` would pass a cap of ``owner``'s (``None``: no owner caps)."""
        limits = self.limits
        if owner is None:
            return None
        in_game = self._owner_game.get((owner, game), 0)
        if limits.lines_per_owner_game and in_game >= limits.lines_per_owner_game:
            return f"{owner[:50]} has published {in_game} lines kept in this game already (the most one may)"
        total, total_bytes = self._owner.get(owner, (0, 0))
        if limits.lines_per_owner and total >= limits.lines_per_owner:
            return f"{owner[:50]} has published {total} lines kept on this relay already (the most one may)"
        if limits.bytes_per_owner and total_bytes + size > limits.bytes_per_owner:
            return (
                f"{owner[:50]} has published {total_bytes} bytes kept on this relay already "
                f"(at most {limits.bytes_per_owner})"
            )
        return None

    def keep(self, topic: str, line: bytes, owner: str | None, *, new: bool = True) -> None:
        """Note a retained line stored on ``topic``: counted if the topic held none (``new``), and what it says of the
        game's seats (a replaced line may be the first valid one there)."""
        where = place(topic)
        if where is None:
            return
        if new:
            self._count(topic, where, line, owner)
        if self.seats.learn(topic, line):
            self._reseat(where[0])

    def _count(self, topic: str, where: tuple[str, str, str], line: bytes, owner: str | None) -> None:
        game, key, slot = where
        size = len(line)
        if is_talk_slot(slot):
            self._talkers.setdefault(game, set()).add(key)
            self._count_owner(game, size, owner)
            return
        copy = is_copy(slot)
        signer = signer_text(line) if copy else key
        witness_line = is_witness_line(line)
        party = self._party(game, key, slot, signer, witness_line)
        if not copy:
            _add(self._own, (game, key), size)
        elif party:
            _add(self._copies.setdefault((game, key), {}), signer, size)
        if not party:
            self._others.setdefault(game, {})[topic] = (signer, witness_line, size)
        self._count_owner(game, size, owner)

    def _count_owner(self, game: str, size: int, owner: str | None) -> None:
        if owner is not None:
            self._owner_game[(owner, game)] = self._owner_game.get((owner, game), 0) + 1
            _add(self._owner, owner, size)

    def _reseat(self, game: str) -> None:
        """A seat (or the witnesses an offer names) became known: what its key left in the game so far, and the
        players' copies of it, are in a party's share now."""
        others = self._others.get(game, {})
        for topic, (signer, witness_line, size) in list(others.items()):
            where = place(topic)
            if where is not None and self._party(game, where[1], where[2], signer, witness_line):
                del others[topic]
                if is_copy(where[2]):
                    _add(self._copies.setdefault((game, where[1]), {}), signer, size)

    def load(self, retained: dict[str, bytes], *, private: bool) -> None:
        """Count what the relay loaded from its store, once every seat it tells is known: per key and per game, and in
        private mode per account (the topic's key)."""
        for topic, line in retained.items():
            self.seats.learn(topic, line)
        for topic, line in retained.items():
            where = place(topic)
            if where is not None:
                owner = where[1] if private and is_key_text(where[1]) else None
                self._count(topic, where, line, owner)

    def held(self, owner: str) -> tuple[int, int]:
        """The lines and bytes ``owner`` has published that the relay keeps."""
        lines, size = self._owner.get(owner, (0, 0))
        return lines, size

    def shares(self, game: str, key: str) -> tuple[int, int]:
        """The lines ``key`` holds in ``game``: its own, and its copies of the parties' lines (of all signers)."""
        return (
            self._own.get((game, key), [0])[0],
            sum(counted[0] for counted in self._copies.get((game, key), {}).values()),
        )

    def talkers(self, game: str) -> int:
        """The keys whose talk ``game`` keeps."""
        return len(self._talkers.get(game, ()))

    def non_players(self, game: str) -> int:
        """The lines of ``game`` in no party's share (no player's, no named witness's)."""
        return len(self._others.get(game, ()))


def _add(counts: dict[Where, list[int]], where: Where, size: int) -> None:
    """One more line of ``size`` bytes in ``counts[where]`` (lines, bytes)."""
    held = counts.setdefault(where, [0, 0])
    held[0] += 1
    held[1] += size
