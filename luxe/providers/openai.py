"""OpenAI Chat Completions, streamed; also any OpenAI-compatible server
(ollama, vLLM, llama.cpp, OpenRouter, ...).

Tool-call arguments arrive as fragments keyed only by `index`, possibly
interleaved between calls; they are assembled per index and parsed at the
end. Usage comes in a final chunk because the request sets
`stream_options.include_usage`.
"""

from __future__ import annotations

import json
import re
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
    ToolCallStarted,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UsageUpdate,
    UserMessage,
)
from luxe.providers.anthropic import idle_timeout_from_env, parse_tool_input
from luxe.providers.bounds import MessageBudget, Pieces
from luxe.providers.http_stream import SSEPoster
from luxe.providers.retry import RetryableError, RetryPolicy, call_with_retries
from luxe.providers.sse import ServerSentEvent

DEFAULT_BASE_URL = "https://api.openai.com/v1"

FINISH_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}

# Models that take `reasoning_effort`; others refuse the field.
_REASONING_MODEL = re.compile(r"^(o\d|gpt-5)")


class OpenAIProvider:
    """Streams `{base_url}/chat/completions`. Owns its HTTP client."""

    def __init__(
        self,
        env: Mapping[str, str],
        *,
        name: str = "openai",
        label: str = "OpenAI",
        base_url: str,
        api_key: str | None,
        key_variable: str | None,
        key_required: bool,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.api_key = api_key or None
        self.key_variable = key_variable
        self.key_required = key_required
        self.retry_policy = RetryPolicy.from_env(env)
        self._poster = SSEPoster(
            label=label, key_variable=key_variable, idle_timeout_s=idle_timeout_from_env(env)
        )
        # Built here, not on the first request: luxe builds providers in a
        # warm-up thread after `ready`, so the first turn does not pay for it.
        self._poster.prepare(self.url)

    async def aclose(self) -> None:
        await self._poster.aclose()

    async def complete(self, request: ModelRequest, on_event: OnEvent) -> AssistantMessage:
        if self.key_required and not self.api_key:
            var = self.key_variable or "the API key"
            raise ProviderError(
                f"{var} is not set: export {var}=<your key> (or choose another model with --model)"
            )
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        body = request_body(request, official=self.name == "openai")

        async def attempt(emit: OnEvent) -> AssistantMessage:
            reader = _StreamReader(self.url, self._poster.label, emit)
            await self._poster.post(self.url, headers, body, reader.on_sse)
            return reader.message()

        return await call_with_retries(attempt, policy=self.retry_policy, on_event=on_event)


# -- request ------------------------------------------------------------------


def request_body(request: ModelRequest, *, official: bool = True) -> dict[str, Any]:
    """The JSON body for one streamed request (pure). `official` selects
    OpenAI's own field names where compatible servers still use older ones."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.extend(_messages(request.messages))
    body: dict[str, Any] = {
        "model": request.model,
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": messages,
    }
    body["max_completion_tokens" if official else "max_tokens"] = request.max_tokens
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                },
            }
            for t in request.tools
        ]
    if request.thinking != "off" and _REASONING_MODEL.match(request.model):
        body["reasoning_effort"] = request.thinking
    return body


def _messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            # Tool results must directly follow the assistant message that asked.
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    content = f"Error: {block.content}" if block.is_error else block.content
                    out.append(
                        {"role": "tool", "tool_call_id": block.tool_use_id, "content": content}
                    )
            text = "\n\n".join(b.text for b in message.content if isinstance(b, TextBlock))
            if text:
                out.append({"role": "user", "content": text})
            continue
        entry: dict[str, Any] = {"role": "assistant"}
        text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
        entry["content"] = text or None
        calls = [
            {
                "id": b.id,
                "type": "function",
                "function": {"name": b.name, "arguments": json.dumps(b.input)},
            }
            for b in message.content
            if isinstance(b, ToolUseBlock)
        ]
        if calls:
            entry["tool_calls"] = calls
        if text or calls:
            out.append(entry)
    return out


# -- response -------------------------------------------------------------------


class _Call:
    def __init__(self, block: int) -> None:
        self.block = block
        self.id = ""
        self.name = ""
        self.arguments = Pieces()
        self.announced = False


class _StreamReader:
    """Assembles one streamed completion; emits deltas as they arrive. What
    it keeps is held to the bounds of luxe.providers.bounds."""

    def __init__(self, url: str, label: str, emit: OnEvent) -> None:
        self.url = url
        self.label = label
        self.emit = emit
        self.budget = MessageBudget(f"{label} stream from {url}")
        self.next_block = 0
        self.text_block: int | None = None
        self.thinking_block: int | None = None
        self.texts: dict[int, Pieces] = {}
        self.calls: dict[int, _Call] = {}  # by the wire's tool call index
        self.usage = Usage()
        self.finish_reason: str | None = None

    def _new_block(self) -> int:
        self.budget.new_block()
        block, self.next_block = self.next_block, self.next_block + 1
        return block

    async def on_sse(self, sse: ServerSentEvent) -> bool:
        if not sse.data.startswith("{") and sse.data.strip() == "[DONE]":
            return True
        try:
            data = json.loads(sse.data)
        except (ValueError, RecursionError):
            return False
        if not isinstance(data, dict):
            return False
        if data.get("error"):
            err = data["error"]
            detail = err.get("message", err) if isinstance(err, dict) else err
            raise RetryableError(f"{self.label} stream from {self.url} failed: {detail}")
        for choice in data.get("choices") or []:
            await self._choice(choice)
        if isinstance(data.get("usage"), dict):
            await self._usage(data["usage"])
        return False

    async def _choice(self, choice: dict[str, Any]) -> None:
        delta = choice.get("delta") or {}
        thinking = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(thinking, str) and thinking:
            if self.thinking_block is None:
                self.thinking_block = self._new_block()
                self.texts[self.thinking_block] = Pieces()
            # _shown for a piece that fits, inlined (one per streamed token)
            if self.budget.fits(thinking):
                self.texts[self.thinking_block].add(thinking)
                await self.emit(ThinkingDelta(block=self.thinking_block, text=thinking))
            else:
                await self._shown(self.thinking_block, thinking, ThinkingDelta)
        content = delta.get("content")
        if isinstance(content, str) and content:
            if self.text_block is None:
                self.text_block = self._new_block()
                self.texts[self.text_block] = Pieces()
            # _shown for a piece that fits, inlined (one per streamed token)
            if self.budget.fits(content):
                self.texts[self.text_block].add(content)
                await self.emit(TextDelta(block=self.text_block, text=content))
            else:
                await self._shown(self.text_block, content, TextDelta)
        for position, raw in enumerate(delta.get("tool_calls") or []):
            await self._tool_call_delta(position, raw)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]

    async def _shown(self, block: int, piece: str, delta: type[TextDelta | ThinkingDelta]) -> None:
        """Keep and emit a piece of text or thinking; past the bound, what
        fits of it, then ProviderError."""
        whole = self.budget.fits(piece)
        if not whole:
            piece = self.budget.cut(piece)
        if piece:
            self.texts[block].add(piece)
            await self.emit(delta(block=block, text=piece))
        if not whole:
            self.budget.over()

    async def _tool_call_delta(self, position: int, raw: dict[str, Any]) -> None:
        index = raw.get("index")
        if not isinstance(index, int):
            index = position  # some servers omit the index of whole calls
        call = self.calls.get(index)
        if call is None:
            call = self.calls[index] = _Call(self._new_block())
        function = raw.get("function") or {}
        if isinstance(raw.get("id"), str) and raw["id"]:
            call.id = self.budget.keep(raw["id"])
        if isinstance(function.get("name"), str) and not call.announced:
            call.name += self.budget.keep(function["name"])
        if isinstance(function.get("arguments"), str):
            call.arguments.add(self.budget.keep(function["arguments"]))
        if call.name and not call.announced:
            call.announced = True
            call.id = call.id or f"call_{index}"
            await self.emit(ToolCallStarted(block=call.block, id=call.id, name=call.name))

    async def _usage(self, raw: dict[str, Any]) -> None:
        prompt = int(raw.get("prompt_tokens") or 0)
        cached = int((raw.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
        self.usage = Usage(
            input_tokens=max(prompt - cached, 0),
            output_tokens=int(raw.get("completion_tokens") or 0),
            cache_read_tokens=cached,
        )
        await self.emit(UsageUpdate(self.usage))

    def message(self) -> AssistantMessage:
        blocks: dict[int, AssistantContent] = {}
        for block, parts in self.texts.items():
            text = parts.text()
            blocks[block] = ThinkingBlock(text) if block == self.thinking_block else TextBlock(text)
        for call in self.calls.values():
            if call.name:
                blocks[call.block] = ToolUseBlock(
                    call.id, call.name, parse_tool_input(call.arguments.text())
                )
        reason = self.finish_reason
        stop = FINISH_REASONS.get(reason, reason) if reason else None
        return AssistantMessage(
            tuple(blocks[b] for b in sorted(blocks)), stop_reason=stop, usage=self.usage
        )
