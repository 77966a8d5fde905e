"""The levels a person chooses (easy, normal, hard): ordered over fixed-seed games, the easy bot's mistakes, the flags
that choose them; and ``hint``, in local play only (refused in a network game, with the sentence that says why)."""

from __future__ import annotations

import asyncio
import random
from types import SimpleNamespace

import pytest
from protocol_helpers import start

from client.cli import build_parser
from client.cores.local_game import LocalCore
from client.cores.network_game import GameCore
from client.frontends.local_plain import play_local
from client.words.commands import NO_HINT, command_names, handle_typed, parse
from olixono.bots import (
    BOTS,
    PEOPLE_LEVELS,
    ErringBot,
    MctsBot,
    bot_for,
    make_bot,
    winning_moves,
    within,
)
from olixono.games import new_board
from olixono.oxono import OxonoBoard

OXONO_WIN = "x1o1x1/6/6/6/6/XOX3 pink d3 c4"
"""Pink to move wins at once with Xd2d1."""
SCALE = 40
"""The ordering test plays each level at a fortieth of its iterations (hard 500, normal 50, easy 7 and its
mistakes): a few seconds; ``bench/levels.py`` measures the levels themselves (docs/levels.md)."""


def scaled(name: str, seed: int):
    return bot_for(name, seed=seed, iterations=max(1, PEOPLE_LEVELS[name].iterations // SCALE))


def score(weaker: str, stronger: str, games: int = 6) -> float:
    """``weaker``'s score against ``stronger`` over ``games`` Oxono games, seats swapped each game, fixed seeds."""
    points = 0.0
    for game in range(games):
        bots = {"weaker": scaled(weaker, 100 + game), "stronger": scaled(stronger, 200 + game)}
        board = new_board("oxono")
        seat = {board.PLAYERS[game % 2]: "weaker", board.PLAYERS[1 - game % 2]: "stronger"}
        while board.outcome() is None:
            board.push(bots[seat[board.turn]].choose(board))
        outcome = board.outcome()
        assert outcome is not None
        winner = outcome.winner
        points += 0.5 if winner is None else float(seat[winner] == "weaker")
    return points / games


def test_the_levels_are_ordered():
    assert list(PEOPLE_LEVELS) == ["easy", "normal", "hard"]
    assert score("easy", "normal") < 0.5
    assert score("normal", "hard") < 0.5


def test_the_levels_are_bots_and_budgets():
    easy, normal, hard = (bot_for(name, seed=1) for name in PEOPLE_LEVELS)
    assert isinstance(easy, ErringBot) and easy.mistakes > 0 and easy.wins_taken == 0.5
    assert isinstance(easy.inner, MctsBot) and easy.inner.iterations == 300
    assert isinstance(normal, MctsBot) and (normal.iterations, normal.seconds) == (2_000, None)
    assert isinstance(hard, MctsBot) and (hard.iterations, hard.seconds) == (20_000, 5.0)
    assert [bot.level for bot in (easy, normal, hard)] == ["easy", "normal", "hard"]
    mine = bot_for("hard", seed=1, seconds=2.0)  # a budget given replaces the level's
    assert isinstance(mine, MctsBot) and (mine.iterations, mine.seconds) == (None, 2.0)
    assert isinstance(bot_for("easy", seed=1, iterations=50), ErringBot)  # and the mistakes stay
    assert type(bot_for("greedy", seed=1)) is type(make_bot("greedy", seed=1))  # the bots by name, as they were
    with pytest.raises(ValueError, match="unknown bot level 'genius': expected one of easy, normal, hard, random"):
        bot_for("genius")


def test_a_clocks_budget_reaches_the_search_inside_the_easy_bot():
    easy = within(bot_for("easy", seed=1), 0.5)
    assert isinstance(easy, ErringBot) and isinstance(easy.inner, MctsBot) and easy.inner.seconds == 0.5


def test_the_easy_bot_takes_a_win_in_one_half_the_time():
    board = OxonoBoard.from_position(OXONO_WIN)
    taken = sum(bot_for("easy", seed=seed).choose(board).text() == "Xd2d1" for seed in range(200))
    assert 80 <= taken <= 120
    assert winning_moves(board) == [board.parse_move("Xd2d1")] and board.position() == OXONO_WIN


def test_the_easy_bot_errs_one_move_in_five_and_says_so():
    rng = random.Random(3)
    board, errs, moves = new_board("oxono"), 0, 0
    for seed in range(150):
        if board.outcome() is not None or len(board.move_stack) > 12:
            board = new_board("oxono")
        if winning_moves(board):
            board.push(board.random_move(rng))
            continue
        bot = bot_for("easy", seed=seed, iterations=30)
        move = bot.choose(board)
        assert board.is_legal(move) and bot.analysis is not None and bot.analysis.level == "easy"
        errs += not bot.analysis.candidates  # a move drawn at random was weighed against nothing
        moves += 1
        board.push(board.random_move(rng))
    assert 0.1 < errs / moves < 0.3, (errs, moves)


# -- the flags -------------------------------------------------------------------------------------------------------


def test_a_level_is_chosen_wherever_a_bot_is():
    parser = build_parser()
    play = parser.parse_args(["play", "oxono", "--level", "easy"])
    assert play.level == "easy" and play.vs is None
    assert parser.parse_args(["play", "oxono", "--vs", "hard"]).vs == "hard"  # the same words after --vs
    assert parser.parse_args(["play", "oxono", "--vs", "mcts", "--iterations", "50"]).iterations == 50
    for command in (["host", "oxono"], ["join", "g"], ["resume", "g"]):
        assert parser.parse_args([*command, "--level", "normal"]).level == "normal"
        assert parser.parse_args([*command, "--bot", "easy"]).bot == "easy"
        assert parser.parse_args([*command, "--bot", "greedy"]).bot == "greedy"
    assert set(BOTS) == {"easy", "normal", "hard", "random", "greedy", "mcts"}


@pytest.mark.parametrize(
    "wrong",
    [
        ["play", "oxono", "--level", "easy", "--vs", "mcts"],
        ["host", "oxono", "--level", "easy", "--bot", "mcts"],
        ["play", "oxono", "--level", "genius"],
    ],
)
def test_a_level_and_another_bot_at_once_is_a_usage_error(wrong, capsys):
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(wrong)
    error = capsys.readouterr().err
    assert exited.value.code == 2 and ("not allowed with" in error or "invalid choice: 'genius'" in error)


def test_playing_a_level_at_the_prompt_names_it():
    out: list[str] = []
    typed = iter(["Oc6c5", "quit"])
    play_local("oxono", vs="easy", seed=1, iterations=30, read=lambda prompt: next(typed), write=out.append)
    assert any(line.startswith("easy plays ") for line in out)


# -- hint: local play only -------------------------------------------------------------------------------------------


def test_hint_gives_the_searchs_move_in_local_play():
    from client.cores.local_game import search_for_hint
    from client.words.board import hint_text

    board = OxonoBoard.from_position(OXONO_WIN)
    assert hint_text(board, search_for_hint(board)) == "hint: Xd2d1 wins at once"
    out: list[str] = []
    typed = iter(["hint", "quit"])
    play_local("oxono", vs="random", read=lambda prompt: next(typed), write=out.append)
    hint = next(line for line in out if line.startswith("hint: "))
    assert "(the search expects " in hint and "; for pink the position is " in hint
    assert "hint" in command_names(LocalCore("olix")) and "hint" in command_names(LocalCore("olix", vs="easy"))


def test_no_hint_while_the_bot_thinks_or_once_the_game_is_over():
    from client.cores.intents import Intent, IntentRefused

    core = LocalCore("oxono", vs="random", human="black")  # the bot moves first
    with pytest.raises(IntentRefused, match="no hint while random is thinking"):
        _ = core.hint_thought
    core.act(Intent("resign"))
    with pytest.raises(IntentRefused, match="the game is over"):
        _ = core.hint_thought


def test_hint_is_refused_in_a_network_game_with_the_sentence_that_says_why():
    host, guest = start("oxono")
    for core in (GameCore(host), GameCore(guest), GameCore(host, watching=True)):
        assert "hint" not in command_names(core)
        for typed in ("hint", "/hint", "HINT"):
            assert parse(typed, core).problem == NO_HINT
    said: list[str] = []

    class Seat:
        core = GameCore(host)

        async def act(self, intent) -> None:
            raise AssertionError(f"nothing is asked of the game: {intent}")

    assert asyncio.run(handle_typed(Seat(), "hint", said.append)) is True
    assert said == [f"error: {NO_HINT}"]
    assert "no engine may help a player" in NO_HINT


def test_the_network_screen_refuses_hint_with_the_same_sentence():
    from client.frontends.network_screen import NetworkTable

    host, _ = start("olix")
    for watching in (False, True):
        runner = SimpleNamespace(core=GameCore(host, watching=watching), link=SimpleNamespace(connected=None))
        table = NetworkTable(runner)  # type: ignore[arg-type]
        assert table.refused["hint"] == NO_HINT and "hint" not in table.commands


async def test_hint_on_the_full_screen_thinks_while_the_screen_stays_live(tmp_path):
    from prompt_toolkit.input import create_pipe_input
    from test_client_screen import Terminal, wait_for

    from client.frontends.local_screen import LocalTable
    from client.frontends.screen import run_screen

    table = LocalTable("oxono", vs="easy", seed=1, iterations=30)
    terminal = Terminal()
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(
            run_screen(table, input=pipe, output=terminal.output(), log_file=tmp_path / "client.log")
        )
        await wait_for(terminal, "your move> ")
        pipe.send_text("/hint\r")
        await wait_for(terminal, "thinking about a hint...")
        await wait_for(terminal, "(the search expects ")
        assert "/hint" in table.help()
        pipe.send_text("/quit\r")
        assert await screen == 0


@pytest.mark.slow  # a benchmark's script, not the product: CI may skip it
def test_the_levels_round_robin_prints_its_table_and_figures():
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run(
        [
            sys.executable,
            "bench/levels.py",
            "--games",
            "2",
            "--game",
            "oxono",
            "--pairs",
            "easy-normal,greedy-easy",
            "--scale",
            "0.01",
        ],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = dict(line.split(": ", 1) for line in done.stdout.splitlines() if line.startswith("oxono_"))
    assert set(figures) == {
        "oxono_easy_vs_normal_score",
        "oxono_easy_vs_normal_wdl",
        "oxono_greedy_vs_easy_score",
        "oxono_greedy_vs_easy_wdl",
    }
    assert sum(map(int, figures["oxono_greedy_vs_easy_wdl"].split("-"))) == 2
