"""Compaction: older messages become one summary, made by one model call.

The tail from the last user prompt on is kept as it is (so tool calls and
their results stay in pairs); everything before it is summarised. Runs in
the session's turn slot, so it never overlaps a turn; `cancel_turn` stops it
and then nothing changes. BeforeCompact/AfterCompact hooks run around it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from luxe.engine.history import History, transcript
from luxe.engine.model import (
    AssistantMessage,
    Message,
    ModelRequest,
    ProviderError,
    StreamEvent,
    TextBlock,
    UserMessage,
)
from luxe.engine.ports import HookRunner, ModelSource, other_event
from luxe.protocol import events as ev


class CompactionHost(Protocol):
    """What compaction needs from its session."""

    history: History
    model: ModelSource
    hooks: HookRunner
    emit: Callable[[ev.Event], Awaitable[None]]

    async def record_compaction(self, summary: list[Message], kept: int) -> None:
        """Replace all but the last `kept` messages by `summary` (disk first)."""
        ...


def _kept_from(messages: list[Message]) -> int:
    """Index of the last user prompt (a user message with text, not results)."""
    for index in range(len(messages) - 1, -1, -1):
        m = messages[index]
        if isinstance(m, UserMessage) and any(isinstance(b, TextBlock) for b in m.content):
            return index
    return 0


async def compact(session: CompactionHost) -> None:
    history = session.history
    before = history.estimate_tokens()
    event = other_event({"tokens_before": before})
    await session.hooks.run("BeforeCompact", event)
    await session.emit(ev.CompactionStarted(before))
    start = _kept_from(history.messages)
    old, tail = history.messages[:start], history.messages[start:]
    if old:
        request = ModelRequest(
            model=session.model.name,
            system="You summarise coding sessions so they can go on with less context.",
            messages=(
                UserMessage(
                    (
                        TextBlock(
                            "Summarise this conversation for yourself: the goal, decisions, "
                            "files touched and what is left to do. Be concise.\n\n"
                            + transcript(old)
                        ),
                    )
                ),
            ),
        )

        async def ignore(_: StreamEvent) -> None:
            return None

        try:
            provider = await session.model.provider()
            answer = await provider.complete(request, ignore)
        except ProviderError as exc:
            await session.emit(ev.Error(f"compaction failed: {exc.message}", False, None))
            await session.emit(ev.Compacted(before, before))
            await session.hooks.run("AfterCompact", event)
            return
        summary_text = "".join(b.text for b in answer.content if isinstance(b, TextBlock))
        summary: list[Message] = [
            UserMessage((TextBlock(f"Summary of the conversation so far:\n{summary_text}"),)),
            AssistantMessage((TextBlock("Understood; I will continue from this summary."),), "end_turn"),
        ]
        await session.record_compaction(summary, len(tail))
    await session.emit(ev.Compacted(before, history.estimate_tokens()))
    await session.hooks.run("AfterCompact", event)
