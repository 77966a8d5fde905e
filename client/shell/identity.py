"""The player's identity on disk: one Ed25519 key in the user's config folder, owner-only.

The file ``$XDG_CONFIG_HOME/olixono/identity`` (``~/.config/olixono/identity``
when ``XDG_CONFIG_HOME`` is unset) holds one line, ``olixono-ed25519-seed
<base64url seed>``. It is created on first use with mode 0600 in a 0700
folder; a key file that others may read is refused, as ssh does.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from protocol.keys import Identity, b64, unb64

HEADER = "olixono-ed25519-seed"


class IdentityError(Exception):
    """The identity file cannot be used (bad permissions, damaged content)."""


def config_dir(environ: dict[str, str] | None = None) -> Path:
    """The olixono config folder, following the XDG base directory rules."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "olixono"


def identity_path(environ: dict[str, str] | None = None) -> Path:
    return config_dir(environ) / "identity"


def load_identity(path: Path) -> Identity:
    """Read an identity file; :class:`IdentityError` if it is unsafe or damaged."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise IdentityError(
            f"{path} can be read by other users (mode {mode:o}); make it private with: chmod 600 {path}"
        )
    text = path.read_text(encoding="ascii", errors="replace").strip()
    header, _, seed = text.partition(" ")
    try:
        if header != HEADER:
            raise ValueError(f"it does not start with {HEADER}")
        return Identity.from_seed(unb64(seed, 32))
    except ValueError as exc:
        raise IdentityError(f"{path} is not an olixono identity file: {exc}") from None


def save_identity(identity: Identity, path: Path) -> None:
    """Write ``identity`` to a new file readable by its owner only (never replacing one)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(f"{HEADER} {b64(identity.seed())}\n")


def get_identity(path: Path | None = None) -> tuple[Identity, bool]:
    """The user's identity, created on first use; also whether it was just created."""
    path = path or identity_path()
    if path.exists():
        return load_identity(path), False
    identity = Identity.generate()
    save_identity(identity, path)
    return identity, True
