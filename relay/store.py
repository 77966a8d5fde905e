"""The embedded relay's retained messages on disk (``olixono relay --data DIR``).

One SQLite file, ``DIR/retained.sqlite3``, with one row per retained topic. Every change is queued by the
broker (which never waits for the disk) and written, in order, by one thread that owns the only connection, in
batches of whatever is waiting; a write that fails (SQLite "database is locked", a full disk) is tried again with
a growing pause, and what still fails after :data:`ATTEMPTS` tries is logged as an error with its count, never
dropped in silence. :meth:`RetainedStore.close` returns once everything queued is on disk, so a clean stop loses
nothing.

amqtt's own persistence plugin (``SessionDBPlugin``), which the relay used before, wrote each message in a task
of its own through SQLAlchemy; under a burst, concurrent writes failed with "database is locked" and the message
was lost with nothing but a traceback (10,000 lines in memory, 9,997 on disk after a clean stop). Its table of
retained messages is read once, the first time a data folder written by it is opened.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from pathlib import Path

log = logging.getLogger("relay")

DATABASE_NAME = "retained.sqlite3"
ATTEMPTS = 20
"""Tries for one batch of writes (pauses from 10 ms, doubling, at most 1 s between two)."""
_STOP = object()


class RetainedStore:
    """``load()`` what a folder holds, then ``put()`` every change; ``close()`` flushes and stops the writer."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / DATABASE_NAME
        self.lost = 0
        """Changes that could not be written after every try (each was logged as an error)."""
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=5, isolation_level=None, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("CREATE TABLE IF NOT EXISTS retained (topic TEXT PRIMARY KEY, data BLOB NOT NULL)")
        return connection

    def load(self) -> dict[str, bytes]:
        """Every retained message the folder holds (importing amqtt's own table the first time), and start the
        writer."""
        connection = self._connect()
        try:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            empty = connection.execute("SELECT COUNT(*) FROM retained").fetchone()[0] == 0
            if empty and "stored_messages" in tables:
                rows = connection.execute(
                    "SELECT topic, data FROM stored_messages WHERE data IS NOT NULL AND length(data) > 0 ORDER BY id"
                ).fetchall()
                with connection:
                    connection.execute("BEGIN")
                    connection.executemany("INSERT OR REPLACE INTO retained VALUES (?, ?)", rows)
                log.info("imported %d retained messages from amqtt's persistence table", len(rows))
            held = {topic: bytes(data) for topic, data in connection.execute("SELECT topic, data FROM retained")}
        finally:
            connection.close()
        self._thread = threading.Thread(target=self._write, name="relay-retained-store", daemon=True)
        self._thread.start()
        return held

    def put(self, topic: str, data: bytes | None) -> None:
        """Queue a change: ``data`` retained on ``topic``, or (empty or ``None``) the topic cleared."""
        self._queue.put((topic, bytes(data) if data else None))

    def close(self) -> None:
        """Write everything queued, then stop the writer."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()
            self._thread = None

    # -- the writer thread ---------------------------------------------------------------------------------
    def _write(self) -> None:
        connection = self._connect()
        try:
            stopping = False
            while not stopping:
                batch = [self._queue.get()]
                while True:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                if batch[-1] is _STOP:
                    stopping = True
                    batch.pop()
                changes = [item for item in batch if item is not _STOP]
                if changes:
                    self._apply(connection, changes)  # type: ignore[arg-type]
        finally:
            connection.close()

    def _apply(self, connection: sqlite3.Connection, changes: list[tuple[str, bytes | None]]) -> None:
        pause = 0.01
        for attempt in range(1, ATTEMPTS + 1):
            try:
                connection.execute("BEGIN IMMEDIATE")
                for topic, data in changes:
                    if data is None:
                        connection.execute("DELETE FROM retained WHERE topic = ?", (topic,))
                    else:
                        connection.execute("INSERT OR REPLACE INTO retained VALUES (?, ?)", (topic, data))
                connection.execute("COMMIT")
                if attempt > 1:
                    log.info("wrote %d retained messages to %s after %d tries", len(changes), self.path, attempt)
                return
            except sqlite3.Error as exc:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                if attempt == ATTEMPTS:
                    self.lost += len(changes)
                    log.error(
                        "could not write %d retained messages to %s after %d tries (%s): they live in memory "
                        "only until the relay stops",
                        len(changes),
                        self.path,
                        ATTEMPTS,
                        exc,
                    )
                    return
                if attempt == 1:
                    log.warning("writing retained messages to %s failed (%s); trying again", self.path, exc)
                time.sleep(pause)
                pause = min(pause * 2, 1.0)
