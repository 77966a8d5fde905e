"""The journal: every verified line of a game, on disk the moment it is applied; the game record.

One folder, ``$XDG_STATE_HOME/olixono/games/`` (``~/.local/state/olixono/games``
when unset), private to the user (mode 0700). Per game:

- ``<game id>.lines``: one line per verified message, in the order applied
  (the player's own lines before they are published), each appended and
  flushed to disk at once;
- ``<game id>.json``: what the client needs to take the game up again: the
  kind, this player's role and key, the relay, the guest's coin secret until
  it is revealed, and how many times it has connected (for presence);
- ``<game id>.proof-<n>.txt``: equivocation proofs, two lines each (the lines are in ``.lines`` too, so that a
  restored session reaches the same forfeit);
- ``<game id>.lock``: held (``flock``) by the one process that plays this seat, with its pid and terminal.

A crash can lose nothing that was applied: ``olixono resume`` rebuilds the
session from the lines (:meth:`Journal.restore`, which checks every line and
names each damaged one by its number) and publishes again what the relay
lacks.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from protocol import (
    EquivocationDetected,
    GameSession,
    Identity,
    LineRejected,
    LocalProtocolError,
    MessageType,
    Phase,
    decode,
)
from protocol.errors import RemoteProtocolError
from protocol.messages import game_id_problem

LOCAL = "local"
"""The role of a game played at one terminal (``olixono play``): both seats signed here, with keys made for that game
alone (:mod:`client.shell.local_record`); nothing to take up again, nothing on a relay."""


class JournalError(Exception):
    """A journal that cannot be read or written, in one sentence."""


class SeatTaken(JournalError):
    """Another process holds this game's seat (its journal's lock)."""


@dataclass(frozen=True, slots=True)
class Damage:
    """A line of a journal that does not hold: its number in the ``.lines`` file, and why, in words."""

    number: int
    why: str
    line: str = ""
    """The damaged line as it stands in the file (to see whether the relay still has what it should have been)."""

    def __str__(self) -> str:
        return f"line {self.number}: {self.why}"


def state_dir(environ: dict[str, str] | None = None) -> Path:
    """The olixono state folder, following the XDG base directory rules."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "olixono"


def games_dir(environ: dict[str, str] | None = None) -> Path:
    return state_dir(environ) / "games"


def check_game_id(game: str) -> str:
    """``game`` if it can be a game id (:func:`protocol.messages.game_id_problem`), else :class:`JournalError`."""
    problem = game_id_problem(game)
    if problem is not None:
        raise JournalError(problem)
    return game


