"""Lines for the browser's protocol to judge, each with the verdict ``protocol.messages.decode`` gives it.

    python tests/web_protocol_cases.py OUT.json

Every line of ``protocol/vectors`` and a few hundred damaged or forged ones (flipped bytes, truncations, bad
signatures, other games, non-canonical base64, small-order, non-canonical, off-curve and mixed-order keys, oversize
and forbidden chat text, every message type), seeded so that each run writes the same file. ``web/tests/protocol*``
(run by ``tests/test_web_protocol.py``) compares its own verdicts with these, code for code; nothing generated is
committed.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import ed25519_reference as ref

from protocol.errors import RemoteProtocolError
from protocol.keys import GROUP_L, SMALL_ORDER_ENCODINGS, Identity, b64
from protocol.messages import SCHEMAS, consent_line, consents, decode, encode, encode_text
from protocol.transcript import verify_transcript

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
DOCUMENT = json.loads((VECTORS / "vectors.json").read_text())
IDENTITIES = {name: Identity.from_seed(bytes.fromhex(key["seed_hex"])) for name, key in DOCUMENT["keys"].items()}
BY_TEXT = {identity.public.text: identity for identity in IDENTITIES.values()}
Case = dict[str, Any]


def verdict(data: bytes | str) -> dict[str, Any]:
    """What ``decode`` says of ``data``, with and without the signature: the code, or what the message holds."""
    out: dict[str, Any] = {}
    try:
        decode(data, verify=False)
        out["unverified"] = None
    except RemoteProtocolError as exc:
        out["unverified"] = str(exc.code)
    try:
        message = decode(data)
    except RemoteProtocolError as exc:
        out["code"] = str(exc.code)
        return out
    out["code"] = None
    out["message"] = {
        "type": str(message.type),
        "fields": [list(pair) for pair in message.fields],
        "signer": message.signer.text,
        "peer": None if message.peer is None else message.peer.text,
        "hash": message.hash,
        "game": message.game,
        "seq": message.seq,
        "prev": message.prev,
        "slot": message.slot,
    }
    return out


def case(name: str, data: bytes | str) -> Case:
    """One case, with Python's verdict: text as text, bytes (what MQTT delivers) as hex, whether UTF-8 or not."""
    if isinstance(data, bytes):
        return {"name": name, "hex": data.hex(), **verdict(data)}
    return {"name": name, "line": data, **verdict(data)}


def vector_lines() -> list[str]:
    """Every line the vectors hold, in the order they first appear (transcripts, then vectors.json)."""
    found: dict[str, None] = {}
    for path in sorted(VECTORS.glob("*.txt")):
        found.update(dict.fromkeys(path.read_text().splitlines()))

    def walk(node: object) -> None:
        if isinstance(node, str) and node.startswith("olixono/"):
            found[node] = None
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(DOCUMENT)
    return list(found)


def signed(unsigned: str, identity: Identity) -> str:
    return f"{unsigned} sig={b64(identity.sign(unsigned.encode('utf-8')))}"


def resigned(line: str, change: Any) -> str:
    """``line`` with its unsigned part changed by ``change`` and signed again by its own signer."""
    unsigned = line.rpartition(" sig=")[0]
    by = unsigned.rpartition(" by=")[2]
    return signed(change(unsigned), BY_TEXT[by])


def replace_field(unsigned: str, name: str, value: str) -> str:
    tokens = unsigned.split(" ")
    return " ".join(f"{name}={value}" if token.startswith(f"{name}=") else token for token in tokens)


