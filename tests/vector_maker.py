"""Builds the protocol test vectors in ``protocol/vectors/`` (see its README).

Everything is deterministic: keys from fixed seeds, fixed nonce, secret and
salt, moves drawn by a seeded RNG from the sorted legal moves, and Ed25519
signatures, which are deterministic (the forged ones are built by
``ed25519_reference``). ``tests/test_vectors.py`` checks the files against a
fresh build; ``scripts/regenerate_golden.py`` rewrites them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import ed25519_reference as ref
from protocol_helpers import board_of, clocks_of, confirm_of, head_of, identity_of, playable, result_of, seat_of

from protocol import GameSession, Identity, Outgoing, copy_topic, topic_for
from protocol.gallery import MAX_TALK_LINES
from protocol.keys import FIELD_P, GROUP_L, SMALL_ORDER_ENCODINGS, b64, unb64
from protocol.messages import MAX_LINE_BYTES, decode, encode, line_hash
from protocol.rules import MAX_CHAIN, MAX_CHAT_LINES, MAX_CONFIRMS, MAX_PROOFS_PER_KEY

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
SEEDS = {
    "host": bytes([0x11]) * 32,
    "guest": bytes([0x22]) * 32,
    "stranger": bytes([0x33]) * 32,
    "witness": bytes([0x44]) * 32,
}
KEYS = {name: Identity.from_seed(seed) for name, seed in SEEDS.items()}
NONCE, SECRET, SALT = "AAECAwQFBgcICQoLDA0ODw", "EBESExQVFhcYGRobHB0eHw", "ICEiIyQlJicoKSorLC0uLw"
AT = 1_790_000_000


def _start(kind: str = "oxono", terms: str = "rules:1") -> tuple[GameSession, GameSession]:
    host, offer = GameSession.offer(kind, KEYS["host"], nonce=NONCE, at=AT, terms=terms)
    guest = GameSession(host.game_id, KEYS["guest"])
    guest.receive(offer.line)
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(KEYS["guest"].public, SALT).line)
    host.receive(guest.reveal().line)
    return host, guest


def _sides(host: GameSession, guest: GameSession) -> tuple[GameSession, GameSession]:
    """(the session of the player to move, the other's)."""
    return (host, guest) if host.actor == KEYS["host"].public else (guest, host)


def _deliver(out: Outgoing, *others: GameSession) -> None:
    for other in others:
        other.receive(out.line)


def _play(host: GameSession, guest: GameSession, rng: random.Random, plies: int) -> None:
    for _ in range(plies):
        if host.over:
            return
        mine, theirs = _sides(host, guest)
        move = rng.choice(sorted(playable(mine)))
        clocks = mine.clocks
        # a timed game: each player's own measure of its thinking, now and then less than the floor it is charged
        think = None if clocks is None else min(rng.choice([0, 40, 350, 1_500, 6_000]), clocks[board_of(mine).turn] - 1)
        _deliver(mine.move(move, think_ms=think), theirs)


def _fields(session: GameSession) -> list[tuple[str, str]]:
    return [("game", session.game_id or ""), ("seq", str(session.next_seq)), ("prev", head_of(session).hash)]


def _keyname(key: Any) -> str:
    return next(name for name, identity in KEYS.items() if identity.public == key)


# -- complete games, one for every way a game ends ---------------------------------------------------------
def _full(kind: str, seed: int) -> GameSession:
    host, guest = _start(kind)
    _play(host, guest, random.Random(seed), 1000)
    return host


def _agreed(kind: str) -> GameSession:
    """Proposals made, withdrawn, declined, standing across a move, and at last agreed."""
    host, guest = _start(kind)
    rng = random.Random(5)
    _play(host, guest, rng, 6)
    mine, theirs = _sides(host, guest)
    for action in ("propose", "withdraw"):
        _deliver(getattr(mine, action)(), theirs)
    _play(host, guest, rng, 1)
    mine, theirs = _sides(host, guest)
    _deliver(mine.propose(), theirs)
    _play(host, guest, rng, 1)
    mine, theirs = _sides(host, guest)
    _deliver(mine.decline(), theirs)
    _deliver(mine.propose(), theirs)
    _play(host, guest, rng, 3)  # the proposal stands across three moves
    mine, theirs = _sides(host, guest)
    _deliver(mine.agree(), theirs)
    return host


def _resigned_while_waiting() -> GameSession:
    host, guest = _start("oxono")
    _play(host, guest, random.Random(8), 5)
    mine, theirs = _sides(host, guest)
    _deliver(theirs.resign(), mine)
    return host


def _aborted_by_the_first_player() -> GameSession:
    """After the coin flip only the first player may abort (before their first move): the seat it gives up is the
    better one, so walking away never chooses the coin."""
    host, guest = _start("olix")
    mine, theirs = _sides(host, guest)
    _deliver(mine.propose(), theirs)
    _deliver(mine.abort(), theirs)
    return host


def _accepted() -> tuple[GameSession, GameSession]:
    host, offer = GameSession.offer("oxono", KEYS["host"], nonce=NONCE, at=AT, terms="rules:1")
    guest = GameSession(host.game_id, KEYS["guest"])
    guest.receive(offer.line)
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(KEYS["guest"].public, SALT).line)
    return host, guest


def _walked_away() -> GameSession:
    host, guest = _accepted()
    _deliver(guest.abort(), host)
    return host


def _claimed() -> GameSession:
    host, _ = _accepted()
    host.claim()
    return host


def _withdrawn() -> GameSession:
    host, _ = GameSession.offer("olix", KEYS["host"], nonce=NONCE, at=AT, terms="rules:1")
    host.abort()
    return host


def _confirmed(make: Callable[[], GameSession]) -> Callable[[], GameSession]:
    """The game ``make`` plays, with each player's confirmation of how it ended at the end of its transcript."""

    def game() -> GameSession:
        host = make()
        record = GameSession.restore(host.record)
        for name in ("host", "guest"):
            player = GameSession.restore(host.record, KEYS[name])
            if player.role_of(KEYS[name].public) is not None:
                record.receive(confirm_of(player).line)
        return record

    return game


def _timed(kind: str, terms: str, seed: int) -> GameSession:
    host, guest = _start(kind, terms)
    _play(host, guest, random.Random(seed), 1000)
    return host


