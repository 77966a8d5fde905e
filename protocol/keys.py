"""Ed25519 identities: a player's identity is their public key.

Keys are raw 32-byte Ed25519 keys; on the wire they are base64url without
padding (43 characters). People see a short :func:`fingerprint`. Storing a
key on disk is the client's job (``client/identity.py``).
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


def fingerprint(public: bytes) -> str:
    """A short name people can compare: 64 bits of the key's SHA-256, in four groups of hex."""
    digest = hashlib.sha256(public).hexdigest()[:16]
    return "-".join(digest[i : i + 4] for i in range(0, 16, 4))


class PublicKey:
    """A verifying key, loaded from its 32 raw bytes (cached: one per player)."""

    __slots__ = ("raw", "text", "_key")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.text = b64(raw)
        self._key = Ed25519PublicKey.from_public_bytes(raw)

    def verify(self, signature: bytes, data: bytes) -> bool:
        try:
            self._key.verify(signature, data)
        except InvalidSignature:
            return False
        return True

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.raw)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PublicKey) and other.raw == self.raw

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
