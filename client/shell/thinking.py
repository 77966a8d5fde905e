"""A bot thinks in a thread of its own, so that the event loop (the screen, the relay's lines) goes on meanwhile.

Used by every seat a bot holds: local play on the full screen and a bot in a network game's seat (``--bot``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from protocol.clock import TimeControl

T = TypeVar("T")


async def in_daemon_thread(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a daemon thread: unlike ``asyncio.to_thread``, leaving the screen (and the program) never
    waits for a bot still thinking, however long its budget."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            result, error = work(*args), None
        except BaseException as exc:  # handed to the awaiting task
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="olixono-bot", daemon=True).start()
    return await future


MOVES_AHEAD = 30
"""A bot on the clock spends a thirtieth of what is left (and most of the increment) on a move..."""
SAFETY = 0.3
"""... and never more than half of it less this many seconds, for what its thinking costs beside the search."""


def clock_budget(control: TimeControl, left_ms: int) -> float:
    """Seconds a bot may think on a move with ``left_ms`` on its clock: a share of what is left and of the increment,
    never so much that it runs out (with an increment of a second, the clock then grows move by move)."""
    left = left_ms / 1000
    share = left / MOVES_AHEAD + 0.8 * control.increment_ms / 1000
    return max(0.01, min(share, left / 2 - SAFETY))