def bump_last(value: str) -> str:
    """The same bytes spelled non-canonically: the last character's unused low bits set."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return value[:-1] + alphabet[alphabet.index(value[-1]) + 1]


def every_type(host: Identity, game: str, head: str) -> list[Case]:
    """A valid line of every message type (the vectors lack some), each accepted."""
    hash32 = b64(hashlib.sha256(b"x").digest())
    fields: dict[str, list[tuple[str, str]]] = {
        "offer": [
            ("kind", "olix"),
            ("nonce", "AAECAwQFBgcICQoLDA0ODw"),
            ("terms", "clock:60+2,rules:2"),
            ("at", "1790000000"),
            ("invite", IDENTITIES["guest"].public.text),
        ],
        "join": [("game", game), ("seq", "1"), ("prev", head), ("terms", "rules:1"), ("commit", hash32)],
        "accept": [
            ("game", game),
            ("seq", "2"),
            ("prev", head),
            ("guest", IDENTITIES["guest"].public.text),
            ("salt", "ICEiIyQlJicoKSorLC0uLw"),
        ],
        "reveal": [("game", game), ("seq", "3"), ("prev", head), ("secret", "EBESExQVFhcYGRobHB0eHw")],
        "move": [
            ("game", game),
            ("seq", "4"),
            ("prev", head),
            ("move", "Oc6c5"),
            ("think", "0"),
            ("left", "9999999999"),
        ],
        "chat": [("game", game), ("seq", "1"), ("prev", head), ("text", encode_text("héllo, wörld ✓ 😀"))],
        "presence": [("game", game), ("seq", "3"), ("state", "hosting")],
        "confirm": [("game", game), ("seq", "1"), ("prev", head), ("final", "0"), ("result", "pink-colour")],
        "receipt": [("game", game), ("seq", "9"), ("prev", head), ("recv", "9999999999999"), ("ack", "0")],
        "flag": [("game", game), ("seq", "9"), ("prev", head), ("sent", "0"), ("now", "61000")],
        "timeout": [("game", game), ("seq", "10"), ("prev", head), ("flagged", "1")],
        "witness": [("game", game), ("seq", "1"), ("prev", head), ("time", "5"), ("lines", f"{head}.{hash32}")],
        "rematch": [("game", game), ("seq", "40"), ("prev", head), ("next", game)],
        "takeback": [("game", game), ("seq", "12"), ("prev", head), ("plies", "2")],
        "undo": [
            ("game", game),
            ("seq", "13"),
            ("prev", head),
            ("plies", "1"),
            ("think", "12"),
            ("consent", b64(bytes(64))),
        ],
        "talk": [("game", game), ("seq", "64"), ("text", encode_text("nice move ✓"))],
    }
    for type_ in SCHEMAS:
        chain = [("game", game), ("seq", "5"), ("prev", head)]
        fields.setdefault(type_, chain)
    cases = [case(f"every type: {type_}", encode(type_, values, host)) for type_, values in fields.items()]
    # PROTOCOL.md says a witness line names each line once: a canonical line naming one twice is refused.
    twice = f"olixono/1 witness game={game} seq=1 prev={head} time=5 lines={head}.{head} by={host.public.text}"
    cases.append(case("witness naming one line twice", signed(twice, host)))
    cases.append(case("witness naming one line twice, seq 01", signed(twice.replace(" seq=1 ", " seq=01 "), host)))
    return cases


def chat_texts(identity: Identity, game: str, head: str) -> list[Case]:
    """Chat text at and beyond every limit of PROTOCOL.md §1, canonical and not."""
    texts = {
        "plain": "hello",
        "500 bytes": "é" * 250,
        "501 bytes": "é" * 250 + "x",
        "bidi override": "a\u202eb",
        "zero-width joiner": "a\u200db",
        "no-break space": "a\u00a0b",
        "ideographic space": "a\u3000b",
        "tab": "a\tb",
        "delete": "a\x7fb",
        "C1 control": "a\x85b",
        "private use": "a\ue000b",
        "combining first": "\u0301a",
        "4 combining": "a\u0301\u0302\u0303\u0304",
        "5 combining": "a\u0301\u0302\u0303\u0304\u0305",
        "combining after space": "a \u0301",
        "emoji": "😀👍🏽",
        "tag character": "a\U000e0041",
        "unassigned in 14.0": "a\u0378b",
        "assigned after 14.0": "a\U0001faf7",
        "line separator": "a\u2028b",
        "BOM": "\ufeffa",
        "CJK": "囲碁",
        "space only": " ",
    }
    cases = [
        case(
            f"chat: {name}",
            signed(
                f"olixono/1 chat game={game} seq=1 prev={head} text={encode_text(text)} by={identity.public.text}",
                identity,
            ),
        )
        for name, text in texts.items()
    ]
    raw_values = {
        "lower-case hex": "%c3%a9",
        "unreserved escaped": "%41",
        "space unescaped": "a+b",
        "invalid UTF-8": "%C3%28",
        "overlong": "%C0%80",
        "surrogate": "%ED%A0%80",
        "truncated sequence": "%E2%82",
        "beyond U+10FFFF": "%F4%90%80%80",
        "lone percent": "a%",
        "tilde escaped": "%7E",
        "1501 characters": "a" * 1501,
        "BOM escaped": "%EF%BB%BFa",
    }
    cases += [
        case(
            f"chat value: {name}",
            signed(f"olixono/1 chat game={game} seq=1 prev={head} text={value} by={identity.public.text}", identity),
        )
        for name, value in raw_values.items()
    ]
    return cases


def grammar(line: str, rng: random.Random) -> list[Case]:
    """One valid line's grammar broken, every way, each signed again by its own signer."""
    unsigned = line.rpartition(" sig=")[0]
    tokens = unsigned.split(" ")
    fields = tokens[2:-1]
    changes: dict[str, Any] = {
        "another game": lambda u: replace_field(u, "game", b64(rng.randbytes(16))),
        "seq with a leading zero": lambda u: replace_field(u, "seq", "0" + u.split(" seq=")[1].split(" ")[0]),
        "seq 0": lambda u: replace_field(u, "seq", "0"),
        "seq of 7 digits": lambda u: replace_field(u, "seq", "1000000"),
        "non-canonical game": lambda u: replace_field(u, "game", bump_last(u.split(" game=")[1].split(" ")[0])),
        "non-canonical prev": lambda u: replace_field(u, "prev", bump_last(u.split(" prev=")[1].split(" ")[0])),
        "prev too short": lambda u: replace_field(u, "prev", u.split(" prev=")[1].split(" ")[0][:-1]),
        "padded prev": lambda u: replace_field(u, "prev", u.split(" prev=")[1].split(" ")[0] + "="),
        "standard base64 prev": lambda u: replace_field(u, "prev", "+" + u.split(" prev=")[1].split(" ")[0][1:]),
        "fields swapped": lambda u: " ".join([*tokens[:2], fields[1], fields[0], *fields[2:], *tokens[-1:]]),
        "field twice": lambda u: " ".join([*tokens[:3], fields[0], *fields[1:], *tokens[-1:]]),
        "field missing": lambda u: " ".join(tokens[:2] + fields[1:] + tokens[-1:]),
        "unknown field": lambda u: " ".join([*tokens[:-1], "colour=pink", *tokens[-1:]]),
        "by= in the middle": lambda u: " ".join([*tokens[:3], tokens[-1], *fields[1:], *tokens[-1:]]),
        "token without =": lambda u: " ".join([*tokens[:-1], "pink", *tokens[-1:]]),
        "two spaces": lambda u: u.replace(" ", "  ", 1),
        "leading space": lambda u: " " + u,
        "version 2": lambda u: u.replace("olixono/1", "olixono/2", 1),
        "version in capitals": lambda u: u.replace("olixono/1", "OLIXONO/1", 1),
        "unknown type": lambda u: u.replace(f" {tokens[1]} ", " gloat ", 1),
        "type in capitals": lambda u: u.replace(f" {tokens[1]} ", f" {tokens[1].capitalize()} ", 1),
        "type with a digit": lambda u: u.replace(f" {tokens[1]} ", f" {tokens[1]}2 ", 1),
        "type alone": lambda u: f"olixono/1 {tokens[1]} {tokens[-1]}",
        "tab": lambda u: u.replace(" ", "\t", 1),
        "NUL": lambda u: u + "\x00",
        "field named __proto__": lambda u: " ".join([*tokens[:-1], "__proto__=1", *tokens[-1:]]),
        "non-canonical by": lambda u: replace_field(u, "by", bump_last(tokens[-1][3:])),
    }
    if tokens[1] == "move":
        changes["lower-case move"] = lambda u: replace_field(u, "move", u.split(" move=")[1].split(" ")[0].lower())
        changes["move of 9 characters"] = lambda u: replace_field(u, "move", "Oc6c5c5c5")
        changes["think with a leading zero"] = lambda u: u.replace(" by=", " think=01 by=")
        changes["think of 11 digits"] = lambda u: u.replace(" by=", " think=10000000000 by=")
        changes["left before think"] = lambda u: u.replace(" by=", " left=5 think=3 by=")
    out = []
    for name, change in changes.items():
        try:
            out.append(case(f"{tokens[1]}: {name}", resigned(line, change)))
        except (IndexError, ValueError):
            continue  # a change this type has no field for
    return out