class _Timeline:
    """Two players of a game on a timeline: their monotonic clocks disagree by an hour, each line takes 30 ms, and in
    a timed game each player receipts every turn line at once (sent, and acknowledged, when it had the other's
    receipt of its own)."""

    DELAY = 30
    OFFSETS: ClassVar[dict[str, int]] = {"host": 3_600_000, "guest": 77}

    def __init__(self, terms: str) -> None:
        host, offer = GameSession.offer("olix", KEYS["host"], nonce=NONCE, at=AT, terms=terms)
        guest = GameSession(host.game_id, KEYS["guest"])
        self.host, self.guest = host, guest
        self.sessions = {"host": host, "guest": guest}
        self.now = 10_000  # the true time, ms
        guest.receive(offer.line)
        host.receive(guest.join(SECRET).line)
        guest.receive(host.accept(KEYS["guest"].public, SALT).line)
        reveal = guest.reveal()
        self.seen = {"guest": self.now, "host": self.now + self.DELAY}  # when each saw its turn begin (true time)
        self.sent = {"guest": self.now}  # when each one's last turn line left it (true time)
        self.acks: dict[str, int] = {}
        host.receive(reveal.line)
        if host.clock is not None:
            self.receipt("host", reveal.message.seq, self.seen["host"])

    def clock(self, name: str, at: int) -> int:
        return at + self.OFFSETS[name]

    def receipt(self, name: str, seq: int, at: int) -> None:
        left = self.clock(name, self.sent[name]) if name in self.sent else None
        out = self.sessions[name].receipt(seq, self.clock(name, at), left, self.acks.get(name))
        assert out is not None
        self.sessions["host" if name == "guest" else "guest"].receive(out.line)

    def names(self) -> tuple[str, str]:
        """(the player to move's name, the other's)."""
        return ("host", "guest") if self.host.actor == KEYS["host"].public else ("guest", "host")

    def play(self, rng: random.Random, thought: int, said: int | None = None) -> Outgoing:
        name, other = self.names()
        mover = self.sessions[name]
        self.now = self.seen[name] + thought
        timed = mover.clock is not None
        out = mover.move(
            rng.choice(sorted(playable(mover))),
            think_ms=(thought if said is None else said) if timed else None,
        )
        return self._sent(name, other, out)

    def take_back(self, asker: str, plies: int, thought: int) -> Outgoing:
        """``asker`` asks to take back ``plies`` moves, the other consents (if it is to move, by its undo), and the
        player to move signs the undo ``thought`` ms after its turn began."""
        name, other = self.names()
        asked = self.sessions[asker].takeback(plies)
        self.sessions["host" if asker == "guest" else "guest"].receive(asked.line)
        if asker == name:
            self.sessions[name].receive(self.sessions[other].takeback(plies).line)
        mover = self.sessions[name]
        self.now = self.seen[name] + thought
        out = mover.undo(think_ms=thought)
        if plies == 2:  # the turn stays, and its clock runs on
            self.sessions[other].receive(out.line)
            return out
        return self._sent(name, other, out)

    def _sent(self, name: str, other: str, out: Outgoing) -> Outgoing:
        """``name``'s line that ends its turn left it: the other verifies and receipts it."""
        timed = self.sessions[name].clock is not None
        self.sent[name] = self.now
        self.sessions[other].receive(out.line)
        self.seen[other] = self.now + self.DELAY
        if timed:
            self.receipt(other, out.message.seq, self.seen[other])
            self.acks[name] = self.clock(name, self.seen[other] + self.DELAY)
        return out

    def flag(self, after: int) -> Outgoing:
        """The player not to move claims ``after`` ms after its last line left (the mover hears of it at once)."""
        name, other = self.names()
        sent = self.clock(
            other, self.sent.get(other, self.seen[other])
        )  # (the host's turn start: the reveal, verified)
        out = self.sessions[other].flag(sent, sent + after)
        self.sessions[name].receive(out.line)
        return out

    def timeout(self, after: int) -> Outgoing:
        """The claimant closes its claim ``after`` ms after its line left."""
        name, other = self.names()
        out = self.sessions[other].timeout(self.clock(other, self.sent.get(other, self.seen[other])) + after)
        self.sessions[name].receive(out.line)
        return out


def _receipted() -> GameSession:
    """A 2+1 Olix game whose players receipt every turn line, on a timeline: their monotonic clocks disagree by
    hours, each line takes 30 ms, and the second player once thinks 5 s while saying 1 s (4 s unexplained, less the
    slack). Ten moves, then the first player resigns."""
    line = _Timeline("clock:120+1,rules:1")
    rng = random.Random(21)
    for ply in range(10):
        thought = rng.choice([300, 1200, 2500])
        line.play(rng, 5000 if ply == 5 else thought, 1000 if ply == 5 else None)
    line.host.receive(line.host.resign().line)
    return line.host


def _flagged(ending: str) -> Callable[[], GameSession]:
    """A 1+0 Olix game on the timeline: six moves, then the player to move is silent. Its opponent claims 1.2 s
    after the clock and the grace allow; then ``unanswered``: it closes the claim when its 30 s window has passed
    (a win on time); ``conceded``: the player to move concedes; ``disputed``: the player to move's move comes after
    the timeout, saying it thought 3.1 s (no result: a time dispute)."""

    def game() -> GameSession:
        line = _Timeline("clock:60+0,rules:1")
        rng = random.Random(5)
        for _ in range(6):
            line.play(rng, rng.choice([900, 1500, 4000]))
        name, other = line.names()
        left = clocks_of(line.sessions[other])[seat_of(line.sessions[other], KEYS[name].public)]
        line.flag(left + 1000 + 1200)
        if ending == "conceded":
            line.sessions[other].receive(line.sessions[name].timeout().line)
            return line.host
        timeout = line.timeout(left + 1000 + 1200 + 30_000)
        if ending == "disputed":
            mover = line.sessions[name]
            late = GameSession.restore([kept for kept in mover.transcript if kept != timeout.line], KEYS[name])
            move = late.move(sorted(playable(late))[0], think_ms=3100)
            line.sessions[other].receive(move.line)
            line.host.receive(move.line)
        return line.host

    return game


def _correspondence_flagged() -> GameSession:
    """A correspondence Olix game (``days:3``) on the timeline: four moves, then the player to move is silent. Its
    opponent claims once the 3 days and the grace have passed, and closes the claim when its day's window has passed
    unanswered: a win on time."""
    line = _Timeline("days:3,rules:1")
    rng = random.Random(8)
    for _ in range(4):
        line.play(rng, rng.choice([60_000, 3_600_000, 30_000_000]))
    line.flag(3 * 86_400_000 + 1000)
    line.timeout(4 * 86_400_000 + 1000)
    return line.host


def _abandoned() -> GameSession:
    """An untimed Olix game: four moves, then the player to move walks away; after 7 days and a second its opponent
    claims, and closes the claim a day later: a win by abandonment."""
    line = _Timeline("rules:1")
    rng = random.Random(6)
    for _ in range(4):
        line.play(rng, 2000)
    line.flag(7 * 86_400_000 + 1000)
    line.timeout(8 * 86_400_000 + 1000)
    return line.host


def _first_moves_free() -> GameSession:
    """A 1+2 Olix game under ``rules:2`` on the timeline: each player's first move takes 20 s and is not charged (its
    ``left`` is the minute it started with, no increment), the moves after it are; six moves, then the first player
    resigns."""
    line = _Timeline("clock:60+2,rules:2")
    rng = random.Random(31)
    for ply in range(6):
        line.play(rng, 20_000 if ply < 2 else rng.choice([700, 2500, 4000]))
    line.host.receive(line.sessions[line.names()[0]].resign().line)
    return line.host


