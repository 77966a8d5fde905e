"""Network play end to end: whole games between two clients through each real relay, a late spectator, faults.

The flows run in this process (each with its own identity and journal folder) against a real relay on a free
127.0.0.1 port: the embedded amqtt relay, and Mosquitto from the generated configuration.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
from typing import Any, TextIO

import pytest
from network_helpers import Seat, cancelled, game_id_of, on_the_chain, rematch_line, transcript
from protocol_helpers import board_of, game_id_in, result_of
from relay_fixtures import Relay, RelayProcess, make_accounts, needs_mosquitto, silent_relay

from client.flows import network
from client.words.network import BOT_SEAT
from protocol import GameSession, Identity, game_filter, verify_transcript
from protocol.clock import TimeControl
from protocol.messages import encode

pytestmark = needs_mosquitto


@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_two_bots_play_a_whole_game_and_a_late_spectator_agrees(any_relay, tmp_path, kind):
    host = Seat(tmp_path, "host", any_relay, bot="random", seed=1)
    guest = Seat(tmp_path, "guest", any_relay, bot="greedy", seed=2)
    hosting = asyncio.create_task(network.host(kind, host.options))
    game = await game_id_of(host)
    async with asyncio.timeout(60):
        assert await network.join(game, guest.options) == 0
        assert await hosting == 0
    assert transcript(host, game) == transcript(guest, game)
    session, _number, problem = verify_transcript(transcript(host, game))
    assert problem is None and session.result is not None
    result_line = f"result: {session.result.sentence()} ({session.result.code()})"
    assert result_line in host.text() and result_line in guest.text()
    assert f"hosted by {host.identity.fingerprint}" in guest.text()
    watcher = Seat(tmp_path, "watcher", any_relay, plain=True)
    assert await network.watch(game, watcher.options) == 0
    moves = [line for line in watcher.lines if line.startswith("move ")]
    assert len(moves) == session.moves and result_line in watcher.text()
    assert moves[0].startswith("move 1 ") and moves[-1].startswith(f"move {session.moves} ")  # numbered as played
    assert "result confirmed by both players" in watcher.text()  # each player confirmed the ending before leaving
    exported = Seat(tmp_path, "exporter", any_relay)
    assert await network.export(game, exported.options) == 0  # no journal: rebuilt from the relay
    record = exported.lines[-1].splitlines()
    assert on_the_chain(record) == transcript(host, game)
    assert [line.split()[1] for line in record].count("chat") == 1  # the guest bot's word: the host bot left on it
    assert verify_transcript(record)[0].confirmed_by == {host.identity.public, guest.identity.public}


async def test_a_plain_player_types_commands_and_bad_input_is_never_sent(any_relay, tmp_path, pipes):
    host = Seat(tmp_path, "host", any_relay, bot="random", seed=3)
    reader, writer = pipes()
    guest = Seat(tmp_path, "guest", any_relay, plain=True, commands=reader)
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    joining = asyncio.create_task(network.join(game, guest.options))
    async with asyncio.timeout(30):
        while "seats " not in guest.text():
            await asyncio.sleep(0.05)
        for typed in ("hello there", "Xa1a1", "say good luck\u200b", "say good luck", "legal"):
            writer.write(typed + "\n")
            writer.flush()
            await asyncio.sleep(0.3)
        writer.write("resign\n")
        writer.close()  # nothing more to type: the person leaves once the game is over, and the bot seat with them
        assert await joining == 0 and await hosting == 0
    text = guest.text()
    assert "error: not a move or a command: 'hello there'" in text
    assert "error: illegal" in text or "error: it is not your turn" in text
    assert "error: chat text holds U+200B" in text or "format" in text
    assert re.search(r"chat (pink|black) \S+ \(you\): good luck$", text, re.M)
    assert "result: " in text and "resigned" in text
    session = GameSession.restore(transcript(host, game))
    assert result_of(session).reason == "resigned" and not any("hello" in line for line in session.transcript)


def pipe() -> tuple[TextIO, TextIO]:
    """A pipe for typed commands: (the end a front end reads, the end a test types at); the caller closes both."""
    read_end, write_end = os.pipe()
    return os.fdopen(read_end, "r"), os.fdopen(write_end, "w")


async def test_a_hostile_third_client_changes_nothing(any_relay, tmp_path):
    host = Seat(tmp_path, "host", any_relay, bot="random", seed=4)
    guest = Seat(tmp_path, "guest", any_relay, bot="random", seed=5)
    hosting = asyncio.create_task(network.host("olix", host.options))
    game = await game_id_of(host)
    joining = asyncio.create_task(network.join(game, guest.options))
    stranger = Identity.generate()
    async with any_relay.client() as attacker:
        await attacker.subscribe(game_filter(game), qos=1)
        seen: list[bytes] = []

        async def listen() -> None:
            async for message in attacker.messages:
                seen.append(bytes(message.payload))

        listener = asyncio.create_task(listen())
        async with asyncio.timeout(60):
            while not hosting.done():
                topic = f"olixono/1/games/{game}/{stranger.public.text}/7"
                forged = encode(
                    "move", [("game", game), ("seq", "7"), ("prev", "A" * 42 + "A"), ("move", "f6")], stranger
                )
                await attacker.publish(topic, forged.encode(), qos=1, retain=True)
                await attacker.publish(topic, b"\xff\xfe garbage", qos=1)
                await attacker.publish(topic, b"olixono/1 move game=" + game.encode(), qos=1)
                for old in list(seen[-3:]):  # replayed lines: duplicates, changing nothing
                    await attacker.publish(f"olixono/1/games/{game}/{stranger.public.text}/replay", old, qos=1)
                    await attacker.publish(f"olixono/1/games/{game}/{host.identity.public.text}/5", old, qos=1)
                # an open relay lets anyone overwrite a player's own topic: the guest's copy keeps the true line
                await attacker.publish(
                    f"olixono/1/games/{game}/{host.identity.public.text}/3", b"garbage", qos=1, retain=True
                )
                await asyncio.sleep(0.05)
            assert await hosting == 0 and await joining == 0
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)
    assert transcript(host, game) == transcript(guest, game)
    assert verify_transcript(transcript(host, game))[2] is None
    assert "notice: lines of keys that hold no seat here are ignored, harmless" in host.text()  # said, not warned
    watcher = Seat(tmp_path, "watcher", any_relay, plain=True)  # late: the relay holds the attacker's lines too
    assert await network.watch(game, watcher.options) == 0
    moves = [line for line in watcher.lines if line.startswith("move ")]
    assert len(moves) == GameSession.restore(transcript(host, game)).moves
    assert "notice: lines of keys that hold no seat here are ignored, harmless" in watcher.text()


@pytest.mark.network
@pytest.mark.parametrize("data", [False, True], ids=["killed-without-data", "restarted-with-data"])
async def test_a_relay_that_loses_its_lines_is_seeded_again_by_the_players(tmp_path, data):
    """The relay process is SIGKILLed with no data folder (everything it retained is gone), or stopped and started
    again with one; the players reconnect, publish again what it lacks from their journals, and finish."""
    from relay.mosquitto import free_port

    relay = RelayProcess(free_port(), tmp_path / "data" if data else None)
    hosting = joining = None
    try:
        await relay.start()
        host = Seat(tmp_path, "host", relay, bot="mcts", iterations=200, seed=6)
        guest = Seat(tmp_path, "guest", relay, bot="mcts", iterations=200, seed=7)
        hosting = asyncio.create_task(network.host("olix", host.options))
        game = await game_id_of(host)
        joining = asyncio.create_task(network.join(game, guest.options))
        async with asyncio.timeout(120):
            while host.text().count("move ") < 6:
                await asyncio.sleep(0.05)
            await relay.stop(kill=not data)
            await asyncio.sleep(1.0)
            await relay.start()
            assert await hosting == 0 and await joining == 0
        assert "relay lost" in host.text() and host.text().count("relay connected") >= 2
        assert transcript(host, game) == transcript(guest, game)
        watcher = Seat(tmp_path, "watcher", relay, plain=True)
        assert await network.watch(game, watcher.options) == 0
        assert (
            sum(line.startswith("move ") for line in watcher.lines) == GameSession.restore(transcript(host, game)).moves
        )
    finally:
        tasks = [task for task in (hosting, joining) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await relay.stop(kill=True)


async def test_the_lobby_lists_open_offers_only(any_relay, tmp_path):
    host = Seat(tmp_path, "host", any_relay, bot="random", seed=8)
    invited = Identity.generate()
    inviting = Seat(tmp_path, "inviter", any_relay, bot="random", invite=invited.public.text)
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    hosting_for = asyncio.create_task(network.host("olix", inviting.options))
    other = await game_id_of(inviting)
    lobby = Seat(tmp_path, "lobby", any_relay)
    lobby.identity = invited
    lobby.options.identity = invited
    await asyncio.sleep(0.5)
    assert await network.games(lobby.options) == 0
    assert lobby.lines[0].split()[:2] == ["GAME", "KIND"]  # a header, then one line a game
    listed = {line.split()[0]: line for line in lobby.lines[1:]}
    assert set(listed) == {game, other}
    assert f"host {host.identity.fingerprint}" in listed[game] and "open to anyone" in listed[game]
    assert listed[game].split()[2] == "untimed"  # the time control beside the kind
    assert "invites you" in listed[other] and "olix" in listed[other]
    guest = Seat(tmp_path, "guest", any_relay, bot="random", seed=9)
    async with asyncio.timeout(60):
        assert await network.join(game, guest.options) == 0 and await hosting == 0
    lobby.lines.clear()
    assert await network.games(lobby.options) == 0
    assert [line.split()[0] for line in lobby.lines[1:]] == [other]  # the finished game is gone
    stranger = Seat(tmp_path, "stranger", any_relay, bot="random")
    with pytest.raises(network.Failure, match="for another player"):
        await network.join(other, stranger.options)
    hosting_for.cancel()
    await asyncio.gather(hosting_for, return_exceptions=True)


async def test_the_lobby_lists_each_offers_time_control_in_its_clock_column(any_relay, tmp_path):
    """Offers under ``5+3``, ``days:3`` and no clock, published as a host publishes them: the lobby's CLOCK column
    reads ``5+3``, ``3 days a move`` and ``untimed``, each under its head."""
    from protocol import topic_for
    from protocol.clock import TimeControl

    hosts = {term: Identity.generate() for term in ("clock:300+3", "days:3", "")}
    games: dict[str, str] = {}
    async with any_relay.client() as publisher:
        for term, identity in hosts.items():
            terms = ",".join(sorted(["rules:1", *([term] if term else [])]))
            session, out = GameSession.offer("oxono", identity, terms=terms)
            games[term] = game_id_in(session)
            await publisher.publish(topic_for(out.message), out.line.encode(), qos=1, retain=True)
    lobby = Seat(tmp_path, "lobby", any_relay)
    assert await network.games(lobby.options) == 0
    head = lobby.lines[0]
    column = head.index("CLOCK")
    listed = {line.split()[0]: line for line in lobby.lines[1:]}
    assert TimeControl.parse("5+3").term == "clock:300+3"
    for term, shown in (("clock:300+3", "5+3"), ("days:3", "3 days a move"), ("", "untimed")):
        line = listed[games[term]]
        assert line[column : head.index("HOST")].rstrip() == shown, (head, line)
        assert f"host {hosts[term].public.fingerprint}" in line


async def test_a_guest_whose_host_never_seats_it_closes_the_game_on_its_side(any_relay, tmp_path, capsys, pipes):
    """The host offers and is gone before anyone joins (its offer stays on the relay): the guest joins, is told that
    nothing binds it, and quits; the game is closed on its side (nothing signed), gone from the unfinished games, and
    ``resume GAME`` takes it up again."""
    from client.frontends.plain import LEFT
    from client.shell.journal import Journal

    host = Seat(tmp_path, "host", any_relay, bot="random")
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    await asyncio.sleep(1.0)  # the offer on the relay
    hosting.cancel()
    await asyncio.gather(hosting, return_exceptions=True)
    reader, writer = pipes()
    guest = Seat(tmp_path, "guest", any_relay, plain=True, commands=reader)
    joining = asyncio.create_task(network.join(game, guest.options))
    async with asyncio.timeout(30):
        while "join asked by" not in guest.text():
            await asyncio.sleep(0.05)
        writer.write("claim\nquit\n")
        writer.flush()
        assert await joining == LEFT
    assert "nothing binds you to this game; quit closes it on your side" in guest.text()
    assert "it is closed on your side" in capsys.readouterr().err
    journal = Journal.open(game, guest.options.journal_dir)
    assert journal.meta.left_unseated and not any(" accept " in line or " abort " in line for line in journal.lines())
    journal.close()
    guest.lines.clear()
    assert await network.resume(None, guest.options) == 0
    assert guest.lines == ["No unfinished game in the journal."]
    back = Seat(tmp_path, "guest", any_relay, plain=True, commands=io.StringIO("quit\n"))
    back.identity, back.options.identity = guest.identity, guest.identity
    async with asyncio.timeout(30):
        assert await network.resume(game, back.options) == LEFT
    assert "Taking up oxono game" in back.text() and Journal.open(game, guest.options.journal_dir).meta.left_unseated


async def test_one_sentence_for_each_relay_failure(tmp_path):
    from relay.mosquitto import free_port

    seat = network.Options(
        relay=f"mqtt://127.0.0.1:{free_port()}",
        identity=Identity.generate(),
        timeout=1,
        journal_dir=tmp_path,
        write=lambda _: None,
    )
    with pytest.raises(network.Failure, match=r"nothing answers at 127.0.0.1"):
        await network.watch("A" * 22, seat)
    seat.relay = "mqtt://no-such-host.invalid:1883"
    with pytest.raises(network.Failure, match=r"cannot find the relay host 'no-such-host.invalid'"):
        await network.watch("A" * 22, seat)
    seat.relay = "http://example.org"
    with pytest.raises(network.Failure, match="starts with mqtt:// or mqtts://"):
        await network.watch("A" * 22, seat)
    seat.relay = "mqtt://user:secret@127.0.0.1"
    with pytest.raises(network.Failure, match="never put a password in the URL"):
        await network.watch("A" * 22, seat)
    with pytest.raises(network.Failure, match="not a game id"):
        await network.watch("nope", seat)
    seat.relay = f"mqtt://127.0.0.1:{free_port()}"
    with pytest.raises(network.Failure, match=r"nothing answers at 127.0.0.1"):
        await network.host("oxono", seat)
    assert not list(tmp_path.iterdir())  # no game made that could never be published


@pytest.mark.network
async def test_a_private_relay_wants_the_account_and_says_so(tmp_path):
    users = tmp_path / "users"
    (account,) = make_accounts(users, 1)
    relay = Relay("embedded", tmp_path / "relay", users_file=users)
    relay.workdir.mkdir()
    await relay.start()
    try:
        options = network.Options(
            relay=relay.url,
            identity=account.identity,
            journal_dir=tmp_path,
            timeout=2,
            write=lambda _: None,
            environ={},
        )
        with pytest.raises(network.Failure, match="wants an account: your account name is your key"):
            await network.watch("A" * 22, options)
        options.environ = {"OLIXONO_RELAY_PASSWORD": "wrong"}
        with pytest.raises(network.Failure, match="refused the login"):
            await network.watch("A" * 22, options)
        options.environ = {"OLIXONO_RELAY_PASSWORD": account.password}
        with pytest.raises(network.Failure, match="no game AAAA"):
            await network.watch("A" * 22, options)
    finally:
        await relay.stop()


async def test_leaving_while_lines_arrive_leaves_no_writer_behind(any_relay):
    """aiomqtt 2.5 registers the socket's writer late (for each PUBACK it owes), so that leaving while lines arrive
    failed on the closed socket ('Exception in callback ... add_writer ... Bad file descriptor', printed on the
    person's terminal at the end of a game). The Link's client registers it at once."""
    from client.shell.transport import Link, RelayAddress

    address = RelayAddress(False, "127.0.0.1", any_relay.port)
    tree = "olixono/1/burst"  # not a game topic: the relay keeps only signed lines on those
    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: errors.append(context))
    publisher = Link(address)
    publishing = asyncio.create_task(publisher.run())
    try:
        async with asyncio.timeout(30):
            while not publisher.connected:
                await asyncio.sleep(0.01)
            for round in range(12):
                link = Link(address)
                await link.subscribe(f"{tree}/#")
                running = asyncio.create_task(link.run())
                while not link.seen:
                    publisher.send(f"{tree}/k/{round}", f"line {round}")
                    await asyncio.sleep(0.002)
                for n in range(40):  # a burst on its way while the link leaves
                    publisher.send(f"{tree}/k/{n}", f"line {round} {n}")
                    if n == 20:
                        link.stop()
                    await asyncio.sleep(0)
                await running
                await asyncio.sleep(0.02)
    finally:
        publisher.stop()
        await publishing
        loop.set_exception_handler(previous)
    assert [context.get("message") for context in errors] == []


@contextlib.asynccontextmanager
async def person_against_a_bot(tmp_path, relay, seed: int):
    """A ``--plain`` person (the guest, typing at the yielded writer) against a greedy bot seat hosting an Oxono game:
    yields both seats, the writer and the game's id; once the caller is done, both commands must end with 0."""
    host = Seat(tmp_path, "host", relay, bot="greedy", seed=seed)
    reader, writer = pipe()
    guest = Seat(tmp_path, "guest", relay, plain=True, commands=reader)
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    joining = asyncio.create_task(network.join(game, guest.options))
    try:
        yield host, guest, writer, game
        async with asyncio.timeout(30):
            assert await joining == 0 and await hosting == 0
    finally:
        await cancelled(hosting, joining)
        writer.close()  # first: a front end's thread reading the pipe holds its lock until it reads the end
        reader.close()


async def test_a_bot_seat_answers_a_proposal(any_relay, tmp_path):
    """The person offers a draw; the bot holding the other seat answers it as the protocol says (here: declines,
    since a bot that does not search plays on rather than take a draw), and the game goes on."""
    async with person_against_a_bot(tmp_path, any_relay, 3) as (host, guest, writer, game):
        await offer_a_draw_then_resign(guest, writer)
    session = GameSession.restore(transcript(host, game))
    assert [line.split()[1] for line in session.transcript].count("decline") == 1, guest.text()
    assert result_of(session).reason == "resigned"


async def test_a_person_gets_a_rematch_from_the_bot_seat_that_beat_them(any_relay, tmp_path):
    """A ``--plain`` person resigns to a bot seat (``host --bot``) and types ``rematch``: the bot, waiting for it (as
    its chat says), accepts and joins the person's rematch (colours swapped); the person resigns that too, leaves, and
    the bot, waiting for another, leaves with them. Both records verify."""
    async with person_against_a_bot(tmp_path, any_relay, 11) as (host, guest, writer, game):
        async with asyncio.timeout(60):
            await seen(guest, "your move")  # (a resignation that crossed the bot's move would set that move aside)
            writer.write("resign\n")
            writer.flush()
            await seen(guest, f"{BOT_SEAT}: type rematch within 20 s")
            writer.write("rematch\n")
            writer.flush()
            await seen(guest, "rematch agreed")
            await seen(host, "Rematch: joining")
            mark = rematch_line(guest)  # what the rematch printed: from its first line, however fast it came
            await seen(guest, "your move", mark)
            writer.write("resign\n")
            writer.flush()
            await seen(guest, "resigned", mark)
            writer.close()
    rematch = next(line for line in guest.lines if line.startswith("Rematch: hosting")).split()[4].rstrip(",")
    first, _, problem = verify_transcript(transcript(host, game))
    second, _, again = verify_transcript(transcript(host, rematch))
    assert problem is None and again is None and transcript(host, rematch) == transcript(guest, rematch)
    assert result_of(first).reason == "resigned" and result_of(first).winner_key == host.identity.public
    assert second.host == guest.identity.public and second.invite == host.identity.public
    players = board_of(first).PLAYERS
    assert [second.seats[p] for p in players] == [first.seats[p] for p in reversed(players)]  # colours swapped
    assert result_of(second).reason == "resigned" and result_of(second).winner_key == host.identity.public
    assert sum(line.startswith("chat ") and BOT_SEAT in line for line in host.lines) == 2  # the bot's, each game


async def offer_a_draw_then_resign(guest: Seat, writer) -> None:
    async with asyncio.timeout(30):
        while "seats " not in guest.text():
            await asyncio.sleep(0.05)
        for _ in range(40):  # until it is the person's turn and the offer is made
            if "proposal " in guest.text():
                break
            writer.write("draw\n")
            writer.flush()
            await asyncio.sleep(0.25)
        before = len(guest.lines)  # the offer keeps the turn: the person moves, then the bot answers on its turn
        writer.write("legal\n")
        writer.flush()
        while not any(re.fullmatch(r"([OX][a-f][1-6][a-f][1-6] ?)+", line) for line in guest.lines[before:]):
            await asyncio.sleep(0.05)
        moves = next(line for line in guest.lines[before:] if re.fullmatch(r"([OX][a-f][1-6][a-f][1-6] ?)+", line))
        writer.write(moves.split()[0] + "\n")
        writer.flush()
        while "declined " not in guest.text():
            await asyncio.sleep(0.05)
        writer.write("resign\n")
        writer.close()  # nothing more to type: the person leaves once the game is over, and the bot seat with them


async def test_a_link_remembers_hashes_of_the_topics_it_is_told_to_only(any_relay):
    """Link.seen keeps a SHA-256 of each payload, and only of the topics its owner wants remembered: a watcher under
    90,000 junk lines keeps no more than their hashes, never the payloads, for the life of a connection."""
    import hashlib

    from client.shell.transport import Link, RelayAddress

    address = RelayAddress(False, "127.0.0.1", any_relay.port)
    tree = "olixono/1/memory"
    async with any_relay.client() as publisher:
        for n in range(50):
            await publisher.publish(f"{tree}/{'keep' if n < 5 else 'junk'}/{n}", b"x" * 2000, qos=1, retain=True)
    link = Link(address, remember=lambda topic: "/keep/" in topic)
    await link.subscribe(f"{tree}/#")
    running = asyncio.create_task(link.run())
    try:
        async with asyncio.timeout(10):
            while not link.connected:
                await asyncio.sleep(0.01)
            await link.settled()
    finally:
        link.stop()
        await running
    assert sorted(link.seen) == [f"{tree}/keep/{n}" for n in range(5)]
    assert set(link.seen.values()) == {hashlib.sha256(b"x" * 2000).digest()}


async def test_a_link_tells_a_line_from_the_relays_store_from_one_delivered_live(any_relay):
    """What tells the runner that asking the relay again brought a line that live delivery had lost (and not a line
    published just then): the retain flag, set on what a subscription's catch-up brings, never on a live delivery,
    on both relays."""
    from client.shell.transport import Link, RelayAddress

    tree = "olixono/1/memory"
    arrived: list[tuple[str, bool]] = []

    async def on_line(topic: str, payload: bytes, retained: bool) -> None:
        arrived.append((topic.rsplit("/", 1)[1], retained))

    async def until(count: int) -> None:
        async with asyncio.timeout(10):
            while len(arrived) < count:
                await asyncio.sleep(0.01)

    async with any_relay.client() as publisher:
        await publisher.publish(f"{tree}/stored", b"x", qos=1, retain=True)
        link = Link(RelayAddress(False, "127.0.0.1", any_relay.port), on_line=on_line)
        await link.subscribe(f"{tree}/#")
        running = asyncio.create_task(link.run())
        try:
            await until(1)
            await publisher.publish(f"{tree}/live", b"y", qos=1, retain=True)
            await until(2)
            await link.resubscribe(f"{tree}/#")  # asking again: the store's lines once more
            await until(4)
        finally:
            link.stop()
            await running
    assert arrived[:2] == [("stored", True), ("live", False)]
    assert sorted(arrived[2:]) == [("live", True), ("stored", True)]


async def test_a_link_waits_longer_for_the_first_retained_line_than_between_two():
    """While nothing has come at all, ``settled`` waits QUIET_BEFORE_ANY s; once a line has come, QUIET s after the
    latest: a loaded relay may begin sending a subscription's retained lines more than QUIET s after it, and taking
    that silence for an empty store would make export say 'no game … nor on the relay'."""
    from client.shell import transport
    from client.shell.transport import Link, RelayAddress

    link = Link(RelayAddress(False, "127.0.0.1", 1))  # never connected: the arrivals are the test's
    loop = asyncio.get_running_loop()
    settling = asyncio.create_task(link.settled())
    await asyncio.sleep(transport.QUIET * 2)
    assert not settling.done(), "took the relay's slowness to begin for an empty store"
    link._last_arrival = loop.time()  # the first retained line, late
    link._arrived.set()
    arrived = loop.time()
    await asyncio.wait_for(settling, transport.SETTLE_MAX)
    assert loop.time() - arrived >= transport.QUIET  # and the quiet after it, as before


async def test_a_link_block_cancelled_from_outside_ends_at_once_even_mid_connection():
    """``async with link:`` cancelled while the link is still connecting (a relay that accepts the TCP connection and
    never answers): the cancellation stands and the link goes with it, as a task group's child would; not a relay
    error some seconds later, nor a connection made after the block was cancelled."""
    from client.shell.transport import Link, RelayAddress

    states: list[bool] = []

    async def block(link: Link) -> None:
        async with link:
            await asyncio.Event().wait()

    async with silent_relay() as port:
        link = Link(RelayAddress(False, "127.0.0.1", port), on_state=lambda connected, _: states.append(connected))
        task = asyncio.create_task(block(link))
        await asyncio.sleep(0.2)
        task.cancel()
        try:
            done, _ = await asyncio.wait({task}, timeout=5)  # aiomqtt's connection attempt alone would take 10 s
            assert done and task.cancelled()
            assert link._running is not None and link._running.done() and True not in states
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)


