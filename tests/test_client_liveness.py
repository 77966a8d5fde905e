"""The liveness decisions (client/cores/liveness.py), on a clock of our own: re-sends, re-subscriptions, a dead
connection."""

from __future__ import annotations

import itertools
from dataclasses import replace

from client.cores import liveness
from client.cores.liveness import AskCopy, Liveness, Reconnect, Resend, Resubscribe, Tell, View
from protocol.messages import line_hash

LINE = "olixono/1 move game=G seq=5 prev=P move=a1 by=K sig=S"
TOPIC = "olixono/1/games/G/K/5"
QUIET = View(opponent="second 1a2b-3c4d", present=True, answered=4, their_turn=True, gap=None, connected=True)
MINE = replace(QUIET, their_turn=False)  # the acknowledgements alone: no quiet opponent's clock running


def kinds(actions) -> list[str]:
    return [type(action).__name__ for action in actions]


def run(watch: Liveness, view: View, start: float, end: float) -> list[tuple[float, object]]:
    """Every tick from ``start`` to ``end``: (time, action)."""
    out: list[tuple[float, object]] = []
    now = start
    while now <= end:
        out += [(now, action) for action in watch.tick(now, view)]
        now += liveness.TICK
    return out


def test_a_line_without_a_sign_is_sent_again_and_the_person_told_once():
    watch = Liveness()
    watch.sent(TOPIC, LINE, 0.0, seq=5, what="move")
    watch.came_back(TOPIC, LINE.encode(), 0.01)  # the relay has it
    assert watch.rtt is not None and abs(watch.rtt - 0.01) < 1e-9
    actions = run(watch, MINE, 0.0, 0.9)
    assert actions == []  # within the first wait (at least ACK_FIRST s)
    actions = run(watch, MINE, 1.0, 1.0)
    assert [a for _, a in actions] == [AskCopy(line_hash(LINE))]  # first, whether they keep a copy already
    assert run(watch, MINE, 1.25, 1.75) == []
    actions = run(watch, MINE, 2.0, 2.0)
    assert [a for _, a in actions] == [
        Resend(TOPIC, LINE),
        Tell("no sign yet that second 1a2b-3c4d has your move: sent it again"),
    ]
    later = run(watch, MINE, 2.25, 60.0)
    resends = [t for t, a in later if isinstance(a, Resend)]
    gaps = [b - a for a, b in zip([2.0, *resends], resends, strict=False)]
    assert gaps == sorted(gaps) and max(gaps) <= liveness.ACK_MOST + liveness.TICK  # backing off, to a cap
    told = [a.text for _, a in later if isinstance(a, Tell)]
    assert told and all("still no sign" in text and "after" in text for text in told)  # how long it has waited


def test_the_opponents_copy_or_their_next_line_is_the_sign():
    watch = Liveness()
    watch.sent(TOPIC, LINE, 0.0, seq=5, what="move")
    watch.copied("some other hash")
    assert watch.waiting == 1
    watch.copied(line_hash(LINE))
    assert watch.waiting == 0 and run(watch, MINE, 0.0, 10.0) == []
    watch.sent(TOPIC, LINE, 20.0, seq=5, what="move")
    assert run(watch, replace(MINE, answered=6), 20.0, 30.0) == [] and watch.waiting == 0  # a later line of theirs


def test_a_copy_asked_for_and_come_is_the_end_of_it():
    """A human thinks longer than the first wait: their copy, asked for once, says they have it (nothing sent again,
    nothing said); copies are never sent to a player unasked, so a move costs no delivery of its copy."""
    watch = Liveness()
    watch.sent(TOPIC, LINE, 0.0, seq=5, what="move")
    watch.came_back(TOPIC, LINE.encode(), 0.01)
    assert [a for _, a in run(watch, MINE, 0.0, 1.0)] == [AskCopy(line_hash(LINE))]
    watch.copied(line_hash(LINE))
    assert run(watch, MINE, 1.25, 60.0) == [] and watch.waiting == 0


def test_side_lines_wait_for_their_copy_only():
    watch = Liveness()
    watch.sent("olixono/1/games/G/K/chat-1", "chat line", 0.0, seq=None, what="chat line")
    actions = run(watch, replace(MINE, answered=99), 0.0, 1.0)
    assert kinds(a for _, a in actions) == ["Resend", "Tell"]


def test_nothing_is_sent_again_to_an_opponent_who_has_gone_or_while_disconnected():
    watch = Liveness()
    watch.sent(TOPIC, LINE, 0.0, seq=5, what="move")
    watch.came_back(TOPIC, LINE.encode(), 0.01)  # the relay has it for their return
    assert run(watch, replace(MINE, present=False), 0.0, 20.0) == []
    assert run(watch, replace(MINE, connected=False), 0.0, 20.0) == []
    assert run(watch, replace(MINE, opponent=None), 0.0, 20.0) == []


