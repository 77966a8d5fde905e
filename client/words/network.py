"""Events in words: one line each, the same for the ``--plain`` printer, the bot seat and the consoles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from client.cores.clock import LOW_MS
from client.cores.network_game import (
    ClaimReady,
    ClockLow,
    Connection,
    GameCore,
    Notice,
    ProofSaved,
    UiEvent,
    duration_text,
)
from client.cores.relays import START_ONE, WHOLE
from client.words.board import (
    AT_LEAST,
    AT_MOST,
    BOUND_WHY,
    GAME_WORDS,
    clock_left_text,
    clock_text,
    move_time_text,
)
from client.words.record import branch_text, clocks_text, confirmation_text, moves_before, out_of_time, proof_text
from protocol import (
    ChatReceived,
    ClaimVoided,
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
    Message,
    MoveApplied,
    MovesTakenBack,
    OfferReceived,
    PresenceChanged,
    ProposalWithdrawn,
    PublicKey,
    RematchAsked,
    ResyncNeeded,
    Superseded,
    TakebackAsked,
    TalkReceived,
)
from protocol.clock import TimeControl, claim_after


def control_text(clock: TimeControl | None) -> str:
    """A game's time control, in words: ``untimed``, ``5+3``, ``3 days a move``."""
    return "untimed" if clock is None else clock.text()


def control_words(clock: TimeControl | None) -> str:
    """A game's time control as a newcomer reads it: ``5+3 (5 min each, 3 s a move)``, ``3 days a move``,
    ``untimed``."""
    if clock is None or clock.days:
        return control_text(clock)
    added = f"{duration_text(clock.increment_ms)} a move" if clock.increment_ms else "no time added a move"
    return f"{clock.text()} ({duration_text(clock.base_ms)} each, {added})"


def witness_words(
    witnesses: tuple[PublicKey, ...] | list[PublicKey], host: PublicKey | None, me: PublicKey | None
) -> list[str]:
    """What a host, a guest or a watcher is told of a game's time witnesses (none: nothing): who they are, and a
    warning when one is the host's own key, or the reader's (a witness run by a player protects nobody from it)."""
    if not witnesses:
        return []
    told = [
        f"Time witnesses: {', '.join(key.fingerprint for key in witnesses)}: clocks and claims on time are "
        "decided on when they saw each line, not on the players' word."
    ]
    if host is not None and host in witnesses:
        told.append(
            f"Warning: the host's own key ({host.fingerprint}) is a time witness of this game: a witness run by "
            "a player protects nobody from that player."
        )
    if me is not None and me in witnesses and me != host:
        told.append(
            f"Warning: your own key ({me.fingerprint}) is a time witness of this game: a witness run by a "
            "player protects nobody from that player."
        )
    return told


def talk_text(core: GameCore, talk: TalkReceived) -> str:
    """A watcher's talk as everyone sees it: ``watcher 1a2b3c4d: nice move`` (``(you)`` after this client's own key)."""
    mine = " (you)" if core.talker is not None and core.talker.public == talk.key else ""
    return f"watcher {talk.key.fingerprint}{mine}: {talk.text}"


def who(core: GameCore, key: PublicKey) -> str:
    """A key as people see it: its player name or role, its fingerprint, and ``(you)`` for this client's."""
    name = core.seat_name(key)
    mine = " (you)" if core.me == key else ""
    return f"{name} {key.fingerprint}{mine}" if name else f"{key.fingerprint}{mine}"


def rematch_text(core: GameCore, key: PublicKey) -> str:
    """What a player's rematch line says: ``rematch black 1a2b-… asks for a rematch (...)``, or that it is agreed."""
    nxt = core.next_game
    if nxt is not None:
        host = "you host it" if nxt.host == core.me else f"{who(core, nxt.host)} hosts it"
        return f"rematch agreed: game {nxt.game} ({host}; colours swapped)"
    if key == core.me:
        return f"rematch {who(core, key)} asks for a rematch: waiting for the answer (quit leaves)"
    answer = ": type rematch (or yes) to play it, colours swapped" if core.playing else ""
    return f"rematch {who(core, key)} asks for a rematch{answer}"


