"""What a hostile player or stranger would try against the protocol, each attempted and refused: history rewritten, a
poisoned waiting room, unbounded memory, an honest user made to equivocate, a coin biased by walking away, and the
smaller ones."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    AT,
    GUEST,
    HOST,
    NONCE,
    SALT,
    SECRET,
    STRANGER,
    board_of,
    game_id_in,
    head_of,
    identity_of,
    mover,
    offered,
    play_moves,
    playable,
    rejected,
    result_of,
    start,
)

from protocol import (
    EquivocationDetected,
    GameOver,
    GameSession,
    Identity,
    LineApplied,
    LocalProtocolError,
    ResyncNeeded,
    check_equivocation_proof,
    copy_topic,
    game_filter,
    lobby_filter,
    player_filter,
    topic_for,
    verify_transcript,
)
from protocol.keys import b64
from protocol.messages import encode
from protocol.rules import DEFAULT_TERMS, MAX_CHAT_LINES, MAX_JOINS, commitment
from protocol.waiting import MAX_UNSEATED


def strangers(count: int, seed: int = 7) -> list[Identity]:
    rng = random.Random(seed)
    return [Identity.from_seed(rng.randbytes(32)) for _ in range(count)]


# -- 1. history survives any one party ------------------------------------------------------------
class Retained:
    """What a relay keeps: the last line per topic; under the per-key rules each key rewrites only its own topics."""

    def __init__(self) -> None:
        self.topics: dict[str, str] = {}

    def publish(self, topic: str, line: str) -> None:
        self.topics[topic] = line

    def late_spectator(self, game: str) -> GameSession:
        spectator = GameSession(game)
        spectator.receive_all(sorted(self.topics.values()))  # any order: a relay keeps none
        return spectator


class Player:
    """Publishes its own lines, and a copy of every line of another key it applies (PROTOCOL.md §7)."""

    def __init__(self, session: GameSession, relay: Retained, copies: bool = True) -> None:
        self.session, self.relay, self.copies = session, relay, copies

    def send(self, out) -> None:
        self.relay.publish(out.topic, out.line)
        self.copy(out.events)

    def receive(self, line: str) -> None:
        self.copy(self.session.receive(line))

    def copy(self, events) -> None:
        me = identity_of(self.session).public
        for event in events:
            if self.copies and isinstance(event, LineApplied) and event.message.signer != me:
                self.relay.publish(copy_topic(event.message, me), event.line)


def played_over_a_relay(copies: bool) -> tuple[Retained, GameSession, GameSession]:
    relay = Retained()
    host, offer = GameSession.offer("oxono", HOST, nonce=NONCE, at=AT)
    guest = GameSession(host.game_id, GUEST)
    h, g = Player(host, relay, copies), Player(guest, relay, copies)
    h.send(offer)
    g.receive(offer.line)
    for action in ("join", "accept", "reveal"):
        sender, receiver = (g, h) if action != "accept" else (h, g)
        out = (
            guest.join(SECRET)
            if action == "join"
            else host.accept(GUEST.public, SALT)
            if action == "accept"
            else guest.reveal()
        )
        sender.send(out)
        receiver.receive(out.line)
    rng = random.Random(3)
    for _ in range(6):
        mine, _theirs = mover(host, guest)
        sender, receiver = (h, g) if mine is host else (g, h)
        out = mine.move(rng.choice(playable(mine)))
        sender.send(out)
        receiver.receive(out.line)
    loser, winner = mover(host, guest)
    sender, receiver = (h, g) if loser is host else (g, h)
    out = loser.resign()
    sender.send(out)
    receiver.receive(out.line)
    return relay, loser, winner


def rewrite(relay: Retained, loser: GameSession, erase: bool) -> None:
    """The loser, after the game, rewrites the topic of their resignation (an account may rewrite its own topics)."""
    resign = head_of(loser)
    topic = f"olixono/1/games/{loser.game_id}/{resign.signer.text}/{resign.seq}"
    if erase:
        del relay.topics[topic]
        return
    twin = GameSession.restore(loser.transcript[:-1], identity_of(loser))
    relay.publish(topic, twin.move(playable(twin)[0]).line)


@pytest.mark.parametrize("erase", [True, False], ids=["erased", "replaced"])
def test_without_copies_a_loser_could_rewrite_history(erase):
    relay, loser, _ = played_over_a_relay(copies=False)
    rewrite(relay, loser, erase)
    spectator = relay.late_spectator(game_id_in(loser))
    assert spectator.result != loser.result and not spectator.proofs  # a quietly different game: the hole


@pytest.mark.parametrize("erase", [True, False], ids=["erased", "replaced"])
def test_with_copies_a_late_spectator_sees_the_true_game_or_a_proof(erase):
    relay, loser, winner = played_over_a_relay(copies=True)
    rewrite(relay, loser, erase)
    spectator = relay.late_spectator(game_id_in(loser))
    if erase:
        assert spectator.result == winner.result and spectator.transcript == winner.transcript
    else:  # whichever line the spectator got first, the loser forfeits: the winner wins all the same
        assert spectator.compromised_by == {identity_of(loser).public}
        assert result_of(spectator).reason == "equivocation" and result_of(spectator).winner == result_of(winner).winner
        assert spectator.proofs and check_equivocation_proof(spectator.proofs[0].first, spectator.proofs[0].second)


def test_erasing_a_game_needs_every_copy_holder():
    relay, loser, winner = played_over_a_relay(copies=True)
    me = identity_of(loser).public.text
    for topic in [t for t in relay.topics if f"/{me}/" in t]:
        del relay.topics[topic]  # the loser clears every topic of its own, copies included
    spectator = relay.late_spectator(game_id_in(loser))
    assert spectator.result == winner.result and spectator.transcript == winner.transcript


# -- 3. a stranger cannot block the seated players' lines -------------------------------------------
def junk(session: GameSession, keys: list[Identity], rng: random.Random) -> list[str]:
    """Validly signed lines from keys with no seat: future moves, chats, joins, replies to real lines."""
    lines = []
    chain = session.chain
    for key in keys:
        parent = rng.choice(chain)
        seq = parent.seq + 1 if rng.random() < 0.5 else rng.randrange(1, 400)
        fields = [
            ("game", game_id_in(session)),
            ("seq", str(seq)),
            ("prev", parent.hash if rng.random() < 0.5 else b64(rng.randbytes(32))),
        ]
        kind = rng.choice(["move", "resign", "chat", "join", "reveal"])
        if kind == "move":
            fields.append(("move", "Oc6c5"))
        elif kind == "chat":
            fields = [*fields[:2], ("prev", chain[0].hash), ("text", "spam")]
        elif kind == "join":
            fields = [
                ("game", game_id_in(session)),
                ("seq", "1"),
                ("prev", chain[0].hash),
                ("terms", DEFAULT_TERMS),
                ("commit", b64(rng.randbytes(32))),
            ]
        elif kind == "reveal":
            fields.append(("secret", b64(rng.randbytes(16))))
        lines.append(encode(kind, fields, key))
    return lines


def watch_with_redelivery(game: str, lines: Sequence[str | bytes], rounds: int = 4) -> tuple[GameSession, int]:
    """A late spectator fed everything a relay retains; on ResyncNeeded it subscribes again (the relay resends all)."""
    spectator = GameSession(game)
    for deliveries in range(1, rounds + 1):
        events = spectator.receive_all(lines)
        if not any(isinstance(e, ResyncNeeded) for e in events):
            return spectator, deliveries
    return spectator, rounds


@pytest.mark.parametrize("seed", range(3))
def test_thousands_of_junk_lines_from_throwaway_keys_cannot_stall_a_late_spectator(seed):
    host, guest = start()
    play_moves(host, guest, seed)
    rng = random.Random(seed)
    lines = junk(host, strangers(2 * MAX_UNSEATED, seed), rng) + list(host.transcript)
    rng.shuffle(lines)
    lines.sort(key=lambda line: line in host.transcript)  # worst case: all the junk first, the real game last
    spectator, deliveries = watch_with_redelivery(game_id_in(host), lines)
    assert spectator.result == host.result and spectator.transcript == host.transcript
    assert deliveries <= 3
    assert spectator._waiting.keys() <= {HOST.public, GUEST.public}


def test_once_the_seats_are_known_strangers_lines_are_never_kept():
    host, guest = start()
    spectator = GameSession(host.game_id)
    spectator.receive_all(host.transcript)
    events = spectator.receive_all(junk(host, strangers(300), random.Random(1)))
    assert not len(spectator._waiting) and set(rejected(events)) <= {
        "wrong-signer",
        "wrong-seat",
        "broken-link",
        "limit",
    }
    play_moves(host, guest, 1, plies=4)
    assert not rejected(spectator.receive_all(host.transcript)) and spectator.transcript == host.transcript


# -- 4. memory stays bounded whatever strangers publish ---------------------------------------------
def stranger_joins(host: GameSession, count: int, seed: int) -> list[str]:
    """``count`` joins of the host's game, each from a throwaway key with a commit of its own."""
    rng = random.Random(seed)
    return [
        encode(
            "join",
            [
                ("game", game_id_in(host)),
                ("seq", "1"),
                ("prev", head_of(host).hash),
                ("terms", DEFAULT_TERMS),
                ("commit", b64(rng.randbytes(32))),
            ],
            key,
        )
        for key in strangers(count)
    ]


