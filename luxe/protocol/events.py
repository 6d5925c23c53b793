"""Events: the frames `luxe --rpc` writes to stdout.

Each event is a frozen attrs class whose `KIND` is its wire `kind`; its
fields are the frame's `content` (an event with no fields has no content).

The handshake's frames (`ready`, `state_changed`, `session_info`) are defined
here; every other event is defined in `luxe.protocol.session_events` and
reached through this module too (`events.TurnStarted`), which loads it on
first use: defining some forty frame classes was an eighth of what luxe did
before its first frame (the interface's prompt, `--rpc`'s `ready`).
GitHub's events live in `luxe.protocol.github`, also loaded on first use:
`EVENT_TYPES` here has the others, `luxe.protocol.EVENT_TYPES` every kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from luxe.protocol.frame import Frame, frame

if TYPE_CHECKING:
    # What type checkers see of the names loaded on first use (see __getattr__).
    from luxe.protocol.session_events import EVENT_TYPES as EVENT_TYPES
    from luxe.protocol.session_events import ActionRejected as ActionRejected
    from luxe.protocol.session_events import Compacted as Compacted
    from luxe.protocol.session_events import CompactionStarted as CompactionStarted
    from luxe.protocol.session_events import DiagnosticsServers as DiagnosticsServers
    from luxe.protocol.session_events import DiagnosticsServerState as DiagnosticsServerState
    from luxe.protocol.session_events import Error as Error
    from luxe.protocol.session_events import Event as Event
    from luxe.protocol.session_events import FileChanged as FileChanged
    from luxe.protocol.session_events import HookFinished as HookFinished
    from luxe.protocol.session_events import MessageQueued as MessageQueued
    from luxe.protocol.session_events import MessagesListed as MessagesListed
    from luxe.protocol.session_events import MessageSummary as MessageSummary
    from luxe.protocol.session_events import PermissionDenial as PermissionDenial
    from luxe.protocol.session_events import PermissionRequested as PermissionRequested
    from luxe.protocol.session_events import PermissionResolved as PermissionResolved
    from luxe.protocol.session_events import QuestionAsked as QuestionAsked
    from luxe.protocol.session_events import QuestionResolved as QuestionResolved
    from luxe.protocol.session_events import Result as Result
    from luxe.protocol.session_events import SessionsListed as SessionsListed
    from luxe.protocol.session_events import SessionSummary as SessionSummary
    from luxe.protocol.session_events import ThinkingDelta as ThinkingDelta
    from luxe.protocol.session_events import TokenDelta as TokenDelta
    from luxe.protocol.session_events import TokenUsage as TokenUsage
    from luxe.protocol.session_events import ToolFinished as ToolFinished
    from luxe.protocol.session_events import ToolOutputDelta as ToolOutputDelta
    from luxe.protocol.session_events import ToolStarted as ToolStarted
    from luxe.protocol.session_events import TurnEnded as TurnEnded
    from luxe.protocol.session_events import TurnStarted as TurnStarted
    from luxe.protocol.session_events import TurnUsage as TurnUsage
    from luxe.protocol.session_events import UsageUpdated as UsageUpdated

PROTOCOL_VERSION = 2

# -- handshake, state, sessions ------------------------------------------------


@frame
class DiagnosticsServerFound(Frame):
    """A language server found on this machine for diagnostics on edit
    (docs/lsp.md); it starts on the first edit of one of its files."""

    name: str
    extensions: list[str]
    command: list[str]
    # It never starts in this session: it would run the project's own code
    # and Luxe was not started with --trust-project (docs/lsp.md).
    needs_trust: bool = False


@frame
class Ready(Frame):
    """The first frame. `diagnostics` lists the language servers found
    (empty, and no `diagnostics` capability, when diagnostics on edit are off)."""

    KIND: ClassVar[str] = "ready"
    protocol_version: int
    luxe_version: str
    session_id: str
    cwd: str
    github_writes: bool
    capabilities: list[str]
    resumed: bool
    diagnostics: list[DiagnosticsServerFound]


@frame
class ModelState(Frame):
    id: str
    provider: str
    context_window: int
    # Set for `scripted:PATH`: says plainly that answers come from a script.
    label: str | None = None


@frame
class StateChanged(Frame):
    KIND: ClassVar[str] = "state_changed"
    model: ModelState
    streaming: bool
    mode: str
    thinking: str
    permission_mode: str
    auto_approve: bool


@frame
class SessionInfo(Frame):
    KIND: ClassVar[str] = "session_info"
    session_id: str
    title: str
    messages: int
    created_at: str
    updated_at: str


_LATER = "luxe.protocol.session_events"


def __getattr__(name: str) -> Any:
    """Every event after the handshake, from luxe.protocol.session_events
    (imported on the first such name)."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    later = importlib.import_module(_LATER)
    try:
        value = getattr(later, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value
