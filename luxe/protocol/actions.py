"""Actions: the frames a client sends to `luxe --rpc`.

Each action is a frozen attrs class whose `KIND` is its wire `kind`. Field
types are the contract: `wire.decode_action` checks them strictly before the
converter builds the object, so a handler never sees a wrongly typed value.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import attrs

from luxe.protocol.review import REVIEW_ACTIONS, ReviewAction

PermissionReply = Literal["once", "always", "reject"]
AgentModeName = Literal["build", "plan"]
ThinkingLevelName = Literal["off", "low", "medium", "high"]


@attrs.frozen
class Attachment:
    path: str


@attrs.frozen
class SubmitUserMessage:
    """Start a turn with `text`, or queue it while a turn runs."""

    KIND: ClassVar[str] = "submit_user_message"
    text: str
    attachments: list[Attachment] | None = None


@attrs.frozen
class SteerTurn:
    """Deliver `text` to the running turn before its next model call."""

    KIND: ClassVar[str] = "steer_turn"
    text: str


@attrs.frozen
class CancelTurn:
    """Stop the running turn at once."""

    KIND: ClassVar[str] = "cancel_turn"


@attrs.frozen
class RespondPermission:
    """Answer a `permission_requested` prompt."""

    KIND: ClassVar[str] = "respond_permission"
    id: str
    reply: PermissionReply
    message: str | None = None


@attrs.frozen
class AnswerQuestion:
    """Answer a `question_asked` prompt: `{answered: [..]}` or `{dismissed: true}`."""

    KIND: ClassVar[str] = "answer_question"
    id: str
    reply: dict[str, Any]


@attrs.frozen
class SetModel:
    KIND: ClassVar[str] = "set_model"
    model: str


@attrs.frozen
class SetMode:
    KIND: ClassVar[str] = "set_mode"
    mode: AgentModeName


@attrs.frozen
class SetThinking:
    KIND: ClassVar[str] = "set_thinking"
    level: ThinkingLevelName


@attrs.frozen
class SetPermissionAutoApprove:
    KIND: ClassVar[str] = "set_permission_auto_approve"
    enabled: bool


@attrs.frozen
class ListSessions:
    KIND: ClassVar[str] = "list_sessions"


@attrs.frozen
class Compact:
    """Summarise older messages of the session into one."""

    KIND: ClassVar[str] = "compact"


@attrs.frozen
class Close:
    """End the session: cancel the turn, kill processes, flush, exit 0."""

    KIND: ClassVar[str] = "close"


Action = (
    SubmitUserMessage
    | SteerTurn
    | CancelTurn
    | RespondPermission
    | AnswerQuestion
    | SetModel
    | SetMode
    | SetThinking
    | SetPermissionAutoApprove
    | ListSessions
    | Compact
    | Close
    | ReviewAction
)

ACTION_TYPES: dict[str, type] = {
    cls.KIND: cls
    for cls in (
        SubmitUserMessage,
        SteerTurn,
        CancelTurn,
        RespondPermission,
        AnswerQuestion,
        SetModel,
        SetMode,
        SetThinking,
        SetPermissionAutoApprove,
        ListSessions,
        Compact,
        Close,
        *REVIEW_ACTIONS,
    )
}
