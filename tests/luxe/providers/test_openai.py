"""The real OpenAI-compatible provider against the real fake server over loopback."""

from __future__ import annotations

import pytest
import trio

from luxe.engine.model import (
    ProviderError,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ToolCallStarted,
    ToolResultBlock,
    Usage,
    UserMessage,
)
from luxe.providers.registry import make_provider
from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.providers.helpers import Collected, complete, fast_env, openai, request, user


async def test_streams_text_and_usage_with_cached_tokens() -> None:
    usage = {"input_tokens": 100, "output_tokens": 9, "cache_read_tokens": 60}
    with FakeLLMServer([{"text": "Bonjour à tous", "chunk_size": 2, "usage": usage}]) as server:
        message, got = await complete(openai(server))
        assert got.text == "Bonjour à tous"
        assert message.content == (TextBlock("Bonjour à tous"),)
        assert message.stop_reason == "end_turn"
        assert message.usage == Usage(input_tokens=100, output_tokens=9, cache_read_tokens=60)
        sent = server.requests[0]
        assert sent.path == "/v1/chat/completions"
        assert sent.headers["authorization"] == "Bearer sk-test"
        assert sent.body["stream_options"] == {"include_usage": True}
        assert sent.body["messages"][0] == {"role": "system", "content": "You are a test."}
        assert sent.body["tools"][0]["function"]["name"] == "read"


async def test_interleaved_tool_calls_are_assembled_per_index_and_history_round_trips() -> None:
    steps = [
        {
            "text": "Let me look.",
            "tool_calls": [
                {"name": "read", "args": {"path": "a.txt"}, "id": "call_a"},
                {"name": "grep", "args": {"pattern": "needle", "glob": "*.py"}, "id": "call_b"},
            ],
        },
        {"text": "found it"},
    ]
    with FakeLLMServer(steps) as server:
        provider = openai(server)
        first, got = await complete(provider)
        assert first.stop_reason == "tool_use"
        assert [(t.id, t.name, t.input) for t in first.tool_uses] == [
            ("call_a", "read", {"path": "a.txt"}),
            ("call_b", "grep", {"pattern": "needle", "glob": "*.py"}),
        ]
        started = [e for e in got.events if isinstance(e, ToolCallStarted)]
        assert [(e.id, e.name) for e in started] == [("call_a", "read"), ("call_b", "grep")]
        results = UserMessage(
            (ToolResultBlock("call_a", "A"), ToolResultBlock("call_b", "no match", is_error=True))
        )
        await complete(provider, request(user("hi"), first, results, user("and?")))
        sent = server.requests[1].body["messages"]
        assert sent[2]["role"] == "assistant" and sent[2]["content"] == "Let me look."
        assert [c["function"]["name"] for c in sent[2]["tool_calls"]] == ["read", "grep"]
        assert sent[3] == {"role": "tool", "tool_call_id": "call_a", "content": "A"}
        assert sent[4] == {"role": "tool", "tool_call_id": "call_b", "content": "Error: no match"}
        assert sent[5] == {"role": "user", "content": "and?"}


async def test_reasoning_content_becomes_thinking() -> None:
    with FakeLLMServer([{"thinking": "hmm", "text": "yes"}]) as server:
        message, got = await complete(openai(server))
        assert got.thinking == "hmm"
        assert message.content == (ThinkingBlock("hmm"), TextBlock("yes"))


async def test_rate_limit_retried_then_server_errors_exhausted() -> None:
    steps = [
        {"http_error": {"status": 429, "retry_after": 0.05, "message": "Rate limit reached"}},
        {"text": "ok"},
    ]
    with FakeLLMServer(steps) as server:
        _message, got = await complete(openai(server))
        assert got.text == "ok"
        assert got.retries[0].retry_in_s == pytest.approx(0.05)
        assert "HTTP 429" in got.retries[0].message
    with FakeLLMServer([{"http_error": {"status": 503, "message": "upstream down"}}] * 4) as server:
        with pytest.raises(ProviderError) as caught:
            await complete(openai(server))
        assert f"{server.openai_base_url}/chat/completions" in caught.value.message
        assert "HTTP 503" in caught.value.message and "upstream down" in caught.value.message


