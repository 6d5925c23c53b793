"""The providers' stream readers assemble the same message however the
bytes of a real (fake-server) stream are chunked."""

from __future__ import annotations

from typing import Any

import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.engine.model import AssistantMessage, StreamEvent
from luxe.providers import anthropic, openai
from luxe.providers.sse import SSEDecoder
from tests.fakes.llm_streams import anthropic_events, openai_events

STEP: dict[str, Any] = {
    "thinking": "ponder ∑",
    "text": "héllo → wörld 😀",
    "chunk_size": 3,
    "tool_calls": [{"name": "read", "args": {"path": "ü.txt"}}, {"name": "ls", "args": {}}],
    "usage": {"input_tokens": 5, "output_tokens": 6, "cache_read_tokens": 7},
}


def wire(flavour: str) -> bytes:
    if flavour == "anthropic":
        events = anthropic_events(STEP, 0)
    else:
        events = openai_events(STEP, 0, {"stream_options": {"include_usage": True}})
    return b"".join(e for e in events if isinstance(e, bytes))


def assemble(flavour: str, chunks: list[bytes]) -> tuple[AssistantMessage, list[StreamEvent]]:
    seen: list[StreamEvent] = []

    async def emit(event: StreamEvent) -> None:
        seen.append(event)

    async def run() -> AssistantMessage:
        reader: Any = (
            anthropic._StreamReader("u", emit)
            if flavour == "anthropic"
            else openai._StreamReader("u", "OpenAI", emit)
        )
        decoder = SSEDecoder()
        for chunk in chunks:
            for sse in decoder.feed(chunk):
                if await reader.on_sse(sse):
                    return reader.message()  # type: ignore[no-any-return]
        raise AssertionError("stream did not complete")

    return trio.run(run), seen


WHOLE = {f: assemble(f, [wire(f)]) for f in ("anthropic", "openai")}


@settings(max_examples=60, deadline=None)
@given(
    flavour=st.sampled_from(["anthropic", "openai"]),
    cuts=st.lists(st.integers(0, 100_000), max_size=40),
)
def test_any_chunking_gives_the_same_message_and_events(flavour: str, cuts: list[int]) -> None:
    raw = wire(flavour)
    points = sorted({c % (len(raw) + 1) for c in cuts})
    chunks = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    message, events = assemble(flavour, chunks)
    whole_message, whole_events = WHOLE[flavour]
    assert message == whole_message
    assert events == whole_events


def test_the_whole_stream_reads_as_scripted() -> None:
    for flavour in ("anthropic", "openai"):
        message, _events = WHOLE[flavour]
        assert [(t.name, t.input) for t in message.tool_uses] == [
            ("read", {"path": "ü.txt"}),
            ("ls", {}),
        ]
        texts = [getattr(b, "text", None) for b in message.content]
        assert "héllo → wörld 😀" in texts and "ponder ∑" in texts
        assert message.usage.cache_read_tokens == 7


async def test_a_connection_dropped_after_the_last_event_loses_nothing() -> None:
    from luxe.engine.model import TextBlock
    from tests.fakes.llm_server import FakeLLMServer
    from tests.luxe.providers.helpers import anthropic, complete, openai

    for make in (anthropic, openai):
        with FakeLLMServer(
            [{"text": "all here", "cut_after_end": True}, {"text": "next"}]
        ) as server:
            provider = make(server, LUXE_STREAM_IDLE_TIMEOUT_S="0.2")
            message, got = await complete(provider)
            assert message.content == (TextBlock("all here"),) and got.retries == []
            second, _got = await complete(provider)
            assert second.content == (TextBlock("next"),)
            assert server.connections_opened == 2
