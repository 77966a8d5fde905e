"""The runner's own duties, with a fake link (no network): copies wait for a quiet moment, never a move."""

from __future__ import annotations

import asyncio
import contextlib
import random

import pytest
from protocol_helpers import game_id_in, identity_of, playable, start
from relay_fixtures import eventually
from test_client_clock import Clock

from client.cores import relay_books
from client.cores.intents import Intent
from client.cores.network_game import GameCore, Notice
from client.shell import runner as runner_module
from client.shell.runner import GameRunner
from protocol.keys import PublicKey
from protocol.messages import line_hash


class FakeLink:
    """What the runner asks of a link, recorded: (time, topic, line) for every line sent or published."""

    connected = True
    stopping = False

    def __init__(self, **callbacks: object) -> None:  # the runner's callbacks, unused: the tests drive it
        self.sent: list[tuple[float, str, str]] = []
        self.seen: dict[str, bytes] = {}
        self.peeks: list[str] = []
        self.subscriptions: list[str] = ["olixono/1/games/G/#"]
        self.narrowed_to: list[str] = []
        self.dropped: list[str] = []  # what the narrowing gave up on the connection
        self.callbacks = callbacks
        self.last_will: tuple[str, str] | None = None  # what a test says the relay holds as this connection's will

    def send(self, topic: str, line: str) -> bool:
        self.sent.append((asyncio.get_running_loop().time(), topic, line))
        return True

    async def publish(self, topic: str, line: str) -> bool:
        return self.send(topic, line)

    async def resubscribe(self, topic_filter: str) -> None:
        pass

    def follow(self, *topic_filters: str) -> None:
        self.subscriptions[:] = topic_filters

    async def narrow(self, *topic_filters: str) -> None:
        self.narrowed_to = list(topic_filters)
        self.dropped = [topic_filter for topic_filter in self.subscriptions if topic_filter not in topic_filters]

    async def peek(self, topic_filter: str, *, stop: bool = False) -> None:
        self.peeks.append(("stop " if stop else "") + topic_filter)

    async def settled(self, marker: tuple[str, str] | None = None) -> None:
        pass  # the relay's retained lines are whatever the test put in ``seen``


def fake(runner: GameRunner) -> FakeLink:
    """The runner's link: a :class:`FakeLink`, as every runner here is made with."""
    assert isinstance(runner.link, FakeLink)
    return runner.link


def own_key(runner: GameRunner) -> PublicKey:
    """The runner's own key (every runner here has one)."""
    return identity_of(runner.core.session).public


def their_key(runner: GameRunner) -> PublicKey:
    """The other seated key (every game here is seated)."""
    key = runner.core.opponent
    assert key is not None
    return key


def caught_up(runner: GameRunner) -> None:
    """As after a first connection's catch-up (the fake link never connects): the relay's lines are in."""
    runner.books.caught_up(0, {}, ())
    runner.caught_up.set()


def seated_runners(kind: str = "olix") -> tuple[GameRunner, GameRunner]:
    host, guest = start(kind)
    runners = GameRunner(GameCore(host), FakeLink), GameRunner(GameCore(guest), FakeLink)  # type: ignore[arg-type]
    for runner in runners:
        caught_up(runner)
        runner.core.ready()
    return runners


def copies(link: FakeLink) -> list[tuple[float, str, str]]:
    return [item for item in link.sent if "/copy/" in item[1]]


async def exchange(runners: tuple[GameRunner, GameRunner], rng: random.Random) -> None:
    """The player to move plays a random move; the other receives it."""
    mover, other = runners if runners[0].core.my_turn else runners[::-1]
    before = len(fake(mover).sent)
    await mover.act(Intent("move", rng.choice(playable(mover.core.session))))
    line = own_lines(fake(mover), before)[0]
    await other._received("topic", line.encode())


def own_lines(link: FakeLink, since: int = 0) -> list[str]:
    """The lines of the link's own player (copies aside) sent since the ``since``-th line."""
    return [line for _, topic, line in link.sent[since:] if "/copy/" not in topic]


@pytest.mark.parametrize("retained", [False, True])
async def test_the_quiet_watch_knows_whether_the_opponents_line_came_live_or_from_the_relays_store(retained):
    """The view the liveness watch judges a lossy relay by: the opponent's move, delivered live (no sign of loss
    however soon after an asking again it came) or from the relay's store (the retain flag)."""
    runners = seated_runners()
    mover, other = runners if runners[0].core.my_turn else runners[::-1]
    before = len(fake(mover).sent)
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    ((_, topic, line),) = [item for item in fake(mover).sent[before:] if "/copy/" not in item[1]]
    await other._received(topic, line.encode(), retained)
    view = other._view()
    assert view.answered == mover.core.session.chain[-1].seq and view.asked_for is retained


