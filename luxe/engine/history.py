"""The conversation a session sends to the model, and its plain-data form.

`History` is an append-only list of messages plus what a request needs from
it: consecutive messages of one role are merged (a cancelled turn can leave
two user messages in a row, and the APIs want roles to alternate), and every
tool_use is answered by a tool_result.
"""

from __future__ import annotations

from typing import Any

from luxe.engine.model import (
    AssistantContent,
    AssistantMessage,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserContent,
    UserMessage,
)
from luxe.protocol.text import scrub_data

CANCELLED_RESULT = "cancelled by the user: the tool call was interrupted before it finished"


class History:
    def __init__(self, messages: list[Message] | None = None) -> None:
        self.messages: list[Message] = list(messages or [])

    def append(self, message: Message) -> None:
        self.messages.append(message)

    def for_request(self) -> tuple[Message, ...]:
        """Messages as a model request wants them: roles alternate, every
        tool_use has its result (a missing one says it was cancelled)."""
        out: list[Message] = []
        for message in self.messages:
            if out and out[-1].role == message.role:
                out[-1] = _merge(out[-1], message)
            else:
                out.append(message)
        fixed: list[Message] = []
        for index, message in enumerate(out):
            fixed.append(message)
            if isinstance(message, AssistantMessage) and message.tool_uses:
                following = out[index + 1] if index + 1 < len(out) else None
                answered = set()
                if isinstance(following, UserMessage):
                    answered = {
                        b.tool_use_id for b in following.content if isinstance(b, ToolResultBlock)
                    }
                if answered >= {u.id for u in message.tool_uses}:
                    continue
                given = {
                    b.tool_use_id: b
                    for b in (following.content if isinstance(following, UserMessage) else ())
                    if isinstance(b, ToolResultBlock)
                }
                # Results first and in call order (Anthropic wants them to lead).
                results = tuple(
                    given.get(u.id) or ToolResultBlock(u.id, CANCELLED_RESULT, is_error=True)
                    for u in message.tool_uses
                )
                if isinstance(following, UserMessage):
                    rest = tuple(b for b in following.content if b not in results)
                    out[index + 1] = UserMessage(results + rest)
                else:
                    fixed.append(UserMessage(results))
        return tuple(fixed)

    def estimate_tokens(self) -> int:
        """A rough count (4 characters a token) for compaction figures."""
        return sum(len(_text_of(m)) for m in self.messages) // 4 + 1


def _merge(a: Message, b: Message) -> Message:
    if isinstance(a, UserMessage) and isinstance(b, UserMessage):
        results = tuple(x for x in a.content + b.content if isinstance(x, ToolResultBlock))
        rest = tuple(x for x in a.content + b.content if not isinstance(x, ToolResultBlock))
        return UserMessage(results + rest)
    assert isinstance(a, AssistantMessage) and isinstance(b, AssistantMessage)
    return AssistantMessage(a.content + b.content, b.stop_reason, b.usage)


def _text_of(message: Message) -> str:
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock | ThinkingBlock):
            parts.append(block.text)
        elif isinstance(block, ToolResultBlock):
            parts.append(block.content)
        elif isinstance(block, ToolUseBlock):
            parts.append(str(block.input))
    return "\n".join(parts)


def transcript(messages: list[Message]) -> str:
    """Messages as plain text, for a summarising model call."""
    return "\n\n".join(f"{m.role}: {_text_of(m)}" for m in messages)


# -- plain data (the session file) -------------------------------------------------


def message_to_data(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {
        "role": message.role,
        "content": [_block_to_data(b) for b in message.content],
    }
    if isinstance(message, AssistantMessage):
        data["stop_reason"] = message.stop_reason
        u = message.usage
        data["usage"] = [u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens]
    return data


def _block_to_data(block: UserContent | AssistantContent) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock):
        return {
            "type": "thinking",
            "text": block.text,
            "signature": block.signature,
            "redacted_data": block.redacted_data,
        }
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    return {
        "type": "tool_result",
        "tool_use_id": block.tool_use_id,
        "content": block.content,
        "is_error": block.is_error,
    }


def clean_message(message: Message) -> Message:
    """`message` with every lone surrogate in its text replaced by U+FFFD
    (the same object when there was none): tool output, file names and model
    output may carry them, and one would break every later request."""
    data = message_to_data(message)
    clean = scrub_data(data)
    return message if clean is data else message_from_data(clean)


def message_from_data(data: dict[str, Any]) -> Message:
    """Inverse of message_to_data; raises KeyError/TypeError on a bad record."""
    blocks = [_block_from_data(b) for b in data["content"]]
    if data["role"] == "user":
        return UserMessage(tuple(b for b in blocks if isinstance(b, TextBlock | ToolResultBlock)))
    usage = Usage(*data.get("usage", [0, 0, 0, 0]))
    return AssistantMessage(
        tuple(b for b in blocks if not isinstance(b, ToolResultBlock)),
        data.get("stop_reason"),
        usage,
    )


def _block_from_data(data: dict[str, Any]) -> UserContent | AssistantContent:
    kind = data["type"]
    if kind == "text":
        return TextBlock(_text(data, "text"))
    if kind == "thinking":
        return ThinkingBlock(_text(data, "text"), data.get("signature"), data.get("redacted_data"))
    if kind == "tool_use":
        return ToolUseBlock(_text(data, "id"), _text(data, "name"), dict(data["input"]))
    if kind == "tool_result":
        return ToolResultBlock(_text(data, "tool_use_id"), _text(data, "content"), bool(data["is_error"]))
    raise TypeError(f"unknown block type {kind!r}")


def _text(data: dict[str, Any], key: str) -> str:
    """A stored block's text field; TypeError when it is not text (a file
    luxe did not write: the record is skipped, never drawn or sent)."""
    value = data[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} is {type(value).__name__}, not text")
    return value
