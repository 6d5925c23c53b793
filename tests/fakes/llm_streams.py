"""The bytes of scripted Anthropic and OpenAI streams (pure, no I/O).

`anthropic_events(step, n)` and `openai_events(step, n, request_body)` yield
each SSE event as bytes, in the order the real APIs send them (see
docs/providers.md and the captured sequences they follow), plus two markers
for the server: STALL (go silent) and CUT (drop the connection).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any

Step = dict[str, Any]

STALL = object()
CUT = object()


def _pieces(text: str, size: int | None) -> list[str]:
    if not size or size <= 0 or len(text) <= size:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def _tool_calls(step: Step, step_index: int, prefix: str) -> list[tuple[str, str, str]]:
    """(id, name, arguments JSON) for each scripted tool call."""
    calls = []
    for n, call in enumerate(step.get("tool_calls") or []):
        call_id = call.get("id") or f"{prefix}_fake_{step_index}_{n}"
        calls.append((call_id, call["name"], json.dumps(call.get("args") or {})))
    return calls


def _usage(step: Step) -> dict[str, int]:
    usage = step.get("usage") or {}
    return {
        "input_tokens": int(usage.get("input_tokens", 10)),
        "output_tokens": int(usage.get("output_tokens", 5)),
        "cache_read_tokens": int(usage.get("cache_read_tokens", 0)),
        "cache_write_tokens": int(usage.get("cache_write_tokens", 0)),
    }


def _sse(event: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    # backslashreplace: a lone surrogate in a scripted text goes out as the
    # JSON escape `\ud800`, as a real server may send it.
    return f"{head}data: {payload}\n\n".encode("utf-8", "backslashreplace")


def _signature(thinking: str) -> str:
    return "sig-" + hashlib.sha256(thinking.encode()).hexdigest()[:24]


def _flood(flood: dict[str, Any]) -> Iterator[object]:
    """A hostile endpoint: `mb` megabytes of one line that never ends, or
    (`lines`) of data lines of one event that never ends, each ended by
    `line_end` ("\\n"); then a cut."""
    line_end = str(flood.get("line_end", "\n")).encode()
    piece = b"a" * 65536 + (line_end + b"data: " if flood.get("lines") else b"")
    yield b"data: "
    for _ in range(int(flood["mb"]) * 16):
        yield piece
    yield CUT


def _endless(
    endless: dict[str, Any], pieces: Callable[[int, str], Iterator[bytes]]
) -> Iterator[object]:
    """A hostile endpoint that streams valid deltas without end: `pieces(n,
    piece)` gives the events of the n-th piece of `piece` characters; after
    `mb` megabytes of events (a bound, so a client without its own cannot
    make a test run for ever), a cut."""
    size = int(endless.get("piece", 4096))
    budget = int(endless.get("mb", 24)) << 20
    piece = "x" * size
    n = 0
    while budget > 0:
        for event in pieces(n, piece):
            budget -= len(event)
            yield event
        n += 1
    yield CUT


def _anthropic_endless(endless: dict[str, Any]) -> Iterator[object]:
    """`endless` after message_start: `kind` text, thinking, signature (of a
    thinking block) or args (of a write call), each piece a delta of one
    block, or (`blocks`) each in a block of its own."""
    kind = endless["kind"]
    delta_type = {
        "text": "text_delta",
        "thinking": "thinking_delta",
        "signature": "signature_delta",
        "args": "input_json_delta",
    }[kind]
    field_name = {"text": "text", "thinking": "thinking", "signature": "signature"}.get(
        kind, "partial_json"
    )

    def start(index: int) -> list[bytes]:
        if kind == "args":
            block = {"type": "tool_use", "id": f"toolu_endless_{index}", "name": "write"}
        elif kind == "text":
            block = {"type": "text", "text": ""}
        else:
            block = {"type": "thinking", "thinking": "", "signature": ""}
        started = {"type": "content_block_start", "index": index, "content_block": block}
        events = [_sse("content_block_start", started)]
        if kind == "args":
            opening = '{"path": "endless.txt", "content": "'
            events.append(_delta(index, delta_type, field_name, opening))
        return events

    def pieces(n: int, piece: str) -> Iterator[bytes]:
        index = n if endless.get("blocks") else 0
        if n == 0 or endless.get("blocks"):
            yield from start(index)
        yield _delta(index, delta_type, field_name, piece)
        if endless.get("blocks"):
            yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})

    return _endless(endless, pieces)


def _delta(index: int, delta_type: str, field_name: str, piece: str) -> bytes:
    delta = {"type": delta_type, field_name: piece}
    return _sse(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )


def anthropic_events(step: Step, step_index: int) -> Iterator[object]:
    usage = _usage(step)
    size = step.get("chunk_size")
    yield _sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": f"msg_fake_{step_index}",
                "type": "message",
                "role": "assistant",
                "model": "fake-model",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": usage["input_tokens"],
                    "cache_creation_input_tokens": usage["cache_write_tokens"],
                    "cache_read_input_tokens": usage["cache_read_tokens"],
                    "output_tokens": 1,
                },
            },
        },
    )
    if step.get("noise"):
        yield b": a comment the client must skip\n\n"
        yield _sse("future_event", {"type": "future_event", "surprise": [1, 2]})
    if step.get("stall") and not step.get("text") and not step.get("thinking"):
        yield STALL
        return
    if step.get("flood"):
        yield from _flood(step["flood"])
        return
    if step.get("endless"):
        yield from _anthropic_endless(step["endless"])
        return
    index = 0
    if step.get("redacted_thinking"):
        yield _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "redacted_thinking", "data": step["redacted_thinking"]},
            },
        )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    if step.get("thinking"):
        thinking = step["thinking"]
        yield _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
        )
        for piece in _pieces(thinking, size):
            yield _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "thinking_delta", "thinking": piece},
                },
            )
        yield _sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {
                    "type": "signature_delta",
                    "signature": step.get("signature") or _signature(thinking),
                },
            },
        )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    if step.get("text"):
        yield _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
        )
        yield _sse("ping", {"type": "ping"})
        extra = {"obfuscation": "xx"} if step.get("noise") else {}
        for piece in _pieces(step["text"], size):
            yield _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece, **extra},
                },
            )
        if step.get("stall"):
            yield STALL
            return
        if step.get("cut"):
            yield CUT
            return
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    elif step.get("cut"):
        yield CUT
        return
    if step.get("stream_error"):
        err = step["stream_error"]
        yield _sse(
            "error",
            {
                "type": "error",
                "error": {
                    "type": err.get("type", "overloaded_error"),
                    "message": err.get("message", "Overloaded"),
                },
            },
        )
        yield CUT
        return
    calls = _tool_calls(step, step_index, "toolu")
    for call_id, name, args in calls:
        yield _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            },
        )
        # As captured: the first fragment is empty, a ping may come between deltas.
        for piece in ["", *_pieces(args, size or 7)]:
            yield _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                },
            )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    stop_reason = "tool_use" if calls else step.get("stop_reason", "end_turn")
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})
    if step.get("cut_after_end"):
        yield CUT


def openai_events(step: Step, step_index: int, body: Any) -> Iterator[object]:
    usage = _usage(step)
    size = step.get("chunk_size")
    variants = set(step.get("openai_variants") or ())
    base = {
        "id": f"chatcmpl-fake-{step_index}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake-model",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {
            **base,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            "usage": None,
        }
        return _sse(None, data)

    yield chunk({"role": "assistant", "content": ""})
    if step.get("flood"):
        yield from _flood(step["flood"])
        return
    if step.get("endless"):
        yield from _openai_endless(step["endless"], chunk)
        return
    if step.get("stall") and not step.get("text") and not step.get("thinking"):
        yield STALL
        return
    if step.get("thinking"):
        # What OpenAI-compatible reasoning servers (vLLM, DeepSeek, ollama) send.
        for piece in _pieces(step["thinking"], size):
            yield chunk({"reasoning_content": piece})
    if step.get("noise"):
        yield b": keep-alive\n\n"
    if step.get("text"):
        empty_calls: dict[str, Any] = {"tool_calls": []} if "empty_tool_calls" in variants else {}
        for piece in _pieces(step["text"], size):
            yield chunk({"content": piece, **empty_calls})
    if step.get("stall"):
        yield STALL
        return
    if step.get("cut"):
        yield CUT
        return
    if step.get("stream_error"):
        err = step["stream_error"]
        yield _sse(
            None,
            {
                "error": {
                    "message": err.get("message", "The server had an error"),
                    "type": err.get("type", "server_error"),
                    "code": None,
                }
            },
        )
        yield CUT
        return
    calls = _tool_calls(step, step_index, "call")
    if "whole_args" in variants:
        for n, (call_id, name, args) in enumerate(calls):
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": n,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": args},
                        }
                    ]
                }
            )
        calls_streamed: list[tuple[str, str, str]] = []
    else:
        calls_streamed = calls
    # Every call's header first, then argument fragments interleaved by index:
    # only `index` identifies which call a fragment belongs to.
    for n, (call_id, name, _args) in enumerate(calls_streamed):
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": n,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                ]
            }
        )
    fragments = [_pieces(args, size or 7) for _id, _name, args in calls_streamed]
    for round_ in range(max((len(f) for f in fragments), default=0)):
        for n, pieces in enumerate(fragments):
            if round_ < len(pieces):
                yield chunk(
                    {"tool_calls": [{"index": n, "function": {"arguments": pieces[round_]}}]}
                )
    stop = step.get("stop_reason", "end_turn")
    finish = "tool_calls" if calls else ("length" if stop == "max_tokens" else "stop")
    yield chunk({}, finish)
    wants_usage = isinstance(body, dict) and (body.get("stream_options") or {}).get("include_usage")
    if wants_usage:
        prompt = usage["input_tokens"] + usage["cache_read_tokens"]
        yield _sse(
            None,
            {
                **base,
                "choices": None if "null_choices" in variants else [],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": usage["output_tokens"],
                    "total_tokens": prompt + usage["output_tokens"],
                    "prompt_tokens_details": {"cached_tokens": usage["cache_read_tokens"]},
                    "completion_tokens_details": {"reasoning_tokens": 0},
                },
            },
        )
    yield _sse(None, "[DONE]")
    if step.get("cut_after_end"):
        yield CUT


def _openai_endless(
    endless: dict[str, Any], chunk: Callable[[dict[str, Any]], bytes]
) -> Iterator[object]:
    """`endless` after the first chunk: `kind` text (content), thinking
    (reasoning_content) or args (of a write call), or (`blocks`, args only)
    each piece the arguments of a call of its own."""
    kind = endless["kind"]

    def call(n: int, arguments: str, header: bool) -> bytes:
        function: dict[str, Any] = {"arguments": arguments}
        entry: dict[str, Any] = {"index": n, "function": function}
        if header:
            entry.update(id=f"call_endless_{n}", type="function")
            function["name"] = "write"
        return chunk({"tool_calls": [entry]})

    def pieces(n: int, piece: str) -> Iterator[bytes]:
        if kind == "text":
            yield chunk({"content": piece})
        elif kind == "thinking":
            yield chunk({"reasoning_content": piece})
        elif endless.get("blocks"):
            yield call(n, piece, header=True)
        else:
            if n == 0:
                yield call(0, '{"path": "endless.txt", "content": "', header=True)
            yield call(0, piece, header=False)

    return _endless(endless, pieces)