async def test_a_link_that_fails_ends_its_block_with_its_error():
    from client.shell.transport import Link, RelayAddress, RelayError
    from relay.mosquitto import free_port

    link = Link(RelayAddress(False, "127.0.0.1", free_port()))
    reached = False
    with pytest.raises(RelayError):
        async with asyncio.timeout(20):
            async with link:
                await asyncio.Event().wait()
                reached = True
    assert not reached


def test_each_relay_failure_is_of_the_kind_that_says_whether_trying_again_may_help():
    """What may pass is a ``RelayUnreachable`` (a link keeps trying); what would not is a ``RelayRefused``, and of
    those a login wanted or refused is a kind of its own (the command asks for the password, or says it is wrong)."""
    import socket
    import ssl

    import aiomqtt
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.reasoncodes import ReasonCode

    from client.shell.transport import (
        RelayAddress,
        RelayError,
        RelayLoginRefused,
        RelayNeedsLogin,
        RelayRefused,
        RelayTimedOut,
        RelayUnreachable,
        explain,
    )

    address = RelayAddress(False, "127.0.0.1", 1883)
    login = aiomqtt.MqttCodeError(ReasonCode(PacketTypes.CONNACK, "Not authorized"))
    assert type(explain(address, login)) is RelayNeedsLogin
    assert type(explain(address, login, "someone")) is RelayNeedsLogin
    assert type(explain(address, login, "someone", "wrong")) is RelayLoginRefused
    tls = ssl.SSLError(1, "wrong version number")
    tls.reason = "WRONG_VERSION_NUMBER"
    assert type(explain(address, tls)) is RelayRefused
    assert type(explain(address, ConnectionRefusedError())) is RelayUnreachable
    assert type(explain(address, socket.gaierror())) is RelayUnreachable
    assert type(explain(address, TimeoutError())) is RelayTimedOut
    lost = explain(address, aiomqtt.MqttError("Disconnected during message iteration"))
    assert type(lost) is RelayUnreachable and str(lost) == "the connection to the relay at 127.0.0.1:1883 was lost"
    assert issubclass(RelayTimedOut, RelayUnreachable) and issubclass(RelayNeedsLogin, RelayRefused)
    assert all(issubclass(kind, RelayError) for kind in (RelayUnreachable, RelayRefused))