def _took_back_by_agreement() -> GameSession:
    """A 1+2 Olix game under ``rules:2`` on the timeline with two takebacks: after four moves the player who just moved
    asks for its move back and the other's undo gives it (on the undoer's clock, as a move is, and receipted); two
    moves later the player to move asks for its last move and the reply, the other consents, and its undo leaves the
    turn, and its clock, running; then two more moves, and the first player resigns."""
    line = _Timeline("clock:60+2,rules:2")
    rng = random.Random(37)
    for _ in range(4):
        line.play(rng, rng.choice([700, 2500, 4000]))
    line.take_back(line.names()[1], 1, 1_500)
    for _ in range(3):
        line.play(rng, rng.choice([700, 2500, 4000]))
    line.take_back(line.names()[0], 2, 2_000)
    for _ in range(2):
        line.play(rng, rng.choice([700, 2500, 4000]))
    line.host.receive(line.sessions[line.names()[0]].resign().line)
    return line.host


def _no_first_move(moves: int) -> Callable[[], GameSession]:
    """A 1+0 Olix game under ``rules:2`` on the timeline: ``moves`` moves (0: the first player never moves; 1: the
    second never answers), then the player to move is silent. Its opponent claims once the 30 s a first move has and
    the grace have passed, and closes the claim when its 30 s window has passed unanswered: the game is aborted,
    naming who made no first move."""

    def game() -> GameSession:
        line = _Timeline("clock:60+0,rules:2")
        rng = random.Random(9)
        for _ in range(moves):
            line.play(rng, 3000)
        line.flag(30_000 + 1000 + 1200)
        line.timeout(30_000 + 1000 + 1200 + 30_000)
        return line.host

    return game


def _witnessed(answer: str) -> Callable[[], GameSession]:
    """A 1+0 Olix game with a time witness (the offer's ``witness:`` term), on the witness tests' timeline: one
    player takes 50 s a move and signs 0.1 s; its opponent's claim, 13 s into its next turn, is on the clock the
    receipts and the witness timed; the timeout comes when the window has passed, and then (``late``) the hider's move:
    the claimant wins on time, as the witness saw it. ``early``: the hider's move comes (as the witness saw it)
    within the window, before the timeout: the witness voids the timeout, and the game goes on (the claimant
    resigns)."""

    def game() -> GameSession:
        import test_protocol_witness as witnessed

        line = witnessed.timeline(host=KEYS["host"], guest=KEYS["guest"], witness=KEYS["witness"])
        line.play(800)
        line.play(50_000, 100)
        line.play(800)
        waiter, flag = line.claim(13_000)
        hider = line.other(waiter)
        move = hider.move(sorted(playable(hider))[0], think_ms=100).line
        if answer == "early":
            line.send(move, 1_000)
            line.send(line.close(waiter, flag))
            line.send(waiter.resign().line, 5_000)  # the game went on: the claimant resigns
        else:
            line.send(line.close(waiter, flag))
            line.send(move, 2_000)
        return line.watcher

    return game


GAMES: dict[str, Callable[[], GameSession]] = {
    "oxono-game": _confirmed(lambda: _full("oxono", 7)),
    "olix-game": lambda: _full("olix", 3),
    "oxono-draw-agreed": _confirmed(lambda: _agreed("oxono")),
    "olix-ended-by-agreement": _confirmed(lambda: _agreed("olix")),
    "oxono-resigned-while-waiting": _confirmed(_resigned_while_waiting),
    "olix-aborted-by-the-first-player": _confirmed(_aborted_by_the_first_player),
    "oxono-guest-walked-away": _confirmed(_walked_away),
    "oxono-host-claimed": _confirmed(_claimed),
    "olix-withdrawn": _confirmed(_withdrawn),
    "oxono-timed-1+2": _confirmed(lambda: _timed("oxono", "clock:60+2,rules:1", 11)),
    "olix-correspondence-3-days": lambda: _timed("olix", "days:3,rules:1", 12),
    "olix-timed-receipts": _confirmed(_receipted),
    "olix-timed-flag-unanswered": _confirmed(_flagged("unanswered")),
    "olix-timed-flag-conceded": _confirmed(_flagged("conceded")),
    "olix-timed-flag-disputed": _confirmed(_flagged("disputed")),
    "olix-untimed-abandoned": _confirmed(_abandoned),
    "olix-correspondence-flag-unanswered": _confirmed(_correspondence_flagged),
    "olix-witnessed-claim-answered-late": _witnessed("late"),
    "olix-witnessed-claim-voided": _witnessed("early"),
    "olix-first-moves-free": _confirmed(_first_moves_free),
    "olix-took-back-by-agreement": _confirmed(_took_back_by_agreement),
    "olix-no-first-move-aborted": _confirmed(_no_first_move(0)),
    "olix-no-second-first-move-aborted": _confirmed(_no_first_move(1)),
}


# -- rejections -----------------------------------------------------------------------------------------------
def _with_signature(line: str, signature: bytes) -> str:
    return f"{line.rpartition(' sig=')[0]} sig={b64(signature)}"


