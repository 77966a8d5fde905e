"""``olixono verify FILE``: check a transcript offline, say in one line what game it holds and whether it is finished.

Exit status: 0 for a finished game, 3 for a valid game that is not finished
(say, a transcript saved mid-game), 4 for a record that holds a player's proof
of equivocation (two lines that cannot both stand: the summary says who, and
the forfeit that follows), 1 for anything else: a line that does not verify, a
file that cannot be read, or a file that holds no game (empty, or an offer
alone). The summary also says whose confirmations agree with the ending. Files
may end lines with CRLF and end with blank lines; a line itself never holds a
CR.
"""

from __future__ import annotations

import sys
from pathlib import Path

from client.shell.journal import Journal, JournalError, games_dir
from client.words.record import (
    PROVEN,
    beside_text,
    claims_text,
    clocks_text,
    confirmation_text,
    moves_text,
    proof_text,
    strangers_text,
    time_used_text,
    witnesses_text,
)
from protocol import GameSession, Phase, verify_transcript
from protocol.messages import game_id_problem

MAX_FILE_BYTES = 16 * 1024 * 1024
FINISHED, INVALID, UNFINISHED = 0, 1, 3


def summary(session: GameSession) -> str:
    """``oxono game <id>: pink 1a2b-… (host), black 3c4d-… (guest); finished after 24 moves: black wins: …``."""
    head = f"{session.kind} game {session.game_id}"
    host = session.host
    assert host is not None
    if session.seats:
        players = ", ".join(
            f"{player} {key.fingerprint} ({session.role_of(key)})" for player, key in session.seats.items()
        )
    else:
        guest = session.guest
        players = f"host {host.fingerprint}" + (f", guest {guest.fingerprint}" if guest else "")
    result = session.result
    moves = moves_text(session.moves)
    if result is not None:
        state = f"finished after {moves}: {result.sentence()}"
    elif session.phase is Phase.PLAYING:
        board = session.board
        assert board is not None
        state = f"NOT FINISHED: in progress after {moves}, {board.turn} to move"
    else:
        state = "NOT FINISHED: " + (
            "the host has not seated a guest" if session.phase is Phase.OFFERED else "the coin flip is not done"
        )
    for timed in (clocks_text(session), time_used_text(session), claims_text(session)):
        if timed is not None:
            state += f"; {timed}"
    confirmed = confirmation_text(session)
    if confirmed is not None:
        state += f"; {confirmed}"
    for proof in session.seated_proofs:
        state += f"; PROOF: {proof_text(session, proof)}"
    beside = beside_text(session)
    if beside is not None:
        state += f"; {beside}"
    return f"{head}: {players}; {state}"


def status(session: GameSession) -> int:
    """The exit status for a verified record: finished, unfinished, or holding a proof."""
    if session.seated_proofs:
        return PROVEN
    return FINISHED if session.result is not None else UNFINISHED


def split_lines(data: bytes) -> list[bytes]:
    """The lines of a transcript file: ``\\n`` or ``\\r\\n`` line ends, blank lines at the end ignored."""
    lines = [line[:-1] if line.endswith(b"\r") else line for line in data.split(b"\n")]
    while lines and lines[-1] == b"":
        lines.pop()
    return lines


def verify_file(path: str) -> tuple[int, str]:
    """Check the transcript at ``path``: the exit status, and the summary or why it failed."""
    status, text, _ = load(path)
    return status, text


def load(path: str) -> tuple[int, str, GameSession | None]:
    """Check the transcript at ``path`` as :func:`verify_file` does; the verified session too, unless it failed.
    ``path`` may name a game kept on this machine by its id, where no file has that name (:func:`load_game`)."""
    if is_game_id(path):
        return load_game(path)
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return INVALID, f"olixono verify: cannot read {path}: {exc.strerror}", None
    if len(data) > MAX_FILE_BYTES:
        return INVALID, f"olixono verify: {path} is larger than {MAX_FILE_BYTES} bytes", None
    return load_lines(split_lines(data), path)


def load_game(game: str, directory: Path | None = None) -> tuple[int, str, GameSession | None]:
    """The record of ``game`` as this machine's journal has it (what ``olixono export GAME`` writes when nothing in it
    is damaged), checked as :func:`load` checks a file: ``replay`` and ``analyze`` take a game by its id."""
    try:
        journal = Journal.open(game, directory)
        session, damage = journal.restore()
    except JournalError as exc:
        return INVALID, f"olixono verify: {exc}", None
    if damage:
        return (
            INVALID,
            (
                f"olixono verify: the journal of game {game} is damaged (line {damage[0].number}: "
                f"{damage[0].why}): olixono export {game} completes it from the relay, or says why not"
            ),
            None,
        )
    return load_lines([line.encode("utf-8") for line in session.record], f"game {game}")


def is_game_id(text: str, directory: Path | None = None) -> bool:
    """Whether ``text`` names a game kept on this machine (and no file: a file of that name is read instead)."""
    return (
        game_id_problem(text) is None
        and not Path(text).exists()
        and (games_dir() if directory is None else directory).joinpath(f"{text}.json").exists()
    )


def load_lines(lines: list[bytes], path: str) -> tuple[int, str, GameSession | None]:
    """:func:`load` of the lines of a record (``path``: what the messages call it)."""
    if not lines:
        return INVALID, f"{path}: not a game: the file holds no line", None
    session, number, problem = verify_transcript(lines)
    if problem is not None:
        return INVALID, f"{path}: line {number}: {problem.code}: {problem.sentence}", None
    if len(session.chain) == 1 and session.result is None:
        return INVALID, f"{path}: not a game: the transcript holds an offer and nothing more", None
    text = summary(session)
    texts = [line.decode("utf-8", "replace") for line in lines]
    for beside in (witnesses_text(session, texts), strangers_text(session, texts)):
        if beside:
            text += f"; {beside}"
    return status(session), text, session
