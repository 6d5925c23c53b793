"""Retrying a model request: which failures are worth another try, and when.

Shared by every HTTP provider. The rule: 429, 5xx, 529, dropped connections
and stalled streams are retried with exponential backoff (or the server's
`retry-after`), each retry announced with a `RetryScheduled` event before the
sleep, but only while the attempt has emitted no content: once text, thinking
or a tool call reached the engine, a retry would repeat it, so the request
fails instead. The last failure becomes a `ProviderError` a person can act on.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

import attrs
import trio

from luxe.engine.model import (
    OnEvent,
    ProviderError,
    RetryScheduled,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
)
from luxe.record import record
from luxe.wording import counted

T = TypeVar("T")

RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
MAX_HONOURED_RETRY_AFTER_S = 60.0


class RetryableError(Exception):
    """An attempt failed in a way another attempt may fix.

    `message` is for a person (endpoint, status, the server's words);
    `retry_after_s` is the server's own hint, when it gave one.
    """

    def __init__(
        self, message: str, *, status: int | None = None, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s


@record
class RetryPolicy:
    max_retries: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> RetryPolicy:
        """`LUXE_MAX_RETRIES` and `LUXE_RETRY_BASE_DELAY_S` override the defaults."""
        policy = cls()
        retries = _number(env, "LUXE_MAX_RETRIES")
        base = _number(env, "LUXE_RETRY_BASE_DELAY_S")
        return attrs.evolve(
            policy,
            max_retries=int(retries) if retries is not None else policy.max_retries,
            base_delay_s=base if base is not None else policy.base_delay_s,
        )

    def delay_s(self, retry: int, retry_after_s: float | None) -> float:
        """Seconds to wait before retry number `retry` (1-based)."""
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), MAX_HONOURED_RETRY_AFTER_S)
        return min(self.base_delay_s * 2 ** (retry - 1), self.max_delay_s)


def _number(env: Mapping[str, str], name: str) -> float | None:
    raw = env.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if value >= 0 and math.isfinite(value) else None


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """The server's wait hint: `retry-after-ms`, `retry-after` seconds or HTTP date."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return float(millis) / 1000
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


_CONTENT_EVENTS = (TextDelta, ThinkingDelta, ToolCallStarted)


class EmissionTracker:
    """Wraps `on_event` and remembers whether content reached the engine."""

    def __init__(self, on_event: OnEvent) -> None:
        self._on_event = on_event
        self.emitted_content = False

    async def __call__(self, event: StreamEvent) -> None:
        if not self.emitted_content and isinstance(event, _CONTENT_EVENTS):
            self.emitted_content = True
        await self._on_event(event)


async def call_with_retries(
    attempt: Callable[[EmissionTracker], Awaitable[T]],
    *,
    policy: RetryPolicy,
    on_event: OnEvent,
) -> T:
    """Run `attempt` until it succeeds, retrying RetryableErrors per `policy`.

    Each attempt gets a fresh EmissionTracker around `on_event`. Raises
    ProviderError when retries are exhausted or the failed attempt had already
    emitted content. On cancel the sleep (or the attempt) is abandoned at once.
    """
    retry = 0
    while True:
        tracker = EmissionTracker(on_event)
        try:
            return await attempt(tracker)
        except RetryableError as error:
            if tracker.emitted_content:
                raise ProviderError(
                    f"{error.message} (the response had already started, so it was not retried)",
                    status=error.status,
                ) from error
            if retry >= policy.max_retries:
                tries = retry + 1
                raise ProviderError(
                    f"{error.message} (gave up after {counted(tries, 'attempt')})",
                    status=error.status,
                ) from error
            retry += 1
            delay = policy.delay_s(retry, error.retry_after_s)
            await on_event(RetryScheduled(message=error.message, retry_in_s=delay, attempt=retry))
            await trio.sleep(delay)