def cases() -> list[dict[str, Any]]:
    """One case or more per rejection code: the lines to replay in order; the last one is refused."""
    host, guest = _start("oxono")
    _play(host, guest, random.Random(1), 4)
    prefix = list(host.transcript)
    fields = _fields(host)
    mover_session, waiter_session = _sides(host, guest)
    actor = _keyname(host.actor)
    other = "guest" if actor == "host" else "host"
    mover = KEYS[actor]
    legal = sorted(playable(host))
    good = encode("move", [*fields, ("move", legal[0])], mover)
    unsigned, _, sig = good.rpartition(" sig=")
    flipped = sig[:10] + ("B" if sig[10] != "B" else "C") + sig[11:]
    signature = unb64(sig, 64)
    s_plus_l = signature[:32] + (int.from_bytes(signature[32:], "little") + GROUP_L).to_bytes(32, "little")

    over_host, over_guest = _start("oxono")
    over_mover, _ = _sides(over_host, over_guest)
    resign = over_mover.resign()
    over_host.receive(resign.line)
    after = encode(
        "move",
        [*_fields(over_host), ("move", "Oc6c5")],
        KEYS["guest" if _keyname(identity_of(over_mover).public) == "host" else "host"],
    )

    reveal_host, _ = _accepted()
    bad_reveal = encode("reveal", [*_fields(reveal_host), ("secret", SALT)], KEYS["guest"])

    offer_line = host.transcript[0]
    identity_r = ref.sign_with_identity_r(
        SEEDS["host"], KEYS["host"].public.raw, offer_line.rpartition(" sig=")[0].encode()
    )

    chat_host, _ = _start("oxono")
    for n in range(MAX_CHAT_LINES):
        chat_host.chat(f"chat {n}")
    last_chat = [line for line in chat_host.transcript if " chat " in line][-1]
    too_many = encode(
        "chat",
        [
            ("game", chat_host.game_id or ""),
            ("seq", str(MAX_CHAT_LINES + 1)),
            ("prev", line_hash(last_chat)),
            ("text", "one-more"),
        ],
        KEYS["host"],
    )
    superseded_move = mover_session.move(legal[0]).line
    twice_host, _ = _start("oxono")  # a player who signs two chat lines for each of its first five: the fifth
    twice = list(twice_host.transcript)  # proof is one more than a receiver keeps (four a key, the lowest points)
    for n in range(1, MAX_PROOFS_PER_KEY + 2):
        previous = twice_host.chain[0].hash if n == 1 else line_hash(twice[-2])
        twice.append(twice_host.chat(f"chat {n}").line)
        twice.append(
            encode(
                "chat",
                [("game", twice_host.game_id or ""), ("seq", str(n)), ("prev", previous), ("text", f"other-{n}")],
                KEYS["host"],
            )
        )
    second_host, second_guest = _start("oxono")
    _first_session, second_session = _sides(second_host, second_guest)
    second_prefix = list(second_host.transcript)
    second_abort = encode("abort", _fields(second_host), identity_of(second_session))
    superseding_resign = waiter_session.resign().line

    timed_host, timed_guest = _start("oxono", "clock:60+2,rules:1")
    _play(timed_host, timed_guest, random.Random(2), 3)
    timed_prefix = list(timed_host.transcript)
    timed_mover = KEYS[_keyname(timed_host.actor)]
    timed_move = [*_fields(timed_host), ("move", sorted(playable(timed_host))[0])]
    timed_left = clocks_of(timed_host)[board_of(timed_host).turn]
    last_move = timed_host.chain[-1]  # the last move, by the player not to move now
    own_receipt = encode(
        "receipt",
        [("game", timed_host.game_id or ""), ("seq", str(last_move.seq)), ("prev", last_move.hash), ("recv", "5000")],
        KEYS[_keyname(last_move.signer)],
    )
    late_sent = encode(
        "receipt",
        [
            ("game", timed_host.game_id or ""),
            ("seq", str(last_move.seq)),
            ("prev", last_move.hash),
            ("recv", "5000"),
            ("sent", "5001"),
        ],
        KEYS[_keyname(timed_host.actor)],
    )
    untimed_move = host.chain[-1]
    untimed_receipt = encode(
        "receipt",
        [("game", host.game_id or ""), ("seq", str(untimed_move.seq)), ("prev", untimed_move.hash), ("recv", "5000")],
        mover,
    )
    timed_cheat = encode("move", [*timed_move, ("think", "1500"), ("left", str(timed_left))], timed_mover)
    timed_late = encode("move", [*timed_move, ("think", str(timed_left + 1)), ("left", "2000")], timed_mover)
    zero_host, zero_guest = _start("olix", "clock:1+0,rules:1")
    for think in (999, 500, 0, 100):  # the first player's clock: 1000 - 999 = 1, then 1 - max(0, 100) -> 0
        zero_mine, zero_theirs = _sides(zero_host, zero_guest)
        _deliver(zero_mine.move(sorted(playable(zero_mine))[0], think_ms=think), zero_theirs)
    zero_prefix = list(zero_host.transcript)
    zero_move = encode(
        "move",
        [
            *_fields(zero_host),
            ("move", sorted(playable(zero_host))[0]),
            ("think", "0"),
            ("left", "0"),
        ],
        KEYS[_keyname(zero_host.actor)],
    )

    claims = _Timeline("clock:60+0,rules:1")
    for _ in range(4):
        claims.play(random.Random(8), 1500)
    claims_prefix = list(claims.host.transcript)
    mover_name, waiter_name = claims.names()
    began = claims.host.chain[-1]
    claim_sent = claims.clock(waiter_name, claims.sent[waiter_name])
    claim_left = clocks_of(claims.host)[seat_of(claims.host, KEYS[mover_name].public)]
    turn = [("game", claims.host.game_id or ""), ("seq", str(began.seq)), ("prev", began.hash)]
    early_flag = encode(
        "flag", [*turn, ("sent", str(claim_sent)), ("now", str(claim_sent + claim_left + 999))], KEYS[waiter_name]
    )
    own_flag = encode("flag", [*turn, ("sent", "0"), ("now", str(claim_left + 1000))], KEYS[mover_name])
    flag = claims.flag(claim_left + 1000)
    next_line = [*_fields(claims.host)]
    early_timeout = encode(
        "timeout",
        [
            *next_line,
            ("sent", str(claim_sent)),
            ("flagged", str(claim_sent + claim_left + 1000)),
            ("now", str(claim_sent + claim_left + 1000 + 29_999)),
        ],
        KEYS[waiter_name],
    )
    partial_timeout = encode("timeout", [*next_line, ("now", str(claim_sent + 10**9))], KEYS[waiter_name])

    def case(
        name: str, code: str, description: str, last: str | bytes, lines: list[str] | None = None
    ) -> dict[str, Any]:
        item: dict[str, Any] = {
            "name": name,
            "code": code,
            "description": description,
            "lines": list(prefix if lines is None else lines),
        }
        if isinstance(last, bytes):
            item["last_hex"] = last.hex()
        else:
            item["lines"].append(last)
        return item

    out = [
        case(
            "bad-signature", "bad-signature", "one character of a move's signature changed", f"{unsigned} sig={flipped}"
        ),
        case(
            "bad-signature-s-not-below-l",
            "bad-signature",
            "a move's signature with S + L in place of S",
            _with_signature(good, s_plus_l),
        ),
        case(
            "bad-signature-identity-r",
            "bad-signature",
            "the host's offer signed with R = the identity point and S = k·a: cryptography (OpenSSL) accepts it, "
            "libsodium refuses it; the protocol refuses it",
            _with_signature(offer_line, identity_r),
            [],
        ),
        case(
            "bad-signature-non-canonical-r",
            "bad-signature",
            "R = p + 5 (a non-canonical encoding of y = 5)",
            _with_signature(good, (FIELD_P + 5).to_bytes(32, "little") + signature[32:]),
        ),
        *[
            case(
                f"bad-signature-small-order-r-{r.hex()[:8]}{r.hex()[-2:]}",
                "bad-signature",
                f"R is the small-order encoding {r.hex()}",
                _with_signature(good, r + signature[32:]),
            )
            for r in sorted(SMALL_ORDER_ENCODINGS)
        ],
        *[
            case(
                f"weak-key-{key.hex()[:8]}{key.hex()[-2:]}",
                "weak-key",
                f"an offer by the small-order key {key.hex()}, whose signature a cofactorless verifier (cryptography) "
                "accepts: anyone can sign for this key",
                ref.forged_offer(key),
                [],
            )
            for key in sorted(SMALL_ORDER_ENCODINGS)
        ],
        case(
            "wrong-signer",
            "wrong-signer",
            "a move signed by a key with no seat",
            encode("move", [*fields, ("move", legal[0])], KEYS["stranger"]),
        ),
        case(
            "wrong-seat",
            "wrong-seat",
            "a move by the player who is not to move",
            encode("move", [*fields, ("move", legal[0])], KEYS[other]),
        ),
        case(
            "wrong-seat-withdraw", "wrong-seat", "a withdraw with no proposal open", encode("withdraw", fields, mover)
        ),
        case("wrong-seat-agree", "wrong-seat", "an agree with no proposal open", encode("agree", fields, mover)),
        case(
            "wrong-seat-claim",
            "wrong-seat",
            "a claim by the guest",
            encode("claim", _fields(reveal_host), KEYS["guest"]),
            list(reveal_host.transcript),
        ),
        case(
            "wrong-seat-abort", "wrong-seat", "an abort after the sender's first move", encode("abort", fields, mover)
        ),
        case(
            "wrong-seat-abort-second",
            "wrong-seat",
            "an abort by the second player before their first move (only the "
            "first player may abort after the coin flip)",
            second_abort,
            second_prefix,
        ),
        case(
            "broken-link",
            "broken-link",
            "prev= is not the hash of the previous message",
            encode("move", [*fields[:2], ("prev", b64(bytes(32))), ("move", legal[0])], mover),
        ),
        case(
            "gap",
            "gap",
            "the next message is missing: seq skips one",
            encode(
                "move",
                [*fields[:1], ("seq", str(int(fields[1][1]) + 1)), ("prev", b64(bytes(32))), ("move", legal[0])],
                mover,
            ),
        ),
        case(
            "non-canonical-spacing",
            "non-canonical",
            "two spaces between two fields of a valid move",
            good.replace(" move=", "  move="),
        ),
        case("bad-field-seq-0", "bad-field", "a move at seq 0", good.replace(f" seq={fields[1][1]} ", " seq=0 ")),
        case("oversize", "oversize", f"a line longer than {MAX_LINE_BYTES} bytes", good + " " + "x" * MAX_LINE_BYTES),
        case(
            "unknown-version",
            "unknown-version",
            "a valid move with the version token olixono/2",
            good.replace("olixono/1", "olixono/2", 1),
        ),
        case(
            "unknown-term",
            "unknown-term",
            "an offer under terms this version does not know",
            encode(
                "offer",
                [("kind", "oxono"), ("nonce", NONCE), ("terms", "handicap:1,rules:1"), ("at", "1790000000")],
                KEYS["host"],
            ),
            [],
        ),
        case(
            "unknown-term-clock",
            "unknown-term",
            "an offer under a time control beyond what any client plays (a base of more than 3 hours)",
            encode(
                "offer",
                [("kind", "oxono"), ("nonce", NONCE), ("terms", "clock:99999+5,rules:1"), ("at", "1790000000")],
                KEYS["host"],
            ),
            [],
        ),
        case(
            "bad-clock",
            "bad-clock",
            "a timed game's move whose left= does not follow from its think= (the mover "
            "claims 1.5 s spent and keeps its whole clock)",
            timed_cheat,
            timed_prefix,
        ),
        case(
            "bad-clock-out-of-time",
            "bad-clock",
            "a timed game's move that took longer than the mover had left",
            timed_late,
            timed_prefix,
        ),
        case(
            "bad-clock-missing",
            "bad-clock",
            "a timed game's move without think= and left=",
            encode("move", timed_move, timed_mover),
            timed_prefix,
        ),
        case(
            "bad-clock-beyond-32-bits",
            "bad-clock",
            "a timed game's move whose think= is beyond any move's (here "
            "2**32 + 100, which a 32-bit counter would read as 100)",
            encode(
                "move", [*timed_move, ("think", str(2**32 + 100)), ("left", str(timed_left - 100 + 2000))], timed_mover
            ),
            timed_prefix,
        ),
        case(
            "bad-clock-at-zero",
            "bad-clock",
            "a move on a clock at zero, without an increment: it has run out",
            zero_move,
            zero_prefix,
        ),
        case(
            "wrong-seat-receipt-of-own-move",
            "wrong-seat",
            "a timed game's receipt of the signer's own move",
            own_receipt,
            timed_prefix,
        ),
        case("bad-clock-receipt-untimed", "bad-clock", "a receipt in an untimed game", untimed_receipt),
        case(
            "bad-clock-receipt-sent-after-recv",
            "bad-clock",
            "a receipt whose sent= is after its recv= (its line had before its own line left)",
            late_sent,
            timed_prefix,
        ),
        case(
            "early-claim",
            "early-claim",
            "a flag claim 1 ms before the player to move's clock and the 1 s grace "
            "have run out, by the claimant's own times",
            early_flag,
            claims_prefix,
        ),
        case(
            "early-claim-window",
            "early-claim",
            "a timeout 1 ms before its claim's 30 s answer window has passed",
            early_timeout,
            [*claims_prefix, flag.line],
        ),
        case(
            "wrong-seat-flag-by-the-player-to-move",
            "wrong-seat",
            "a flag claim by the player to move",
            own_flag,
            claims_prefix,
        ),
        case(
            "bad-field-timeout-partial",
            "bad-field",
            "a claimant's timeout without the claim's times",
            partial_timeout,
            [*claims_prefix, flag.line],
        ),
        case(
            "bad-clock-untimed",
            "bad-clock",
            "an untimed game's move carrying think= and left=",
            encode("move", [*fields, ("move", legal[0]), ("think", "1500"), ("left", "60000")], mover),
        ),
        case(
            "illegal-move",
            "illegal-move",
            "a well-formed move the position forbids",
            encode("move", [*fields, ("move", "Xa1a1")], mover),
        ),
        case(
            "equivocation",
            "equivocation",
            f"a player signs two chat lines for each of its first "
            f"{MAX_PROOFS_PER_KEY + 1}: the last proof is one more than a receiver keeps (the lines of a proof it "
            "keeps need not apply: see forfeits)",
            twice[-1],
            twice[:-1],
        ),
        case("after-end", "after-end", "a move after a resignation", after, list(over_host.transcript)),
        case(
            "superseded",
            "superseded",
            "a move, then the other player's resignation for the same seq (sent while "
            "they waited): a transcript holds only the resignation",
            superseding_resign,
            [*prefix, superseded_move],
        ),
        case(
            "bad-reveal",
            "bad-reveal",
            "the revealed secret does not match the join's commitment",
            bad_reveal,
            list(reveal_host.transcript),
        ),
        case(
            "wrong-game",
            "wrong-game",
            "a move naming another game's id",
            encode("move", [("game", b64(bytes(16))), *fields[1:], ("move", legal[0])], mover),
        ),
        case(
            "bad-utf8",
            "bad-utf8",
            "a line that is not UTF-8 (given in last_hex)",
            good.encode("utf-8")[:40] + b"\xff\xfe",
        ),
        case("limit", "limit", f"chat line {MAX_CHAT_LINES + 1} of one player", too_many, list(chat_host.transcript)),
        case(
            "wrong-seat-talk",
            "wrong-seat",
            "a watcher's talk line in a game's record (talk sits beside the game, "
            'never in its record: §5, "A watcher\'s talk")',
            _talk(KEYS["stranger"], host.game_id or "", 1),
        ),
    ]
    return out


