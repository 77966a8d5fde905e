"""``olixono play``: a game at one terminal, two people taking turns or one against a bot.

A thin loop: the engine rules on every move; this module only reads lines and
prints. ``read`` and ``write`` are injectable so tests drive it without a
terminal.
"""

from __future__ import annotations

from typing import Callable

from client.board_words import EXAMPLES, game_over_text, status_text
from client.local_game import set_up
from olixono.common import GameOverError, IllegalMoveError, InvalidMoveError, Outcome
from olixono.olix import OlixBoard

HELP = """\
Type a move ({example}), or one of:
  legal    list the legal moves
  undo     take back the last move (against a bot: your last move and its reply)
  resign   give up the game
{end}  help     show this text
  quit     leave without finishing"""

MAX_PROMPTS = 10_000
"""A bound on prompts in one game, so a stuck input can never loop forever."""


def play_local(
    kind: str,
    *,
    vs: str | None = None,
    human: str | None = None,
    seed: int | None = None,
    iterations: int | None = None,
    seconds: float | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], object] = print,
) -> Outcome | None:
    """Play one game of ``kind``; return its outcome (``None`` if left unfinished).

    ``vs`` is ``None`` for two people or a bot level (``random``, ``greedy``,
    ``mcts``); ``iterations`` / ``seconds`` set the ``mcts`` budget. ``human``
    is the seat the person takes against a bot (the first by default).
    """
    board, human, bot = set_up(kind, vs=vs, human=human, seed=seed, iterations=iterations, seconds=seconds)
    end_line = "  end      end the game now and score it (both players agree)\n" if kind == "olix" else ""
    help_text = HELP.format(example=EXAMPLES[kind], end=end_line)
    write(f"{kind}: {' vs '.join(board.PLAYERS)}. Type help for the commands.")
    write(status_text(board))
    for _ in range(MAX_PROMPTS):
        outcome = board.outcome()
        if outcome is not None:
            write(game_over_text(outcome.sentence(board.PLAYERS)))
            return outcome
        if bot is not None and board.turn != human:
            move = bot.choose(board)
            board.push(move)
            write(f"{vs} plays {move.text()}")
            write(status_text(board))
            continue
        try:
            line = read(f"{board.turn}> ").strip()
        except EOFError:
            write("")
            return None
        command = line.lower()
        if not command:
            continue
        if command == "quit":
            return None
        if command == "help":
            write(help_text)
        elif command == "legal":
            write(" ".join(sorted(m.text() for m in board.legal_moves())))
        elif command == "undo":
            plies = 2 if vs else 1
            if len(board.move_stack) < plies:
                write("Nothing to undo.")
                continue
            for _ in range(plies):
                board.pop()
            write(status_text(board))
        elif command == "resign":
            board.resign()
        elif command == "end" and isinstance(board, OlixBoard):
            if bot is not None:  # the bot is asked, as a person would be
                bot_player = board.PLAYERS[1 - board.PLAYERS.index(human)]
                if not bot.answer_end(board, bot_player):
                    write(f"{vs} declines to end the game: play on.")
                    continue
                write(f"{vs} agrees to end the game.")
            try:
                board.end()
            except GameOverError as exc:
                write(str(exc))
        else:
            try:
                board.play(line)
            except InvalidMoveError:
                write(f"Not a move: {line!r}. {EXAMPLES[kind].capitalize()}; help lists the commands.")
                continue
            except IllegalMoveError as exc:
                write(f"Illegal: {exc.reason}.")
                continue
            write(status_text(board))
    write(f"Stopped after {MAX_PROMPTS} prompts.")
    return None
