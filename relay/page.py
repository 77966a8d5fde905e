"""What a relay's web listener serves beside MQTT over WebSocket: the spectator's page, its own files and no other.

A relay started with a web port (``olixono relay --web PORT``, or the one ``olixono host`` starts) answers on that port
both a WebSocket upgrade at :data:`MQTT_PATH` (MQTT, under the same checks and limits as its TCP listener:
:mod:`relay.embedded`) and a plain ``GET`` of one of the page's files (:func:`reply`). The files are the ``web``
folder's: static HTML, CSS and JavaScript modules; nothing runs on the relay for them.

Pure: a request's path in, a :class:`Reply` out (the file read from the page's folder), so the rules are tested
without a server: only files under the folder, of a known type, none hidden, nothing reached through ``..``, an
encoded character or a link out of the folder; every reply carries a Content-Security-Policy with no inline script.
"""

from __future__ import annotations

import gzip
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

MQTT_PATH = "/mqtt"
"""Where MQTT over WebSocket is upgraded to (what browsers' MQTT clients, mqtt.js among them, ask for by default)."""

INDEX = "index.html"
"""The file ``/`` names."""

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".png": "image/png",
    ".ico": "image/x-icon",
}
"""The kinds of file the page is made of, by suffix: nothing else is served (no ``.py``, no ``.md``)."""

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page's Content-Security-Policy: its own scripts and styles only (no inline script, no ``eval``), and
connections to any MQTT-over-WebSocket relay (a game's links may name several)."""

HEADERS = (
    ("Content-Security-Policy", POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-cache"),
)
"""Headers of every reply."""

UNSERVED = frozenset({"tests"})
"""Folders of the page's tree that are no part of the page (its JavaScript tests)."""

_PATH = re.compile(r"/(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*/)*(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*)?")
"""A request path the page may hold: plain names, none beginning with a dot (so no ``..``, no hidden file), no ``%``
escape, no backslash."""


@dataclass(frozen=True, slots=True)
class Reply:
    """An HTTP reply: status, reason, headers and body."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: bytes


def page_root() -> Path:
    """The page's folder, as installed: the ``web`` package beside this one."""
    import web

    return Path(web.__file__).parent


def ready(root: Path) -> bool:
    """Whether ``root`` holds a page to serve (its index)."""
    return (root / INDEX).is_file()


def game_link(page_url: str, game: str) -> str:
    """The page's address that watches ``game``: ``http://127.0.0.1:8080/#game=ID`` (the fragment stays in the
    browser: the relay never learns which game a visitor opened the page for)."""
    return f"{page_url}#game={game}"


def page_file(root: Path, target: str) -> Path | None:
    """The file of the page at ``root`` that a request's target (``/js/board.js?v=1``) names, or ``None``: not a path
    the page may hold, not of a kind it is made of, or not there."""
    path = target.split("?", 1)[0].split("#", 1)[0]
    if not _PATH.fullmatch(path):
        return None
    name = path[1:] or INDEX
    if name.split("/", 1)[0] in UNSERVED:
        return None
    if name.endswith("/"):
        name += INDEX
    if Path(name).suffix not in CONTENT_TYPES:
        return None
    base = root.resolve()
    found = (base / name).resolve()
    if not found.is_relative_to(base) or not found.is_file():  # a link out of the folder is not the page's
        return None
    return found


def reply(root: Path, target: str, accept_encoding: str = "") -> Reply:
    """The reply to a ``GET`` of ``target``: the file (gzipped where the browser takes it: a third of the bytes), or
    404."""
    found = page_file(root, target)
    if found is None:
        return Reply(
            404,
            "Not Found",
            (*HEADERS, ("Content-Type", "text/plain; charset=utf-8")),
            b"not found: this relay serves the olixono page's own files, and MQTT over WebSocket at "
            + MQTT_PATH.encode()
            + b"\n",
        )
    headers = (*HEADERS, ("Content-Type", CONTENT_TYPES[found.suffix]), ("Vary", "Accept-Encoding"))
    if "gzip" in accept_encoding.lower() and found.suffix not in (".png", ".ico"):
        return Reply(200, "OK", (*headers, ("Content-Encoding", "gzip")), _gzipped(found))
    return Reply(200, "OK", headers, found.read_bytes())


_GZIPPED: dict[tuple[Path, int, int], bytes] = {}
"""Files compressed once (by path, modification time and size)."""


def _gzipped(path: Path) -> bytes:
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    data = _GZIPPED.get(key)
    if data is None:
        if len(_GZIPPED) > 200:
            _GZIPPED.clear()
        data = _GZIPPED[key] = gzip.compress(path.read_bytes(), mtime=0)
    return data


def page_files(root: Path) -> list[Path]:
    """The page's files under ``root`` (relative paths, sorted): every file a ``GET`` may be given, and no other."""
    base = root.resolve()
    return sorted(
        found.relative_to(base)
        for found in base.rglob("*")
        if page_file(base, "/" + found.relative_to(base).as_posix()) is not None
    )


def copy_page(root: Path, destination: Path) -> list[Path]:
    """Copy the page's files from ``root`` into ``destination`` (made if missing; files of the same names replaced),
    for a static web server of one's own; returns the paths written."""
    written = []
    for name in page_files(root):
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / name, target)
        written.append(target)
    return written
