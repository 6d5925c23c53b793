"""The per-answer bound in the stream readers, in process: a piece that
crosses MAX_MESSAGE_CHARS is cut where the bound falls (what fits of it is
sent on), then the read fails naming the bound; what is kept but not sent
(a tool call's arguments) fails at the piece that does not fit. The
endless-answer tests meet the bound through `luxe --rpc` with pieces that
end on it exactly; here a piece ends past it."""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio

from luxe.engine.model import ProviderError, StreamEvent, TextDelta, ThinkingDelta
from luxe.providers import anthropic, openai
from luxe.providers.bounds import MAX_MESSAGE_CHARS
from luxe.providers.sse import ServerSentEvent


def anthropic_stream(kind: str, pieces: list[str]) -> list[ServerSentEvent]:
    block, delta_type, field = {
        "text": ({"type": "text", "text": ""}, "text_delta", "text"),
        "thinking": ({"type": "thinking", "thinking": ""}, "thinking_delta", "thinking"),
        "args": (
            {"type": "tool_use", "id": "t", "name": "write"},
            "input_json_delta",
            "partial_json",
        ),
    }[kind]
    start = {"type": "content_block_start", "index": 0, "content_block": block}
    events = [ServerSentEvent(json.dumps(start), "content_block_start")]
    for piece in pieces:
        delta = {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": delta_type, field: piece},
        }
        events.append(ServerSentEvent(json.dumps(delta), "content_block_delta"))
    return events


def openai_stream(kind: str, pieces: list[str]) -> list[ServerSentEvent]:
    def chunk(delta: dict[str, Any]) -> ServerSentEvent:
        return ServerSentEvent(json.dumps({"choices": [{"index": 0, "delta": delta}]}))

    if kind == "args":
        call = {"index": 0, "id": "c", "function": {"name": "write", "arguments": ""}}
        head = [chunk({"tool_calls": [call]})]
        return head + [
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces
        ]
    field = {"text": "content", "thinking": "reasoning_content"}[kind]
    return [chunk({field: p}) for p in pieces]


def read(flavour: str, kind: str, pieces: list[str]) -> tuple[list[StreamEvent], Any]:
    """The events a reader emitted, and its message or the error it raised."""
    seen: list[StreamEvent] = []

    async def emit(event: StreamEvent) -> None:
        seen.append(event)

    async def run() -> Any:
        if flavour == "anthropic":
            reader: Any = anthropic._StreamReader("u", emit)
            events = anthropic_stream(kind, pieces)
        else:
            reader = openai._StreamReader("u", "OpenAI", emit)
            events = openai_stream(kind, pieces)
        try:
            for sse in events:
                await reader.on_sse(sse)
        except ProviderError as exc:
            return exc
        return reader.message()

    return seen, trio.run(run)


CASES = [(f, k) for f in ("anthropic", "openai") for k in ("text", "thinking", "args")]
IDS = [f"{f}-{k}" for f, k in CASES]


def room(kind: str) -> int:
    """What the bound leaves for the pieces: a call's id and name count too."""
    return MAX_MESSAGE_CHARS - (len("t") + len("write") if kind == "args" else 0)


@pytest.mark.parametrize(("flavour", "kind"), CASES, ids=IDS)
def test_a_piece_past_the_bound_is_cut_where_it_falls(flavour: str, kind: str) -> None:
    first = "a" * (room(kind) - 2)
    seen, outcome = read(flavour, kind, [first, "bcdef", "never read"])
    assert isinstance(outcome, ProviderError)
    assert f"over {MAX_MESSAGE_CHARS >> 20} MiB" in str(outcome)
    shown = [e.text for e in seen if isinstance(e, TextDelta | ThinkingDelta)]
    assert shown == ([] if kind == "args" else [first, "bc"])


@pytest.mark.parametrize(("flavour", "kind"), CASES, ids=IDS)
def test_an_answer_that_ends_on_the_bound_is_whole(flavour: str, kind: str) -> None:
    rest = ["x\r\n\r", "é😀", "\n"]
    pieces = ["a" * (room(kind) - sum(map(len, rest))), *rest]
    _seen, message = read(flavour, kind, pieces)
    assert not isinstance(message, ProviderError), message
    (block,) = message.content
    kept = block.input["_invalid_json"] if kind == "args" else block.text
    assert kept == "".join(pieces)  # line ends and wide characters as sent