async def test_a_cancellation_an_await_swallowed_still_ends_the_command(any_relay, tmp_path, monkeypatch):
    """On Python 3.11 a Ctrl-C that comes as aiomqtt finishes connecting can be lost (CPython gh-86296): the task
    still counts it, and the command ends on it rather than looking for the game for its whole wait."""
    entered = asyncio.Event()

    async def swallowing(*args: object, **kwargs: object) -> None:
        entered.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return None  # as asyncio.wait_for does when its work completes with the cancellation

    monkeypatch.setattr(network, "try_login", swallowing)
    watcher = Seat(tmp_path, "watcher", any_relay)
    task = asyncio.create_task(network.watch("-b8iwQmV2RfS9dxX4kPz1A", watcher.options))
    await asyncio.wait_for(entered.wait(), 10)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=5)  # the offer's wait alone is 10 s
    assert done and task.cancelled()


@contextlib.asynccontextmanager
async def plain_pair(tmp_path, relay, kind: str, control: str, **guest_options):
    """A host and a guest at ``--plain``, reading the commands typed at ``seat.typing``, in ``kind``'s game under
    ``control`` (the host's), the guest with ``guest_options`` too: yields both and the game's id; once the caller is
    done (within 60 s), both typings close and both commands must end with 0."""
    host_in, host_typing = pipe()
    guest_in, guest_typing = pipe()
    host = Seat(tmp_path, "host", relay, plain=True, commands=host_in, control=TimeControl.parse(control))
    guest = Seat(tmp_path, "guest", relay, plain=True, commands=guest_in, **guest_options)
    host.typing, guest.typing = host_typing, guest_typing
    hosting = asyncio.create_task(network.host(kind, host.options))
    game = await game_id_of(host)
    joining = asyncio.create_task(network.join(game, guest.options))
    try:
        async with asyncio.timeout(60):
            yield host, guest, game
            host_typing.close()
            guest_typing.close()
            assert await hosting == 0 and await joining == 0
    finally:
        for task in (hosting, joining):
            task.cancel()
        await asyncio.gather(hosting, joining, return_exceptions=True)
        for end in (host_typing, guest_typing, host_in, guest_in):  # the writing ends first (see person_against_a_bot)
            end.close()


