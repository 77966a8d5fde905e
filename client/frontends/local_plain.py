"""``olixono play``: a game at one terminal, two people taking turns or one against a bot, in a line loop.

A thin loop on :class:`client.cores.local_game.LocalCore`: typed lines are read by the vocabulary every front end shares
(:func:`client.words.commands.parse`), the core rules on each, and this module only reads lines and prints. ``read`` and
``write`` are injectable so tests drive it without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable

from client.cores.intents import IntentRefused
from client.cores.local_game import Ended, LocalCore, LocalStep, Played, TookBack
from client.shell.local_record import LocalRecord
from client.words.board import export_command, hint_text, kept_text, status_text
from client.words.commands import parse, shown
from client.words.local import describe
from olixono.common import Outcome

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
    record: LocalRecord | None = None,
) -> Outcome | None:
    """Play one game of ``kind``; return its outcome (``None`` if left unfinished).

    ``vs`` is ``None`` for two people or a bot (a level, ``easy``, ``normal``,
    ``hard``, or ``random``, ``greedy``, ``mcts``: :data:`olixono.bots.BOTS`);
    ``iterations`` / ``seconds`` set its search's budget. ``human``
    is the seat the person takes against a bot (the first by default).
    ``record``: where the game is kept (``olixono play`` keeps it in the journal folder; ``None``: not kept).
    """
    core = LocalCore(kind, vs=vs, human=human, seed=seed, iterations=iterations, seconds=seconds)
    if record is not None:
        record.seat = core.human if core.bot is not None else None
    outcome = _loop(core, read, write, record)
    if record is not None and record.game is not None:
        write(f"The record: {export_command(record.game)}" if outcome is not None else kept_text(record.game))
        record.close()
    return outcome


def _loop(
    core: LocalCore, read: Callable[[str], str], write: Callable[[str], object], record: LocalRecord | None
) -> Outcome | None:
    """The prompts of one game (:func:`play_local`)."""
    board = core.board
    kind = core.kind

    def show(step: LocalStep) -> None:
        """Each event in a line (a person's own move needs none), the board after a move, the ending last."""
        for event in step.events:
            if not isinstance(event, Ended) and not (isinstance(event, Played) and not event.bot):
                write(describe(core, event))
        if any(isinstance(event, Played | TookBack) for event in step.events):
            write(status_text(board))
        for event in step.events:
            if isinstance(event, Ended):
                write(describe(core, event))
        warning = record.keep(board) if record is not None else None
        if warning is not None:
            write(warning)

    write(f"{kind}: {' vs '.join(board.PLAYERS)}. Type help for the commands.")
    write(status_text(board))
    for _ in range(MAX_PROMPTS):
        if core.over:
            return core.outcome
        if core.bot_to_move:
            choose, position, plies = core.thought
            show(core.bot_played(choose(position), plies))  # no thread here: the loop waits for the bot anyway
            continue
        try:
            line = read(f"{board.turn}> ").strip()
        except EOFError:
            write("")
            return None
        typed = parse(line, core)
        if typed.problem is not None:
            write(f"error: {typed.problem}")
        elif typed.local == "quit":
            return None
        elif typed.local == "hint":
            try:
                search, position = core.hint_thought
            except IntentRefused as exc:
                write(f"error: {exc}")
                continue
            write(hint_text(position, search(position)))
        elif typed.local is not None:
            write(shown(core, typed.local))
        elif typed.intent is not None:
            try:
                step = core.act(typed.intent)
                if step.ask_bot:
                    answer, position, seat = core.answer_thought
                    step = core.answer(answer(position, seat))
            except IntentRefused as exc:
                write(f"error: {exc}")
                continue
            show(step)
    write(f"Stopped after {MAX_PROMPTS} prompts.")
    return None
