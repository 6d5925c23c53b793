"""The agent's tools. Names and argument names are part of the contract."""

from __future__ import annotations

from luxe.engine.tooling import Tool


def default_tools() -> list[Tool]:
    """Every tool a session offers, in the order the model is told of them."""
    from luxe.tools.files import EditTool, GlobTool, LsTool, ReadTool, WriteTool
    from luxe.tools.question import QuestionTool
    from luxe.tools.search import GrepTool
    from luxe.tools.shell import BashTool

    return [ReadTool(), WriteTool(), EditTool(), BashTool(), GrepTool(), GlobTool(), LsTool(), QuestionTool()]
