"""The model as a session uses it: what a provider says of its own failures
passes the gate's redaction before anyone sees it.

A provider's error quotes the endpoint's answer: an HTTP error body, a
mid-stream `error` event, a proxy's JSON page. An endpoint may echo the
request's key in it (`invalid x-api-key: sk-ant-…`), or a value the request
carried, and that text went as it came to `turn_ended.error`, the retry
`error` frames, a failed compaction's `error` frame, Guided Review's and
the GitHub drafts' logged fallbacks. `RedactedModel` wraps the session's
`ModelSource` (the session installs it for every model it is given), so
every `ProviderError` and `RetryScheduled` message from any of its
providers is redacted here, once, whoever asked the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from luxe.engine.model import (
    AssistantMessage,
    ModelRequest,
    OnEvent,
    Provider,
    ProviderError,
    RetryScheduled,
    StreamEvent,
    Usage,
)

if TYPE_CHECKING:
    from luxe.engine.ports import ModelSource, PermissionGate
    from luxe.protocol import events as ev


class RedactedModel:
    """A `ModelSource` whose providers' failures are redacted by `gate`."""

    def __init__(self, model: ModelSource, gate: PermissionGate) -> None:
        # Wrapping twice would only redact twice.
        self.inner: ModelSource = model.inner if isinstance(model, RedactedModel) else model
        self.name = self.inner.name
        self._gate = gate

    async def provider(self) -> Provider:
        try:
            provider = await self.inner.provider()
        except ProviderError as exc:
            raise await _redacted(self._gate, exc) from None
        return RedactedProvider(provider, self._gate)

    def state(self) -> ev.ModelState:
        return self.inner.state()

    def cost(self, usage: Usage) -> float | None:
        return self.inner.cost(usage)

    async def aclose(self) -> None:
        await self.inner.aclose()


class RedactedProvider:
    """One provider, its `ProviderError`s (also alone in an exception
    group) and retry notices redacted."""

    def __init__(self, provider: Provider, gate: PermissionGate) -> None:
        self._provider, self._gate = provider, gate
        self.name = provider.name

    async def complete(self, request: ModelRequest, on_event: OnEvent) -> AssistantMessage:
        gate = self._gate

        async def forward(event: StreamEvent) -> None:
            if isinstance(event, RetryScheduled):
                await gate.settle()
                event = attrs.evolve(event, message=gate.redact(event.message))
            await on_event(event)

        try:
            return await self._provider.complete(request, forward)
        except ProviderError as exc:
            raise await _redacted(gate, exc) from None
        except ExceptionGroup as group:
            failure = provider_error_in(group)
            if failure is None:
                raise
            raise await _redacted(gate, failure) from None

    async def aclose(self) -> None:
        await self._provider.aclose()


async def _redacted(gate: PermissionGate, exc: ProviderError) -> ProviderError:
    """The same failure, its message redacted with every value known."""
    await gate.settle()
    return ProviderError(gate.redact(exc.message), status=exc.status)


def provider_error_in(group: BaseExceptionGroup[BaseException]) -> ProviderError | None:
    """The ProviderError of a group that holds nothing else, if any."""
    leaves: list[BaseException] = []
    stack: list[BaseException] = [group]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
        else:
            leaves.append(item)
    if len(leaves) == 1 and isinstance(leaves[0], ProviderError):
        return leaves[0]
    return None