def test_a_line_the_relay_never_sent_back_is_sent_again_though_the_opponent_has_gone():
    # A line lost on its way to the relay: on the opponent's return nothing would bring it, so it is sent again.
    watch = Liveness()
    watch.sent(TOPIC, LINE, 0.0, seq=5, what="move")
    assert watch.unechoed() == 1
    actions = [a for _, a in run(watch, replace(MINE, present=False), 0.0, 1.0)]
    assert actions == [
        Resend(TOPIC, LINE),
        Tell("the relay has not sent back your move (for second 1a2b-3c4d, who is away): sent it again"),
    ]
    watch.came_back(TOPIC, LINE.encode(), 1.1)
    assert watch.unechoed() == 0 and run(watch, replace(MINE, present=False), 1.25, 30.0) == []


def test_lines_that_never_come_back_mean_a_dead_connection():
    watch = Liveness()
    watch.sent(TOPIC, LINE, 0.0, seq=5, what="move")  # and the relay never sends it back
    actions = [a for _, a in run(watch, MINE, 0.0, 30.0)]
    assert Reconnect() in actions
    assert kinds(actions[: actions.index(Reconnect())]).count("Resend") == liveness.DEAD_AFTER_TRIES - 1
    assert any(isinstance(a, Tell) and "connecting again" in a.text for a in actions)


def test_a_gap_asks_the_relay_again_with_a_backoff_and_stops_when_filled():
    watch = Liveness()
    gap = replace(QUIET, gap="a line of this game has not come, though one after it has", their_turn=False)
    actions = run(watch, gap, 0.0, 40.0)
    asks = [t for t, a in actions if isinstance(a, Resubscribe)]
    assert asks[0] == liveness.ACK_FIRST and len(asks) >= 3
    gaps = [b - a for a, b in itertools.pairwise(asks)]
    assert gaps == sorted(gaps)
    told = [a.text for _, a in actions if isinstance(a, Tell)]
    assert told[0] == "a line of this game has not come, though one after it has (for 1 s): asked the relay again"
    assert run(watch, replace(gap, gap=None), 40.25, 60.0) == []  # filled


def test_a_present_opponents_long_turn_asks_the_relay_again_now_and_then():
    watch = Liveness()
    actions = run(watch, QUIET, 0.0, 100.0)
    asks = [t for t, a in actions if isinstance(a, Resubscribe)]
    assert asks and abs(asks[0] - liveness.QUIET_FIRST) <= liveness.TICK
    assert len(asks) <= 4  # 10, 30, 70 s: not a flood of questions
    assert not [a for _, a in actions if isinstance(a, Tell)]  # silently: an opponent who thinks is no news
    # their line comes: the clock starts again
    assert run(watch, replace(QUIET, answered=6), 100.25, 105.0) == []


def test_an_opponent_leaving_while_the_game_waits_on_them_asks_once():
    watch = Liveness()
    assert run(watch, QUIET, 0.0, 2.0) == []
    actions = run(watch, replace(QUIET, present=False), 2.25, 60.0)
    assert kinds(a for _, a in actions) == ["Resubscribe", "Tell"]


def test_the_lines_waiting_are_bounded():
    watch = Liveness()
    for n in range(liveness.KEPT * 3):
        watch.sent(f"olixono/1/games/G/K/{n}", f"line {n}", 0.0, seq=n, what="move")
    assert watch.waiting == liveness.KEPT


def test_a_relay_found_to_lose_lines_is_asked_sooner():
    watch = Liveness()
    asks = [t for t, a in run(watch, QUIET, 0.0, 10.0) if isinstance(a, Resubscribe)]
    assert asks == [10.0]
    actions = run(watch, replace(QUIET, answered=6, asked_for=True), 10.25, 10.25)  # it came when asked for
    assert watch.lossy and [a.text for _, a in actions if isinstance(a, Tell)] == [
        "the relay seems to lose lines on their way here: asking it again sooner"
    ]
    asks = [t for t, a in run(watch, replace(QUIET, answered=6), 10.5, 14.0) if isinstance(a, Resubscribe)]
    assert asks and asks[0] <= 10.25 + liveness.ACK_FIRST + liveness.TICK


def test_an_opponent_who_moves_just_after_the_relay_was_asked_again_is_no_sign_of_loss():
    """An opponent who thought ten seconds or so moves just after this client asked the relay again: the line,
    delivered live, is not taken for one the asking brought, and no notice says the relay loses lines. Only a line
    from the relay's store (the retain flag) soon after the asking says the relay lost it."""
    watch = Liveness()
    assert [t for t, a in run(watch, QUIET, 0.0, 10.0) if isinstance(a, Resubscribe)] == [10.0]
    actions = run(watch, replace(QUIET, answered=6), 10.25, 10.25)  # delivered live, just after the asking
    assert not watch.lossy and not [a for _, a in actions if isinstance(a, Tell)]
    asks = [t for t, a in run(watch, replace(QUIET, answered=7), 10.5, 25.0) if isinstance(a, Resubscribe)]
    assert asks == [20.5]  # still the quiet's own pace