def test_ten_thousand_joins_keep_a_bounded_few_and_the_game_still_starts():
    host, guest = offered()
    flood = stranger_joins(host, MAX_JOINS * 3, seed=2)
    spectator = GameSession(host.game_id)
    spectator.receive(host.transcript[0])
    codes = rejected(host.receive_all(flood)) + rejected(spectator.receive_all(flood))
    assert len(host.joins) == MAX_JOINS and codes.count("limit") == 2 * 2 * MAX_JOINS
    join = guest.join(SECRET).line
    assert rejected(host.receive(join)) == ["limit"]  # the host keeps the first candidates
    first = next(iter(host.joins))
    accept = host.accept(first, SALT).line
    assert len(host.joins) == 1  # the other candidates are forgotten once a guest is seated
    assert not rejected(spectator.receive(accept)) and spectator.guest == first


def test_a_spectator_whose_join_list_is_full_still_follows_the_accepted_guest():
    host, guest = offered()
    flood = stranger_joins(host, MAX_JOINS, seed=3)
    join = guest.join(SECRET).line
    host.receive(join)
    accept = host.accept(GUEST.public, SALT).line
    spectator = GameSession(host.game_id)
    spectator.receive(host.transcript[0])
    spectator.receive_all(flood)
    assert rejected(spectator.receive(join)) == ["limit"]
    events = spectator.receive(accept)  # waits for its join; the guest it names is kept from now on
    assert any(isinstance(e, ResyncNeeded) for e in events)
    assert not rejected(spectator.receive(join)) and spectator.guest == GUEST.public