async def seen(seat: Seat, text: str, after: int = 0) -> None:
    """Until ``text`` is in what ``seat`` printed from its line ``after`` on (the caller bounds the wait)."""
    while text not in "\n".join(seat.lines[after:]):
        await asyncio.sleep(0.05)


def typed(seat: Seat, text: str) -> None:
    """``text`` typed at a :func:`plain_pair` seat, as a line."""
    seat.typing.write(text + "\n")
    seat.typing.flush()


@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_two_plain_players_agree_to_a_rematch_and_play_it_on_with_the_colours_swapped(any_relay, tmp_path, kind):
    """The guest resigns, then asks for a rematch; the host, told of it, accepts with yes: the rematch is the guest's
    new game, inviting the host alone, under the same terms with the colours swapped, and both play it in the same
    command (the host resigns it). The first game's record is as it was: the rematch lines are no part of it."""
    async with plain_pair(tmp_path, any_relay, kind, "60+1") as (host, guest, game):
        await seen(guest, "seats ")
        typed(guest, "rematch\nresign\nrematch")  # a rematch before the end is refused
        await seen(host, "asks for a rematch: type rematch (or yes)")
        typed(host, "yes")
        await seen(host, "Rematch: joining")
        await seen(host, "seats ", rematch_line(host))
        typed(host, "resign")
        await seen(guest, "resigned", rematch_line(guest))
    assert "error: no rematch now: the game is not over" in guest.text()
    rematch = next(line for line in guest.lines if line.startswith("Rematch: hosting")).split()[4].rstrip(",")
    first = GameSession.restore(transcript(host, game))
    second = GameSession.restore(transcript(guest, rematch))
    assert result_of(first).reason == "resigned" and verify_transcript(transcript(host, game))[1] is None
    assert second.host == guest.identity.public and second.invite == host.identity.public
    assert second.kind == kind and second.clock == first.clock  # the same terms
    players = board_of(first).PLAYERS
    assert [second.seats[p] for p in players] == [first.seats[p] for p in reversed(players)]  # colours swapped
    assert result_of(second).reason == "resigned" and result_of(second).winner_key == guest.identity.public