async def test_mid_stream_error_and_cut_after_content_fail() -> None:
    with FakeLLMServer([{"text": "par", "stream_error": {"message": "model crashed"}}]) as server:
        with pytest.raises(ProviderError) as caught:
            await complete(openai(server))
        assert "model crashed" in caught.value.message
    with FakeLLMServer([{"text": "par", "cut": True}]) as server, pytest.raises(ProviderError):
        await complete(openai(server))


async def test_missing_key_names_the_variable() -> None:
    provider = make_provider("openai", "gpt-4o", fast_env())
    with pytest.raises(ProviderError) as caught:
        await complete(provider)
    assert "OPENAI_API_KEY" in caught.value.message


async def test_ollama_uses_ollama_host_without_a_key() -> None:
    with FakeLLMServer([{"text": "local"}]) as server:
        env = fast_env(OLLAMA_HOST=f"127.0.0.1:{server.port}")
        message, _got = await complete(
            make_provider("ollama", "qwen3", env), request(model="qwen3")
        )
        assert message.content == (TextBlock("local"),)
        sent = server.requests[0]
        assert sent.path == "/v1/chat/completions"
        assert "authorization" not in sent.headers
        assert sent.body["model"] == "qwen3" and "max_tokens" in sent.body


async def test_any_provider_with_a_base_url_variable_is_openai_compatible() -> None:
    with FakeLLMServer([{"text": "hi from groq"}]) as server:
        env = fast_env(MY_GROQ_BASE_URL=server.openai_base_url, MY_GROQ_API_KEY="gk")
        _message, got = await complete(make_provider("my-groq", "llama", env))
        assert got.text == "hi from groq"
        assert server.requests[0].headers["authorization"] == "Bearer gk"


async def test_cancellation_closes_the_connection_at_once() -> None:
    with FakeLLMServer([{"stall": True, "text": "streaming..."}]) as server:
        provider = openai(server)
        got_text = trio.Event()

        async def on_event(event: object) -> None:
            if isinstance(event, TextDelta):
                got_text.set()

        with trio.move_on_after(10) as scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(provider.complete, request(), on_event)
                await got_text.wait()
                nursery.cancel_scope.cancel()
        assert not scope.cancelled_caught
        await server.wait_until_async(lambda: server.outcome(0) == "disconnected", timeout=2)


async def test_a_stalled_stream_is_retried_on_a_fresh_connection() -> None:
    steps = [{"stall": True}, {"text": "fresh"}]
    with FakeLLMServer(steps) as server:
        provider = openai(server, LUXE_STREAM_IDLE_TIMEOUT_S="0.2")
        got = Collected()
        message = await provider.complete(request(), got)
        assert message.content == (TextBlock("fresh"),)
        assert len(got.retries) == 1 and "stalled" in got.retries[0].message
        assert server.connections_opened == 2
        await server.wait_until_async(lambda: server.outcome(0) == "disconnected")


async def test_compatible_server_quirks_are_understood() -> None:
    step = {
        "text": "x",
        "noise": True,
        "openai_variants": ["whole_args", "null_choices", "empty_tool_calls"],
        "tool_calls": [
            {"name": "ls", "args": {"path": "."}},
            {"name": "glob", "args": {"pattern": "*"}},
        ],
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    with FakeLLMServer([step, {"text": "cut short", "stop_reason": "max_tokens"}]) as server:
        message, got = await complete(openai(server))
        assert [(t.name, t.input) for t in message.tool_uses] == [
            ("ls", {"path": "."}),
            ("glob", {"pattern": "*"}),
        ]
        assert message.usage == Usage(input_tokens=3, output_tokens=4)
        assert got.text == "x"
        second, _got = await complete(openai(server))
        assert second.stop_reason == "max_tokens"


async def test_consecutive_requests_reuse_one_connection() -> None:
    with FakeLLMServer([{"text": "one"}, {"text": "two"}]) as server:
        provider = openai(server)
        await complete(provider)
        await complete(provider)
        assert server.connections_opened == 1


async def test_a_server_that_does_not_stream_is_named_not_retried() -> None:
    with FakeLLMServer(
        [{"json_body": {"error": {"message": "streaming is disabled here"}}}]
    ) as server:
        got = Collected()
        with pytest.raises(ProviderError) as caught:
            await openai(server).complete(request(), got)
        assert "instead of an event stream" in caught.value.message
        assert "streaming is disabled here" in caught.value.message
        assert got.retries == [] and len(server.requests) == 1
