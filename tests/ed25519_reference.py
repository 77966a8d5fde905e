"""A slow, plain Ed25519 for tests: point arithmetic, every small-order encoding, and forged signatures.

Independent of ``protocol.keys`` (it shares nothing with it), so the tests can
derive the refused encodings and build signatures that ``cryptography``
accepts but the protocol must refuse: a small-order key signed for by anyone,
and a real key's signature whose ``R`` is the identity.
"""

from __future__ import annotations

import base64
import hashlib

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
IDENTITY = (0, 1)
Point = tuple[int, int]


def _x_of(y: int, sign: int) -> int | None:
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    return x if x & 1 == sign or x == 0 else P - x


def decode_point(encoding: bytes) -> Point | None:
    """A point from 32 bytes, as a lenient (ref10-style) implementation reads it: y taken mod p."""
    value = int.from_bytes(encoding, "little")
    y = (value & ((1 << 255) - 1)) % P
    x = _x_of(y, value >> 255)
    return None if x is None else (x, y)


def encode_point(point: Point, *, y_plus_p: bool = False, sign: int | None = None) -> bytes:
    x, y = point
    value = (y + P if y_plus_p else y) | ((x & 1 if sign is None else sign) << 255)
    return value.to_bytes(32, "little")


def add(a: Point, b: Point) -> Point:
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2
    return ((x1 * y2 + x2 * y1) * pow(1 + t, P - 2, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, P - 2, P) % P)


def mul(k: int, point: Point) -> Point:
    result = IDENTITY
    while k:
        if k & 1:
            result = add(result, point)
        point = add(point, point)
        k >>= 1
    return result


BASE = (_x_of(4 * pow(5, P - 2, P) % P, 0) or 0, 4 * pow(5, P - 2, P) % P)


def small_order_points() -> list[Point]:
    """The 8 points of order dividing 8 (the torsion subgroup), found as L times points of small y."""
    found = {IDENTITY}
    y = 2
    while len(found) < 8:
        x = _x_of(y, 0)
        if x is not None:
            torsion = mul(L, (x, y))
            point = torsion
            for _ in range(8):
                found.add(point)
                point = add(point, torsion)
        y += 1
    return sorted(found)


def small_order_encodings() -> set[bytes]:
    """Every 32-byte string a lenient decoder reads as a small-order point: canonical or not, either sign bit."""
    encodings = set()
    for x, y in small_order_points():
        for y_plus_p in (False, True):
            if y_plus_p and y + P >= 2**255:
                continue
            for sign in (0, 1):
                encoding = encode_point((x, y), y_plus_p=y_plus_p, sign=sign)
                if decode_point(encoding) == (x, y):
                    encodings.add(encoding)
    return encodings


def secret_scalar(seed: bytes) -> int:
    digest = bytearray(hashlib.sha512(seed).digest()[:32])
    digest[0] &= 248
    digest[31] &= 127
    digest[31] |= 64
    return int.from_bytes(digest, "little")


def challenge(r: bytes, public: bytes, message: bytes) -> int:
    return int.from_bytes(hashlib.sha512(r + public + message).digest(), "little") % L


def sign_with_identity_r(seed: bytes, public: bytes, message: bytes) -> bytes:
    """A signature whose R is the identity: S = k·a. Valid for a cofactorless verifier; libsodium refuses it."""
    r = encode_point(IDENTITY)
    return r + (challenge(r, public, message) * secret_scalar(seed) % L).to_bytes(32, "little")


def forges(public: bytes, message: bytes) -> bytes | None:
    """For a small-order key: the signature (R = identity, S = 0) when it verifies for ``message``, else None.

    [0]B = R + [k]A holds when [k]A is the identity, i.e. k is a multiple of A's order: a 1/8 chance at worst.
    """
    point = decode_point(public)
    r = encode_point(IDENTITY)
    if point is None or mul(challenge(r, public, message), point) != IDENTITY:
        return None
    return r + bytes(32)


def forged_offer(public: bytes) -> str:
    """An olixono offer 'signed' by the small-order key ``public`` that a cofactorless verifier accepts.

    The signature is (R = identity, S = 0); the nonce is ground until [k]A is the identity.
    """
    text = base64.urlsafe_b64encode(public).rstrip(b"=").decode()
    for n in range(4096):
        nonce = base64.urlsafe_b64encode(n.to_bytes(16, "little")).rstrip(b"=").decode()
        unsigned = f"olixono/1 offer kind=oxono nonce={nonce} terms=rules:1 at=1790000000 by={text}"
        signature = forges(public, unsigned.encode())
        if signature is not None:
            return f"{unsigned} sig={base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"
    raise AssertionError("no forgery found")
