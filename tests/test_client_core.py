"""The client core, with no network: intents, automatic steps, copies, journal, refusals, resuming."""

from __future__ import annotations

import random

import pytest
from protocol_helpers import GUEST, HOST, STRANGER, board_of, playable, result_of

from client.cores.intents import Intent, IntentRefused
from client.cores.network_game import GameCore, Notice, Publish, Step, UiEvent
from client.shell.journal import Journal, JournalMeta
from protocol import (
    EquivocationDetected,
    GameOver,
    GameSession,
    GameStarted,
    LineRejected,
    MoveApplied,
    Phase,
    PublicKey,
    copy_topic,
    decode,
    topic_for,
)
from protocol.clock import TimeControl


class MemoryJournal:
    def __init__(self) -> None:
        self.written: list[str] = []
        self.secret: str | None = None
        self.proofs: list[EquivocationDetected] = []

    def append(self, line: str) -> None:
        self.written.append(line)

    def keep_secret(self, secret: str | None) -> None:
        self.secret = secret

    def save_proof(self, proof: EquivocationDetected) -> str:
        self.proofs.append(proof)
        return f"proof-{len(self.proofs)}"

    def lines(self) -> list[str]:
        return list(self.written)


class Relay:
    """What a relay retains, and who has seen what: every publish reaches every core; each core's journal gets what
    its steps say to journal (as the runner does: our own lines before they are published)."""

    def __init__(self) -> None:
        self.retained: dict[str, str] = {}
        self.cores: list[GameCore] = []
        self.events: dict[int, list[UiEvent]] = {}
        self.journals: dict[int, MemoryJournal] = {}

    def attach(self, core: GameCore, journal: MemoryJournal | None = None) -> None:
        self.cores.append(core)
        self.events[id(core)] = []
        self.journals[id(core)] = journal or MemoryJournal()
        for line in list(self.retained.values()):
            self.deliver(core, line)

    def record(self, core: GameCore, step: Step) -> None:
        journal = self.journals[id(core)]
        if step.secret is not None:
            journal.keep_secret(step.secret)
        journal.written.extend(step.journal)
        journal.proofs.extend(step.proofs)
        self.events[id(core)].extend(step.events)

    def publish(self, step: Step, source: GameCore | None = None) -> None:
        if source is not None:
            self.record(source, step)
        for item in step.publish:
            self.retained[item.topic] = item.line
            for core in list(self.cores):
                self.deliver(core, item.line)

    def deliver(self, core: GameCore, line: str) -> None:
        step = core.feed(line)
        self.record(core, step)
        self.publish(Step(step.publish))


def my_player(core: GameCore) -> str:
    """The seat of ``core``'s player (``first`` or ``second``): the game's seats are drawn."""
    player = core.my_player
    assert player is not None, "not seated"
    return player


def my_key(core: GameCore) -> PublicKey:
    """``core``'s own key (a player's or a watcher's with one)."""
    key = core.me
    assert key is not None, "a watcher without a key"
    return key


def hosted(kind: str = "oxono") -> tuple[Relay, GameCore, GameCore, MemoryJournal, MemoryJournal]:
    relay = Relay()
    host_journal, guest_journal = MemoryJournal(), MemoryJournal()
    host, offer = GameCore.hosting(kind, HOST)
    relay.attach(host, host_journal)
    relay.publish(offer, host)
    guest = GameCore(GameSession(host.session.game_id, GUEST))
    relay.attach(guest, guest_journal)
    relay.publish(guest.join(), guest)
    return relay, host, guest, host_journal, guest_journal


def test_the_host_accepts_and_the_guest_reveals_without_being_asked():
    relay, host, guest, host_journal, guest_journal = hosted()
    assert host.session.phase is Phase.PLAYING and guest.session.phase is Phase.PLAYING
    assert host.session.transcript == guest.session.transcript
    assert host_journal.written == list(host.session.transcript)
    assert guest_journal.written[:2] == [host.session.transcript[0], host.session.transcript[1]]  # the offer, its join
    assert guest_journal.secret is not None
    assert any(isinstance(e, GameStarted) for e in relay.events[id(guest)])


