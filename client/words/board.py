"""What a person reads and writes that needs no protocol, the same in every front end: how a move is written (each
game's words), the board with its scoreboard, the game-over sentence, the hints to resume, watch again, export, and
an analysis in words (``olixono analyze``, the replay's analysis, ``hint``).

No protocol here (the vocabulary's other words, :mod:`client.words.network` and :mod:`client.words.commands`, stand on
the network game's core): local play at one terminal reads it without loading the protocol and its cryptography.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from client.cores.clock import LOW_MS
from olixono.common import Board, GameKind
from olixono.olix import OlixBoard

if TYPE_CHECKING:  # the analysis's types alone: local play loads the search only when asked for a hint
    from olixono.analysis import Budget, Evaluation, GameAnalysis, PlayerSummary, Ply, Position


@dataclass(frozen=True, slots=True)
class GameWords:
    """What a person reads and types that differs between the games."""

    example: str
    """How a move is written (help texts and refusals quote it)."""
    end_word: str
    """The word that proposes to end the game before its end: a draw in Oxono, counting the markers in Olix."""
    end_help: str
    """What that word does, for the help texts."""
    proposal: str
    """What a player who proposed it did, for the log (``pink offers a draw``)."""
    segments: tuple[int, ...] | None = None
    """Where a move's segments end, for Tab to complete one at a time (Oxono: the totem ``O``, where it goes
    ``Oc6``, the pawn's square ``Oc6c5``); ``None``: whole moves."""


GAME_WORDS: dict[str, GameWords] = {
    GameKind.OXONO: GameWords(
        "e.g. Oc6c5: totem O to c6, pawn marked O on c5", "draw", "offer a draw", "offers a draw", segments=(1, 3, 5)
    ),
    GameKind.OLIX: GameWords(
        "a square, e.g. f6",
        "end",
        "propose to end the game now and count the markers",
        "proposes to end the game and count the markers",
    ),
}
"""Each game's words, by its kind."""


def game_over_text(sentence: str) -> str:
    """``Game over: pink wins, a colour line.``: how every front end says that a game ended (``sentence``: the
    result's own, :meth:`protocol.Result.sentence` or :meth:`olixono.common.Outcome.sentence`)."""
    return f"Game over: {sentence}."


def status_text(board: Board[Any]) -> str:
    """The board, plus the scoreboard in Olix."""
    text = board.show()
    if isinstance(board, OlixBoard):
        text += "\n" + board.scoreboard_text()
    return text


def last_move_text(board: Board[Any]) -> str | None:
    """The move the board shows last, as the line under a printed board names it (the full screen marks its squares
    instead): ``last move: 12 pink Oc6c5 (totem O to c6, pawn on c5)``, ``last move: 7 second c3`` (numbered as
    ``move N`` numbers the moves); ``None`` before the first."""
    if not board.move_stack:
        return None
    move = board.move_stack[-1].text()
    player = board.PLAYERS[1 - board.turn_index]  # the turns alternate: the mover is the one not to move
    where = "" if isinstance(board, OlixBoard) else f" (totem {move[0]} to {move[1:3]}, pawn on {move[3:5]})"
    return f"last move: {len(board.move_stack)} {player} {move}{where}"


def board_text(board: Board[Any]) -> str:
    """A board as the line console and ``--plain`` print it (after a move; ``board``): :func:`status_text`, then the
    last move (:func:`last_move_text`) on a line of its own."""
    last = last_move_text(board)
    return status_text(board) + (f"\n{last}" if last is not None else "")


def export_command(game: str | None, reach: str = "") -> str:
    """The command that saves a finished network game's record (``reach``: the options that reach its relays, for a
    watcher, who has no journal of it)."""
    return f"olixono export {game}{reach} > game.txt"


def finished_text(sentence: str, game: str | None, reach: str = "") -> str:
    """A finished game's result and where its record is to be had, the command on a line of its own (to paste): said
    as it ends, and again once its full screen is gone (so that it stays in the terminal's scrollback)."""
    return f"{game_over_text(sentence)} The record:\n{export_command(game, reach)}"


def kept_text(game: str | None) -> str:
    """Leaving a game at one terminal before its end: it is kept, not resumable (nobody else holds a seat)."""
    return f"Left the game unfinished; it is kept (olixono history lists it):\n{export_command(game)}"


def resume_text(game: str | None) -> str:
    """How a player takes a game up again."""
    return f"olixono resume {game} takes it up again"


def watch_again_text(game: str | None, reach: str = "") -> str:
    """How a watcher follows a game again (``reach``: the options that reach its relays)."""
    return f"olixono watch {game}{reach} follows it again"


def clock_text(seconds: float) -> str:
    """A clock or a thinking time as people read it: ``4:07`` (minutes, seconds), ``1:02:30`` past an hour,
    ``2 d 23:59:59`` past a day."""
    whole = int(seconds)
    days, whole = divmod(whole, 86_400)
    hours, whole = divmod(whole, 3600)
    minutes, whole = divmod(whole, 60)
    text = f"{hours}:{minutes:02d}:{whole:02d}" if hours or days else f"{minutes}:{whole:02d}"
    return f"{days} d {text}" if days else text


AT_MOST, AT_LEAST = "\u2264", "\u2265"
"""The marks of a time shown as a bound (``≤0:58``: a clock left, at most; ``≥0:20``: a time on the move, at least):
the turn began before this client saw it, by a time it cannot know."""
BOUND_WHY = "this client did not see the turn begin (its line came from the relay's store), so it began earlier"
"""Why a time is shown as a bound, for the ``clock`` command."""


