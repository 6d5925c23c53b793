"""Wait for a condition with a timeout: the tests' only synchronisation.

`wait_until` polls from a plain thread, `wait_until_async` from a trio task.
Both return the predicate's first truthy value and fail the test (an
AssertionError naming `what`) when the timeout passes. The timeout guards a
hang only, so the default is generous for a loaded 2-core machine; pytest's
own timeout is the backstop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import trio

T = TypeVar("T")

WAIT_S = 60.0


def wait_until(
    predicate: Callable[[], T], timeout: float = WAIT_S, what: str = "condition", interval: float = 0.01
) -> T:
    """Poll `predicate` until it returns something truthy, and return that."""
    deadline = time.monotonic() + timeout
    while not (result := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)
    return result


async def wait_until_async(
    predicate: Callable[[], T], timeout: float = WAIT_S, what: str = "condition", interval: float = 0.02
) -> T:
    """`wait_until` for trio tests: sleeps between polls let other tasks run."""
    deadline = trio.current_time() + timeout
    while not (result := predicate()):
        if trio.current_time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await trio.sleep(interval)
    return result
