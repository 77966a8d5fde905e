"""The time witness on a real relay: ``olixono witness`` and ``olixono relay --witness`` follow the games that name
them and sign when they saw each line; ``host --witness`` names them; players and watchers are told who they are.

What the witnesses' times decide is the protocol's (tests/test_protocol_witness.py); here: that the shell signs every
line once, on one chain that survives a restart, keeps to the games that name it, and leaves them once over."""

from __future__ import annotations

import asyncio
import functools

import pytest
from cli_helpers import finish, home, read_until, spawn, stop
from network_helpers import Seat, game_id_of
from protocol_helpers import game_id_in, identity_of
from relay_fixtures import gather_messages, port_of

from client.flows import network
from client.flows.verify import load
from client.shell import witness as witness_module
from client.shell.transport import Link, RelayAddress
from client.shell.witness import TimeWitness
from protocol import GameSession, Identity, MessageType, decode, game_filter, verify_transcript
from protocol.clock import TimeControl
from relay.mosquitto import free_port


def connect(relay) -> functools.partial[Link]:
    return functools.partial(Link, RelayAddress.parse(relay.url), give_up=20)


async def play(tmp_path, relay, *, witnesses: list[str], kind: str = "oxono", seed: int = 1) -> tuple[Seat, Seat, str]:
    """Two bots play a timed game to its end, the host naming ``witnesses``."""
    host = Seat(tmp_path, "host", relay, bot="random", seed=seed, control=TimeControl.parse("5+0"), witnesses=witnesses)
    guest = Seat(tmp_path, "guest", relay, bot="random", seed=seed + 1)
    hosting = asyncio.create_task(network.host(kind, host.options))
    game = await game_id_of(host)
    async with asyncio.timeout(60):
        assert await network.join(game, guest.options) == 0
        assert await hosting == 0
    return host, guest, game


def witness_lines(lines: list[str], key) -> list[str]:
    found = []
    for line in lines:
        message = decode(line, verify=False)
        if message.type is MessageType.WITNESS and message.signer == key:
            found.append(line)
    return found


async def record(relay, game: str) -> list[str]:
    """The record of ``game`` as a watcher that comes after the end makes it from what the relay retains."""
    async with relay.client() as late:
        await late.subscribe(game_filter(game), qos=1)
        retained = await gather_messages(late, game_filter(game), timeout=2)
    watcher = GameSession(game)
    for payload in retained.values():
        watcher.receive(payload)
    return list(watcher.transcript)


def checked(lines: list[str], game: str, key, *, every_move: bool = True) -> GameSession:
    """The record verified, its witness's chain whole: lines of the game named once each (``every_move``: every move
    among them), by a witness that lies about nothing."""
    session, _, problem = verify_transcript([line.encode() for line in lines])
    assert problem is None and session.result is not None
    signed = [decode(line, verify=False) for line in witness_lines(lines, key)]
    assert sorted(message.seq for message in signed) == list(range(1, len(signed) + 1))
    named = [digest for message in signed for digest in message.value("lines").split(".")]
    assert len(named) == len(set(named))
    assert set(named) <= {message.hash for message in session.chain}  # these games hold no claim on time
    moves = {message.hash for message in session.chain if message.type is MessageType.MOVE}
    assert not every_move or moves <= set(named)  # seen live: the witness followed the game from its offer on
    assert session.witness_lies() == {}
    return session


@pytest.mark.parametrize("kind", ["oxono", "olix"])
async def test_a_witness_signs_every_line_of_a_game_that_names_it_once(any_relay, tmp_path, kind):
    keeper = TimeWitness(Identity.generate(), tmp_path / "witness", announce=lambda _: None)
    stopping = asyncio.Event()
    witnessing = asyncio.create_task(keeper.run(connect(any_relay), stopping))
    host, guest, game = await play(tmp_path, any_relay, witnesses=[keeper.key.text], kind=kind)
    await asyncio.sleep(0.5)  # the last lines' witness line
    stopping.set()
    await witnessing
    lines = await record(any_relay, game)
    session = checked(lines, game, keeper.key)
    assert session.witnesses == (keeper.key,)
    for seat in (host, guest):
        assert f"Time witnesses: {keeper.key.fingerprint}" in seat.text()
        assert "Warning" not in seat.text()
    _, text, _ = load_lines(tmp_path, lines)
    count = len(witness_lines(lines, keeper.key))
    assert f"time witness {keeper.key.fingerprint}: {count} witness line{'s' if count > 1 else ''}" in text
    assert "no seat" not in text  # a named witness is no stranger


