"""Games kept: a game at one terminal (``olixono play``) is journaled as a network game is, so that ``export``,
``verify``, ``replay`` and ``analyze`` take it by its id; ``olixono history`` lists this machine's games from the
journals alone; a finished game's result and record command stay on the terminal after its screen closes. Through the
real commands (subprocesses, a pty)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from types import SimpleNamespace

from cli_helpers import ROOT, Terminal, games_dir, home
from protocol_helpers import HOST, full_game

from client.shell.journal import Journal, JournalMeta


def olixono(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client", *args],
        input=stdin,
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def kept_id(text: str) -> str:
    found = re.search(r"olixono export (\S+) > game\.txt", text)
    assert found, text
    return found.group(1)


def test_a_game_against_a_bot_is_kept_and_taken_by_its_id(tmp_path):
    env, _ = home(tmp_path, "player")
    played = olixono(env, "play", "oxono", "--vs", "random", "--seed", "2", "--plain", stdin="Xd1c1\nresign\n")
    assert played.returncode == 0, played.stderr
    assert "Game over: black wins by pink's resignation." in played.stdout
    game = kept_id(played.stdout.splitlines()[-1])
    meta = json.loads((games_dir(env) / f"{game}.json").read_text())
    assert (meta["role"], meta["vs"], meta["seat"]) == ("local", "random", "pink")
    verified = olixono(env, "verify", game)
    assert verified.returncode == 0 and "finished after 2 moves: black wins by pink's resignation" in verified.stdout
    assert "result confirmed by both players" in verified.stdout
    exported = olixono(env, "export", game)
    assert exported.returncode == 0
    (tmp_path / "game.txt").write_text(exported.stdout)
    assert olixono(env, "verify", str(tmp_path / "game.txt")).stdout == verified.stdout
    replayed = olixono(env, "replay", game, "--plain")
    assert replayed.returncode == 0 and "Xd1c1" in replayed.stdout
    analysed = olixono(env, "analyze", game, "--iterations", "20")
    assert analysed.returncode == 0 and "Xd1c1" in analysed.stdout
    listed = olixono(env, "history")
    assert listed.returncode == 0
    line = next(row for row in listed.stdout.splitlines() if row.startswith(game))
    assert "oxono  at this terminal, you (pink) vs random  finished: black wins by pink's resignation" in line
    assert f"olixono replay {game}  |  olixono analyze {game}  |  olixono export {game} > game.txt" in listed.stdout


def test_moves_taken_back_leave_the_record_and_an_agreement_between_two_people_is_kept(tmp_path):
    env, _ = home(tmp_path, "player")
    played = olixono(env, "play", "olix", "--plain", stdin="a1\nb1\nundo\nc1\nd1\nend\n")
    assert played.returncode == 0, played.stderr
    game = kept_id(played.stdout.splitlines()[-1])
    verified = olixono(env, "verify", game)
    assert "finished after 3 moves" in verified.stdout and "ended by agreement" in verified.stdout, verified.stdout
    replayed = olixono(env, "replay", game, "--plain").stdout
    assert "b1" not in re.findall(r"\b[a-k]\d+\b", " ".join(line for line in replayed.splitlines() if "move" in line))
    listed = olixono(env, "history").stdout
    assert "at this terminal, two people" in listed


def test_a_game_left_unfinished_is_kept_not_resumable_and_one_left_before_a_move_is_not_kept(tmp_path):
    env, _ = home(tmp_path, "player")
    left = olixono(env, "play", "oxono", "--plain", stdin="quit\n")
    assert "kept" not in left.stdout
    assert olixono(env, "history").stdout.startswith("No game kept on this machine yet")
    played = olixono(env, "play", "oxono", "--plain", stdin="Xd1c1\n")
    told, last = played.stdout.splitlines()[-2:]
    assert told == "Left the game unfinished; it is kept (olixono history lists it):", told
    assert last.startswith("olixono export "), last  # on a line of its own, to paste
    game = kept_id(last)
    assert f"{game}" in olixono(env, "history").stdout and "unfinished after 1 move" in olixono(env, "history").stdout
    assert olixono(env, "verify", game).returncode == 3
    resumed = olixono(env, "resume", game)
    assert resumed.returncode == 1 and "was played at one terminal" in resumed.stderr
    assert game not in olixono(env, "resume").stdout  # not among the unfinished network games


def test_history_lists_network_games_too_newest_first(tmp_path):
    env, _ = home(tmp_path, "player", HOST)
    host, guest = full_game("oxono", seed=1)
    journal = Journal.create(
        JournalMeta(host.game_id or "", "oxono", "host", HOST.public.text, "mqtt://127.0.0.1:1883", created=1.0),
        games_dir(env),
    )
    for line in host.transcript:
        journal.append(line)
    journal.close()
    played = olixono(env, "play", "oxono", "--plain", stdin="Xd1c1\nresign\n")
    local = kept_id(played.stdout)
    listed = olixono(env, "history").stdout.splitlines()
    rows = [row for row in listed if not row.startswith(" ")]
    assert rows[0] == "2 games kept on this machine, newest first:"
    assert rows[1].startswith(local) and rows[2].startswith(host.game_id or "")
    seat = host.player_of(HOST.public)
    assert guest.identity is not None
    assert f"network, you ({seat}, host) vs {guest.identity.public.fingerprint}" in rows[2]
    assert f"finished: {host.result.sentence()}" in rows[2]  # type: ignore[union-attr]


def test_the_result_and_the_record_stay_on_the_terminal_after_the_full_screen_closes(tmp_path):
    env, _ = home(tmp_path, "player")
    seat = Terminal(env, "play", "oxono", "--vs", "random", "--seed", "2", "--screen")
    try:
        seat.read_until("/help")
        seat.type("Xd1c1\r")
        seat.read_until("Xd1c1")
        for text in ("/resign\r", "/resign\r"):
            seat.type(text)
        seat.read_until("resignation")
        seat.type("/quit\r")
        assert seat.wait(30) == 0
    finally:
        seat.stop()
    after = seat.seen.rsplit("\x1b[?1049l", 1)[-1]  # what follows the end of the full screen
    found = re.search(
        r"Game over: black wins by pink's resignation\. The record:\s+olixono export (\S+) > game\.txt", after
    )
    assert found, after
    assert (games_dir(env) / f"{found.group(1)}.lines").exists()


async def test_a_network_games_result_stays_on_the_terminal_after_its_full_screen_closes(capsys):
    from prompt_toolkit.input import create_pipe_input
    from test_client_screen import Terminal as ScreenTerminal

    from client.cores.network_game import GameCore
    from client.frontends.network_screen import game_screen

    host, _ = full_game("oxono", seed=1)
    core = GameCore(host)
    runner = SimpleNamespace(core=core, link=SimpleNamespace(connected=True), events=asyncio.Queue())
    with create_pipe_input() as pipe:
        front = game_screen(input=pipe, output=ScreenTerminal().output())
        screen = asyncio.create_task(front(runner))  # type: ignore[arg-type]
        await asyncio.sleep(0.3)
        pipe.send_text("/quit\r")
        async with asyncio.timeout(10):
            assert await screen == 0
    assert host.result is not None
    assert capsys.readouterr().out.strip().splitlines()[-2:] == [
        f"Game over: {host.result.sentence()}. The record:",
        f"olixono export {core.game_id} > game.txt",
    ]
