"""Builds the protocol test vectors in ``protocol/vectors/`` (see its README).

Everything is deterministic: keys from fixed seeds, fixed nonce, secret and
salt, moves drawn by a seeded RNG from the sorted legal moves, and Ed25519
signatures, which are deterministic. ``tests/test_vectors.py`` checks the
files against a fresh build; ``OLIXONO_REGENERATE_GOLDEN=1`` rewrites them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from protocol import GameSession, Identity
from protocol.keys import b64
from protocol.messages import MAX_LINE_BYTES, encode

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
SEEDS = {"host": bytes([0x11]) * 32, "guest": bytes([0x22]) * 32, "stranger": bytes([0x33]) * 32}
KEYS = {name: Identity.from_seed(seed) for name, seed in SEEDS.items()}
NONCE, SECRET, SALT = "AAECAwQFBgcICQoLDA0ODw", "EBESExQVFhcYGRobHB0eHw", "ICEiIyQlJicoKSorLC0uLw"
GAME_SEEDS = {"oxono": 7, "olix": 3}


def _start(kind: str) -> tuple[GameSession, GameSession]:
    host = GameSession.offer(kind, KEYS["host"], nonce=NONCE)
    guest = GameSession(host.game_id, KEYS["guest"])
    guest.receive(host.transcript[0])
    host.receive(guest.join(SECRET))
    guest.receive(host.accept(KEYS["guest"].public.text, SALT))
    host.receive(guest.reveal())
    return host, guest


def _sides(host: GameSession, guest: GameSession):
    return {KEYS["host"].public.raw: (host, guest), KEYS["guest"].public.raw: (guest, host)}


def _play(host: GameSession, guest: GameSession, rng: random.Random, plies: int) -> None:
    sides = _sides(host, guest)
    for _ in range(plies):
        if host.outcome is not None:
            return
        mine, theirs = sides[host.actor()]
        theirs.receive(mine.move(rng.choice(sorted(m.text() for m in mine.board.legal_moves()))))


def full_game(kind: str) -> GameSession:
    host, guest = _start(kind)
    _play(host, guest, random.Random(GAME_SEEDS[kind]), 1000)
    return host


def _fields(session: GameSession) -> list[tuple[str, str]]:
    return [("game", session.game_id), ("seq", str(len(session.chain))), ("prev", session.chain[-1].hash)]


def _keyname(session: GameSession, raw: bytes) -> str:
    return next(name for name, key in KEYS.items() if key.public.raw == raw)


def cases() -> list[dict]:
    """One case per rejection code: the lines to replay in order; the last one is refused."""
    host, guest = _start("oxono")
    _play(host, guest, random.Random(1), 4)
    prefix = list(host.transcript)
    actor = _keyname(host, host.actor())
    other = "guest" if actor == "host" else "host"
    mover = KEYS[actor]
    legal = sorted(m.text() for m in host.board.legal_moves())
    good = encode("move", [*_fields(host), ("move", legal[0])], mover)
    unsigned, _, sig = good.rpartition(" sig=")
    flipped = sig[:10] + ("B" if sig[10] != "B" else "C") + sig[11:]
    twin = encode("move", [*_fields(host), ("move", legal[1])], mover)
    wrong_game = b64(bytes(16))

    over_host, over_guest = _start("oxono")
    over_actor = _keyname(over_host, over_host.actor())
    resign = (over_host if over_actor == "host" else over_guest).resign()
    over_host.receive(resign)
    after = encode("move", [*_fields(over_host), ("move", "Oc6c5")], KEYS["guest" if over_actor == "host" else "host"])

    reveal_host = GameSession.offer("oxono", KEYS["host"], nonce=NONCE)
    reveal_guest = GameSession(reveal_host.game_id, KEYS["guest"])
    reveal_guest.receive(reveal_host.transcript[0])
    reveal_host.receive(reveal_guest.join(SECRET))
    reveal_host.accept(KEYS["guest"].public.text, SALT)
    bad_reveal = encode("reveal", [*_fields(reveal_host), ("secret", SALT)], KEYS["guest"])

    def case(name: str, code: str, description: str, last: str | bytes, lines=None) -> dict:
        lines = list(prefix if lines is None else lines)
        item = {"name": name, "code": code, "description": description, "lines": lines}
        if isinstance(last, bytes):
            item["last_hex"] = last.hex()
        else:
            item["lines"].append(last)
        return item

    return [
        case("bad-signature", "bad-signature", "one character of a move's signature changed", f"{unsigned} sig={flipped}"),
        case("wrong-signer", "wrong-signer", "a move signed by a key with no seat",
             encode("move", [*_fields(host), ("move", legal[0])], KEYS["stranger"])),
        case("wrong-seat", "wrong-seat", "a move by the player who is not to move",
             encode("move", [*_fields(host), ("move", legal[0])], KEYS[other])),
        case("broken-link", "broken-link", "prev= is not the hash of the previous message",
             encode("move", [("game", host.game_id), ("seq", str(len(host.chain))), ("prev", b64(bytes(32))), ("move", legal[0])], mover)),
        case("gap", "gap", "the next message is missing: seq skips one",
             encode("move", [("game", host.game_id), ("seq", str(len(host.chain) + 1)), ("prev", b64(bytes(32))), ("move", legal[0])], mover)),
        case("non-canonical-spacing", "non-canonical", "two spaces between two fields of a valid move", good.replace(" move=", "  move=")),
        case("oversize", "oversize", f"a line longer than {MAX_LINE_BYTES} bytes", good + " " + "x" * MAX_LINE_BYTES),
        case("unknown-version", "unknown-version", "a valid move with the version token olixono/2", good.replace("olixono/1", "olixono/2", 1)),
        case("illegal-move", "illegal-move", "a well-formed move the position forbids",
             encode("move", [*_fields(host), ("move", "Xa1a1")], mover)),
        case("equivocation", "equivocation", "the same key signs a second, different move for the same seq", twin, prefix + [good]),
        case("after-end", "after-end", "a move after a resignation", after, over_host.transcript),
        case("bad-reveal", "bad-reveal", "the revealed secret does not match the join's commitment", bad_reveal, reveal_host.transcript),
        case("wrong-game", "wrong-game", "a move naming another game's id",
             encode("move", [("game", wrong_game), *_fields(host)[1:], ("move", legal[0])], mover)),
        case("bad-utf8", "bad-utf8", "a line that is not UTF-8 (given in last_hex)", good.encode("utf-8")[:40] + b"\xff\xfe"),
    ]


def build() -> dict[str, str]:
    """Every vector file's name and text."""
    files: dict[str, str] = {}
    keys = {name: {"seed_hex": SEEDS[name].hex(), "public": key.public.text, "fingerprint": key.fingerprint}
            for name, key in KEYS.items()}
    games = []
    for kind in GAME_SEEDS:
        session = full_game(kind)
        name = f"{kind}-game.txt"
        files[name] = "\n".join(session.transcript) + "\n"
        games.append({
            "file": name, "kind": kind, "game": session.game_id,
            "seats": {player: _keyname(session, key) for player, key in session.seats.items()},
            "moves": session.moves, "outcome": session.outcome.text(), "lines": len(session.transcript),
        })
    document = {
        "about": "olixono/1 test vectors: see README.md beside this file",
        "coin": {"secret": SECRET, "salt": SALT, "nonce": NONCE},
        "keys": keys, "games": games, "cases": cases(),
    }
    files["vectors.json"] = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    return files


if __name__ == "__main__":
    for name, text in build().items():
        (VECTORS / name).write_text(text)
        print(f"wrote {VECTORS / name}")
