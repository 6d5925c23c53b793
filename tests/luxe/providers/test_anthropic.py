"""The real Anthropic provider against the real fake server over loopback."""

from __future__ import annotations

import pytest
import trio

from luxe.engine.model import (
    AssistantMessage,
    ProviderError,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ToolCallStarted,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UsageUpdate,
    UserMessage,
)
from luxe.providers.registry import make_provider
from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.providers.helpers import (
    Collected,
    anthropic,
    complete,
    fast_env,
    request,
    user,
)


async def test_streams_text_in_deltas_and_sends_a_cached_system_prompt() -> None:
    with FakeLLMServer([{"text": "Hello, wörld! 😀", "chunk_size": 3}]) as server:
        message, got = await complete(anthropic(server))
        assert got.text == "Hello, wörld! 😀"
        assert len([e for e in got.events if isinstance(e, TextDelta)]) > 3
        assert message.content == (TextBlock("Hello, wörld! 😀"),)
        assert message.stop_reason == "end_turn"
        sent = server.requests[0]
        assert sent.path == "/v1/messages"
        assert sent.headers["x-api-key"] == "test-key"
        assert sent.headers["anthropic-version"]
        assert sent.body["stream"] is True
        assert sent.body["system"] == [
            {"type": "text", "text": "You are a test.", "cache_control": {"type": "ephemeral"}}
        ]
        assert sent.body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
        assert sent.body["tools"][-1]["name"] == "read"


async def test_thinking_signature_and_redacted_thinking_go_back_verbatim() -> None:
    steps = [
        {
            "redacted_thinking": "opaque==",
            "thinking": "let me think",
            "signature": "sig-abc",
            "text": "4",
        },
        {"text": "done"},
    ]
    with FakeLLMServer(steps) as server:
        provider = anthropic(server)
        first, got = await complete(provider, request(user("2+2?"), thinking="medium"))
        assert got.thinking == "let me think"
        assert first.content == (
            ThinkingBlock("", redacted_data="opaque=="),
            ThinkingBlock("let me think", signature="sig-abc"),
            TextBlock("4"),
        )
        body = server.requests[0].body
        assert body["thinking"]["type"] == "enabled"
        assert body["max_tokens"] > body["thinking"]["budget_tokens"]
        await complete(provider, request(user("2+2?"), first, user("sure?")))
        assistant = server.requests[1].body["messages"][1]
        assert assistant == {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "opaque=="},
                {"type": "thinking", "thinking": "let me think", "signature": "sig-abc"},
                {"type": "text", "text": "4"},
            ],
        }


async def test_one_and_several_tool_calls_are_assembled_and_results_sent_back() -> None:
    steps = [
        {
            "text": "Reading.",
            "tool_calls": [{"name": "read", "args": {"path": "a.txt"}, "id": "toolu_1"}],
        },
        {
            "tool_calls": [
                {"name": "read", "args": {"path": "b.txt", "limit": 5}},
                {"name": "ls", "args": {}},
                {"name": "grep", "args": {"pattern": "é{2,}"}},
            ]
        },
        {"text": "ok"},
    ]
    with FakeLLMServer(steps) as server:
        provider = anthropic(server)
        one, got = await complete(provider)
        assert one.stop_reason == "tool_use"
        assert one.tool_uses == (ToolUseBlock("toolu_1", "read", {"path": "a.txt"}),)
        assert [e for e in got.events if isinstance(e, ToolCallStarted)] == [
            ToolCallStarted(block=1, id="toolu_1", name="read")
        ]
        history = [user("hi"), one, UserMessage((ToolResultBlock("toolu_1", "contents of a"),))]
        several, got = await complete(provider, request(*history))
        assert [(t.name, t.input) for t in several.tool_uses] == [
            ("read", {"path": "b.txt", "limit": 5}),
            ("ls", {}),
            ("grep", {"pattern": "é{2,}"}),
        ]
        assert len({t.id for t in several.tool_uses}) == 3
        results = UserMessage(
            tuple(ToolResultBlock(t.id, "boom", is_error=True) for t in several.tool_uses)
        )
        await complete(provider, request(*history, several, results))
        sent = server.requests[2].body["messages"]
        assert sent[1]["content"][1] == {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "read",
            "input": {"path": "a.txt"},
        }
        assert sent[2]["content"][0]["type"] == "tool_result"
        assert sent[2]["content"][0]["content"] == "contents of a"
        assert [b["is_error"] for b in sent[4]["content"]] == [True, True, True]
        # Only the last two user messages are cache breakpoints.
        marked = [m for m in sent if "cache_control" in m["content"][-1]]
        assert marked == [sent[2], sent[4]]


