"""Actions: the frames a client sends to `luxe --rpc`.

Each action is a frozen attrs class whose `KIND` is its wire `kind`. Field
types are the contract: `wire.decode_action` checks them strictly before the
converter builds the object, so a handler never sees a wrongly typed value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal, Union

from luxe.protocol.frame import Frame, frame
from luxe.protocol.review import REVIEW_ACTIONS, ReviewAction

if TYPE_CHECKING:
    from luxe.protocol.github import GitHubAction

PermissionReply = Literal["once", "always", "reject"]
AgentModeName = Literal["build", "plan"]
ThinkingLevelName = Literal["off", "low", "medium", "high"]


@frame
class Attachment(Frame):
    path: str


@frame
class SubmitUserMessage(Frame):
    """Start a turn with `text`, or queue it while a turn runs."""

    KIND: ClassVar[str] = "submit_user_message"
    text: str
    attachments: list[Attachment] | None = None
    # Text attached under the prompt, marked as context (`luxe -p` sends stdin here).
    context: str | None = None


@frame
class SteerTurn(Frame):
    """Deliver `text` to the running turn before its next model call."""

    KIND: ClassVar[str] = "steer_turn"
    text: str


@frame
class RunShell(Frame):
    """Run `command` with the bash tool, through the permission gate and hooks
    as a model's call would; its output joins the conversation (no model call)."""

    KIND: ClassVar[str] = "run_shell"
    command: str


@frame
class CancelTurn(Frame):
    """Stop the running turn at once."""

    KIND: ClassVar[str] = "cancel_turn"


@frame
class RespondPermission(Frame):
    """Answer a `permission_requested` prompt."""

    KIND: ClassVar[str] = "respond_permission"
    id: str
    reply: PermissionReply
    message: str | None = None


@frame
class AnswerQuestion(Frame):
    """Answer a `question_asked` prompt: `{answered: [..]}` or
    `{dismissed: true, reason?: "..."}` (the reason is told to the model)."""

    KIND: ClassVar[str] = "answer_question"
    id: str
    reply: dict[str, Any]


@frame
class SetModel(Frame):
    KIND: ClassVar[str] = "set_model"
    model: str


@frame
class SetMode(Frame):
    KIND: ClassVar[str] = "set_mode"
    mode: AgentModeName


@frame
class SetThinking(Frame):
    KIND: ClassVar[str] = "set_thinking"
    level: ThinkingLevelName


@frame
class SetPermissionAutoApprove(Frame):
    KIND: ClassVar[str] = "set_permission_auto_approve"
    enabled: bool


PermissionModeName = Literal["ask", "accept-edits", "read-only", "yolo"]


@frame
class SetPermissionMode(Frame):
    """Change the permission mode; never looser than the session started with
    (yolo only from the command line), and fixed once read-only."""

    KIND: ClassVar[str] = "set_permission_mode"
    mode: PermissionModeName


@frame
class NewSession(Frame):
    """End this session's history and start a new session in the same process."""

    KIND: ClassVar[str] = "new_session"


@frame
class ResumeSession(Frame):
    """Switch to a stored session by id, in the same process."""

    KIND: ClassVar[str] = "resume_session"
    session_id: str


@frame
class ListSessions(Frame):
    KIND: ClassVar[str] = "list_sessions"


@frame
class Compact(Frame):
    """Summarise older messages of the session into one."""

    KIND: ClassVar[str] = "compact"


@frame
class Close(Frame):
    """End the session: cancel the turn, kill processes, flush, exit 0."""

    KIND: ClassVar[str] = "close"


Action = Union[  # a string names GitHub's actions without importing them
    SubmitUserMessage
    | SteerTurn
    | RunShell
    | CancelTurn
    | RespondPermission
    | AnswerQuestion
    | SetModel
    | SetMode
    | SetThinking
    | SetPermissionAutoApprove
    | SetPermissionMode
    | NewSession
    | ResumeSession
    | ListSessions
    | Compact
    | Close
    | ReviewAction,
    "GitHubAction",
]

ACTION_TYPES: dict[str, type] = {
    cls.KIND: cls
    for cls in (
        SubmitUserMessage,
        SteerTurn,
        RunShell,
        CancelTurn,
        RespondPermission,
        AnswerQuestion,
        SetModel,
        SetMode,
        SetThinking,
        SetPermissionAutoApprove,
        SetPermissionMode,
        NewSession,
        ResumeSession,
        ListSessions,
        Compact,
        Close,
        *REVIEW_ACTIONS,
    )
}
