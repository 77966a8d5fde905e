"""``olixono verify FILE``: what game a transcript holds and whether it is finished (exit 0 / 3), or why not (exit 1)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from protocol_helpers import full_game, offered, start


def run_verify(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "client", "verify", str(path)], capture_output=True, text=True, timeout=60)


def write(tmp_path, lines, end="\n", tail="\n") -> object:
    path = tmp_path / "game.txt"
    path.write_bytes((end.join(lines) + tail).encode())
    return path


def test_a_finished_game_verifies_with_a_summary(tmp_path):
    host, _ = full_game("oxono", 3)
    result = run_verify(write(tmp_path, host.transcript))
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert line.startswith(f"oxono game {host.game_id}: ")
    for player, key in host.seats.items():
        assert f"{player} {key.fingerprint}" in line
    assert f"finished after {host.moves} moves: {host.result.sentence()}" in line


@pytest.mark.parametrize("end, tail", [("\r\n", "\r\n"), ("\n", "\n\n\n"), ("\r\n", "\r\n\r\n"), ("\n", "")])
def test_crlf_line_ends_and_trailing_blank_lines_are_tolerated(tmp_path, end, tail):
    host, _ = full_game("olix", 2)
    result = run_verify(write(tmp_path, host.transcript, end, tail))
    assert result.returncode == 0, result.stderr


def test_a_cr_inside_a_line_is_refused(tmp_path):
    host, _ = full_game("oxono", 3)
    lines = list(host.transcript)
    lines[4] = lines[4].replace(" by=", "\r by=")
    result = run_verify(write(tmp_path, lines))
    assert result.returncode == 1 and "line 5: control-character" in result.stderr


def test_an_unfinished_game_says_so_plainly(tmp_path):
    host, _ = start("olix")
    result = run_verify(write(tmp_path, host.transcript, tail=""))
    assert result.returncode == 3 and "NOT FINISHED: in progress after 0 moves, first to move" in result.stdout


@pytest.mark.parametrize("content, why", [(b"", "holds no line"), (b"\n\n", "holds no line")])
def test_an_empty_file_is_not_a_game(tmp_path, content, why):
    path = tmp_path / "empty.txt"
    path.write_bytes(content)
    result = run_verify(path)
    assert result.returncode == 1 and why in result.stderr


def test_a_lone_offer_is_not_a_game(tmp_path):
    host, _ = offered()
    result = run_verify(write(tmp_path, host.transcript))
    assert result.returncode == 1 and "an offer and nothing more" in result.stderr


def test_a_blank_line_inside_is_refused(tmp_path):
    host, _ = full_game("oxono", 3)
    lines = list(host.transcript)
    lines.insert(3, "")
    result = run_verify(write(tmp_path, lines))
    assert result.returncode == 1 and "line 4: syntax" in result.stderr


def test_a_bad_line_gives_its_number_and_reason(tmp_path):
    host, _ = full_game("oxono", 3)
    lines = list(host.transcript)
    lines[5] = lines[5].replace("seq=5", "seq=6")
    result = run_verify(write(tmp_path, lines))
    assert result.returncode == 1
    assert "line 6: bad-signature" in result.stderr


def test_missing_file_and_garbage(tmp_path):
    result = run_verify(tmp_path / "nope.txt")
    assert result.returncode == 1 and "cannot read" in result.stderr
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\x00\xff garbage\n")
    result = run_verify(path)
    assert result.returncode == 1 and "line 1: " in result.stderr
