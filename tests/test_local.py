"""``olixono play``: the local game loop, driven by scripted input."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from client.local import play_local
from olixono.common import Outcome
from olixono.oxono import OxonoBoard


class Script:
    """Feeds lines to the loop like a person at the prompt; EOF after the last."""

    def __init__(self, lines):
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


def run_game(lines, **options):
    out: list[str] = []
    script = Script(lines)
    outcome = play_local("oxono", read=script, write=out.append, **options)
    return outcome, "\n".join(out), script


def winning_line(seed: int) -> list[str]:
    """The moves of a seeded random game, to replay at the prompt."""
    board, rng = OxonoBoard(), random.Random(seed)
    while board.outcome() is None:
        board.play(rng.choice(board.legal_moves()))
    return [m.text() for m in board.move_stack], board.outcome()


def test_two_people_play_a_game_to_its_end():
    moves, expected = winning_line(3)
    outcome, text, script = run_game([m.lower() for m in moves])
    assert outcome == expected
    assert f"Game over: {expected.sentence(('pink', 'black'))}." in text
    assert script.prompts[:2] == ["pink> ", "black> "]


def test_bad_input_gets_a_clear_message_and_changes_nothing():
    outcome, text, _ = run_game(["Oc6c5", "hello", "Xa1a2", "", "undo", "undo", "legal", "help", "quit"])
    assert outcome is None
    assert "Not a move: 'hello'" in text
    assert "Illegal: totem X on d3 cannot reach a1." in text
    assert "Nothing to undo." in text
    assert "Oa4a3" in text  # the legal list at the start, after the undo
    assert "resign" in text and "quit" in text  # the help text


def test_resign_ends_the_game():
    outcome, text, _ = run_game(["Oc6c5", "resign"])
    assert outcome.winner == "pink" and outcome.reason == "resigned"
    assert "Game over: pink wins: black resigned." in text  # black, to move, resigned


def test_end_of_input_leaves_quietly():
    outcome, _, _ = run_game([])
    assert outcome is None


@pytest.mark.parametrize("seat", ["pink", "black"])
def test_against_the_random_player(seat):
    """The person answers each prompt with the first legal move of a mirror board."""
    mirror, out, seen = OxonoBoard(), [], [0]

    def catch_up():
        for line in out[seen[0]:]:
            if line.startswith("random plays "):
                mirror.play(line.split()[-1])
        seen[0] = len(out)

    def read(prompt):
        catch_up()
        assert prompt == f"{seat}> " == f"{mirror.turn}> "
        move = sorted(m.text() for m in mirror.legal_moves())[0]
        mirror.play(move)
        return move

    outcome = play_local("oxono", vs="random", human=seat, seed=1, read=read, write=out.append)
    catch_up()
    assert outcome is not None and outcome == mirror.outcome()
    assert any(line.startswith("random plays ") for line in out)


def test_unknown_seat_or_opponent_is_refused():
    with pytest.raises(ValueError, match="unknown seat"):
        play_local("oxono", vs="random", human="first", read=Script([]), write=print)
    with pytest.raises(ValueError, match="unknown opponent"):
        play_local("oxono", vs="genius", read=Script([]), write=print)


def test_play_command_in_a_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "client", "play", "oxono", "--vs", "random", "--seed", "2"],
        input="Oc6c5\nbogus\nquit\n", capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "random plays" in proc.stdout and "Not a move: 'bogus'" in proc.stdout


@pytest.mark.parametrize("level", ["greedy", "mcts"])
def test_against_the_stronger_bots(level):
    """The person plays the first legal move every time; the bot finishes the game."""
    mirror, out, seen = OxonoBoard(), [], [0]

    def read(prompt):
        for line in out[seen[0]:]:
            if line.startswith(f"{level} plays "):
                mirror.play(line.split()[-1])
        seen[0] = len(out)
        move = sorted(m.text() for m in mirror.legal_moves())[0]
        mirror.play(move)
        return move

    outcome = play_local("oxono", vs=level, seed=3, iterations=200 if level == "mcts" else None,
                         read=read, write=out.append)
    assert outcome is not None and outcome.winner == "black"  # the bot, against a careless person


def test_play_command_against_mcts_with_a_time_budget():
    proc = subprocess.run(
        [sys.executable, "-m", "client", "play", "olix", "--vs", "mcts", "--seconds", "0.2", "--as", "second"],
        input="quit\n", capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "mcts plays f6" in proc.stdout


@pytest.mark.parametrize("outcome, players, sentence", [
    (Outcome("black", "resigned"), ("pink", "black"), "black wins: pink resigned"),
    (Outcome("pink", "colour"), ("pink", "black"), "pink wins: four in a row of one colour"),
    (Outcome(None, "exhausted"), ("pink", "black"), "draw: all 32 pawns are placed"),
    (Outcome("first", "agreed"), ("first", "second"), "first wins on markers after the game was ended by agreement"),
    (Outcome(None, "agreed"), ("first", "second"), "draw on markers after the game was ended by agreement"),
    (Outcome("second", "settled"), ("first", "second"), "second wins on markers: no marker can change any more"),
    (Outcome("first", "formation"), ("first", "second"), "first wins: a formation beyond the top of its track"),
])
def test_a_result_says_who_won_and_why(outcome, players, sentence):
    assert outcome.sentence(players) == sentence
