"""The question tool: ask the person through the client (`question_asked`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from luxe.engine.model import ToolSpec
from luxe.engine.tooling import ToolContext, ToolError, ToolResult


class QuestionTool:
    name = "question"
    spec = ToolSpec(
        "question",
        "Ask the user a question and wait for the answer. Give options when the answer "
        "is a choice; set multiple to allow several.",
        {
            "type": "object",
            "properties": {
                "question": {"type": "string"},
                "options": {"type": "array", "items": {"type": "string"}},
                "multiple": {"type": "boolean"},
            },
            "required": ["question"],
        },
    )

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        options = [str(o) for o in args.get("options") or []]
        reply = await ctx.ask_question(args["question"], options, bool(args.get("multiple")))
        if reply.get("dismissed"):
            # A front end with nobody to ask (`luxe -p`) says why instead.
            raise ToolError(reply.get("reason") or "the user dismissed the question without answering")
        answers = [str(a) for a in reply.get("answered", [])]
        text = "; ".join(answers)
        return ToolResult(f"the user answered: {text}", summary=text[:80])
