"""Anthropic Messages API, streamed: the engine's neutral types <-> the wire.

Thinking blocks keep their signatures (and redacted thinking its opaque
data) so they go back verbatim in the next request, as the API requires.
Prompt caching marks the system prompt, the last tool and the last two user
messages (four breakpoints, the API's maximum).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from luxe.engine.model import (
    AssistantContent,
    AssistantMessage,
    Message,
    ModelRequest,
    OnEvent,
    ProviderError,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ThinkingLevel,
    ToolCallStarted,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UsageUpdate,
    UserMessage,
)
from luxe.env_seconds import seconds_from
from luxe.providers.bounds import MAX_ARGUMENT_DEPTH, MessageBudget, Pieces
from luxe.providers.http_stream import SSEPoster
from luxe.providers.retry import RetryableError, RetryPolicy, call_with_retries
from luxe.providers.sse import ServerSentEvent

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
KEY_VARIABLE = "ANTHROPIC_API_KEY"

THINKING_BUDGET: dict[ThinkingLevel, int] = {"low": 4_000, "medium": 10_000, "high": 32_000}
CACHE = {"type": "ephemeral"}


def idle_timeout_from_env(env: Mapping[str, str], default: float = 60.0) -> float:
    """How long a stream may stay silent (`LUXE_STREAM_IDLE_TIMEOUT_S`)."""
    return seconds_from(env, "LUXE_STREAM_IDLE_TIMEOUT_S", default)


class AnthropicProvider:
    """Streams `/v1/messages`. Owns its HTTP client; `aclose` releases it."""

    name = "anthropic"

    def __init__(self, env: Mapping[str, str]) -> None:
        self.base_url = (env.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.url = f"{self.base_url}/v1/messages"
        self.api_key = env.get(KEY_VARIABLE) or None
        self.retry_policy = RetryPolicy.from_env(env)
        self._poster = SSEPoster(
            label="Anthropic", key_variable=KEY_VARIABLE, idle_timeout_s=idle_timeout_from_env(env)
        )
        # Built here, not on the first request: luxe builds providers in a
        # warm-up thread after `ready`, so the first turn does not pay for it.
        self._poster.prepare(self.url)

    async def aclose(self) -> None:
        await self._poster.aclose()

    async def complete(self, request: ModelRequest, on_event: OnEvent) -> AssistantMessage:
        if not self.api_key:
            raise ProviderError(
                f"{KEY_VARIABLE} is not set: export {KEY_VARIABLE}=<your key> "
                "(or choose another model with --model)"
            )
        headers = {
            "x-api-key": self.api_key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
            "accept": "text/event-stream",
        }
        body = request_body(request)

        async def attempt(emit: OnEvent) -> AssistantMessage:
            reader = _StreamReader(self.url, emit)
            await self._poster.post(self.url, headers, body, reader.on_sse)
            return reader.message()

        return await call_with_retries(attempt, policy=self.retry_policy, on_event=on_event)


# -- request ------------------------------------------------------------------


def request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body for one streamed request (pure)."""
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "stream": True,
        "messages": _messages(request.messages),
    }
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": CACHE}]
    if request.tools:
        tools: list[dict[str, Any]] = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools
        ]
        tools[-1]["cache_control"] = CACHE
        body["tools"] = tools
    budget = THINKING_BUDGET.get(request.thinking)
    if budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        # max_tokens must exceed the thinking budget, with room for the answer.
        body["max_tokens"] = max(request.max_tokens, budget + 4_096)
    return body


def _messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            content = [_user_block(b) for b in message.content]
        else:
            content = [c for b in message.content if (c := _assistant_block(b)) is not None]
        if content:
            out.append({"role": message.role, "content": content})
    # Cache the conversation so far: the last two user messages carry breakpoints.
    marked = 0
    for entry in reversed(out):
        if entry["role"] == "user" and marked < 2:
            entry["content"][-1] = {**entry["content"][-1], "cache_control": CACHE}
            marked += 1
    return out


def _user_block(block: TextBlock | ToolResultBlock) -> dict[str, Any]:
    if isinstance(block, ToolResultBlock):
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": block.tool_use_id,
            "content": block.content,
        }
        if block.is_error:
            result["is_error"] = True
        return result
    return {"type": "text", "text": block.text}


def _assistant_block(block: AssistantContent) -> dict[str, Any] | None:
    if isinstance(block, ThinkingBlock):
        if block.redacted_data is not None:
            return {"type": "redacted_thinking", "data": block.redacted_data}
        if not block.signature:
            return None  # unsigned thinking (another provider's) is refused by the API
        return {"type": "thinking", "thinking": block.text, "signature": block.signature}
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if not block.text:
        return None  # the API refuses empty text blocks
    return {"type": "text", "text": block.text}


# -- response -------------------------------------------------------------------


class _Block:
    def __init__(self, kind: str, first: str = "", signature: str = "", **fields: str) -> None:
        self.kind = kind
        self.parts = Pieces(first)
        # Kept in pieces too: a signature without end, joined again at each
        # delta, cost time as well as memory.
        self.signature = Pieces(signature)
        self.fields = fields