@pytest.mark.parametrize("kind", ["oxono", "olix"])
def test_a_whole_game_by_intents_with_copies_and_a_late_spectator(kind):
    relay, host, guest, host_journal, guest_journal = hosted(kind)
    rng = random.Random(5)
    for _ in range(200):
        if host.session.over:
            break
        mover = host if host.my_turn else guest
        move = rng.choice(playable(mover.session))
        relay.publish(mover.act(Intent("move", move)), mover)
    assert host.session.result == guest.session.result and host.session.result is not None
    assert host.session.confirmed_by == {HOST.public, GUEST.public}  # each confirmed the ending without being asked
    for journal in (host_journal, guest_journal):  # the journal rebuilds the same game
        assert GameSession.restore(journal.written).transcript == host.session.transcript
    copies = [t for t in relay.retained if "/copy/" in t]
    assert len(copies) == len(host.session.transcript)  # each line of one player, held by the other too
    watcher = GameCore(GameSession(host.session.game_id))
    relay.attach(watcher)
    assert watcher.session.transcript == host.session.transcript
    assert not [e for e in relay.events[id(watcher)] if isinstance(e, LineRejected)]


def test_the_cores_board_is_one_copy_for_each_state_of_the_record():
    """Front ends read ``core.board`` several times a redraw: the same copy while nothing changed, a new one after a
    move, and always the record's position."""
    relay, host, guest, *_ = hosted()
    mover = host if host.my_turn else guest
    first = board_of(mover)
    assert first is mover.board and first.position() == mover.session.position
    relay.publish(mover.act(Intent("move", first.legal_moves()[0].text())), mover)
    assert mover.board is not first and board_of(mover).position() == mover.session.position != first.position()
    assert board_of(guest).position() == board_of(host).position()


def test_refusals_are_one_sentence_and_sign_nothing():
    relay, host, guest, *_ = hosted()
    mover, waiter = (host, guest) if host.my_turn else (guest, host)
    witness = GameCore(GameSession(host.session.game_id, STRANGER))  # a watcher with a key copies what it verifies
    relay.attach(witness)
    assert len([t for t in relay.retained if f"/{STRANGER.public.text}/copy/" in t]) == len(host.session.transcript)
    before = dict(relay.retained)
    with pytest.raises(IntentRefused, match=r"^it is not your turn: pink is to move$"):
        waiter.act(Intent("move", "Oc6c5"))
    with pytest.raises(IntentRefused, match=r"^not a move"):
        mover.act(Intent("move", "hello"))
    with pytest.raises(IntentRefused, match=r"^illegal: "):
        mover.act(Intent("move", "Xa1a1"))
    with pytest.raises(IntentRefused, match=r"^it is not your turn"):
        waiter.act(Intent("propose"))
    with pytest.raises(IntentRefused, match=r"^you cannot agree now: [^:]*none is open") as refused:
        mover.act(Intent("agree"))
    assert str(refused.value).count("cannot") == 1  # the protocol's why alone, not its sentence again
    with pytest.raises(IntentRefused, match=r"^[^:]*format") as refused:  # a chat's problem, as it is
        mover.act(Intent("chat", "hidden\u200bspace"))
    assert "cannot" not in str(refused.value)
    with pytest.raises(IntentRefused, match="watching"):
        witness.act(Intent("resign"))
    assert relay.retained == before
    with pytest.raises(ValueError):
        Intent("teleport")


def test_resigning_while_the_opponent_thinks_ends_the_game_for_everyone():
    relay, host, guest, *_ = hosted()
    mover, waiter = (host, guest) if host.my_turn else (guest, host)
    relay.publish(waiter.act(Intent("resign")), waiter)
    assert host.session.result == guest.session.result and result_of(host.session).reason == "resigned"
    with pytest.raises(IntentRefused, match="the game is over"):
        mover.act(Intent("move", playable(mover.session)[0]))
    relay.publish(mover.act(Intent("chat", "good game")), mover)  # chat goes on


def test_the_views_front_ends_read_say_the_clock_the_confirmations_and_the_proofs():
    """What front ends read of a game instead of its session: the time control, whether both players confirmed the
    ending, the seated keys' proofs."""
    relay, host, guest, *_ = hosted()
    assert host.time_control is None and not host.ending_confirmed and host.seated_proofs == ()
    waiter = guest if host.my_turn else host
    relay.publish(waiter.act(Intent("resign")), waiter)
    assert host.ending_confirmed and guest.ending_confirmed  # each confirmed the resignation, and saw the other's
    timed, _ = GameCore.hosting("oxono", HOST, control=TimeControl.parse("5+3"))
    assert timed.time_control == TimeControl.parse("5+3")


def test_republish_lists_own_lines_at_their_topics_and_the_others_as_copies():
    relay, host, _guest, host_journal, _ = hosted()
    relay.publish(host.act(Intent("chat", "hi")), host)
    items = host.republish()
    assert [item.line for item in items] == [line for line in host_journal.written]
    offer = host.session.chain[0]
    assert Publish(topic_for(offer), offer.line) in items
    join = host.session.chain[1]
    assert all("/copy/" in item.topic for item in items if item.line == join.line)


