"""A game at one terminal, kept as a network game is: a journal in the same folder (:mod:`client.shell.journal`, role
:data:`client.shell.journal.LOCAL`), so that ``olixono export``, ``replay``, ``analyze`` and ``history`` take it by its
id.

Its lines are a real transcript, which ``olixono verify`` checks as any other: an offer, a join, the host's accept
and the reveal of the coin, then each move signed by the seat that played it, the ending (a resignation, a proposal
and its acceptance) and both players' confirmations. Both seats sign here, with keys made for that game alone and
kept nowhere: the record proves that its moves follow the rules and were not changed after, not who sat at the
terminal. The coin is drawn honestly; it only decides which of the two keys holds which seat.

The front ends hand over the board after every step (:meth:`LocalRecord.keep`); the record follows it: new moves are
signed and appended, moves taken back (``undo``) are dropped from the file (rewritten whole: at one terminal no
opponent saw them), an ending is signed once. Nothing is written before the first move: a game left or ended
before it is not kept. The protocol is loaded only then, for local play starts without it (``tests/test_layers.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from olixono.common import Board, EndReason

if TYPE_CHECKING:
    from client.shell.journal import Journal
    from protocol import GameSession, Identity, PublicKey


class LocalRecord:
    """The journal of one game of ``kind`` at this terminal (``vs``: the bot, ``None`` for two people; ``seat``: the
    person's against a bot; ``directory``: the journal folder, by default the state folder's)."""

    def __init__(
        self, kind: str, *, vs: str | None = None, seat: str | None = None, directory: Path | None = None
    ) -> None:
        self.kind, self.vs, self.seat, self.directory = kind, vs, seat, directory
        self.journal: Journal | None = None
        self.failed: str | None = None
        """Why the game could not be kept (it goes on, unkept), once that happened."""
        self._sessions: dict[str, GameSession] = {}  # each player name's signing session
        self._opening: list[str] = []  # the offer, the join, the accept, the reveal
        self._moves: list[str] = []  # the line of each move kept, in order
        self._played: list[str] = []  # the text of each of those moves
        self._keys: dict[PublicKey, Identity] = {}  # the two seats' keys, made for this game
        self._both: tuple[GameSession, ...] = ()  # the host's session, the guest's
        self._ended = False

    @property
    def game(self) -> str | None:
        """The game's id, once anything is kept (``None`` before, and when keeping failed)."""
        return None if self.journal is None or self.failed is not None else self.journal.meta.game

    def keep(self, board: Board[Any]) -> str | None:
        """Bring the journal up to ``board`` (the game's, read only); a warning to show the first time keeping fails
        (the disk full, the folder unwritable), else ``None``: the game goes on unkept."""
        if self.failed is not None or self._ended:
            return None
        texts = [move.text() for move in board.move_stack]
        if self.journal is None and not texts:  # ended (or left) before its first move: nothing to keep
            return None
        from client.shell.journal import JournalError

        try:
            self._follow(board, texts)
        except JournalError as exc:
            self.failed = str(exc)
            return f"warning: this game is not kept: {exc}"
        return None

    def _follow(self, board: Board[Any], texts: list[str]) -> None:
        if self.journal is None:
            self._open()
        assert self.journal is not None
        same = 0
        while same < min(len(self._played), len(texts)) and self._played[same] == texts[same]:
            same += 1
        if same < len(self._played):  # moves were taken back: the file without them
            self._moves, self._played = self._moves[:same], self._played[:same]
            self.journal.rewrite(self._opening + self._moves)
            self._restore()
        players = board.PLAYERS
        for index in range(same, len(texts)):
            self._moves.append(self._sign(players[index % 2], "move", texts[index]))
            self._played.append(texts[index])
        outcome = board.outcome()
        if outcome is not None and not self._any_session().over:
            if outcome.reason == EndReason.RESIGNED:
                assert outcome.winner is not None
                self._sign(players[1 - players.index(outcome.winner)], "resign")
            elif outcome.reason == EndReason.AGREED:
                self._agreed(board.turn, players[1 - players.index(board.turn)])
        if self._any_session().over:
            for session in list(self._sessions.values()):
                confirmation = session.confirm()
                if confirmation is not None:
                    self._deliver(confirmation.line)
            self._ended = True
        self.journal.sync()

    def _agreed(self, actor: str, waiter: str) -> None:
        """The game ended by agreement with ``actor`` to move. The protocol has a proposal stand from the proposer's
        turn to the other's, who agrees on its own turn (``PROTOCOL.md`` §3): so it is recorded as the waiter's
        proposal made before its last move (that move dropped and signed again after it), agreed by the actor."""
        last = self._played.pop()
        self._moves.pop()
        assert self.journal is not None
        self.journal.rewrite(self._opening + self._moves)
        self._restore()
        self._sign(waiter, "propose")
        self._moves.append(self._sign(waiter, "move", last))
        self._played.append(last)
        self._sign(actor, "agree")

    def _open(self) -> None:
        """A new game between two keys made for it, seated by the coin, its opening journaled."""
        from client.shell.journal import LOCAL, Journal, JournalMeta
        from protocol import GameSession, Identity

        host_key, guest_key = Identity.generate(), Identity.generate()
        host, offer = GameSession.offer(self.kind, host_key)
        guest = GameSession(host.game_id, guest_key)
        guest.receive(offer.line)
        game = host.game_id or ""
        self.journal = Journal.create(
            JournalMeta(game, self.kind, LOCAL, host_key.public.text, "", vs=self.vs, seat=self.seat), self.directory
        )
        self.journal.lock()
        self._keys = {host_key.public: host_key, guest_key.public: guest_key}
        self._both = (host, guest)
        self.journal.write(offer.line)
        self._opening = [offer.line]
        for session, step in ((guest, "join"), (host, "accept"), (guest, "reveal")):
            out = (
                session.join()
                if step == "join"
                else host.accept(guest_key.public)
                if step == "accept"
                else session.reveal()
            )
            self._opening.append(self._deliver(out.line, session))
        self._sessions = {player: host if key == host_key.public else guest for player, key in host.seats.items()}

    def _restore(self) -> None:
        """Both seats' sessions again, from the lines kept."""
        from protocol import GameSession

        lines = self._opening + self._moves
        game = self._both[0].game_id
        rebuilt = {key: GameSession.restore(lines, identity, game_id=game) for key, identity in self._keys.items()}
        self._both = tuple(rebuilt[session.identity.public] for session in self._both if session.identity is not None)
        self._sessions = {player: rebuilt[key] for player, key in self._both[0].seats.items()}

    def _any_session(self) -> GameSession:
        return self._both[0]

    def _sign(self, player: str, what: str, text: str = "") -> str:
        """``player``'s seat signs ``what`` (a move's ``text``); the line, delivered to the other seat and journaled."""
        session = self._sessions[player]
        out = session.move(text) if what == "move" else getattr(session, what)()
        return self._deliver(out.line, session)

    def _deliver(self, line: str, source: GameSession | None = None) -> str:
        """``line`` received by every seat's session but ``source`` (which signed it), and written to the journal."""
        for session in self._both:
            if session is not source:
                session.receive(line)
        assert self.journal is not None
        self.journal.write(line)
        return line

    def close(self) -> None:
        """Let go of the journal (its lock)."""
        if self.journal is not None:
            self.journal.close()
