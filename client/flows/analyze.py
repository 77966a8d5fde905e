"""``olixono analyze FILE``: every move of a verified transcript weighed by the search (:mod:`olixono.analysis`), in
words or as JSON.

The transcript is checked first, exactly as ``olixono verify`` checks it (the command line does that and hands the
verified session here); a bad file gets verify's errors and exit statuses. The analysis itself is
:func:`olixono.analysis.analyse`'s: this module only runs it, shows its progress on a terminal, and prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TextIO

from client.words.board import analysis_lines
from client.words.record import played_moves
from olixono.analysis import Budget, GameAnalysis, analyse, boards_of
from protocol import GameSession

BAR_WIDTH = 30


def progress_bar(stream: TextIO) -> Callable[[int, int], None] | None:
    """A progress bar on ``stream`` redrawn in place (``analysing [#####.....] 12/40 positions``) and wiped at the
    end, when ``stream`` is a terminal; ``None`` (no bar at all) when it is not: a file or a pipe gets nothing."""
    if not stream.isatty():
        return None

    def show(done: int, total: int) -> None:
        filled = BAR_WIDTH * done // total
        line = f"analysing [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} positions"
        stream.write(f"\r{line}" if done < total else f"\r{' ' * len(line)}\r")
        stream.flush()

    return show


def analyse_session(
    session: GameSession, budget: Budget, seed: int, progress: Callable[[int, int], object] | None = None
) -> GameAnalysis:
    """The analysis of the verified game in ``session``: every position from the start to the last move."""
    assert session.kind is not None  # a verified transcript starts with its offer
    return analyse(boards_of(session.kind, played_moves(session)), budget, seed=seed, progress=progress)


def report(session: GameSession, summary: str, analysis: GameAnalysis, as_json: bool = False) -> str:
    """What ``olixono analyze`` prints: verify's summary, then the analysis in words; or one JSON document
    (:meth:`GameAnalysis.to_json`'s, with the game it is of under ``game``: docs/analysis.md)."""
    if not as_json:
        return "\n".join([summary, *analysis_lines(analysis)])
    result = session.result
    game: dict[str, Any] = {
        "id": session.game_id,
        "verified": summary,
        "seats": {player: key.fingerprint for player, key in session.seats.items()},
        "result": None if result is None else result.sentence(),
    }
    return json.dumps({**analysis.to_json(), "game": game}, indent=2)