async def test_a_copy_waits_for_a_quiet_moment_but_leaves_with_the_answer():
    """A copy waits for a quiet moment, but what waits leaves with the player's next line, in the same step, just
    after it (the relay handles the move first: the copy does not delay it), so that a player killed after answering
    never leaves the opponent's line without a copy."""
    runners = seated_runners()
    host, _guest = runners
    mover, other = runners if host.core.my_turn else runners[::-1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    move_line = fake(mover).sent[-1][2]
    await other._received("topic", move_line.encode())
    assert copies(fake(other)) == []  # not yet: a copy waits for a quiet moment
    await other.act(Intent("move", playable(other.core.session)[0]))
    assert [topic.rsplit("/", 2)[-2:] for _, topic, _ in fake(other).sent] == [
        [own_key(other).text, "5"],
        ["copy", mover.core.session.chain[-1].hash],
    ]  # the answer, then the copy
    assert fake(other).sent[1][2] == move_line


async def test_an_automatic_answer_leaves_with_the_copy_of_what_it_answers():
    """The confirmation of an ending is signed as the last line arrives: the copy of that line leaves with it."""
    runners = seated_runners()
    host, _guest = runners
    mover, other = runners if host.core.my_turn else runners[::-1]
    await mover.act(Intent("resign"))
    resignation = own_lines(fake(mover))[0]  # then the resigner's own confirmation
    await other._received("topic", resignation.encode())
    kinds = [
        topic.rsplit("/", 2)[-2] if "/copy/" in topic else topic.rsplit("/", 1)[-1] for _, topic, _ in fake(other).sent
    ]
    assert kinds[0].startswith("confirm-") and kinds[1] == "copy" and fake(other).sent[1][2] == resignation


async def test_copies_wait_no_longer_than_the_most_while_lines_keep_coming(monkeypatch):
    monkeypatch.setattr(relay_books, "COPY_QUIET", 0.05)
    monkeypatch.setattr(relay_books, "COPY_MAX_WAIT", 0.2)
    runners = seated_runners()
    rng = random.Random(2)
    loop = asyncio.get_running_loop()
    start_time = loop.time()
    while loop.time() - start_time < 0.5 and not runners[0].core.session.over:
        await exchange(runners, rng)  # a line every 10 ms: never quiet for 50 ms
        await asyncio.sleep(0.01)
    for runner in runners:
        sent = copies(fake(runner))
        assert sent, "copies went out although lines kept coming"
        assert sent[0][0] - start_time < 0.2 + 0.1


async def test_leaving_sends_the_copies_waiting_before_the_goodbye():
    runners = seated_runners()
    host, _guest = runners
    mover, other = runners if host.core.my_turn else runners[::-1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    await other._received("topic", fake(mover).sent[-1][2].encode())
    other.connections = 1
    await other._goodbye()
    topics = [topic for _, topic, _ in fake(other).sent]
    assert "/copy/" in topics[0] and topics[-1].endswith("/presence")


async def test_leaving_waits_for_a_sign_that_the_opponent_has_the_last_line(monkeypatch):
    """The last move lost on its way to the relay (or with a relay killed before it kept it), the connection lost:
    leaving waits, through the lost connection, for the opponent's copy (asked for at once), at most GOODBYE_MOST s,
    since nothing else would ever publish that line."""
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 3.0)
    runners = seated_runners()
    mover, other = runners if runners[0].core.my_turn else runners[::-1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    _, topic, line = fake(mover).sent[-1]
    fake(mover).connected = False  # lost: the next connection publishes it again
    mover.connections = 1
    mover.narrowed = True
    loop = asyncio.get_running_loop()
    started = loop.time()
    leaving = asyncio.create_task(mover._goodbye())
    await asyncio.sleep(0.3)
    assert not leaving.done(), "left with its last line perhaps nowhere but here"
    fake(mover).connected = True
    await mover._received(topic, line.encode())  # the relay sends it back: it has it (but may lose it yet)
    await asyncio.sleep(0.3)
    assert not leaving.done(), "left with no sign that the opponent has its last line"
    copy = f"olixono/1/games/{mover.core.session.game_id}/{own_key(other).text}/copy/{line_hash(line)}"
    await mover._received(copy, line.encode())  # their copy: they have it
    await asyncio.wait_for(leaving, 1.0)
    assert 0.6 <= loop.time() - started < 2.0
    assert fake(mover).sent[-1][1].endswith("/presence")


async def test_leaving_gives_up_waiting_after_the_most(monkeypatch):
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 0.5)
    monkeypatch.setattr(runner_module, "GOODBYE_TELL", 0.2)
    runners = seated_runners()
    mover = runners[0] if runners[0].core.my_turn else runners[1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    mover.connections = 1
    await asyncio.wait_for(mover._goodbye(), 2.0)
    told = []
    while not mover.events.empty():
        told.append(mover.events.get_nowait())
    assert any("has your last lines (at most" in getattr(event, "text", "") for event in told), told


class RunnableLink(FakeLink):
    """A fake link a runner can run with (``async with``)."""

    async def subscribe(self, topic_filter: str) -> None:
        pass

    async def __aenter__(self) -> RunnableLink:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        pass


async def test_what_leaving_waits_for_is_told_once_the_front_end_has_gone(monkeypatch):
    """Once the front end (its screen) has returned, what leaving waits for is told on standard error (``farewell``):
    a queue nobody reads any more would leave the terminal silent for up to GOODBYE_MOST s after ``/quit``."""
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 0.5)
    monkeypatch.setattr(runner_module, "GOODBYE_TELL", 0.2)
    host, guest = start("olix")
    cores = GameCore(host), GameCore(guest)
    mover = GameRunner(cores[0] if cores[0].my_turn else cores[1], RunnableLink)  # type: ignore[arg-type]
    mover.core.ready()
    mover.connections = 1
    told: list[str] = []
    mover.farewell = told.append

    async def front(runner: GameRunner) -> int:
        caught_up(runner)
        await runner.act(Intent("move", playable(runner.core.session)[0]))
        return 0

    assert await asyncio.wait_for(mover._run(front), 3.0) == 0
    assert any("has your last lines (at most" in text for text in told), told


async def test_leaving_counts_only_the_time_connected_up_to_a_cap(monkeypatch):
    """Leaving waits for the last line's sign only while connected: with the relay down (killed, and the reconnection
    backing off) the wait does not run out, else the mover leaves and an in-memory relay loses the line for good; a
    cap bounds the whole wait."""
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 0.4)
    monkeypatch.setattr(runner_module, "GOODBYE_CAP", 1.5)
    runners = seated_runners()
    mover = runners[0] if runners[0].core.my_turn else runners[1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    mover.connections = 1
    fake(mover).connected = False
    loop = asyncio.get_running_loop()
    started = loop.time()
    leaving = asyncio.create_task(mover._goodbye())
    await asyncio.sleep(0.7)
    assert not leaving.done(), "the time without a connection counted"
    fake(mover).connected = True
    await asyncio.wait_for(leaving, 1.0)
    assert 0.7 + 0.4 - 0.05 <= loop.time() - started < 1.5  # (a tick of 0.02 s either side)
    fake(mover).connected = False  # the relay never comes back: the cap
    started = loop.time()
    await asyncio.wait_for(mover._goodbye(), 3.0)
    assert 1.5 <= loop.time() - started < 2.5


async def test_a_runner_being_cancelled_waits_for_nothing_though_the_cancellation_was_swallowed(monkeypatch):
    """The soak stops a runner by cancelling it; aiomqtt may swallow a cancellation (CPython gh-86296), which would
    leave the runner in its goodbye's wait. A task that is being cancelled leaves at once."""
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 5.0)
    runners = seated_runners()
    mover = runners[0] if runners[0].core.my_turn else runners[1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    _, topic, line = fake(mover).sent[-1]
    await mover._received(topic, line.encode())  # echoed: its copy is asked for
    mover.connections = 1
    mover.narrowed = True
    asking = asyncio.Event()

    async def swallowing(line_hash: str) -> None:
        asking.set()
        with contextlib.suppress(asyncio.CancelledError):  # as aiomqtt may
            await asyncio.sleep(5)

    mover._ask_copy = swallowing  # type: ignore[method-assign]
    leaving = asyncio.create_task(mover._goodbye())
    await asking.wait()
    leaving.cancel()
    await asyncio.wait_for(asyncio.shield(leaving), 1.0)
    assert fake(mover).sent[-1][1].endswith("/presence")


def copy_topic_of(runner: GameRunner, line: str) -> str:
    """The topic of the opponent's copy of ``runner``'s line."""
    return f"olixono/1/games/{runner.core.session.game_id}/{their_key(runner).text}/copy/{line_hash(line)}"


async def left_at_once(leaving: asyncio.Task[None]) -> bool:
    await asyncio.sleep(0.3)
    return leaving.done()


async def test_a_resumed_player_whose_game_is_over_leaves_after_publishing_its_last_lines(monkeypatch):
    """The game's last line signed (the journal has it) but never sent, the process killed: its resume finds the game
    over in its journal, and leaving waits for the first catch-up (which publishes what the relay lacks) and then for
    a sign that the opponent has the lines they had not answered, so that the opponent never waits for that line for
    ever."""
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 5.0)
    runners = seated_runners()
    mover = runners[0]
    await mover.act(Intent("resign"))
    assert mover.core.session.over
    resumed = GameRunner(GameCore(mover.core.session), FakeLink)  # type: ignore[arg-type]
    resumed.connections = 1
    link = fake(resumed)
    leaving = asyncio.create_task(resumed._goodbye())
    assert not await left_at_once(leaving), "left before the relay had its last line"
    await resumed._connected(resumed.link)  # the relay lost everything: the catch-up publishes our lines again
    resign = next(line for _, _, line in link.sent if " resign " in line)
    assert not await left_at_once(leaving), "left with no sign that the opponent has its resignation"
    for _, topic, line in list(link.sent):
        if "/copy/" not in topic and not topic.endswith("/presence"):
            await resumed._received(copy_topic_of(resumed, line), line.encode())  # the opponent catches up
    await asyncio.wait_for(leaving, 1.0)
    assert link.sent[-1][1].endswith("/presence") and resign


