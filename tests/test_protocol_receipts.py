"""Receipts: on verifying the other player's move a client signs its receive time at once; from the chain of moves and
receipts every receiver computes the round trips and the thinking each side's claims leave unexplained, the same for the
players and a watcher. Simulated here on a timeline with two clocks that disagree and a network delay."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest
from protocol_helpers import (
    AT,
    GUEST,
    HOST,
    NONCE,
    SALT,
    SECRET,
    game_id_in,
    identity_of,
    playable,
    rejected,
    seat_of,
    start,
)

from protocol import GameSession, verify_transcript
from protocol.clock import LAG_MOST_MS, SLACK_MS, Answer
from protocol.messages import encode

OFFSETS = {"host": 5_000_000, "guest": 123}
"""Each player's monotonic clock less the true time (they never agree)."""


@dataclass
class Table:
    """Two players of a timed game and a watcher; every line travels ``delay`` ms (the watcher gets it at once)."""

    host: GameSession
    guest: GameSession
    watcher: GameSession
    delay: int = 20
    now: int = 0  # the true time, ms
    acks: dict[str, int] = field(default_factory=dict)  # when each player had the other's receipt of its last move
    sent: dict[str, int] = field(default_factory=dict)  # when each player's last turn line left it (true time)
    turn_seen: dict[str, int] = field(default_factory=dict)  # when each player saw its turn begin (true time)

    def clock(self, who: str) -> int:
        return self.now + OFFSETS[who]

    def name(self, session: GameSession) -> str:
        return "host" if session is self.host else "guest"

    def other(self, session: GameSession) -> GameSession:
        return self.guest if session is self.host else self.host

    def mover(self) -> GameSession:
        return self.host if self.host.actor == HOST.public else self.guest

    def play(self, true_think: int, claimed: int | None = None, *, receipt_delay: int = 0, recv_bias: int = 0) -> None:
        """The player to move thinks ``true_think`` ms from seeing its turn, signs ``claimed`` (default: the truth);
        the other verifies it ``delay`` later and receipts it (``receipt_delay`` later still, saying it had it
        ``recv_bias`` later than it did); the receipt comes back."""
        mover = self.mover()
        other = self.other(mover)
        me = self.name(mover)
        self.now = self.turn_seen.get(me, self.now) + true_think
        move = mover.move(playable(mover)[0], think_ms=true_think if claimed is None else claimed)
        self.sent[me] = self.now
        self.watcher.receive(move.line)
        self.now += self.delay
        other.receive(move.line)
        them = self.name(other)
        self.turn_seen[them] = self.now
        recv = self.clock(them) + recv_bias
        self.now += receipt_delay
        sent = self.sent[them] + OFFSETS[them] if them in self.sent else None
        receipt = other.receipt(move.message.seq, recv, sent, self.acks.get(them))
        assert receipt is not None
        self.watcher.receive(receipt.line)
        self.now += self.delay
        mover.receive(receipt.line)
        self.acks[me] = self.clock(me)
        self.now -= self.delay + receipt_delay  # the receipt's trip runs beside the other's thinking


def table(terms: str = "clock:300+5,rules:1", delay: int = 20) -> Table:
    host, offer = GameSession.offer("olix", HOST, nonce=NONCE, at=AT, terms=terms)
    guest = GameSession(host.game_id, GUEST)
    watcher = GameSession(host.game_id)
    for session in (guest, watcher):
        session.receive(offer.line)
    join = guest.join(SECRET)
    host.receive(join.line), watcher.receive(join.line)
    accept = host.accept(GUEST.public, SALT)
    guest.receive(accept.line), watcher.receive(accept.line)
    reveal = guest.reveal()
    host.receive(reveal.line), watcher.receive(reveal.line)
    seated = Table(host, guest, watcher, delay)
    seated.turn_seen = {"guest": 1000, "host": 1000 + delay}  # the guest signed the reveal; the host verified it
    seated.now = seated.turn_seen["host"]
    received = host.receipt(reveal.message.seq, seated.clock("host"))  # the host receipts the reveal
    assert received is not None
    guest.receive(received.line), watcher.receive(received.line)
    seated.sent["guest"] = seated.turn_seen["guest"]  # the reveal left the guest then
    return seated


