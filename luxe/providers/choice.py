"""The model of a session: `ModelChoice`, its facts now and its provider on
first use (providers import httpx, which the handshake must not wait for).

The engine sees it through `luxe.engine.ports.ModelSource`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from luxe.engine.model import Provider, Usage
from luxe.protocol import events as ev
from luxe.providers import models
from luxe.providers.registry import make_provider, parse_model_spec


class ModelChoice:
    """`provider/name` (or `scripted:PATH`) and its lazily built provider.
    Raises ValueError for a malformed spec. Owns the provider: `aclose`
    releases its HTTP client."""

    def __init__(self, spec: str, env: Mapping[str, str]) -> None:
        self.spec = spec
        self.provider_name, self.name = parse_model_spec(spec)
        self.info = models.lookup(self.provider_name, self.name)
        self._env = dict(env)
        self._provider: Provider | None = None
        self._lock = threading.Lock()

    def build(self) -> Provider:
        """Build the provider once (thread-safe: warm-up may race a turn)."""
        with self._lock:
            if self._provider is None:
                self._provider = make_provider(self.provider_name, self.name, self._env)
            return self._provider

    async def provider(self) -> Provider:
        if self._provider is not None:
            return self._provider
        import trio

        return await trio.to_thread.run_sync(self.build)

    async def aclose(self) -> None:
        """Close the provider, if it was built (bounded: a close never holds
        up the session's end)."""
        import trio

        if self._provider is not None:
            with trio.move_on_after(0.2):
                await self._provider.aclose()

    def state(self) -> ev.ModelState:
        if self.provider_name == "scripted":
            return ev.ModelState(
                id=self.spec,
                provider="scripted",
                context_window=self.info.context_window,
                label=f"script {self.name}: replays recorded answers, not a live model",
            )
        return ev.ModelState(self.info.id, self.provider_name, self.info.context_window)

    def cost(self, usage: Usage) -> float | None:
        return models.cost_usd(self.info, usage)
