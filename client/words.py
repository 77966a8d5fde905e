"""Events in words: one line each, the same for the ``--plain`` printer, the bot seat and the consoles."""

from __future__ import annotations

from client.board_words import GAME_WORDS, clock_text
from protocol.clock import TimeControl
from client.core import Connection, GameCore, Notice, ProofSaved, UiEvent, duration_text
from client.record import branch_text, confirmation_text, proof_text
from protocol import (
    ChatReceived,
    ConfirmationReceived,
    EndDeclined,
    EndProposed,
    EquivocationDetected,
    GameOver,
    GameStarted,
    GuestAccepted,
    JoinRequested,
    LineApplied,
    LineRejected,
    MoveApplied,
    OfferReceived,
    PresenceChanged,
    ProposalWithdrawn,
    PublicKey,
    ResyncNeeded,
    Superseded,
)


def control_text(clock: TimeControl | None) -> str:
    """A game's time control, in words: ``untimed``, ``5+3``, ``3 days a move``."""
    return "untimed" if clock is None else clock.text()


def who(core: GameCore, key: PublicKey) -> str:
    """A key as people see it: its player name or role, its fingerprint, and ``(you)`` for this client's."""
    name = core.seat_name(key)
    mine = " (you)" if core.me == key else ""
    return f"{name} {key.fingerprint}{mine}" if name else f"{key.fingerprint}{mine}"


def claim_text(core: GameCore) -> str | None:
    """The claim on time open against the player to move, as this client sees it (``None``: none is open): ``black
    claims your time ran out: move within 24 s or lose on time``, ``your claim is open: black has 24 s to answer``."""
    session = core.session
    if core.answering:
        timeout = session.answerable
        assert timeout is not None and timeout.sent is not None and timeout.flagged is not None
        return (f"{session.name_of(timeout.signer)} ended the game on time, saying you had not moved after "
                f"{duration_text(timeout.flagged - timeout.sent)}; your clock shows {duration_text(core.answer_left_ms())} "
                f"left: move now, and the record shows a time dispute, not their win")
    if core.disputable:
        late = session.late_move
        assert late is not None
        after, waited = core.late_by_ms()
        name, think = session.name_of(late.signer), duration_text(int(late.get("think") or 0))
        what, then = ("winning move", "(a time dispute, not their win)") if session.over else \
            ("move", "(the game ends as a time dispute), or play on")
        return (f"{name}'s {what} came {duration_text(after)} after your claim, saying it thought {think} of the "
                f"{duration_text(waited)} you waited: type claim to dispute it {then}")
    mover = session.actor
    if mover is None or session.over or core.board is None:
        return None
    claimant = next((key for key in session.seats.values() if key != mover), None)
    flag = session.flag_of(claimant) if claimant is not None else None
    if flag is None or claimant is None:
        return None
    window = core.window_left_ms(flag)
    left = duration_text(window)
    name, theirs = session.name_of(claimant), session.name_of(mover)
    if core.me == mover:
        if window:
            return f"{name} claims your time ran out: move within {left} or lose on time"
        return f"{name} claims your time ran out, and the window to answer has passed: move now, it may still count"
    if core.me == claimant:
        if window:
            return f"your claim is open: {theirs} has {left} to answer it"
        return f"{theirs} has not answered your claim: type claim to end the game on time"
    return f"{name} claims {theirs}'s time ran out: {left} left to answer"


def describe(core: GameCore, event: UiEvent) -> str | None:
    """The line for ``event`` (``None`` for events nobody needs to read: a line joined the transcript)."""
    if isinstance(event, LineApplied) and (event.message.type == "flag" or event.message.type == "move"
                                           and core.disputable and event.message == core.session.late_move):
        claim = claim_text(core)  # a claim; the other's move that came after ours, which we may dispute
        return None if claim is None else f"claim: {claim}"
    if isinstance(event, LineApplied | ResyncNeeded):
        return None
    if isinstance(event, MoveApplied):
        text = f"move {event.ply} {event.player} {event.move}"
        timed = core.move_clock(event.seq)
        return text if timed is None else f"{text} (thought {timed[0] / 1000:.1f} s, {clock_text(timed[1] / 1000)} left)"
    if isinstance(event, GameOver):
        text = f"result: {event.result.sentence()} ({event.result.code()})"
        branch = branch_text(core.session, lambda key: who(core, key))
        return f"{text} ({branch})" if branch else text
    if isinstance(event, ConfirmationReceived):
        confirmed = confirmation_text(core.session, lambda key: who(core, key))
        if confirmed == f"result confirmed by {who(core, event.key)} only":  # not the same words twice in a line
            confirmed = "the other player's confirmation has not come yet"
        return f"confirmed by {who(core, event.key)}: {confirmed}" if confirmed else None
    if isinstance(event, OfferReceived):
        invite = "" if event.invite is None else (" for you" if event.invite == core.me else f" for {event.invite.fingerprint}")
        return f"offer {event.game} {event.kind} by host {event.host.fingerprint}{invite}"
    if isinstance(event, JoinRequested):
        return f"join asked by {event.key.fingerprint}" + (" (you)" if event.key == core.me else "")
    if isinstance(event, GuestAccepted):
        return f"seated {who(core, event.key)}"
    if isinstance(event, GameStarted):
        return "seats " + ", ".join(f"{who(core, key)}" for _, key in event.seats) + f"; {event.seats[0][0]} moves first"
    if isinstance(event, EndProposed):
        offer = GAME_WORDS[core.kind].proposal
        theirs = core.playing and core.my_player is not None and event.player != core.my_player
        answer = " (it stands: answer it on your turn with agree or decline)" if theirs else ""
        return f"proposal {event.player} {offer}{answer}"
    if isinstance(event, ProposalWithdrawn):
        return f"withdrawn {event.player} takes back the proposal"
    if isinstance(event, EndDeclined):
        return f"declined {event.player} refuses the proposal"
    if isinstance(event, ChatReceived):
        return f"chat {who(core, event.key)}: {event.text}"
    if isinstance(event, PresenceChanged):
        return f"presence {who(core, event.key)} {'here' if event.here else 'gone'}"
    if isinstance(event, Superseded):
        return (f"set aside {event.message.type} {event.message.seq} by {who(core, event.message.signer)}: "
                f"{who(core, event.by.signer)}'s {event.by.type} stands")
    if isinstance(event, LineRejected):
        return f"warning: line rejected: {event.code} {event.detail}"
    if isinstance(event, EquivocationDetected):
        return f"warning: {proof_text(core.session, event, lambda key: who(core, key))}"
    if isinstance(event, ProofSaved):
        return f"warning: the proof is saved in {event.path}"
    if isinstance(event, Connection):
        return f"relay {'connected' if event.connected else 'lost'}: {event.sentence}"
    if isinstance(event, Notice):
        return f"{'warning' if event.warning else 'notice'}: {event.text}"
    return None