async def test_a_resumed_player_mid_game_and_never_connected_leaves_at_once():
    """Ctrl-C while the relay cannot be reached: a game not over is taken up again later (its lines published
    again then), so nothing is waited for."""
    runners = seated_runners()
    mover = runners[0] if runners[0].core.my_turn else runners[1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    resumed = GameRunner(GameCore(mover.core.session), FakeLink)  # type: ignore[arg-type]
    fake(resumed).connected = False
    await asyncio.wait_for(resumed._goodbye(), 0.5)
    assert not [topic for _, topic, _ in fake(resumed).sent if topic.endswith("/presence")]  # nobody to tell


async def away(runner: GameRunner, other: GameRunner) -> None:
    """``runner`` receives ``other``'s presence: gone."""
    gone = other.core.presence(False, 1)
    assert gone is not None
    await runner._received(gone.topic, gone.line.encode())
    assert runner.core.session.present(their_key(runner)) is False


async def test_leaving_a_game_over_waits_for_the_opponent_though_away(monkeypatch):
    """Once the game is over the opponent is waited for (at most GOODBYE_MOST s), though away: the last line's echo is
    not enough, since a relay without its data may then be killed, leaving the line nowhere but in the journal of a
    player who never comes back to a game that is over."""
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 5.0)
    runners = seated_runners()
    mover, other = runners
    await away(mover, other)
    await mover.act(Intent("resign"))
    mover.connections = 1
    for _, topic, line in list(fake(mover).sent):
        await mover._received(topic, line.encode())  # the relay has them all
    leaving = asyncio.create_task(mover._goodbye())
    assert not await left_at_once(leaving), "left the game's end with the relay alone"
    for _, topic, line in list(fake(mover).sent):
        if "/copy/" not in topic and not topic.endswith("/presence"):
            await mover._received(copy_topic_of(mover, line), line.encode())
    await asyncio.wait_for(leaving, 1.0)
    assert fake(mover).sent[-1][1].endswith("/presence"), "left without saying so"


