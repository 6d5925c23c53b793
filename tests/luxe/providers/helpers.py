"""Running a real provider against the real fake server, collecting what it emits."""

from __future__ import annotations

from collections.abc import Mapping

from luxe.engine.model import (
    AssistantMessage,
    Message,
    ModelRequest,
    Provider,
    RetryScheduled,
    StreamEvent,
    TextBlock,
    TextDelta,
    ThinkingDelta,
    ToolSpec,
    UserMessage,
)
from luxe.providers.registry import make_provider
from tests.fakes.llm_server import FakeLLMServer

READ_TOOL = ToolSpec(
    name="read",
    description="Read a file",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
)


def fast_env(**extra: str) -> dict[str, str]:
    """Short timeouts and backoff so failure paths take milliseconds."""
    return {
        "LUXE_STREAM_IDLE_TIMEOUT_S": "5",
        "LUXE_RETRY_BASE_DELAY_S": "0.01",
        "LUXE_MAX_RETRIES": "3",
        **extra,
    }


def anthropic(server: FakeLLMServer, **extra: str) -> Provider:
    env = fast_env(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="test-key", **extra)
    return make_provider("anthropic", "claude-sonnet-4-5", env)


def openai(server: FakeLLMServer, **extra: str) -> Provider:
    env = fast_env(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-test", **extra)
    return make_provider("openai", "gpt-4o", env)


def user(text: str) -> UserMessage:
    return UserMessage((TextBlock(text),))


def request(*messages: Message, model: str = "m", **kw: object) -> ModelRequest:
    return ModelRequest(
        model=model,
        system="You are a test.",
        messages=messages or (user("hi"),),
        tools=(READ_TOOL,),
        **kw,  # type: ignore[arg-type]
    )


class Collected:
    def __init__(self) -> None:
        self.events: list[StreamEvent] = []

    async def __call__(self, event: StreamEvent) -> None:
        self.events.append(event)

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextDelta))

    @property
    def thinking(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, ThinkingDelta))

    @property
    def retries(self) -> list[RetryScheduled]:
        return [e for e in self.events if isinstance(e, RetryScheduled)]


async def complete(
    provider: Provider, req: ModelRequest | None = None
) -> tuple[AssistantMessage, Collected]:
    collected = Collected()
    message = await provider.complete(req or request(), collected)
    return message, collected


def env_without(env: Mapping[str, str], *names: str) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in names}
