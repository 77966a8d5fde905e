"""Builds the protocol test vectors in ``protocol/vectors/`` (see its README).

Everything is deterministic: keys from fixed seeds, fixed nonce, secret and
salt, moves drawn by a seeded RNG from the sorted legal moves, and Ed25519
signatures, which are deterministic (the forged ones are built by
``ed25519_reference``). ``tests/test_vectors.py`` checks the files against a
fresh build; ``OLIXONO_REGENERATE_GOLDEN=1`` rewrites them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

import ed25519_reference as ref
from protocol import GameSession, Identity, Outgoing
from protocol.keys import FIELD_P, GROUP_L, SMALL_ORDER_ENCODINGS, b64, unb64
from protocol.messages import MAX_LINE_BYTES, encode, line_hash
from protocol.session import MAX_CHAT_LINES

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
SEEDS = {"host": bytes([0x11]) * 32, "guest": bytes([0x22]) * 32, "stranger": bytes([0x33]) * 32}
KEYS = {name: Identity.from_seed(seed) for name, seed in SEEDS.items()}
NONCE, SECRET, SALT = "AAECAwQFBgcICQoLDA0ODw", "EBESExQVFhcYGRobHB0eHw", "ICEiIyQlJicoKSorLC0uLw"
AT = 1_790_000_000


def _start(kind: str = "oxono") -> tuple[GameSession, GameSession]:
    host, offer = GameSession.offer(kind, KEYS["host"], nonce=NONCE, at=AT)
    guest = GameSession(host.game_id, KEYS["guest"])
    guest.receive(offer.line)
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(KEYS["guest"].public, SALT).line)
    host.receive(guest.reveal().line)
    return host, guest


def _sides(host: GameSession, guest: GameSession) -> tuple[GameSession, GameSession]:
    """(the session of the player to move, the other's)."""
    return (host, guest) if host.actor == KEYS["host"].public else (guest, host)


def _deliver(out: Outgoing, *others: GameSession) -> None:
    for other in others:
        other.receive(out.line)


def _play(host: GameSession, guest: GameSession, rng: random.Random, plies: int) -> None:
    for _ in range(plies):
        if host.over:
            return
        mine, theirs = _sides(host, guest)
        _deliver(mine.move(rng.choice(sorted(m.text() for m in mine.board.legal_moves()))), theirs)


def _fields(session: GameSession) -> list[tuple[str, str]]:
    return [("game", session.game_id or ""), ("seq", str(session.next_seq)), ("prev", session.head.hash)]


def _keyname(key: Any) -> str:
    return next(name for name, identity in KEYS.items() if identity.public == key)


# -- complete games, one for every way a game ends ---------------------------------------------------------
def _full(kind: str, seed: int) -> GameSession:
    host, guest = _start(kind)
    _play(host, guest, random.Random(seed), 1000)
    return host


def _agreed(kind: str) -> GameSession:
    """Proposals made, withdrawn, declined, standing across a move, and at last agreed."""
    host, guest = _start(kind)
    rng = random.Random(5)
    _play(host, guest, rng, 6)
    mine, theirs = _sides(host, guest)
    for action in ("propose", "withdraw"):
        _deliver(getattr(mine, action)(), theirs)
    _play(host, guest, rng, 1)
    mine, theirs = _sides(host, guest)
    _deliver(mine.propose(), theirs)
    _play(host, guest, rng, 1)
    mine, theirs = _sides(host, guest)
    _deliver(mine.decline(), theirs)
    _deliver(mine.propose(), theirs)
    _play(host, guest, rng, 3)  # the proposal stands across three moves
    mine, theirs = _sides(host, guest)
    _deliver(mine.agree(), theirs)
    return host


def _resigned_while_waiting() -> GameSession:
    host, guest = _start("oxono")
    _play(host, guest, random.Random(8), 5)
    mine, theirs = _sides(host, guest)
    _deliver(theirs.resign(), mine)
    return host


def _aborted_by_the_second_player() -> GameSession:
    host, guest = _start("olix")
    mine, theirs = _sides(host, guest)
    _deliver(mine.move(sorted(m.text() for m in mine.board.legal_moves())[60]), theirs)
    mine, theirs = _sides(host, guest)
    _deliver(mine.abort(), theirs)
    return host


def _accepted() -> tuple[GameSession, GameSession]:
    host, offer = GameSession.offer("oxono", KEYS["host"], nonce=NONCE, at=AT)
    guest = GameSession(host.game_id, KEYS["guest"])
    guest.receive(offer.line)
    host.receive(guest.join(SECRET).line)
    guest.receive(host.accept(KEYS["guest"].public, SALT).line)
    return host, guest


def _walked_away() -> GameSession:
    host, guest = _accepted()
    _deliver(guest.abort(), host)
    return host


def _claimed() -> GameSession:
    host, _ = _accepted()
    host.claim()
    return host


def _withdrawn() -> GameSession:
    host, _ = GameSession.offer("olix", KEYS["host"], nonce=NONCE, at=AT)
    host.abort()
    return host


GAMES: dict[str, Callable[[], GameSession]] = {
    "oxono-game": lambda: _full("oxono", 7),
    "olix-game": lambda: _full("olix", 3),
    "oxono-draw-agreed": lambda: _agreed("oxono"),
    "olix-ended-by-agreement": lambda: _agreed("olix"),
    "oxono-resigned-while-waiting": _resigned_while_waiting,
    "olix-aborted-by-the-second-player": _aborted_by_the_second_player,
    "oxono-guest-walked-away": _walked_away,
    "oxono-host-claimed": _claimed,
    "olix-withdrawn": _withdrawn,
}


# -- rejections -----------------------------------------------------------------------------------------------
def _with_signature(line: str, signature: bytes) -> str:
    return f"{line.rpartition(' sig=')[0]} sig={b64(signature)}"


def cases() -> list[dict[str, Any]]:
    """One case or more per rejection code: the lines to replay in order; the last one is refused."""
    host, guest = _start("oxono")
    _play(host, guest, random.Random(1), 4)
    prefix = list(host.transcript)
    fields = _fields(host)
    mover_session, waiter_session = _sides(host, guest)
    actor = _keyname(host.actor)
    other = "guest" if actor == "host" else "host"
    mover = KEYS[actor]
    legal = sorted(m.text() for m in host.board.legal_moves())
    good = encode("move", [*fields, ("move", legal[0])], mover)
    unsigned, _, sig = good.rpartition(" sig=")
    flipped = sig[:10] + ("B" if sig[10] != "B" else "C") + sig[11:]
    twin = encode("move", [*fields, ("move", legal[1])], mover)
    signature = unb64(sig, 64)
    s_plus_l = signature[:32] + (int.from_bytes(signature[32:], "little") + GROUP_L).to_bytes(32, "little")

    over_host, over_guest = _start("oxono")
    over_mover, _ = _sides(over_host, over_guest)
    resign = over_mover.resign()
    over_host.receive(resign.line)
    after = encode("move", [*_fields(over_host), ("move", "Oc6c5")], KEYS["guest" if _keyname(over_mover.identity.public) == "host" else "host"])

    reveal_host, _ = _accepted()
    bad_reveal = encode("reveal", [*_fields(reveal_host), ("secret", SALT)], KEYS["guest"])

    offer_line = host.transcript[0]
    identity_r = ref.sign_with_identity_r(SEEDS["host"], KEYS["host"].public.raw, offer_line.rpartition(" sig=")[0].encode())

    chat_host, _ = _start("oxono")
    for n in range(MAX_CHAT_LINES):
        chat_host.chat(f"chat {n}")
    last_chat = [line for line in chat_host.transcript if " chat " in line][-1]
    too_many = encode("chat", [("game", chat_host.game_id or ""), ("seq", str(MAX_CHAT_LINES + 1)),
                               ("prev", line_hash(last_chat)), ("text", "one-more")], KEYS["host"])
    superseded_move = mover_session.move(legal[0]).line
    superseding_resign = waiter_session.resign().line

    def case(name: str, code: str, description: str, last: str | bytes, lines: list[str] | None = None) -> dict[str, Any]:
        item: dict[str, Any] = {"name": name, "code": code, "description": description,
                                "lines": list(prefix if lines is None else lines)}
        if isinstance(last, bytes):
            item["last_hex"] = last.hex()
        else:
            item["lines"].append(last)
        return item

    out = [
        case("bad-signature", "bad-signature", "one character of a move's signature changed", f"{unsigned} sig={flipped}"),
        case("bad-signature-s-not-below-l", "bad-signature", "a move's signature with S + L in place of S", _with_signature(good, s_plus_l)),
        case("bad-signature-identity-r", "bad-signature",
             "the host's offer signed with R = the identity point and S = k·a: cryptography (OpenSSL) accepts it, "
             "libsodium refuses it; the protocol refuses it", _with_signature(offer_line, identity_r), []),
        case("bad-signature-non-canonical-r", "bad-signature", "R = p + 5 (a non-canonical encoding of y = 5)",
             _with_signature(good, (FIELD_P + 5).to_bytes(32, "little") + signature[32:])),
        *[case(f"bad-signature-small-order-r-{r.hex()[:8]}{r.hex()[-2:]}", "bad-signature",
               f"R is the small-order encoding {r.hex()}", _with_signature(good, r + signature[32:]))
          for r in sorted(SMALL_ORDER_ENCODINGS)],
        *[case(f"weak-key-{key.hex()[:8]}{key.hex()[-2:]}", "weak-key",
               f"an offer by the small-order key {key.hex()}, whose signature a cofactorless verifier (cryptography) "
               "accepts: anyone can sign for this key", ref.forged_offer(key), [])
          for key in sorted(SMALL_ORDER_ENCODINGS)],
        case("wrong-signer", "wrong-signer", "a move signed by a key with no seat",
             encode("move", [*fields, ("move", legal[0])], KEYS["stranger"])),
        case("wrong-seat", "wrong-seat", "a move by the player who is not to move",
             encode("move", [*fields, ("move", legal[0])], KEYS[other])),
        case("wrong-seat-withdraw", "wrong-seat", "a withdraw with no proposal open",
             encode("withdraw", fields, mover)),
        case("wrong-seat-agree", "wrong-seat", "an agree with no proposal open", encode("agree", fields, mover)),
        case("wrong-seat-claim", "wrong-seat", "a claim by the guest", encode("claim", _fields(reveal_host), KEYS["guest"]),
             list(reveal_host.transcript)),
        case("wrong-seat-abort", "wrong-seat", "an abort after the sender's first move", encode("abort", fields, mover)),
        case("broken-link", "broken-link", "prev= is not the hash of the previous message",
             encode("move", [*fields[:2], ("prev", b64(bytes(32))), ("move", legal[0])], mover)),
        case("gap", "gap", "the next message is missing: seq skips one",
             encode("move", [*fields[:1], ("seq", str(int(fields[1][1]) + 1)), ("prev", b64(bytes(32))), ("move", legal[0])], mover)),
        case("non-canonical-spacing", "non-canonical", "two spaces between two fields of a valid move", good.replace(" move=", "  move=")),
        case("bad-field-seq-0", "bad-field", "a move at seq 0", good.replace(f" seq={fields[1][1]} ", " seq=0 ")),
        case("oversize", "oversize", f"a line longer than {MAX_LINE_BYTES} bytes", good + " " + "x" * MAX_LINE_BYTES),
        case("unknown-version", "unknown-version", "a valid move with the version token olixono/2", good.replace("olixono/1", "olixono/2", 1)),
        case("unknown-term", "unknown-term", "an offer under terms this version does not know",
             encode("offer", [("kind", "oxono"), ("nonce", NONCE), ("terms", "clock:300+5,rules:1"), ("at", "1790000000")], KEYS["host"]), []),
        case("illegal-move", "illegal-move", "a well-formed move the position forbids",
             encode("move", [*fields, ("move", "Xa1a1")], mover)),
        case("equivocation", "equivocation", "the same key signs a second, different move for the same seq", twin, prefix + [good]),
        case("equivocation-after-resigning", "equivocation", "a key that resigned signs a later line",
             encode("move", [*_fields(over_host)[:1], ("seq", str(over_host.next_seq + 1)), ("prev", b64(bytes(32))), ("move", "Oc6c5")],
                    over_mover.identity), list(over_host.transcript)),
        case("after-end", "after-end", "a move after a resignation", after, list(over_host.transcript)),
        case("superseded", "superseded", "a move, then the other player's resignation for the same seq (sent while "
             "they waited): a transcript holds only the resignation", superseding_resign, prefix + [superseded_move]),
        case("bad-reveal", "bad-reveal", "the revealed secret does not match the join's commitment", bad_reveal, list(reveal_host.transcript)),
        case("wrong-game", "wrong-game", "a move naming another game's id",
             encode("move", [("game", b64(bytes(16))), *fields[1:], ("move", legal[0])], mover)),
        case("bad-utf8", "bad-utf8", "a line that is not UTF-8 (given in last_hex)", good.encode("utf-8")[:40] + b"\xff\xfe"),
        case("limit", "limit", f"chat line {MAX_CHAT_LINES + 1} of one player", too_many, list(chat_host.transcript)),
    ]
    return out


# -- races and proofs ----------------------------------------------------------------------------------------
def races() -> list[dict[str, Any]]:
    """Lines sent at once by both players: any order of ``lines`` after ``prefix`` ends with ``transcript``."""
    out = []
    host, guest = _start("olix")
    _play(host, guest, random.Random(4), 3)
    mine, theirs = _sides(host, guest)
    prefix = list(host.transcript)
    resign = theirs.resign().line
    turn = [mine.propose().line, mine.move(sorted(m.text() for m in mine.board.legal_moves())[0]).line]
    mine.receive(resign)
    out.append({"name": "resign-while-the-opponent-plays-a-turn", "prefix": prefix, "lines": [resign, *turn],
                "transcript": list(mine.transcript), "outcome": mine.result.text() if mine.result else None})
    host, guest = _accepted()
    prefix = list(host.transcript)
    claim = host.claim().line
    reveal = guest.reveal().line
    host.receive(reveal)
    mine, _ = _sides(host, guest)
    first = mine.move(sorted(m.text() for m in mine.board.legal_moves())[0]).line
    host.receive(first)
    out.append({"name": "reveal-after-the-hosts-claim", "prefix": prefix, "lines": [claim, reveal, first],
                "transcript": list(host.transcript), "outcome": None})
    return out


def presence() -> dict[str, Any]:
    """Presence lines of the guest after a game's prefix, in order, and whether the guest is here after each."""
    host, guest = _start("oxono")
    lines = [guest.presence(True, 1), guest.presence(False, 1), guest.presence(True, 1), guest.presence(True, 2),
             guest.presence(False, 1)]
    spectator = GameSession()
    spectator.receive_all(host.transcript)
    here = []
    for out in lines:
        spectator.receive(out.line)
        here.append(spectator.present(KEYS["guest"].public))
    return {"prefix": list(host.transcript), "lines": [out.line for out in lines], "here": here}


def proofs() -> list[dict[str, Any]]:
    """Pairs of lines and whether they prove their signer equivocated (``check_equivocation_proof``)."""
    host, guest = _start("oxono")
    _play(host, guest, random.Random(2), 3)
    mine, _ = _sides(host, guest)
    twin = GameSession.restore(mine.transcript, mine.identity)
    legal = sorted(m.text() for m in mine.board.legal_moves())
    a, b = mine.move(legal[0]).line, twin.move(legal[1]).line
    resigned = GameSession.restore(mine.transcript[:-1], mine.identity)
    resign = resigned.resign().line
    return [
        {"first": a, "second": b, "signer": mine.identity.public.text, "why": "two different moves for one seq"},
        {"first": resign, "second": a, "signer": mine.identity.public.text, "why": "a resignation, then a line of the same key"},
        {"first": a, "second": a, "signer": None, "why": "the same line twice proves nothing"},
        {"first": host.transcript[4], "second": host.transcript[5], "signer": None, "why": "two players' lines"},
    ]


def build() -> dict[str, str]:
    """Every vector file's name and text."""
    files: dict[str, str] = {}
    keys = {name: {"seed_hex": SEEDS[name].hex(), "public": key.public.text, "fingerprint": key.fingerprint}
            for name, key in KEYS.items()}
    games = []
    for name, make in GAMES.items():
        session = make()
        files[f"{name}.txt"] = "\n".join(session.transcript) + "\n"
        games.append({
            "file": f"{name}.txt", "kind": session.kind, "game": session.game_id,
            "seats": {player: _keyname(key) for player, key in session.seats.items()},
            "moves": session.moves, "outcome": session.result.text() if session.result else None,
            "sentence": session.result.sentence() if session.result else None, "lines": len(session.transcript),
        })
    document = {
        "about": "olixono/1 test vectors: see README.md beside this file",
        "coin": {"secret": SECRET, "salt": SALT, "nonce": NONCE, "at": AT},
        "keys": keys, "games": games, "cases": cases(), "races": races(), "proofs": proofs(), "presence": presence(),
        "small_order_encodings": sorted(key.hex() for key in SMALL_ORDER_ENCODINGS),
    }
    files["vectors.json"] = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    return files


if __name__ == "__main__":
    for name, text in build().items():
        (VECTORS / name).write_text(text)
        print(f"wrote {VECTORS / name}")