async def test_leaving_a_game_over_takes_the_echo_of_a_confirmation_when_the_opponent_is_gone(monkeypatch):
    """Nobody waits on a confirmation (or a chat line): with the opponent gone, the relay having it is enough; only the
    game's last moves are waited for. (Every bot game's end waited the whole 15 s for one.)"""
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 5.0)
    runners = seated_runners()
    mover, other = runners
    await mover.act(Intent("resign"))
    mover.connections = 1
    for _, topic, line in list(fake(mover).sent):
        await mover._received(topic, line.encode())  # the relay has them all
        if " resign " in line:
            await mover._received(copy_topic_of(mover, line), line.encode())  # and they have the resignation
    assert mover.liveness.waiting and not mover.liveness.waiting_in_chain()  # the confirmation alone
    await away(mover, other)
    await asyncio.wait_for(mover._goodbye(), 0.5)
    assert mover.liveness.waiting and fake(mover).sent[-1][1].endswith("/presence")  # left with it unanswered


async def test_a_line_the_relay_sends_back_while_leaving_is_asked_for_at_once(monkeypatch):
    monkeypatch.setattr(runner_module, "GOODBYE_MOST", 5.0)
    runners = seated_runners()
    mover = runners[0] if runners[0].core.my_turn else runners[1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    _, topic, line = fake(mover).sent[-1]
    mover.connections = 1
    mover.narrowed = True
    leaving = asyncio.create_task(mover._goodbye())
    await asyncio.sleep(0.1)
    assert fake(mover).peeks == []  # not echoed yet: the relay may lack it
    await mover._received(topic, line.encode())
    await asyncio.sleep(0.1)
    assert fake(mover).peeks == [copy_topic_of(mover, line)]  # not a second later, when the liveness tick asks
    await mover._received(copy_topic_of(mover, line), line.encode())
    await asyncio.wait_for(leaving, 1.0)
    assert fake(mover).sent[-1][1].endswith("/presence"), "left without saying so"


async def test_leaving_mid_game_with_the_opponent_away_takes_the_relays_echo():
    runners = seated_runners()
    mover, other = runners if runners[0].core.my_turn else runners[::-1]
    await away(mover, other)
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    mover.connections = 1
    _, topic, line = fake(mover).sent[-1]
    await mover._received(topic, line.encode())
    await asyncio.wait_for(mover._goodbye(), 0.5)
    assert mover.liveness.waiting and fake(mover).sent[-1][1].endswith("/presence")  # their copy not come: the echo did


async def test_the_opponents_copy_is_asked_for_and_no_longer_once_it_came():
    runners = seated_runners()
    mover, other = runners if runners[0].core.my_turn else runners[::-1]
    await mover.act(Intent("move", playable(mover.core.session)[0]))
    line = fake(mover).sent[-1][2]
    mover.narrowed = True
    await mover._ask_copy(line_hash(line))
    topic = f"olixono/1/games/{mover.core.session.game_id}/{own_key(other).text}/copy/{line_hash(line)}"
    assert fake(mover).peeks == [topic]
    await mover._received(topic, line.encode())  # their copy: they have it
    await asyncio.sleep(0)
    assert fake(mover).peeks == [topic, "stop " + topic] and mover.liveness.waiting == 0


async def test_a_seated_player_narrows_to_the_players_lines_and_catches_up_on_theirs_alone():
    """Copies are asked for, not sent (no move pays a delivery for one); and once the seats are known, the catch-up
    of every later connection takes the two players' topics only, and the watchers' talk (bounded by its own caps:
    32 keys, 64 lines each): what else strangers leave in the game (thousands of retained junk lines, within the
    relay's caps) costs a reconnecting player nothing."""
    runners = seated_runners()
    runner = runners[0]
    caught_up(runner)
    await runner._narrow()
    game, me, opponent = runner.core.session.game_id, own_key(runner).text, their_key(runner).text
    talk = f"olixono/1/games/{game}/+/talk/+"
    assert fake(runner).narrowed_to == [f"olixono/1/games/{game}/{opponent}/+", f"olixono/1/games/{game}/{me}/+", talk]
    assert fake(runner).dropped == ["olixono/1/games/G/#"]  # this connection's subscription to the whole game
    assert fake(runner).subscriptions == [
        f"olixono/1/games/{game}/{opponent}/#",
        f"olixono/1/games/{game}/{me}/#",
        talk,
    ]


async def test_nothing_is_signed_before_the_first_catch_up(monkeypatch):
    """A journal that lost a line (or another process of this key's) could make a client sign a second line for a
    slot it holds: an intent waits for the relay's lines, then is refused in a sentence, nothing signed."""
    from client.cores.intents import IntentRefused

    monkeypatch.setattr(runner_module, "CATCH_UP_SECONDS", 0.05)
    runners = seated_runners()
    mover = runners[0] if runners[0].core.my_turn else runners[1]
    mover.caught_up.clear()
    try:
        await mover.act(Intent("move", playable(mover.core.session)[0]))
    except IntentRefused as exc:
        assert "not caught up with the relay yet" in str(exc)
    else:
        raise AssertionError("an intent was signed before the catch-up")
    assert fake(mover).sent == [] and mover.core.session.moves == 0


async def test_no_automatic_answer_is_signed_before_the_first_catch_up():
    """A host whose journal lost its accept, taken up again: a join arriving during the catch-up must not make it
    sign a second accept (two lines for seq 2 lose the game); the answer waits for the catch-up."""
    from protocol_helpers import GUEST, HOST

    from protocol import GameSession

    core, offer = GameCore.hosting("oxono", HOST)
    runner = GameRunner(core, FakeLink)  # type: ignore[arg-type]
    guest = GameSession(core.session.game_id, GUEST)
    guest.receive(offer.publish[0].line)
    await runner._received("topic", guest.join().line.encode())
    assert fake(runner).sent == [] and core.session.phase.value == "offered"  # held back
    await runner.apply(core.ready())  # the catch-up is done: now the accept goes out
    assert [topic.rsplit("/", 1)[-1] for _, topic, _ in fake(runner).sent][:1] == ["2"]
    assert core.session.guest == GUEST.public


async def test_a_runner_leaving_while_it_connects_signs_nothing_after_its_catch_up():
    """Ctrl-C while the connection was being made: the link is stopping, so its catch-up signs no automatic answer
    (here the accept of a join that came in), which a cancelled runner must never send."""
    from protocol_helpers import GUEST, HOST

    from protocol import GameSession

    core, offer = GameCore.hosting("oxono", HOST)
    runner = GameRunner(core, FakeLink)  # type: ignore[arg-type]
    guest = GameSession(core.session.game_id, GUEST)
    guest.receive(offer.publish[0].line)
    await runner._received("topic", guest.join().line.encode())
    fake(runner).stopping = True
    await runner._connected(runner.link)
    assert core.session.phase.value == "offered" and not [t for _, t, _ in fake(runner).sent if t.endswith("/2")]


async def test_a_candidate_the_host_did_not_seat_is_told_it_watches():
    """Two asked for the seat at once and the host seated the other: this client says so, and watches."""
    from protocol_helpers import GUEST, HOST, STRANGER

    from client.cores.network_game import Notice
    from protocol import GameSession

    host, offer = GameSession.offer("oxono", HOST)
    me = GameRunner(GameCore(GameSession(host.game_id, STRANGER)), FakeLink)  # type: ignore[arg-type]
    await me._received("topic", offer.line.encode())
    caught_up(me)
    me.core.ready()
    await me.apply(me.core.join())
    other = GameSession(host.game_id, GUEST)
    other.receive(offer.line)
    join = other.join().line
    host.receive(join)
    await me._received("topic", join.encode())
    await me._received("topic", host.accept(GUEST.public).line.encode())
    said = []
    while not me.events.empty():
        said.append(me.events.get_nowait())
    assert any(
        isinstance(e, Notice) and "this game has both players" in e.text and "you are watching" in e.text for e in said
    )
    assert me.core.watching and not me.core.playing


async def test_junk_from_strangers_is_counted_not_printed(monkeypatch):
    """The seats known, one notice says strangers' lines are harmless, and the rest make one running count, told
    every few seconds: a warning for each junk line would bury the game under a flood's 90,000."""
    from client.cores.network_game import Notice
    from protocol import GameSession, Identity, LineRejected
    from protocol.messages import encode

    monkeypatch.setattr(runner_module, "COUNT_EVERY", 0.05)
    host = seated_runners()[0]
    game = game_id_in(host.core.session)
    strangers = [Identity.generate() for _ in range(3)]
    other_game, _ = GameSession.offer("oxono", strangers[0])
    for n in range(600):
        key = strangers[n % 3]
        topic = f"olixono/1/games/{game}/{key.public.text}/chat-{n}"
        junk = [
            b"garbage %d" % n,
            other_game.transcript[0].encode(),
            encode("chat", [("game", game), ("seq", str(n + 1)), ("prev", "A" * 43), ("text", "junk")], key).encode(),
        ]
        await host._received(topic, junk[n % 3])
    await asyncio.sleep(0.2)
    events = []
    while not host.events.empty():
        events.append(host.events.get_nowait())
    assert not [event for event in events if isinstance(event, LineRejected)]  # the seats known: no warning...
    told = [event.text for event in events if isinstance(event, Notice) and "hold no seat" in event.text]
    assert len(told) == 1 and "harmless" in told[0]  # ... one notice that they are harmless
    counts = [event.text for event in events if isinstance(event, Notice) and event.text.startswith("ignored")]
    assert 1 <= len(counts) <= 30  # one every 50 ms here, while 600 lines are checked
    assert [int(text.split()[1].replace(",", "")) for text in counts] == sorted(
        int(text.split()[1].replace(",", "")) for text in counts
    )
    assert counts[-1] == f"ignored {host.ignored.lines:,} lines from 3 strangers (refused, not shown)"
    assert host.ignored.lines >= 590  # a few stranger chats may wait for a seat that never comes: not refused
    assert fake(host).seen == {}  # the fake link remembers nothing itself; the runner would not let it:
    assert not host._remember(f"olixono/1/games/{game}/{strangers[0].public.text}/chat-1")
    assert host._remember(f"olixono/1/games/{game}/{own_key(host).text}/7")


async def test_a_players_refused_lines_are_shown_up_to_a_few_then_counted(monkeypatch):
    from protocol import LineRejected

    monkeypatch.setattr(runner_module, "COUNT_EVERY", 0.05)
    host, guest = seated_runners()
    game = host.core.session.game_id
    for n in range(30):
        await host._received(f"olixono/1/games/{game}/{own_key(guest).text}/chat-{n}", b"not a line %d" % n)
    await asyncio.sleep(0.2)
    events = []
    while not host.events.empty():
        events.append(host.events.get_nowait())
    assert len([event for event in events if isinstance(event, LineRejected)]) == runner_module.SHOWN_PER_PLAYER
    assert isinstance(events[-1], Notice) and events[-1].text == "ignored 20 lines from 1 key (refused, not shown)"


def test_a_bot_seat_never_holds_the_program_while_it_thinks():
    """A bot in a network seat (``--bot``) thinks in a daemon thread, as local play's: Ctrl-C while it thinks (here a
    think that would take a minute) ends the program at once; ``asyncio.to_thread`` made ``asyncio.run`` wait for it."""
    import threading

    from client.frontends.plain import bot_front

    class SlowBot:
        release = threading.Event()
        thinking = threading.Event()

        def choose(self, board):
            self.thinking.set()
            self.release.wait(60)  # blocked, not busy: nothing left burning CPU after the test
            return board.legal_moves()[0]

    async def seat() -> None:
        runners = seated_runners()
        mover = runners[0] if runners[0].core.my_turn else runners[1]
        front = asyncio.create_task(bot_front(SlowBot(), lambda text: None)(mover))  # type: ignore[arg-type]  # choose alone
        while not SlowBot.thinking.is_set():
            await asyncio.sleep(0.01)
        front.cancel()  # what Ctrl-C does to the front end
        with contextlib.suppress(asyncio.CancelledError):
            await front

    program = threading.Thread(target=lambda: asyncio.run(seat()), daemon=True)
    program.start()
    program.join(10)  # a bound on the test, far below the bot's minute
    SlowBot.release.set()
    assert not program.is_alive(), "the program waited for the bot's thought"


async def test_a_request_that_fails_in_its_own_task_is_shown_never_lost():
    """The narrowing and the end of a peek run in tasks of their own (the reader never waits for the relay): an error
    in one is told to the person, and the log has it, never lost ("Task exception was never retrieved")."""
    runners = seated_runners()
    runner = runners[0]

    async def broken(*topic_filters: str) -> None:
        raise RuntimeError("the relay's answer made no sense")

    fake(runner).narrow = broken  # type: ignore[method-assign]
    caught_up(runner)
    runner.narrowed = False
    other = runners[1]
    gone = other.core.presence(False, 1)
    assert gone is not None
    await runner._received(gone.topic, gone.line.encode())  # any line: a caught-up player then narrows
    for _ in range(10):
        await asyncio.sleep(0)
    told = []
    while not runner.events.empty():
        told.append(runner.events.get_nowait())
    assert any(
        isinstance(event, Notice) and "request to the relay failed" in event.text and "made no sense" in event.text
        for event in told
    ), told


# -- what time alone calls for, after a stall ---------------------------------------------------------------------
def auto_claimant(monkeypatch) -> tuple[GameRunner, GameCore, Clock]:
    """A runner with ``--claim auto`` whose opponent is to move in a 1+0 game (its ticks 20 ms apart, a stall past
    0.1 s held 0.1 s), caught up; the opponent's core, and the injected clock of both."""
    from test_client_clock import movers, play, timed_game

    from client.cores import liveness

    monkeypatch.setattr(liveness, "TICK", 0.02)
    monkeypatch.setattr(runner_module, "STALLED", 0.1, raising=False)
    monkeypatch.setattr(runner_module, "STALL_HOLD", 0.1, raising=False)
    relay, clock, host, guest, _ = timed_game("1+0")
    claimant, other = movers(host, guest)
    play(relay, claimant)
    relay.cores.remove(claimant)  # from now on, the runner's link brings it what comes
    claimant.auto_claim = True
    runner = GameRunner(claimant, FakeLink)  # type: ignore[arg-type]
    caught_up(runner)
    claimant.ready()
    return runner, other, clock


async def test_a_stalled_client_with_claim_auto_reads_the_move_waiting_before_it_claims(monkeypatch):
    """A client stopped 53 s (SIGSTOP) while the other's move, in time, waits in its buffer: on SIGCONT its watch's
    tick may come before the reader, and ``--claim auto`` must not sign a needless claim (on the record for good). A
    tick far later than its period holds what time alone calls for a moment: the reader takes the move first; with
    nothing come meanwhile, the claim follows the hold."""
    import time

    runner, other, clock = auto_claimant(monkeypatch)
    core = runner.core
    watch = asyncio.create_task(runner._watch())
    try:
        await asyncio.sleep(0.1)  # ticks: nothing due
        clock.now += 50.0
        move = other.act(Intent("move", playable(other)[0])).publish[0]  # in time, on its way
        clock.now += 53.0  # the claimant's process stopped meanwhile: by its watch, the other's clock has run out
        time.sleep(0.3)  # noqa: ASYNC251 (the loop stalls, as a stopped process's: the watch's tick is overdue)

        async def reader() -> None:  # the link's reader takes a few steps from the socket to the core
            for _ in range(5):
                await asyncio.sleep(0)
            await runner._received(move.topic, move.line.encode())

        reading = asyncio.create_task(reader())
        await asyncio.sleep(0.4)
        await reading
    finally:
        watch.cancel()
        await asyncio.gather(watch, return_exceptions=True)
    assert core.my_turn and not flags_signed(runner)


def flags_signed(runner: GameRunner) -> list[str]:
    """The flag claims the runner's player signed (what its link sent)."""
    from protocol import decode

    return [line for _, _, line in fake(runner).sent if decode(line, verify=False).type == "flag"]


async def test_a_stalled_client_with_claim_auto_claims_once_the_hold_is_over_and_its_connection_caught_up(monkeypatch):
    import time

    runner, _, clock = auto_claimant(monkeypatch)
    core = runner.core
    watch = asyncio.create_task(runner._watch())
    try:
        await asyncio.sleep(0.1)
        clock.now += 103.0
        runner.books.catching_up(1)  # reconnecting: the relay's lines are not all in
        time.sleep(0.3)  # noqa: ASYNC251 (the loop stalls)
        await asyncio.sleep(0.4)
        assert not flags_signed(runner)
        runner.books.stopped_catching(1)
        for _ in range(100):  # bounded: until its tick claims
            if core.my_flag() is not None:
                break
            await asyncio.sleep(0.02)
    finally:
        watch.cancel()
        await asyncio.gather(watch, return_exceptions=True)
    assert len(flags_signed(runner)) == 1


async def test_a_watchers_runner_tells_its_core_whether_the_line_that_began_the_turn_came_from_the_relays_store():
    """The retain flag the link passes reaches the core: a turn begun by a line from the relay's store (a catch-up) is
    one the watcher did not see begin, and the next, begun by a line delivered live, is."""
    from protocol import GameSession

    host, guest = start("olix")
    runner = GameRunner(GameCore(GameSession(host.game_id), watching=True), FakeLink)  # type: ignore[arg-type]
    for line in host.transcript:
        await runner._received("topic", line.encode(), True)
    assert runner.core.started and not runner.core.turn_seen_live
    mover, _other = (host, guest) if host.actor == identity_of(host).public else (guest, host)
    move = mover.move(playable(mover)[0])
    await runner._received("topic", move.line.encode(), False)
    assert runner.core.moves == 1 and runner.core.turn_seen_live


async def test_each_relay_hears_here_under_the_seq_of_the_will_it_holds_and_one_relays_catch_up_leaves_the_rest():
    """Several relays: each connection leaves its own will (``gone`` at a seq of its own); the ``here`` line sent on
    that connection carries the same seq, so that a relay which loses us says "gone" to whoever reads it alone (a
    later seq taken by another relay's connection would have made its will too old to count). One relay catching up
    again changes nothing the others' connections set up: the game stays narrowed, the copies asked for stay asked."""
    from protocol.messages import decode

    runner, other = seated_runners()
    first, second = FakeLink(), FakeLink()
    first.last_will, second.last_will = runner._will(), runner._will()  # both relays connect at once: seqs 1, 2
    assert runner.connections == 2
    runner.narrowed = True
    runner._asked.add("asked-copy-topic")
    await runner._connected(first)  # type: ignore[arg-type]  # its catch-up ends after the second relay's connection took seq 2
    here = decode(first.sent[0][2])
    assert here.type.value == "presence" and here.seq == 1 and "state=here" in first.sent[0][2]
    assert runner.narrowed and runner._asked == {"asked-copy-topic"} and first.narrowed_to
    assert not runner.books.catching and runner.books.up_to_date
    gone = other._received  # a receiver of the first relay alone: here 1, then that relay's will, gone 1
    await gone(first.sent[0][1], first.sent[0][2].encode())
    assert first.last_will is not None
    await gone(first.last_will[0], first.last_will[1].encode())
    assert other.core.session.present(own_key(runner)) is False


async def test_a_line_of_ours_erased_is_put_back_and_live_junk_only_makes_the_runner_ask_the_relay(monkeypatch):
    """What the relay keeps on a topic of ours decides: an erasure (an empty line) or a line it sends from its store
    puts ours back at once; a line seen live may be junk it never kept (a publication not retained), so the relay is
    asked what it keeps there, once for any number of them, and junk spends nothing of the line's restores. A
    stranger who clears a line as fast as it comes back meets a cap, the line's own. (The question's time comes when
    the test says: no clock decides what is asserted.)"""
    monkeypatch.setattr(runner_module, "CHECK_AFTER", 3600.0)
    runners = seated_runners()
    rng = random.Random(5)
    for _ in range(2):
        await exchange(runners, rng)
    mover = runners[0]
    mover.send_copies()  # the copies leave now, not at their quiet moment
    link = fake(mover)
    (topic, line), (other, _) = list(mover.books.kept.items())[:2]  # two lines of ours (a move, a copy)
    link.sent.clear()
    put_back = lambda where: [sent for _, at, sent in link.sent if at == where]  # noqa: E731

    for n in range(3 * relay_books.MAX_RESTORES):  # live junk: nothing put back, the relay asked once
        await mover._received(topic, f"junk {n}".encode())
    timer = mover._check_timer
    assert put_back(topic) == [] and link.peeks == [] and timer is not None  # one question, not asked yet
    monkeypatch.setattr(runner_module, "CHECK_AFTER", 0.01)  # its answer's wait, before the peek stops
    timer.cancel()
    mover._ask_checks()  # the question's time has come
    assert await eventually(lambda: link.peeks == [topic, "stop " + topic], 30), link.peeks
    await mover._received(topic, line.encode(), retained=True)  # the relay kept ours: nothing to do
    assert put_back(topic) == []

    await mover._received(topic, b"junk kept", retained=True)  # it kept junk in its place: ours again
    await mover._received(topic, b"")  # erased: ours again
    assert put_back(topic) == [line, line]

    for _ in range(2 * relay_books.MAX_RESTORES):  # cleared as fast as it comes back
        await mover._received(topic, b"")
    assert len(put_back(topic)) == relay_books.MAX_RESTORES
    await mover._received(other, b"")  # another line of ours has a count of its own
    assert put_back(other) == [mover.books.kept[other]]
