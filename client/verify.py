"""``olixono verify FILE``: check a transcript offline and summarise it in one line."""

from __future__ import annotations

import sys

from protocol.keys import fingerprint
from protocol.session import GameSession, verify_transcript

MAX_FILE_BYTES = 16 * 1024 * 1024


def summary(session: GameSession) -> str:
    """``oxono game <id>: pink 1a2b-… (host), black 3c4d-… (guest); black wins by symbol after 24 moves``."""
    if not session.chain:
        return "empty transcript"
    head = f"{session.kind} game {session.game_id}"
    if not session.seats:
        host = fingerprint(session.host)
        state = "aborted" if session.outcome else "not started"
        return f"{head}: host {host}; {state}"
    players = ", ".join(
        f"{player} {fingerprint(key)} ({session.role_of(key)})" for player, key in session.seats.items()
    )
    outcome = session.outcome
    moves = session.moves
    if outcome is None:
        result = f"in progress after {moves} moves"
    elif outcome.winner is None:
        result = f"{outcome.reason} ({'draw' if outcome.reason != 'aborted' else 'no result'}) after {moves} moves"
    else:
        result = f"{outcome.winner} wins by {outcome.reason} after {moves} moves"
    if session.compromised_by:
        result += "; COMPROMISED by " + ", ".join(fingerprint(k) for k in session.compromised_by)
    return f"{head}: {players}; {result}"


def verify_file(path: str) -> tuple[bool, str]:
    """Check the transcript at ``path``: ``(True, summary)`` or ``(False, why)``."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return False, f"olixono verify: cannot read {path}: {exc.strerror}"
    if len(data) > MAX_FILE_BYTES:
        return False, f"olixono verify: {path} is larger than {MAX_FILE_BYTES} bytes"
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    session, number, problem = verify_transcript(lines)
    if problem is not None:
        return False, f"{path}: line {number}: {problem.code}: {problem.sentence}"
    return True, summary(session)