def terms_cases(host: Identity) -> list[Case]:
    witness = IDENTITIES["stranger"].public.text
    terms = [
        "rules:1",
        "rules:2,clock:60+2",
        "clock:60+2,rules:2",
        "rules:1,rules:1",
        "Rules:1",
        "rules:",
        ",".join(f"t{i}:1" for i in range(8)),
        ",".join(f"t{i}:1" for i in range(9)),
        f"rules:2,witness:{witness}",
        f"rules:2,witness:{witness}.{witness}.{witness}",
        f"rules:2,witness:{witness}.{witness}.{witness}.{witness}",
        "rules:" + "1" * 32,
        "rules:" + "1" * 33,
        "a" * 17 + ":1",
        "rules:1;",
    ]
    return [
        case(
            f"terms: {value}",
            signed(
                f"olixono/1 offer kind=oxono nonce=AAECAwQFBgcICQoLDA0ODw terms={value} "
                f"at=1790000000 by={host.public.text}",
                host,
            ),
        )
        for value in terms
    ]


def key_cases(host: Identity, line: str) -> list[Case]:
    """Small-order, non-canonical, off-curve and mixed-order keys as by=, invite= and guest=."""
    out = []
    for encoding in sorted(SMALL_ORDER_ENCODINGS):
        name = encoding.hex()[:8] + encoding.hex()[-2:]
        out.append(case(f"forged offer by small-order key {name}", ref.forged_offer(encoding)))
        out.append(
            case(
                f"invite= small-order {name}",
                signed(
                    "olixono/1 offer kind=oxono nonce=AAECAwQFBgcICQoLDA0ODw terms=rules:1 at=1790000000 "
                    f"invite={b64(encoding)} by={host.public.text}",
                    host,
                ),
            )
        )
        out.append(
            case(f"guest= small-order {name}", resigned(line, lambda u: replace_field(u, "guest", b64(encoding))))
        )
    for y in range(2, 19):
        encoding = (y + ref.P).to_bytes(32, "little")  # y + p: the same y (or no point) spelled the long way
        out.append(
            case(
                f"by= y + p for y = {y}",
                f"olixono/1 offer kind=oxono nonce=AAECAwQFBgcICQoLDA0ODw "
                f"terms=rules:1 at=1790000000 by={b64(encoding)} sig={b64(bytes(64))}",
            )
        )
        plain = y.to_bytes(32, "little")
        out.append(
            case(
                f"by= y = {y} ({'on' if ref.decode_point(plain) else 'off'} the curve)",
                f"olixono/1 offer "
                f"kind=oxono nonce=AAECAwQFBgcICQoLDA0ODw terms=rules:1 at=1790000000 by={b64(plain)} "
                f"sig={b64(ref.encode_point(ref.BASE) + bytes(32))}",
            )
        )
    out += mixed_order_cases()
    return out


