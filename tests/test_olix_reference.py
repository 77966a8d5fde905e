"""Differential tests: the fast Olix engine against the slow reference (tests/olix_reference.py).

Seeded random games in three styles – uniform, clustering (formations appear,
often automatic wins) and sparse lattices (often settled) – are played in both;
at every ply the formations (values, and squares that really form them), the
scoreboard and the outcome must agree.
"""

from __future__ import annotations

import olix_reference as ref
import pytest
from engine_helpers import outcome_of

from olixono.common import iter_bits
from olixono.olix import MOVES, PLAYERS, OlixBoard


def play_both(style: str, seed: int, check_settled: bool = True) -> OlixBoard:
    """Play one seeded game in the engine and the reference, comparing after every ply."""
    board, game = OlixBoard(), ref.RefGame()
    for ply, square in enumerate(ref.random_squares(style, seed), start=1):
        board.play(MOVES[square])
        game.play(square, check_settled=check_settled)
        where = f"{style} game {seed}, ply {ply}, position {board.position()!r}"
        assert board.formations_text() == game.formations_text(), where
        for p, player in enumerate(PLAYERS):
            for kind, formation in board.formations(player).items():
                squares = set(iter_bits(formation.squares))
                assert ref.is_formation(game.cells, p, kind, squares, formation.value), f"{kind} of {player}, {where}"
        assert board.scoreboard_text() == ref.scoreboard_text(game.best), where
        outcome = board.outcome()
        if check_settled or outcome is None or outcome.reason != "settled":
            assert ((outcome.winner, outcome.reason) if outcome else None) == game.outcome, where
        if outcome is not None:
            return board
    raise AssertionError(f"{style} game {seed} did not end")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("style", ["uniform", "clustering", "lattice"])
def test_engine_agrees_with_reference_at_every_ply(style, seed):
    board = play_both(style, seed)
    assert board.legal_moves() == []


@pytest.mark.parametrize("seed", range(6, 30))
@pytest.mark.parametrize("style", ["uniform", "clustering"])
def test_formations_agree_with_reference_on_more_games(style, seed):
    # the settled check of the reference is the slow part; formations and scoreboard only here
    play_both(style, seed, check_settled=False)


def test_the_styles_reach_every_automatic_ending():
    reasons = {
        outcome_of(play_both(style, seed, check_settled=False)).reason
        for style in ("uniform", "clustering", "lattice")
        for seed in range(3)
    }
    assert reasons >= {"formation", "stones", "settled"}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30, 90))
@pytest.mark.parametrize("style", ["uniform", "clustering", "lattice"])
def test_engine_agrees_with_reference_on_many_games(style, seed):
    play_both(style, seed)


def test_reference_values_by_hand():
    """The reference itself, on the worked values of rule 7 and a T shape (rule 6) of docs/olix.md."""
    cells: list[int | None] = [None] * ref.SQUARES
    for r in range(3):
        for f in range(3):
            if (r, f) != (1, 1):
                cells[ref.square(r, f)] = 0
    assert ref.best_o(cells, 0) == 8
    cells[ref.square(1, 1)] = 0
    assert ref.best_o(cells, 0) == 9
    cells[ref.square(1, 1)] = 1
    assert ref.best_o(cells, 0) == 8
    t_shape: list[int | None] = [None] * ref.SQUARES
    for f in range(5):
        t_shape[ref.square(10, f)] = 0
    for r in range(7, 10):
        t_shape[ref.square(r, 2)] = 0
    assert ref.best_l(t_shape, 0) == 3 + 4 - 1