BOT_SEAT = "a bot holds this seat"
"""How a bot seat's chat line, once its game is over, begins: another bot seat that reads it knows no person is there
to ask for a rematch, and leaves at once."""


def bot_rematch_chat(seconds: float) -> str:
    """What a bot seat says in chat once its game is over, while it waits ``seconds`` for a rematch to be asked."""
    return f"{BOT_SEAT}: type rematch within {seconds:.0f} s to play again (colours swapped)"


def bot_said(core: GameCore, event: object) -> bool:
    """Whether ``event`` is the opponent's chat line saying that a bot holds its seat (:func:`bot_rematch_chat`)."""
    return isinstance(event, ChatReceived) and event.key == core.opponent and event.text.startswith(BOT_SEAT)


def _last_moves(plies: int) -> str:
    return "the last move" if plies == 1 else "the last two moves (one of each)"


def takeback_text(core: GameCore, event: TakebackAsked) -> str:
    """What a takeback line says: an asking (``takeback black 1a2b-… asks to take back the last move: type takeback to
    agree, takeback no to refuse``), a consent, or a refusal."""
    mine = core.my_player is not None and event.player == core.my_player
    name = "you" if mine else event.player
    if event.plies == 0:
        return f"takeback: {name} refuse{'' if mine else 's'}: the moves stand"
    other = core.opponent
    answered = core.takeback_asked() if mine else (core.session.takeback_of(core.me) if core.me is not None else None)
    if answered is not None and answered.plies == event.plies:
        return f"takeback: {name} agree{'' if mine else 's'} to take back {_last_moves(event.plies)}"
    if mine:
        waiting = core.session.name_of(other) if other is not None else "the other player"
        return f"takeback: you ask to take back {_last_moves(event.plies)}: waiting for {waiting}'s answer"
    answer = ": type takeback to agree, takeback no to refuse" if core.playing else ""
    return f"takeback: {event.player} asks to take back {_last_moves(event.plies)}{answer}"


def taken_back_text(core: GameCore, event: MovesTakenBack) -> str:
    """An undo, in words: ``takeback: move 7 (f6) taken back by agreement; black to move``."""
    first = len(core.played()) + 1
    numbers = f"move {first}" if event.plies == 1 else f"moves {first} and {first + 1}"
    moves = ", ".join(reversed(event.moves))
    return f"takeback: {numbers} ({moves}) taken back by agreement; {core.turn} to move"


def rematch_hint(core: GameCore, typed: str = "rematch (or yes)", leave: str = "quit (or Ctrl-D)") -> str | None:
    """What a console says once a player's game is over, while a rematch may be asked (:attr:`GameCore.rematch_open`):
    how to ask (``typed``) and how to leave instead (``leave``); ``None`` when no rematch may be."""
    if not core.rematch_open or core.rematch_asked is not None:
        return None
    return f"Type {typed} for a rematch (the same terms, colours swapped); {leave} leaves."


def rematch_brief(core: GameCore, key: str) -> str | None:
    """A rematch in a few words, for a toolbar or a prompt once the game is over (``key``: what asks, or accepts):
    ``r: rematch``; asked, ``rematch asked: r accepts`` (by the other player) or ``rematch asked: waiting`` (by this
    one); ``no rematch: black left`` once the other player's client has left; ``None`` when no rematch may be
    (:attr:`GameCore.rematch_open`)."""
    if not core.rematch_open:
        return None
    opponent = core.opponent
    if opponent is not None and core.present(opponent) is False:
        return f"no rematch: {core.session.name_of(opponent)} left"
    asked = core.rematch_asked
    if asked is None:
        return f"{key}: rematch"
    return "rematch asked: waiting" if asked == core.me else f"rematch asked: {key} accepts"


