"""Seams the engine defines: the model, permissions, redaction and hooks.

A session talks to a `ModelSource` (luxe.providers.choice gives the real
one). The engine asks a `PermissionGate` before every tool call, redacts through
it, and runs a `HookRunner` at every hook point with the events built here
(the spec's stdin shapes, written once); `luxe.policy` provides the real
gate and runner. At a turn's end it asks `Leftovers` to end the processes
its commands left behind (luxe.orphans).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

from luxe.engine.model import Provider, Usage
from luxe.protocol import events as ev
from luxe.record import record

Decision = Literal["allow", "ask", "deny"]
AgentMode = Literal["build", "plan"]

# The hook points of the spec (luxe-command-hooks.txt), in PascalCase.
HookPoint = Literal[
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "BeforeAgentStart",
    "AgentStart",
    "BeforeToolUse",
    "AfterToolUse",
    "FileChanged",
    "BeforeCompact",
    "AfterCompact",
    "AgentEnd",
]


class ModelSource(Protocol):
    """The model a session talks to (luxe.providers.choice.ModelChoice is
    the real one). Owns its provider: `aclose` releases it."""

    name: str  # the provider's own model name

    async def provider(self) -> Provider:
        """The provider, built on first use; raises ProviderError."""
        ...

    def state(self) -> ev.ModelState: ...

    def cost(self, usage: Usage) -> float | None: ...

    async def aclose(self) -> None:
        """Release the provider, if one was built."""
        ...


@record
class PermissionVerdict:
    decision: Decision
    reason: str  # told to the model on deny, shown to the client on ask
    # True when the deny is a hard deny (secret files): nothing may lift it.
    hard: bool = False


class StreamRedaction(Protocol):
    """Redacts one stream of output chunks (one per tool call). It may hold
    back the tail of a chunk that could start a secret until the next chunk
    or `flush`, so a secret split across two chunks is still caught."""

    def feed(self, chunk: str) -> str: ...

    def flush(self) -> str:
        """What was held back, redacted, once the stream has ended."""
        ...


class PermissionGate(Protocol):
    """Decides whether a tool call may run, and redacts secret values from
    what reaches the model and the client. `check` does no I/O beyond
    resolving the paths it is given; it never blocks."""

    permission_mode: str  # ask | accept-edits | read-only | yolo

    def check(
        self, tool: str, args: Mapping[str, Any], *, agent_mode: AgentMode = "build"
    ) -> PermissionVerdict: ...

    def allow_always(self, tool: str, args: Mapping[str, Any]) -> None:
        """Add a session-scoped allow for exactly this call's tool+pattern."""
        ...

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        """Remove the values of known secrets from `text`; with `cut_start`
        / `cut_end`, also a piece of one at that edge of `text` (where it was
        truncated)."""
        ...

    def redact_known(self, text: str) -> str:
        """`text` without the values known now, never waiting for (nor
        starting) the project's first scan: for what shows the person's own
        configuration (a hook's command), which holds their credentials
        (the provider's key, exported variables, their credential files:
        all known from the start) if any, at any time and on any thread."""
        ...

    def stream_redactor(self) -> StreamRedaction:
        """A redactor for one stream of live output (a tool call's)."""
        ...

    def is_secret_file(self, path: str) -> bool:
        """Whether a file is a secret (by name, or by identity: a hard link);
        tools that walk directories (grep) skip such files."""
        ...

    def is_secret_opened(self, fd: int) -> bool:
        """Whether the file open on `fd` is a secret: judged on the file
        itself (its identity, the kernel's name for it), so a path changed
        between `check` and the open cannot pass one off as another file.
        Whatever reads a file the gate allowed by its path (an attachment,
        an instruction file) asks this of the descriptor before reading."""
        ...

    async def tool_ran(self, tool: str) -> None:
        """Told after a call ran, before its output is redacted: the gate may
        look for secret files the call created or changed, so their values
        are redacted from then on. The look runs off the event loop (a walk
        of a big checkout takes a few hundred ms); a cancel waits for it."""
        ...

    async def settle(self) -> None:
        """Do, off the event loop, the slow part of knowing the secrets that
        start-up left out (the walk of the project, git's history). Called
        after the handshake (the warm-up), and awaited before anything is
        checked or redacted: a turn's attachments, hook answers and tool
        calls, the instruction files, a review. A call after
        the first waits for its end. A cancelled call stops waiting at once
        (a cancelled turn); the work, in a worker thread, goes on for the
        next caller until it ends or `stop_settling`. Until it ends, `check`
        knows secret files by name and the user's credentials only, so every
        engine path that checks awaits it first; `redact` waits for it,
        never skips it."""
        ...

    async def stop_settling(self) -> None:
        """At close, before the session ends: what the secrets' scans still
        wait for and is not needed any more (gh's tokens, git's history) is
        given up and its processes ended; returns when the first scan's
        worker thread has ended."""
        ...


READ_ONLY_TOOLS = frozenset({"read", "grep", "glob", "ls", "question"})


@record
class HookOutcome:
    """The combined result of every hook at one point."""

    blocked: bool = False
    reason: str | None = None  # why it was blocked (shown to model or user)
    context: str | None = None  # feedback to inject (AfterToolUse, UserPromptSubmit)


class HookRunner(Protocol):
    async def run(self, point: HookPoint, event: Mapping[str, Any]) -> HookOutcome:
        """Run every hook configured for `point` with `event` (the spec's
        externally tagged stdin object, e.g. {"ToolUse": {...}}).

        Owns the hook processes: they run in their own process groups inside
        the caller's scope, and on cancel or timeout the whole group is
        SIGKILLed and reaped before this returns or raises.
        """
        ...


# -- the spec's stdin events (externally tagged), the only place they are written --


def tool_use_event(tool_name: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """BeforeToolUse."""
    return {"ToolUse": {"tool_name": tool_name, "args": dict(args)}}


def tool_result_event(tool_name: str, result: str, is_error: bool) -> dict[str, Any]:
    """AfterToolUse."""
    return {"ToolResult": {"tool_name": tool_name, "result": result, "is_error": is_error}}


def file_changed_event(path: str, operation: str) -> dict[str, Any]:
    """FileChanged."""
    return {"FileChanged": {"path": path, "operation": operation}}


def other_event(content: Any = None) -> dict[str, Any]:
    """SessionStart/End, AgentStart, AgentEnd: `{"Other": null}`;
    BeforeAgentStart: `{"Other": {}}`; UserPromptSubmit: `{"Other":
    {"content": text}}`; Before/AfterCompact: `{"Other": {"tokens_before": n}}`."""
    return {"Other": content}


class Leftovers(Protocol):
    """What ends the processes a turn's commands left running that nothing
    owns any more (luxe.orphans provides it): the session calls `sweep`
    when a turn ends, however it ended (`cancel_turn` too), before its
    `turn_ended`. Shielded by the caller; returns when they are gone."""

    async def sweep(self) -> None: ...


class EditDiagnostics(Protocol):
    """Diagnostics after a tool wrote or edited a file (luxe.lsp provides
    them): text to append to the tool result, or None."""

    async def after_edit(self, path: str) -> str | None: ...