def test_one_stranger_key_equivocating_twenty_thousand_times_leaves_no_record():
    host, _guest = start()
    stranger = strangers(1)[0]
    lines = [
        encode(
            "move",
            [("game", game_id_in(host)), ("seq", "4"), ("prev", host.chain[3].hash), ("move", move.text())],
            stranger,
        )
        for move in board_of(host).legal_moves()
    ] * 3
    events = host.receive_all(lines)
    assert not host.proofs and not host.compromised_by and set(rejected(events)) == {"wrong-signer"}


def test_chat_is_capped_per_player():
    host, guest = start()
    for n in range(MAX_CHAT_LINES):
        guest.receive(host.chat(f"line {n}").line)
    with pytest.raises(LocalProtocolError, match="at most"):
        host.chat("one more")
    twin = GameSession.restore(host.transcript, HOST)
    twin._chats[HOST.public] = (0, host.chain[0].hash)  # a client that ignores the cap
    head = host._chats[HOST.public]
    extra = encode(
        "chat", [("game", game_id_in(host)), ("seq", str(MAX_CHAT_LINES + 1)), ("prev", head[1]), ("text", "x")], HOST
    )
    assert rejected(guest.receive(extra)) == ["limit"]


# -- 5. the local API never makes an honest user equivocate -----------------------------------------
def test_join_twice_returns_the_same_line_and_keeps_the_secret():
    host, guest = offered()
    first = guest.join()
    again = guest.join()
    assert again.line == first.line and again.events == ()
    secret = guest.secret
    assert secret is not None
    assert first.message.value("commit") == commitment(secret)
    with pytest.raises(LocalProtocolError, match="another secret"):
        guest.join(b64(bytes(16)))
    host.receive(first.line)
    guest.receive(host.accept(GUEST.public).line)
    assert not rejected(host.receive(guest.reveal().line))


def test_accept_twice_returns_the_same_line_and_never_seats_another_guest():
    host, guest = offered()
    other = GameSession(host.game_id, STRANGER)
    other.receive(host.transcript[0])
    host.receive(guest.join().line)
    host.receive(other.join().line)
    first = host.accept(GUEST.public)
    assert host.accept(GUEST.public).line == first.line
    with pytest.raises(LocalProtocolError, match="accepted already"):
        host.accept(STRANGER.public)
    assert len(host.transcript) == 3