def mixed_order_cases() -> list[Case]:
    """A key with a torsion part, A + T: a cofactorless verifier (OpenSSL, WebCrypto) accepts a signature by A's
    secret exactly when [k]T is the identity; the protocol refuses no such key (it is no small-order point)."""
    seed = bytes(range(32))
    scalar = ref.secret_scalar(seed)
    public = ref.mul(scalar, ref.BASE)
    torsion = next(point for point in ref.small_order_points() if ref.mul(4, point) != ref.IDENTITY)  # order 8
    mixed = ref.encode_point(ref.add(public, torsion))
    text = b64(mixed)
    out: list[Case] = []
    wanted = {True: 2, False: 2}
    for n in range(400):
        if not any(wanted.values()):
            break
        nonce = b64(n.to_bytes(16, "little"))
        unsigned = f"olixono/1 offer kind=oxono nonce={nonce} terms=rules:1 at=1790000000 by={text}"
        r = (n * 7919 + 12345) % ref.L
        big_r = ref.encode_point(ref.mul(r, ref.BASE))
        k = ref.challenge(big_r, mixed, unsigned.encode())
        s = (r + k * scalar) % ref.L
        valid = ref.mul(k, torsion) == ref.IDENTITY
        if wanted[valid]:
            wanted[valid] -= 1
            out.append(
                case(
                    f"mixed-order key, [k]T {'is' if valid else 'is not'} the identity",
                    f"{unsigned} sig={b64(big_r + s.to_bytes(32, 'little'))}",
                )
            )
    assert not any(wanted.values()), "no mixed-order signature of each kind found"
    return out


