"""A permission gate for in-process engine tests: the four modes by tool
name, session-scoped "always" by tool, and redaction through `redact` (a
subclass overrides it). The real gate is luxe.policy.permissions.PolicyGate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from luxe.engine.ports import READ_ONLY_TOOLS, AgentMode, PermissionVerdict
from luxe.policy.secret_identity import opened_is_secret
from luxe.policy.secret_names import is_secret_path

EDIT_TOOLS = frozenset({"write", "edit"})


class ChunkRedaction:
    """A StreamRedaction that redacts each chunk on its own."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        self._redact = redact

    def feed(self, chunk: str) -> str:
        return self._redact(chunk)

    def flush(self) -> str:
        return ""


@attrs.define
class ModeGate:
    """permission_mode: ask | accept-edits | read-only | yolo. Read-only
    tools run; write, edit and bash ask unless the mode says otherwise."""

    permission_mode: str = "ask"
    always: set[str] = attrs.Factory(set)

    def check(
        self, tool: str, args: Mapping[str, Any], *, agent_mode: AgentMode = "build"
    ) -> PermissionVerdict:
        if tool in READ_ONLY_TOOLS:
            return PermissionVerdict("allow", "read-only tool")
        if agent_mode == "plan":
            return PermissionVerdict("deny", f"{tool} is not available in plan mode")
        if self.permission_mode == "read-only":
            return PermissionVerdict("deny", f"{tool} is not allowed in read-only mode")
        if self.permission_mode == "yolo":
            return PermissionVerdict("allow", "yolo mode")
        if self.permission_mode == "accept-edits" and tool in EDIT_TOOLS:
            return PermissionVerdict("allow", "accept-edits mode")
        if tool in self.always:
            return PermissionVerdict("allow", f"{tool} was allowed for this session")
        return PermissionVerdict("ask", f"{tool} changes files or runs commands")

    def allow_always(self, tool: str, args: Mapping[str, Any]) -> None:
        if tool not in READ_ONLY_TOOLS:
            self.always.add(tool)

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        return text

    def redact_known(self, text: str) -> str:
        return self.redact(text)

    def stream_redactor(self) -> ChunkRedaction:
        return ChunkRedaction(self.redact)

    def is_secret_file(self, path: str) -> bool:
        return is_secret_path(path)

    def is_secret_opened(self, fd: int) -> bool:
        return opened_is_secret(fd, frozenset())

    async def tool_ran(self, tool: str) -> None:
        return None

    async def settle(self) -> None:
        return None

    async def stop_settling(self) -> None:
        return None