def test_every_action_retried_returns_the_same_line():
    host, guest = start()
    mine, theirs = mover(host, guest)
    move = playable(mine)[0]
    out = mine.move(move)
    assert mine.move(move).line == out.line
    resign = theirs.resign()
    assert theirs.resign().line == resign.line


# -- 6. walking away from the coin flip is visible and costly ---------------------------------------
def accepted() -> tuple[GameSession, GameSession]:
    host, guest = offered()
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(GUEST.public, SALT).line)
    return host, guest


def test_a_guest_who_walks_away_after_seeing_the_salt_forfeits():
    host, guest = accepted()
    events = host.receive(guest.abort().line)
    result = next(e.result for e in events if isinstance(e, GameOver))
    assert (result.reason, result.winner, result.winner_key, result.by) == (
        "forfeit",
        "host",
        HOST.public,
        GUEST.public,
    )
    assert result.sentence() == "the host wins by forfeit: the guest walked away after the coin flip"


def test_the_host_may_claim_a_game_whose_guest_never_reveals_but_a_reveal_still_stands():
    host, guest = accepted()
    claim = host.claim()
    assert result_of(host).sentence() == "the host wins by forfeit: the guest did not reveal the coin flip"
    reveal = guest.reveal().line
    events = host.receive(reveal)  # the guest was slow, not gone: the game goes on
    assert [type(e).__name__ for e in events][:2] == ["Superseded", "LineApplied"] and host.started and not host.over
    mine, _theirs = mover(host, guest)
    first_move = mine.move(playable(mine)[0]).line
    prefix = list(host.transcript[:3])
    for order in itertools.permutations([claim.line, reveal, first_move]):
        spectator = GameSession(host.game_id)
        events = spectator.receive_all([*prefix, *order])
        assert not rejected(events), order
        assert spectator.transcript == mine.transcript and spectator.moves == 1 and spectator.result is None
        assert claim.line not in spectator.transcript


# -- 7. the smaller ones -------------------------------------------------------------------------------
def test_a_key_that_never_held_a_seat_cannot_mark_the_game_compromised():
    host, _ = offered()
    key = strangers(1)[0]
    joins = [
        encode(
            "join",
            [
                ("game", game_id_in(host)),
                ("seq", "1"),
                ("prev", head_of(host).hash),
                ("terms", DEFAULT_TERMS),
                ("commit", b64(bytes([n]) * 32)),
            ],
            key,
        )
        for n in range(2)
    ]
    events = host.receive_all(joins)
    assert any(isinstance(e, EquivocationDetected) for e in events)
    assert not host.compromised_by


def test_a_host_signed_line_at_seq_0_is_malformed_not_an_equivocation():
    host, _ = start()
    line = encode("resign", [("game", game_id_in(host)), ("seq", "1"), ("prev", head_of(host).hash)], HOST).replace(
        " seq=1 ", " seq=0 "
    )
    assert rejected(host.receive(line)) == ["bad-field"] and not host.proofs


def test_unknown_terms_are_refused_and_a_join_must_accept_the_offers_terms():
    for terms in ("handicap:1,rules:1", "clock:300+5,rules:3", "clock:300+5"):
        line = encode("offer", [("kind", "oxono"), ("nonce", NONCE), ("terms", terms), ("at", "1790000000")], HOST)
        assert rejected(GameSession().receive(line)) == ["unknown-term"], terms
    timed = encode(
        "offer", [("kind", "oxono"), ("nonce", NONCE), ("terms", "clock:300+5,rules:1"), ("at", "1790000000")], HOST
    )
    assert not rejected(GameSession().receive(timed))  # a time control is a term this client knows
    host, _ = offered()
    other = "rules:1" if host.terms != "rules:1" else "rules:2"  # terms this client knows, but not the offer's
    join = encode(
        "join",
        [
            ("game", game_id_in(host)),
            ("seq", "1"),
            ("prev", head_of(host).hash),
            ("terms", other),
            ("commit", commitment(SECRET)),
        ],
        GUEST,
    )
    assert rejected(host.receive(join)) == ["bad-field"] and not host.joins


def test_the_lobby_filter_matches_offers_only():
    _host, offer = GameSession.offer("olix", HOST, nonce=NONCE, at=AT)
    assert lobby_filter() == "olixono/1/games/+/+/offer" and offer.topic.endswith("/offer")


