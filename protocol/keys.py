"""Ed25519 identities: a player's identity is their public key.

Keys are raw 32-byte Ed25519 keys; on the wire they are base64url without
padding (43 characters). People see a short :func:`fingerprint`. Storing a
key on disk is the client's job (``client/shell/identity.py``).

Verification is stricter than RFC 8032's, so that every implementation
reaches the same verdict (libsodium's rules, ``PROTOCOL.md`` §2): a public
key or a signature's ``R`` that is a non-canonical encoding (``y`` ≥ p) or one
of the 14 encodings of the 8 small-order points is refused, and so is an
``S`` that is not below the group order L. Without this, anyone could sign
as a small-order key (``cryptography`` accepts such signatures), and a
signature whose ``R`` is the identity would be valid for one implementation
and not for another.
"""

from __future__ import annotations

import base64
import hashlib
import os

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

KEY_BYTES = 32
SIGNATURE_BYTES = 64
FIELD_P = 2**255 - 19
GROUP_L = 2**252 + 27742317777372353535851937790883648493
"""The field prime p and the order L of the Ed25519 base point."""

SMALL_ORDER_ENCODINGS = frozenset(
    bytes.fromhex(text)
    for text in (
        "0000000000000000000000000000000000000000000000000000000000000000",  # y = 0 (order 4)
        "0000000000000000000000000000000000000000000000000000000000000080",
        "0100000000000000000000000000000000000000000000000000000000000000",  # the identity
        "0100000000000000000000000000000000000000000000000000000000000080",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p - 1 (order 2)
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p (non-canonical 0)
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p + 1 (non-canonical 1)
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    )
)
"""Every 32-byte encoding of a point of order 1, 2, 4 or 8, canonical or not (libsodium's list, complete)."""

_Y_MASK = (1 << 255) - 1


class WeakKeyError(ValueError):
    """A public key that anyone could sign for, or that implementations disagree on."""


def b64(data: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str, length: int) -> bytes:
    """Decode base64url without padding to exactly ``length`` bytes, accepting only the canonical spelling."""
    if len(text) != (length * 8 + 5) // 6:
        raise ValueError(f"expected {length} bytes in base64url, got {len(text)} characters")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64(data) != text:
        raise ValueError("not the canonical base64url spelling")
    return data


def point_problem(encoding: bytes) -> str | None:
    """Why a 32-byte point encoding (a key, or a signature's ``R``) is refused, or ``None``."""
    if encoding in SMALL_ORDER_ENCODINGS:
        return "a small-order point"
    if int.from_bytes(encoding, "little") & _Y_MASK >= FIELD_P:
        return "a non-canonical point encoding (y is not below p)"
    return None


def signature_problem(signature: bytes) -> str | None:
    """Why a 64-byte signature is refused before the curve arithmetic, or ``None``: ``R`` and ``S`` canonical."""
    problem = point_problem(signature[:32])
    if problem is not None:
        return f"its R is {problem}"
    if int.from_bytes(signature[32:], "little") >= GROUP_L:
        return "its S is not below the group order"
    return None


def fingerprint(public: bytes) -> str:
    """A short name people can compare: 64 bits of the key's SHA-256, in four groups of hex."""
    digest = hashlib.sha256(public).hexdigest()[:16]
    return "-".join(digest[i : i + 4] for i in range(0, 16, 4))


class PublicKey:
    """A verifying key, loaded from its 32 raw bytes once (:class:`WeakKeyError` for a refused one).

    Compares and hashes by its bytes; ``text`` is its wire form.
    """

    __slots__ = ("_key", "raw", "text")

    def __init__(self, raw: bytes) -> None:
        if len(raw) != KEY_BYTES:
            raise ValueError(f"an Ed25519 public key is {KEY_BYTES} bytes, not {len(raw)}")
        problem = point_problem(raw)
        if problem is not None:
            raise WeakKeyError(f"the key is {problem}: anyone could sign for it")
        self.raw = raw
        self.text = b64(raw)
        self._key = Ed25519PublicKey.from_public_bytes(raw)

    @classmethod
    def from_text(cls, text: str) -> PublicKey:
        """The key whose base64url text is ``text`` (``ValueError`` if it is not one)."""
        return cls(unb64(text, KEY_BYTES))

    def verify(self, signature: bytes, data: bytes) -> bool:
        """Whether ``signature`` is this key's over ``data``, under the strict rules above."""
        if signature_problem(signature) is not None:
            return False
        try:
            self._key.verify(signature, data)
        except InvalidSignature:
            return False
        return True

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.raw)

    def __eq__(self, other: object) -> bool:
        return other is self or (isinstance(other, PublicKey) and other.raw == self.raw)

    def __hash__(self) -> int:
        return hash(self.raw)

    def __repr__(self) -> str:
        return f"PublicKey({self.fingerprint})"


class Identity:
    """A signing key and its public half."""

    __slots__ = ("_key", "public")

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public = PublicKey(raw)

    @classmethod
    def generate(cls) -> Identity:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """The identity whose private key is the 32-byte ``seed`` (test vectors use fixed seeds)."""
        if len(seed) != KEY_BYTES:
            raise ValueError(f"an Ed25519 seed is {KEY_BYTES} bytes, not {len(seed)}")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    def seed(self) -> bytes:
        """The 32 private bytes, for storing the key."""
        return self._key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)

    @property
    def fingerprint(self) -> str:
        return self.public.fingerprint

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"


def random_token(length: int = 16) -> str:
    """Fresh randomness for nonces, salts and secrets, in base64url."""
    return b64(os.urandom(length))