def signature_cases(line: str, rng: random.Random) -> list[Case]:
    unsigned, _, sig = line.rpartition(" sig=")
    raw = bytearray(base64url(sig))
    s = int.from_bytes(raw[32:], "little")
    variants = {
        "S + L": bytes(raw[:32]) + (s + GROUP_L).to_bytes(32, "little"),
        "S = L": bytes(raw[:32]) + GROUP_L.to_bytes(32, "little"),
        "S = L - 1": bytes(raw[:32]) + (GROUP_L - 1).to_bytes(32, "little"),
        "R non-canonical": (ref.P + 5).to_bytes(32, "little") + bytes(raw[32:]),
        "R off the curve": (2).to_bytes(32, "little") + bytes(raw[32:]),
        "all zero": bytes(64),
        "another line's": bytes(base64url(signed("olixono/1 other", IDENTITIES["host"]).rpartition(" sig=")[2])),
    }
    out = [case(f"signature: {name}", f"{unsigned} sig={b64(value)}") for name, value in variants.items()]
    for n in range(12):
        flipped = bytearray(raw)
        flipped[rng.randrange(64)] ^= 1 << rng.randrange(8)
        out.append(case(f"signature bit flipped #{n}", f"{unsigned} sig={b64(bytes(flipped))}"))
    out.append(case("signature non-canonical last character", f"{unsigned} sig={bump_last(sig)}"))
    out.append(case("signature one character short", f"{unsigned} sig={sig[:-1]}"))
    return out