# -- the clocks, as every front end shows them ----------------------------------------------------
def clock_now_ms(core: GameCore, player: str) -> int | None:
    """``player``'s clock now (ms), as every front end shows it (``None`` untimed, or before the seats are drawn):
    :meth:`GameCore.clock_left` (the side to move's running), except once the game is over on time: the flagged
    player's reads 0 (:func:`client.words.record.out_of_time`), save ours while we may still answer the timeout that
    ended it, which runs on our watch (:meth:`GameCore.answer_left_ms`)."""
    if core.session.clock is None:
        return None
    if core.answering and player == core.my_player:
        return core.answer_left_ms()
    if player == out_of_time(core.session):
        return 0
    return core.clock_left(player)


def clock_shown(core: GameCore, player: str) -> str | None:
    """``player``'s clock as every toolbar shows it: :func:`clock_now_ms` with the thinking the receipts leave
    unexplained beside it, ``≤`` before it when it is only an upper bound (:meth:`GameCore.clock_is_bound`: a turn
    this client did not see begin); ``None`` untimed."""
    left = clock_now_ms(core, player)
    if left is None:
        return None
    return clock_left_text(left, core.unexplained_ms(player), at_most=core.clock_is_bound(player))


def move_time_shown(core: GameCore) -> str:
    """An untimed game's time on the move so far, as this client saw the turn begin: ``0:20``, or ``≥0:20`` when it
    did not see it begin (:meth:`GameCore.clock_is_bound`)."""
    turn = core.turn
    return move_time_text(core.thinking_ms(), at_least=turn is not None and core.clock_is_bound(turn))


def ticking(core: GameCore) -> str | None:
    """The player whose clock runs now: the side to move, or ours while we may answer the timeout that ended the
    game on our turn (``None``: nobody's)."""
    return core.my_player if core.answering else core.turn


def hurried(core: GameCore) -> str | None:
    """The player whose clock runs under 10 s (:data:`client.cores.clock.LOW_MS`) now, for the toolbars' warning
    style (``None``: nobody's)."""
    player = ticking(core)
    left = clock_now_ms(core, player) if player is not None else None
    return player if left is not None and left < LOW_MS else None


def clocks_now_text(core: GameCore) -> str | None:
    """A timed game's clocks now, as :func:`clock_now_ms` has them: ``clock 1+2: pink 0:52 left, black 0:56 left``
    (``None`` untimed, or before the seats are drawn)."""
    clocks = core.session.clocks
    if clocks is None:
        return None
    text = clocks_text(core.session, {player: clock_now_ms(core, player) or 0 for player in clocks})
    first = core.first_move_left_ms()
    if text is None or first is None or core.turn is None:
        return text
    return f"{text}; {core.turn}'s first move: {clock_text(first / 1000)} left (the clock starts after it)"


def out_of_time_now(core: GameCore) -> bool:
    """Whether it is our turn in a timed game and our clock has run out by our watch: no move of ours can count."""
    player = core.my_player
    return core.my_turn and player is not None and (core.clock_left(player) == 0 or core.first_move_left_ms() == 0)


def my_turn_text(core: GameCore) -> str | None:
    """What our turn asks of us, in one line: ``your move``; once our clock has run out, that we can no longer move
    and what follows; ``None`` when it is not our turn."""
    if not core.my_turn:
        return None
    if not out_of_time_now(core):
        return "your move"
    name = _opponent_name(core)
    when = f"to {name}'s claim" if core.flag_against_me() is not None else f"when {name} claims it"
    if core.first_move:
        return f"your time for a first move ran out: you can no longer move, and the game is aborted {when}"
    return f"your time ran out: you can no longer move, and your client concedes the game {when}"


# -- claims on time ------------------------------------------------------------------------------
def claim_text(core: GameCore) -> str | None:
    """The claim on time open against the player to move, as this client sees it (``None``: none is open): ``black
    claims your time ran out: move within 24 s or lose on time``, ``your claim is open: black has 24 s to answer``."""
    words = _claim_words(core)
    return None if words is None else words[0]


