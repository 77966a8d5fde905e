"""The Python engines' answers, written down for the JavaScript rules (``web/js/``) to be held to.

``PYTHONPATH=. python tests/web_cases.py OUT.json`` (from the tree's root) writes *playthroughs* (OpenSpiel's golden
transcripts, made fresh): a list of steps per game that the Node test (``web/tests/rules.test.js``) replays on its own
engine, comparing every answer exactly. Three sources:

* seeded random games of each game, to the end (Olix with players that build formations, so that every ending
  comes up), at every position the state, the legal moves and a few refused moves with their reason;
* every position the Python rule tests (``tests/test_oxono_rules.py``, ``tests/test_olix_rules.py``) load and every
  move they try there: the rule tests are run once with the engines' ``_load`` and ``play`` watched;
* resignations and ends by agreement cut into some of the random games.

A step is ``{"do": "new"}``, ``{"do": "load", "text", "ok"}``, ``{"do": "play", "move", "error", "reason"}``
(``error``: ``null``, ``"invalid"`` or ``"illegal"``; a refused move leaves the board unchanged), ``{"do": "pop"}``,
``{"do": "resign"}`` / ``{"do": "end"}`` (``error``: ``"over"`` when the game already ended), and ``{"do": "check",
"state"}`` with what :func:`snapshot` lists.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from olixono.common import Board, GameOverError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from olixono.olix import OlixBoard, OlixMove
from olixono.oxono import OxonoBoard

ROOT = Path(__file__).resolve().parent.parent
RULE_TESTS = ("tests/test_oxono_rules.py", "tests/test_olix_rules.py")
BOARDS: dict[str, type[Board[Any]]] = {"oxono": OxonoBoard, "olix": OlixBoard}
Step = dict[str, Any]


def snapshot(board: Board[Any], full: bool) -> dict[str, Any]:
    """What a spectator's board shows and the judge asks, in text: compared exactly by the Node test.

    ``full`` adds the drawing (``show``) and, for Olix, every legal move (otherwise their count: in Olix they are
    the empty squares of a game not over, which the position already tells).
    """
    outcome = board.outcome()
    legal = [move.text() for move in board.legal_moves()]
    state: dict[str, Any] = {
        "position": board.position(),
        "turn": board.turn,
        "outcome": None if outcome is None else outcome.text(),
        "markers": None if outcome is None else outcome.markers,
        "sentence": None if outcome is None else outcome.sentence(board.PLAYERS),
    }
    if isinstance(board, OxonoBoard):
        state["legal"] = " ".join(legal)
        state["pawns_left"] = [board.pawns_left(p, s) for p in ("pink", "black") for s in "XO"]
        state["totems"] = list(board.totems)
    elif isinstance(board, OlixBoard):
        state["legal"] = " ".join(legal) if full else len(legal)
        state["formations"] = board.formations_text()
        state["shapes"] = " ".join(
            f"{kind}={','.join(f.square_names())}" for p in board.PLAYERS for kind, f in board.formations(p).items()
        )
        state["scoreboard"] = board.scoreboard_text()
        state["agreed"] = None if outcome is not None else board.agreed().text()
    if full:
        state["show"] = board.show()
    return state


class Playthrough:
    """One board and the steps that lead it, each with the Python engine's answer."""

    def __init__(self, kind: str, text: str | None = None) -> None:
        self.kind = kind
        self.steps: list[Step] = []
        if text is None:
            self.board: Board[Any] = BOARDS[kind]()
            self.steps.append({"do": "new"})
        else:
            self.board = BOARDS[kind].from_position(text)
            self.steps.append({"do": "load", "text": text, "ok": True})

    def check(self, full: bool = False) -> None:
        self.steps.append({"do": "check", "state": snapshot(self.board, full)})

    def play(self, text: str) -> bool:
        """Play ``text`` with the validated path; whether it was played."""
        step: Step = {"do": "play", "move": text, "error": None, "reason": None}
        self.steps.append(step)
        try:
            self.board.play(text)
        except InvalidMoveError:
            step["error"] = "invalid"
        except IllegalMoveError as exc:
            step["error"], step["reason"] = "illegal", exc.reason
        return step["error"] is None

    def pop(self) -> None:
        self.board.pop()
        self.steps.append({"do": "pop"})

    def finish(self, how: str) -> None:
        """``resign`` or ``end`` (by agreement); refused with ``over`` when the game already ended."""
        step: Step = {"do": how, "error": None}
        self.steps.append(step)
        try:
            self.board.resign() if how == "resign" else self.board.end()
        except GameOverError:
            step["error"] = "over"

    def record(self) -> dict[str, Any]:
        return {"kind": self.kind, "steps": self.steps}


