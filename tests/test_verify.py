"""``olixono verify FILE``: a summary and exit 0, or the first bad line's number and reason and exit 1."""

from __future__ import annotations

import subprocess
import sys

from protocol.keys import fingerprint
from protocol_helpers import full_game, start


def run_verify(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "client", "verify", str(path)], capture_output=True, text=True, timeout=60)


def test_a_finished_game_verifies_with_a_summary(tmp_path):
    host, _ = full_game("oxono", 3)
    path = tmp_path / "game.txt"
    path.write_text("\n".join(host.transcript) + "\n")
    result = run_verify(path)
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert line.startswith(f"oxono game {host.game_id}: ")
    for player, key in host.seats.items():
        assert f"{player} {fingerprint(key)}" in line
    outcome = host.outcome
    assert f"{outcome.winner} wins by {outcome.reason} after {host.moves} moves" in line


def test_an_unfinished_game_says_so(tmp_path):
    host, _ = start("olix")
    path = tmp_path / "game.txt"
    path.write_text("\n".join(host.transcript))
    result = run_verify(path)
    assert result.returncode == 0 and "in progress after 0 moves" in result.stdout


def test_a_bad_line_gives_its_number_and_reason(tmp_path):
    host, _ = full_game("oxono", 3)
    lines = list(host.transcript)
    lines[5] = lines[5].replace("seq=5", "seq=6")
    path = tmp_path / "game.txt"
    path.write_text("\n".join(lines) + "\n")
    result = run_verify(path)
    assert result.returncode == 1
    assert "line 6: bad-signature" in result.stderr


def test_missing_file_and_garbage(tmp_path):
    result = run_verify(tmp_path / "nope.txt")
    assert result.returncode == 1 and "cannot read" in result.stderr
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\x00\xff garbage\n")
    result = run_verify(path)
    assert result.returncode == 1 and "line 1: " in result.stderr