def test_a_restored_player_continues_and_a_proof_is_saved(tmp_path):
    _relay, host, guest, _host_journal, guest_journal = hosted()
    journal = Journal.create(
        JournalMeta(
            host.session.game_id or "", "oxono", "guest", GUEST.public.text, "mqtt://x", secret=guest_journal.secret
        ),
        tmp_path,
    )
    for line in guest_journal.written:
        journal.append(line)
    restored = GameCore(GameSession.restore(journal.lines(), GUEST, secret=journal.meta.secret))
    assert restored.session.transcript == guest.session.transcript
    mover = host if host.my_turn else restored
    step = mover.act(Intent("move", playable(mover.session)[0]))
    other = restored if mover is host else host
    assert any(isinstance(e, MoveApplied) for e in other.feed(step.publish[0].line).events)
    twin = GameSession.restore(mover.session.transcript[:-1], mover.session.identity)
    fork = twin.move(board_of(twin).legal_moves()[-1].text()).line
    if mover is host:  # the restored guest hands the proof on, to be kept next to its journal
        (proof,) = restored.feed(fork).proofs
        assert restored.seated_proofs == (proof,)  # what the record holds against the game
        path = journal.save_proof(proof)
        assert set(path.read_text().splitlines()) == {step.publish[0].line, fork}  # (in the order of their hashes)


def test_a_game_over_event_reaches_every_core():
    relay, host, guest, *_ = hosted("olix")
    mover = host if host.my_turn else guest
    relay.publish(mover.act(Intent("abort")), mover)
    for core in (host, guest):
        assert any(isinstance(e, GameOver) for e in relay.events[id(core)])


def test_a_step_names_the_lines_to_journal_our_own_first():
    _relay, host, guest, *_ = hosted()
    mover = host if host.my_turn else guest
    step = mover.act(Intent("move", playable(mover.session)[0]))
    assert step.journal == (step.publish[0].line,)  # the runner writes it before it publishes anything
    fed = (guest if mover is host else host).feed(step.publish[0].line)
    assert fed.journal == (step.publish[0].line,) and "/copy/" in fed.publish[0].topic


def test_a_join_step_carries_the_secret_and_the_join_to_journal():
    host, offer = GameCore.hosting("oxono", HOST)
    guest = GameCore(GameSession(host.session.game_id, GUEST))
    guest.feed(offer.publish[0].line)
    step = guest.join()
    assert step.secret is not None and step.journal == (step.publish[0].line,)
    accepted = guest.feed(host.feed(step.publish[0].line).publish[0].line)
    assert step.publish[0].line not in accepted.journal  # journaled once, when it was signed


def test_the_other_players_rematch_line_is_copied_as_every_line_it_verifies():
    """A rematch line is no part of the record, but the other player copies it (``PROTOCOL.md`` §7) as any line: the
    sign its signer's client waits for before it leaves for the rematch (without it, 15 s of waiting at every
    rematch), never journaled."""

    _relay, host, guest, *_ = hosted("olix")
    mover = host if host.my_turn else guest
    other = guest if mover is host else host
    other.feed(mover.act(Intent("resign")).publish[0].line)
    asked = mover.act(Intent("rematch"))
    line = next(item.line for item in asked.publish if item.topic.endswith("/rematch"))
    fed = other.feed(line)
    assert [item.topic for item in fed.publish] == [copy_topic(decode(line, verify=False), my_key(other))]
    assert fed.journal == () and other.rematch_asked == mover.me


def test_the_consoles_rematch_words_say_when_the_other_player_has_left():
    from client.words.network import rematch_brief

    relay, host, guest, *_ = hosted("oxono")
    relay.publish(host.act(Intent("resign")), host)
    assert rematch_brief(guest, "r") == "r: rematch"
    presence = host.presence(False, 1)
    assert presence is not None
    guest.feed(presence.line)
    assert rematch_brief(guest, "r") == f"no rematch: {guest.session.name_of(my_key(host))} left"


