"""A game at one terminal, sans I/O, below its front ends (the line loop of ``client.frontends.local_plain``, the full
screen's ``client.frontends.local_screen``): a :class:`LocalCore` with the surface of a network game's core, intents in
(:class:`client.cores.intents.Intent`) and steps out (:class:`LocalStep`), so that undo, a proposal to the bot and every
refusal's sentence exist once.

It touches no terminal and no thread: a front end runs the bot's thought (:attr:`LocalCore.thought`) where it likes
and hands the move back (:meth:`LocalCore.bot_played`). Its events' words stand with the other words
(:func:`client.words.local.describe`), apart from a network game's (:mod:`client.words.network`), for local play must
not load the protocol those stand on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from client.cores.intents import Intent, IntentKind, IntentRefused
from olixono.bots import BOTS, Bot, bot_for
from olixono.common import Board, GameKind, IllegalMoveError, InvalidMoveError, MoveLike, Outcome
from olixono.games import new_board

if TYPE_CHECKING:
    from olixono.analysis import Position


def set_up(
    kind: str, *, vs: str | None, human: str | None, seed: int | None, iterations: int | None, seconds: float | None
) -> tuple[Board[Any], str, Bot | None]:
    """A new board of ``kind``, the person's seat (the first by default) and the bot (``None`` for two people);
    ``ValueError`` for an unknown bot level or seat (arguments as :func:`client.frontends.local_plain.play_local`)."""
    board = new_board(kind)
    if vs is not None and vs not in BOTS:
        raise ValueError(f"unknown opponent {vs!r}: expected one of {', '.join(BOTS)}")
    human = human or board.PLAYERS[0]
    if human not in board.PLAYERS:
        raise ValueError(f"unknown seat {human!r} in {kind}: expected {' or '.join(board.PLAYERS)}")
    return board, human, bot_for(vs, seed=seed, iterations=iterations, seconds=seconds) if vs else None


def search_for_hint(board: Board[Any]) -> Position:
    """The analysis's search of ``board`` for its player to move (at the analysis's default budget)."""
    from olixono.analysis import evaluate

    return evaluate(board, index=len(board.move_stack))


def board_moves(board: Board[Any]) -> list[tuple[str, str]]:
    """``(player, move)`` for every move on ``board``'s stack, played from the start (turns alternate, the first
    player first)."""
    return [(board.PLAYERS[index % 2], move.text()) for index, move in enumerate(board.move_stack)]


@dataclass(frozen=True, slots=True)
class Played:
    """A move was played (``bot``: by the bot)."""

    player: str
    move: str
    bot: bool = False


@dataclass(frozen=True, slots=True)
class TookBack:
    """Moves were taken back."""

    plies: int


@dataclass(frozen=True, slots=True)
class Answered:
    """The bot answered a proposal to end the game now."""

    agreed: bool


@dataclass(frozen=True, slots=True)
class Ended:
    """The game is over."""

    outcome: Outcome


LocalEvent = Played | TookBack | Answered | Ended


@dataclass(frozen=True, slots=True)
class LocalStep:
    """What one intent (or the bot's move, or its answer) caused."""

    events: tuple[LocalEvent, ...] = ()
    ask_bot: bool = False
    """The bot is to be asked whether it agrees to end the game (:meth:`LocalCore.answer` takes its answer)."""


class LocalCore:
    """One game at this terminal: two people taking turns (``vs`` ``None``), or the person (``human``: a seat, the
    first by default) against a bot of level ``vs``."""

    watching = False
    local = True
    game_id = ""

    def __init__(
        self,
        kind: str,
        *,
        vs: str | None = None,
        human: str | None = None,
        seed: int | None = None,
        iterations: int | None = None,
        seconds: float | None = None,
    ) -> None:
        self.vs = vs
        self._board, self.human, self.bot = set_up(
            kind, vs=vs, human=human, seed=seed, iterations=iterations, seconds=seconds
        )

    # -- read-only views ---------------------------------------------------------------
    @property
    def board(self) -> Board[Any]:
        """The game's board, for front ends to read, never to change (``copy()`` it first)."""
        return self._board

    @property
    def kind(self) -> GameKind:
        return self._board.KIND

    @property
    def started(self) -> bool:
        return True

    @property
    def over(self) -> bool:
        return self._board.is_game_over()

    @property
    def outcome(self) -> Outcome | None:
        return self._board.outcome()

    @property
    def bot_to_move(self) -> bool:
        return self.bot is not None and self._board.turn != self.human and not self.over

    @property
    def my_turn(self) -> bool:
        """Whether the person (either person, without a bot) may move now."""
        return not self.over and not self.bot_to_move

    @property
    def bot_player(self) -> str | None:
        """The bot's seat."""
        players = self._board.PLAYERS
        return None if self.bot is None else players[1 - players.index(self.human)]

    def played(self) -> list[tuple[str, str]]:
        return board_moves(self._board)

    # -- intents in ----------------------------------------------------------------------
    def act(self, intent: Intent) -> LocalStep:
        """Do what the person asked, or :class:`IntentRefused` saying why not (the board unchanged)."""
        board, kind = self._board, intent.kind
        if kind in (
            IntentKind.CHAT,
            IntentKind.AGREE,
            IntentKind.DECLINE,
            IntentKind.WITHDRAW,
            IntentKind.ABORT,
            IntentKind.CLAIM,
        ):
            raise IntentRefused(f"{'chat' if kind is IntentKind.CHAT else kind} is for a network game")
        if self.over:
            raise IntentRefused("the game is over: quit leaves")
        if kind is IntentKind.RESIGN:
            board.resign(self.human if self.bot is not None else None)
            return self._after()
        if self.bot_to_move:
            what = {IntentKind.MOVE: None, IntentKind.UNDO: "undo", IntentKind.PROPOSE: "propose"}[kind]
            raise IntentRefused(
                f"it is not your turn: {self.vs} is thinking"
                if what is None
                else f"wait for {self.vs}'s move, then {what}"
            )
        if kind is IntentKind.UNDO:
            return self._undo()
        if kind is IntentKind.PROPOSE:
            return self._propose()
        player = board.turn
        try:
            move: MoveLike = board.play(intent.text.strip())
        except InvalidMoveError:
            raise IntentRefused(f"not a move: {intent.text.strip()[:40]!r}") from None
        except IllegalMoveError as exc:
            raise IntentRefused(f"illegal: {exc.reason}") from None
        return self._after(Played(player, move.text()))

    def _undo(self) -> LocalStep:
        plies = 2 if self.bot is not None else 1  # against a bot: the person's last move and its reply
        if len(self._board.move_stack) < plies:
            raise IntentRefused("nothing to undo")
        for _ in range(plies):
            self._board.pop()
        return LocalStep((TookBack(plies),))

    def _propose(self) -> LocalStep:
        if self.bot is not None:
            return LocalStep(ask_bot=True)  # the bot is asked, as a person would be
        self._board.end()  # both people are here: they agree
        return self._after()

    def answer(self, agreed: bool) -> LocalStep:
        """The bot's answer to the person's proposal to end the game (its thought: :attr:`answer_thought`)."""
        if self.over:  # it ended meanwhile (the person resigned): nothing to answer
            return LocalStep()
        if not agreed:
            return LocalStep((Answered(False),))
        self._board.end()
        return self._after(Answered(True))

    # -- the bot -------------------------------------------------------------------------
    @property
    def thought(self) -> tuple[Any, Board[Any], int]:
        """What the bot thinks on, for a front end to run (in a thread, or at once): ``choose``, a copy of the board,
        and the plies played, to hand back to :meth:`bot_played` with the move."""
        assert self.bot is not None
        return self.bot.choose, self._board.copy(), len(self._board.move_stack)

    @property
    def answer_thought(self) -> tuple[Any, Board[Any], str]:
        """What the bot thinks on to answer a proposal: ``answer_end``, a copy of the board, and its seat."""
        assert self.bot is not None and self.bot_player is not None
        return self.bot.answer_end, self._board.copy(), self.bot_player

    @property
    def hint_thought(self) -> tuple[Callable[[Board[Any]], Position], Board[Any]]:
        """What the search thinks on for a hint (``hint``), for a front end to run: the search and a copy of the board
        (:func:`client.words.board.hint_text` says what it found); :class:`IntentRefused` when there is no hint to
        give now."""
        if self.over:
            raise IntentRefused("no hint: the game is over")
        if self.bot_to_move:
            raise IntentRefused(f"no hint while {self.vs} is thinking: ask on your turn")
        return search_for_hint, self._board.copy()

    def bot_played(self, move: MoveLike, plies: int) -> LocalStep:
        """The bot's move, thought when ``plies`` moves were played: dropped if the game went on meanwhile (the
        person resigned or took moves back)."""
        if not self.bot_to_move or len(self._board.move_stack) != plies:
            return LocalStep()
        player = self._board.turn
        self._board.push(move)
        return self._after(Played(player, move.text(), bot=True))

    def _after(self, *events: LocalEvent) -> LocalStep:
        outcome = self._board.outcome()
        return LocalStep((*events, Ended(outcome)) if outcome is not None else events)
