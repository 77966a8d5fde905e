"""Protocol speed: prints one figure a line as ``name: value``.

    python bench/protocol.py [--quick]

Plays seeded random games (Oxono and Olix alternately; an Olix game is a long
transcript of about 104 lines) between two keys through ``GameSession`` and
measures: signing (``sign_lines_per_s``: building, checking and signing the
local player's move lines), verifying and applying a whole transcript from
scratch (``verify_apply_lines_per_s``), the bare Ed25519 verify rate over the
same lines in the same run (``bare_verify_per_s``), and their ratio
(``check_cost_vs_bare_verify``; target at most 1.25). Then the memory one game
holds in a receiver (tracemalloc, after a garbage collection): a finished Olix
game, and the same game with strangers flooding it (``memory_*_kib``).
"""

from __future__ import annotations

import gc
import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from harness import options
from harness.figures import print_figures
from protocol import GameSession, Identity, PublicKey, ResyncNeeded, messages
from protocol.keys import b64, unb64
from protocol.messages import decode, encode
from protocol.rules import MAX_CHAT_LINES
from protocol.transcript import verify_transcript


def play(kind: str, seed: int) -> tuple[list[str], float, int]:
    """A full random game; returns its transcript, the time spent signing moves, and their number."""
    host, guest = Identity.from_seed(bytes([seed % 256]) * 32), Identity.from_seed(bytes([(seed + 1) % 256]) * 32)
    h, offer = GameSession.offer(kind, host)
    g = GameSession(h.game_id, guest)
    g.receive(offer.line)
    h.receive(g.join().line)
    g.receive(h.accept(guest.public).line)
    h.receive(g.reveal().line)
    rng = random.Random(seed)
    by_key: dict[PublicKey | None, tuple[GameSession, GameSession]] = {host.public: (h, g), guest.public: (g, h)}
    signing, signed = 0.0, 0
    for _ in range(500):
        if h.over:
            break
        mine, theirs = by_key[h.actor]
        assert mine.board is not None
        move = rng.choice(mine.board.legal_moves()).text()
        start = time.perf_counter()
        line = mine.move(move).line
        signing += time.perf_counter() - start
        signed += 1
        theirs.receive(line)
    return list(h.transcript), signing, signed


def held_kib(lines: list[str]) -> tuple[float, float]:
    """(KiB a fresh spectator session holds after receiving ``lines``, peak KiB while it did)."""
    gc.collect()
    tracemalloc.start()
    session = GameSession()
    for _ in range(4):  # a client subscribes again when asked (ResyncNeeded): the relay resends every line
        asked = False
        for line in lines:  # events are handled as they come, as a client does, not kept
            asked |= any(isinstance(event, ResyncNeeded) for event in session.receive(line))
        if not asked:
            break
    assert session.result is not None, "the flooded game did not finish"
    _, peak = tracemalloc.get_traced_memory()
    messages._keys.clear()  # the process-wide cache of decoded keys (at most 20,000) is not the game's
    gc.collect()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del session
    return held / 1024, peak / 1024


def flood(transcript: list[str], joins: int, equivocations: int, junk: int, chats: int) -> list[str]:
    """A finished game's lines, with strangers' joins, one stranger key's equivocations, junk from throwaway
    keys before the offer, and a player's chat past the cap."""
    rng = random.Random(1)
    offer = decode(transcript[0])
    game, offer_hash = offer.game, offer.hash
    keys = [Identity.from_seed(rng.randbytes(32)) for _ in range(max(joins, junk))]
    lines: list[str] = [
        encode("resign", [("game", game), ("seq", str(rng.randrange(4, 999))), ("prev", b64(rng.randbytes(32)))], key)
        for key in keys[:junk]
    ]
    lines.append(transcript[0])  # the offer, then the joins while the host has not chosen, then the game
    lines += [
        encode(
            "join",
            [
                ("game", game),
                ("seq", "1"),
                ("prev", offer_hash),
                ("terms", offer.value("terms")),
                ("commit", b64(rng.randbytes(32))),
            ],
            key,
        )
        for key in keys[:joins]
    ]
    lines += transcript[1:]
    liar = keys[0]
    lines += [
        encode("chat", [("game", game), ("seq", "1"), ("prev", offer_hash), ("text", f"x{n}")], liar)
        for n in range(equivocations)
    ]
    host = Identity.from_seed(bytes([0]) * 32)  # play() seeds the host of game 0 so
    prev = offer_hash
    for n in range(1, chats + 1):
        line = encode("chat", [("game", game), ("seq", str(n)), ("prev", prev), ("text", f"chat-{n}")], host)
        prev = decode(line).hash
        lines.append(line)
    return lines


def main() -> None:
    parser = options.parser(__doc__)
    options.add_quick(parser, "a run of a few seconds")
    args = parser.parse_args()
    games = 10 if args.quick else 40
    transcripts, signing, signed = [], 0.0, 0
    for seed in range(games):
        transcript, spent, count = play("olix" if seed % 2 else "oxono", seed)
        transcripts.append(transcript)
        signing += spent
        signed += count
    lines = [line for transcript in transcripts for line in transcript]
    pairs = []
    for line in lines:
        message = decode(line)
        unsigned, _, sig = line.rpartition(" sig=")
        pairs.append((Ed25519PublicKey.from_public_bytes(message.signer.raw), unb64(sig, 64), unsigned.encode("utf-8")))
    rounds = 3 if args.quick else 10
    best_full = best_bare = float("inf")
    for _ in range(rounds):  # interleaved, so both see the same machine
        start = time.perf_counter()
        for transcript in transcripts:
            _, bad, _ = verify_transcript(transcript)
            assert bad is None
        best_full = min(best_full, time.perf_counter() - start)
        start = time.perf_counter()
        for key, signature, data in pairs:
            key.verify(signature, data)  # raises if it does not verify
        best_bare = min(best_bare, time.perf_counter() - start)
    print_figures(
        [
            ("lines", len(lines)),
            ("sign_lines_per_s", signed / signing, 0),
            ("verify_apply_lines_per_s", len(lines) / best_full, 0),
            ("bare_verify_per_s", len(lines) / best_bare, 0),
            ("verify_apply_us_per_line", best_full / len(lines) * 1e6, 1),
            ("bare_verify_us", best_bare / len(lines) * 1e6, 1),
            ("check_cost_vs_bare_verify", best_full / best_bare, 3),
        ]
    )

    olix = next(t for t in transcripts if len(t) > 60)
    oxono_game = transcripts[0]
    held, _ = held_kib(olix)
    print_figures([("memory_finished_olix_game_kib", f"{held:.0f}  ({len(olix)} lines)")])
    scale = 1 if args.quick else 10
    lines = flood(
        oxono_game,
        joins=1_000 * scale,
        equivocations=2_000 * scale,
        junk=500 * scale,
        chats=MAX_CHAT_LINES + 100 * scale,
    )
    held, peak = held_kib(lines)
    flooded = (
        f"{held:.0f}  (peak {peak:.0f}; {len(lines)} lines: {1_000 * scale} joins, "
        f"{2_000 * scale} equivocations by one stranger, {500 * scale} junk lines before the offer, "
        f"{MAX_CHAT_LINES + 100 * scale} chat lines by one player)"
    )
    print_figures([("memory_flooded_game_kib", flooded)])
    held, peak = held_kib(oxono_game)
    print_figures([("memory_finished_oxono_game_kib", f"{held:.0f}  ({len(oxono_game)} lines)")])


if __name__ == "__main__":
    main()