def load_lines(tmp_path, lines: list[str]):
    path = tmp_path / "record.txt"
    path.write_text("\n".join(lines) + "\n")
    return load(str(path))


async def test_a_witness_that_restarts_goes_on_from_its_chain(any_relay, tmp_path, monkeypatch):
    """Stopped after its first lines and started again (its folder kept), it signs on from its last seq, never a second
    line for one: its chain would prove it lies."""
    identity = Identity.generate()
    host = Seat(
        tmp_path,
        "host",
        any_relay,
        bot="random",
        seed=5,
        control=TimeControl.parse("5+0"),
        witnesses=[identity.public.text],
    )
    guest = Seat(tmp_path, "guest", any_relay, bot="random", seed=6)
    first = TimeWitness(identity, tmp_path / "witness", announce=lambda _: None)
    stopping = asyncio.Event()
    witnessing = asyncio.create_task(first.run(connect(any_relay), stopping))
    hosting = asyncio.create_task(network.host("olix", host.options))
    game = await game_id_of(host)
    joining = asyncio.create_task(network.join(game, guest.options))
    async with asyncio.timeout(30):
        while game not in first.games or len(first.games[game].signed) < 3:
            await asyncio.sleep(0.05)
    stopping.set()
    await witnessing
    second = TimeWitness(identity, tmp_path / "witness", announce=lambda _: None)
    stopping = asyncio.Event()
    witnessing = asyncio.create_task(second.run(connect(any_relay), stopping))
    async with asyncio.timeout(60):
        assert await joining == 0 and await hosting == 0
    await asyncio.sleep(0.5)
    stopping.set()
    await witnessing
    lines = await record(any_relay, game)
    checked(lines, game, identity.public, every_move=False)  # the moves made while it was away it never names
    assert len(witness_lines(lines, identity.public)) > 3


async def test_a_witness_keeps_to_the_games_that_name_it_and_leaves_them_once_over(relay, tmp_path, monkeypatch):
    monkeypatch.setattr(witness_module, "FOLLOW_AFTER_END", 0.5)
    told: list[str] = []
    keeper = TimeWitness(Identity.generate(), tmp_path / "witness", announce=told.append)
    stopping = asyncio.Event()
    witnessing = asyncio.create_task(keeper.run(connect(relay), stopping))
    _, _, other = await play(tmp_path / "other", relay, witnesses=[])  # names no witness
    _, _, game = await play(tmp_path / "named", relay, witnesses=[keeper.key.text], seed=3)
    async with asyncio.timeout(10):
        while game not in keeper.done:
            await asyncio.sleep(0.05)
    assert keeper.games == {} and other not in keeper.done
    assert (tmp_path / "witness" / f"{game}.done").exists()
    assert told == [f"witnessing game {game}", f"done with game {game}"]
    stopping.set()
    await witnessing
    again = TimeWitness(keeper.identity, tmp_path / "witness", announce=told.append)
    assert game in again.done  # a restart does not follow it again
    assert witness_lines(await record(relay, other), keeper.key) == []


async def test_a_forged_offer_naming_the_witness_is_not_followed(tmp_path):
    keeper = TimeWitness(Identity.generate(), tmp_path / "witness", announce=lambda _: None)
    session, out = GameSession.offer("oxono", Identity.generate(), terms=f"rules:1,witness:{keeper.key.text}")
    forged = out.line.replace(" by=", " by=A").encode()  # a line that no longer verifies
    await keeper.found(game_id_in(session), forged)
    await keeper.found(game_id_in(session), b"junk")
    assert keeper.games == {} and keeper.waiting == {}


