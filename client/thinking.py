"""A bot thinks in a thread of its own, so that the event loop (the screen, the relay's lines) goes on meanwhile.

Used by every seat a bot holds: local play on the full screen and a bot in a network game's seat (``--bot``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any, TypeVar

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
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    threading.Thread(target=run, name="olixono-bot", daemon=True).start()
    return await future
