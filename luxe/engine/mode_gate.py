"""The permission gate a session uses until `luxe.policy` plugs in the real
engine: DefaultGate's rule (read-only tools run, the rest asks), the four
permission modes of the command line, and session-scoped "always" by tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from luxe.engine.ports import READ_ONLY_TOOLS, AgentMode, DefaultGate, PermissionVerdict

EDIT_TOOLS = frozenset({"write", "edit"})


@attrs.define
class ModeGate(DefaultGate):
    """permission_mode: ask | accept-edits | read-only | yolo."""

    always: set[str] = attrs.Factory(set)

    def check(
        self, tool: str, args: Mapping[str, Any], *, agent_mode: AgentMode = "build"
    ) -> PermissionVerdict:
        verdict = super().check(tool, args, agent_mode=agent_mode)
        if verdict.decision != "ask":
            return verdict
        if self.permission_mode == "read-only":
            return PermissionVerdict("deny", f"{tool} is not allowed in read-only mode")
        if self.permission_mode == "yolo":
            return PermissionVerdict("allow", "yolo mode")
        if self.permission_mode == "accept-edits" and tool in EDIT_TOOLS:
            return PermissionVerdict("allow", "accept-edits mode")
        if tool in self.always:
            return PermissionVerdict("allow", f"{tool} was allowed for this session")
        return verdict

    def allow_always(self, tool: str, args: Mapping[str, Any]) -> None:
        if tool not in READ_ONLY_TOOLS:
            self.always.add(tool)
