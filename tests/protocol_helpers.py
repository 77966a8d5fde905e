"""Shared set-up for protocol tests: fixed identities and seeded games between them."""

from __future__ import annotations

import random
from typing import Any, Protocol

from olixono.common import Board
from protocol import GameSession, Identity, LineRejected, Message, Outgoing, PublicKey, Result

HOST = Identity.from_seed(bytes(range(32)))
GUEST = Identity.from_seed(bytes(range(1, 33)))
STRANGER = Identity.from_seed(bytes(range(2, 34)))
NONCE, SECRET, SALT = "bm9uY2Utbm9uY2Utbm9uYw", "c2VjcmV0LXNlY3JldC1zZQ", "c2FsdC1zYWx0LXNhbHQtcw"
AT = 1_790_000_000


def offered(kind: str = "oxono", invite=None) -> tuple[GameSession, GameSession]:
    """A host's session with its offer, and a guest's session that received it."""
    host, out = GameSession.offer(kind, HOST, invite=invite, nonce=NONCE, at=AT)
    guest = GameSession(host.game_id, GUEST)
    guest.receive(out.line)
    return host, guest


def start(kind: str = "oxono", invite=None) -> tuple[GameSession, GameSession]:
    """A host and a guest session with the coin flipped and the seats taken."""
    host, guest = offered(kind, invite)
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(GUEST.public, SALT).line)
    host.receive(guest.reveal().line)
    return host, guest


def sides(host: GameSession, guest: GameSession) -> dict[PublicKey | None, tuple[GameSession, GameSession]]:
    """Each key's session and the other's."""
    return {HOST.public: (host, guest), GUEST.public: (guest, host)}


def mover(host: GameSession, guest: GameSession) -> tuple[GameSession, GameSession]:
    """(the session of the player to move, the other's)."""
    return sides(host, guest)[host.actor]


def identity_of(session: GameSession) -> Identity:
    assert session.identity is not None
    return session.identity


def game_id_in(session: GameSession) -> str:
    """The session's game id (known once the offer is in)."""
    assert session.game_id is not None
    return session.game_id


def seat_of(session: GameSession, key: PublicKey) -> str:
    """The player (``first``, ``second``) whose seat ``key`` holds in ``session``'s game (the seats are drawn)."""
    player = session.player_of(key)
    assert player is not None, f"{key.fingerprint} holds no seat"
    return player


def clocks_of(session: GameSession) -> dict[str, int]:
    """Each player's clock, in ms, in ``session``'s timed game."""
    assert session.clocks is not None, "an untimed game"
    return session.clocks


def confirm_of(session: GameSession) -> Outgoing:
    """The session's line confirming the result (the game is over, and the session may confirm it)."""
    out = session.confirm()
    assert out is not None, "nothing to confirm"
    return out


def result_of(session: GameSession) -> Result:
    """The session's result (the game is over)."""
    assert session.result is not None, "the game is not over"
    return session.result


def head_of(session: GameSession) -> Message:
    """The last line of the session's chain (the offer is in)."""
    assert session.head is not None, "no line yet"
    return session.head


class WithBoard(Protocol):
    """A session, or a client's game core: what has a board once the offer is in."""

    @property
    def board(self) -> Board[Any] | None: ...


def board_of(session: WithBoard) -> Board[Any]:
    """The session's board (the offer is in)."""
    assert session.board is not None, "no board before the offer"
    return session.board


def playable(session: WithBoard) -> list[str]:
    """The legal moves on ``session``'s board, as text, in the board's order."""
    return [move.text() for move in board_of(session).legal_moves()]


def play_moves(host: GameSession, guest: GameSession, seed: int, plies: int = 1000) -> None:
    """Random legal moves by whoever is to move, each delivered to the other side."""
    rng = random.Random(seed)
    for _ in range(plies):
        if host.over:
            return
        mine, theirs = mover(host, guest)
        events = theirs.receive(mine.move(rng.choice(playable(mine))).line)
        assert not [e for e in events if isinstance(e, LineRejected)], events


def full_game(kind: str = "oxono", seed: int = 1) -> tuple[GameSession, GameSession]:
    host, guest = start(kind)
    play_moves(host, guest, seed)
    return host, guest


def rejected(events) -> list[str]:
    """The codes of the rejections among ``events``."""
    return [e.code for e in events if isinstance(e, LineRejected)]