async def test_the_host_is_warned_when_it_names_its_own_key(relay, tmp_path):
    host = Seat(tmp_path, "host", relay, bot="random", seed=1)
    host.options.witnesses = [host.identity.public.text]
    guest = Seat(tmp_path, "guest", relay, bot="random", seed=2)
    hosting = asyncio.create_task(network.host("oxono", host.options))
    game = await game_id_of(host)
    async with asyncio.timeout(60):
        assert await network.join(game, guest.options) == 0
        assert await hosting == 0
    warning = f"Warning: the host's own key ({host.identity.fingerprint}) is a time witness of this game"
    assert warning in host.text() and warning in guest.text()


async def test_too_many_witnesses_or_a_bad_key_are_refused_before_anything_is_signed(relay, tmp_path):
    keys = [Identity.generate().public.text for _ in range(4)]
    for witnesses, why in ((keys, "1 to 3 time witnesses"), (["nokey"], "public key"), (keys[:1] * 2, "each once")):
        host = Seat(tmp_path, "host", relay, bot="random", seed=1, witnesses=witnesses)
        with pytest.raises(network.Failure, match=why):
            await network.host("oxono", host.options)
        assert not (tmp_path / "host").exists() or not any((tmp_path / "host").iterdir())


async def test_olixono_relay_witness_and_olixono_witness_as_the_readme_runs_them(tmp_path):
    """The documented commands: ``olixono relay --witness`` prints its key, ``olixono witness --relay URL`` beside it
    prints its own; a host names both, and both sign the game."""
    port = free_port()
    relay_env, _ = home(tmp_path, "relay")
    witness_env, _ = home(tmp_path, "witness")
    host_env, _ = home(tmp_path, "host")
    guest_env, _ = home(tmp_path, "guest")
    url = f"mqtt://127.0.0.1:{port}"
    relay = witness = None
    try:
        relay = await spawn(relay_env, "relay", "--port", str(port), "--witness")
        relay_seen: list[str] = []
        told = await read_until(relay, r"--witness (\S+)(.*)", relay_seen)
        relay_key = told.group(1)
        assert told.group(2).strip() == f"--relay {url}"  # the host's command reaches this relay as printed
        witness = await spawn(witness_env, "witness", "--relay", url)
        witness_seen: list[str] = []
        other_key = (await read_until(witness, r"--witness (\S+)", witness_seen)).group(1)
        assert relay_key != other_key
        host = await spawn(
            host_env,
            "host",
            "oxono",
            "--relay",
            url,
            "--clock",
            "5+3",
            "--witness",
            relay_key,
            "--witness",
            other_key,
            "--bot",
            "random",
            "--seed",
            "1",
        )
        host_seen: list[str] = []
        game = (await read_until(host, r"olixono join (\S+)", host_seen)).group(1)
        guest = await spawn(guest_env, "join", game, "--relay", url, "--bot", "random", "--seed", "2")
        guest_seen: list[str] = []
        assert await finish(guest, guest_seen) == 0
        assert await finish(host, host_seen) == 0
        await read_until(witness, f"witnessing game {game}", witness_seen)
        await read_until(relay, f"witnessing game {game}", relay_seen)
        await asyncio.sleep(0.5)
        from cli_helpers import run

        status, out, err = await run(witness_env, "export", game, "--relay", url)  # from the relay: no journal there
        assert status == 0, err
        lines = out.splitlines()
        session = checked(
            lines, game, decode(witness_lines_of_key(lines, other_key)[0], verify=False).signer, every_move=False
        )  # processes on a loaded machine: a move may come before one subscribes
        assert len(session.witnesses) == 2 and witness_lines_of_key(lines, relay_key)
        assert any("Time witnesses:" in line for line in guest_seen)
    finally:
        await stop(witness)
        await stop(relay)


def witness_lines_of_key(lines: list[str], key_text: str) -> list[str]:
    return [line for line in lines if " witness " in line[:20] and line.rstrip().split(" by=")[1].startswith(key_text)]