def claim_brief(core: GameCore) -> str | None:
    """:func:`claim_text` in a few words, for a toolbar that also shows the clocks: ``move within 24 s``,
    ``black has 24 s to answer`` (the whole sentence is under the board, or was printed when the claim came); or, no
    claim open, that one may be made (:func:`claim_due_text`): ``black out of time: type claim``."""
    words = _claim_words(core) or _due_words(core)
    return None if words is None else words[1]


def claim_due_text(core: GameCore) -> str | None:
    """That the other player's clock has run out by this client's watch, no claim of ours open and none signed for us
    (``--claim auto``): ``black's clock has run out: type claim to claim the game on time`` (``None`` otherwise)."""
    words = _due_words(core)
    return None if words is None else words[0]


def _due_words(core: GameCore) -> tuple[str, str] | None:
    ready = core.claim_ready()
    if ready is None or ready.what != "flag" or core.auto_claim:
        return None
    out = "out of time" if core.session.clock is not None else "silent"
    out = "no first move" if core.first_move else out
    return _flag_sentence(core, ready.player), f"{ready.player} {out}: type claim"


def _flag_sentence(core: GameCore, name: str) -> str:
    if core.session.clock is None:
        return f"{name} has not moved for 7 days: type claim to claim the game (abandoned)"
    if core.first_move:
        return f"{name} made no first move in time: type claim to abort the game"
    return f"{name}'s clock has run out: type claim to claim the game on time"


def ready_text(core: GameCore, ready: ClaimReady, *, bot: bool = False) -> str | None:
    """The line that tells a player what ``claim`` would now do (:class:`ClaimReady`: once a turn); ``bot``: a bot
    seat's, which reads no commands (a claim is signed for it only with ``--claim auto``): how to have it signed."""
    if ready.what == "dispute":
        sentence = claim_text(core) if core.disputable else None
    elif ready.what == "timeout":
        ended = "(aborted)" if core.first_move else "on time" if core.session.clock is not None else "(abandoned)"
        sentence = f"{ready.player} has not answered your claim: type claim to end the game {ended}"
    else:
        sentence = _flag_sentence(core, ready.player)
    if sentence is None:
        return None
    if bot:
        what = sentence.partition(": type claim")[0]
        sentence = (
            f"{what}: a bot seat claims only with --claim auto: leave (Ctrl-C) and take the game up again "
            f"with olixono resume {core.game_id} --claim auto and your --bot, or without --bot to type claim "
            "yourself"
        )
    return f"claim: {sentence}"


