"""What a game's record says, in words: whose confirmations agree with its ending, and the proofs it carries.

One place for these sentences, below every front end: ``olixono verify``, ``watch --plain``, the screens and
``olixono games`` all say them alike. Pure: it reads a :class:`protocol.GameSession` and touches nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from client.words.board import clock_text
from protocol import (
    CONFIRMED,
    DISPUTED,
    UNSEEN,
    EquivocationDetected,
    GameSession,
    MessageType,
    PublicKey,
    ResultReason,
    decode,
)

Name = Callable[[PublicKey], str]
PROVEN = 4
"""The exit status of ``verify``, ``watch --plain`` and ``export`` for a record that holds a player's proof of
equivocation (the result is then a forfeit, unless the game had ended before it)."""


def out_of_time(session: GameSession) -> str | None:
    """The player whose clock ran out, once a timed game ended on time (conceded, or a claim left unanswered);
    ``None`` otherwise. The record's clock of that player stops at its turn's start: it reads 0:00 from then on."""
    result, clocks = session.result, session.clocks
    if result is None or result.reason != ResultReason.TIME or clocks is None:
        return None
    return next((player for player in clocks if player != result.winner), None)


def official_clocks(session: GameSession) -> dict[str, int] | None:
    """A timed game's clocks (ms) as the record has them, the turn being played stopped at its start, and the clock
    of a player who lost on time at 0 (``None`` untimed, or before the seats are drawn)."""
    clocks, flagged = session.clocks, out_of_time(session)
    if clocks is not None and flagged is not None:
        clocks[flagged] = 0
    return clocks


def clocks_text(session: GameSession, clocks: dict[str, int] | None = None) -> str | None:
    """A timed game's clocks: ``clock 1+2: pink 0:52 left, black 0:56 left`` (``clocks``: each player's in ms, by
    default :func:`official_clocks`; ``None`` for an untimed game, or before the seats are drawn)."""
    clocks = official_clocks(session) if clocks is None else clocks
    if session.clock is None or clocks is None:
        return None
    left = ", ".join(f"{player} {clock_text(ms / 1000)} left" for player, ms in clocks.items())
    return f"clock {session.clock.text()}: {left}"


def moves_before(session: GameSession, seq: int) -> int:
    """How many moves are on the board before the line at ``seq``: plus one, the number (as the moves are numbered,
    from 1) of the move whose turn a line at ``seq`` is sent in (a move's own; a resignation's, a proposal's, its
    turn's). Moves taken back by agreement count no more."""
    return len(session.standing(seq))


def played_moves(session: GameSession) -> list[str]:
    """The verified game's moves, in the order played: those on the board at its end (not those taken back)."""
    return [message.move for message in session.standing()]


def moves_text(count: int) -> str:
    """``1 move``, ``12 moves``."""
    return f"{count} move{'s' if count != 1 else ''}"


def time_used_text(session: GameSession) -> str | None:
    """A timed game's thinking as its moves claim it and what the receipts leave unexplained, per player:
    ``time used: pink 0:41 (unexplained 0.0 s of 12 moves measured), black 1:02 (unexplained 6.2 s of 11)``."""
    used = session.time_used()
    if not used:
        return None
    parts = [
        f"{player} {clock_text(side.used / 1000)} (unexplained {side.unexplained / 1000:.1f} s of "
        f"{moves_text(side.measured)} measured)"
        for player, side in used.items()
    ]
    return "time used: " + ", ".join(parts)


def claims_text(session: GameSession) -> str | None:
    """The record's flag claims and how each stands: ``claims on time: second against first after 6 moves
    (answered)`` (``None`` when there is none)."""
    claims = session.claims()
    if not claims:
        return None
    parts = []
    for flag, status in claims:
        moves = moves_before(session, flag.seq + 1)  # (the flag names the line that began the turn)
        mover = session.guest if flag.signer == session.host else session.host
        against = session.name_of(mover) if mover is not None else "?"
        parts.append(f"{session.name_of(flag.signer)} against {against} after {moves_text(moves)} ({status})")
    return "claims on time: " + ", ".join(parts)


def open_claim_text(session: GameSession, me: PublicKey | None = None) -> str | None:
    """The flag claim open against the turn being played, as the record has it, for ``me`` (a player's key) to
    read: ``black claims your time ran out``, ``your claim that black's time ran out is open``, ``black claims pink's
    time ran out`` (``None``: none is open; how long its window runs is a matter of the reader's watch)."""
    mover = session.actor
    for claimant in session.seats.values():
        if claimant == mover or mover is None or session.flag_of(claimant) is None:
            continue
        if claimant == me:
            return f"your claim that {session.name_of(mover)}'s time ran out is open"
        whose = "your" if mover == me else f"{session.name_of(mover)}'s"
        return f"{session.name_of(claimant)} claims {whose} time ran out"
    return None


def beside_text(session: GameSession) -> str | None:
    """What a record holds beside the game that decides nothing by itself: the proofs of keys the host's accepts named
    but that hold no seat, and what decided whom a host that signed two accepts seated (``None``: nothing)."""
    parts = []
    seating = session.seating_lines()
    if seating:
        kinds = [decode(line, verify=False).type for line in seating]
        accepts, reveals = kinds.count(MessageType.ACCEPT), kinds.count(MessageType.REVEAL)
        parts.append(
            f"the host signed {accepts} accepts: the record holds them, their joins and "
            f"{reveals} reveal{'s' if reveals != 1 else ''} of them, which decided the seat"
        )
    unseated = sorted({proof.key.fingerprint for proof in session.proofs if session.role_of(proof.key) is None})
    if unseated:
        parts.append(
            f"a proof by {', '.join(unseated)}, named by an accept of the host's but seated by none (it "
            f"decides nothing)"
        )
    return "; ".join(parts) or None


def strangers_text(session: GameSession, lines: list[str]) -> str | None:
    """What a record says of keys that hold no seat and that no accept of the host's names: ``2 lines of 1 key with
    no seat (proofs a receiver reports, which decide nothing)``; ``None`` when it holds none."""
    seating = set(session.seating_lines())
    keys = set()
    count = 0
    for line in lines:
        if line in seating or line == (session.chain[0].line if session.chain else None):
            continue
        try:
            signer = decode(line, verify=False).signer
        except ValueError:
            continue
        if session.role_of(signer) is None and signer not in session.witnesses:
            count += 1
            keys.add(signer)
    if not count:
        return None
    return (
        f"{count} line{'s' if count > 1 else ''} of {len(keys)} key{'s' if len(keys) > 1 else ''} with no seat "
        f"(proofs a receiver reports, which decide nothing)"
    )


def witnesses_text(session: GameSession, lines: list[str]) -> str | None:
    """What a record says of the game's time witnesses: ``time witness 1a2b-…: 12 witness lines``, and any proven to
    lie (their times counted for nothing); ``None`` for a game with none."""
    if not session.witnesses:
        return None
    signed = {key: 0 for key in session.witnesses}
    for line in lines:
        if " witness " in line:
            with contextlib.suppress(ValueError):
                message = decode(line, verify=False)
                if message.type is MessageType.WITNESS and message.signer in signed:
                    signed[message.signer] += 1
    lies = session.witness_lies()
    parts = []
    for key, count in signed.items():
        part = f"time witness {key.fingerprint}: {count} witness line{'s' if count != 1 else ''}"
        if key in lies:
            part += f", PROVEN TO LIE ({lies[key]}): its times counted for nothing"
        parts.append(part)
    return "; ".join(parts)


def default_name(session: GameSession) -> Name:
    """A key as a record names it: its player name (or role) and fingerprint."""

    def name(key: PublicKey) -> str:
        return f"{session.name_of(key)} {key.fingerprint}"

    return name


def confirmation_text(session: GameSession, name: Name | None = None) -> str | None:
    """``result confirmed by both players``, ``… by pink 1a2b-… only``, ``not confirmed yet``, or a dispute;
    ``None`` while the game is not over (nothing to confirm)."""
    if session.result is None:
        return None
    name = name or default_name(session)
    players = [key for key in (session.host, session.guest) if key is not None]
    states = {key: session.confirmation(key) for key in players}
    disputes = [key for key, state in states.items() if state == DISPUTED]
    confirmed = [key for key, state in states.items() if state == CONFIRMED]
    parts = []
    if len(players) == 2 and len(confirmed) == 2:
        parts.append("result confirmed by both players")
    elif confirmed and len(players) == 1:
        parts.append(f"result confirmed by {name(confirmed[0])}")
    elif confirmed:
        parts.append(f"result confirmed by {name(confirmed[0])} only")
    else:
        parts.append("result not confirmed yet")
    for key in disputes:
        ending = session.confirmed_ending(key)
        assert ending is not None
        parts.append(f"{name(key)} confirms another ending ({ending[1]} at seq {ending[0]})")
    for key, state in states.items():
        if state not in (None, CONFIRMED, DISPUTED):
            ending = session.confirmed_ending(key)
            assert ending is not None
            parts.append(
                f"{name(key)} confirms an ending this record lacks ({ending[1]} at seq {ending[0]}): lines are missing"
            )
    return "; ".join(parts)


def lacking_text(session: GameSession, name: Name | None = None) -> str | None:
    """Once the relay's lines are in: whether a player's confirmation names an ending beyond what arrived (the relay
    lost the game's last lines, or someone erased them), in one sentence; ``None`` when nothing says so."""
    name = name or default_name(session)
    for key in (session.host, session.guest):
        if key is None or session.confirmation(key) != UNSEEN:
            continue
        ending = session.confirmed_ending(key)
        assert ending is not None
        head = session.chain[-1].seq if session.chain else 0
        if ending[0] > head or session.result is None:
            return (
                f"the relay lacks lines of this game: {name(key)} confirms an ending ({code_text(ending[1])} at "
                f"seq {ending[0]}) that the lines here do not reach (seq {head})"
            )
    return None


def proof_text(session: GameSession, proof: EquivocationDetected, name: Name | None = None) -> str:
    """One proof in words: who signed two lines, where, and what it did to the game."""
    name = name or default_name(session)
    who = name(proof.key)
    result = session.result
    if proof.point is None:
        effect = "they never change the game"
    elif result is not None and result.reason == "equivocation" and result.slot == proof.point:
        effect = "so they forfeit the game there"
    elif session.forfeit_pending == proof.point:
        effect = "so they forfeit the game there, once the lines before it are in"
    elif result is None:
        effect = "so they forfeit the game, unless it ended before"
    else:
        effect = "after the game had ended, so the result stands"
    where = f"slot {proof.slot}" if proof.slot.isdigit() else proof.slot.replace("-", " ")
    return f"{who} signed two lines that cannot both stand ({where}): {effect}"


def branch_text(session: GameSession, name: Name | None = None) -> str | None:
    """After a forfeit, which of the equivocator's two lines the opponent answered (the branch played), if seen."""
    branch = session.branch
    if branch is None:
        return None
    name = name or default_name(session)
    played, answer = branch
    what = played.move if played.type is MessageType.MOVE else played.type
    return (
        f"the game went on from {name(played.signer)}'s {what} at seq {played.seq}: {name(answer.signer)} answered it"
    )


def code_text(code: str) -> str:
    """A result as a ``confirm`` line names it (``black-resigned``: the winner, then why), in words: ``black wins
    (time)``; a resignation, whose code names the winner, not who resigned: ``black wins by the other's
    resignation``."""
    winner, _, reason = code.partition("-")
    if not reason:
        return {
            "aborted": "aborted",
            "withdrawn": "withdrawn by the host",
            "equivocation": "no result (a player signed two lines that cannot both stand)",
        }.get(winner, winner)
    if winner == "draw":
        return f"draw ({reason})"
    if reason == "equivocation":
        return f"{winner} wins by forfeit (the other signed two lines that cannot both stand)"
    if reason == "resigned":
        return f"{winner} wins by the other's resignation"
    return f"{winner} wins ({reason})"