@pytest.mark.parametrize("kind", ["oxono", "olix"])
def test_a_claimant_waits_a_little_beyond_its_own_watch_when_witnesses_decide(kind):
    """The witnesses may have seen the turn begin a little after the claimant did: a claim they find early is void, so
    the client waits :data:`WITNESS_MARGIN_MS` more than in a game without them (and never less)."""
    from protocol_helpers import GUEST, HOST
    from test_client_clock import Clock, movers
    from test_client_clock import play as play_move
    from test_client_core import Relay as Carrier

    from client.cores.network_game import WITNESS_MARGIN_MS, GameCore

    waits: dict[bool, int] = {}
    for witnesses in ((), (Identity.generate().public,)):
        clock, carrier = Clock(), Carrier()
        host, offer = GameCore.hosting(kind, HOST, control=TimeControl.parse("1+0"), witnesses=witnesses)
        host.clock = clock
        carrier.attach(host)
        carrier.publish(offer, host)
        guest = GameCore(GameSession(host.game_id, GUEST), clock=clock)
        carrier.attach(guest)
        carrier.publish(guest.join(), guest)
        first, _ = movers(host, guest)
        play_move(carrier, first)
        assert host.session.witnesses == witnesses
        claim_in = first.claim_in_ms()
        assert claim_in is not None
        waits[bool(witnesses)] = claim_in
    assert waits[True] == waits[False] + WITNESS_MARGIN_MS


@pytest.mark.network
async def test_the_relays_own_witness_has_its_own_listener_and_account_on_a_private_tls_relay(tmp_path):
    """``olixono relay --witness --users F --tls-cert C --tls-key K``: the witness beside the relay connects on a plain
    loopback listener of its own, with an account nobody else has, and signs as the games that name it ask."""
    import ssl

    import aiomqtt
    from relay_fixtures import make_accounts, make_tls

    from relay.embedded import EmbeddedRelay, RelaySettings

    accounts = make_accounts(tmp_path / "users", 1)
    cert, key = make_tls(tmp_path)
    settings = RelaySettings(
        port=0, users_file=tmp_path / "users", tls_cert=cert, tls_key=key, data_dir=tmp_path / "data"
    )
    beside = network.relay_witness(tmp_path / "witness.key", settings)
    witness_key = network.witness_identity(tmp_path / "witness.key", {}).public
    assert settings.inner_listener and list(settings.inner_accounts) == [witness_key.text]
    stopping = asyncio.Event()
    async with EmbeddedRelay(settings) as relay:
        assert relay.inner_url.startswith("mqtt://127.0.0.1:") and relay.inner_port != relay.port
        assert relay.inner_port is not None
        witnessing = asyncio.create_task(beside(relay, stopping))
        host = accounts[0]
        session, out = GameSession.offer("oxono", host.identity, terms=f"rules:1,witness:{witness_key.text}")
        tls = ssl.create_default_context(cafile=str(cert))
        async with aiomqtt.Client(
            "127.0.0.1", port_of(relay), username=host.name, password=host.password, tls_context=tls, timeout=5
        ) as player:
            await asyncio.sleep(0.5)  # the witness is in, reading the lobby
            await player.subscribe(game_filter(game_id_in(session)), qos=1)
            await player.publish(out.topic, out.line.encode(), qos=1, retain=True)
            seen = await gather_messages(player, game_filter(game_id_in(session)), count=2, timeout=5)
        with pytest.raises(aiomqtt.MqttError):  # the witness's account is its own: no one else logs in with it
            async with aiomqtt.Client(
                "127.0.0.1", relay.inner_port, username=witness_key.text, password="guess", timeout=5
            ):
                pass
        stopping.set()
        await witnessing
    signed = [decode(line) for line in seen.values() if decode(line).type is MessageType.WITNESS]
    assert len(signed) == 1 and signed[0].signer == witness_key and signed[0].value("lines") == out.message.hash
    assert (tmp_path / "data" / "witness" / witness_key.text / f"{session.game_id}.lines").exists()  # with the data