# -- random games ---------------------------------------------------------------------------------------------------


def _oxono_refusals(rng: random.Random, legal: list[str]) -> list[str]:
    """A few moves to try that are refused where ``legal`` are the legal moves: well formed but illegal, and text
    that spells no move."""
    files, squares = "abcdef", [f + r for f in "abcdef" for r in "123456"]
    tries: list[str] = []
    while len(tries) < 3:
        text = rng.choice("XO") + rng.choice(squares) + rng.choice(squares)
        if text not in legal:
            tries.append(text)
    near = [m for m in legal if m[0] == "X"][:1]  # a legal move with its pawn moved, often illegal
    tries += [t for t in (m[:3] + rng.choice(files) + m[4] for m in near) if t not in legal]
    tries.append(rng.choice(["", "Xd3", "Zd3d4", "Xg1a1", "Xa0a1", "Xa1a7", "X d3d4", "Xd3d4 "]))
    return tries


def oxono_game(seed: int) -> dict[str, Any]:
    """A random Oxono game, checked at every position; some seeds resign or agree part way."""
    rng = random.Random(seed)
    game = Playthrough("oxono")
    stop = rng.randrange(40) if seed % 7 == 0 else None
    game.check(full=True)
    while not game.board.is_game_over():
        legal = [m.text() for m in game.board.legal_moves()]
        if len(game.board.move_stack) == stop:
            game.finish(rng.choice(["resign", "end"]))
            game.check(full=True)
            break
        for text in _oxono_refusals(rng, legal):
            game.play(text)
        move = rng.choice(legal)
        game.play(move.lower() if rng.random() < 0.1 else move)
        game.check(full=game.board.is_game_over())
    game.play(rng.choice(["Xa1a2", "Oc4c5"]))
    game.finish("resign")
    return game.record()


def _builder_move(board: OlixBoard, rng: random.Random, empty: list[int]) -> int:
    """An empty square next to or in line with the mover's own stones, which builds formations; else any."""
    own = [s for s in range(121) if board.stone_at(s) == board.turn]
    for _ in range(6):
        if not own:
            break
        start = rng.choice(own)
        dr, df = rng.choice([(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1), (1, -1), (-1, 1)])
        rank, file = divmod(start, 11)
        for _ in range(3):
            rank, file = rank + dr, file + df
            if not (0 <= rank < 11 and 0 <= file < 11):
                break
            owner = board.stone_at(rank * 11 + file)
            if owner is None:
                return rank * 11 + file
            if owner != board.turn:
                break
    return rng.choice(empty)


def crowded_start(rng: random.Random) -> str:
    """A random position of 70 to 99 stones, near the settled ending and the end by stones."""
    total = rng.randrange(70, 100)
    squares = rng.sample(range(121), total)
    board = OlixBoard()
    for square in squares:  # push checks nothing: the position is judged when it is loaded
        board.push(OlixMove(square))
    return board.position()


NEAR_SETTLED = (
    "XXOO1XXOO1X/O1XXOO1XOXO/XOO1XXOOOXX/1XXOO1XXOO1/OO1XXOO1XXO/XXOO1XXOO1X/"
    "O1XXOO1XXOO/XOO1XXOO1XX/1XXOO1XXOO1/OO1XXOO1XXO/XXOO1XXOO1X first"
)
"""Olix's rule 11 hanging on one value: a formation one better than the player's best can still be made, nothing
more (found by a search around the rule tests' lattice; the only one in 140,000 tries)."""