async def test_two_plain_players_take_back_a_move_by_agreement_and_refuse_another(any_relay, tmp_path):
    """A timed Olix game between two ``--plain`` players: having just moved, the second player types ``takeback``; the
    first, told of it, agrees with ``takeback``: the move is gone from both boards and it is the second's turn again.
    Later the first asks for its last move and the reply on its turn, and the second refuses with ``takeback no``.
    The record holds the undo with the second player's consent and verifies."""
    async with plain_pair(tmp_path, any_relay, "olix", "5+1") as (host, guest, game):
        await seen(host, "seats ")
        seats = next(line for line in host.lines if line.startswith("seats "))
        first, second = (host, guest) if seats.split(",")[0].endswith("(you)") else (guest, host)
        for number, move in enumerate(["a1", "k11", "a11", "k1", "b1", "j11"], 1):
            typed(first if number % 2 else second, move)
            await seen(first, f"move {number} ")
            await seen(second, f"move {number} ")
        typed(second, "takeback")
        await seen(first, "takeback: second asks to take back the last move: type takeback to agree")
        typed(first, "takeback")
        for seat in (first, second):
            await seen(seat, "takeback: move 6 (j11) taken back by agreement; second to move")
        typed(second, "c1")
        await seen(first, "move 6 second c1")
        typed(first, "takeback")
        await seen(second, "takeback: first asks to take back the last two moves (one of each)")
        typed(second, "takeback no")
        await seen(first, "takeback: second refuses: the moves stand")
        typed(first, "resign")
        await seen(second, "second wins by first's resignation")
    record = transcript(host, game)
    session, _, problem = verify_transcript(record)
    assert problem is None and [line.split()[1] for line in record].count("undo") == 1
    assert [message.move for message in session.standing()] == ["a1", "k11", "a11", "k1", "b1", "c1"]
    assert "takeback: you ask to take back the last move: waiting for first's answer" in second.text()