def base64url(text: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def damaged_bytes(lines: list[str], rng: random.Random) -> list[Case]:
    """Bytes flipped, truncated, spliced: whatever a broken relay or an attacker sends."""
    out = []
    for n in range(160):
        raw = bytearray(rng.choice(lines).encode("utf-8"))
        at = rng.randrange(len(raw))
        raw[at] = rng.choice([rng.randrange(256), rng.randrange(0x20, 0x7F), raw[at] ^ 1, 0x80, 0xFF, 0x20, 0x3D])
        out.append(case(f"byte flipped #{n}", bytes(raw)))
    for n in range(60):
        line = rng.choice(lines).encode("utf-8")
        out.append(case(f"truncated #{n}", line[: rng.randrange(len(line))]))
    sample = rng.choice(lines)
    extra = {
        "CRLF": sample + "\r\n",
        "LF": sample + "\n",
        "trailing space": sample + " ",
        "BOM": "\ufeff" + sample,
        "two lines": sample + "\n" + sample,
        "empty": "",
        "version alone": "olixono/1",
        "lone surrogate": sample.replace(" by=", " \ud800by=", 1),
        "2049 characters": sample + "x" * (2049 - len(sample)),
        "2048 bytes of junk": "x" * 2048,
        "2049 bytes, fewer characters": "é" * 1025,
        "oversize chat": sample.replace(" by=", " " + "x" * 2048 + " by=", 1),
    }
    out += [case(f"line: {name}", text) for name, text in extra.items()]
    out.append(case("invalid UTF-8 byte", sample.encode() + b"\xff"))
    out.append(case("over 2048 bytes of invalid UTF-8", b"\xff" * 2049))
    return out


def chain_cases(rng: random.Random) -> list[Case]:
    """A main-chain line after a transcript's prefix: the true one, or one signed again by its signer with another
    game, seq or prev, with what ``verify_transcript`` says of it (the code of its first problem, or None)."""
    out = []
    for name in ("olix-game.txt", "oxono-game.txt"):
        lines = (VECTORS / name).read_text().splitlines()
        for at in rng.sample(range(5, len(lines) - 2), 6):
            prefix, line = lines[:at], lines[at]
            seq = int(line.split(" seq=")[1].split(" ")[0])
            other = b64(rng.randbytes(32))
            variants = {
                "the true line": line,
                "another game": resigned(line, lambda u: replace_field(u, "game", b64(rng.randbytes(16)))),
                "another prev": resigned(line, lambda u: replace_field(u, "prev", other)),
                "seq one ahead, prev the head's": resigned(line, lambda u: replace_field(u, "seq", str(seq + 1))),
                "seq one ahead": resigned(
                    line, lambda u: replace_field(replace_field(u, "seq", str(seq + 1)), "prev", other)
                ),
                "seq five ahead": resigned(
                    line, lambda u: replace_field(replace_field(u, "seq", str(seq + 5)), "prev", other)
                ),
            }
            for variant, candidate in variants.items():
                _, number, problem = verify_transcript([*prefix, candidate])
                code = None if problem is None else str(problem.code)
                assert number in (None, at + 1), (name, at, variant, number, problem)
                out.append(
                    {"name": f"{name} line {at + 1}: {variant}", "prefix": prefix, "line": candidate, "code": code}
                )
    return out


def consent_cases(rng: random.Random) -> list[Case]:
    """Each undo of the vectors with its consent= as signed, or forged, and whether ``consents`` holds it to be each
    player's (the waiter's it must be; the undo's signer's never)."""
    out = []
    for path in sorted(VECTORS.glob("*.txt")):
        for line in path.read_text().splitlines():
            if line.split(" ")[1] != "undo":
                continue
            undo = decode(line)
            waiter = next(
                identity for identity in (IDENTITIES["host"], IDENTITIES["guest"]) if identity.public != undo.signer
            )
            mover = BY_TEXT[undo.signer.text]
            takeback = consent_line(undo, waiter.public).rpartition(" sig=")[0]
            consent = base64url(undo.value("consent"))
            flipped = bytearray(consent)
            flipped[rng.randrange(64)] ^= 1 << rng.randrange(8)
            s = int.from_bytes(consent[32:], "little")
            variants = {
                "as signed": undo.value("consent"),
                "by the mover": b64(mover.sign(takeback.replace(waiter.public.text, mover.public.text).encode())),
                "over another line": b64(waiter.sign(takeback.replace(" plies=", " plies=2").encode())),
                "S + L": b64(consent[:32] + (s + GROUP_L).to_bytes(32, "little")),
                "a bit flipped": b64(bytes(flipped)),
            }
            for name, value in variants.items():
                forged = resigned(line, lambda u: replace_field(u, "consent", value))
                message = decode(forged)
                out.append(
                    {
                        "name": f"{path.name} seq {undo.seq}: consent {name}",
                        "line": forged,
                        "waiter": waiter.public.text,
                        "consents": consents(message, waiter.public),
                        "mover_consents": consents(message, undo.signer),
                    }
                )
    return out


def build() -> dict[str, Any]:
    rng = random.Random(20261206)
    lines = vector_lines()
    host = IDENTITIES["host"]
    olix = (VECTORS / "olix-game.txt").read_text().splitlines()
    game, head = olix[1].split(" game=")[1].split(" ")[0], b64(hashlib.sha256(olix[0].encode()).digest())
    accept = next(line for line in olix if line.split(" ")[1] == "accept")
    samples: dict[str, str] = {}
    for line in lines:
        samples.setdefault(line.split(" ")[1] if " " in line else "", line)
    cases = [case(f"vector line {n}", line) for n, line in enumerate(lines)]
    damaged = every_type(host, game, head) + chat_texts(host, game, head) + terms_cases(host) + key_cases(host, accept)
    for type_, line in samples.items():
        if type_ in SCHEMAS and line.split(" by=")[1].split(" ")[0] in BY_TEXT:
            damaged += grammar(line, rng)
    move = next(line for line in olix if line.split(" ")[1] == "move")
    damaged += signature_cases(move, rng) + damaged_bytes([line for line in lines if len(line) < 1000], rng)
    for entry in DOCUMENT["cases"]:
        if "last_hex" in entry:
            damaged.append(case(f"vector case {entry['name']}", bytes.fromhex(entry["last_hex"])))
    return {
        "vectors": cases,
        "damaged": damaged,
        "chains": chain_cases(rng),
        "consents": consent_cases(rng),
        "transcripts": {
            path.name: [verdict(line).get("message") for line in path.read_text().splitlines()]
            for path in sorted(VECTORS.glob("*.txt"))
        },
    }


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(build(), ensure_ascii=True))
