"""harness.figures: the nearest-rank percentile and the ``name: value`` lines the benchmarks print."""

from __future__ import annotations

import math

import pytest

from harness.figures import Results, figure_line, mean, median, percentile, print_figures, wilson


def test_percentile_takes_the_nearest_rank_without_interpolating():
    trips = [0.5, 0.1, 0.4, 0.2, 0.3]
    assert percentile(trips, 0.5) == 0.3
    assert percentile(trips, 0.99) == 0.5
    assert percentile(trips, 0.0) == 0.1


def test_percentile_of_nothing_is_nan():
    assert math.isnan(percentile([], 0.99))


@pytest.mark.parametrize(
    ("value", "digits", "line"),
    [
        (1.23456, 3, "x: 1.235"),
        (1.25, 1, "x: 1.2"),
        (7, 3, "x: 7"),
        (1.5, None, "x: 1.5"),
        ("4-0-1", 1, "x: 4-0-1"),
        (float("nan"), 1, "x: nan"),
    ],
)
def test_a_figure_line_rounds_floats_only(value, digits, line):
    assert figure_line("x", value, digits) == line


def test_figures_print_one_line_each_with_their_prefix(capsys):
    print_figures([("move_p50_ms", 2.0), ("moves", 200)], digits=3, prefix="embedded_")
    assert capsys.readouterr().out == "embedded_move_p50_ms: 2.000\nembedded_moves: 200\n"


def test_the_median_of_an_even_count_is_the_mean_of_the_middle_two_and_of_nothing_nan():
    assert median([0.4, 0.1, 0.3]) == 0.3
    assert median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert math.isnan(median([]))


def test_the_mean_of_nothing_is_nan():
    assert mean([1.0, 2.0, 4.0]) == 7 / 3
    assert math.isnan(mean([]))


def test_results_count_from_one_side_and_score_a_draw_as_half():
    results = Results()
    for winner in ("pink", "pink", None, "black"):
        results.count(winner, "pink")
    assert (results.games, results.wdl(), results.score(), results.win_rate()) == (4, "2-1-1", 0.625, 0.5)


def test_the_wilson_interval_holds_the_rate_and_stays_within_zero_and_one():
    low, high = wilson(0.5, 20)
    assert low < 0.5 < high and round(low, 3) == 0.299 and round(high, 3) == 0.701
    assert wilson(1.0, 10)[1] == 1.0 and wilson(0.0, 10)[0] == 0.0
    assert wilson(0.3, 0) == (0.0, 1.0)


def test_a_figure_may_give_its_own_digits(capsys):
    print_figures([("a_s", 0.12345, 3), ("b_per_s", 1234.5678, 0), ("c", 1.25)], digits=1)
    assert capsys.readouterr().out == "a_s: 0.123\nb_per_s: 1235\nc: 1.2\n"
