"""``olixono play``: the local game loop, driven by scripted input."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from engine_helpers import outcome_of

from client.frontends.local_plain import play_local
from olixono.common import EndReason, Outcome
from olixono.oxono import OxonoBoard


class Script:
    """Feeds lines to the loop like a person at the prompt; EOF after the last."""

    def __init__(self, lines: list[str]) -> None:
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


def winning_line(seed: int) -> tuple[list[str], Outcome]:
    """The moves of a seeded random game, to replay at the prompt."""
    board, rng = OxonoBoard(), random.Random(seed)
    while board.outcome() is None:
        board.play(rng.choice(board.legal_moves()))
    return [m.text() for m in board.move_stack], outcome_of(board)


def test_two_people_play_a_game_to_its_end():
    moves, expected = winning_line(3)
    outcome, text, script = run_game([m.lower() for m in moves])
    assert outcome == expected
    assert f"Game over: {expected.sentence(('pink', 'black'))}." in text
    assert script.prompts[:2] == ["pink> ", "black> "]


def test_bad_input_gets_a_clear_message_and_changes_nothing():
    outcome, text, _ = run_game(["Oc6c5", "hello", "Xa1a2", "", "undo", "undo", "legal", "help", "quit"])
    assert outcome is None
    assert "error: not a move or a command: 'hello' (e.g. Oc6c5" in text  # the sentences of every front end
    assert "error: illegal: totem X on d3 cannot reach a1" in text
    assert "took back 1 move" in text and "error: nothing to undo" in text
    assert "Oa4a3" in text  # the legal list at the start, after the undo
    assert "resign" in text and "quit" in text  # the help text


def test_resign_ends_the_game():
    outcome, text, _ = run_game(["Oc6c5", "resign"])
    assert outcome.winner == "pink" and outcome.reason == "resigned"
    assert "Game over: pink wins by black's resignation." in text  # black, to move, resigned


def test_end_of_input_leaves_quietly():
    outcome, _, _ = run_game([])
    assert outcome is None


@pytest.mark.parametrize("seat", ["pink", "black"])
def test_against_the_random_player(seat):
    """The person answers each prompt with the first legal move of a mirror board."""
    mirror, out, seen = OxonoBoard(), list[str](), [0]

    def catch_up():
        for line in out[seen[0] :]:
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
        input="Oc6c5\nbogus\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "random plays" in proc.stdout and "error: not a move or a command: 'bogus'" in proc.stdout


@pytest.mark.parametrize("level", ["greedy", "mcts"])
def test_against_the_stronger_bots(level):
    """The person plays the first legal move every time; the bot finishes the game."""
    mirror, out, seen = OxonoBoard(), list[str](), [0]

    def read(prompt):
        for line in out[seen[0] :]:
            if line.startswith(f"{level} plays "):
                mirror.play(line.split()[-1])
        seen[0] = len(out)
        move = sorted(m.text() for m in mirror.legal_moves())[0]
        mirror.play(move)
        return move

    outcome = play_local(
        "oxono", vs=level, seed=3, iterations=200 if level == "mcts" else None, read=read, write=out.append
    )
    assert outcome is not None and outcome.winner == "black"  # the bot, against a careless person


def test_play_command_against_mcts_with_a_time_budget():
    proc = subprocess.run(
        [sys.executable, "-m", "client", "play", "olix", "--vs", "mcts", "--seconds", "0.2", "--as", "second"],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "mcts plays f6" in proc.stdout


@pytest.mark.parametrize(
    "outcome, players, sentence",
    [
        (Outcome("black", EndReason.RESIGNED), ("pink", "black"), "black wins by pink's resignation"),
        (Outcome("pink", EndReason.COLOUR), ("pink", "black"), "pink wins: four in a row of one colour"),
        (Outcome(None, EndReason.EXHAUSTED), ("pink", "black"), "draw: all 32 pawns are placed"),
        (
            Outcome("first", EndReason.AGREED, markers=True),
            ("first", "second"),
            "first wins on markers after the game was ended by agreement",
        ),
        (
            Outcome(None, EndReason.AGREED, markers=True),
            ("first", "second"),
            "draw on markers after the game was ended by agreement",
        ),
        (Outcome(None, EndReason.AGREED), ("pink", "black"), "draw by agreement"),
        (
            Outcome("second", EndReason.SETTLED, markers=True),
            ("first", "second"),
            "second wins on markers: no marker can change any more",
        ),
        (
            Outcome("first", EndReason.FORMATION),
            ("first", "second"),
            "first wins: a formation beyond the top of its track",
        ),
    ],
)
def test_a_result_says_who_won_and_why(outcome, players, sentence):
    assert outcome.sentence(players) == sentence


# -- the core of a game at one terminal: intents in, steps out, as a network game's core --------------------------
def test_the_local_core_refuses_with_one_sentence_and_changes_nothing():
    from client.cores.intents import Intent, IntentRefused
    from client.cores.local_game import LocalCore

    core = LocalCore("oxono", vs="random", human="black", seed=1)  # the bot moves first
    before = core.board.position()
    for intent, sentence in [
        (Intent("move", "Oc6c5"), "it is not your turn: random is thinking"),
        (Intent("undo"), "wait for random's move, then undo"),
        (Intent("propose"), "wait for random's move, then propose"),
        (Intent("chat", "hi"), "chat is for a network game"),
        (Intent("abort"), "abort is for a network game"),
    ]:
        with pytest.raises(IntentRefused, match=sentence):
            core.act(intent)
    assert core.board.position() == before and core.bot_to_move


def test_the_bots_move_comes_back_through_the_core_and_a_stale_one_is_dropped():
    from client.cores.intents import Intent
    from client.cores.local_game import LocalCore, Played, TookBack

    core = LocalCore("olix", vs="random", human="second", seed=4)
    choose, position, plies = core.thought
    move = choose(position)
    step = core.bot_played(move, plies)
    assert step.events == (Played("first", move.text(), bot=True),) and core.my_turn
    assert core.bot_played(move, plies).events == ()  # the game went on: that thought is dropped
    mine = core.board.legal_moves()[0].text()
    assert core.act(Intent("move", mine)).events == (Played("second", mine),)
    choose, position, plies = core.thought
    core.bot_played(choose(position), plies)
    assert core.act(Intent("undo")).events == (TookBack(2),) and len(core.board.move_stack) == 1


def test_a_proposal_to_end_is_put_to_the_bot_and_two_people_agree_at_once():
    from client.cores.intents import Intent
    from client.cores.local_game import Answered, Ended, LocalCore

    core = LocalCore("olix", vs="random", seed=2)
    step = core.act(Intent("propose"))
    assert step.ask_bot and step.events == () and not core.over
    assert core.answer(False).events == (Answered(False),) and not core.over
    agreed = core.answer(True).events
    assert agreed[0] == Answered(True) and isinstance(agreed[1], Ended) and agreed[1].outcome.reason == "agreed"
    pair = LocalCore("oxono")  # two people: both are here, so proposing is agreeing; an Oxono agreement is a draw
    ended = pair.act(Intent("propose")).events
    assert len(ended) == 1 and isinstance(ended[0], Ended) and ended[0].outcome.winner is None and pair.over


def test_a_network_game_refuses_undo_and_names_the_takeback():
    from protocol_helpers import start

    from client.cores.intents import Intent, IntentRefused
    from client.cores.network_game import GameCore

    host, _ = start("oxono")
    with pytest.raises(IntentRefused, match="ask your opponent to take one back with takeback"):
        GameCore(host).act(Intent("undo"))


# -- one vocabulary: every command listed once, typed with or without /, in every front end ------------------------
@pytest.mark.parametrize("kind", ["oxono", "olix"])
def test_every_command_of_the_help_can_be_typed_and_completed(kind):
    from client.cores.local_game import LocalCore
    from client.words.commands import command_names, completions, help_rows, parse

    for core in (LocalCore(kind), LocalCore(kind, vs="random")):
        names = command_names(core)
        rows = help_rows(core)
        assert len(rows) == len(names) == len(set(names))  # each once
        for name, row in zip(names, rows, strict=True):
            assert row.split()[0] == name
            for typed in (name, f"/{name}", name.upper()):
                parsed = parse(typed, core)
                assert parsed.problem is None and (parsed.intent is not None or parsed.local == name), typed
            assert name in completions(core, name[:1])
        assert ("formations" in names) == (kind == "olix") and ("draw" in names) == (kind == "oxono")
        assert "say" not in names and "undo" in names


def test_the_line_loop_and_the_screen_say_the_same_sentence():
    import asyncio

    from client.frontends.local_screen import LocalTable

    table, said = LocalTable("oxono"), list[str]()
    asyncio.run(table.move("hello", said.append))
    _, text, _ = run_game(["hello", "quit"])
    assert said and said[0] in text.splitlines()


def test_an_unknown_game_is_named_among_the_games_in_plain_words(capsys):
    from client.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "chess"])
    assert "(choose from 'olix', 'oxono')" in capsys.readouterr().err


def test_the_vocabulary_answers_before_a_network_games_offer_has_come():
    from protocol_helpers import HOST

    from client.cores.network_game import GameCore
    from client.words.commands import command_names, completions, help_text, parse
    from protocol import GameSession

    core = GameCore(GameSession("A" * 21 + "A", HOST))  # no offer yet: its kind is not known
    names = command_names(core)
    assert "resign" in names and "draw" not in names and "end" not in names and "formations" not in names
    assert "Oxono" in help_text(core) or "oxono" in help_text(core)
    assert parse("legal", core).local == "legal" and "not a move or a command" in (parse("zz", core).problem or "")
    assert "resign" in completions(core, "r")


def test_the_tables_own_name_for_the_end_word_cannot_be_typed():
    from client.cores.local_game import LocalCore
    from client.words.commands import END, parse

    for typed in (END, f"/{END}", END.upper()):
        assert parse(typed, LocalCore("olix")).intent is None


def test_the_bots_yes_comes_to_nothing_once_the_game_ended_meanwhile():
    from client.cores.intents import Intent
    from client.cores.local_game import LocalCore

    core = LocalCore("olix", vs="random", seed=2)
    assert core.act(Intent("propose")).ask_bot
    core.act(Intent("resign"))  # while the bot thought
    assert core.answer(True).events == () and core.outcome is not None and core.outcome.reason == "resigned"
