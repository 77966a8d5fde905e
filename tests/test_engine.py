"""The engine text interface: framing, every command, bad input, and the real subprocess."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olixono.engine import VERSION, EngineSession, Reply, run


def reply_to(session: EngineSession, line: str) -> Reply:
    """The reply to ``line``, a command (no blank or comment line)."""
    reply = session.handle(line)
    assert reply is not None, line
    return reply


def ask(session: EngineSession, line: str) -> str:
    return str(session.handle(line))


def test_reply_framing_with_and_without_ids():
    session = EngineSession()
    assert ask(session, "protocol_version") == "= 2\n\n"
    assert ask(session, "12 name") == "=12 olixono\n\n"
    assert ask(session, "3 frobnicate") == "?3 unknown command: frobnicate\n\n"
    assert ask(session, "new oxono") == "= \n\n"


def test_blank_and_comment_lines_get_no_reply_and_control_characters_are_dropped():
    session = EngineSession()
    assert session.handle("") is None
    assert session.handle("   # just a comment") is None
    assert ask(session, "na\x01me # trailing comment") == "= olixono\n\n"
    assert ask(session, "play\tOc6c5") == "= Oc6c5\n\n"


def test_list_and_known_commands():
    session = EngineSession()
    names = reply_to(session, "list_commands").text.split("\n")
    for name in [
        "new",
        "play",
        "undo",
        "legal",
        "perft",
        "outcome",
        "formations",
        "scoreboard",
        "position",
        "setposition",
        "show",
        "genmove",
        "end",
        "resign",
        "quit",
        "protocol_version",
        "list_commands",
    ]:
        assert name in names
    assert names == sorted(names)
    assert ask(session, "known_command legal") == "= true\n\n"
    assert ask(session, "known_command fly") == "= false\n\n"


def test_a_short_game_through_the_interface():
    session = EngineSession()
    legal = reply_to(session, "legal").text.split(" ")
    assert len(legal) == 68 and legal == sorted(legal)
    assert ask(session, "play oc6c5") == "= Oc6c5\n\n"
    assert ask(session, "position") == "= 6/2O3/6/6/6/6 black d3 c6\n\n"
    assert ask(session, "outcome") == "= none\n\n"
    assert ask(session, "undo") == "= Oc6c5\n\n"
    assert ask(session, "undo") == "? nothing to undo\n\n"
    assert ask(session, "perft 2") == "= 3612\n\n"


def test_bad_arguments_get_a_reason_and_change_nothing():
    session = EngineSession()
    reply_to(session, "play Oc6c5")
    before = ask(session, "position")
    for line, reason in [
        ("play", "usage: play MOVE"),
        ("play Xa1a2", "cannot reach a1"),
        ("play nonsense", "not an Oxono move"),
        ("perft -1", "perft depth"),
        ("perft 99", "perft depth"),
        ("new chess", "unknown game 'chess'"),
        ("setposition 6/6 pink", "invalid Oxono position"),
        ("setposition", "usage"),
        ("formations", "Olix command"),
        ("scoreboard", "Olix command"),
        ("end", "Olix command"),
        ("legal now", "usage: legal"),
    ]:
        reply = reply_to(session, line)
        assert not reply.ok and reason in reply.text, line
    assert ask(session, "position") == before


def test_setposition_outcome_and_game_over_commands():
    session = EngineSession()
    won = "2oOoX/1OOx2/1OXXxo/1OoOoX/1xxxOo/2O1o1 pink e5 f1"
    assert reply_to(session, f"setposition {won}").ok
    assert ask(session, "outcome") == "= black symbol\n\n"
    assert ask(session, "legal") == "= \n\n"
    assert not reply_to(session, "genmove").ok
    assert not reply_to(session, "resign").ok


def test_genmove_plays_a_legal_move_reproducibly():
    first, second = EngineSession(seed=4), EngineSession(seed=4)
    for _ in range(10):
        a, b = reply_to(first, "genmove"), reply_to(second, "genmove")
        assert a == b and a.ok
    assert len(first.board.move_stack) == 10


def test_resign_and_undo_of_the_resignation():
    session = EngineSession()
    assert ask(session, "resign") == "= black resigned\n\n"
    assert ask(session, "outcome") == "= black resigned\n\n"
    assert ask(session, "undo") == "= resigned\n\n"
    assert ask(session, "outcome") == "= none\n\n"


def test_show_is_several_lines_without_blank_lines():
    text = reply_to(EngineSession(), "show").text
    assert len(text.splitlines()) == 8 and "" not in text.splitlines()


def test_run_stops_at_quit():
    out: list[str] = []
    run(["name", "quit", "name"], out.append)
    assert out == ["= olixono\n\n", "= \n\n"]


def test_overlong_line_is_refused():
    assert not reply_to(EngineSession(), "play " + "a" * 10_000).ok


@settings(max_examples=300, deadline=None)
@given(line=st.text(max_size=60))
def test_no_line_makes_the_session_raise(line):
    session = EngineSession()
    reply = session.handle(line)
    assert reply is None or isinstance(reply, Reply)
    assert "\n\n" not in (reply.text if reply else "")


def test_engine_subprocess_end_to_end():
    script = "protocol_version\n1 play Oc6c5\n2 play Xa1a2\nlegal\n7 perft 1\noutcome\nbogus\nquit\n"
    proc = subprocess.run(
        [sys.executable, "-m", "client", "engine", "--seed", "3"],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    replies = proc.stdout.split("\n\n")
    assert replies[0] == "= 2"
    assert replies[1] == "=1 Oc6c5"
    assert replies[2].startswith("?2 illegal move 'Xa1a2'")
    assert replies[3].startswith("= ") and len(replies[3][2:].split(" ")) == int(replies[4][3:])
    assert replies[5] == "= none"
    assert replies[6] == "? unknown command: bogus"
    assert replies[7] == "= "
    assert replies[8] == ""


@pytest.mark.parametrize("argv", [["--help"], ["engine", "--help"], ["play", "--help"]])
def test_command_line_help(argv):
    proc = subprocess.run([sys.executable, "-m", "client", *argv], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "usage: olixono" in proc.stdout


def test_genmove_levels_budgets_and_analyze():
    session = EngineSession(seed=2)
    assert ask(session, "analyze") == "? nothing to analyze: no genmove yet\n\n"
    assert "analyze" in reply_to(session, "list_commands").text.split("\n")
    for line in ["genmove greedy", "genmove mcts 200", "genmove mcts 0.05s", "genmove random", "genmove"]:
        reply = reply_to(session, line)
        assert reply.ok, (line, reply.text)
    assert len(session.board.move_stack) == 5
    reply_to(session, "new olix")
    move = reply_to(session, "genmove mcts 300").text
    lines = reply_to(session, "analyze").text.split("\n")
    assert lines[0].startswith(f"mcts {move} iterations ") and lines[1].startswith(f"pv {move}")
    assert all(len(line.split()) in (3, 4) for line in lines[2:])
    for line, reason in [
        ("genmove genius", "unknown level"),
        ("genmove greedy 100", "takes no budget"),
        ("genmove mcts 0", "a budget is"),
        ("genmove mcts -5", "a budget is"),
        ("genmove mcts 1e9s", "a budget is"),
        ("genmove mcts 0s", "time budget"),
        ("genmove mcts 5 6", "usage: genmove"),
        ("analyze now", "usage: analyze"),
    ]:
        reply = reply_to(session, line)
        assert not reply.ok and reason in reply.text, line
    assert len(session.board.move_stack) == 1


def test_genmove_with_an_iteration_budget_replays_exactly():
    replies = []
    for _ in range(2):
        session = EngineSession(kind="olix", seed=7, level="mcts", iterations=150)
        moves = [reply_to(session, "genmove").text for _ in range(6)]
        analysis = reply_to(session, "analyze").text.split("\n")
        replies.append((moves, analysis[0].split(" seconds ")[0], analysis[1:]))  # all but the timing
    assert replies[0] == replies[1]


def test_session_level_and_budget_are_checked():
    with pytest.raises(ValueError, match="unknown level"):
        EngineSession(level="genius")
    with pytest.raises(ValueError, match="positive"):
        EngineSession(level="mcts", iterations=0)


def test_engine_subprocess_with_a_default_level():
    proc = subprocess.run(
        [sys.executable, "-m", "client", "engine", "--game", "olix", "--level", "greedy", "--seed", "1"],
        input="play f6\ngenmove\nanalyze\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    replies = proc.stdout.split("\n\n")
    assert replies[1].startswith("= ") and len(replies[1]) <= 5
    assert replies[2].startswith(f"= greedy {replies[1][2:]} iterations 0 ")


def test_the_version_is_written_once_and_the_package_metadata_reads_it():
    """``pyproject.toml`` holds no version of its own: setuptools reads the engine's (``version`` answers it)."""
    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "olixono.engine.VERSION"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    assert ask(EngineSession(), "version") == f"= {VERSION}\n\n"