def test_a_players_filter_has_its_lines_and_not_its_copies():
    from aiomqtt import Topic  # MQTT's own matching rules

    host, guest = start("olix")
    wanted = player_filter(game_id_in(host), GUEST.public)
    guest_lines = [m for m in guest.chain if m.signer == GUEST.public]
    host_lines = [m for m in guest.chain if m.signer == HOST.public]
    assert guest_lines and host_lines
    assert all(Topic(topic_for(m)).matches(wanted) for m in guest_lines)
    assert not any(Topic(topic_for(m)).matches(wanted) for m in host_lines)
    assert not any(Topic(copy_topic(m, GUEST.public)).matches(wanted) for m in host_lines)  # the guest's copies
    assert all(Topic(copy_topic(m, GUEST.public)).matches(game_filter(game_id_in(host))) for m in host_lines)


def test_a_restored_guest_can_reveal():
    host, guest = offered()
    journal = list(guest.transcript)
    join = guest.join()
    secret = guest.secret
    journal.append(join.line)
    host.receive(join.line)
    accept = host.accept(GUEST.public).line
    journal.append(accept)
    restored = GameSession.restore(journal, GUEST, secret=secret)
    assert not rejected(host.receive(restored.reveal().line)) and host.started
    with pytest.raises(LocalProtocolError, match="does not open"):
        GameSession.restore(journal, GUEST, secret=b64(bytes(16)))
    _, _number, problem = verify_transcript(host.transcript)
    assert problem is None


# -- honest players and strangers, any order --------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 1000),
    junk_count=st.integers(0, 3000),
    keys=st.integers(1, 600),
    shuffle=st.randoms(use_true_random=False),
)
def test_honest_games_always_finish_whatever_strangers_publish(seed, junk_count, keys, shuffle):
    host, guest = start("olix" if seed % 2 else "oxono")
    play_moves(host, guest, seed)
    pool = strangers(min(keys, junk_count) or 1, seed)
    rng = random.Random(seed)
    noise: list[str | bytes] = [*junk(host, [rng.choice(pool) for _ in range(junk_count)], rng)]
    noise += [b"\xff garbage", "olixono/1 move game=x", host.transcript[-1]]
    lines = [*host.transcript, *noise]
    shuffle.shuffle(lines)
    spectator, _ = watch_with_redelivery(game_id_in(host), lines)
    assert spectator.transcript == host.transcript and spectator.result == host.result


def test_seating_the_guest_purges_strangers_waiting_lines_without_refusing_the_hosts_accept():
    host, guest = offered()
    stranger = strangers(1)[0]
    waiting = encode(
        "move", [("game", game_id_in(host)), ("seq", "7"), ("prev", b64(bytes(32))), ("move", "Oc6c5")], stranger
    )
    assert host.receive(waiting) == []  # kept: the stranger might be the guest
    host.receive(guest.join(SECRET).line)
    out = host.accept(GUEST.public, SALT)  # does not raise: the purge's rejection is the stranger's, not ours
    applied = out.events[0]
    assert rejected(out.events) == ["wrong-signer"] and isinstance(applied, LineApplied)
    assert applied.line == applied.message.line
    assert host.guest == GUEST.public and not len(host._waiting)


@pytest.mark.parametrize("case", ["not invited", "other terms"])
def test_an_accept_never_seats_a_join_that_was_refused(case):
    """A host's accept named a join every receiver refused (another key than the invited one, or other terms than the
    offer's): the join was kept, for proofs, and the accept seated it anyway, where verify refused the record."""
    from protocol.judge import Receiver
    from protocol.messages import decode

    invite = GUEST.public if case == "not invited" else None
    terms = "clock:300+3,rules:1" if case == "other terms" else "rules:1"
    host, out = GameSession.offer("oxono", HOST, nonce=NONCE, at=AT, invite=invite, terms=terms)
    game, offer_hash = game_id_in(host), decode(out.line).hash
    joiner = STRANGER if case == "not invited" else GUEST
    join = encode(
        "join",
        [("game", game), ("seq", "1"), ("prev", offer_hash), ("terms", "rules:1"), ("commit", commitment(SECRET))],
        joiner,
    )
    accept = encode(
        "accept",
        [("game", game), ("seq", "2"), ("prev", decode(join).hash), ("guest", joiner.public.text), ("salt", SALT)],
        HOST,
    )
    for order in ([out.line, join, accept], [out.line, accept, join]):
        watcher = Receiver(game)
        events = watcher.receive_all(order)
        assert not any(isinstance(event, LineApplied) and event.message.type != "offer" for event in events)
        assert watcher.guest is None and watcher.phase.value == "offered" and tuple(watcher.transcript) == (out.line,)
    _session, _, problem = verify_transcript([out.line, join, accept])
    assert problem is not None  # the verifier and the live receivers agree