def test_honest_players_leave_nothing_unexplained_whatever_their_clocks_say():
    seated = table(delay=40)
    rng = random.Random(3)
    for _ in range(12):
        seated.play(rng.choice([150, 900, 4000]))
    answers = seated.watcher.answers()
    assert len(answers) == 12 and answers == seated.host.answers() == seated.guest.answers()
    measured = [answer for answer in answers if answer.unexplained is not None]
    assert len(measured) == 11  # all but the guest's first move, which answers its own reveal
    assert all(answer.unexplained == 0 for answer in measured) and {a.round_trip for a in measured} == {80}
    host_player = seated.watcher.player_of(HOST.public)
    offsets = {answer.offset for answer in measured if answer.player == host_player}
    assert offsets == {OFFSETS["host"] - OFFSETS["guest"]}  # as NTP estimates it: a symmetric path, exactly
    used = seated.watcher.time_used()
    assert sum(side.used for side in used.values()) == sum(answer.think for answer in answers)
    assert all(side.unexplained == 0 for side in used.values())


def test_thinking_left_unreported_shows_as_unexplained_on_that_player_alone():
    seated = table()
    for _ in range(6):
        seated.play(500)
    cheat = seat_of(seated.watcher, identity_of(seated.mover()).public)
    seated.play(6000, claimed=100)  # thought 6 s, says 0.1 s: charged the floor on the official clock
    for _ in range(4):
        seated.play(500)
    used = seated.watcher.time_used()
    assert used[cheat].unexplained == 6000 - 100 - SLACK_MS
    assert all(side.unexplained == 0 for player, side in used.items() if player != cheat)


@pytest.mark.parametrize("held_back", [0, 3000])
def test_delaying_receipts_hides_at_most_the_lag_allowance(held_back):
    """The host thinks 5 s a move and says 1 s; holding each of its receipts back 3 s makes the round trips its
    opponent measures 3 s longer, to pass the hidden thinking off as the network's: that hides a second at most."""
    seated = table()
    for _ in range(12):
        host_moves = seated.mover() is seated.host
        seated.play(
            5000 if host_moves else 700,
            claimed=1000 if host_moves else None,
            receipt_delay=held_back if not host_moves else 0,
        )  # the host, receiving, holds its receipts back
    host = seat_of(seated.watcher, HOST.public)
    used = seated.watcher.time_used()
    trip = 2 * seated.delay  # the network's round trip: the hidden 4 s show whole, less what the held receipts hide
    hidden = 4000 - (min(trip + held_back, LAG_MOST_MS) - trip) - SLACK_MS
    assert used[host].measured >= 4 and used[host].unexplained == used[host].measured * hidden
    assert used[seat_of(seated.watcher, GUEST.public)].unexplained == 0


def test_every_receiver_computes_the_same_from_the_record_alone():
    seated = table()
    rng = random.Random(9)
    for _ in range(10):
        seated.play(rng.randint(100, 3000), claimed=None if rng.random() < 0.7 else rng.randint(0, 100))
    replayed, _, problem = verify_transcript(seated.watcher.transcript)
    assert problem is None
    assert replayed.answers() == seated.watcher.answers() == seated.host.answers() == seated.guest.answers()
    assert sum(" receipt " in line[:20] for line in replayed.transcript) == 11  # the reveal's, and ten moves'
    shuffled = list(seated.watcher.transcript)
    random.Random(1).shuffle(shuffled)
    again = GameSession(seated.host.game_id)
    again.receive_all(shuffled)
    assert again.answers() == replayed.answers()


def test_bad_receipts_are_refused_and_change_nothing():
    seated = table()
    for _ in range(4):
        seated.play(400)
    watcher = seated.watcher
    before = (watcher.transcript, watcher.answers())
    chain = watcher.chain
    mine_seq = next(m.seq for m in reversed(chain) if m.type == "move" and m.signer == HOST.public)
    theirs_seq = next(m.seq for m in reversed(chain) if m.type == "move" and m.signer == GUEST.public)

    def fields(seq: int, prev: str) -> list[tuple[str, str]]:
        return [("game", game_id_in(watcher)), ("seq", str(seq)), ("prev", prev), ("recv", "5")]

    from protocol_helpers import STRANGER

    cases = {
        "wrong-seat": encode("receipt", fields(mine_seq, chain[mine_seq].hash), HOST),  # of one's own move
        "broken-link": encode("receipt", fields(theirs_seq, chain[0].hash), HOST),  # names another line
        "wrong-signer": encode("receipt", fields(theirs_seq, chain[theirs_seq].hash), STRANGER),
        "wrong-seat-accept": encode("receipt", fields(2, chain[2].hash), GUEST),  # an accept is no move
    }
    for code, line in cases.items():
        assert rejected(watcher.receive(line)) == [code.removesuffix("-accept")], code
    assert (watcher.transcript, watcher.answers()) == before
    with pytest.raises(Exception, match="nothing to receipt"):
        seated.host.receipt(mine_seq, 5)
    assert seated.host.receipt(theirs_seq, 5) is None  # receipted already: signed once