async def test_usage_counts_cache_tokens() -> None:
    usage = {
        "input_tokens": 12,
        "output_tokens": 34,
        "cache_read_tokens": 500,
        "cache_write_tokens": 7,
    }
    with FakeLLMServer([{"text": "x", "usage": usage}]) as server:
        message, got = await complete(anthropic(server))
        expected = Usage(
            input_tokens=12, output_tokens=34, cache_read_tokens=500, cache_write_tokens=7
        )
        assert message.usage == expected
        updates = [e for e in got.events if isinstance(e, UsageUpdate)]
        assert updates[-1].usage == expected


@pytest.mark.parametrize("status", [429, 529])
async def test_rate_limit_and_overload_are_retried_after_retry_after_and_announced(
    status: int,
) -> None:
    steps = [
        {"http_error": {"status": status, "retry_after": 0.05, "message": "busy"}},
        {"text": "finally"},
    ]
    with FakeLLMServer(steps) as server:
        _message, got = await complete(anthropic(server))
        assert got.text == "finally"
        [retry] = got.retries
        assert retry.retry_in_s == pytest.approx(0.05)
        assert retry.attempt == 1
        assert f"HTTP {status}" in retry.message and "/v1/messages" in retry.message
        assert "busy" in retry.message
        # The announcement comes before any content of the successful attempt.
        assert got.events.index(retry) < got.events.index(
            next(e for e in got.events if isinstance(e, TextDelta))
        )
        assert len(server.requests) == 2


async def test_server_errors_exhaust_retries_into_an_actionable_error() -> None:
    steps = [{"http_error": {"status": 500, "message": "database on fire"}}] * 3
    with FakeLLMServer(steps) as server:
        provider = make_provider(
            "anthropic",
            "m",
            fast_env(
                ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="k", LUXE_MAX_RETRIES="2"
            ),
        )
        got = Collected()
        with pytest.raises(ProviderError) as caught:
            await provider.complete(request(), got)
        message = caught.value.message
        assert f"{server.base_url}/v1/messages" in message
        assert "HTTP 500" in message and "database on fire" in message
        assert "3 attempts" in message
        assert caught.value.status == 500
        assert [r.attempt for r in got.retries] == [1, 2]
        assert [r.retry_in_s for r in got.retries] == [pytest.approx(0.01), pytest.approx(0.02)]


async def test_client_errors_are_not_retried_and_say_what_to_check() -> None:
    with FakeLLMServer([{"http_error": {"status": 401, "message": "invalid x-api-key"}}]) as server:
        got = Collected()
        with pytest.raises(ProviderError) as caught:
            await anthropic(server).complete(request(), got)
        assert "HTTP 401" in caught.value.message and "ANTHROPIC_API_KEY" in caught.value.message
        assert got.retries == [] and len(server.requests) == 1


async def test_a_cut_stream_before_content_is_retried_after_content_fails() -> None:
    with FakeLLMServer([{"cut": True}, {"text": "second try"}]) as server:
        _message, got = await complete(anthropic(server))
        assert got.text == "second try" and len(got.retries) == 1
        assert "dropped" in got.retries[0].message or "ended" in got.retries[0].message
    with FakeLLMServer([{"cut": True, "text": "half an ans"}, {"text": "never"}]) as server:
        got = Collected()
        with pytest.raises(ProviderError) as caught:
            await anthropic(server).complete(request(), got)
        assert got.text == "half an ans"
        assert "not retried" in caught.value.message
        assert len(server.requests) == 1


async def test_a_stalled_stream_times_out_and_is_retried() -> None:
    with FakeLLMServer([{"stall": True}, {"text": "awake"}]) as server:
        provider = anthropic(server, LUXE_STREAM_IDLE_TIMEOUT_S="0.3")
        _message, got = await complete(provider)
        assert got.text == "awake"
        assert "stalled" in got.retries[0].message and "0.3 s" in got.retries[0].message
        await server.wait_until_async(lambda: server.outcome(0) == "disconnected")