def _claim_words(core: GameCore) -> tuple[str, str] | None:
    """The claim on time open against the player to move: (the sentence, its few words)."""
    session = core.session
    if core.answering:
        timeout = session.answerable
        assert timeout is not None and timeout.sent is not None and timeout.flagged is not None
        left = duration_text(core.answer_left_ms())
        sentence = (
            f"{session.name_of(timeout.signer)} ended the game on time, saying you had not moved after "
            f"{duration_text(timeout.flagged - timeout.sent)}; your clock shows {left} left: move now, and the "
            f"record shows a time dispute, not their win"
        )
        return sentence, f"timed out: a move within {left} disputes it"
    if core.disputable:
        late = session.late_move
        assert late is not None
        after, waited = core.late_by_ms()
        name, think = session.name_of(late.signer), duration_text(int(late.get("think") or 0))
        what, then = (
            ("winning move", "(a time dispute, not their win)")
            if session.over
            else ("move", "(the game ends as a time dispute), or play on")
        )
        came = (
            f"{name}'s {what} came {duration_text(after)} after your claim, saying it thought {think} of the "
            f"{duration_text(waited)} you waited"
        )
        wait = core.dispute_in_ms()
        if not wait:
            return f"{came}: type claim to dispute it {then}", "late move: claim disputes it"
        wait_text = duration_text(wait)
        if session.over:
            sentence = (
                f"{came}: claim may dispute it in {wait_text}, once your claim's window to answer has passed {then}"
            )
        else:
            sentence = (
                f"{came}: claim may dispute it in {wait_text}, once your claim's window to answer has passed "
                "(the game then ends as a time dispute; your clock runs meanwhile), or play on"
            )
        return sentence, f"late move: claim disputes it in {wait_text}"
    mover = session.actor
    if mover is None or session.over or core.board is None:
        return None
    claimant = next((key for key in session.seats.values() if key != mover), None)
    flag = session.flag_of(claimant) if claimant is not None else None
    if flag is None or claimant is None:
        return None
    window = core.window_left_ms(flag)
    name, theirs = session.name_of(claimant), session.name_of(mover)
    if core.me == mover and core.first_move:
        own = core.first_move_left_ms()
        if window and own:
            left = duration_text(min(window, own))
            return (
                f"{name} claims you made no first move: move within {left} or the game is aborted",
                f"move within {left}",
            )
        return (
            f"{name} claims you made no first move, and your time for it ran out: the game is to be aborted",
            "no first move: aborting",
        )
    if core.me == mover:
        player = core.my_player
        own = core.clock_left(player) if player is not None else None  # a move must come within both
        if own == 0:
            return (
                f"{name} claims your time ran out, and your clock shows none left: your client concedes the game",
                "out of time: conceding",
            )
        if window:
            left = duration_text(window if own is None else min(window, own))
            return f"{name} claims your time ran out: move within {left} or lose on time", f"move within {left}"
        return (
            f"{name} claims your time ran out, and the window to answer has passed: move now, it may still count",
            "move now",
        )
    left = duration_text(window)
    if core.me == claimant:
        if window:
            return f"your claim is open: {theirs} has {left} to answer it", f"{theirs} has {left} to answer"
        ended = "(aborted)" if core.first_move else "on time"
        return f"{theirs} has not answered your claim: type claim to end the game {ended}", "unanswered: claim ends it"
    if core.clock_is_bound(theirs):  # a turn this client did not see begin: the window's start unknown too
        left = f"{AT_MOST}{left}"
    what = f"{theirs} made no first move" if core.first_move else f"{theirs}'s time ran out"
    return f"{name} claims {what}: {left} left to answer", f"{left} left to answer"


def conceded_text(core: GameCore, event: UiEvent) -> str | None:
    """Whether ``event`` is this client's own concession on time, signed by itself (our clock ran out with the
    other's claim open: :meth:`GameCore.tick`), in words; ``None`` otherwise."""
    if not (
        isinstance(event, LineApplied)
        and event.message.type == "timeout"
        and event.message.signer == core.me
        and event.message.now is None
    ):
        return None
    return f"your time ran out with {_opponent_name(core)}'s claim open: your client conceded the game on time"


LINE_WORDS = {
    "resign": "resignation",
    "timeout": "timeout (the game's end on time)",
    "flag": "claim on time",
    "propose": "proposal",
    "agree": "agreement",
    "decline": "refusal of the proposal",
    "withdraw": "withdrawal of the proposal",
    "claim": "claim of the game (a forfeit)",
    "undo": "takeback",
}
"""A line of the game, in a word or two, where it is named by itself (a line set aside): its type otherwise."""
SEATING = frozenset({"join", "accept", "reveal", "claim"})


def _line_words(core: GameCore, line: Message) -> str:
    """A line of the game, in words: ``move 3 (Oc6c5)``; ``resignation in the turn of move 3``. The number is
    the move's, as ``move N`` numbers them (a line's turn is the next move's), not the line's seq."""
    number = moves_before(core.session, line.seq) + 1
    if line.type == "move":
        return f"move {number} ({line.move})"
    words = LINE_WORDS.get(line.type, line.type)
    return words if line.type in SEATING else f"{words} in the turn of move {number}"


def _opponent_name(core: GameCore) -> str:
    other = core.opponent
    return core.session.name_of(other) if other is not None else "the other player"