@dataclass
class JournalMeta:
    """What the client keeps beside a game's lines."""

    game: str
    kind: str
    role: str
    """``host``, ``guest``, ``watcher``, or ``local`` for a game at one terminal (:data:`LOCAL`)."""
    key: str
    """This player's public key (base64url); empty for a watcher."""
    relay: str
    secret: str | None = None
    """The guest's coin-flip secret, kept from the join until the reveal."""
    connections: int = 0
    """How many times this client has connected to the game (the presence ``seq``)."""
    cafile: str | None = None
    """The CA the relay's certificate was checked with (``--cafile``), for ``resume`` to use again."""
    turn: list[float] | None = None
    """In a timed game: ``[moves played, wall-clock time]`` when this client saw the current turn begin, so that a
    resumed player's thinking counts the time it was away (:meth:`client.cores.network_game.GameCore.resume_turn`)."""
    ran_relay: bool = False
    """The host's own process ran the relay (the embedded one ``host`` starts when none answers): the host's
    ``resume`` starts it again when nothing answers there; a guest's (which learnt it from the host's presence) says
    that the relay comes back with the host."""
    left_unseated: bool = False
    """The guest left before the host seated it: nothing binds it, and the game is closed on its side (``resume``
    lists it no more; ``resume GAME`` takes it up again, should the host seat it after all)."""
    vs: str | None = None
    """A game at one terminal (role :data:`LOCAL`): the bot the person played against (``None``: two people)."""
    seat: str | None = None
    """A game at one terminal against a bot: the person's seat (``pink``, ``first``, …)."""
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
        self._lock: int | None = None  # the lock file, held while this process plays the seat

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

    def rewrite(self, lines: list[str]) -> None:
        """Put ``lines`` in place of the file's (a new file renamed over the old one, flushed first): a game at one
        terminal drops the lines of the moves taken back, which no opponent saw. Never for a network game's seat,
        whose lines may have been published."""
        if any("\n" in line or "\r" in line for line in lines):
            raise JournalError("a journal line holds no line break")
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
        temporary = self.lines_path.with_suffix(".lines.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write("".join(line + "\n" for line in lines))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.lines_path)
        except OSError as exc:
            raise JournalError(f"cannot write {self.lines_path}: {exc.strerror}") from None
        self._unsynced = False

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
        if self._lock is not None:
            lock, self._lock = self._lock, None
            os.close(lock)  # releases the flock

    # -- one seat, one process ----------------------------------------------------------------
    @property
    def lock_path(self) -> Path:
        return self.directory / f"{self.meta.game}.lock"

    def lock(self) -> None:
        """Hold this seat for this process, until it ends (or :meth:`close`): :class:`SeatTaken`, naming the other
        process, when one holds it. Two processes for one seat would sign two lines for one slot, which loses the
        game (``PROTOCOL.md`` §6)."""
        if self._lock is not None:
            return
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise JournalError(f"cannot open {self.lock_path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 400).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise SeatTaken(
                f"game {self.meta.game} is open in another olixono process ({holder}); a seat is played "
                "by one process at a time: leave that one first (/quit), then take it up here"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, _holder().encode("utf-8"))
        self._lock = fd

    def __del__(self) -> None:
        self.close()

    def lines(self) -> list[str]:
        """The lines written so far (a last line cut short by a crash is left out)."""
        return self._read()[0]

    def _read(self) -> tuple[list[str], str]:
        """The finished lines, and what follows the last line break (a line cut short by a crash, or nothing)."""
        try:
            text = self.lines_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return [], ""
        except OSError as exc:
            raise JournalError(f"cannot read {self.lines_path}: {exc.strerror}") from None
        lines = text.split("\n")
        return [line for line in lines[:-1] if line], lines[-1]  # after the last newline: never finished

    def restore(self, identity: Identity | None = None) -> tuple[GameSession, list[Damage]]:
        """Rebuild the game from the journal, checking every line: the session, and each damaged line by its number
        (a line that does not verify, one that depends on a line the journal lacks, one cut short by a crash).

        :class:`JournalError` when nothing can be rebuilt: no offer of this game, or (for a guest who has not
        revealed yet) a coin secret that does not open its join.
        """
        lines, tail = self._read()
        session = GameSession(self.meta.game, identity)
        damage: list[Damage] = []
        first: dict[str, int] = {}
        for number, line in enumerate(lines, 1):
            first.setdefault(line, number)
            shown = line[:200]
            for event in session.receive(line):
                if isinstance(event, LineRejected) and event.line == shown:
                    damage.append(Damage(number, f"{event.code}: {event.sentence}", line))
        for line in session.waiting:
            if line in first:
                damage.append(Damage(first[line], "a line it depends on is missing from the journal", line))
        proven = {text for proof in session.proofs for text in (proof.first, proof.second)}
        damage = [item for item in damage if item.line not in proven]  # a proof's lines need not apply
        if tail:
            damage.append(Damage(len(lines) + 1, "cut short (the program stopped while writing it)", tail))
        if not session.chain:
            raise JournalError(
                f"the journal of game {self.meta.game} ({self.lines_path}) holds no offer of that game"
                + (f" ({damage[0]})" if damage else "")
            )
        secret = self.meta.secret
        if secret is not None and identity is not None and session.phase in (Phase.OFFERED, Phase.ACCEPTED):
            try:
                session = GameSession.restore(lines, identity, game_id=self.meta.game, secret=secret)
            except LocalProtocolError:
                raise JournalError(
                    f"the journal of game {self.meta.game} is damaged: its coin secret does not open "
                    f"your join ({self.meta_path}), so the coin flip cannot be revealed"
                ) from None
        return session, sorted(damage, key=lambda item: item.number)

    def save_proof(self, proof: EquivocationDetected) -> Path:
        """Write an equivocation proof next to the journal; its path."""
        for n in range(1, 1000):
            path = self.directory / f"{self.meta.game}.proof-{n}.txt"
            if not path.exists():
                path.write_text(f"{proof.first}\n{proof.second}\n", encoding="utf-8")
                return path
        raise JournalError("too many proofs for one game")


def repaired(damage: list[Damage], session: GameSession) -> bool:
    """Whether ``session`` (the journal's lines and the relay's) now holds what each damaged line stood for: nothing
    waits for a missing line, and every damaged line that still names its slot has a line in that slot."""
    if session.waiting:
        return False
    held = {(message.signer, message.slot) for message in (decode(line, verify=False) for line in session.transcript)}
    for item in damage:
        try:
            message = decode(item.line, verify=False)
        except RemoteProtocolError:
            continue  # nothing left of what it was: the relay's lines (nothing waiting) must do
        if message.type is not MessageType.PRESENCE and (message.signer, message.slot) not in held:
            return False
    return True


def _holder() -> str:
    """This process, as another one names it: its pid, its terminal, since when."""
    terminal = "no terminal"
    for stream in (sys.stdin, sys.stdout):
        try:
            if stream is not None and stream.isatty():
                terminal = f"terminal {os.ttyname(stream.fileno())}"
                break
        except (OSError, ValueError):
            continue
    return f"pid {os.getpid()}, {terminal}, since {time.strftime('%H:%M')}"


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
