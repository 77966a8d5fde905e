"""The relay's accounts file: one ``name:hash`` line per account, never a plain password.

The format is Mosquitto's own password file, so one file serves both the
embedded relay and a Mosquitto relay (``password_file``). Two hashes:

- ``$6$``: SHA-512 over the password then the salt, salt and digest in
  standard base64. What ``adduser`` writes, for a token it generates (32
  characters, 192 bits of randomness): a token cannot be guessed, so its hash
  need not be slow, and a refused login costs the relay a microsecond. (Player
  keys are public: anyone may try logins for a real account. With a slow hash,
  26 refused logins a second stalled every game on Mosquitto's single thread.)
- ``$7$``: PBKDF2-HMAC-SHA512 with its iteration count, for passwords people
  chose (``mosquitto_passwd`` writes these, with 101 rounds). Still read; the
  embedded relay checks them in a worker thread. ``adduser`` replaces them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from relay.rules import check_account_name

ITERATIONS = 100_000
"""PBKDF2 rounds for ``$7$`` hashes made here (tests, people who insist on a password of their own)."""
SALT_BYTES = 12
MAX_ITERATIONS = 10_000_000
"""A hash asking for more rounds than this is refused rather than run (it could stall the relay)."""
TOKEN_BYTES = 24
"""Randomness in a generated account token (192 bits: 32 characters of base64url)."""
MIN_TOKEN_CHARS = 20
"""The shortest token ``adduser --password-stdin`` accepts: the hash is fast, so the token must be long."""


class UsersFileError(ValueError):
    """The users file cannot be read: a malformed line or an unknown hash."""


@dataclass(frozen=True, slots=True)
class PasswordHash:
    """One hash from the file: ``$6$`` (``iterations`` 0: one SHA-512) or ``$7$`` (PBKDF2-HMAC-SHA512)."""

    iterations: int
    salt: bytes
    digest: bytes

    @classmethod
    def make(cls, password: str, iterations: int = ITERATIONS, salt: bytes | None = None) -> PasswordHash:
        """A ``$7$`` (slow) hash of a password someone chose."""
        salt = os.urandom(SALT_BYTES) if salt is None else salt
        return cls(iterations, salt, hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations))

    @classmethod
    def for_token(cls, token: str, salt: bytes | None = None) -> PasswordHash:
        """A ``$6$`` (fast) hash of a generated token."""
        salt = os.urandom(SALT_BYTES) if salt is None else salt
        return cls(0, salt, hashlib.sha512(token.encode("utf-8") + salt).digest())

    @property
    def slow(self) -> bool:
        """Whether checking it takes real work (run it off the event loop)."""
        return self.iterations > 0

    @classmethod
    def parse(cls, text: str) -> PasswordHash:
        parts = text.split("$")
        try:
            if len(parts) == 4 and not parts[0] and parts[1] == "6":
                salt = base64.b64decode(parts[2], validate=True)
                digest = base64.b64decode(parts[3], validate=True)
                iterations = 0
            elif len(parts) == 5 and not parts[0] and parts[1] == "7":
                iterations = int(parts[2])
                salt = base64.b64decode(parts[3], validate=True)
                digest = base64.b64decode(parts[4], validate=True)
                if not 1 <= iterations <= MAX_ITERATIONS:
                    raise UsersFileError("malformed $7$ hash: bad iteration count")
            else:
                raise UsersFileError(f"not a $6$ (SHA-512) or $7$ (PBKDF2-SHA512) hash: {text[:12]}...")
        except ValueError as exc:
            if isinstance(exc, UsersFileError):
                raise
            raise UsersFileError(f"malformed ${parts[1]}$ hash: {exc}") from None
        if len(digest) != 64:
            raise UsersFileError("malformed hash: the digest is not 64 bytes")
        return cls(iterations, salt, digest)

    def text(self) -> str:
        salt, digest = base64.b64encode(self.salt).decode(), base64.b64encode(self.digest).decode()
        return f"$7${self.iterations}${salt}${digest}" if self.slow else f"$6${salt}${digest}"

    def verify(self, password: str) -> bool:
        """Whether ``password`` matches (constant time)."""
        data = password.encode("utf-8")
        if self.slow:
            candidate = hashlib.pbkdf2_hmac("sha512", data, self.salt, self.iterations)
        else:
            candidate = hashlib.sha512(data + self.salt).digest()
        return hmac.compare_digest(candidate, self.digest)


def make_token() -> str:
    """A new account token: 32 characters of base64url, to be shown once and stored only hashed."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def load(path: Path) -> dict[str, PasswordHash]:
    """The accounts in ``path`` (``UsersFileError`` on a bad line; ``FileNotFoundError`` if it is missing)."""
    users: dict[str, PasswordHash] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, hashed = line.partition(":")
        if not sep:
            raise UsersFileError(f"{path}:{number}: expected name:hash")
        try:
            users[name] = PasswordHash.parse(hashed)
        except UsersFileError as exc:
            raise UsersFileError(f"{path}:{number}: {exc}") from None
    return users


def save(path: Path, users: dict[str, PasswordHash]) -> None:
    """Write ``users`` to ``path`` atomically. A new file is readable by its owner only; an existing one keeps its
    owner, group and mode (the relay may run as another user than the one who edits its accounts)."""
    text = "".join(f"{name}:{hashed.text()}\n" for name, hashed in sorted(users.items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        before = path.stat()
    except FileNotFoundError:
        before = None
    fd, temp = tempfile.mkstemp(prefix=".users-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if before is None:
            os.chmod(temp, 0o600)
        else:
            if (before.st_uid, before.st_gid) != (os.getuid(), os.getgid()):
                os.chown(temp, before.st_uid, before.st_gid)
            os.chmod(temp, before.st_mode & 0o7777)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def add_user(path: Path, name: str, token: str | None = None) -> tuple[bool, str]:
    """Add ``name`` or give it a new token; (whether the account is new, its token). With no ``token`` one is
    generated; a given one must be at least :data:`MIN_TOKEN_CHARS` characters (its hash is fast)."""
    check_account_name(name)
    if token is None:
        token = make_token()
    elif len(token) < MIN_TOKEN_CHARS:
        raise ValueError(
            f"a relay password must be at least {MIN_TOKEN_CHARS} characters (it is checked with a "
            "fast hash); leave it out and adduser makes a strong one"
        )
    users = load(path) if path.exists() else {}
    new = name not in users
    users[name] = PasswordHash.for_token(token)
    save(path, users)
    return new, token


def delete_user(path: Path, name: str) -> bool:
    """Remove ``name``; ``False`` if there was no such account."""
    users = load(path)
    if users.pop(name, None) is None:
        return False
    save(path, users)
    return True
