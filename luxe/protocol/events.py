"""Events: the frames `luxe --rpc` writes to stdout.

Each event is a frozen attrs class whose `KIND` is its wire `kind`; its
fields are the frame's `content` (an event with no fields has no content).
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

PROTOCOL_VERSION = 2

# -- handshake, state, sessions ------------------------------------------------


@attrs.frozen
class Ready:
    KIND: ClassVar[str] = "ready"
    protocol_version: int
    luxe_version: str
    session_id: str
    cwd: str
    github_writes: bool
    capabilities: list[str]
    resumed: bool


@attrs.frozen
class ModelState:
    id: str
    provider: str
    context_window: int
    # Set for `scripted:PATH`: says plainly that answers come from a script.
    label: str | None = None


@attrs.frozen
class StateChanged:
    KIND: ClassVar[str] = "state_changed"
    model: ModelState
    streaming: bool
    mode: str
    thinking: str
    permission_mode: str
    auto_approve: bool


@attrs.frozen
class SessionInfo:
    KIND: ClassVar[str] = "session_info"
    session_id: str
    title: str
    messages: int
    created_at: str
    updated_at: str


@attrs.frozen
class SessionSummary:
    id: str
    title: str
    cwd: str
    updated_at: str
    messages: int


@attrs.frozen
class SessionsListed:
    KIND: ClassVar[str] = "sessions_listed"
    sessions: list[SessionSummary]


# -- a turn ---------------------------------------------------------------------


@attrs.frozen
class TurnStarted:
    KIND: ClassVar[str] = "turn_started"
    turn_id: str
    text: str


@attrs.frozen
class MessageQueued:
    KIND: ClassVar[str] = "message_queued"
    text: str
    position: int


@attrs.frozen
class TokenDelta:
    KIND: ClassVar[str] = "token_delta"
    block: int
    delta: str


@attrs.frozen
class ThinkingDelta:
    KIND: ClassVar[str] = "thinking_delta"
    block: int
    delta: str


@attrs.frozen
class ToolStarted:
    KIND: ClassVar[str] = "tool_started"
    call_id: str
    name: str
    args: dict[str, Any]


@attrs.frozen
class ToolOutputDelta:
    KIND: ClassVar[str] = "tool_output_delta"
    call_id: str
    delta: str


@attrs.frozen
class ToolFinished:
    KIND: ClassVar[str] = "tool_finished"
    call_id: str
    name: str
    is_error: bool
    summary: str
    denied: bool


@attrs.frozen
class FileChanged:
    KIND: ClassVar[str] = "file_changed"
    path: str
    operation: str


@attrs.frozen
class PermissionRequested:
    KIND: ClassVar[str] = "permission_requested"
    id: str
    call_id: str
    tool: str
    args: dict[str, Any]
    reason: str
    options: list[str]


@attrs.frozen
class PermissionResolved:
    KIND: ClassVar[str] = "permission_resolved"
    id: str
    reply: str


@attrs.frozen
class QuestionAsked:
    KIND: ClassVar[str] = "question_asked"
    id: str
    call_id: str
    question: str
    options: list[str]
    multiple: bool


@attrs.frozen
class QuestionResolved:
    """A question was answered, dismissed, or cancelled with its turn."""

    KIND: ClassVar[str] = "question_resolved"
    id: str
    reply: dict[str, Any]


@attrs.frozen
class TurnUsage:
    KIND: ClassVar[str] = "turn_usage"
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    context_used: int
    context_window: int
    session_cost_usd: float | None


@attrs.frozen
class TurnEnded:
    KIND: ClassVar[str] = "turn_ended"
    turn_id: str
    reason: str
    error: str | None = None


@attrs.frozen
class Error:
    KIND: ClassVar[str] = "error"
    message: str
    retryable: bool
    retry_in_s: float | None = None


@attrs.frozen
class CompactionStarted:
    KIND: ClassVar[str] = "compaction_started"
    tokens_before: int


@attrs.frozen
class Compacted:
    KIND: ClassVar[str] = "compacted"
    tokens_before: int
    tokens_after: int


@attrs.frozen
class HookFinished:
    """One command hook ran (see docs/hooks.md). `decision`: allow, deny, or
    observe (an observe-only point, whose output is ignored); `error` says
    why the hook failed, when it did (its `on_timeout` then decided)."""

    KIND: ClassVar[str] = "hook_finished"
    point: str
    command: list[str]
    decision: str
    duration_ms: float
    error: str | None = None


@attrs.frozen
class ActionRejected:
    KIND: ClassVar[str] = "action_rejected"
    kind: str | None
    reason: str


Event = (
    Ready
    | StateChanged
    | SessionInfo
    | SessionsListed
    | TurnStarted
    | MessageQueued
    | TokenDelta
    | ThinkingDelta
    | ToolStarted
    | ToolOutputDelta
    | ToolFinished
    | FileChanged
    | PermissionRequested
    | PermissionResolved
    | QuestionAsked
    | QuestionResolved
    | TurnUsage
    | TurnEnded
    | Error
    | CompactionStarted
    | Compacted
    | HookFinished
    | ActionRejected
)

EVENT_TYPES: dict[str, type] = {
    cls.KIND: cls
    for cls in (
        Ready,
        StateChanged,
        SessionInfo,
        SessionsListed,
        TurnStarted,
        MessageQueued,
        TokenDelta,
        ThinkingDelta,
        ToolStarted,
        ToolOutputDelta,
        ToolFinished,
        FileChanged,
        PermissionRequested,
        PermissionResolved,
        QuestionAsked,
        QuestionResolved,
        TurnUsage,
        TurnEnded,
        Error,
        CompactionStarted,
        Compacted,
        HookFinished,
        ActionRejected,
    )
}
