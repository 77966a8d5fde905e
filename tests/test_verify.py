"""``olixono verify FILE``: what game a transcript holds and whether it is finished (exit 0 / 3), or why not
(exit 1)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from protocol_helpers import confirm_of, full_game, game_id_in, identity_of, offered, playable, result_of, start


def run_verify(path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client", "verify", str(path)], capture_output=True, text=True, timeout=60
    )


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
    assert f"finished after {host.moves} moves: {result_of(host).sentence()}" in line


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


def test_a_record_with_a_proof_reports_the_forfeit_and_exits_4(tmp_path):
    from protocol import GameSession

    host, guest = full_game("oxono", 3)
    last = host.chain[-2]  # the loser's last line: it signs another one for that slot
    twin = GameSession.restore(
        [m.line for m in host.chain[: last.seq]],
        identity_of(guest) if last.signer == identity_of(guest).public else identity_of(host),
    )
    forged = twin.move(next(m for m in playable(twin) if m != last.value("move"))).line
    spectator = GameSession.restore([*host.transcript, forged])
    assert result_of(spectator).reason == "equivocation"
    result = run_verify(write(tmp_path, spectator.record))
    assert result.returncode == 4, result.stderr
    assert (
        result_of(spectator).sentence() in result.stdout
        and "PROOF:" in result.stdout
        and "forfeit the game" in result.stdout
    )


def test_the_summary_says_whose_confirmations_agree(tmp_path):
    from protocol import GameSession

    host, guest = full_game("olix", 2)
    assert "result not confirmed yet" in run_verify(write(tmp_path, host.transcript)).stdout
    mine = confirm_of(host).line
    line = run_verify(write(tmp_path, [*host.transcript])).stdout
    assert f"result confirmed by {host.name_of(identity_of(host).public)} {identity_of(host).fingerprint} only" in line
    guest.receive(mine)
    record = GameSession.restore([*host.transcript, confirm_of(guest).line])
    result = run_verify(write(tmp_path, record.transcript))
    assert result.returncode == 0 and "result confirmed by both players" in result.stdout


def test_a_time_dispute_whose_record_holds_two_receipts_of_the_set_aside_move_verifies(tmp_path):
    """The claimant receipted the late move twice before its timeout set the move aside: the record lists the two
    receipts (a proof that never decides) and the move after them; verify reports the dispute and the proof, exit 4,
    where it reported a gap (exit 1)."""
    from test_protocol_claims import receipted_twice_then_disputed

    from protocol import GameSession

    seated, late, receipts, timeout = receipted_twice_then_disputed()
    watcher = GameSession.restore([*seated.watcher.transcript, late.line, *receipts, timeout])
    assert result_of(watcher).reason == "dispute"
    result = run_verify(write(tmp_path, watcher.record))
    assert result.returncode == 4, result.stdout + result.stderr
    assert result_of(watcher).sentence() in result.stdout and "(receipt " in result.stdout


@pytest.mark.parametrize(
    "vector, claims",
    [
        ("olix-timed-flag-unanswered.txt", "second against first after 6 moves (closed)"),
        ("olix-timed-flag-conceded.txt", "second against first after 6 moves (conceded)"),
        ("olix-correspondence-flag-unanswered.txt", "second against first after 4 moves (closed)"),
    ],
)
def test_verify_says_how_each_claim_on_time_of_a_vector_stands(vector, claims, capsys):
    from vector_maker import VECTORS

    from client.cli import main

    assert main(["verify", str(VECTORS / vector)]) == 0
    assert f"; claims on time: {claims}; " in capsys.readouterr().out
    assert main(["verify", str(VECTORS / "olix-timed-receipts.txt")]) == 0  # a timed game without a claim
    assert "claims on time" not in capsys.readouterr().out


def test_verify_lists_an_answered_claim_and_an_open_one(tmp_path, capsys):
    """A claim answered by a move in time, then the same claimant's claim of a later turn, still open: both, in the
    order of the turns claimed, on a record that is not finished (exit 3)."""
    from test_protocol_claims import everyone, remaining, waiter_of
    from test_protocol_receipts import table

    from client.cli import main
    from protocol.clock import GRACE_MS

    seated = table("clock:300+5,rules:1")
    for _ in range(4):
        seated.play(800)
    for _ in range(2):
        waiter, sent = waiter_of(seated)
        everyone(seated, waiter.flag(sent, sent + remaining(seated) + GRACE_MS).line)
        if seated.watcher.moves == 4:
            seated.play(2000)  # in time: it answers the claim
            seated.play(800)
    claimant = seated.watcher.name_of(identity_of(waiter).public)
    other = seated.watcher.name_of(identity_of(seated.mover()).public)
    assert main(["verify", str(write(tmp_path, seated.watcher.record))]) == 3
    printed = capsys.readouterr().out
    assert (
        f"; claims on time: {claimant} against {other} after 4 moves (answered), {claimant} against {other} after "
        "6 moves (open)"
    ) in printed


def test_a_record_of_a_host_that_seated_twice_verifies_and_says_what_decided_the_seat(tmp_path):
    """The host resigns, then signs a second accept (a puppet's, ground below the first): the guest's record holds
    both accepts, their joins and the guest's reveal, and verify reaches the guest's win from them, saying so."""
    from protocol import GameSession, Identity
    from protocol.keys import b64
    from protocol.messages import encode, line_hash

    host, guest = start("oxono")
    puppet = GameSession(host.game_id, Identity.from_seed(bytes(range(7, 39))))
    puppet.receive(host.transcript[0])
    join = puppet.join().line
    fields = [
        ("game", game_id_in(host)),
        ("seq", "2"),
        ("prev", line_hash(join)),
        ("guest", identity_of(puppet).public.text),
    ]
    ground = min(
        (encode("accept", [*fields, ("salt", b64(n.to_bytes(16, "big")))], identity_of(host)) for n in range(200)),
        key=line_hash,
    )
    guest.receive_all([host.resign().line, join, ground])
    assert guest.result is not None and guest.result.winner_key == identity_of(guest).public
    result = run_verify(write(tmp_path, guest.record))
    assert result.returncode == 4, result.stderr  # the host's proof is in the record
    assert "the guest wins by forfeit: the host signed two lines" in result.stdout
    assert "the host signed 2 accepts: the record holds them, their joins and 1 reveal of them" in result.stdout


def test_an_older_record_with_a_strangers_proof_verifies(tmp_path):
    """A stranger's two joins while nobody sat: a receiver reports them and keeps them out of its record, but a record
    that holds them (exported before) verifies all the same."""
    from protocol import Identity
    from protocol.keys import b64
    from protocol.messages import encode

    host, _ = offered("oxono")
    stranger = Identity.from_seed(bytes(range(9, 41)))
    joins = [
        encode(
            "join",
            [
                ("game", game_id_in(host)),
                ("seq", "1"),
                ("prev", host.chain[0].hash),
                ("terms", "rules:1"),
                ("commit", b64(bytes([n]) * 32)),
            ],
            stranger,
        )
        for n in (1, 2)
    ]
    host.receive_all(joins)
    lines = [*host.transcript, host.abort().line, *joins]
    result = run_verify(write(tmp_path, lines))
    assert result.returncode == 0, result.stderr
    assert "withdrawn by the host" in result.stdout
    assert "2 lines of 1 key with no seat (proofs a receiver reports, which decide nothing)" in result.stdout
