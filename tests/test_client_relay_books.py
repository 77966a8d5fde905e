"""What a client keeps on the relay, decided without I/O: when copies leave, what is put back, what a catch-up sends."""

from __future__ import annotations

import hashlib

import pytest

from client.cores import relay_books
from client.cores.network_game import Publish
from client.cores.relay_books import CatchUp, Check, RelayBooks, Restore

ME, THEM = "me-key", "their-key"
GAME = "olixono/1/games/G"


def own(slot: str, line: str = "") -> Publish:
    """A line of this client's own, on its slot."""
    return Publish(f"{GAME}/{ME}/{slot}", line or f"my line {slot}")


def copy(name: str) -> Publish:
    """This client's copy of the opponent's line ``name`` (kept under this client's key)."""
    return Publish(f"{GAME}/{ME}/copy/{name}", f"their line {name}", copy=True)


def theirs(slot: str) -> Publish:
    """The opponent's line, as a watcher publishes it again (on the opponent's topic)."""
    return Publish(f"{GAME}/{THEM}/{slot}", f"their line {slot}", copy=True)


def held(*items: Publish, **replaced: str) -> dict[str, bytes]:
    """What a relay holds, as a link saw it: each item's line, and ``replaced`` (a slot of ours: another line)."""
    seen = {item.topic: hashlib.sha256(item.line.encode()).digest() for item in items}
    for slot, line in replaced.items():
        seen[f"{GAME}/{ME}/{slot}"] = hashlib.sha256(line.encode()).digest()
    return seen


def caught_up_books() -> RelayBooks:
    books = RelayBooks(ME)
    books.catching_up(1)
    books.caught_up(1, {}, ())
    books.stopped_catching(1)
    return books


# -- copies wait for a quiet moment, never a line of ours -----------------------------------------------------------
def test_a_copy_alone_waits_for_a_quiet_moment():
    books = RelayBooks(ME)
    assert books.copies_at is None and books.copies_due(100.0) == []
    assert books.outgoing(10.0, [copy("a")]) == []
    assert books.copies_at == 10.0 + relay_books.COPY_QUIET
    assert books.copies_due(10.0 + relay_books.COPY_QUIET / 2) == []
    assert books.copies_due(10.0 + relay_books.COPY_QUIET) == [copy("a")]
    assert books.copies_at is None and books.copies_due(20.0) == []  # sent once


def test_a_line_of_ours_leaves_at_once_with_every_copy_waiting_just_after_it():
    books = RelayBooks(ME)
    books.outgoing(10.0, [copy("a")])
    assert books.outgoing(10.001, [copy("b"), own("4"), own("chat-1")]) == [
        own("4"),
        own("chat-1"),
        copy("a"),
        copy("b"),
    ]
    assert books.copies_at is None  # none waits: no timer is needed


def test_copies_wait_no_longer_than_the_most_while_lines_keep_coming():
    books = RelayBooks(ME)
    books.outgoing(10.0, [copy("a")])
    now, sent = 10.0, list[Publish]()
    step = relay_books.COPY_QUIET / 2
    while not sent and now < 10.0 + 2 * relay_books.COPY_MAX_WAIT:  # a line comes in more often than the quiet
        now += step
        books.outgoing(now, [])  # a step with nothing to publish: a line came
        sent = books.copies_due(now)
    assert sent == [copy("a")]
    assert 10.0 + relay_books.COPY_MAX_WAIT <= now < 10.0 + relay_books.COPY_MAX_WAIT + step


def test_the_wait_counts_from_the_first_copy_and_the_last_line():
    books = RelayBooks(ME)
    books.outgoing(10.0, [copy("a")])
    books.outgoing(10.5, [copy("b")])  # a later copy does not begin the most wait again
    assert books.copies_at == 10.5 + relay_books.COPY_QUIET
    books.outgoing(10.99, [])
    assert books.copies_at == 10.0 + relay_books.COPY_MAX_WAIT
    assert books.copies_due(10.0 + relay_books.COPY_MAX_WAIT) == [copy("a"), copy("b")]


def test_leaving_takes_every_copy_waiting():
    books = RelayBooks(ME)
    books.outgoing(10.0, [copy("a"), copy("b")])
    assert books.take_copies() == [copy("a"), copy("b")] and books.take_copies() == []


# -- what the relay holds of ours ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("me", "item", "kept"),
    [
        (ME, own("4"), True),
        (ME, copy("a"), True),
        (ME, Publish(f"{GAME}/{ME}/presence", "here"), False),  # presence is said again on each connection
        (ME, theirs("4"), False),  # another key's topic: theirs to keep
        (None, theirs("4"), False),  # a watcher without a key keeps nothing of its own
    ],
)
def test_what_a_client_keeps_on_the_relay(me, item, kept):
    books = RelayBooks(me)
    assert books.keep(item) is kept
    assert books.kept == ({item.topic: item.line} if kept else {})


@pytest.mark.parametrize(
    ("payload", "retained", "then"),
    [
        (b"my line 4", False, None),  # ours, back live: the relay has it
        (b"my line 4", True, None),  # ours, from its store
        (b"junk", True, Restore(f"{GAME}/{ME}/4", "my line 4", last=False)),  # it keeps another line in its place
        (b"", False, Restore(f"{GAME}/{ME}/4", "my line 4", last=False)),  # erased
        (b"junk", False, Check(f"{GAME}/{ME}/4")),  # live: perhaps junk it never kept; ask it
    ],
)
def test_a_line_seen_on_a_topic_of_ours(payload, retained, then):
    books = caught_up_books()
    books.outgoing(1.0, [own("4")])
    assert books.seen(own("4").topic, payload, retained=retained) == then