# -- races and proofs ----------------------------------------------------------------------------------------
def races() -> list[dict[str, Any]]:
    """Lines sent at once by both players: any order of ``lines`` after ``prefix`` ends with ``transcript``."""
    out = []
    host, guest = _start("olix")
    _play(host, guest, random.Random(4), 3)
    mine, theirs = _sides(host, guest)
    prefix = list(host.transcript)
    resign = theirs.resign().line
    turn = [mine.propose().line, mine.move(sorted(playable(mine))[0]).line]
    mine.receive(resign)
    out.append(
        {
            "name": "resign-while-the-opponent-plays-a-turn",
            "prefix": prefix,
            "lines": [resign, *turn],
            "transcript": list(mine.transcript),
            "outcome": mine.result.text() if mine.result else None,
        }
    )
    host, guest = _accepted()
    prefix = list(host.transcript)
    claim = host.claim().line
    reveal = guest.reveal().line
    host.receive(reveal)
    mine, _ = _sides(host, guest)
    first = mine.move(sorted(playable(mine))[0]).line
    host.receive(first)
    out.append(
        {
            "name": "reveal-after-the-hosts-claim",
            "prefix": prefix,
            "lines": [claim, reveal, first],
            "transcript": list(host.transcript),
            "outcome": None,
        }
    )
    return out


