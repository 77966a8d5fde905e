"""One game's client core, sans I/O: intents and lines in, lines to publish and events out.

A :class:`GameCore` owns the game's :class:`protocol.GameSession` and its
journal. Every front end (the line console, a bot seat, the ``--plain``
printer, the full-screen console) and the transport talk only to it:

- :meth:`GameCore.act` takes the local person's intent (:class:`Intent`) and
  either refuses it with one clear sentence (:class:`IntentRefused`) before
  anything is signed, or returns a :class:`Step`: the lines to publish and the
  events the intent caused;
- :meth:`GameCore.feed` takes a line the transport delivered and returns a Step;
- :meth:`GameCore.republish` lists everything this client keeps on the relay,
  for a (re)connection.

The core does what the protocol asks of every client without being told: it
journals each applied line before anything it caused is published, copies
the other player's lines under this player's key (``PROTOCOL.md`` §7), accepts
the first valid join when hosting, reveals the coin when accepted, and keeps
every equivocation proof next to the journal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from olixono.common import InvalidMoveError
from protocol import (
    EquivocationDetected,
    Event,
    GameSession,
    GuestAccepted,
    Identity,
    JoinRequested,
    LineApplied,
    LocalProtocolError,
    Message,
    Outgoing,
    Phase,
    PublicKey,
    ResyncNeeded,
    copy_topic,
    decode,
    topic_for,
)

INTENTS = ("move", "resign", "propose", "withdraw", "decline", "agree", "abort", "claim", "chat")


class IntentRefused(ValueError):
    """What the person asked for cannot be done now; the message is one sentence to show them."""


@dataclass(frozen=True, slots=True)
class Intent:
    """What the local person wants: ``kind`` is one of :data:`INTENTS`; ``text`` the move or the chat text."""

    kind: str
    text: str = ""

    def __post_init__(self) -> None:
        if self.kind not in INTENTS:
            raise ValueError(f"unknown intent {self.kind!r}: expected one of {', '.join(INTENTS)}")


@dataclass(frozen=True, slots=True)
class Publish:
    """One retained line to publish (QoS 1) on ``topic``."""

    topic: str
    line: str


@dataclass(frozen=True, slots=True)
class ProofSaved:
    """An equivocation proof was written next to the journal (an event for front ends)."""

    proof: EquivocationDetected
    path: str


@dataclass(frozen=True, slots=True)
class Step:
    """What one intent or one incoming line caused."""

    publish: tuple[Publish, ...] = ()
    events: tuple[Event | ProofSaved, ...] = ()
    resubscribe: bool = False
    """The session asks for the game's lines again (subscribe once more: the relay resends what it retains)."""


class JournalLike(Protocol):
    """What the core needs of a journal (``client.journal.Journal``; a list will do in tests)."""

    def append(self, line: str) -> None: ...

    def keep_secret(self, secret: str | None) -> None: ...

    def save_proof(self, proof: EquivocationDetected) -> object: ...

    def lines(self) -> list[str]: ...