def clock_left_text(ms: int, unexplained_ms: int = 0, at_most: bool = False) -> str:
    """A game clock as people read it: ``4:07``; under :data:`LOW_MS`, in tenths and marked: ``0:09.4!``; with the
    thinking the receipts leave unexplained beside it, if any: ``4:07 (+1.2s)``; ``at_most``: only an upper bound,
    ``≤4:07`` (:data:`AT_MOST`)."""
    shown = clock_text(ms / 1000) if ms >= LOW_MS else f"0:{ms // 1000:02d}.{ms % 1000 // 100}!"
    shown = f"{AT_MOST}{shown}" if at_most else shown
    return shown if unexplained_ms < 100 else f"{shown} (+{unexplained_ms / 1000:.1f}s)"


def move_time_text(ms: int, at_least: bool = False) -> str:
    """An untimed game's time on the move so far: ``0:20``; ``at_least``: only a lower bound, ``≥0:20``
    (:data:`AT_LEAST`)."""
    return f"{AT_LEAST if at_least else ''}{clock_text(ms / 1000)}"


# -- an analysis in words ---------------------------------------------------------------------------------------------
ANALYSIS_HEAD = f"{'ply':>4}  {'player':<7}{'move':<7}{'best':<7}{'before':<19}{'after':<19}mark"
"""The head of :func:`ply_line`'s columns."""


def budget_text(budget: Budget) -> str:
    """``4,000 iterations a position``, ``2 s a position``, ``4,000 iterations or 2 s a position``."""
    parts = [f"{budget.iterations:,} iterations"] if budget.iterations is not None else []
    if budget.seconds is not None:
        parts.append(f"{budget.seconds:g} s")
    return " or ".join(parts) + " a position"


def evaluation_text(evaluation: Evaluation) -> str:
    """``+0.42``; ``+1.00 won (proof)``, ``-0.93 lost (value)``: a standing says how it is known."""
    if evaluation.standing == "unclear":
        return f"{evaluation.value:+.2f}"
    return f"{evaluation.value:+.2f} {evaluation.standing} ({'proof' if evaluation.proven else 'value'})"


def summary_text(summary: PlayerSummary) -> str:
    """``pink: 12 moves, 7 the search's best, 1 blunder, 2 missed wins, 1 win in one not taken, mean loss 0.08``."""

    def count(number: int, word: str) -> str:
        return f"{number} {word}{'' if number == 1 else 's'}"

    return (
        f"{summary.player}: {count(summary.moves, 'move')}, {summary.best_moves} the search's best, "
        f"{count(summary.blunders, 'blunder')}, {count(summary.missed_wins, 'missed win')}, "
        f"{count(summary.missed_wins_in_one, 'win')} in one not taken, mean loss {summary.mean_loss:.2f}"
    )


def summary_lines(analysis: GameAnalysis) -> list[str]:
    """Each player's :func:`summary_text`."""
    return [summary_text(analysis.summary(player)) for player in analysis.players]


def mark_text(ply: Ply) -> str:
    """``blunder``, ``missed win``, with ``(win in one: Xd2d1)`` when a win in one was not taken; empty for none."""
    mark = ply.mark
    text = "" if mark is None else str(mark)
    if ply.missed_win_in_one:
        text += f" (win in one: {ply.wins_in_one[0]})"
    return text


def ply_line(ply: Ply) -> str:
    """One weighed move in :data:`ANALYSIS_HEAD`'s columns (``=`` where the move played was the search's best)."""
    best = "=" if ply.best == ply.move else ply.best or ""
    before, after = evaluation_text(ply.before), evaluation_text(ply.after)
    return f"{ply.number:>4}  {ply.player:<7}{ply.move:<7}{best:<7}{before:<19}{after:<19}{mark_text(ply)}".rstrip()


def ply_note(ply: Ply) -> str:
    """A weighed move in a few characters, beside it in a list of moves: the value after it, and its mark."""
    return f"{ply.after.value:+.2f} {ply.mark or ''}".rstrip()


def ply_sentence(ply: Ply) -> str:
    """A weighed move in a sentence: ``Move 9, pink Oa3a4 (the search's best: Oa1a2): before +1.00 won (proof),
    after -0.19; missed win.``."""
    best = "the search's best" if ply.best == ply.move else f"the search's best: {ply.best}"
    mark = mark_text(ply)
    return (
        f"Move {ply.number}, {ply.player} {ply.move} ({best}): before {evaluation_text(ply.before)}, after "
        f"{evaluation_text(ply.after)}" + (f"; {mark}." if mark else ".")
    )


def analysis_lines(analysis: GameAnalysis) -> list[str]:
    """The analysis as ``olixono analyze`` prints it: how it was made, every move, the last position, each player's
    summary."""
    from olixono.analysis import WON_VALUE

    how = (
        f"analysis: {budget_text(analysis.budget)}, seed {analysis.seed}; values for the player who moves, from "
        f"-1 (lost) to +1 (won); won or lost by a proof, else by a value of at least {WON_VALUE} (docs/analysis.md)"
    )
    lines = [how, ANALYSIS_HEAD, *map(ply_line, analysis.plies)]
    if analysis.final is not None:
        mover = analysis.players[len(analysis.plies) % 2]
        lines.append(f"after the last move, {mover} to move: {evaluation_text(analysis.final)}")
    return lines + summary_lines(analysis)


def hint_text(board: Board[Any], position: Position) -> str:
    """A hint for the player to move on ``board`` from the search of it: its best move, the line it expects and how
    the position stands."""
    best = position.best
    if best is None:
        return "no hint: the game is over"
    if best in position.wins_in_one:
        return f"hint: {best} wins at once"
    line, standing = " ".join(position.pv[:6]), evaluation_text(position.evaluation)
    return f"hint: {best} (the search expects {line}); for {board.turn} the position is {standing}"
