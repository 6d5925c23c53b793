"""What Luxe knows about models: context windows and prices.

Pure data and arithmetic. Prices are USD per million tokens; None means
unknown, and an unknown price gives a null `cost_usd` rather than a guess.
"""

from __future__ import annotations

import attrs

from luxe.engine.model import Usage

DEFAULT_MODEL = "anthropic/claude-sonnet-4-5"
DEFAULT_CONTEXT_WINDOW = 128_000


@attrs.frozen
class ModelInfo:
    provider: str
    name: str
    context_window: int = DEFAULT_CONTEXT_WINDOW
    input_per_mtok: float | None = None
    output_per_mtok: float | None = None
    cache_read_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None

    @property
    def id(self) -> str:
        return f"{self.provider}/{self.name}"


def lookup(provider: str, name: str) -> ModelInfo:
    """The known facts about `provider/name`, or defaults with unknown prices."""
    return ModelInfo(provider, name)


def cost_usd(info: ModelInfo, usage: Usage) -> float | None:
    """The price of one request's usage, or None when any needed price is unknown."""
    return None