async def test_a_plain_watcher_talks_and_a_player_hides_the_watchers_talk(any_relay, tmp_path, pipes):
    """A ``--plain`` watcher types ``say``: both players see ``watcher <fingerprint>: …``; the host types ``watchers
    off`` and sees none of the next line while the guest does (the guest's chat after it, which reaches the host
    after it, says the host had it), then ``watchers on`` and sees the next. The watcher's commands end before the
    game does: it watches on, to the end (0). Nothing of the talk is in the game's record."""
    watch_in, watch_typing = pipes()
    async with plain_pair(tmp_path, any_relay, "oxono", "60+1") as (host, guest, game):
        watcher = Seat(tmp_path, "watcher", any_relay, plain=True, commands=watch_in)
        watching = asyncio.create_task(network.watch(game, watcher.options))
        try:
            await seen(guest, "seats ")
            await seen(watcher, "seats ")
            said = f"watcher {watcher.identity.fingerprint}"
            watch_typing.write("say hello players\n")
            watch_typing.flush()
            for seat in (host, guest):
                await seen(seat, f"{said}: hello players")
            await seen(watcher, f"{said} (you): hello players")
            typed(host, "watchers off")
            await seen(host, "the watchers' talk is hidden")
            watch_typing.write("say a second line\n")
            watch_typing.flush()
            await seen(guest, f"{said}: a second line")
            typed(guest, "say pong")
            await seen(host, ": pong")
            typed(host, "watchers on")
            await seen(host, "the watchers' talk is shown")
            watch_typing.write("say a third line\nwatchers off\n")
            watch_typing.close()  # the end of the watcher's commands ends no watch
            await seen(host, f"{said}: a third line")
            await seen(watcher, "error: watchers off|on is for the players")
            typed(guest, "resign")
            assert await watching == 0
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)
    assert "a second line" not in host.text() and f"{said}: a third line" in guest.text()
    assert not [line for line in [*host.lines, *guest.lines] if line.startswith("error")]
    record = transcript(host, game)
    assert verify_transcript(record)[1] is None and not [line for line in record if " talk " in line[:20]]