class _StreamReader:
    """Assembles one streamed response; emits deltas as they arrive. What it
    keeps is held to the bounds of luxe.providers.bounds."""

    def __init__(self, url: str, emit: OnEvent) -> None:
        self.url = url
        self.emit = emit
        self.blocks: dict[int, _Block] = {}
        self.budget = MessageBudget(f"Anthropic stream from {url}")
        self.usage = Usage()
        self.stop_reason: str | None = None
        self.done = False

    async def on_sse(self, sse: ServerSentEvent) -> bool:
        kind = sse.event
        if kind == "ping":
            return False
        try:
            data = json.loads(sse.data)
        except (ValueError, RecursionError):
            return False  # not ours to understand; unknown data is ignored
        if not isinstance(data, dict):
            return False
        kind = data.get("type", kind)
        if kind == "content_block_delta":
            # The hot path: one per streamed token.
            delta = data.get("delta")
            if isinstance(delta, dict) and delta.get("type") == "text_delta":
                index = data["index"]
                block = self.blocks.get(index)
                if block is not None:
                    # _shown inlined for a piece that fits: calling a coroutine
                    # for each token cost more than the budget's own work
                    # (docs/performance.md, "The answer's budget on the stream").
                    text = delta["text"]
                    if self.budget.fits(text):
                        block.parts.add(text)
                        await self.emit(TextDelta(block=index, text=text))
                    else:
                        await self._shown(index, block, text, TextDelta)
                return False
            await self._delta(data)
        elif kind == "content_block_start":
            await self._start(data)
        elif kind == "message_start":
            await self._usage(data.get("message", {}).get("usage") or {})
        elif kind == "message_delta":
            self.stop_reason = (data.get("delta") or {}).get("stop_reason") or self.stop_reason
            await self._usage(data.get("usage") or {})
        elif kind == "message_stop":
            self.done = True
            return True
        elif kind == "error":
            err = data.get("error") or {}
            etype = err.get("type", "error")
            message = f"Anthropic stream from {self.url} failed: {etype}: {err.get('message', '')}"
            if etype in ("overloaded_error", "api_error", "rate_limit_error"):
                raise RetryableError(message, status=529 if etype == "overloaded_error" else None)
            raise ProviderError(message)
        return False

    async def _shown(
        self, index: int, block: _Block, piece: str, delta: type[TextDelta | ThinkingDelta]
    ) -> None:
        """Keep and emit a piece of text or thinking; past the bound, what
        fits of it, then ProviderError."""
        whole = self.budget.fits(piece)
        if not whole:
            piece = self.budget.cut(piece)
        if piece:
            block.parts.add(piece)
            await self.emit(delta(block=index, text=piece))
        if not whole:
            self.budget.over()

    async def _start(self, data: dict[str, Any]) -> None:
        index = int(data["index"])
        block = data.get("content_block") or {}
        kind = block.get("type")
        if kind not in ("tool_use", "thinking", "redacted_thinking", "text"):
            return  # other block kinds (server tools, citations) are ignored
        self.budget.new_block()
        if kind == "tool_use":
            call_id, name = self.budget.keep(block["id"]), self.budget.keep(block["name"])
            self.blocks[index] = _Block("tool_use", id=call_id, name=name)
            await self.emit(ToolCallStarted(block=index, id=call_id, name=name))
        elif kind == "thinking":
            thinking = self.budget.keep(block.get("thinking") or "")
            signature = self.budget.keep(block.get("signature") or "")
            self.blocks[index] = _Block("thinking", thinking, signature=signature)
        elif kind == "redacted_thinking":
            opaque = self.budget.keep(block.get("data", ""))
            self.blocks[index] = _Block("redacted_thinking", data=opaque)
        else:
            self.blocks[index] = _Block("text")
            if block.get("text"):
                await self._shown(index, self.blocks[index], block["text"], TextDelta)

    async def _delta(self, data: dict[str, Any]) -> None:
        index = int(data["index"])
        block = self.blocks.get(index)
        delta = data.get("delta") or {}
        kind = delta.get("type")
        if block is None:
            return
        if kind == "text_delta":
            await self._shown(index, block, delta["text"], TextDelta)
        elif kind == "thinking_delta":
            thinking = delta["thinking"]
            if self.budget.fits(thinking):  # _shown inlined, as for text
                block.parts.add(thinking)
                await self.emit(ThinkingDelta(block=index, text=thinking))
            else:
                await self._shown(index, block, thinking, ThinkingDelta)
        elif kind == "signature_delta":
            block.signature.add(self.budget.keep(delta["signature"]))
        elif kind == "input_json_delta":
            block.parts.add(self.budget.keep(delta.get("partial_json", "")))

    async def _usage(self, raw: dict[str, Any]) -> None:
        def pick(key: str, current: int) -> int:
            value = raw.get(key)
            return int(value) if isinstance(value, int) else current

        self.usage = Usage(
            input_tokens=pick("input_tokens", self.usage.input_tokens),
            output_tokens=pick("output_tokens", self.usage.output_tokens),
            cache_read_tokens=pick("cache_read_input_tokens", self.usage.cache_read_tokens),
            cache_write_tokens=pick("cache_creation_input_tokens", self.usage.cache_write_tokens),
        )
        await self.emit(UsageUpdate(self.usage))

    def message(self) -> AssistantMessage:
        content: list[AssistantContent] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            text = block.parts.text()
            if block.kind == "text":
                content.append(TextBlock(text))
            elif block.kind == "thinking":
                content.append(ThinkingBlock(text, signature=block.signature.text() or None))
            elif block.kind == "redacted_thinking":
                content.append(ThinkingBlock("", redacted_data=block.fields["data"]))
            else:
                content.append(
                    ToolUseBlock(block.fields["id"], block.fields["name"], parse_tool_input(text))
                )
        return AssistantMessage(tuple(content), stop_reason=self.stop_reason, usage=self.usage)


def parse_tool_input(raw: str) -> dict[str, Any]:
    """Tool arguments from their streamed JSON; malformed JSON (the model
    cut off mid-arguments, usually at max_tokens) or arguments nested deeper
    than MAX_ARGUMENT_DEPTH are kept for the tool to report."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return {"_invalid_json": raw}
    if not isinstance(value, dict) or _too_deep(value):
        return {"_invalid_json": raw}
    return value


def _too_deep(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            return True
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return False
