"""More than one machine: two Mosquitto relays bridged by the generated configuration.

A full signed game with one player on each relay, checked by a spectator on each.
"""

from __future__ import annotations

import pytest
from protocol_helpers import game_id_in
from relay_fixtures import Relay, gather_messages, make_accounts, needs_mosquitto, play_game

from protocol import GameSession
from protocol.topics import GAMES, game_filter

pytestmark = [needs_mosquitto, pytest.mark.network]


async def _wait_for_bridge(a: Relay, b: Relay, account) -> None:
    """Publish probes on b until one arrives on a (bounded: 10 s)."""
    probe_filter = f"{GAMES}/bridge-probe-game/#"
    async with a.client(account) as on_a, b.client(account) as on_b:
        await on_a.subscribe(probe_filter, qos=1)
        for attempt in range(20):
            await on_b.publish(f"{GAMES}/bridge-probe-game/{account.name}/{attempt}", b"probe", qos=1, retain=False)
            if await gather_messages(on_a, probe_filter, count=1, timeout=0.5):
                return
    raise AssertionError(f"the bridge did not connect: {b.log()[-1500:]}")


async def test_a_game_across_two_bridged_relays(tmp_path):
    users_file = tmp_path / "users"
    alice, bob, carol = make_accounts(users_file, 3, bridges=("bridge.second",))
    first = Relay("mosquitto", tmp_path / "first", users_file=users_file, persist=True)
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    await first.start()
    second = Relay(
        "mosquitto",
        tmp_path / "second",
        users_file=users_file,
        persist=True,
        bridge_to=("127.0.0.1", first.port),
        bridge_user="bridge.second",
    )
    try:
        await second.start()
        assert second.conf is not None
        conf = second.conf.read_text()
        assert f"address 127.0.0.1:{first.port}" in conf and f"topic {GAMES}/# both 1" in conf
        await _wait_for_bridge(first, second, carol)
        async with first.client(alice) as a, second.client(bob) as b:
            final = await play_game(a, b, alice.identity, bob.identity, seed=11)
        for relay in (first, second):
            async with relay.client(carol) as spectator:
                await spectator.subscribe(game_filter(game_id_in(final)), qos=1)
                seen = await gather_messages(
                    spectator, game_filter(game_id_in(final)), count=2 * len(final.transcript), timeout=5
                )
            watcher = GameSession(final.game_id)
            watcher.receive_all(seen.values())
            assert watcher.transcript == final.transcript, relay.kind
            assert watcher.result == final.result
    finally:
        await second.stop()
        await first.stop()
