"""Seams the engine defines for policy: permissions and command hooks.

The engine asks a `PermissionGate` before every tool call and runs a
`HookRunner` at every hook point; `luxe.policy` provides the real ones. The
defaults here are what a session uses before policy is configured: read-only
tools run, everything else asks, and no hooks run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

import attrs

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


@attrs.frozen
class PermissionVerdict:
    decision: Decision
    reason: str  # told to the model on deny, shown to the client on ask
    # True when the deny is a hard deny (secret files): nothing may lift it.
    hard: bool = False


class PermissionGate(Protocol):
    """Decides whether a tool call may run. `check` does no I/O beyond
    resolving the paths it is given; it never blocks."""

    permission_mode: str  # ask | accept-edits | read-only | yolo

    def check(
        self, tool: str, args: Mapping[str, Any], *, agent_mode: AgentMode = "build"
    ) -> PermissionVerdict: ...

    def allow_always(self, tool: str, args: Mapping[str, Any]) -> None:
        """Add a session-scoped allow for exactly this call's tool+pattern."""
        ...

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        """Remove the values of known secrets from tool output; with
        `cut_start`/`cut_end`, also a piece of one at that edge of `text`
        (where it was truncated)."""
        ...

    def is_secret_file(self, path: str) -> bool:
        """Is this file a secret (by name, or by identity: a hard link)?
        Tools that walk directories skip such files."""
        ...


READ_ONLY_TOOLS = frozenset({"read", "grep", "glob", "ls", "question"})


@attrs.define
class DefaultGate:
    """Read-only tools run; write, edit and bash ask; nothing is redacted."""

    permission_mode: str = "ask"

    def check(
        self, tool: str, args: Mapping[str, Any], *, agent_mode: AgentMode = "build"
    ) -> PermissionVerdict:
        if tool in READ_ONLY_TOOLS:
            return PermissionVerdict("allow", "read-only tool")
        if agent_mode == "plan":
            return PermissionVerdict("deny", f"{tool} is not available in plan mode")
        return PermissionVerdict("ask", f"{tool} changes files or runs commands")

    def allow_always(self, tool: str, args: Mapping[str, Any]) -> None:
        return None

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        return text

    def is_secret_file(self, path: str) -> bool:
        from luxe.policy.secrets import is_secret_path

        return is_secret_path(path)


@attrs.frozen
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


class NoHooks:
    async def run(self, point: HookPoint, event: Mapping[str, Any]) -> HookOutcome:
        return HookOutcome()


class EditDiagnostics(Protocol):
    """Diagnostics after a tool wrote or edited a file (luxe.lsp provides
    them): text to append to the tool result, or None."""

    async def after_edit(self, path: str) -> str | None: ...
