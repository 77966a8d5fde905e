"""Fixtures shared by the test modules (a module may define its own of the same name: it takes precedence)."""

from __future__ import annotations

import pytest
from relay_fixtures import KINDS, Relay


@pytest.fixture
async def relay(tmp_path):
    """The embedded relay, in this process on a free 127.0.0.1 port (test_client_network runs both kinds)."""
    started = Relay("embedded", tmp_path / "relay")
    started.workdir.mkdir()
    try:
        await started.start()
        yield started
    finally:
        await started.stop()


@pytest.fixture(params=KINDS)
async def any_relay(request, tmp_path):
    """An anonymous relay of each kind in turn: the embedded relay in this process, then Mosquitto (a subprocess)."""
    started = Relay(request.param, tmp_path / "relay")
    started.workdir.mkdir()
    try:
        await started.start()
        yield started
    finally:
        await started.stop()