def _line_applied(core: GameCore, event: LineApplied) -> str | None:
    """A line joined the transcript: nothing to read, but for a claim on time (a ``flag``; the other's move that came
    after ours, which we may dispute) and this client's own concession on time."""
    if event.message.type == "flag" or (
        event.message.type == "move" and core.disputable and event.message == core.session.late_move
    ):
        claim = claim_text(core)
        return None if claim is None else f"claim: {claim}"
    conceded = conceded_text(core, event)
    return None if conceded is None else f"claim: {conceded}"


def _unread(core: GameCore, event: object) -> None:
    """An event nobody needs to read (``ResyncNeeded``: the runner asks the relay again)."""
    return None


def _moved(core: GameCore, event: MoveApplied) -> str:
    text = f"move {event.ply} {event.player} {event.move}"
    timed = core.move_clock(event.seq)
    return text if timed is None else f"{text} (thought {timed[0] / 1000:.1f} s, {clock_text(timed[1] / 1000)} left)"


def _game_over(core: GameCore, event: GameOver) -> str:
    text = f"result: {event.result.sentence()} ({event.result.code()})"
    branch = branch_text(core.session, lambda key: who(core, key))
    return f"{text} ({branch})" if branch else text


def _confirmed(core: GameCore, event: ConfirmationReceived) -> str | None:
    confirmed = confirmation_text(core.session, lambda key: who(core, key))
    if confirmed == f"result confirmed by {who(core, event.key)} only":  # not the same words twice in a line
        confirmed = "the other player's confirmation has not come yet"
    return f"confirmed by {who(core, event.key)}: {confirmed}" if confirmed else None


def _offered(core: GameCore, event: OfferReceived) -> str:
    invite = (
        "" if event.invite is None else " for you" if event.invite == core.me else f" for {event.invite.fingerprint}"
    )
    control = TimeControl.of_terms(event.terms)  # (the offer verified: its terms name a control it can play)
    clock = "" if control is None else f", clock {control_words(control)}"
    return f"offer {event.game} {event.kind} by host {event.host.fingerprint}{invite}{clock}"


def _join_asked(core: GameCore, event: JoinRequested) -> str:
    return f"join asked by {event.key.fingerprint}" + (" (you)" if event.key == core.me else "")


def _guest_seated(core: GameCore, event: GuestAccepted) -> str:
    # by role: the host seats the guest before the coin is drawn (its colour then in the seats line), and every reader
    # says it alike, the guest who learns its colour at once too
    return f"seated guest {event.key.fingerprint}" + (" (you)" if event.key == core.me else "")


def _started(core: GameCore, event: GameStarted) -> str:
    return "seats " + ", ".join(f"{who(core, key)}" for _, key in event.seats) + f"; {event.seats[0][0]} moves first"


def _proposed(core: GameCore, event: EndProposed) -> str:
    offer = GAME_WORDS[core.kind].proposal
    theirs = core.playing and core.my_player is not None and event.player != core.my_player
    answer = " (it stands: answer it on your turn with agree or decline)" if theirs else ""
    return f"proposal {event.player} {offer}{answer}"


def _superseded(core: GameCore, event: Superseded) -> str:
    set_aside, stands = (_line_words(core, line) for line in (event.message, event.by))
    return (
        f"set aside: {who(core, event.message.signer)}'s {set_aside} does not count: "
        f"{who(core, event.by.signer)}'s {stands} was sent for the same place in the game, and stands over it"
    )


def _claim_voided(core: GameCore, event: ClaimVoided) -> str:
    return (
        f"claim voided: the time witnesses saw {who(core, event.timeout.signer)}'s timeout come before the "
        "claim's window had passed, or after the answer: the game goes on"
    )


def _equivocation(core: GameCore, event: EquivocationDetected) -> str:
    return f"warning: {proof_text(core.session, event, lambda key: who(core, key))}"


