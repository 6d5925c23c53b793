"""The system prompt: where the model is and what it can do.

Built once per session (a stable prompt keeps the provider's prompt cache
warm): cwd, platform, date, a git status summary, the project's AGENTS.md /
LUXE.md, and the tools. The git call is bounded; on any failure the prompt
just says the directory is not a git checkout.
"""

from __future__ import annotations

import subprocess
from datetime import date
from pathlib import Path

import trio

from luxe.engine.model import ToolSpec

PROJECT_FILES = ("AGENTS.md", "LUXE.md")
PROJECT_FILE_CAP = 32 * 1024
GIT_TIMEOUT_S = 2.0


async def git_summary(cwd: Path) -> str:
    """`git status` in a few lines: branch and changed files (capped)."""
    try:
        with trio.move_on_after(GIT_TIMEOUT_S):
            done = await trio.run_process(
                ["git", "status", "--porcelain=v1", "--branch"],
                cwd=cwd,
                capture_stdout=True,
                capture_stderr=True,
                check=False,
                stdin=subprocess.DEVNULL,
            )
            if done.returncode != 0:
                return "not a git checkout"
            lines = done.stdout.decode("utf-8", "replace").splitlines()
            branch = lines[0].removeprefix("## ") if lines else "unknown"
            changes = lines[1:]
            if not changes:
                return f"git branch {branch}; working tree clean"
            shown = "\n".join(f"  {c}" for c in changes[:20])
            more = f"\n  … and {len(changes) - 20} more" if len(changes) > 20 else ""
            return f"git branch {branch}; {len(changes)} changed paths:\n{shown}{more}"
        return "git status timed out"
    except OSError:
        return "git is not installed"


def project_instructions(cwd: Path) -> str:
    parts = []
    for name in PROJECT_FILES:
        path = cwd / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace")[:PROJECT_FILE_CAP]
        except OSError:
            continue
        parts.append(f"<{name}>\n{text.strip()}\n</{name}>")
    return "\n\n".join(parts)


async def build_system_prompt(cwd: Path, tools: list[ToolSpec]) -> str:
    import platform  # ~9 ms at import time: only the first turn pays it

    git = await git_summary(cwd)
    tool_lines = "\n".join(f"- {t.name}: {t.description}" for t in tools)
    instructions = project_instructions(cwd)
    project = f"\n\nProject instructions:\n{instructions}" if instructions else ""
    return (
        "You are Luxe, a coding agent working in the user's project through tools. "
        "Read before you change; keep changes small; say plainly what you did.\n\n"
        f"Working directory: {cwd}\n"
        f"Platform: {platform.system()} {platform.release()} ({platform.machine()})\n"
        f"Date: {date.today().isoformat()}\n"
        f"Repository: {git}\n\n"
        f"Tools:\n{tool_lines}"
        f"{project}"
    )
