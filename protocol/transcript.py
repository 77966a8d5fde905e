"""Whole records, checked offline: a transcript replayed strictly in order, and a proof of equivocation on its own."""

from __future__ import annotations

from collections.abc import Iterable

from protocol.domain import Code, MessageType
from protocol.errors import RemoteProtocolError
from protocol.events import (
    EquivocationDetected,
    LineRejected,
    Superseded,
)
from protocol.judge import quoted
from protocol.keys import PublicKey
from protocol.messages import NUMBERED_APART, decode
from protocol.rules import FINAL, UNCHAINED, contradicts, refused_on_sight
from protocol.session import GameSession


def _text(line: bytes | str) -> str:
    return line if isinstance(line, str) else bytes(line).decode("utf-8", "replace")


def _type_of(line: str) -> MessageType | None:
    """The type a line says it is (unchecked), or ``None`` for a line that names none."""
    try:
        return MessageType(line.partition(" ")[2].partition(" ")[0])
    except ValueError:
        return None


def verify_transcript(lines: Iterable[bytes | str]) -> tuple[GameSession, int | None, LineRejected | None]:
    """Replay a record strictly in order.

    Returns the session, and for the first line that does not apply at once,
    its 1-based number and why (``gap`` for a line that would have to wait,
    ``superseded`` for a line that sets aside one before it or is set aside).
    The lines of an equivocation proof of a seated key are part of a record
    (``GameSession.record``): they need not apply, and the session ends the
    game by the forfeit rule; so are the moves a claimant's timeout set aside
    (``displaced``), which make its ending a time dispute, and what decided whom
    a host that signed two accepts seated (``seating_lines``). A proof of a key
    without a seat (a stranger's two joins, in a record made before receivers
    left them out) need not apply either: it is reported, and decides nothing.
    """
    session = GameSession()
    problems: list[tuple[int, LineRejected, str]] = []
    read: set[str] = set()
    told: set[str] = set()  # the lines of every proof told on the way, a stranger's too (reported, never kept)
    for number, line in enumerate(lines, 1):
        text = _text(line)
        again = text in read
        read.add(text)
        events = session.receive(line)
        shown = quoted(line)
        problem: LineRejected | None = None
        for event in events:
            if isinstance(event, LineRejected) and event.line == shown:
                problem = event
            elif isinstance(event, EquivocationDetected):
                told.update((event.first, event.second))
                problem = LineRejected(Code.EQUIVOCATION, f"{event.slot} signed twice", shown)
            elif isinstance(event, Superseded):
                problem = LineRejected(Code.SUPERSEDED, f"seq {event.message.seq} holds two players' lines", shown)
            if problem is not None:
                break
        if problem is None and (again or not session.holds(text)):
            if again:
                why = "duplicate line"
            elif _type_of(text) is MessageType.PRESENCE:
                why = "a presence line is not part of a transcript"
            else:
                why = "it depends on a line that is not before it"
            problem = LineRejected(Code.GAP, why, shown)
        if problem is not None:
            problems.append((number, problem, text))
    proven = (
        {line for proof in session.proofs for line in (proof.first, proof.second)}
        | set(session.displaced)
        | set(session.seating_lines())
        | told
        | unseated_proofs(session, [text for _, _, text in problems])
    )
    for number, problem, text in problems:
        if text not in proven:
            return session, number, problem
    return session, None, None


def unseated_proofs(session: GameSession, lines: list[str]) -> set[str]:
    """Of ``lines``, those that are halves of a portable proof (:func:`check_equivocation_proof`) by a key that holds
    no seat in ``session``'s game: a stranger's two joins, which a receiver reports and which a record may hold."""
    by_key: dict[str, list[str]] = {}
    for line in lines:
        try:
            signer = decode(line).signer
        except RemoteProtocolError:
            continue
        if session.role_of(signer) is None:
            by_key.setdefault(signer.text, []).append(line)
    found: set[str] = set()
    for mine in by_key.values():
        for index, first in enumerate(mine[:MAX_UNSEATED_PAIRS]):
            for second in mine[index + 1 : MAX_UNSEATED_PAIRS]:
                if check_equivocation_proof(first, second) is not None:
                    found.update((first, second))
    return found


MAX_UNSEATED_PAIRS = 16
"""Lines of one key without a seat that :func:`unseated_proofs` pairs (a proof needs two)."""


def check_equivocation_proof(first: str, second: str) -> PublicKey | None:
    """Check a portable equivocation proof offline: the key that signed both lines, or ``None``.

    The proof holds when both lines are valid signed messages of one game by
    one key that cannot both be part of it: two different lines for one slot
    (sequence number, chat number, confirmation number, the line a receipt or
    a flag claim names), a final line (``agree``, ``resign``, ``abort``,
    ``timeout``) and a main-chain line of a later sequence number, or a
    ``timeout`` and the same key's receipt, or confirmation of an ending by
    the rules, of the other's line for its place
    (:func:`protocol.rules.contradicts`). Exactly what a receiver acts on: a
    line every receiver refuses by itself (:func:`protocol.rules.refused_on_sight`:
    beyond its limits, a receipt whose times are out of order) proves nothing.
    """
    try:
        a, b = decode(first), decode(second)
    except RemoteProtocolError:
        return None
    if a.signer != b.signer or a.game != b.game or a.line == b.line or {a.type, b.type} & UNCHAINED:
        return None
    if refused_on_sight(a) is not None or refused_on_sight(b) is not None:
        return None  # no receiver holds it as its signer's word
    if a.slot == b.slot or contradicts(a, b) or contradicts(b, a):
        return a.signer
    if {a.type, b.type} & NUMBERED_APART:
        return None
    early, late = (a, b) if a.seq < b.seq else (b, a)
    return a.signer if early.type in FINAL and early.seq < late.seq else None