def _relay_changed(core: GameCore, event: Connection) -> str:
    if event.sentence.startswith(WHOLE):  # one of several relays, said whole (client.cores.relays)
        return event.sentence
    if not event.connected and relay_left_with_host(core):
        return f"relay lost: {event.sentence.removesuffix(START_ONE)}: {HOST_RAN_RELAY_LIVE.format(game=core.game_id)}"
    return f"relay {'connected' if event.connected else 'lost'}: {event.sentence}"


Describer = Callable[[GameCore, Any], str | None]
"""How one type of event is said (the event is of the type its row names)."""
EventT = TypeVar("EventT")


def _row(kind: type[EventT], words: Callable[[GameCore, EventT], str | None]) -> tuple[type, Describer]:
    """A row of :data:`DESCRIBERS`, the type checker holding ``words`` to the events of type ``kind``."""
    return kind, words


DESCRIBERS: dict[type, Describer] = dict(
    [
        _row(LineApplied, _line_applied),
        _row(ResyncNeeded, _unread),
        _row(MoveApplied, _moved),
        _row(GameOver, _game_over),
        _row(ConfirmationReceived, _confirmed),
        _row(OfferReceived, _offered),
        _row(JoinRequested, _join_asked),
        _row(GuestAccepted, _guest_seated),
        _row(GameStarted, _started),
        _row(EndProposed, _proposed),
        _row(ProposalWithdrawn, lambda core, event: f"withdrawn by {event.player}: the proposal is off"),
        _row(EndDeclined, lambda core, event: f"declined by {event.player}: the proposal is off"),
        _row(ChatReceived, lambda core, event: f"chat {who(core, event.key)}: {event.text}"),
        _row(TalkReceived, talk_text),
        _row(
            PresenceChanged, lambda core, event: f"presence {who(core, event.key)} {'here' if event.here else 'gone'}"
        ),
        _row(RematchAsked, lambda core, event: rematch_text(core, event.key)),
        _row(TakebackAsked, takeback_text),
        _row(MovesTakenBack, taken_back_text),
        _row(Superseded, _superseded),
        _row(ClaimVoided, _claim_voided),
        _row(LineRejected, lambda core, event: f"warning: line rejected: {event.code} {event.detail}"),
        _row(EquivocationDetected, _equivocation),
        _row(ProofSaved, lambda core, event: f"warning: the proof is saved in {event.path}"),
        _row(Connection, _relay_changed),
        _row(Notice, lambda core, event: f"{'warning' if event.warning else 'notice'}: {event.text}"),
        _row(ClaimReady, ready_text),
        _row(
            ClockLow,
            lambda core, event: f"warning: under 10 s left on your clock ({clock_left_text(event.left_ms)}): move now",
        ),
    ]
)
"""Each event a front end is told (every type of :data:`client.cores.network_game.UiEvent`), and how it is said: a line,
or ``None`` for an event nobody needs to read."""


def describe(core: GameCore, event: UiEvent) -> str | None:
    """The line for ``event`` (``None`` for events nobody needs to read: a line joined the transcript)."""
    return DESCRIBERS[type(event)](core, event)


# -- what a command shows, leaving ---------------------------------------------------------------
def clock_report(core: GameCore) -> str:
    """The ``clock`` command's line: the time control, both clocks as every front end shows them, and the thinking
    the receipts leave unexplained (``clock 5+3 (…): pink 4:07 left (to move), black 3:59 left; unexplained …``);
    untimed, the side to move's time on this move."""
    control = core.session.clock
    head = f"clock {control_words(control)}"
    board, turn = core.board, ticking(core)
    if board is None or not core.started:
        return f"{head}: the seats are not drawn yet"
    if control is None:
        if turn is None:
            return f"{head}: nobody is to move"
        bound = f"; {AT_LEAST}: {BOUND_WHY}" if core.clock_is_bound(turn) else ""
        return (
            f"{head}: {turn} to move, {move_time_shown(core)} on this move (a player silent for 7 days may be "
            f"claimed against){bound}"
        )
    clocks = ", ".join(
        f"{player} {clock_left_text(clock_now_ms(core, player) or 0, at_most=core.clock_is_bound(player))}"
        f" left{' (to move)' if player == turn else ''}"
        for player in board.PLAYERS
    )
    unexplained = ", ".join(f"{player} {core.unexplained_ms(player) / 1000:.1f} s" for player in board.PLAYERS)
    bound = f"; {AT_MOST}: {BOUND_WHY}" if any(core.clock_is_bound(player) for player in board.PLAYERS) else ""
    return f"{head}: {clocks}; unexplained (each side's, as the other's receipts measure it): {unexplained}{bound}"