class GameCore:
    """The client side of one game, for a player or a spectator.

    The session's identity is the player's; a spectator has none, or has one and is a *witness*: it copies
    every line it verifies under its own key, one more holder that history needs to survive.
    """

    def __init__(self, session: GameSession, journal: JournalLike | None = None, *, auto_accept: bool = True,
                 watching: bool = False) -> None:
        self.session = session
        self.journal = journal
        self.auto_accept = auto_accept
        self.watching = watching or session.identity is None
        me = f" by={self.me.text} " if self.me is not None else None
        self._my_join = next((line for line in journal.lines() if line.startswith("olixono/1 join ") and me and me in line),
                             None) if journal is not None else None
        """Our join, journaled when it was signed: not again when the accept brings it into the transcript."""

    @property
    def playing(self) -> bool:
        """Whether this client holds (or asks for) a seat, rather than watching."""
        me = self.me
        return me is not None and (self.session.role_of(me) is not None or me in self.session.joins)

    @property
    def me(self) -> PublicKey | None:
        return self.session.identity.public if self.session.identity is not None else None

    @property
    def my_player(self) -> str | None:
        """This player's name (``pink``, ``first``, …) once the seats are drawn."""
        me = self.me
        return self.session.player_of(me) if me is not None else None

    @property
    def opponent(self) -> PublicKey | None:
        """The other seated key, once known."""
        me, host, guest = self.me, self.session.host, self.session.guest
        if me is None or host is None:
            return None
        return guest if me == host else host

    @property
    def my_turn(self) -> bool:
        return self.me is not None and self.session.actor == self.me and self.session.phase is Phase.PLAYING

    # -- lines in ------------------------------------------------------------------
    def feed(self, data: bytes | str) -> Step:
        """A line the transport delivered."""
        return self._after(self.session.receive(data))

    # -- intents in -------------------------------------------------------------------
    def act(self, intent: Intent) -> Step:
        """Sign and apply what the person asked for, or :class:`IntentRefused` (nothing signed)."""
        session = self.session
        if not self.playing:
            raise IntentRefused("you are watching this game: only its players can act")
        if session.over and intent.kind != "chat":
            assert session.result is not None
            raise IntentRefused(f"the game is over: {session.result.sentence()}")
        try:
            out = self._sign(intent)
        except LocalProtocolError as exc:
            raise IntentRefused(self._why(intent, str(exc))) from None
        return self._after(list(out.events), out)

    def _sign(self, intent: Intent) -> Outgoing:
        session = self.session
        if intent.kind == "move":
            return session.move(self._checked_move(intent.text))
        if intent.kind == "chat":
            return session.chat(intent.text)
        action = {"resign": session.resign, "propose": session.propose, "withdraw": session.withdraw,
                  "decline": session.decline, "agree": session.agree, "abort": session.abort, "claim": session.claim}
        return action[intent.kind]()

    def _checked_move(self, text: str) -> str:
        """The move's canonical text, or :class:`IntentRefused` saying why it cannot be played now."""
        session = self.session
        board = session.board
        if board is None or session.phase is not Phase.PLAYING:
            raise IntentRefused("the game has not started yet: the players' seats are not drawn")
        if not self.my_turn:
            raise IntentRefused(f"it is not your turn: {board.turn} is to move")
        try:
            move = board.parse_move(text.strip())
        except InvalidMoveError as exc:
            raise IntentRefused(f"not a move: {exc}") from None
        reason = board.why_illegal(move)
        if reason is not None:
            raise IntentRefused(f"illegal: {reason}")
        return str(move.text())

    def _why(self, intent: Intent, detail: str) -> str:
        """One sentence for a refused intent, from the protocol's detail."""
        session = self.session
        board = session.board
        if session.phase is Phase.PLAYING and not self.my_turn and intent.kind not in ("resign", "abort", "chat"):
            assert board is not None
            return f"it is not your turn: {board.turn} is to move"
        reason = detail.split(": ", 1)[1] if detail.startswith("cannot ") and ": " in detail else detail
        if intent.kind == "abort" and "first move" in reason:
            return "you can abort only before your first move: resign instead"
        return f"you cannot {intent.kind} now: {reason}" if intent.kind != "chat" else reason

    # -- what the relay should hold ---------------------------------------------------
    def republish(self) -> list[Publish]:
        """Every line this client keeps on the relay: its own lines, and copies of the other's (or the watched game's
        lines, for a witness): published again on every (re)connection, for a relay that lost them."""
        lines = self.journal.lines() if self.journal is not None else list(self.session.transcript)
        out: list[Publish] = []
        for line in lines:
            try:
                message = decode(line, verify=False)
            except ValueError:
                continue  # a damaged journal line: the relay may still hold it
            out.append(self._placement(message))
        return out

    def _placement(self, message: Message) -> Publish:
        me = self.me
        if me is None or message.signer == me:
            return Publish(topic_for(message), message.line)
        return Publish(copy_topic(message, me), message.line)

    def presence(self, here: bool, connection: int) -> Publish | None:
        """This player's presence line for connection number ``connection`` (``None`` for a watcher)."""
        if self.watching or connection < 1:
            return None
        out = self.session.presence(here, connection)
        return Publish(out.topic, out.line)

    # -- what follows from each step ----------------------------------------------------
    def _after(self, events: list[Event], own: Outgoing | None = None) -> Step:
        """Journal what was applied, then the lines to publish: our own line, copies, automatic answers."""
        publish: list[Publish] = []
        shown: list[Event | ProofSaved] = []
        resubscribe = False
        queue = list(events)
        while queue:
            event = queue.pop(0)
            shown.append(event)
            if isinstance(event, LineApplied):
                if self.journal is not None and event.line != self._my_join:
                    self.journal.append(event.line)
                if self.me is not None and event.message.signer != self.me:
                    publish.append(self._placement(event.message))
            elif isinstance(event, EquivocationDetected) and self.journal is not None:
                shown.append(ProofSaved(event, str(self.journal.save_proof(event))))
            elif isinstance(event, ResyncNeeded):
                resubscribe = True
            follow = self._automatic(event)
            if follow is not None:
                queue.extend(follow.events)
                publish.append(Publish(follow.topic, follow.line))
        if own is not None:
            publish.insert(0, Publish(own.topic, own.line))
        return Step(tuple(publish), tuple(shown), resubscribe)

    def _automatic(self, event: Event) -> Outgoing | None:
        """The protocol's own next step, if this event calls for one of ours."""
        session, me = self.session, self.me
        if me is None:
            return None
        if isinstance(event, JoinRequested) and self.auto_accept and session.host == me and session.phase is Phase.OFFERED:
            return session.accept(event.key)
        if isinstance(event, GuestAccepted) and event.key == me and session.phase is Phase.ACCEPTED and session.secret:
            return session.reveal()
        return None

    # -- starting a game ------------------------------------------------------------------
    @classmethod
    def hosting(cls, kind: str, identity: Identity, *, invite: PublicKey | None = None,
                journal: Callable[[GameSession], JournalLike] | None = None) -> tuple[GameCore, Step]:
        """A new game hosted by ``identity``: the core (with the journal ``journal`` makes for the new game) and
        the offer to publish."""
        session, out = GameSession.offer(kind, identity, invite=invite)
        core = cls(session, journal(session) if journal is not None else None)
        return core, core._after(list(out.events), out)

    def join(self) -> Step:
        """Ask for the guest's seat (the offer must have arrived): the join to publish (its secret journaled first)."""
        try:
            out = self.session.join()
        except LocalProtocolError as exc:
            raise IntentRefused(f"cannot join: {exc}") from None
        if self.journal is not None and self._my_join is None:  # a candidate's join is not applied: keep it for resume
            self.journal.keep_secret(self.session.secret)
            self.journal.append(out.line)
            self._my_join = out.line
        return self._after(list(out.events), out)
