"""A time witness (PROTOCOL.md §3): a key the offer's terms name signs when it saw each line of the game, and claims on
time are decided on its times. With one, a player who hides its thinking, one who inflates its receipts, and a loser
who signs a timeout for the place of the move that beat it all fail, where without one they end in a time dispute at
best; a witness that lies is caught by its own lines, and its times then count for nothing.

On a simulated timeline: every line reaches every receiver and the witness as it is signed; the witness signs what it
saw at once, on the true time (its clock's origin is its own: only durations count)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import pytest
from protocol_helpers import (
    AT,
    GUEST,
    HOST,
    NONCE,
    SALT,
    SECRET,
    board_of,
    clocks_of,
    game_id_in,
    identity_of,
    playable,
    seat_of,
)

from protocol import ClaimVoided, GameSession, Identity, Result, verify_transcript
from protocol.clock import GRACE_MS, answer_window
from protocol.domain import ResultReason
from protocol.errors import LocalProtocolError
from protocol.messages import decode, encode
from protocol.session import Witnessing

WITNESS = Identity.from_seed(bytes(range(11, 43)))
ORIGIN = 5_000_000  # the witness's clock reads this at the true time 0


@dataclass
class Timeline:
    """Host, guest, a watcher and the witness of one live game; ``now`` is the true time in ms."""

    host: GameSession
    guest: GameSession
    watcher: GameSession
    witness: Witnessing | None
    now: int = 0
    lines: list[str] = field(default_factory=list)  # every line, in the order it was signed
    sent: dict[int, int] = field(default_factory=dict)  # when each player's last move left it (true time)

    def send(self, line: str, late: int = 0) -> None:
        """``line`` reaches everyone ``late`` ms from now (the witness too), and the witness signs that it saw it."""
        self.now += late
        self.lines.append(line)
        for session in (self.host, self.guest, self.watcher):
            session.receive(line)
        if self.witness is not None:
            self.witness.receive(line)
            out = self.witness.attest(ORIGIN + self.now)
            if out is not None:
                self.send(out.line)

    def mover(self) -> GameSession:
        return self.host if self.host.actor == self.host.host else self.guest

    def other(self, session: GameSession) -> GameSession:
        return self.guest if session is self.host else self.host

    def play(self, took: int, says: int | None = None, recv_bias: int = 0) -> str:
        """The player to move thinks ``took`` ms (and says ``says``), its move sent at once; the other receipts it (as
        come ``recv_bias`` ms later than it did)."""
        mover = self.mover()
        other = self.other(mover)
        self.now += took
        line = mover.move(playable(mover)[0], think_ms=took if says is None else says).line
        self.send(line)
        self.sent[id(mover)] = self.turn_began = self.now
        receipt = other.receipt(decode(line).seq, self.now + recv_bias, self.sent.get(id(other)))
        assert receipt is not None
        self.send(receipt.line)
        return line

    def claim(self, after: int) -> tuple[GameSession, str]:
        """The player not to move claims ``after`` ms into the turn (its clock: the true time)."""
        waiter = self.other(self.mover())
        flag = waiter.flag(self.turn_began, self.turn_began + after).line
        self.now = self.turn_began + after
        self.send(flag)
        return waiter, flag

    def close(self, waiter: GameSession, flag: str) -> str:
        """The claimant closes its claim ``flag`` once the window has passed (its times, whatever came meanwhile)."""
        claimed = decode(flag)
        assert claimed.now is not None
        now = claimed.now + answer_window(waiter.clock)
        self.now = max(self.now, now)
        return encode(
            "timeout",
            [
                ("game", claimed.game),
                (
                    "seq",
                    str(len(self.watcher.chain) if self.watcher.chain[-1].hash == claimed.prev else claimed.seq + 1),
                ),
                ("prev", claimed.prev),
                ("sent", str(claimed.sent)),
                ("flagged", str(claimed.now)),
                ("now", str(now)),
            ],
            identity_of(waiter),
        )


def timeline(
    terms: str = "clock:60+0,rules:1",
    witnessed: bool = True,
    *,
    host: Identity = HOST,
    guest: Identity = GUEST,
    witness: Identity = WITNESS,
) -> Timeline:
    """A seated 1+0 Olix game (``terms``) with ``witness`` named in its terms (``witnessed``), the guest's reveal
    just verified."""
    if witnessed:
        terms = f"{terms},witness:{witness.public.text}"
    hosting, offer = GameSession.offer("olix", host, nonce=NONCE, at=AT, terms=terms)
    joining, watcher = GameSession(hosting.game_id, guest), GameSession(hosting.game_id)
    game = Timeline(hosting, joining, watcher, Witnessing(hosting.game_id, witness) if witnessed else None)
    game.send(offer.line)
    game.send(joining.join(SECRET).line)
    game.send(hosting.accept(guest.public, SALT).line)
    game.send(joining.reveal().line)
    game.turn_began = game.now
    return game


def everyone_agrees(game: Timeline, orders: int = 6) -> Result:
    """Receivers fed the game's lines in the order signed and in several others, and verify over each one's record:
    all reach one result, which they return."""
    results: set[Result | None] = set()
    lines = list(game.lines)
    for order in itertools.islice(itertools.permutations(lines[-4:]), orders):
        receiver = GameSession(game.host.game_id)
        receiver.receive_all([*lines[:-4], *order])
        replayed, bad, problem = verify_transcript(receiver.record)
        assert bad is None and replayed.result == receiver.result, problem
        results.add(receiver.result)
    assert len(results) == 1, results
    result = results.pop()
    assert result is not None
    return result


def test_the_witness_signs_every_line_it_verified_once_on_its_own_chain():
    game = timeline()
    for took in (900, 1200, 700):
        game.play(took)
    assert game.witness is not None
    mine = [decode(line) for line in game.lines if line.startswith("olixono/1 witness ")]
    named = [digest for line in mine for digest in line.value("lines").split(".")]
    assert len(named) == len(set(named)) and [line.seq for line in mine] == list(range(1, len(mine) + 1))
    chain = [line.hash for line in game.watcher.chain]
    assert set(chain) <= set(named)
    assert all(line in game.watcher.transcript for line in game.lines if line.startswith("olixono/1 witness "))


def test_a_witness_never_names_a_line_it_did_not_see_live():
    """A catch-up's lines (the relay's store) come late to a witness: it names none of them, only what comes after."""
    game = timeline()
    for took in (900, 1200):
        game.play(took)
    late = Witnessing(game.watcher.game_id, WITNESS)  # the game's witness, restarted with nothing kept
    for message in game.watcher.chain:
        late.receive(message.line, live=False)
    assert late.attest(5_000) is None  # it saw nothing live
    game.play(800)
    late.receive(game.watcher.chain[-1].line)
    out = late.attest(6_000)
    assert out is not None and out.message.value("lines") == game.watcher.chain[-1].hash


@pytest.mark.parametrize("witnessed", [False, True], ids=["no witness", "witness"])
def test_a_hider_that_answers_a_claim_late_loses_on_time_with_a_witness(witnessed):
    """The hider takes 50 s a move in a 1+0 game and signs 0.1 s; the claim against its next turn comes 13 s in, the
    timeout when the window has passed, and then its move, signed 0.1 s. Without a witness: a dispute at best for the
    hider. With one: the claimant wins on time, the move after the timeout set aside."""
    game = timeline(witnessed=witnessed)
    game.play(800)
    game.play(50_000, 100)
    game.play(800)
    waiter, flag = game.claim(13_000)
    game.send(game.close(waiter, flag))
    hider = game.other(waiter)
    game.send(
        encode(
            "move",
            [
                ("game", game_id_in(game.host)),
                ("seq", str(len(game.watcher.chain) - 1)),
                ("prev", game.watcher.chain[-2].hash),
                ("move", playable(hider)[0]),
                ("think", "100"),
                ("left", str(clocks_of(hider)[seat_of(hider, identity_of(hider).public)] - 100)),
            ],
            identity_of(hider),
        ),
        2_000,
    )
    result = everyone_agrees(game)
    if witnessed:
        assert result.reason == ResultReason.TIME and result.winner_key == identity_of(waiter).public
        assert "as the time witnesses saw it" in result.sentence()
    else:
        assert result.reason == ResultReason.DISPUTE


def test_a_move_before_the_claims_window_closed_stands_over_the_timeout():
    """The claimant closes its claim, but the other's move came (as the witness saw it) before the timeout: the move
    stands, and the game goes on, in every order; the timeout stays in the record, voided."""
    game = timeline()
    game.play(800)
    game.play(800)
    waiter, flag = game.claim(62_000)
    mover = game.other(waiter)
    move = mover.move(playable(mover)[0], think_ms=1000).line  # in the claim's window
    game.send(move, 1_000)
    timeout = game.close(waiter, flag)
    game.send(timeout)
    assert not game.watcher.over and game.watcher.chain[-1].line == move
    receiver = GameSession(game.host.game_id)
    events = receiver.receive_all([line for line in game.lines if line != move] + [move])
    assert any(isinstance(event, ClaimVoided) for event in events)
    assert not receiver.over and receiver.chain[-1].line == move and timeout in receiver.record


def test_inflated_receipts_never_turn_an_honest_claim_into_a_dispute_with_a_witness():
    """The cheater receipts each of the honest player's moves as if it had come 10 s later than it did, so that the
    honest player's own moves look 10 s slow: past the bound, its claim on time would be a dispute. The witness's
    times decide instead: the honest claimant wins on time."""
    for witnessed in (False, True):
        game = timeline(witnessed=witnessed)
        honest = game.mover()
        for _ in range(2):
            game.play(800, recv_bias=10_000)  # honest: the cheater receipts it 10 s late
            game.play(800)  # the cheater
        game.play(800, recv_bias=10_000)
        game.now += 1
        waiter, flag = game.claim(62_000)
        assert waiter is honest
        game.send(game.close(waiter, flag))
        result = game.watcher.result
        assert result is not None
        if witnessed:
            assert result.reason == ResultReason.TIME and result.winner_key == identity_of(honest).public
        else:
            assert result.reason == ResultReason.DISPUTE


def test_a_loser_cannot_reopen_a_won_game_with_a_claim_signed_after_the_winning_move():
    """The move that wins the game comes; then the loser signs a claim and a timeout for its place, with times of its
    choice. The witness saw the winning move first: it stands, the win too, in every order and offline."""
    game = timeline()
    while True:
        mover = game.mover()
        board = board_of(mover)
        ending = next((m for m in board.legal_moves() if _ends(board, m)), None)
        if ending is not None:
            break
        game.play(300)
    winning = mover.move(ending.text(), think_ms=300).line
    began = game.watcher.chain[-1]
    game.send(winning)
    loser = game.other(mover)
    fields = [("game", game_id_in(game.host)), ("seq", str(began.seq)), ("prev", began.hash)]
    game.send(encode("flag", [*fields, ("sent", "0"), ("now", str(10**9))], identity_of(loser)), 100)
    game.send(
        encode(
            "timeout",
            [
                ("game", game_id_in(game.host)),
                ("seq", str(began.seq + 1)),
                ("prev", began.hash),
                ("sent", "0"),
                ("flagged", str(10**9)),
                ("now", str(2 * 10**9)),
            ],
            identity_of(loser),
        ),
        100,
    )
    result = everyone_agrees(game)
    assert result.winner_key == identity_of(mover).public and result.reason != ResultReason.DISPUTE


def test_an_abort_after_the_claims_window_never_outranks_the_timeout_with_a_witness():
    """The first player never moves; the other claims, and closes the claim when the window has passed; the first
    player then aborts (the one line that would have ended the game without a result): the claimant wins on time."""
    game = timeline()
    first = game.mover()
    waiter, flag = game.claim(62_000)
    game.send(game.close(waiter, flag))
    abort = encode(
        "abort",
        [("game", game_id_in(game.host)), ("seq", "4"), ("prev", game.watcher.chain[3].hash)],
        identity_of(first),
    )
    game.send(abort, 1_000)
    result = everyone_agrees(game)
    assert result.reason == ResultReason.TIME and result.winner_key == identity_of(waiter).public


def test_a_witness_whose_times_go_back_counts_for_nothing():
    """The witness signs a line whose time is before its previous one's: it lies, and the game is judged as if it had
    no witness (the hider's late move makes a dispute again)."""
    game = timeline()
    game.play(800)
    assert game.witness is not None
    back = encode(
        "witness",
        [
            ("game", game_id_in(game.host)),
            ("seq", str(len(_witness_lines(game)) + 1)),
            ("prev", decode(_witness_lines(game)[-1]).hash),
            ("time", "1"),
            ("lines", game.watcher.chain[0].hash),
        ],
        WITNESS,
    )
    game.watcher.receive(back)
    assert WITNESS.public in game.watcher.witness_lies()


def test_the_terms_name_witnesses_sorted_each_once():
    keys = sorted(Identity.from_seed(bytes([n]) * 32).public.text for n in range(4))
    for bad in (f"{keys[1]}.{keys[0]}", f"{keys[0]}.{keys[0]}", ".".join(keys)):
        with pytest.raises(LocalProtocolError, match=r"witness: names 1 to 3 keys, sorted, each once|malformed"):
            GameSession.offer("olix", HOST, terms=f"rules:1,witness:{bad}")


def _witness_lines(game: Timeline) -> list[str]:
    return [line for line in game.lines if line.startswith("olixono/1 witness ")]


def _ends(board, move) -> bool:
    after = board.copy()
    after.push(move)
    return after.outcome() is not None


@pytest.mark.parametrize("witnessed", [False, True], ids=["no witness", "witness"])
def test_a_correspondence_game_is_held_to_its_days_by_the_witness(witnessed):
    """A 1-day correspondence game: the player to move answers two days late, saying it thought an hour; its
    opponent had claimed after a day and closed the claim a day later. Without a witness its word against the
    claimant's: a dispute (correspondence games have no bound). With one: a win on time."""
    day = 86_400_000
    game = timeline("days:1,rules:1", witnessed=witnessed)
    game.play(3_600_000)
    game.play(3_600_000)
    waiter, flag = game.claim(day + GRACE_MS)
    game.send(game.close(waiter, flag))
    late = game.other(waiter)
    game.send(
        encode(
            "move",
            [
                ("game", game_id_in(game.host)),
                ("seq", str(len(game.watcher.chain) - 1)),
                ("prev", game.watcher.chain[-2].hash),
                ("move", playable(late)[0]),
                ("think", "3600000"),
                ("left", str(day)),
            ],
            identity_of(late),
        ),
        3_600_000,
    )
    result = everyone_agrees(game)
    if witnessed:
        assert result.reason == ResultReason.TIME and result.winner_key == identity_of(waiter).public
    else:
        assert result.reason == ResultReason.DISPUTE


def hidden_thinking(took: int, moves: int, rtt: int = 40) -> Timeline:
    """A witnessed 1+0 game where one player takes ``took`` ms more than the 2 s it signs on each of its moves, while
    the other's moves take 1 s and every receipt is prompt (a round trip of ``rtt``); the hider to move, silent."""
    game = timeline()

    def play(spent: int, says: int) -> None:
        mover = game.mover()
        other = game.other(mover)
        game.now += spent
        line = mover.move(playable(mover)[0], think_ms=says).line
        game.send(line)
        game.sent[id(mover)] = game.turn_began = game.now
        sent = game.sent.get(id(other))
        receipt = other.receipt(decode(line).seq, game.now, sent, None if sent is None else sent + rtt)
        assert receipt is not None  # a timed game
        game.send(receipt.line)

    hider = game.mover()
    for _ in range(moves):
        play(2000 + took, 2000) if game.mover() is hider else play(1000, 1000)
    if game.mover() is not hider:
        play(1000, 1000)
    return game


def test_a_claimant_that_waits_what_claim_remaining_says_is_never_voided_by_the_witnesses():
    """The hider's moves took 4 s where it signed 2 s: the witnesses allow a move 1.1 s of lag, the claimant's own
    receipts only the round trip, so they time its clock longer than the claimant's watch does. A claim on the
    claimant's watch alone (plus the client's 2 s margin) would be voided, and its ending could only be sent again;
    the claimant waits for the clock as both time it, and wins on time."""
    from client.cores.network_game import WITNESS_MARGIN_MS

    for honest in (False, True):
        game = hidden_thinking(2000, 9)
        waiter = game.other(game.mover())
        remaining = (
            waiter.claim_remaining() if honest else waiter._claim_remaining(waiter._state, len(waiter.chain) - 1)
        )
        assert remaining is not None  # a timed game, played
        _, flag = game.claim(remaining + GRACE_MS + 40 + WITNESS_MARGIN_MS)
        game.send(game.close(waiter, flag))
        if honest:
            assert game.watcher.result is not None and game.watcher.result.reason is ResultReason.TIME
        else:  # the old wait: voided, and no second ending of this turn
            assert game.watcher.result is None
            with pytest.raises(LocalProtocolError, match="voided your ending"):
                waiter.timeout(ORIGIN)
