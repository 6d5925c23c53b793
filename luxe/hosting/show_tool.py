"""The `show` tool: the model puts a file (and a line range) in front of the
person, in a Laura pane beside the agent. Offered only when hosted.

The engine's permission gate sees it as a read of `path` (so a secret file
is refused as everywhere); the tool checks the file is a regular file before
Laura is asked, and reports what Laura answered.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping
from typing import Any

from luxe.engine.model import ToolSpec
from luxe.engine.tooling import ToolContext, ToolError, ToolResult
from luxe.hosting.panes import LauraPanes
from luxe.tools.paths import resolve, shown


class ShowTool:
    name = "show"
    spec = ToolSpec(
        "show",
        "Show a file to the person in a pane beside you (Laura), without taking their "
        "focus; start/end (1-based, inclusive) light a line range and scroll to it; "
        "diff shows the file's changes against git HEAD. Use it to point at what you "
        "are talking about.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file path, relative to the cwd or absolute"},
                "start": {"type": "integer", "description": "first line to light (1-based)"},
                "end": {"type": "integer", "description": "last line to light (default: start)"},
                "diff": {"type": "boolean", "description": "show the changes against HEAD"},
            },
            "required": ["path"],
        },
    )

    def __init__(self, panes: LauraPanes) -> None:
        self.panes = panes

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve(ctx.cwd, args["path"])
        name = shown(ctx.cwd, path)
        try:
            mode = path.stat().st_mode
        except OSError:
            raise ToolError(f"{name} does not exist") from None
        if not stat.S_ISREG(mode):
            raise ToolError(f"{name} is not a regular file; show displays files")
        lines = None
        if args.get("start") is not None:
            start = max(int(args["start"]), 1)
            end = max(int(args.get("end") or start), start)
            lines = (start, end)
        reply = await self.panes.show(str(path), lines, bool(args.get("diff")))
        if reply is None:
            raise ToolError("Laura did not answer; the file was not shown")
        if reply.get("type") == "error":
            raise ToolError(f"Laura refused: {reply.get('message', 'no reason given')}")
        where = f" lines {lines[0]}-{lines[1]}" if lines else ""
        # Laura's reminder to declare a reader of reviews is for the interface, not the model.
        warnings = [
            w for w in reply.get("warnings", []) if isinstance(w, str) and "laura ready" not in w
        ]
        note = "".join(f"\n(note: {w})" for w in warnings)
        return ToolResult(f"shown {name}{where} beside you{note}", summary=f"{name}{where}")
