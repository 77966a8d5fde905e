"""Shared set-up for protocol tests: fixed identities and seeded games between them."""

from __future__ import annotations

import random

from protocol import GameSession, Identity

HOST = Identity.from_seed(bytes(range(32)))
GUEST = Identity.from_seed(bytes(range(1, 33)))
STRANGER = Identity.from_seed(bytes(range(2, 34)))
NONCE, SECRET, SALT = "bm9uY2Utbm9uY2Utbm9uYw", "c2VjcmV0LXNlY3JldC1zZQ", "c2FsdC1zYWx0LXNhbHQtcw"


def start(kind: str = "oxono", invite: str | None = None) -> tuple[GameSession, GameSession]:
    """A host and a guest session with the coin flipped and the seats taken."""
    host = GameSession.offer(kind, HOST, invite=invite, nonce=NONCE)
    guest = GameSession(host.game_id, GUEST)
    guest.receive(host.transcript[0])
    host.receive(guest.join(SECRET))
    guest.receive(host.accept(GUEST.public.text, SALT))
    host.receive(guest.reveal())
    return host, guest


def sessions_by_key(host: GameSession, guest: GameSession) -> dict[bytes, tuple[GameSession, GameSession]]:
    return {HOST.public.raw: (host, guest), GUEST.public.raw: (guest, host)}


def play_moves(host: GameSession, guest: GameSession, seed: int, plies: int = 1000) -> None:
    """Random legal moves by whoever is to move, each delivered to the other side."""
    rng = random.Random(seed)
    by_key = sessions_by_key(host, guest)
    for _ in range(plies):
        if host.outcome is not None:
            return
        mine, theirs = by_key[host.actor()]
        events = theirs.receive(mine.move(rng.choice(mine.board.legal_moves()).text()))
        assert all(type(e).__name__ != "LineRejected" for e in events), events


def full_game(kind: str = "oxono", seed: int = 1) -> tuple[GameSession, GameSession]:
    host, guest = start(kind)
    play_moves(host, guest, seed)
    return host, guest