async def test_a_stall_after_content_fails_naming_the_stall() -> None:
    with FakeLLMServer([{"stall": True, "text": "partial"}]) as server:
        provider = anthropic(server, LUXE_STREAM_IDLE_TIMEOUT_S="0.3")
        with pytest.raises(ProviderError) as caught:
            await complete(provider)
        assert "stalled" in caught.value.message and server.base_url in caught.value.message


async def test_mid_stream_error_event() -> None:
    steps = [
        {"stream_error": {"type": "overloaded_error", "message": "Overloaded"}},
        {"text": "ok"},
    ]
    with FakeLLMServer(steps) as server:
        _message, got = await complete(anthropic(server))
        assert got.text == "ok" and "overloaded_error" in got.retries[0].message
    steps = [
        {"text": "some", "stream_error": {"type": "overloaded_error", "message": "Overloaded"}}
    ]
    with FakeLLMServer(steps) as server:
        with pytest.raises(ProviderError) as caught:
            await complete(anthropic(server))
        assert "overloaded_error: Overloaded" in caught.value.message


async def test_missing_key_names_the_variable_and_sends_nothing() -> None:
    with FakeLLMServer([{"text": "unused"}]) as server:
        provider = make_provider("anthropic", "m", fast_env(ANTHROPIC_BASE_URL=server.base_url))
        with pytest.raises(ProviderError) as caught:
            await complete(provider)
        assert "ANTHROPIC_API_KEY" in caught.value.message
        assert server.requests == []


async def test_cancellation_closes_the_connection_at_once() -> None:
    with FakeLLMServer([{"stall": True, "text": "streaming..."}]) as server:
        provider = anthropic(server, LUXE_STREAM_IDLE_TIMEOUT_S="60")
        got_text = trio.Event()

        async def on_event(event: object) -> None:
            if isinstance(event, TextDelta):
                got_text.set()

        async with trio.open_nursery() as nursery:

            async def run() -> None:
                await provider.complete(request(), on_event)

            nursery.start_soon(run)
            await got_text.wait()
            assert server.outcome(0) == "stalled"
            nursery.cancel_scope.cancel()
        # The server notices the closed socket within its 20 ms poll.
        await server.wait_until_async(lambda: server.outcome(0) == "disconnected", timeout=2)


async def test_an_assistant_message_from_another_provider_drops_unsigned_thinking() -> None:
    foreign = AssistantMessage((ThinkingBlock("hidden"), TextBlock(""), TextBlock("answer")))
    with FakeLLMServer([{"text": "ok"}]) as server:
        await complete(anthropic(server), request(user("q"), foreign, user("more")))
        assert server.requests[0].body["messages"][1]["content"] == [
            {"type": "text", "text": "answer"}
        ]


async def test_comments_unknown_events_and_fields_are_ignored_and_max_tokens_kept() -> None:
    with FakeLLMServer(
        [{"text": "abc", "chunk_size": 1, "noise": True, "stop_reason": "max_tokens"}]
    ) as server:
        message, got = await complete(anthropic(server))
        assert got.text == "abc"
        assert message.stop_reason == "max_tokens"


async def test_consecutive_requests_reuse_one_connection() -> None:
    with FakeLLMServer(
        [{"text": "one"}, {"tool_calls": [{"name": "ls", "args": {}}]}, {"text": "three"}]
    ) as server:
        provider = anthropic(server)
        for _ in range(3):
            await complete(provider)
        assert server.connections_opened == 1


async def test_a_server_that_closes_each_connection_gets_a_new_one_per_request() -> None:
    with FakeLLMServer([{"text": "one", "close": True}, {"text": "two", "close": True}]) as server:
        provider = anthropic(server)
        for expected in ("one", "two"):
            _, got = await complete(provider)
            assert got.text == expected
        assert server.connections_opened == 2


async def test_nothing_listening_is_retried_then_named() -> None:
    with FakeLLMServer() as server:
        url = server.base_url  # a port that was just free, now closed again
    provider = make_provider(
        "anthropic",
        "m",
        fast_env(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="k", LUXE_MAX_RETRIES="1"),
    )
    got = Collected()
    with pytest.raises(ProviderError) as caught:
        await provider.complete(request(), got)
    assert "could not connect" in caught.value.message and url in caught.value.message
    assert len(got.retries) == 1 and "could not connect" in got.retries[0].message
