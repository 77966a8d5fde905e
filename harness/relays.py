"""A relay in a process of its own on 127.0.0.1, as the benchmarks and the soak run one: the embedded relay
(``python -m relay``) or Mosquitto (the configuration ``relay.mosquitto`` writes).

    with RelayProcess("mosquitto", folder) as relay:
        ...  # clients connect to 127.0.0.1:relay.port

Its port is chosen once, so that a relay killed (:meth:`RelayProcess.kill`, SIGKILL, as a crash) starts again on
the same port. Every process is started here and stopped by its PID.
"""

from __future__ import annotations

import getpass
import signal
import subprocess
import sys
from pathlib import Path

from relay.mosquitto import MosquittoProcess, MosquittoSettings, free_port, listening, write_config

ROOT = Path(__file__).resolve().parents[1]
STARTING = 120.0
"""Seconds at most a relay (or the chaos proxy in front of it) may take to listen: only a safety net for a busy
machine, since the wait ends as soon as it listens, or as soon as its process ends."""


def _terminate(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


class RelayProcess:
    """A relay of ``kind`` (``embedded`` or ``mosquitto``) with its files under ``workdir``.

    ``limits``: the embedded relay keeps its per-address limits (off by default: a benchmark's clients all come
    from 127.0.0.1; the limits are meant for strangers). ``data``: True keeps the relay's data on disk, False keeps
    it in memory, None leaves each relay's own default (the embedded relay in memory, Mosquitto persistent).
    ``users_file``: a private relay, with these accounts. ``extra``: more options of ``python -m relay``.
    ``delay``: every packet held that long, by the chaos proxy (``python -m harness.chaos``) in front of the relay.
    ``autosave``: Mosquitto saves its database every that many changes. The embedded relay's log is
    ``workdir/relay.log``; Mosquitto's, ``workdir/mosquitto/mosquitto.log``.
    """

    def __init__(
        self,
        kind: str,
        workdir: Path,
        *,
        limits: bool = False,
        data: bool | None = None,
        users_file: Path | None = None,
        extra: tuple[str, ...] = (),
        delay: float = 0.0,
        autosave: int | None = None,
    ) -> None:
        if kind not in ("embedded", "mosquitto"):
            raise ValueError(f"no relay of kind {kind!r}: embedded or mosquitto")
        self.kind, self.workdir, self.limits, self.data = kind, workdir, limits, data
        self.users_file, self.extra, self.delay, self.autosave = users_file, extra, delay, autosave
        self.port = free_port()
        """Where clients connect (the chaos proxy's port, with ``delay``)."""
        self.relay_port = free_port() if delay else self.port
        self.process: subprocess.Popen[bytes] | None = None
        self.mosquitto: MosquittoProcess | None = None
        self.proxy: subprocess.Popen[bytes] | None = None
        self.kills = 0
        self.log = workdir / "relay.log"

    def start(self) -> RelayProcess:
        """Start the relay (and the proxy in front of it); return once clients can connect."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.kind == "embedded":
            listening(self.relay_port, self._start_embedded(), "the embedded relay", STARTING)
        else:
            self._start_mosquitto()  # returns once Mosquitto listens
        if self.delay and self.proxy is None:
            self.proxy = subprocess.Popen(
                [
                    *(sys.executable, "-m", "harness.chaos"),
                    *("--relay-port", str(self.relay_port), "--port", str(self.port), "--delay", str(self.delay)),
                ],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            listening(self.port, self.proxy, "the chaos proxy", STARTING)
        return self

    def _start_embedded(self) -> subprocess.Popen[bytes]:
        options = ["--port", str(self.relay_port)]
        if self.users_file is not None:
            options += ["--users", str(self.users_file)]
        if not self.limits:
            options.append("--no-limits")
        if self.data:
            options += ["--data", str(self.workdir / "data")]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "relay", *options, *self.extra],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        return self.process

    def _start_mosquitto(self) -> None:
        settings = MosquittoSettings(port=self.relay_port, users_file=self.users_file, run_as=getpass.getuser())
        if self.autosave:
            settings.autosave_changes = self.autosave
        conf = write_config(self.workdir / "mosquitto", settings)
        if self.data is False:
            conf.write_text(conf.read_text().replace("persistence true", "persistence false"))
        self.mosquitto = MosquittoProcess(conf, self.relay_port).start(STARTING)
        self.process = self.mosquitto.process

    @property
    def pid(self) -> int:
        """The relay's process id (not the proxy's)."""
        if self.process is None:
            raise RuntimeError(f"the {self.kind} relay is not running")
        return self.process.pid

    def kill(self) -> None:
        """Kill the relay at once (SIGKILL: nothing saved), as a crash would; :meth:`start` starts it again."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.kills += 1

    def stop(self) -> None:
        """Stop the proxy and the relay (SIGTERM: Mosquitto saves its database), each by its PID."""
        _terminate(self.proxy)
        self.proxy = None
        if self.mosquitto is not None:
            self.mosquitto.stop()
        _terminate(self.process)

    def __enter__(self) -> RelayProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