def _twin(host: GameSession, seq: int, name: str) -> GameSession:
    """``name``'s session as it stood before main-chain ``seq``: what a second process of that key signs from."""
    return GameSession.restore([m.line for m in host.chain[:seq]], KEYS[name])


def _forfeit(name: str, description: str, prefix: list[str], lines: list[str]) -> dict[str, Any]:
    session = GameSession()
    session.receive_all([*prefix, *lines])
    branch = session.branch
    return {
        "name": name,
        "description": description,
        "prefix": prefix,
        "lines": lines,
        "outcome": session.result.text() if session.result else None,
        "sentence": session.result.sentence() if session.result else None,
        "chain": len(session.chain),
        "branch": branch[0].hash if branch else None,
        "record": list(session.record),
    }


def forfeits() -> list[dict[str, Any]]:
    """A seated key signs two lines that cannot both stand: it loses at that point, in every order of arrival."""
    out = []
    host, guest = _start("oxono")
    _play(host, guest, random.Random(7), 1000)
    chain = host.chain
    loser = _keyname(next(key for player, key in host.seats.items() if player != result_of(host).winner))
    last = max(m.seq for m in chain if m.signer == KEYS[loser].public)
    twin = _twin(host, last, loser)
    forged = twin.move(sorted(m for m in playable(twin) if m != chain[last].value("move"))[0]).line
    out.append(
        _forfeit(
            "loser-re-signs-its-last-slot",
            "after the game the loser signs another move for its own last "
            "slot; the winner's next line names the true one (the branch played)",
            [m.line for m in chain[:last]],
            [forged, chain[last].line, *[m.line for m in chain[last + 1 :]]],
        )
    )

    host, guest = _start("olix")
    _play(host, guest, random.Random(4), 6)
    actor, waiter = _sides(host, guest)
    prefix = list(host.transcript)
    name = _keyname(identity_of(waiter).public)
    resign = waiter.resign().line
    move = actor.move(sorted(playable(actor))[0]).line
    played_on = GameSession.restore(prefix, KEYS[name])
    played_on.receive(move)
    reply = played_on.move(sorted(playable(played_on))[0]).line
    out.append(
        _forfeit(
            "resigned-and-played-on",
            "a player resigns while the other moves, and also answers that move "
            "(a final line, and a later line of the same key)",
            prefix,
            [resign, move, reply],
        )
    )

    host, offer = GameSession.offer("oxono", KEYS["host"], nonce=NONCE, at=AT, terms="rules:1")
    joins = []
    for secret in (SECRET, SALT):
        candidate = GameSession(host.game_id, KEYS["guest"])
        candidate.receive(offer.line)
        joins.append(candidate.join(secret))
    host.receive(joins[0].line)
    accept = host.accept(KEYS["guest"].public, SALT).line
    out.append(
        _forfeit(
            "guest-joined-twice",
            "the seated guest signed two joins (two coin commitments): the host wins "
            "by forfeit, before the coin is revealed",
            [offer.line],
            [joins[0].line, joins[1].line, accept],
        )
    )

    host, offer = GameSession.offer("olix", KEYS["host"], nonce=NONCE, at=AT, terms="rules:1")
    guest = GameSession(host.game_id, KEYS["guest"])
    guest.receive(offer.line)
    join = guest.join(SECRET).line
    host.receive(join)
    accepts = [
        host.accept(KEYS["guest"].public, SALT).line,
        encode(
            "accept",
            [
                ("game", host.game_id or ""),
                ("seq", "2"),
                ("prev", line_hash(join)),
                ("guest", KEYS["guest"].public.text),
                ("salt", SECRET),
            ],
            KEYS["host"],
        ),
    ]
    out.append(
        _forfeit(
            "host-accepted-twice", "the host signed two accepts (two salts): no game", [offer.line], [join, *accepts]
        )
    )
    return [*out, *_took_back()]


def _made_up_timeout(session: GameSession, seq: int, prev: str, name: str, sent: int = 0, flagged: int = 10**9) -> str:
    """A timeout for main-chain ``seq`` signed by ``name`` with times it made up (no client of ours signs it): the
    claim's ``sent`` and ``flagged``, and its ``now`` long after."""
    return encode(
        "timeout",
        [
            ("game", session.game_id or ""),
            ("seq", str(seq)),
            ("prev", prev),
            ("sent", str(sent)),
            ("flagged", str(flagged)),
            ("now", str(flagged + 10**9)),
        ],
        KEYS[name],
    )


def _a_move(
    terms: str, seed: int, plies: int, think: int, waiter: str | None = None
) -> tuple[_Timeline, list[str], str, str, Outgoing, str | None]:
    """A game on the timeline played ``plies`` plies (and on until ``waiter`` waits for the other, if given), then one
    more move: the record before that move, the mover's name and the other's, the move and the other's receipt of it
    (``None`` untimed)."""
    line = _Timeline(terms)
    rng = random.Random(seed)
    while len(line.host.chain) < 4 + plies or (waiter is not None and line.names()[1] != waiter):
        line.play(rng, think)
    prefix = list(line.host.transcript)
    mover, other = line.names()
    move = line.play(rng, think)
    receipt = next(
        (
            said
            for said in line.sessions[mover].transcript
            if decode(said).type == "receipt" and decode(said).seq == move.message.seq
        ),
        None,
    )
    return line, prefix, mover, other, move, receipt


