"""What Luxe knows about models: context windows and prices.

Pure data and arithmetic. Prices are USD per million tokens; None means
unknown, and an unknown price gives a null `cost_usd` rather than a guess.
Names match by prefix, so dated ids (`claude-sonnet-4-5-20250929`,
`gpt-4o-2024-08-06`) find their family; the longest known prefix wins.
"""

from __future__ import annotations

import re

from luxe.engine.model import Usage
from luxe.record import record

DEFAULT_MODEL = "anthropic/claude-sonnet-4-5"
DEFAULT_CONTEXT_WINDOW = 128_000


@record
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


# (context window, input, output, cache read, cache write) per model family.
_Row = tuple[int, float, float, float, float]

# Anthropic list prices; cache writes are the 5-minute TTL price (1.25x input).
_ANTHROPIC: dict[str, _Row] = {
    "claude-opus-4-5": (200_000, 5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-1": (200_000, 15.0, 75.0, 1.50, 18.75),
    "claude-opus-4": (200_000, 15.0, 75.0, 1.50, 18.75),
    "claude-sonnet-4-5": (200_000, 3.0, 15.0, 0.30, 3.75),
    "claude-sonnet-4": (200_000, 3.0, 15.0, 0.30, 3.75),
    "claude-3-7-sonnet": (200_000, 3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": (200_000, 1.0, 5.0, 0.10, 1.25),
    "claude-3-5-haiku": (200_000, 0.80, 4.0, 0.08, 1.0),
}

# OpenAI list prices; cached input is billed at the cache-read price and
# there is no separate charge for writing the cache.
_OPENAI: dict[str, _Row] = {
    "gpt-5.1": (400_000, 1.25, 10.0, 0.125, 0.0),
    "gpt-5-nano": (400_000, 0.05, 0.40, 0.005, 0.0),
    "gpt-5-mini": (400_000, 0.25, 2.0, 0.025, 0.0),
    "gpt-5": (400_000, 1.25, 10.0, 0.125, 0.0),
    "gpt-4.1-nano": (1_047_576, 0.10, 0.40, 0.025, 0.0),
    "gpt-4.1-mini": (1_047_576, 0.40, 1.60, 0.10, 0.0),
    "gpt-4.1": (1_047_576, 2.0, 8.0, 0.50, 0.0),
    "gpt-4o-mini": (128_000, 0.15, 0.60, 0.075, 0.0),
    "gpt-4o": (128_000, 2.50, 10.0, 1.25, 0.0),
    "o4-mini": (200_000, 1.10, 4.40, 0.275, 0.0),
    "o3-mini": (200_000, 1.10, 4.40, 0.55, 0.0),
    "o3": (200_000, 2.0, 8.0, 0.50, 0.0),
}

_TABLES = {"anthropic": _ANTHROPIC, "openai": _OPENAI}


def lookup(provider: str, name: str) -> ModelInfo:
    """The known facts about `provider/name`, or defaults with unknown prices.

    Local models (ollama) cost nothing; a script costs nothing.
    """
    if provider in ("ollama", "scripted"):
        return ModelInfo(provider, name, DEFAULT_CONTEXT_WINDOW, 0.0, 0.0, 0.0, 0.0)
    table = _TABLES.get(provider, {})
    family = max((key for key in table if _is_family(name, key)), key=len, default=None)
    if family is None:
        return ModelInfo(provider, name)
    window, inp, out, read, write = table[family]
    return ModelInfo(provider, name, window, inp, out, read, write)


def _is_family(name: str, family: str) -> bool:
    """`name` is `family` itself or a dated/aliased id of it; a newer model
    (`claude-opus-4-6` against `claude-opus-4`) is not, so its price stays unknown."""
    if not name.startswith(family):
        return False
    return re.fullmatch(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)?", name[len(family) :]) is not None


def cost_usd(info: ModelInfo, usage: Usage) -> float | None:
    """The price of one request's usage, or None when any needed price is unknown.

    A price is needed only for the kinds of tokens the usage actually has.
    """
    total = 0.0
    for tokens, price in (
        (usage.input_tokens, info.input_per_mtok),
        (usage.output_tokens, info.output_per_mtok),
        (usage.cache_read_tokens, info.cache_read_per_mtok),
        (usage.cache_write_tokens, info.cache_write_per_mtok),
    ):
        if tokens:
            if price is None:
                return None
            total += tokens * price
    return total / 1_000_000