async def test_games_past_the_most_wait_their_turn_and_get_it_when_one_ends(any_relay, tmp_path, monkeypatch):
    monkeypatch.setattr(witness_module, "FOLLOW_AFTER_END", 0.3)
    keeper = TimeWitness(Identity.generate(), tmp_path / "witness", most=1, announce=lambda _: None)
    stopping = asyncio.Event()
    witnessing = asyncio.create_task(keeper.run(connect(any_relay), stopping))
    hosts = [
        GameSession.offer("olix", Identity.generate(), terms=f"rules:1,witness:{keeper.key.text}") for _ in range(2)
    ]
    async with any_relay.client() as publisher:
        await asyncio.sleep(0.3)
        for _, out in hosts:
            await publisher.publish(out.topic, out.line.encode(), qos=1, retain=True)
        async with asyncio.timeout(10):
            while len(keeper.games) + len(keeper.waiting) < 2:
                await asyncio.sleep(0.05)
        first, second = hosts if hosts[0][0].game_id in keeper.games else hosts[::-1]
        assert list(keeper.waiting) == [second[0].game_id]
        aborted = first[0].abort()
        await publisher.publish(aborted.topic, aborted.line.encode(), qos=1, retain=True)
        async with asyncio.timeout(10):
            while second[0].game_id not in keeper.games:
                await asyncio.sleep(0.05)
    assert first[0].game_id in keeper.done and keeper.waiting == {}
    stopping.set()
    await witnessing


async def test_one_process_at_a_time_witnesses_with_a_key(relay, tmp_path, monkeypatch):
    """Two witnesses of one key and folder (``olixono witness`` beside ``olixono relay --witness``, say) would sign
    two lines for one place, which proves a witness lies: the second is refused, and says why."""
    identity = Identity.generate()
    first = TimeWitness(identity, tmp_path / "witness", announce=lambda _: None)
    stopping = asyncio.Event()
    witnessing = asyncio.create_task(first.run(connect(relay), stopping))
    await asyncio.sleep(0.3)
    with pytest.raises(witness_module.WitnessBusy, match="one at a time"):
        await TimeWitness(identity, tmp_path / "witness", announce=lambda _: None).run(connect(relay), asyncio.Event())
    stopping.set()
    await witnessing
    # olixono witness and olixono relay --witness --data keep their lines apart, and hold one lock of the key
    import os

    from relay.embedded import RelaySettings

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    key = network.witness_identity(tmp_path / "witness.key", {})
    held = witness_module.hold(witness_module.witness_lock(tmp_path / "state" / "olixono", key.public))
    try:
        with pytest.raises(network.Failure, match="--witness: another process witnesses with this key"):
            network.relay_witness(tmp_path / "witness.key", RelaySettings(data_dir=tmp_path / "data"))
    finally:
        os.close(held)


async def test_an_offer_nobody_joins_gives_its_place_up_while_others_wait(relay, tmp_path, monkeypatch):
    """Anyone can publish offers naming a witness and join none: an unseated game gives its place up while others
    wait, and is followed again once its host accepts someone."""
    monkeypatch.setattr(witness_module, "UNSEATED_FOR", 0.5)
    keeper = TimeWitness(Identity.generate(), tmp_path / "witness", most=1, announce=lambda _: None)
    stopping = asyncio.Event()
    witnessing = asyncio.create_task(keeper.run(connect(relay), stopping))
    terms = f"rules:1,witness:{keeper.key.text}"
    squat, squatting = GameSession.offer("olix", Identity.generate(), terms=terms)
    other, offered = GameSession.offer("oxono", Identity.generate(), terms=terms)
    async with relay.client() as publisher:
        await asyncio.sleep(0.3)
        await publisher.publish(squatting.topic, squatting.line.encode(), qos=1, retain=True)
        async with asyncio.timeout(10):
            while squat.game_id not in keeper.games:
                await asyncio.sleep(0.05)
        await publisher.publish(offered.topic, offered.line.encode(), qos=1, retain=True)
        async with asyncio.timeout(10):
            while other.game_id not in keeper.games:  # it waited, then took the place
                await asyncio.sleep(0.05)
        assert list(keeper.parked) == [squat.game_id]
        guest = GameSession(squat.game_id, Identity.generate())
        guest.receive(squatting.line)
        joined = guest.join()
        squat.receive(joined.line)
        accepted = squat.accept(identity_of(guest).public)
        for out in (joined, accepted):
            await publisher.publish(out.topic, out.line.encode(), qos=1, retain=True)
        async with asyncio.timeout(10):
            while squat.game_id not in keeper.waiting:  # seated: its turn again, once a place frees
                await asyncio.sleep(0.05)
    assert keeper.parked == {}
    stopping.set()
    await witnessing