def olix_game(seed: int, start: str | None = None) -> dict[str, Any]:
    """An Olix game, checked at every position: each player random or a builder (with some randomness); from
    ``start`` if given, ``crowded`` for a :func:`crowded_start` (which may load over, or not load: an automatic
    win of the player to move)."""
    rng = random.Random(seed)
    if start is not None:
        text = crowded_start(rng) if start == "crowded" else start
        try:
            game = Playthrough("olix", text)
        except InvalidPositionError:
            return {"kind": "olix", "steps": [{"do": "load", "text": text, "ok": False}]}
    else:
        game = Playthrough("olix")
    board = game.board
    assert isinstance(board, OlixBoard)
    builds = [rng.choice([0.0, 0.6, 0.9, 1.0]) for _ in range(2)]
    stop = rng.randrange(100) if seed % 7 == 0 else None
    game.check(full=True)
    while not board.is_game_over():
        if len(board.move_stack) == stop:
            game.finish(rng.choice(["resign", "end"]))
            break
        empty = [s for s in range(121) if board.stone_at(s) is None]
        occupied = [s for s in range(121) if board.stone_at(s) is not None]
        if occupied and rng.random() < 0.3:
            game.play(_square(rng.choice(occupied)))
        if rng.random() < 0.05:
            game.play(rng.choice(["", "l1", "a12", "a0", "a01", "11", "f 6", "ff6"]))
        if rng.random() < builds[board.turn_index]:
            square = _builder_move(board, rng, empty)
        else:
            square = rng.choice(empty)
        text = _square(square)
        game.play(text.upper() if rng.random() < 0.1 else text)
        game.check(full=board.is_game_over())
    game.check(full=True)
    game.play("a1")
    game.finish("end")
    return game.record()


def _square(square: int) -> str:
    rank, file = divmod(square, 11)
    return f"{'abcdefghijk'[file]}{rank + 1}"


# -- the rule tests' positions ----------------------------------------------------------------------------------------


def rule_test_positions() -> tuple[list[tuple[str, str]], dict[tuple[str, str], list[str]]]:
    """Run the Python rule tests once, watching the engines: every position text they load (with its game) and
    the moves they play from each valid position."""
    loads: list[tuple[str, str]] = []
    tried: dict[tuple[str, str], list[str]] = {}
    originals: list[tuple[type[Board[Any]], str, Callable[..., Any]]] = []

    def watch(kind: str, cls: type[Board[Any]]) -> None:
        load, play = cls._load, cls.play

        def watched_load(self: Board[Any], text: str) -> None:
            if isinstance(text, str):
                loads.append((kind, text))
            load(self, text)

        def watched_play(self: Board[Any], move: Any) -> Any:
            text = move if isinstance(move, str) else move.text()
            tried.setdefault((kind, self.position()), []).append(text)
            return play(self, move)

        originals.extend([(cls, "_load", load), (cls, "play", play)])
        cls._load = watched_load  # type: ignore[method-assign]
        cls.play = watched_play  # type: ignore[method-assign]

    for kind, cls in BOARDS.items():
        watch(kind, cls)
    try:
        code = pytest.main(
            [
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:xdist",
                "-p",
                "no:randomly",
                *[str(ROOT / t) for t in RULE_TESTS],
            ]
        )
    finally:
        for cls, name, original in originals:
            setattr(cls, name, original)
    if code != 0:
        raise SystemExit(f"the Python rule tests failed ({code}): fix them before writing cases from them")
    return loads, tried


def rule_cases() -> list[dict[str, Any]]:
    """A playthrough per position the rule tests use: loaded (or refused), then each move they try there (popped),
    then a random game from there to its end (from the near-settled positions of Olix's rule 11, too)."""
    loads, tried = rule_test_positions()
    starts = {(kind, BOARDS[kind]().position()) for kind in BOARDS}
    cases = []
    for index, (kind, text) in enumerate(sorted(set(loads) | set(tried) | starts)):
        try:
            game = Playthrough(kind, text)
        except InvalidPositionError:
            cases.append({"kind": kind, "steps": [{"do": "load", "text": text, "ok": False}]})
            continue
        game.check(full=True)
        for move in sorted(set(tried.get((kind, text), []))):
            if game.play(move):
                game.check(full=True)
                game.pop()
        rng = random.Random(index)
        while not game.board.is_game_over():
            game.play(rng.choice(game.board.legal_moves()).text())
            game.check(full=game.board.is_game_over())
        cases.append(game.record())
    return cases


def all_cases(oxono_games: int = 300, olix_games: int = 200, crowded_games: int = 200) -> dict[str, Any]:
    return {
        "rules": rule_cases(),
        "games": [oxono_game(seed) for seed in range(oxono_games)]
        + [olix_game(seed) for seed in range(olix_games)]
        + [olix_game(seed, "crowded") for seed in range(crowded_games)]
        + [olix_game(seed, NEAR_SETTLED) for seed in range(20)],
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/web_cases.py OUT.json", file=sys.stderr)
        return 2
    Path(argv[0]).write_text(json.dumps(all_cases(), separators=(",", ":")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
