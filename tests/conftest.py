"""Fixtures shared by the test modules, and the ``network`` marker on every test that starts a relay."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TextIO

import pytest
from browser_helpers import browser  # noqa: F401 (a fixture: a headless Chromium for the page's tests)
from relay_fixtures import KINDS, Relay

NETWORK_FIXTURES = frozenset({"relay", "any_relay", "private_relay", "relays", "embedded", "fast_relay", "relay_page"})
"""The fixtures that start a relay (here and in test modules): a test that uses one, even through another fixture,
is marked ``network``. A test that starts a relay itself carries the marker in its module."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if NETWORK_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.network)


@pytest.fixture
def pipes() -> Iterator[Callable[[], tuple[TextIO, TextIO]]]:
    """``pipes()``: a pipe for typed commands, (the end a front end reads, the end the test types at); every end is
    closed when the test ends."""
    opened: list[TextIO] = []

    def make() -> tuple[TextIO, TextIO]:
        read_end, write_end = os.pipe()
        ends = os.fdopen(read_end, "r"), os.fdopen(write_end, "w")
        opened.extend(ends)
        return ends

    try:
        yield make
    finally:  # the writing ends first: a front end's thread reading a pipe holds its lock until it reads the end
        for end in opened[1::2] + opened[::2]:
            end.close()


@pytest.fixture
async def relay(tmp_path):
    """The embedded relay, in this process on a free 127.0.0.1 port."""
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