def test_an_untimed_game_has_no_receipts():
    host, guest = start("oxono")
    move = host.move(playable(host)[0]) if host.actor == HOST.public else guest.move(playable(guest)[0])
    for session in (host, guest):
        session.receive(move.line)
    receiver = guest if move.message.signer == HOST.public else host
    with pytest.raises(Exception, match="untimed"):
        receiver.receipt(move.message.seq, 1)
    line = encode(
        "receipt",
        [("game", game_id_in(host)), ("seq", str(move.message.seq)), ("prev", move.message.hash), ("recv", "1")],
        identity_of(receiver),
    )
    assert rejected(host.receive(line) if receiver is guest else guest.receive(line)) == ["bad-clock"]


def test_two_receipts_of_one_line_are_reported_and_the_lower_hash_counts_in_any_order():
    seated = table()
    for _ in range(3):
        seated.play(400)
    chain = seated.watcher.chain
    seq = next(m.seq for m in reversed(chain) if m.type == "move" and m.signer == HOST.public)
    lines = [
        encode(
            "receipt", [("game", chain[0].game), ("seq", str(seq)), ("prev", chain[seq].hash), ("recv", str(t))], GUEST
        )
        for t in (777, 778)
    ]
    kept = []
    for order in (lines, lines[::-1]):
        receiver = GameSession(seated.host.game_id)
        receiver.receive_all([line for line in seated.watcher.transcript if " receipt " not in line[:20]])
        events = receiver.receive_all(order)
        assert any(type(event).__name__ == "EquivocationDetected" for event in events)
        assert receiver.result is None  # never deciding the game
        kept.append([line for line in receiver.transcript if f"seq={seq} " in line and " receipt " in line[:20]])
    assert kept[0] == kept[1] == [min(lines, key=lambda line: __import__("protocol").messages.line_hash(line))]


def test_unexplained_follows_the_rule():
    assert Answer("pink", 500, elapsed=3000, round_trip=100).unexplained == 3000 - 500 - 100 - SLACK_MS
    assert Answer("pink", 500, elapsed=3000, round_trip=5000).unexplained == 3000 - 500 - LAG_MOST_MS - SLACK_MS
    assert Answer("pink", 2900, elapsed=3000, round_trip=100).unexplained == 0
    assert Answer("pink", 500).unexplained is None  # not measured
    assert Answer("pink", 500, elapsed=2700).unexplained == 2700 - 500 - LAG_MOST_MS - SLACK_MS  # no receipt came


def test_a_player_who_says_it_had_the_others_moves_late_cannot_shed_its_own_thinking():
    """Each move's measure is the other player's alone (their receipt: when they had it, when their line left, when
    they had our receipt of that), never the mover's own receipt of the line it answers: else a cheat that dated its
    receipts of the other's moves 4 s late would pass its own hidden 4 s a move to the other."""
    seated = table()
    for _ in range(12):
        if seated.mover() is seated.host:
            seated.play(5000, claimed=1000)
        else:
            seated.play(700, recv_bias=4000)  # the host dates its receipts of the guest's moves 4 s late
    used = seated.watcher.time_used()
    host, guest = (seat_of(seated.watcher, key) for key in (HOST.public, GUEST.public))
    assert used[host].measured == 6 and used[host].unexplained == 6 * (4000 - SLACK_MS)
    assert used[guest].unexplained > 0  # it may make the other's moves look slow: never its own look fast


def test_a_receipt_whose_sent_is_after_its_recv_is_refused():
    seated = table()
    for _ in range(3):
        seated.play(400)
    chain = seated.watcher.chain
    seq = next(m.seq for m in reversed(chain) if m.type == "move" and m.signer == HOST.public)
    line = encode(
        "receipt",
        [("game", chain[0].game), ("seq", str(seq)), ("prev", chain[seq].hash), ("recv", "100"), ("sent", "200")],
        GUEST,
    )
    receiver = GameSession(seated.host.game_id)
    receiver.receive_all(
        [line for line in seated.watcher.transcript if f"seq={seq} prev" not in line or " move " in line[:20]]
    )
    assert rejected(receiver.receive(line)) == ["bad-clock"]
