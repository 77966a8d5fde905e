"""What every game engine shares: errors, outcomes, and square names.

Both engines (``olixono.oxono`` and ``olixono.olix``) expose the same small
surface so that the engine text interface, the protocol and the bots can
drive either one without knowing which it is:

* ``Board.KIND`` – a :class:`GameKind` (``oxono`` or ``olix``);
* ``Board()`` – the start position; ``Board.from_position(text)`` /
  ``board.position()`` – a position text that round-trips exactly;
* ``board.turn`` – the name of the player to move;
* ``board.parse_move(text)`` – a typed move, or :class:`InvalidMoveError`;
* ``board.legal_moves()`` – every legal move (empty once the game is over);
* ``board.play(move_or_text)`` – the validated path (raises
  :class:`InvalidMoveError` / :class:`IllegalMoveError`);
  ``board.push(move)`` – the fast unchecked path; ``board.pop()`` – undo;
* ``board.outcome()`` – ``None`` while the game goes on, else an
  :class:`Outcome`; ``board.resign()`` – the player to move resigns;
* ``board.perft(depth)``, ``board.show()``, ``board.copy()``.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, Protocol, Self, TypeAlias, TypeVar

Square: TypeAlias = int
Bitboard: TypeAlias = int


class InvalidMoveError(ValueError):
    """Move text that does not spell a move at all (bad syntax, unknown square)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the position forbids.

    The message names the move and the position; ``reason`` is the short
    human part alone (``totem X on d3 cannot reach a1``) for a console.
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


class InvalidPositionError(ValueError):
    """Position text that is malformed or describes an impossible position."""


class GameOverError(ValueError):
    """An action that needs a game in progress was asked of a finished game."""


class GameKind(StrEnum):
    """The games the engines play (``Board.KIND``; the offer's ``kind=``)."""

    OXONO = "oxono"
    OLIX = "olix"


class EndReason(StrEnum):
    """Why an engine's game ended: by a rule of the game, or by a player (``resigned``; Olix: ``agreed``)."""

    COLOUR = "colour"
    SYMBOL = "symbol"
    EXHAUSTED = "exhausted"
    FORMATION = "formation"
    STONES = "stones"
    SETTLED = "settled"
    AGREED = "agreed"
    RESIGNED = "resigned"


RULE_REASONS: dict[str, str] = {
    EndReason.COLOUR: "four in a row of one colour",
    EndReason.SYMBOL: "four in a row of one symbol",
    EndReason.EXHAUSTED: "all 32 pawns are placed",
    EndReason.FORMATION: "a formation beyond the top of its track",
    EndReason.STONES: "all stones are placed",
    EndReason.SETTLED: "no marker can change any more",
}
"""Each rule's ending, in words."""


