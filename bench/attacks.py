"""A private relay under two cheap attacks: prints one figure a line as ``name: value``.

    python bench/attacks.py [--relay embedded|mosquitto|both] [--trips 1000] [--quick]

For each relay, in private mode (accounts from ``relay.users``), as its own process on a free 127.0.0.1 port:

- ``rtt_quiet_*``: the QoS 1 round trip between two logged-in clients (one publishes, the other publishes it
  back), p50 and p99;
- ``rtt_logins_*``: the same while another process sends 26 refused logins a second (a real account's name,
  a wrong password), once with the accounts' hashes as ``adduser`` writes them now (``$6$``, a generated
  token) and once as they were (``$7$``, PBKDF2 at 100,000 rounds). Target: p99 within 2x of the quiet p99;
- ``burst_lost``: lines lost when a publisher sends a burst of 50 retained QoS 1 lines, has every one
  acknowledged, and disconnects at once; 200 bursts (10,000 lines), then a late subscriber counts what the relay
  retained. Target: 0.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiomqtt  # noqa: E402

from harness import options  # noqa: E402
from harness.figures import median, percentile, print_figures  # noqa: E402
from harness.mqtt import bare_client  # noqa: E402
from harness.relays import RelayProcess  # noqa: E402
from protocol import Identity  # noqa: E402
from protocol.keys import b64  # noqa: E402
from protocol.messages import encode  # noqa: E402
from relay import users  # noqa: E402

GAME = "BENCHATTACKBENCHATTACA"  # a well-formed game id: the embedded relay keeps only signed lines of a game
LOGINS_PER_SECOND = 26


def private_relay(kind: str, workdir: Path, table: dict[str, users.PasswordHash]) -> RelayProcess:
    """A private relay with the accounts of ``table``. The embedded relay's publish budget is lifted: the burst run
    publishes 10,000 lines under one account."""
    workdir.mkdir(parents=True, exist_ok=True)
    users.save(workdir / "users", table)
    extra = ("--max-publish-rate", "0") if kind == "embedded" else ()
    return RelayProcess(kind, workdir, users_file=workdir / "users", extra=extra)


def client(port: int, name: str, password: str) -> aiomqtt.Client:
    made = bare_client(port, username=name, password=password, timeout=10)
    made.pending_calls_threshold = 100  # a burst of 50 publishes is the point, not a warning
    return made


# -- the attacker: refused logins, in a process of its own ------------------------------------------------
async def refused_logins(port: int, name: str, stop: Any) -> None:
    while not stop.is_set():
        started = time.monotonic()
        try:
            async with client(port, name, "not the password"):
                pass
        except aiomqtt.MqttError:
            pass
        await asyncio.sleep(max(0.0, 1 / LOGINS_PER_SECOND - (time.monotonic() - started)))


def attacker(port: int, name: str, stop: Any) -> None:
    asyncio.run(refused_logins(port, name, stop))


def line(identity: Identity, seq: int) -> bytes:
    """A signed line of ``identity`` for main-chain ``seq`` of the game (a resignation; relays never follow chains)."""
    return encode("resign", [("game", GAME), ("seq", str(seq)), ("prev", b64(bytes(32)))], identity).encode()


# -- the round trip ------------------------------------------------------------------------------------------
async def round_trips(
    port: int, a: tuple[str, str], b: tuple[str, str], count: int, keys: tuple[Identity, Identity]
) -> list[float]:
    """QoS 1 round trips of a signed line, not retained (each side's line on its own topic, as a move travels)."""
    ping, pong = f"olixono/1/games/{GAME}/{a[0]}/1", f"olixono/1/games/{GAME}/{b[0]}/1"
    ping_line, pong_line = line(keys[0], 1), line(keys[1], 1)
    trips: list[float] = []
    async with client(port, *a) as first, client(port, *b) as second:
        await first.subscribe(pong, qos=1)
        await second.subscribe(ping, qos=1)

        total = count + 20

        async def echo() -> None:  # ends by itself: cancelling a task inside aiomqtt's publish may be ignored
            answered = 0
            async for _message in second.messages:
                await second.publish(pong, pong_line, qos=1)
                answered += 1
                if answered == total:
                    return

        echoing = asyncio.create_task(echo())
        back = first.messages
        for _ in range(total):
            start = time.perf_counter()
            await first.publish(ping, ping_line, qos=1)
            async with asyncio.timeout(10):
                await back.__anext__()
            trips.append(time.perf_counter() - start)
        async with asyncio.timeout(10):
            await echoing
    return trips[20:]


def under_logins(
    port: int, a: tuple[str, str], b: tuple[str, str], count: int, keys: tuple[Identity, Identity]
) -> list[float]:
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    process = context.Process(target=attacker, args=(port, b[0], stop))
    process.start()
    try:
        time.sleep(1.0)  # the attack is under way
        return asyncio.run(round_trips(port, a, b, count, keys))
    finally:
        stop.set()
        process.join(10)
        if process.is_alive():
            process.kill()


# -- burst and disconnect ---------------------------------------------------------------------------------------
async def bursts(port: int, account: tuple[str, str], key: Identity, count: int, size: int) -> int:
    """Lines lost of ``count`` bursts of ``size`` acknowledged lines, each followed by a disconnect."""
    expected: set[str] = set()
    for burst in range(count):
        lines = {
            f"olixono/1/games/{GAME}/{account[0]}/{seq}": line(key, seq)
            for seq in range(burst * size + 2, (burst + 1) * size + 2)
        }
        async with client(port, *account) as publisher:
            await asyncio.gather(*(publisher.publish(topic, data, qos=1, retain=True) for topic, data in lines.items()))
        expected.update(lines)
    await asyncio.sleep(1.0)
    seen: set[str] = set()
    async with client(port, *account) as late:
        await late.subscribe(f"olixono/1/games/{GAME}/{account[0]}/#", qos=1)
        try:
            async with asyncio.timeout(10):
                async for message in late.messages:
                    seen.add(message.topic.value)
                    if expected <= seen:
                        break
        except TimeoutError:
            pass
    return len(expected - seen)


def measure(kind: str, folder: Path, trips: int, bursts_count: int) -> dict[str, float]:
    identities = [Identity.generate() for _ in range(2)]
    tokens = [users.make_token() for _ in identities]
    accounts = [(identity.public.text, token) for identity, token in zip(identities, tokens, strict=True)]
    figures: dict[str, float] = {}
    for scheme, hashing in (
        ("token", lambda token: users.PasswordHash.for_token(token)),
        ("pbkdf2", lambda token: users.PasswordHash.make(token, users.ITERATIONS)),
    ):
        table = {name: hashing(token) for name, token in accounts}
        with private_relay(kind, folder / f"{kind}-{scheme}", table) as relay:
            if scheme == "token":
                keys = (identities[0], identities[1])
                quiet = asyncio.run(round_trips(relay.port, accounts[0], accounts[1], trips, keys))
                figures["rtt_quiet_p50_ms"] = median(quiet) * 1000
                figures["rtt_quiet_p99_ms"] = percentile(quiet, 0.99) * 1000
                figures["burst_lost"] = asyncio.run(bursts(relay.port, accounts[0], identities[0], bursts_count, 50))
                figures["burst_lines"] = bursts_count * 50
            attacked = under_logins(relay.port, accounts[0], accounts[1], trips, (identities[0], identities[1]))
            figures[f"rtt_logins_{scheme}_p50_ms"] = median(attacked) * 1000
            figures[f"rtt_logins_{scheme}_p99_ms"] = percentile(attacked, 0.99) * 1000
    return figures


def main() -> None:
    parser = options.parser(__doc__)
    options.add_relay(parser, options.BOTH, both=True)
    parser.add_argument("--trips", type=int, default=1000, help="round trips measured per figure (default 1000)")
    options.add_quick(parser, "200 round trips, 20 bursts")
    args = parser.parse_args()
    trips = 200 if args.quick else args.trips
    bursts_count = 20 if args.quick else 200
    with tempfile.TemporaryDirectory() as temporary:
        for kind in options.relays(args.relay):
            print_figures(measure(kind, Path(temporary), trips, bursts_count).items(), digits=3, prefix=f"{kind}_")


if __name__ == "__main__":
    main()
