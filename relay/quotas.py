"""How much of a relay's retained store one key, one account or one address may fill: counts and caps, no I/O.

A relay keeps every retained line for ever (with ``--data``, across restarts), and in anonymous mode anyone can
mint keys and sign lines of any game under them: without caps a stranger fills the relay's memory, and every late
watcher of the game is sent all of it. The embedded relay counts each retained topic it stores against:

- the **key** the topic names, in its game (``olixono/1/games/<game>/<key>/…``: a key's own lines and the copies
  it holds): a real player needs about 600 lines a game (``Limits.lines_per_key``);
- the **owner** who published it, in that game and in all games: the account (private mode), or the source
  address (anonymous mode), so that a flood from one address spread over many connections and many keys counts
  as one. A bridge account carries every player of another relay: only the per-key caps apply to it.

A line that would pass a cap is refused (the relay logs it, summarised); what a topic already holds may be replaced
as before (presence), since that adds no topic. The counts of lines loaded from ``--data`` are made again at
start: per key always, per owner in private mode (where a player's account is its key); an anonymous relay does
not know who published what it loaded, so its per-address counts start at zero.
"""

from __future__ import annotations

from protocol.topics import game_and_key
from relay.rules import Limits, is_key_text


class Quotas:
    """The retained lines (and bytes) counted per key in a game, per owner in a game, and per owner."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._key: dict[tuple[str, str], list[int]] = {}  # (game, key): [lines, bytes]
        self._owner_game: dict[tuple[str, str], int] = {}  # (owner, game): lines
        self._owner: dict[str, list[int]] = {}  # owner: [lines, bytes]

    def refusal(self, topic: str, size: int, owner: str | None) -> str | None:
        """Why a new retained line of ``size`` bytes on ``topic``, published by ``owner`` (``None``: no owner caps),
        would pass a cap; ``None`` if it may be kept."""
        where = game_and_key(topic)
        if where is None:
            return None
        game, key = where
        limits = self.limits
        lines, held = self._key.get(where, (0, 0))
        if limits.lines_per_key and lines >= limits.lines_per_key:
            return f"key {key[:12]}… holds {lines} lines in this game already (the most a key may hold)"
        if limits.bytes_per_key and held + size > limits.bytes_per_key:
            return f"key {key[:12]}… holds {held} bytes in this game already (at most {limits.bytes_per_key})"
        if owner is None:
            return None
        in_game = self._owner_game.get((owner, game), 0)
        if limits.lines_per_owner_game and in_game >= limits.lines_per_owner_game:
            return f"{owner[:50]} has published {in_game} lines kept in this game already (the most one may)"
        total, total_bytes = self._owner.get(owner, (0, 0))
        if limits.lines_per_owner and total >= limits.lines_per_owner:
            return f"{owner[:50]} has published {total} lines kept on this relay already (the most one may)"
        if limits.bytes_per_owner and total_bytes + size > limits.bytes_per_owner:
            return f"{owner[:50]} has published {total_bytes} bytes kept on this relay already (at most {limits.bytes_per_owner})"
        return None

    def add(self, topic: str, size: int, owner: str | None) -> None:
        """Count a retained line stored on a topic that held none."""
        where = game_and_key(topic)
        if where is None:
            return
        held = self._key.setdefault(where, [0, 0])
        held[0] += 1
        held[1] += size
        if owner is not None:
            self._owner_game[(owner, where[0])] = self._owner_game.get((owner, where[0]), 0) + 1
            total = self._owner.setdefault(owner, [0, 0])
            total[0] += 1
            total[1] += size

    def load(self, retained: dict[str, bytes], *, private: bool) -> None:
        """Count what the relay loaded from its store: per key, and in private mode per account (the topic's key)."""
        for topic, data in retained.items():
            where = game_and_key(topic)
            owner = where[1] if private and where is not None and is_key_text(where[1]) else None
            self.add(topic, len(data), owner)

    def held(self, owner: str) -> tuple[int, int]:
        """The lines and bytes ``owner`` has published that the relay keeps."""
        lines, size = self._owner.get(owner, (0, 0))
        return lines, size
