"""A fuzzer over everything that takes outside input: a line, the session, a transcript file, a journal, a relay
URL, a typed command.

    python -m harness.fuzz line --runs 1000000              # coverage-guided with atheris when it is installed
    python -m harness.fuzz session --runs 1000000 --random  # seeded random mutation, no atheris needed
    python -m harness.fuzz all --runs 2000 --random         # every target, briefly (what CI runs)

Each target checks its invariants on every input and raises :class:`Broken` (with the input) when one fails:

- no exception but the documented ones (``RemoteProtocolError`` from ``decode``, ``ValueError`` from a relay URL,
  ``JournalError`` from a journal; nothing at all from ``GameSession.receive``, ``verify_transcript`` or a typed
  command);
- a line that decodes is canonical (its text is the input) and a URL that parses prints one that parses alike;
- **no state change from a refused line**: a line the session refuses leaves its chain, transcript, phase and
  result as they were;
- **memory bounded**: what the session keeps waiting stays under the protocol's limits, however many lines of
  strangers it has been fed (``protocol.waiting``), and the process's peak memory is printed at the end.

The session target builds validly signed lines (by the game's players and by strangers, any type, any slot, real
and made-up hashes) as well as mutations of real lines, so that it reaches the session's rules and not only the
signature check. Random mode is seeded (``--seed``): a failure replays.
"""

from __future__ import annotations

import random
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from harness import options
from protocol import GameSession, Identity, LineRejected, RemoteProtocolError, decode, verify_transcript
from protocol.messages import SCHEMAS, encode, encode_text, line_hash
from protocol.waiting import MAX_PER_KEY, MAX_UNSEATED

T = TypeVar("T")
HOST = Identity.from_seed(bytes(range(32)))
GUEST = Identity.from_seed(bytes(range(1, 33)))
STRANGERS = [Identity.from_seed(bytes([n]) * 32) for n in range(100, 104)]
RESET_EVERY = 2000
"""Inputs fed to one session before a fresh one (from the same game) takes its place."""


class Broken(AssertionError):
    """An invariant failed on an input (kept in ``data``)."""

    def __init__(self, target: str, data: bytes, why: str) -> None:
        super().__init__(f"{target}: {why}; input {data[:300]!r}")
        self.data = data