@pytest.mark.parametrize("kind", ["oxono", "olix"])
def test_a_takeback_asked_agreed_and_carried_out_by_intents(kind):
    """``takeback`` having just moved asks for that move; the opponent's ``takeback`` on its turn carries it out (the
    undo); on one's own turn it asks for two, the other's ``takeback`` consents and the asker's client carries it out
    by itself; ``takeback no`` refuses. Both boards and the moves list follow, and the journals rebuild the game."""
    from client.words.network import describe

    relay, host, guest, host_journal, guest_journal = hosted(kind)
    rng = random.Random(11)
    for _ in range(6):
        mover = host if host.my_turn else guest
        relay.publish(mover.act(Intent("move", rng.choice(playable(mover.session)))), mover)
    waiter, actor = (guest, host) if host.my_turn else (host, guest)
    played = actor.played()
    asking = waiter.act(Intent("takeback"))
    relay.publish(asking, waiter)
    asked = decode(asking.publish[0].line, verify=False)
    assert (
        relay.retained[copy_topic(asked, my_key(actor))] == asked.line
    )  # copied as it came: the asker knows it is there
    said = [describe(actor, e) for e in relay.events[id(actor)]]
    assert (said[-1] or "").endswith("asks to take back the last move: type takeback to agree, takeback no to refuse")
    relay.publish(actor.act(Intent("takeback")), actor)
    assert host.played() == guest.played() == played[:-1] and waiter.my_turn
    said = [describe(waiter, e) for e in relay.events[id(waiter)]]
    assert f"takeback: move 6 ({played[-1][1]}) taken back by agreement; {waiter.my_player} to move" in said
    relay.publish(waiter.act(Intent("move", rng.choice(playable(waiter.session)))), waiter)
    mover, other = (host, guest) if host.my_turn else (guest, host)
    played = mover.played()
    relay.publish(mover.act(Intent("takeback")), mover)  # on its turn: its last move and the reply
    with pytest.raises(IntentRefused, match="no takeback here"):
        mover.act(Intent("takeback", "no"))  # there is nothing of the other's to refuse
    relay.publish(other.act(Intent("takeback")), other)  # consent: the asker's client undoes by itself
    assert host.played() == guest.played() == played[:-2] and mover.my_turn
    relay.publish(other.act(Intent("takeback")), other)  # the other asks for its own move back: 1
    relay.publish(mover.act(Intent("takeback", "no")), mover)
    assert describe(other, relay.events[id(other)][-1]) == f"takeback: {mover.my_player} refuses: the moves stand"
    assert host.played() == guest.played() == played[:-2]
    for journal in (host_journal, guest_journal):
        assert GameSession.restore(journal.written).transcript == host.session.transcript
    with pytest.raises(IntentRefused, match="ask your opponent"):
        host.act(Intent("undo"))


def test_a_watchers_talk_is_shown_beside_the_game_and_hidden_on_asking():
    """A watcher's ``say`` signs a talk line with its own key: every core shows it, none journals it, copies it or
    feeds it to the game; a player's ``watchers off`` hides the next (signing nothing), ``watchers on`` shows it
    again. A watcher with no key cannot talk; a player's ``say`` is the game's chat, never talk."""
    from protocol import TalkReceived

    relay, host, guest, host_journal, _guest_journal = hosted()
    watcher = GameCore(GameSession(host.session.game_id), watching=True)
    relay.attach(watcher)
    with pytest.raises(IntentRefused, match="no key to sign with"):
        watcher.act(Intent("chat", "hello"))
    watcher.talker = STRANGER
    transcript, retained = list(host.session.transcript), len(relay.retained)
    relay.publish(watcher.act(Intent("chat", "hello")), watcher)
    talk = TalkReceived(STRANGER.public, 1, "hello")
    assert all(talk in relay.events[id(core)] for core in (host, guest, watcher))
    assert len(relay.retained) == retained + 1  # the talk line alone: no copy of it
    assert list(host.session.transcript) == transcript and host_journal.written == transcript
    step = host.act(Intent("watchers", "off"))
    assert step.publish == () and isinstance(step.events[0], Notice) and "hidden" in step.events[0].text
    relay.publish(watcher.act(Intent("chat", "still here")), watcher)
    said = [event.text for event in relay.events[id(host)] if isinstance(event, TalkReceived)]
    assert said == ["hello"] and TalkReceived(STRANGER.public, 2, "still here") in relay.events[id(guest)]
    host.act(Intent("watchers", "on"))
    relay.publish(watcher.act(Intent("chat", "and again")), watcher)
    assert TalkReceived(STRANGER.public, 3, "and again") in relay.events[id(host)]
    chat = guest.act(Intent("chat", "thanks"))
    assert [item.topic.rsplit("/", 1)[-1] for item in chat.publish] == ["chat-1"]
    with pytest.raises(IntentRefused, match="cannot say that"):
        watcher.act(Intent("chat", "\x1b[2J"))
    from client.words.commands import parse

    assert parse("/watchers OFF", host).intent == Intent("watchers", "off")
    assert (parse("watchers maybe", host).problem or "").startswith("watchers off hides what the watchers say")
    assert (parse("watchers off", watcher).problem or "").startswith("watchers off|on is for the players")
    assert parse("say hi", watcher).intent == Intent("chat", "hi")
