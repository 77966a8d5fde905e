"""Protocol speed: prints one figure a line as ``name: value``.

    python bench/protocol.py [--quick]

Plays seeded random games (Oxono and Olix alternately; an Olix game is a long
transcript of about 104 lines) between two keys through ``GameSession`` and
measures: signing (``sign_lines_per_s``: building, checking and signing the
local player's move lines), verifying and applying a whole transcript from
scratch (``verify_apply_lines_per_s``), the bare Ed25519 verify rate over the
same lines in the same run (``bare_verify_per_s``), and their ratio
(``check_cost_vs_bare_verify``; target at most 1.25).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: E402

from protocol import GameSession, Identity  # noqa: E402
from protocol.keys import unb64  # noqa: E402
from protocol.messages import decode  # noqa: E402
from protocol.session import verify_transcript  # noqa: E402


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
    by_key = {host.public: (h, g), guest.public: (g, h)}
    signing, signed = 0.0, 0
    for _ in range(500):
        if h.over:
            break
        mine, theirs = by_key[h.actor]
        move = rng.choice(mine.board.legal_moves()).text()
        start = time.perf_counter()
        line = mine.move(move).line
        signing += time.perf_counter() - start
        signed += 1
        theirs.receive(line)
    return list(h.transcript), signing, signed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a run of a few seconds")
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
        for key, sig, data in pairs:
            key.verify(sig, data)  # raises if it does not verify
        best_bare = min(best_bare, time.perf_counter() - start)
    print(f"lines: {len(lines)}")
    print(f"sign_lines_per_s: {signed / signing:.0f}")
    print(f"verify_apply_lines_per_s: {len(lines) / best_full:.0f}")
    print(f"bare_verify_per_s: {len(lines) / best_bare:.0f}")
    print(f"verify_apply_us_per_line: {best_full / len(lines) * 1e6:.1f}")
    print(f"bare_verify_us: {best_bare / len(lines) * 1e6:.1f}")
    print(f"check_cost_vs_bare_verify: {best_full / best_bare:.3f}")


if __name__ == "__main__":
    main()