def shown_now(core: GameCore, name: str) -> str | None:
    """What a network game's command that only shows something shows, where :func:`client.words.commands.shown` cannot
    say (it knows no protocol): ``clock``; ``None`` for the others."""
    return clock_report(core) if name == "clock" else None


HOST_RAN_RELAY = (
    "your host's program ran this relay, and it ended with it (they left, or their program stopped): the "
    "game waits for them to take it up again (`olixono resume`), which starts the relay again"
)
"""Why a guest's relay is gone when it ran in the host's program."""
HOST_RAN_RELAY_LIVE = HOST_RAN_RELAY + (
    "; this program connects by itself then, or leave and take the game up later with `olixono resume {game}`"
)
"""What a guest playing reads when the relay that ran in the host's program goes (``game``: its id)."""
HOST_RAN_RELAY_LATER = HOST_RAN_RELAY + "; then take the game up again with `olixono resume {game}`"
"""What a guest's ``resume`` says when nothing answers where the host's program ran the relay."""
HOST_RELAY_GONE = (
    "the relay ended with your host's program, and nothing waits on it: your lines are kept here, and "
    "`olixono resume {game}` takes the game up once the host has taken it up again"
)
"""What a guest reads on leaving while the relay that ran in the host's program is gone."""
RELAY_ENDS_WITH_YOU = (
    "this program runs the relay {name} plays through: leaving ends it for them too, and the game "
    "waits until you take it up again with `olixono resume {game}`"
)
"""What a host who runs the game's relay reads on leaving mid-game."""


def presence_word(core: GameCore, key: PublicKey, connected: bool) -> str:
    """A seated player's presence in a word, as a toolbar shows it: ``unknown`` while the relay is lost (what it said
    last may be stale: a relay that ends with a player's program never sends their will)."""
    if not connected:
        return "unknown"
    present = core.present(key)
    return "here" if present else "gone" if present is False else "not seen"


def relay_left_with_host(core: GameCore) -> bool:
    """Whether this guest's relay ran in the host's program (and so went with it), in a game not over."""
    return core.relay_with_host and core.me != core.session.host and not core.watching and not core.over


def leaving_warning(core: GameCore, again: str = "quit") -> str | None:
    """Why leaving now may cost the game, asking to confirm (``again``: the command typed again, ``quit`` or ``/quit``):
    a claim on time open against us, or our turn in a live timed game (our clock runs while we are away); ``None``
    when leaving costs nothing."""
    player = core.my_player
    if core.watching or not core.playing or core.over or player is None:
        return None
    name, confirm = _opponent_name(core), f"type {again} again to leave"
    against, own = core.flag_against_me(), core.clock_left(player)
    if against is not None:
        window = core.window_left_ms(against)
        left = window if own is None else min(window, own)
        claim = f"{name}'s claim on time is open"
        if not left:
            return f"{claim} and its window to answer has passed: {name} may end the game now; {confirm}"
        lose = "you lose on time" if core.session.clock is not None else f"{name} may end the game"
        return f"{claim}: unless you move within {duration_text(left)}, {lose}; {confirm}"
    control = core.session.clock
    if core.my_turn and control is not None and not control.days:
        when = duration_text(claim_after(control, own or 0))
        return f"your clock runs while you are away: {name} may claim the game on time in {when}; {confirm}"
    if core.host_relay and core.me == core.session.host and core.opponent is not None:
        return f"{RELAY_ENDS_WITH_YOU.format(name=name, game=core.game_id)}; {confirm}"
    return None