async def test_a_player_who_joins_with_no_watchers_chat_sees_the_talk_only_once_it_asks(any_relay, tmp_path):
    """``join --no-watchers-chat``: the guest sees no watcher's talk (the host's chat after it, which reaches the guest
    after it, says the guest had it) until it types ``watchers on``; the host sees all of it."""
    from client.cli import build_parser

    args = build_parser().parse_args(["join", "A" * 21 + "A", "--no-watchers-chat", "--plain"])
    assert args.no_watchers_chat and not build_parser().parse_args(["host", "oxono"]).no_watchers_chat
    async with plain_pair(tmp_path, any_relay, "olix", "60+1", watchers_chat=False) as (host, guest, game):
        watcher = Seat(tmp_path, "watcher", any_relay, plain=True, commands=io.StringIO("say first\n"))
        watching = asyncio.create_task(network.watch(game, watcher.options))
        try:
            said = f"watcher {watcher.identity.fingerprint}"
            await seen(host, f"{said}: first")
            typed(host, "say ping")
            await seen(guest, ": ping")
            typed(guest, "watchers on")
            await seen(guest, "the watchers' talk is shown")
            await seen(watcher, f"{said} (you): first")
            talker = Seat(tmp_path, "talker", any_relay, plain=True, commands=io.StringIO("say second\nquit\n"))
            assert await network.watch(game, talker.options) == 0  # quit: it stops watching
            await seen(guest, f"watcher {talker.identity.fingerprint}: second")
            typed(guest, "resign")
            assert await watching == 0
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)
    assert f"{said}: first" not in guest.text() and "stopped watching" in talker.text()


async def test_a_command_stream_closed_before_its_reader_reads_is_the_end_of_the_input():
    """A ``--plain`` player's commands come from a stream its owner may close (a test's pipe, a terminal gone) before
    the reading thread has read to its end: that is the end of the input (``None``), never an error in the thread."""
    import os

    from client.frontends import plain

    read_end, write_end = os.pipe()
    os.close(write_end)
    stream = os.fdopen(read_end, "r")
    stream.close()
    lines = await plain._lines_from(stream)
    assert await asyncio.wait_for(lines.get(), 10) is None