class Source:
    """Choices drawn from the input's bytes (atheris's FuzzedDataProvider, in small): the same bytes, the same
    choices; zeros once they run out."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def byte(self) -> int:
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1]

    def number(self, most: int) -> int:
        """A number from 0 to ``most``."""
        value = self.byte() | self.byte() << 8
        return value % (most + 1)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.number(len(items) - 1)]

    def rest(self, most: int = 300) -> bytes:
        taken = self.data[self.at : self.at + most]
        self.at += len(taken)
        return taken


# -- a game to feed -----------------------------------------------------------------------------------
def seeded_game(kind: str, seed: int, plies: int, terms: str = "rules:1") -> tuple[list[str], GameSession]:
    """A game between HOST and GUEST, ``plies`` random moves in (the lines, and the host's session); timed (``terms``
    naming a clock), every turn line receipted and, at the end, a flag claim against the player to move."""
    rng = random.Random(seed)
    host, out = GameSession.offer(kind, HOST, nonce="bm9uY2Utbm9uY2Utbm9uYw", at=1_790_000_000, terms=terms)
    guest = GameSession(host.game_id, GUEST)
    lines = [out.line]
    guest.receive(out.line)

    def both(line: str) -> None:
        lines.append(line)
        host.receive(line)
        guest.receive(line)

    both(guest.join("c2VjcmV0LXNlY3JldC1zZQ").line)
    both(host.accept(GUEST.public, "c2FsdC1zYWx0LXNhbHQtcw").line)
    timed = host.clock is not None
    now = 1_000

    def receipts(seq: int, *sessions: GameSession) -> None:
        for session in sessions:
            out = session.receipt(seq, now, max(0, now - 500), max(0, now - 400))
            if out is not None:
                both(out.line)

    reveal = guest.reveal()
    both(reveal.line)
    if timed:
        receipts(reveal.message.seq, host)
    for _ in range(plies):
        if host.over:
            break
        mine = host if host.actor == HOST.public else guest
        board = mine.board
        assert board is not None, "a game being played has a board"
        now += rng.randint(100, 3000)
        move = mine.move(rng.choice(board.legal_moves()).text(), think_ms=rng.randint(0, 2000) if timed else None)
        both(move.line)
        if timed:
            receipts(move.message.seq, guest if mine is host else host)
    if timed and not host.over:  # the player not to move claims the other's time: the fuzzer meets open claims
        waiter = guest if host.actor == HOST.public else host
        both(waiter.flag(0, 100_000_000).line)
    return lines, host


class SessionTarget:
    """Lines into a mid-game session (the host's view), each judged against the invariants."""

    def __init__(self) -> None:
        self.games = [
            seeded_game(kind, seed, plies) for kind, seed, plies in (("oxono", 1, 6), ("olix", 2, 10), ("oxono", 3, 0))
        ]
        self.games.append(seeded_game("olix", 4, 8, terms="clock:60+2,rules:1"))
        self.fed = 0
        self.session: GameSession | None = None
        self.lines: list[str] = []

    def fresh(self, number: int) -> None:
        lines, _ = self.games[number % len(self.games)]
        self.lines = lines
        self.session = GameSession.restore(lines, HOST)

    def line_from(self, source: Source) -> bytes:
        """A mutated real line, or a validly signed made-up one."""
        assert self.session is not None
        how = source.number(3)
        if how == 0:  # a real line, with a few bytes changed
            data = bytearray(str(source.choice(self.lines)).encode())
            for _ in range(1 + source.number(3)):
                if data:
                    data[source.number(len(data) - 1)] = source.byte()
            return bytes(data)
        kind = str(source.choice(list(SCHEMAS)))
        signer = source.choice([HOST, GUEST, *STRANGERS]) if how != 3 else source.choice(STRANGERS)
        assert isinstance(signer, Identity)
        hashes = [line_hash(line) for line in self.lines] + ["A" * 43, line_hash(source.rest(8).decode("latin-1"))]
        values = {
            "game": (self.session.game_id or "") if source.byte() % 8 else "AAAAAAAAAAAAAAAAAAAAAA",
            "seq": str(source.number(40) if source.byte() % 4 else source.number(600)),
            "prev": source.choice(hashes),
            "kind": source.choice(["oxono", "olix"]),
            "nonce": "bm9uY2Utbm9uY2Utbm9uYw",
            "terms": source.choice(["rules:1", "rules:2", "clock:60+2,rules:1", "days:3,rules:1", "clock:0+1,rules:1"]),
            "think": str(source.number(70_000)),
            "left": str(source.number(70_000)),
            "recv": str(source.number(9_000_000)),
            "ack": str(source.number(9_000_000)),
            "sent": str(source.number(9_000_000)),
            "flagged": str(source.number(9_000_000)),
            "now": str(source.number(9_000_000)),
            "time": str(source.number(9_000_000)),
            "lines": ".".join(sorted({source.choice(hashes) for _ in range(1 + source.number(3))})),
            "at": "1790000000",
            "commit": source.choice(hashes),
            "guest": source.choice([GUEST, *STRANGERS]).public.text,
            "invite": source.choice([GUEST, *STRANGERS]).public.text,
            "salt": "c2FsdC1zYWx0LXNhbHQtcw",
            "secret": "c2VjcmV0LXNlY3JldC1zZQ",
            "move": source.choice(["Xa1b1", "Od2e2", "a1", "k10", "f6", "Xc3b3", "zz"]),
            "text": encode_text(source.rest(20).decode("utf-8", "replace")) or "hi",
            "state": source.choice(["here", "gone"]),
            "final": source.choice(hashes),
            "result": source.choice(["1-0", "0-1", "draw", "x"]),
            "plies": str(source.number(3)),
            "consent": source.choice([line[-86:] for line in self.lines] + ["A" * 86]),
            # a rematch line's next game (none drawn: the draws above stay as they were)
            "next": "bmV4dC1nYW1lLW5leHQtZw",
        }
        fields = [
            (name.rstrip("?"), values[name.rstrip("?")])
            for name in SCHEMAS[kind]
            if not name.endswith("?") or source.byte() % 2
        ]
        try:
            return encode(kind, fields, signer).encode()
        except Exception:  # a field the encoder refuses (LocalProtocolError, or a value it cannot hold)
            return source.rest()

    def __call__(self, data: bytes) -> None:
        if self.session is None or self.fed % RESET_EVERY == 0:
            self.fresh(self.fed // RESET_EVERY)
        self.fed += 1
        session = self.session
        assert session is not None
        source = Source(data)
        for _ in range(1 + source.number(2)):
            line = self.line_from(source)
            before = (len(session.chain), session.transcript, session.phase, session.result)
            try:
                events = session.receive(line)
            except Exception as exc:  # receive never raises: every refusal is an event
                raise Broken("session", line, f"receive raised {type(exc).__name__}: {exc}") from exc
            if events and all(isinstance(event, LineRejected) for event in events):
                after = (len(session.chain), session.transcript, session.phase, session.result)
                if after != before:
                    raise Broken("session", line, "a refused line changed the game")
            if len(session.waiting) > 2 * MAX_PER_KEY + MAX_UNSEATED:
                raise Broken("session", line, f"{len(session.waiting)} lines wait: more than the limits allow")


# -- the other targets ---------------------------------------------------------------------------------
def line_target(data: bytes) -> None:
    try:
        message = decode(data)
    except RemoteProtocolError:
        return
    except Exception as exc:
        raise Broken("line", data, f"decode raised {type(exc).__name__}: {exc}") from exc
    if message.line.encode("utf-8") != data:
        raise Broken("line", data, "a line that decodes is not the canonical text")


def transcript_target(data: bytes) -> None:
    from client.flows.verify import split_lines

    try:
        _session, number, problem = verify_transcript(split_lines(data[:20_000]))
    except Exception as exc:
        raise Broken("transcript", data, f"verify_transcript raised {type(exc).__name__}: {exc}") from exc
    if (problem is None) != (number is None):
        raise Broken("transcript", data, "a problem without its line number, or the other way round")


class JournalTarget:
    """A journal's lines file as found on disk (damaged, cut short, another game's), reopened and restored."""

    def __init__(self) -> None:
        from client.shell.journal import Journal, JournalMeta

        self.folder = Path(tempfile.mkdtemp(prefix="olixono-fuzz-"))
        lines, session = seeded_game("oxono", 5, 4)
        self.lines = lines
        self.journal = Journal.create(
            JournalMeta(session.game_id or "", "oxono", "host", HOST.public.text, "mqtt://127.0.0.1:1883"), self.folder
        )

    def __call__(self, data: bytes) -> None:
        from client.shell.journal import Journal, JournalError

        source = Source(data)
        kept = [line for line in self.lines if source.byte() % 4]
        text = "\n".join(kept).encode() + b"\n" + source.rest(2000)
        self.journal.lines_path.write_bytes(text)
        try:
            Journal.open(self.journal.meta.game, self.folder).restore(HOST)
        except JournalError:
            return
        except Exception as exc:
            raise Broken("journal", text, f"restore raised {type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def url_target(data: bytes) -> None:
    from client.shell.transport import RelayAddress

    text = data.decode("utf-8", "replace")
    try:
        address = RelayAddress.parse(text)
    except ValueError:
        return
    except Exception as exc:
        raise Broken("url", data, f"RelayAddress.parse raised {type(exc).__name__}: {exc}") from exc
    if RelayAddress.parse(address.url) != address:
        raise Broken("url", data, f"{address.url} does not parse back to the same address")


class CommandTarget:
    """A typed line, for a player and a watcher of a game under way."""

    def __init__(self) -> None:
        from client.cores.network_game import GameCore

        lines, _ = seeded_game("olix", 7, 4)
        self.cores = [GameCore(GameSession.restore(lines, HOST)), GameCore(GameSession.restore(lines), watching=True)]

    def __call__(self, data: bytes) -> None:
        from client.words.commands import parse

        text = data.decode("utf-8", "replace")
        for core in self.cores:
            try:
                typed = parse(text, core)
            except Exception as exc:
                raise Broken("command", data, f"parse raised {type(exc).__name__}: {exc}") from exc
            if typed.intent is not None and typed.intent.kind == "move":
                assert core.board is not None
                core.board.parse_move(typed.intent.text)  # a move only if it parses


# -- seeds and running -------------------------------------------------------------------------------
def seeds() -> list[bytes]:
    """Real inputs to start from: the protocol's vector transcripts and their lines, URLs, commands."""
    root = Path(__file__).resolve().parents[1] / "protocol" / "vectors"
    out: list[bytes] = []
    for path in sorted(root.glob("*.txt")):
        data = path.read_bytes()
        out.append(data)
        out.extend(data.split(b"\n")[:6])
    out += [
        b"mqtt://127.0.0.1:1883",
        b"mqtts://user@relay.example:8883",
        b"mqtt://[::1]:1",
        b"say hello",
        b"/resign",
        b"k10",
        b"legal",
        b"draw",
        b"end",
    ]
    return [seed for seed in out if seed]


def mutate(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    """One random mutation: flip, insert, delete, splice, repeat, or cut."""
    buffer = bytearray(data)
    for _ in range(1 + rng.randrange(4)):
        how = rng.randrange(7)
        at = rng.randrange(len(buffer) + 1)
        if how == 0 and buffer:
            buffer[min(at, len(buffer) - 1)] = rng.randrange(256)
        elif how == 1:
            buffer[at:at] = bytes([rng.choice(b" =\n\r\x00\xff%/-_:@[]") if rng.random() < 0.5 else rng.randrange(256)])
        elif how == 2 and buffer:
            del buffer[at : at + rng.randrange(1, 8)]
        elif how == 3:
            other = rng.choice(pool)
            start = rng.randrange(len(other) + 1)
            buffer[at:at] = other[start : start + rng.randrange(1, 40)]
        elif how == 4 and buffer:
            piece = buffer[at : at + rng.randrange(1, 16)]
            buffer[at:at] = piece * rng.randrange(1, 20)
        elif how == 5:
            del buffer[at:]
        else:
            buffer[at:at] = rng.randbytes(rng.randrange(1, 8))
    return bytes(buffer[:4096])


def target_of(name: str) -> Callable[[bytes], None]:
    targets: dict[str, Callable[[], Callable[[bytes], None]]] = {
        "line": lambda: line_target,
        "session": SessionTarget,
        "transcript": lambda: transcript_target,
        "journal": JournalTarget,
        "url": lambda: url_target,
        "command": CommandTarget,
    }
    return targets[name]()


TARGETS = ("line", "session", "transcript", "journal", "url", "command")


def run_random(name: str, runs: int, seed: int) -> dict[str, float]:
    """``runs`` seeded random inputs into one target; raises :class:`Broken` on the first failure."""
    target = target_of(name)
    rng = random.Random(f"{name}/{seed}")
    pool = seeds()
    corpus = list(pool)
    started = time.perf_counter()
    try:
        for _ in range(runs):
            data = mutate(rng.choice(corpus), rng, pool) if rng.random() < 0.9 else rng.randbytes(rng.randrange(64))
            target(data)
            if len(corpus) < 5000 and rng.random() < 0.01:
                corpus.append(data)
    finally:
        close = getattr(target, "close", None)
        if close is not None:
            close()
    elapsed = time.perf_counter() - started
    return {
        "runs": runs,
        "seconds": elapsed,
        "per_second": runs / elapsed if elapsed else 0.0,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_atheris(name: str, runs: int) -> None:
    """Coverage-guided (libFuzzer's engine, through atheris): runs the target ``runs`` times, then exits."""
    import atheris

    target = target_of(name)
    corpus = Path(tempfile.mkdtemp(prefix=f"olixono-fuzz-{name}-"))
    for number, seed in enumerate(seeds()):
        (corpus / f"seed-{number}").write_bytes(seed)
    atheris.instrument_all()
    atheris.Setup([sys.argv[0], f"-runs={runs}", "-max_len=4096", str(corpus)], target)
    atheris.Fuzz()


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("target", choices=[*TARGETS, "all"])
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--random", action="store_true", help="seeded random mutation, even where atheris is installed")
    args = parser.parse_args()
    names = TARGETS if args.target == "all" else (args.target,)
    try:
        import atheris  # noqa: F401

        guided = not args.random and len(names) == 1
    except ImportError:
        guided = False
    if guided:
        run_atheris(names[0], args.runs)
        return 0
    for name in names:
        figures = run_random(name, args.runs, args.seed)
        print(
            f"fuzz_{name}: {figures['runs']:.0f} inputs in {figures['seconds']:.1f} s "
            f"({figures['per_second']:.0f}/s), peak RSS {figures['peak_rss_mib']:.0f} MiB, no invariant broken",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
