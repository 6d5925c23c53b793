"""Events after the handshake: sessions listed, a turn's stream, tools,
permissions, questions, usage, errors, compaction, hooks, diagnostics, and
the `Event` union and `EVENT_TYPES` table over every event but GitHub's.

Reached as `luxe.protocol.events.<Name>` (see that module): loaded on first
use, after the first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Union

from luxe.protocol.events import Ready, SessionInfo, StateChanged
from luxe.protocol.frame import Frame, frame
from luxe.protocol.review import REVIEW_EVENTS, ReviewEvent

if TYPE_CHECKING:
    from luxe.protocol.github import GitHubEvent


@frame
class SessionSummary(Frame):
    id: str
    title: str
    cwd: str
    updated_at: str
    messages: int


@frame
class SessionsListed(Frame):
    KIND: ClassVar[str] = "sessions_listed"
    sessions: list[SessionSummary]


@frame
class MessageSummary(Frame):
    role: str  # user | assistant
    text: str  # its text blocks joined (tool results left out)
    tools: list[str]  # the tool calls an assistant message made, "name arg"


@frame
class MessagesListed(Frame):
    KIND: ClassVar[str] = "messages_listed"
    session_id: str
    total: int
    messages: list[MessageSummary]


# -- a turn ---------------------------------------------------------------------


@frame
class TurnStarted(Frame):
    KIND: ClassVar[str] = "turn_started"
    turn_id: str
    text: str


@frame
class MessageQueued(Frame):
    KIND: ClassVar[str] = "message_queued"
    text: str
    position: int


@frame
class TokenDelta(Frame):
    KIND: ClassVar[str] = "token_delta"
    block: int
    delta: str


@frame
class ThinkingDelta(Frame):
    KIND: ClassVar[str] = "thinking_delta"
    block: int
    delta: str


@frame
class ToolStarted(Frame):
    KIND: ClassVar[str] = "tool_started"
    call_id: str
    name: str
    args: dict[str, Any]


@frame
class ToolOutputDelta(Frame):
    KIND: ClassVar[str] = "tool_output_delta"
    call_id: str
    delta: str


@frame
class ToolFinished(Frame):
    KIND: ClassVar[str] = "tool_finished"
    call_id: str
    name: str
    is_error: bool
    summary: str
    denied: bool
    # Why the call never ran (what the model was told); null when it ran.
    reason: str | None = None


@frame
class FileChanged(Frame):
    KIND: ClassVar[str] = "file_changed"
    path: str
    operation: str
    # A unified diff of the change (None when the file is binary or too large).
    diff: str | None = None
    # The tool call that made the change.
    call_id: str | None = None


@frame
class PermissionRequested(Frame):
    KIND: ClassVar[str] = "permission_requested"
    id: str
    call_id: str
    tool: str
    args: dict[str, Any]
    reason: str
    options: list[str]
    # For write and edit: the change the call would make, as file_changed's diff.
    diff: str | None = None


@frame
class PermissionResolved(Frame):
    KIND: ClassVar[str] = "permission_resolved"
    id: str
    reply: str


@frame
class QuestionAsked(Frame):
    KIND: ClassVar[str] = "question_asked"
    id: str
    call_id: str
    question: str
    options: list[str]
    multiple: bool


@frame
class QuestionResolved(Frame):
    """A question was answered, dismissed, or cancelled with its turn."""

    KIND: ClassVar[str] = "question_resolved"
    id: str
    reply: dict[str, Any]


@frame
class TurnUsage(Frame):
    KIND: ClassVar[str] = "turn_usage"
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    context_used: int
    context_window: int
    session_cost_usd: float | None
    requests: int  # model requests the turn made


@frame
class UsageUpdated(Frame):
    """Usage so far while a turn runs: sent after each model request that
    goes on to tool calls (`turn_usage` still closes the turn)."""

    KIND: ClassVar[str] = "usage_updated"
    prompt_tokens: int
    completion_tokens: int
    context_used: int
    context_window: int
    cost_usd: float | None
    session_cost_usd: float | None


@frame
class TurnEnded(Frame):
    KIND: ClassVar[str] = "turn_ended"
    turn_id: str
    reason: str
    error: str | None = None
    # The model's last answer text in this turn ("" when it gave none).
    text: str = ""


@frame
class Error(Frame):
    KIND: ClassVar[str] = "error"
    message: str
    retryable: bool
    retry_in_s: float | None = None


@frame
class CompactionStarted(Frame):
    KIND: ClassVar[str] = "compaction_started"
    tokens_before: int


@frame
class Compacted(Frame):
    KIND: ClassVar[str] = "compacted"
    tokens_before: int
    tokens_after: int


@frame
class HookFinished(Frame):
    """One command hook ran (see docs/hooks.md). `decision`: allow, deny, or
    observe (an observe-only point, whose output is ignored); `error` says
    why the hook failed, when it did (its `on_timeout` then decided)."""

    KIND: ClassVar[str] = "hook_finished"
    point: str
    command: list[str]
    decision: str
    duration_ms: float
    error: str | None = None


@frame
class TokenUsage(Frame):
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


@frame
class PermissionDenial(Frame):
    """A tool call that never ran, or a question nobody answered."""

    tool: str
    args: dict[str, Any]
    reason: str


@frame
class Result(Frame):
    """The end of a `luxe -p` run (print mode only; docs/print.md): the last
    frame of `--output-format stream-json`, and the object `--output-format
    json` writes."""

    KIND: ClassVar[str] = "result"
    result: str
    session_id: str
    is_error: bool
    stop_reason: str
    error: str | None
    exit_code: int
    num_requests: int
    duration_ms: float
    usage: TokenUsage
    cost_usd: float | None
    permission_denials: list[PermissionDenial]
    files_changed: list[str]


@frame
class DiagnosticsServerState(Frame):
    """One running language server: `state` is starting, running, failed
    (it exited; it is restarted on the next edit) or stopped (it failed too
    often: its diagnostics are off for the session); `detail` says why."""

    name: str
    root: str
    state: str
    detail: str | None = None


@frame
class DiagnosticsServers(Frame):
    """Sent when a language server starts, fails or stops: every server of
    the session and its state (the whole list, so a client just replaces
    what it shows)."""

    KIND: ClassVar[str] = "diagnostics_servers"
    servers: list[DiagnosticsServerState]


@frame
class ActionRejected(Frame):
    KIND: ClassVar[str] = "action_rejected"
    kind: str | None
    reason: str


Event = Union[  # a string names GitHub's events without importing them
    Ready
    | StateChanged
    | SessionInfo
    | SessionsListed
    | MessagesListed
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
    | UsageUpdated
    | TurnEnded
    | Error
    | CompactionStarted
    | Compacted
    | HookFinished
    | DiagnosticsServers
    | ActionRejected
    | Result
    | ReviewEvent,
    "GitHubEvent",
]

EVENT_TYPES: dict[str, type] = {
    cls.KIND: cls
    for cls in (
        Ready,
        StateChanged,
        SessionInfo,
        SessionsListed,
        MessagesListed,
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
        UsageUpdated,
        TurnEnded,
        Error,
        CompactionStarted,
        Compacted,
        HookFinished,
        DiagnosticsServers,
        ActionRejected,
        Result,
        *REVIEW_EVENTS,
    )
}