def test_a_line_seen_where_we_keep_none_calls_for_nothing():
    books = caught_up_books()
    assert books.seen(f"{GAME}/{THEM}/4", b"", retained=True) is None
    assert books.seen(f"{GAME}/{ME}/9", b"junk", retained=True) is None


def test_live_lines_on_a_topic_of_ours_are_asked_about_once_and_spend_no_restore():
    books = caught_up_books()
    books.outgoing(1.0, [own("4"), own("5")])
    for n in range(3 * relay_books.MAX_RESTORES):
        assert isinstance(books.seen(own("5").topic, b"junk %d" % n, retained=False), Check)
        assert isinstance(books.seen(own("4").topic, b"junk %d" % n, retained=False), Check)
    assert books.take_checks() == [own("4").topic, own("5").topic] and books.take_checks() == []
    assert books.seen(own("4").topic, b"", retained=False) == Restore(own("4").topic, own("4").line, last=False)


def test_a_line_cleared_as_fast_as_it_comes_back_is_put_back_up_to_a_cap_of_its_own():
    books = caught_up_books()
    books.outgoing(1.0, [own("4"), own("5")])
    restores = [books.seen(own("4").topic, b"", retained=False) for _ in range(2 * relay_books.MAX_RESTORES)]
    put_back = [restore for restore in restores if isinstance(restore, Restore)]
    assert len(put_back) == relay_books.MAX_RESTORES
    assert [restore.last for restore in put_back] == [False] * (relay_books.MAX_RESTORES - 1) + [True]
    assert books.seen(own("5").topic, b"", retained=False) == Restore(own("5").topic, own("5").line, last=False)
    books.catching_up(2)  # a new connection: the count begins again
    books.caught_up(2, held(own("4"), own("5")), [own("4"), own("5")])
    assert books.seen(own("4").topic, b"", retained=False) == Restore(own("4").topic, own("4").line, last=False)


# -- catching up ---------------------------------------------------------------------------------------------------
def test_a_reconnect_that_lost_lines_publishes_again_what_the_relay_lacks_and_nothing_it_has():
    """The relay lost one line of ours and a copy, and keeps another's line in place of a third: those go again;
    what it still holds (seen back as it was) does not."""
    books = caught_up_books()
    mine = [own("2"), own("4"), own("6"), copy("a"), copy("b")]
    books.outgoing(1.0, mine)
    books.catching_up(2)
    assert not books.up_to_date
    catch_up = books.caught_up(2, held(own("2"), copy("a"), **{"6": "junk"}), mine)
    assert catch_up == CatchUp((own("4"), own("6"), copy("b")), first=False)
    assert not books.up_to_date  # until the runner has done what it calls for
    books.stopped_catching(2)
    assert books.up_to_date


def test_a_watchers_catch_up_publishes_only_the_others_lines_the_relay_holds_nothing_for():
    books = RelayBooks(None)
    lines = [theirs("2"), theirs("3"), theirs("4")]
    catch_up = books.caught_up(1, held(theirs("2")) | {theirs("3").topic: b"another line"}, lines)
    assert catch_up == CatchUp((theirs("4"),), first=True)  # another's line in place: theirs to put right
    assert books.kept == {}


def test_the_first_catch_up_is_told_once_and_up_to_date_waits_for_every_relay():
    books = RelayBooks(ME)
    assert not books.up_to_date
    books.catching_up(1)
    books.catching_up(2)  # two relays at once
    assert books.caught_up(1, {}, ()).first and not books.up_to_date
    books.stopped_catching(1)
    assert not books.up_to_date  # the second one's lines are not all in
    assert not books.caught_up(2, {}, ()).first
    books.stopped_catching(2)
    assert books.up_to_date and books.caught_up_once
    books.catching_up(1)  # it reconnects: its lines are not all in again
    assert not books.up_to_date
    books.stopped_catching(1)  # given up with its connection
    assert books.up_to_date


def test_a_catch_up_given_up_leaves_the_first_one_to_come():
    books = RelayBooks(ME)
    books.catching_up(1)
    books.stopped_catching(1)  # its connection was lost before the relay's lines came
    assert not books.up_to_date and not books.caught_up_once
    assert books.caught_up(1, {}, ()).first


def test_duplicates_seen_back_change_nothing_and_lines_kept_during_a_catch_up_count():
    books = RelayBooks(ME)
    books.catching_up(1)
    catch_up = books.caught_up(1, {}, [own("2"), copy("a")])
    assert catch_up.send == (own("2"), copy("a"))  # a fresh relay lacks everything
    assert books.kept == {own("2").topic: own("2").line, copy("a").topic: copy("a").line}
    for retained in (True, False, True):  # the same lines back, from the store and live, several times
        assert books.seen(own("2").topic, own("2").line.encode(), retained=retained) is None
        assert books.seen(copy("a").topic, copy("a").line.encode(), retained=retained) is None
    assert books.take_checks() == []


# -- wills ---------------------------------------------------------------------------------------------------------
def test_each_relay_is_told_the_seq_of_the_will_it_holds():
    books = RelayBooks(ME)
    for seq in range(1, 4):
        books.will(f"gone {seq}", seq)
    assert books.will_seq("gone 2", 3) == 2 and books.will_seq("gone 3", 3) == 3
    assert books.will_seq(None, 3) == 3 and books.will_seq("a will never left", 3) == 3


def test_only_the_latest_wills_are_remembered():
    books = RelayBooks(ME)
    last = relay_books.WILLS_KEPT + 5
    for seq in range(1, last + 1):
        books.will(f"gone {seq}", seq)
    assert books.will_seq("gone 1", last) == last  # forgotten: the latest seq
    assert books.will_seq(f"gone {last - relay_books.WILLS_KEPT + 1}", last) == last - relay_books.WILLS_KEPT + 1
