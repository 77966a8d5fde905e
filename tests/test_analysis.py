"""The analysis of a game (``olixono/analysis.py``) and its front ends: ``olixono analyze`` (words, ``--json``, exit
statuses, the progress bar on a terminal only) and the replay's analysis (``--analyze``, the key a, in the background).

The planted game (``tests/golden/oxono_planted_blunder.txt``, written by ``scripts/regenerate_golden.py`` from
:func:`planted_game`) is a signed game with two mistakes put in on purpose: a win in one not taken, then a move that
throws a won position away by handing the opponent a win in one, which the opponent takes.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import random
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from protocol_helpers import board_of, full_game, identity_of, mover, playable, result_of, start

from client.flows.analyze import analyse_session, progress_bar, report
from client.flows.verify import load
from olixono.analysis import (
    MISS_DROP,
    WON_VALUE,
    Budget,
    Evaluation,
    GameAnalysis,
    Mark,
    Ply,
    Standing,
    analyse,
    boards_of,
    evaluate,
)
from olixono.bots import winning_moves
from olixono.games import new_board
from protocol import GameSession

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"
PLANTED = GOLDEN / "oxono_planted_blunder.txt"
PLANTED_SEED = 4
FAST = Budget(300)


def loaded(path: str) -> tuple[str, GameSession]:
    """The summary and the session of the record at ``path`` (a record that loads)."""
    _, summary, session = load(path)
    assert session is not None, summary
    return summary, session


def planted_game(seed: int = PLANTED_SEED) -> tuple[list[str], int, int]:
    """A signed Oxono game (the fixed keys of ``protocol_helpers``) and its two planted mistakes' ply numbers: at the
    first win in one, a move that neither wins nor hands the opponent a win in one (the missed win); at the next, a
    move after which the opponent can win at once (the blunder), which the opponent does. Every other move is drawn
    at random among those that hand the opponent no win in one, and every other win in one is taken."""
    host, guest = start("oxono")
    rng = random.Random(seed)
    missed = blunder = 0
    while not host.over:
        mine, theirs = mover(host, guest)
        board = board_of(mine).copy()
        ply = len(board.move_stack) + 1
        wins = winning_moves(board)

        others = [move for move in board.legal_moves() if move not in wins]
        quiet = [move for move in others if not hands_a_win(board, move)]
        if wins and not missed and quiet:
            move, missed = rng.choice(quiet), ply
        elif wins and missed and not blunder and len(quiet) < len(others):
            move, blunder = rng.choice([move for move in others if move not in quiet]), ply
        elif wins:
            move = wins[0]
        else:
            move = rng.choice(quiet or board.legal_moves())
        theirs.receive(mine.move(move.text()).line)
    assert missed and blunder, "this seed plants no mistake: choose another"
    return list(host.transcript), missed, blunder


def hands_a_win(board, move) -> bool:
    """Whether the opponent can win at once after ``move`` (``board`` is left as it was)."""
    board.push(move)
    handed = bool(winning_moves(board))
    board.pop()
    return handed


def planted_text() -> str:
    return "\n".join(planted_game()[0]) + "\n"


@pytest.fixture
def olixono(capsys, monkeypatch):
    """``olixono ARGS`` run in this process (``client.cli.main``, stdin not a terminal): its exit status, stdout and
    stderr, as a subprocess would give them."""
    import io
    import signal

    from client.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO())
    monkeypatch.setattr(signal, "signal", lambda *args: None)  # the command's own Ctrl-C: not the test run's

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        status = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, status, out, err)

    return run


def write(tmp_path: Path, lines, name: str = "game.txt") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


# -- the planted game ------------------------------------------------------------------------------------------------


def test_the_planted_game_is_the_golden_one():
    assert PLANTED.read_text() == planted_text(), (
        f"{PLANTED.name} differs (scripts/regenerate_golden.py writes it, for a meant change)"
    )


def test_the_analysis_marks_the_planted_blunder_and_the_missed_win_in_one():
    _, missed, blunder = planted_game()
    status, _, session = load(str(PLANTED))
    assert status == 0 and session is not None
    analysis = analyse_session(session, FAST, 0)
    plies = analysis.plies
    assert len(plies) == blunder + 1  # the opponent took the win it was handed
    thrown = plies[blunder - 1]
    assert thrown.mark is Mark.BLUNDER
    assert thrown.before == Evaluation.proof(Standing.WON) and thrown.after == Evaluation.proof(Standing.LOST)
    assert thrown.missed_win_in_one and thrown.best in thrown.wins_in_one
    assert plies[missed - 1].mark is not None  # a win in one not taken is marked, a blunder or a missed win
    # every other win in one was taken: the planted two are the only ones flagged
    assert [ply.number for ply in plies if ply.missed_win_in_one] == [missed, blunder]
    summary = analysis.summary(thrown.player)
    assert summary.blunders >= 1 and summary.missed_wins_in_one == 2


def test_olixono_analyze_prints_every_move_its_marks_and_a_summary_per_player(olixono):
    _, missed, blunder = planted_game()
    done = olixono("analyze", str(PLANTED), "--iterations", "300")
    assert done.returncode == 0, done.stderr
    assert not done.stderr  # no terminal: no progress bar
    lines = done.stdout.splitlines()
    assert lines[0].startswith("oxono game ") and "finished after" in lines[0]  # verify's summary first
    assert lines[1].startswith("analysis: 300 iterations a position, seed 0;")
    rows = {int(line.split()[0]): line for line in lines if line[:4].strip().isdigit()}
    assert sorted(rows) == list(range(1, blunder + 2))
    assert "blunder (win in one: " in rows[blunder]
    assert "(win in one: " in rows[missed]
    assert "+1.00 won (proof)" in rows[blunder] and "-1.00 lost (proof)" in rows[blunder]
    players = [line.split(":")[0] for line in lines[-2:]]
    assert players == ["pink", "black"] and all("in one not taken, mean loss" in line for line in lines[-2:])


def test_the_json_form_round_trips_and_matches_the_analysis_in_process(olixono):
    summary, session = loaded(str(PLANTED))
    done = olixono("analyze", str(PLANTED), "--json", "--iterations", "300", "--seed", "5")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    analysis = GameAnalysis.from_json(document)
    assert analysis == analyse_session(session, FAST, 5)  # an iteration budget: the same on any machine
    assert document["game"] == {
        "id": session.game_id,
        "verified": summary,
        "seats": {p: key.fingerprint for p, key in session.seats.items()},
        "result": result_of(session).sentence(),
    }
    assert {key: value for key, value in document.items() if key != "game"} == analysis.to_json()
    first = document["plies"][0]
    assert set(first) == {
        "ply",
        "player",
        "move",
        "best",
        "before",
        "after",
        "loss",
        "mark",
        "wins_in_one",
        "missed_win_in_one",
    }
    assert document["schema"] == "olixono-analysis/1" and document["won_value"] == WON_VALUE
    assert document["summary"]["black"]["missed_wins_in_one"] == 2
    with pytest.raises(ValueError, match="schema"):
        GameAnalysis.from_json({**document, "schema": "olixono-analysis/0"})


# -- exit statuses ---------------------------------------------------------------------------------------------------


def test_a_bad_file_gets_verifys_errors_and_exit_statuses(tmp_path, olixono):
    host, _ = full_game("oxono", 3)
    lines = list(host.transcript)
    lines[5] = lines[5].replace("seq=5", "seq=6")
    bad = write(tmp_path, lines)
    verified, analysed = olixono("verify", str(bad)), olixono("analyze", str(bad))
    assert analysed.returncode == verified.returncode == 1
    assert analysed.stderr == verified.stderr and not analysed.stdout
    missing = olixono("analyze", str(tmp_path / "nothing.txt"))
    assert missing.returncode == 1 and missing.stderr.startswith("olixono analyze: cannot read ")


@pytest.mark.parametrize("wrong", [["--iterations", "0"], ["--seconds", "-1"], ["--iterations", "many"]])
def test_a_bad_budget_is_a_usage_error(wrong, capsys):
    from client.cli import build_parser

    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["analyze", "game.txt", *wrong])
    error = capsys.readouterr().err
    assert exited.value.code == 2 and ("must be a positive" in error or "invalid" in error)


def test_an_unfinished_game_is_analysed_and_exits_3_as_verify_does(tmp_path, olixono):
    host, guest = start("olix")
    for square in ("f6", "f7", "g6"):
        mine, theirs = mover(host, guest)
        theirs.receive(mine.move(square).line)
    done = olixono("analyze", str(write(tmp_path, host.transcript)), "--iterations", "100")
    assert done.returncode == 3, done.stderr
    assert "NOT FINISHED" in done.stdout and "after the last move, second to move: " in done.stdout
    assert "   3  first  g6 " in done.stdout


def test_a_record_with_a_proof_is_analysed_and_exits_4(tmp_path, olixono):
    from protocol import GameSession

    host, guest = full_game("oxono", 3)
    last = host.chain[-2]
    signer = identity_of(guest) if last.signer == identity_of(guest).public else identity_of(host)
    twin = GameSession.restore([m.line for m in host.chain[: last.seq]], signer)
    forged = twin.move(next(m for m in playable(twin) if m != last.value("move"))).line
    spectator = GameSession.restore([*host.transcript, forged])
    done = olixono("analyze", str(write(tmp_path, spectator.record)), "--iterations", "100")
    assert done.returncode == 4, done.stderr
    assert "PROOF:" in done.stdout and "mean loss" in done.stdout


# -- the progress bar ------------------------------------------------------------------------------------------------


def test_the_progress_bar_shows_on_a_terminal_only(tmp_path):
    import io

    assert progress_bar(io.StringIO()) is None  # a file or a pipe: no bar at all
    game = write(tmp_path, full_game("oxono", 3)[0].transcript)
    primary, secondary = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "client", "analyze", str(game), "--iterations", "50"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=secondary,
        )
        os.close(secondary)
        seen = b""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 1)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the terminal's other side is closed: the process is gone
                break
            if not chunk:
                break
            seen += chunk
        out, _ = process.communicate(timeout=60)
    finally:
        os.close(primary)
    assert process.returncode == 0
    shown = seen.decode()
    assert "analysing [" in shown and " positions" in shown and shown.endswith("\r")  # wiped at the end
    assert "analysing" not in out.decode() and b"mean loss" in out  # the bar on stderr, the analysis on stdout


# -- the marks, from evaluations alone -------------------------------------------------------------------------------

WON, LOST, DRAWN = (Evaluation.proof(standing) for standing in (Standing.WON, Standing.LOST, Standing.DRAWN))


@pytest.mark.parametrize(
    "before, after, wins, mark",
    [
        (WON, LOST, (), Mark.BLUNDER),
        (WON, DRAWN, (), Mark.BLUNDER),
        (Evaluation.of_value(0.95), Evaluation.of_value(-0.92), (), Mark.BLUNDER),  # judged by values: won, then lost
        (WON, WON, (), None),
        (WON, Evaluation.of_value(1 - MISS_DROP - 0.01), (), Mark.MISSED_WIN),
        (Evaluation.of_value(0.93), Evaluation.of_value(0.85), (), None),  # a small drop is the searches' noise
        (WON, WON, ("Xd2d1",), Mark.MISSED_WIN),  # a win in one not taken, though the win is kept
        (Evaluation.of_value(0.2), Evaluation.of_value(-0.6), (), None),  # not won before: a loss, not a mark
        (LOST, LOST, (), None),
    ],
)
def test_marks(before, after, wins, mark):
    ply = Ply(1, "pink", "Oc6c5", "Xd2d1", before, after, wins)
    assert ply.mark is mark
    assert ply.loss == round(max(0.0, before.value - after.value), 3)


def test_values_give_a_standing_only_past_the_threshold():
    assert Evaluation.of_value(WON_VALUE).standing is Standing.WON
    assert Evaluation.of_value(WON_VALUE - 0.01).standing is Standing.UNCLEAR
    assert Evaluation.of_value(-WON_VALUE).standing is Standing.LOST
    assert not Evaluation.of_value(0.99).proven and Evaluation.of_value(1.7).value == 1.0
    assert WON.flipped() == LOST and DRAWN.flipped() == DRAWN


def test_a_position_is_searched_on_a_copy_the_same_way_every_time():
    board = boards_of("oxono", ["Xc3b3", "Oc5d5", "Xd3d4"])[-1]
    before = (board.position(), list(board.move_stack))
    first, again = evaluate(board, Budget(200), 3, 3), evaluate(board, Budget(200), 3, 3)
    assert first == again and (board.position(), list(board.move_stack)) == before
    assert first.best is not None and first.pv[0] == first.best and first.iterations == 200


def test_a_win_in_one_is_proven_and_a_finished_game_is_judged_by_its_rules():
    board = new_board("oxono").from_position("x1o1x1/6/6/6/6/XOX3 pink d3 c4")  # pink wins with Xd2d1
    position = evaluate(board, Budget(100))
    assert position.evaluation == WON and position.best == "Xd2d1" and position.wins_in_one == ("Xd2d1",)
    board.play("Xd2d1")
    assert evaluate(board, Budget(100)) == type(position)(LOST)  # black to move, and pink has won


def test_a_move_proven_to_win_proves_the_position_it_makes():
    boards = boards_of("oxono", ["Xc3b3"])
    positions = [evaluate(boards[0], FAST)]
    proven = type(positions[0])(positions[0].evaluation, "Xc3b3", ("Xc3b3",), {"Xc3b3": Standing.WON})
    after = type(positions[0])(Evaluation.of_value(0.1), "Oc5d5")
    from olixono.analysis import assemble

    analysis = assemble(boards, [proven, after], FAST, 0)
    assert analysis.plies[0].after == WON and analysis.final == LOST
    partial = assemble(boards, [proven], FAST, 0)
    assert partial.plies == () and partial.final is None  # a move is weighed once the position after it is


def test_budgets_are_checked():
    for wrong in ({"iterations": None}, {"iterations": 0}, {"iterations": 5, "seconds": -1.0}):
        with pytest.raises(ValueError):
            Budget(**wrong)
    with pytest.raises(ValueError, match=r"not legal|illegal"):
        boards_of("olix", ["f6", "f6"])


def test_progress_is_reported_for_every_position():
    boards = boards_of("olix", ["f6", "f7"])
    seen: list[tuple[int, int]] = []
    analysis = analyse(boards, Budget(20), progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)] and len(analysis.plies) == 2 and analysis.final is not None


# -- the replay ------------------------------------------------------------------------------------------------------


def test_replay_plain_with_analyze_prints_each_moves_analysis(olixono):
    done = olixono("replay", str(PLANTED), "--plain", "--analyze", "--iterations", "100")
    assert done.returncode == 0, done.stderr
    assert "Move 1, pink " in done.stdout and "in one not taken, mean loss" in done.stdout


async def test_the_replay_analyses_in_the_background_and_the_screen_stays_live(tmp_path, monkeypatch):
    """The analysis, asked for with the key a, runs in a thread: while a position's search is held back, the screen
    still steps through the game; once let go, each move shows its value and mark, and the shown move its sentence."""
    from prompt_toolkit.input import create_pipe_input
    from test_client_screen import Terminal, wait_for

    import client.frontends.replay
    from client.frontends.replay import ReplayTable
    from client.frontends.screen import run_screen

    let_go = threading.Event()
    searched = evaluate

    def held(*args):
        assert let_go.wait(30), "never let go"
        return searched(*args)

    monkeypatch.setattr(client.frontends.replay, "evaluate", held)
    _, _, blunder = planted_game()
    summary, session = loaded(str(PLANTED))
    table = ReplayTable(session, summary, budget=Budget(100))
    count = len(table.moves())
    terminal = Terminal(columns=120, rows=40)
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(
            run_screen(table, input=pipe, output=terminal.output(), notes=[summary], log_file=tmp_path / "client.log")
        )
        await wait_for(terminal, "a analyses")
        pipe.send_text("a")
        await wait_for(terminal, f"analysing 0/{count + 1}")
        pipe.send_text("\x1b[F")  # End: the screen answers while the search is held
        await wait_for(terminal, f"replay: move {count} of {count}")
        assert f"analysing 0/{count + 1}" in terminal.text()
        let_go.set()
        await wait_for(terminal, "| analysed", seconds=60)
        await wait_for(terminal, "Analysis done:")
        pipe.send_text(f"{blunder}\r")
        await wait_for(terminal, f"replay: move {blunder} of {count}")
        await wait_for(terminal, f"Move {blunder}, black")  # the shown move's analysis under the board
        assert f"{blunder:>3}. black" in terminal.text() and "-1.00 blunder" in terminal.text()
        pipe.send_text("q")
        assert await screen == 0


async def test_replay_analyze_starts_at_once(tmp_path):
    from prompt_toolkit.input import create_pipe_input
    from test_client_screen import Terminal, wait_for

    from client.frontends.replay import ReplayTable
    from client.frontends.screen import run_screen

    summary, session = loaded(str(ROOT / "protocol" / "vectors" / "olix-untimed-abandoned.txt"))
    table = ReplayTable(session, summary, analyze=True, budget=Budget(30))
    terminal = Terminal()
    with create_pipe_input() as pipe:
        screen = asyncio.create_task(
            run_screen(table, input=pipe, output=terminal.output(), log_file=tmp_path / "client.log")
        )
        await wait_for(terminal, "| analysed", seconds=60)
        pipe.send_text("/next\r")
        await wait_for(terminal, "Move 1, first ")
        pipe.send_text("/quit\r")
        assert await screen == 0
    assert table.analysis is not None  # analysed: the screen said so
    assert report(session, summary, table.analysis).splitlines()[0] == summary  # the words olixono analyze prints


@pytest.mark.slow  # a benchmark's script, not the product: CI may skip it
def test_the_calibration_of_values_prints_its_bands_and_figures():
    done = subprocess.run(
        [sys.executable, "bench/analysis.py", "--games", "1", "--game", "oxono", "--iterations", "30"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "positions mover scored" in done.stdout
    figures = dict(line.split(": ", 1) for line in done.stdout.splitlines() if line.startswith("oxono_"))
    assert set(figures) == {
        "oxono_won_value_score",
        "oxono_lost_value_score",
        "oxono_proven_share",
        "oxono_seconds_a_position",
    }