def ending_sentence(winner: str | None, reason: EndReason, *, markers: bool = False, by: str | None = None) -> str:
    """Who won and why, in words, where the engine decides it (by a rule, by agreement, by resignation): ``pink wins:
    four in a row of one colour``, ``draw on markers after the game was ended by agreement``, ``black wins by pink's
    resignation``. ``winner``: a player name, or ``None`` for a draw; ``markers``: whether it was counted on the
    markers; ``by``: for a resignation, who resigned (without it, the reason's word stands for the rule).

    The one copy of these words: :meth:`Outcome.sentence` and the protocol's ``Result.sentence`` both say them.
    """
    if reason == EndReason.RESIGNED and by is not None:
        return f"{winner} wins by {by}'s resignation"
    if reason == EndReason.AGREED:
        if not markers:
            return "draw by agreement"
        if winner is None:
            return "draw on markers after the game was ended by agreement"
        return f"{winner} wins on markers after the game was ended by agreement"
    why = RULE_REASONS.get(reason, reason)
    if markers:
        return f"{winner} wins on markers: {why}" if winner else f"draw on markers: {why}"
    return f"{winner} wins: {why}" if winner else f"draw: {why}"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is a player name, or ``None`` for a draw.

    ``reason`` is one word: ``colour``, ``symbol``, ``exhausted`` (Oxono);
    ``formation``, ``stones``, ``settled``, ``agreed`` (Olix); ``resigned``
    (both).
    """

    winner: str | None
    reason: EndReason
    markers: bool = field(default=False, compare=False)
    """Whether it was counted on the markers (Olix's ends by ``stones``, ``settled`` and ``agreed``)."""

    def text(self) -> str:
        """The engine interface's form: ``pink colour``, ``draw exhausted`` (the winner first, then the reason)."""
        return f"{self.winner or 'draw'} {self.reason}"

    def sentence(self, players: tuple[str, str]) -> str:
        """Who won and why, in words: ``black wins by pink's resignation``, ``first wins on markers after the game was
        ended by agreement``. ``players``: the game's two player names (the board's ``PLAYERS``)."""
        by = None
        if self.reason == EndReason.RESIGNED and self.winner in players:
            by = players[1 - players.index(self.winner)]
        return ending_sentence(self.winner, self.reason, markers=self.markers, by=by)

    def __str__(self) -> str:
        return self.text()


def square_name(square: Square, width: int) -> str:
    """Chess-like name of a square: file letter then rank number (``a1``)."""
    rank, file = divmod(square, width)
    return f"{chr(ord('a') + file)}{rank + 1}"


def parse_square(text: str, width: int) -> Square:
    """The square named by ``text`` (any letter case) on a ``width`` board.

    Raises :class:`InvalidMoveError` for anything that is not exactly a file
    letter followed by a rank number without leading zero.
    """
    if not (2 <= len(text) <= 3) or not text.isascii():
        raise InvalidMoveError(f"not a square: {text!r}")
    file = ord(text[0].lower()) - ord("a")
    digits = text[1:]
    if not digits.isdigit() or digits[0] == "0" or not 0 <= file < width:
        raise InvalidMoveError(f"not a square: {text!r}")
    rank = int(digits) - 1
    if not 0 <= rank < width:
        raise InvalidMoveError(f"not a square: {text!r}")
    return rank * width + file


def iter_bits(bb: Bitboard) -> Iterator[Square]:
    """Yield the square index of every set bit, lowest first."""
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


class MoveLike(Protocol):
    """What every engine's move type offers: its canonical text."""

    def text(self) -> str: ...


MoveT = TypeVar("MoveT", bound=MoveLike)


class Board(ABC, Generic[MoveT]):
    """What both engines share; a subclass supplies the rules (``Board[OxonoMove]``, ``Board[OlixMove]``).

    A subclass sets ``KIND``, ``NAME``, ``PLAYERS`` and ``MOVE`` (its move
    type), keeps ``turn_index`` (0 or 1), ``_outcome`` (an ending by the
    rules) and ``_ending`` (an ending by resignation or agreement, which
    ``pop`` takes back first), and provides ``parse_move``,
    ``generate_moves``, ``why_illegal``, ``push``, ``pop``, ``position``,
    ``_load`` and ``show``.
    """

    KIND: GameKind
    NAME: str
    PLAYERS: tuple[str, str]
    MOVE: type
    WIDTH: int
    """Files and ranks: the board is ``WIDTH`` squares on a side."""
    turn_index: int
    move_stack: list[MoveT]
    _outcome: Outcome | None
    _ending: Outcome | None

    @property
    def turn(self) -> str:
        """The name of the player to move."""
        return self.PLAYERS[self.turn_index]

    def outcome(self) -> Outcome | None:
        """``None`` while the game goes on, else who won and why."""
        return self._ending or self._outcome

    def is_game_over(self) -> bool:
        return (self._ending or self._outcome) is not None

    # -- what a subclass provides ---------------------------------------------
    @abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """The move ``text`` spells (any letter case), or :class:`InvalidMoveError`."""
        raise NotImplementedError

    @abstractmethod
    def generate_moves(self) -> Iterator[MoveT]:
        raise NotImplementedError

    @abstractmethod
    def why_illegal(self, move: MoveT) -> str | None:
        """Why ``move`` is illegal here, in a few words, or ``None`` if it is legal."""
        raise NotImplementedError

    @abstractmethod
    def push(self, move: MoveT) -> None:
        """The fast unchecked path: play a move known to be legal."""
        raise NotImplementedError

    @abstractmethod
    def pop(self) -> MoveT | None:
        """Undo the last move (or first an ending by resignation or agreement); what was undone."""
        raise NotImplementedError

    @abstractmethod
    def position(self) -> str:
        raise NotImplementedError

    @abstractmethod
    def _load(self, text: str) -> None:
        raise NotImplementedError

    @abstractmethod
    def show(self) -> str:
        raise NotImplementedError

    @abstractmethod
    def perft(self, depth: int) -> int:
        """The number of move sequences of ``depth`` plies from here."""
        raise NotImplementedError

    @abstractmethod
    def copy(self) -> Self:
        raise NotImplementedError

    @abstractmethod
    def agreed(self) -> Outcome:
        """What ending the game by agreement now would give (the board is unchanged): a draw in Oxono, the position
        scored on the markers in Olix."""
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------
    def legal_moves(self) -> list[MoveT]:
        """Every legal move (an empty list once the game is over)."""
        return list(self.generate_moves())

    def is_legal(self, move: MoveT) -> bool:
        return self.why_illegal(move) is None

    def play(self, move: MoveT | str) -> MoveT:
        """The validated path: parse ``move`` if it is text, check it, push it.

        Raises :class:`InvalidMoveError` for text that spells no move and
        :class:`IllegalMoveError` for a move this position forbids; the board
        is unchanged then. Returns the move played.
        """
        if isinstance(move, str):
            try:
                move = self.parse_move(move)
            except InvalidMoveError as exc:
                raise InvalidMoveError(f"{exc} in position {self.position()!r}") from None
        elif not isinstance(move, self.MOVE):
            raise InvalidMoveError(f"not an {self.NAME} move: {move!r}")
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move {move.text()!r} in position {self.position()!r}: {reason}", reason)
        self.push(move)
        return move

    def resign(self, player: str | None = None) -> Outcome:
        """``player`` (by default the player to move) resigns; the other wins."""
        if self.is_game_over():
            raise GameOverError(f"cannot resign: the game is over ({self.outcome()})")
        loser = self.turn_index if player is None else self.PLAYERS.index(player)
        self._ending = Outcome(self.PLAYERS[1 - loser], EndReason.RESIGNED)
        return self._ending

    def end(self) -> Outcome:
        """End the game by agreement (:meth:`agreed`: a draw in Oxono, the position scored in Olix,
        docs/olix.md rule 12)."""
        if self.is_game_over():
            raise GameOverError(f"cannot end by agreement: the game is over ({self.outcome()})")
        self._ending = self.agreed()
        return self._ending

    def random_move(self, rng: random.Random) -> MoveT:
        """A legal move drawn uniformly from all legal moves (``rng``: a ``random.Random``)."""
        moves = self.legal_moves()
        if not moves:
            raise GameOverError(f"no legal move: the game is over ({self.outcome()})")
        return moves[int(rng.random() * len(moves))]

    @classmethod
    def from_position(cls, text: str) -> Self:
        """Load a position text; :class:`InvalidPositionError` naming the text if it is not one."""
        board = cls()
        try:
            board._load(text)
        except InvalidPositionError as exc:
            raise InvalidPositionError(f"invalid {cls.NAME} position {text!r}: {exc}") from None
        return board

    def __str__(self) -> str:
        return self.show()

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_position({self.position()!r})"