def _took_back() -> list[dict[str, Any]]:
    """A player signs a timeout for the place of the other's move it had already said it had: equivocation."""
    out = []
    line, prefix, _mover, other, move, receipt = _a_move("clock:300+5,rules:1", 8, 5, 800)
    assert receipt is not None  # a timed game: the other player receipts the move
    fake = _made_up_timeout(line.host, move.message.seq, move.message.prev, other)
    out.append(
        _forfeit(
            "receipted-then-timed-out",
            "a player receipts the other's move, then signs a timeout with "
            "made-up times for that move's place (saying it never came): it forfeits there",
            prefix,
            [move.line, receipt, fake],
        )
    )

    # the host waits: its clock reads past any claim's wait
    line, prefix, _mover, other, move, receipt = _a_move("clock:300+5,rules:1", 10, 5, 800, waiter="host")
    assert receipt is not None
    recv = decode(receipt).recv
    dodge = _made_up_timeout(line.host, move.message.seq, move.message.prev, other, recv - 10**6, recv)
    out.append(
        _forfeit(
            "receipted-then-timed-out-at-its-receipt",
            "a player receipts the other's move, then signs a "
            "timeout for that move's place whose claim it dates at its receipt's recv= (its sent= moved "
            "back to keep the claim's wait): the timeout waited longer from the turn's start than the "
            "receipt, so it forfeits there",
            prefix,
            [move.line, receipt, dodge],
        )
    )

    line, prefix, _mover, other, move, _ = _a_move("rules:1", 11, 4, 2000)
    said = line.clock(other, line.sent[other])
    receipt = encode(
        "receipt",
        [
            ("game", line.host.game_id or ""),
            ("seq", str(move.message.seq)),
            ("prev", move.message.hash),
            ("recv", str(said + 2030)),
            ("sent", str(said)),
        ],
        KEYS[other],
    )
    fake = _made_up_timeout(line.host, move.message.seq, move.message.prev, other)
    out.append(
        _forfeit(
            "untimed-receipted-then-timed-out",
            "in an untimed game (which has no receipts: refused "
            "bad-clock), a player signs a receipt of the other's move all the same, then a timeout with "
            "made-up times for that move's place: its word all the same, it forfeits there",
            prefix,
            [move.line, receipt, fake],
        )
    )

    line = _Timeline("clock:300+5,rules:1")
    rng = random.Random(9)
    for _ in range(600):
        name, other = line.names()
        board = board_of(line.sessions[name])
        wins = sorted(m.text() for m in board.legal_moves() if _ends(board, m))
        if wins:
            break
        line.play(rng, 300)
    assert wins, "no game-ending move came up"
    prefix = list(line.host.transcript)
    move = line.sessions[name].move(wins[0], think_ms=300)
    loser = line.sessions[other]
    loser.receive(move.line)
    confirm = loser.confirm()
    assert confirm is not None
    fake = _made_up_timeout(line.host, move.message.seq, move.message.prev, other)
    out.append(
        _forfeit(
            "confirmed-the-loss-then-timed-out",
            "the loser confirms the move that beat it, then signs a "
            "timeout with made-up times for that move's place: it forfeits there (no dispute)",
            prefix,
            [move.line, confirm.line, fake],
        )
    )
    return out


def _ends(board: Any, move: Any) -> bool:
    after = board.copy()
    after.push(move)
    return after.outcome() is not None


def confirmations() -> dict[str, Any]:
    """After a finished game: confirmations, and how a receiver rates each player's latest one after each."""
    host, guest = _start("oxono")
    _play(host, guest, random.Random(7), 1000)
    record = GameSession.restore(host.transcript)
    head, before = host.chain[-1], host.chain[-2]
    lie = encode(
        "confirm",
        [
            ("game", host.game_id or ""),
            ("seq", "1"),
            ("prev", before.hash),
            ("final", str(before.seq)),
            ("result", "draw-agreed"),
        ],
        KEYS["guest"],
    )
    honest = GameSession.restore(host.transcript, KEYS["guest"])
    honest._confirms[KEYS["guest"].public] = {1: decode(lie)}  # this player's first confirmation was the lie
    lines = [confirm_of(host).line, lie, confirm_of(honest).line]
    seen = []
    for line in lines:
        record.receive(line)
        seen.append({name: record.confirmation(KEYS[name].public) for name in ("host", "guest")})
    assert head.seq == record.chain[-1].seq
    return {"prefix": list(host.transcript), "lines": lines, "confirmation": seen}


def _talk(key: Identity, game: str, seq: int) -> str:
    """``key``'s talk line number ``seq`` in ``game``."""
    return encode("talk", [("game", game), ("seq", str(seq)), ("text", "nice%20move")], key)


def relay_lines() -> list[dict[str, Any]]:
    """What the reference relay keeps on a game's topics (PROTOCOL.md §7): a payload for a topic that holds ``held``
    (``null``: nothing), and whether it is kept."""
    host, guest = _start("oxono")
    _play(host, guest, random.Random(1), 3)
    line = host.chain[-1]
    other = host.chain[-2]
    topic = topic_for(line)
    twin = GameSession.restore([m.line for m in host.chain[: line.seq]], KEYS[_keyname(line.signer)])
    second = twin.resign().line
    here, gone, later = (guest.presence(True, 1).line, guest.presence(False, 1).line, guest.presence(True, 2).line)
    presence_topic = guest.presence(True, 1).topic
    holder = KEYS[_keyname(other.signer)].public
    talk, beyond = _talk(KEYS["stranger"], line.game, 1), _talk(KEYS["stranger"], line.game, MAX_TALK_LINES + 1)
    cases = [
        ("a line on its own topic", topic, line.line, None, True),
        ("the same line again", topic, line.line, line.line, True),
        ("a copy on the topic its hash names", copy_topic(line, holder), line.line, None, True),
        ("an empty payload (it would erase the line)", topic, "", line.line, False),
        ("junk", topic, "not a line", None, False),
        (
            "a line on another key's topic",
            topic.replace(line.signer.text, KEYS["stranger"].public.text),
            line.line,
            None,
            False,
        ),
        ("a line on another slot's topic", topic_for(other), line.line, None, False),
        ("a copy on a topic naming another hash", copy_topic(other, holder), line.line, None, False),
        ("a second line for a slot that holds one", topic, second, line.line, False),
        ("presence: gone after here at one seq", presence_topic, gone, here, True),
        ("presence: a higher seq", presence_topic, later, gone, True),
        ("presence: back to a lower seq", presence_topic, here, later, False),
        ("a watcher's talk line on its own topic", topic_for(decode(talk)), talk, None, True),
        (
            "a talk line on another talk slot's topic",
            topic_for(decode(talk)).replace("/talk/1", "/talk/2"),
            talk,
            None,
            False,
        ),
        (f"talk line {MAX_TALK_LINES + 1} of one key", topic_for(decode(beyond)), beyond, None, False),
    ]
    return [
        {"name": name, "topic": where, "payload": payload, "held": held, "kept": kept}
        for name, where, payload, held, kept in cases
    ]


def presence() -> dict[str, Any]:
    """Presence lines of the guest after a game's prefix, in order, and whether the guest is here after each."""
    host, guest = _start("oxono")
    lines = [
        guest.presence(True, 1),
        guest.presence(False, 1),
        guest.presence(True, 1),
        guest.presence(True, 2),
        guest.presence(False, 1),
    ]
    spectator = GameSession()
    spectator.receive_all(host.transcript)
    here = []
    for out in lines:
        spectator.receive(out.line)
        here.append(spectator.present(KEYS["guest"].public))
    return {"prefix": list(host.transcript), "lines": [out.line for out in lines], "here": here}


