"""`--model scripted:PATH`: replay a JSONL script of model answers offline.

One JSON object per line, one line per model request, consumed in order:

    {"text": "...", "thinking": "...", "delay_s": 0.5,
     "tool_calls": [{"name": "read", "args": {"path": "README.md"}, "id": "optional"}],
     "usage": {"input_tokens": 10, "output_tokens": 5},
     "retry": {"message": "...", "retry_in_s": 0.1},
     "stall_s": 30, "error": "message"}

Every key is optional. `thinking` streams before the text; `text` streams as
several deltas; `tool_calls` makes the answer stop with `tool_use` (ids are
generated when absent), otherwise it stops with `end_turn`. `delay_s` waits
before answering and `stall_s` after the text has streamed, before the
answer completes (so a client can cancel mid-request or mid-stream); `retry` announces a
retry first (the `error {retryable: true}` frame) and `error` fails the
request. When the script runs out the request fails: "script PATH has no
step N". Used by `make demo` and by clients that want deterministic sessions.

A script is read only from a regular file of at most MAX_SCRIPT_BYTES: a
FIFO held the event loop in its open for good, and /dev/zero never ends.
"""

from __future__ import annotations

import json
import re
from typing import Any

import trio

from luxe.engine.model import (
    AssistantContent,
    AssistantMessage,
    ModelRequest,
    OnEvent,
    ProviderError,
    RetryScheduled,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallStarted,
    ToolUseBlock,
    Usage,
    UsageUpdate,
)
from luxe.regular_file import NotRegularFile, open_regular

MAX_SCRIPT_BYTES = 64 << 20

# A word with the spaces after it, or the spaces a text starts with.
_WORDS = re.compile(r"\s+|\S+\s*")


def _chunks(text: str, size: int = 12) -> list[str]:
    """Split text into word-ish pieces, as a real stream would deliver it;
    the pieces joined are `text` exactly (indentation and runs of spaces
    included)."""
    pieces: list[str] = []
    current = ""
    for word in _WORDS.findall(text):
        if current and len(current) + len(word) > size:
            pieces.append(current)
            current = word
        else:
            current += word
    if current:
        pieces.append(current)
    return pieces or [""]


class ScriptedProvider:
    """Answers each request with the script's next step."""

    name = "scripted"

    def __init__(self, path: str) -> None:
        self.path = path
        self._steps: list[Any] | None = None
        self._next = 0

    def _load(self) -> list[Any]:
        if self._steps is None:
            try:
                with open_regular(self.path) as f:
                    data = f.read(MAX_SCRIPT_BYTES + 1)
            except NotRegularFile:
                raise ProviderError(f"script {self.path} is not a regular file") from None
            except OSError as exc:
                raise ProviderError(f"script {self.path}: cannot read: {exc.strerror}") from exc
            if len(data) > MAX_SCRIPT_BYTES:
                raise ProviderError(f"script {self.path} is over {MAX_SCRIPT_BYTES >> 20} MB")
            text = data.decode("utf-8", "replace")
            steps = []
            for number, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    step = json.loads(line)
                except ValueError as exc:
                    raise ProviderError(f"script {self.path} line {number}: {exc}") from exc
                if not isinstance(step, dict):
                    raise ProviderError(f"script {self.path} line {number}: not an object")
                steps.append(step)
            self._steps = steps
        return self._steps

    async def aclose(self) -> None:
        """Nothing to release: the script is read into memory."""
        return None

    async def complete(self, request: ModelRequest, on_event: OnEvent) -> AssistantMessage:
        steps = self._load()
        number = self._next + 1
        if self._next >= len(steps):
            raise ProviderError(f"script {self.path} has no step {number}")
        step = steps[self._next]
        self._next += 1
        retry = step.get("retry")
        if isinstance(retry, dict):
            delay = float(retry.get("retry_in_s", 0.0))
            message = str(retry.get("message", f"script {self.path} step {number}: retrying"))
            await on_event(RetryScheduled(message, delay, 1))
            await trio.sleep(delay)
        if step.get("delay_s"):
            await trio.sleep(float(step["delay_s"]))
        if "error" in step:
            raise ProviderError(str(step["error"]))
        content: list[AssistantContent] = []
        if step.get("thinking"):
            block = len(content)
            for piece in _chunks(str(step["thinking"])):
                await on_event(ThinkingDelta(block, piece))
            content.append(ThinkingBlock(str(step["thinking"])))
        if step.get("text"):
            block = len(content)
            for piece in _chunks(str(step["text"])):
                await on_event(TextDelta(block, piece))
            content.append(TextBlock(str(step["text"])))
        if step.get("stall_s"):
            await trio.sleep(float(step["stall_s"]))
        for index, call in enumerate(step.get("tool_calls") or []):
            call_id = str(call.get("id") or f"call_{number}_{index + 1}")
            await on_event(ToolCallStarted(len(content), call_id, str(call["name"])))
            content.append(ToolUseBlock(call_id, str(call["name"]), dict(call.get("args") or {})))
        raw_usage = step.get("usage") or {}
        usage = Usage(
            input_tokens=int(raw_usage.get("input_tokens", _estimate(request))),
            output_tokens=int(raw_usage.get("output_tokens", len(str(step.get("text", ""))) // 4 + 1)),
            cache_read_tokens=int(raw_usage.get("cache_read_tokens", 0)),
            cache_write_tokens=int(raw_usage.get("cache_write_tokens", 0)),
        )
        await on_event(UsageUpdate(usage))
        stop = "tool_use" if any(isinstance(b, ToolUseBlock) for b in content) else "end_turn"
        return AssistantMessage(tuple(content), stop, usage)


def _estimate(request: ModelRequest) -> int:
    size = len(request.system) + sum(len(repr(m.content)) for m in request.messages)
    return size // 4 + 1
