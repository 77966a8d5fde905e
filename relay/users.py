"""The relay's accounts file: one ``name:hash`` line per account, never a plain password.

The format is Mosquitto's own password file (``$7$``: PBKDF2-HMAC-SHA512 with
the iteration count, salt and digest in standard base64), so one file serves
both the embedded relay and a Mosquitto relay (``password_file``), and
``mosquitto_passwd`` can manage it too. Mosquitto honours the iteration count
written in each line; ``mosquitto_passwd`` itself writes only 101, we write
:data:`ITERATIONS`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from relay.rules import check_account_name

ITERATIONS = 100_000
"""PBKDF2 rounds for new hashes: about 50 ms per check here, paid once per connection."""
SALT_BYTES = 12
MAX_ITERATIONS = 10_000_000
"""A hash asking for more rounds than this is refused rather than run (it could stall the relay)."""


class UsersFileError(ValueError):
    """The users file cannot be read: a malformed line or an unknown hash."""


@dataclass(frozen=True, slots=True)
class PasswordHash:
    """One ``$7$`` hash: PBKDF2-HMAC-SHA512 over the UTF-8 password."""

    iterations: int
    salt: bytes
    digest: bytes

    @classmethod
    def make(cls, password: str, iterations: int = ITERATIONS, salt: bytes | None = None) -> PasswordHash:
        salt = os.urandom(SALT_BYTES) if salt is None else salt
        return cls(iterations, salt, hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations))

    @classmethod
    def parse(cls, text: str) -> PasswordHash:
        parts = text.split("$")
        if len(parts) != 5 or parts[0] or parts[1] != "7":
            raise UsersFileError(f"not a $7$ (PBKDF2-SHA512) hash: {text[:12]}...")
        try:
            iterations = int(parts[2])
            salt = base64.b64decode(parts[3], validate=True)
            digest = base64.b64decode(parts[4], validate=True)
        except ValueError as exc:
            raise UsersFileError(f"malformed $7$ hash: {exc}") from None
        if not 1 <= iterations <= MAX_ITERATIONS or len(digest) != 64:
            raise UsersFileError("malformed $7$ hash: bad iteration count or digest length")
        return cls(iterations, salt, digest)

    def text(self) -> str:
        return f"$7${self.iterations}${base64.b64encode(self.salt).decode()}${base64.b64encode(self.digest).decode()}"

    def verify(self, password: str) -> bool:
        """Whether ``password`` matches (constant time; CPU-heavy: run it off the event loop)."""
        candidate = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), self.salt, self.iterations)
        return hmac.compare_digest(candidate, self.digest)


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
    """Write ``users`` to ``path`` atomically, readable by its owner only."""
    text = "".join(f"{name}:{hashed.text()}\n" for name, hashed in sorted(users.items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=".users-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, 0o600)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def add_user(path: Path, name: str, password: str, iterations: int = ITERATIONS) -> bool:
    """Add ``name`` or change its password; ``True`` if the account is new."""
    check_account_name(name)
    if not password:
        raise ValueError("the password is empty")
    users = load(path) if path.exists() else {}
    new = name not in users
    users[name] = PasswordHash.make(password, iterations)
    save(path, users)
    return new


def delete_user(path: Path, name: str) -> bool:
    """Remove ``name``; ``False`` if there was no such account."""
    users = load(path)
    if users.pop(name, None) is None:
        return False
    save(path, users)
    return True