def proofs() -> list[dict[str, Any]]:
    """Pairs of lines and whether they prove their signer equivocated (``check_equivocation_proof``)."""
    host, guest = _start("oxono")
    _play(host, guest, random.Random(2), 3)
    mine, _ = _sides(host, guest)
    twin = GameSession.restore(mine.transcript, mine.identity)
    legal = sorted(playable(mine))
    a, b = mine.move(legal[0]).line, twin.move(legal[1]).line
    resigned = GameSession.restore(mine.transcript[:-1], mine.identity)
    resign = resigned.resign().line
    over, _ = _start("olix")
    over.resign()
    confirms = [
        confirm_of(GameSession.restore(over.transcript, KEYS["host"])).line,
        encode(
            "confirm",
            [
                ("game", over.game_id or ""),
                ("seq", "1"),
                ("prev", over.chain[-2].hash),
                ("final", str(over.chain[-2].seq)),
                ("result", "first-resigned"),
            ],
            KEYS["host"],
        ),
    ]
    chat = GameSession.restore(over.transcript, KEYS["host"]).chat("good game").line
    took = {forfeit["name"]: forfeit["lines"] for forfeit in _took_back()}
    move, receipt, timeout = took["receipted-then-timed-out"]
    _, dodged, dodge = took["receipted-then-timed-out-at-its-receipt"]
    _, untimed_receipt, untimed_timeout = took["untimed-receipted-then-timed-out"]
    _, confirm, timeout_after_confirm = took["confirmed-the-loss-then-timed-out"]
    claimant, had = decode(timeout), decode(receipt)
    name = next(name for name, key in KEYS.items() if key.public == claimant.signer)
    assert had.sent is not None

    def receipted(recv: int, sent: int | None, seq: int | None = None) -> str:
        return encode(
            "receipt",
            [
                ("game", claimant.game),
                ("seq", str(claimant.seq if seq is None else seq)),
                ("prev", line_hash(move)),
                ("recv", str(recv)),
                *([("sent", str(sent))] if sent is not None else []),
            ],
            KEYS[name],
        )

    loser = decode(confirm)
    confirmed_beyond = encode(
        "confirm",
        [
            ("game", loser.game),
            ("seq", str(MAX_CONFIRMS + 1)),
            ("prev", loser.prev),
            ("final", str(loser.final)),
            ("result", loser.result),
        ],
        KEYS[next(name for name, key in KEYS.items() if key.public == loser.signer)],
    )
    return [
        {
            "first": receipt,
            "second": timeout,
            "signer": claimant.signer.text,
            "why": "a receipt of a move before the claim, and a timeout for its place",
        },
        {
            "first": dodged,
            "second": dodge,
            "signer": decode(dodge).signer.text,
            "why": "a receipt, and a timeout for that move's place whose claim is dated at the receipt's recv= but "
            "waited longer from the turn's start (flagged - sent above recv - sent)",
        },
        {
            "first": timeout_after_confirm,
            "second": confirm,
            "signer": loser.signer.text,
            "why": "a confirmation of a win by the rules, and a timeout for the winning move's place",
        },
        {
            "first": untimed_receipt,
            "second": untimed_timeout,
            "signer": decode(untimed_timeout).signer.text,
            "why": "an untimed game's receipt (refused, but its signer's word), and a timeout for that move's place",
        },
        {
            "first": receipted(had.sent + 10**9 + 5, had.sent),
            "second": timeout,
            "signer": None,
            "why": "a receipt of a move that came after the claim (recv - sent above flagged - sent), and a timeout "
            "over it (a dispute, no proof)",
        },
        {
            "first": receipted(5, None),
            "second": timeout,
            "signer": None,
            "why": "a receipt without sent= (the host's of the guest's first move), and a timeout for its place: it "
            "measures nothing from the turn's start (no proof)",
        },
        {
            "first": receipted(had.sent, had.sent + 1),
            "second": timeout,
            "signer": None,
            "why": "a receipt whose sent= is after its recv= (refused by every receiver), and a timeout for its place",
        },
        {
            "first": confirmed_beyond,
            "second": timeout_after_confirm,
            "signer": None,
            "why": f"a confirmation numbered {MAX_CONFIRMS + 1} (beyond every receiver's limit), and a timeout for the "
            "winning move's place",
        },
        {
            "first": receipted(5, None, MAX_CHAIN),
            "second": receipted(6, None, MAX_CHAIN),
            "signer": None,
            "why": f"two receipts of seq {MAX_CHAIN}, beyond any game's main chain (refused by every receiver)",
        },
        {"first": a, "second": b, "signer": identity_of(mine).public.text, "why": "two different moves for one seq"},
        {
            "first": resign,
            "second": a,
            "signer": identity_of(mine).public.text,
            "why": "a resignation, then a line of the same key",
        },
        {"first": a, "second": a, "signer": None, "why": "the same line twice proves nothing"},
        {"first": host.transcript[4], "second": host.transcript[5], "signer": None, "why": "two players' lines"},
        {
            "first": confirms[0],
            "second": confirms[1],
            "signer": KEYS["host"].public.text,
            "why": "two different confirmations numbered alike",
        },
        {"first": confirms[0], "second": chat, "signer": None, "why": "a confirmation and a chat line"},
    ]


def build() -> dict[str, str]:
    """Every vector file's name and text."""
    files: dict[str, str] = {}
    keys = {
        name: {"seed_hex": SEEDS[name].hex(), "public": key.public.text, "fingerprint": key.fingerprint}
        for name, key in KEYS.items()
    }
    games = []
    for name, make in GAMES.items():
        session = make()
        files[f"{name}.txt"] = "\n".join(session.record) + "\n"
        games.append(
            {
                "file": f"{name}.txt",
                "kind": session.kind,
                "game": session.game_id,
                "seats": {player: _keyname(key) for player, key in session.seats.items()},
                "moves": session.moves,
                "outcome": session.result.text() if session.result else None,
                "sentence": session.result.sentence() if session.result else None,
                "lines": len(session.record),
                "confirmed_by": sorted(_keyname(key) for key in session.confirmed_by),
                "terms": session.terms,
                "clocks": session.clocks,
                "time_used": {
                    player: {
                        "used": side.used,
                        "unexplained": side.unexplained,
                        "moves": side.moves,
                        "measured": side.measured,
                    }
                    for player, side in session.time_used().items()
                },
            }
        )
    document = {
        "about": "olixono/1 test vectors: see README.md beside this file",
        "coin": {"secret": SECRET, "salt": SALT, "nonce": NONCE, "at": AT},
        "keys": keys,
        "games": games,
        "cases": cases(),
        "races": races(),
        "forfeits": forfeits(),
        "proofs": proofs(),
        "confirmations": confirmations(),
        "presence": presence(),
        "relay_lines": relay_lines(),
        "small_order_encodings": sorted(key.hex() for key in SMALL_ORDER_ENCODINGS),
    }
    files["vectors.json"] = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    return files


if __name__ == "__main__":
    for name, text in build().items():
        (VECTORS / name).write_text(text)
        print(f"wrote {VECTORS / name}")
