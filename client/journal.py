"""The journal: every verified line of a game, on disk the moment it is applied; the game record.

One folder, ``$XDG_STATE_HOME/olixono/games/`` (``~/.local/state/olixono/games``
when unset), private to the user (mode 0700). Per game:

- ``<game id>.lines``: one line per verified message, in the order applied
  (the player's own lines before they are published), each appended and
  flushed to disk at once;
- ``<game id>.json``: what the client needs to take the game up again: the
  kind, this player's role and key, the relay, the guest's coin secret until
  it is revealed, and how many times it has connected (for presence);
- ``<game id>.proof-<n>.txt``: equivocation proofs, two lines each.

A crash can lose nothing that was applied: ``olixono resume`` rebuilds the
session from the lines (``GameSession.restore``) and publishes again what the
relay lacks.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from protocol import EquivocationDetected

GAME_ID_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class JournalError(Exception):
    """A journal that cannot be read or written, in one sentence."""


def state_dir(environ: dict[str, str] | None = None) -> Path:
    """The olixono state folder, following the XDG base directory rules."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "olixono"


def games_dir(environ: dict[str, str] | None = None) -> Path:
    return state_dir(environ) / "games"


def check_game_id(game: str) -> str:
    """``game`` if it can be a game id (22 base64url characters), else :class:`JournalError`."""
    if len(game) != 22 or not set(game) <= GAME_ID_CHARACTERS:
        raise JournalError(f"{game[:40]!r} is not a game id (22 letters, digits, - or _)")
    return game


@dataclass
class JournalMeta:
    """What the client keeps beside a game's lines."""

    game: str
    kind: str
    role: str
    """``host``, ``guest`` or ``watcher``."""
    key: str
    """This player's public key (base64url); empty for a watcher."""
    relay: str
    secret: str | None = None
    """The guest's coin-flip secret, kept from the join until the reveal."""
    connections: int = 0
    """How many times this client has connected to the game (the presence ``seq``)."""
    created: float = field(default_factory=time.time)


class Journal:
    """One game's journal (see the module docstring); create with :meth:`create`, reopen with :meth:`open`."""

    def __init__(self, directory: Path, meta: JournalMeta) -> None:
        self.directory = directory
        self.meta = meta
        self.lines_path = directory / f"{meta.game}.lines"
        self.meta_path = directory / f"{meta.game}.json"
        self._fd: int | None = None  # the lines file, opened once for appending
        self._unsynced = False  # written since the last fsync

    @classmethod
    def create(cls, meta: JournalMeta, directory: Path | None = None) -> Journal:
        """A new journal for ``meta.game`` (an existing one for that game is reopened, its lines kept)."""
        directory = directory or games_dir()
        check_game_id(meta.game)
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"cannot create the journal folder {directory}: {exc.strerror}") from None
        journal = cls(directory, meta)
        if journal.meta_path.exists():
            existing = cls.open(meta.game, directory)
            if existing.meta.key != meta.key or existing.meta.role != meta.role:
                raise JournalError(f"{journal.meta_path} belongs to another seat of this game")
            return existing
        journal.save_meta()
        return journal

    @classmethod
    def open(cls, game: str, directory: Path | None = None) -> Journal:
        directory = directory or games_dir()
        path = directory / f"{check_game_id(game)}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            meta = JournalMeta(**data)
        except FileNotFoundError:
            raise JournalError(f"no game {game} in the journal ({directory})") from None
        except (OSError, ValueError, TypeError) as exc:
            raise JournalError(f"{path} is damaged: {exc}") from None
        return cls(directory, meta)

    def save_meta(self) -> None:
        """Write the metadata atomically (a new file renamed over the old one)."""
        temporary = self.meta_path.with_suffix(".json.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(asdict(self.meta), handle, indent=1)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.meta_path)
        except OSError as exc:
            raise JournalError(f"cannot write {self.meta_path}: {exc.strerror}") from None

    def update(self, **changes: object) -> None:
        for name, value in changes.items():
            setattr(self.meta, name, value)
        self.save_meta()

    def keep_secret(self, secret: str | None) -> None:
        """Keep the guest's coin-flip secret (before the join that commits to it is published)."""
        self.update(secret=secret)

    def append(self, line: str) -> None:
        """Add one line and flush it to disk before returning."""
        self.write(line)
        self.sync()

    def write(self, line: str) -> None:
        """Add one line to the file (the operating system has it: a crash of this process cannot lose it)."""
        if "\n" in line or "\r" in line:
            raise JournalError("a journal line holds no line break")
        data = (line + "\n").encode("utf-8")
        try:
            if self._fd is None:
                self._fd = os.open(self.lines_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            written = os.write(self._fd, data)
            while written < len(data):  # a short write (rare): the rest
                written += os.write(self._fd, data[written:])
            self._unsynced = True
        except OSError as exc:
            raise JournalError(f"cannot write {self.lines_path}: {exc.strerror}") from None

    def sync(self) -> None:
        """Flush what was written to the disk itself (a crash of the machine cannot lose it either); nothing to do
        when nothing was written since the last flush."""
        if self._fd is None or not self._unsynced:
            return
        try:
            os.fsync(self._fd)
            self._unsynced = False
        except OSError as exc:
            raise JournalError(f"cannot flush {self.lines_path}: {exc.strerror}") from None

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __del__(self) -> None:
        self.close()

    def lines(self) -> list[str]:
        """The lines written so far (a last line cut short by a crash is left out)."""
        try:
            text = self.lines_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise JournalError(f"cannot read {self.lines_path}: {exc.strerror}") from None
        lines = text.split("\n")
        return [line for line in lines[:-1] if line]  # the part after the last newline was never finished

    def save_proof(self, proof: EquivocationDetected) -> Path:
        """Write an equivocation proof next to the journal; its path."""
        for n in range(1, 1000):
            path = self.directory / f"{self.meta.game}.proof-{n}.txt"
            if not path.exists():
                path.write_text(f"{proof.first}\n{proof.second}\n", encoding="utf-8")
                return path
        raise JournalError("too many proofs for one game")


def journals(directory: Path | None = None) -> Iterator[Journal]:
    """Every game in the journal folder, newest first (unreadable ones skipped)."""
    directory = directory or games_dir()
    found = []
    for path in directory.glob("*.json") if directory.exists() else ():
        try:
            found.append(Journal.open(path.stem, directory))
        except JournalError:
            continue
    yield from sorted(found, key=lambda journal: journal.meta.created, reverse=True)
