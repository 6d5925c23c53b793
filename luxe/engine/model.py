"""The seam between the engine and model providers: provider-neutral data.

The engine speaks only these types; `luxe.providers.*` translate them to and
from each provider's wire format. Nothing here does I/O or imports trio.

A provider is called once per model request with an async `on_event`
callback and returns the complete assistant message. Callbacks (rather than an
async generator) keep the provider's httpx stream inside its own `async with`,
so cancelling the caller's scope closes the connection at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

from luxe.record import record

# -- history -----------------------------------------------------------------


@record
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@record
class ThinkingBlock:
    """Model reasoning. `signature` must be sent back verbatim (Anthropic)."""

    text: str
    signature: str | None = None
    # Anthropic may return redacted thinking: opaque data to echo back.
    redacted_data: str | None = None
    type: Literal["thinking"] = "thinking"


@record
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]
    type: Literal["tool_use"] = "tool_use"


@record
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"


UserContent = TextBlock | ToolResultBlock
AssistantContent = TextBlock | ThinkingBlock | ToolUseBlock


@record
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@record
class UserMessage:
    content: tuple[UserContent, ...]
    role: Literal["user"] = "user"


@record
class AssistantMessage:
    content: tuple[AssistantContent, ...]
    stop_reason: str | None = None  # end_turn | tool_use | max_tokens | ...
    usage: Usage = Usage()
    role: Literal["assistant"] = "assistant"

    @property
    def tool_uses(self) -> tuple[ToolUseBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolUseBlock))


Message = UserMessage | AssistantMessage


@record
class ToolSpec:
    """What the model is told about one tool (JSON Schema for its input)."""

    name: str
    description: str
    input_schema: dict[str, Any]


ThinkingLevel = Literal["off", "low", "medium", "high"]


@record
class ModelRequest:
    model: str  # the provider's own model name, without the "provider/" prefix
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    thinking: ThinkingLevel = "off"
    max_tokens: int = 8192


# -- streaming events (provider -> engine) ------------------------------------


@record
class TextDelta:
    block: int  # index of the content block in the assistant message
    text: str  # only the new text


@record
class ThinkingDelta:
    block: int
    text: str


@record
class ToolCallStarted:
    """A tool_use block began; its arguments are still streaming."""

    block: int
    id: str
    name: str


@record
class UsageUpdate:
    usage: Usage  # cumulative for this request


@record
class RetryScheduled:
    """The provider will retry after `retry_in_s`; the engine announces it."""

    message: str  # says which endpoint and what status, for a person
    retry_in_s: float
    attempt: int


StreamEvent = TextDelta | ThinkingDelta | ToolCallStarted | UsageUpdate | RetryScheduled

OnEvent = Callable[[StreamEvent], Awaitable[None]]


class ProviderError(Exception):
    """A model request failed for good (retries, if any, are exhausted).

    `message` is written for a person: it names the endpoint, the status and
    what to do (e.g. the environment variable to set for a missing key).
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class Provider(Protocol):
    """One model endpoint. `complete` owns its HTTP stream: on cancel the
    connection is closed before the Cancelled propagates."""

    name: str  # "anthropic", "openai", "ollama", "scripted", ...

    async def complete(self, request: ModelRequest, on_event: OnEvent) -> AssistantMessage:
        """Stream one model response, calling `on_event` as parts arrive.

        Raises ProviderError when the request cannot succeed.
        """
        ...

    async def aclose(self) -> None:
        """Release what the provider holds (its HTTP client); idempotent."""
        ...
