"""``olixono history``: this machine's games, newest first, read from the journals alone (no relay): games at one
terminal and network games alike, finished ones too, each with its kind, its opponent, its result and what to type
to replay, analyze or export it (``olixono games`` stays the relay's lobby)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from client.shell.journal import LOCAL, Journal, JournalError, journals
from client.words.board import export_command, resume_text
from client.words.record import moves_text
from protocol import GameSession, PublicKey


def opponent_text(journal: Journal, session: GameSession | None) -> str:
    """Where and against whom: ``at this terminal, you (black) vs easy``, ``network, you (pink, host) vs 1a2b-…``."""
    meta = journal.meta
    if meta.role == LOCAL:
        if meta.vs is None:
            return "at this terminal, two people"
        return f"at this terminal, you ({meta.seat}) vs {meta.vs}"
    if session is None:
        return f"network, {meta.role}"
    if meta.role == "watcher":
        players = [key.fingerprint for key in (session.host, session.guest) if key is not None]
        return "watched: " + " vs ".join(players)
    mine = next((key for key in (session.host, session.guest) if key is not None and key.text == meta.key), None)
    other = next((key for key in (session.host, session.guest) if key is not None and key != mine), None)
    seat = session.player_of(mine) if isinstance(mine, PublicKey) else None
    you = f"you ({seat + ', ' if seat else ''}{meta.role})"
    return f"network, {you} vs {other.fingerprint if other is not None else 'nobody yet'}"


def state_text(journal: Journal, session: GameSession | None, problem: str) -> str:
    """The result, or how far an unfinished game went (and, for a network seat, how to take it up again)."""
    if session is None:
        return f"unreadable: {problem}"
    if problem:
        return f"damaged: {problem} (olixono export {journal.meta.game} completes it from the relay, or says why not)"
    if session.result is not None:
        return f"finished: {session.result.sentence()}"
    moves = moves_text(session.moves)
    if journal.meta.role in (LOCAL, "watcher") or journal.meta.left_unseated:
        return f"unfinished after {moves}"
    return f"unfinished after {moves}; {resume_text(journal.meta.game)}"


def history(write: Callable[[str], object] = print, directory: Path | None = None) -> int:
    """Write the list (``directory``: the journal folder, by default the state folder's); exit status 0."""
    found = list(journals(directory))
    if not found:
        write("No game kept on this machine yet: olixono play, host and join keep theirs.")
        return 0
    write(f"{len(found)} game{'s' if len(found) > 1 else ''} kept on this machine, newest first:")
    for journal in found:
        session: GameSession | None
        try:
            session, damage = journal.restore()
            problem = "; ".join(str(item) for item in damage[:3])
        except JournalError as exc:
            session, problem = None, str(exc)
        meta = journal.meta
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.created))
        where, state = opponent_text(journal, session), state_text(journal, session, problem)
        write(f"{meta.game}  {when}  {meta.kind}  {where}  {state}")
        if session is not None and not problem and (len(session.chain) > 1 or session.result is not None):
            game = meta.game
            write(f"    olixono replay {game}  |  olixono analyze {game}  |  {export_command(game)}")
    return 0
