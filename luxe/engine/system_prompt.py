"""The system prompt: where the model is and what it can do.

Built once per session (a stable prompt keeps the provider's prompt cache
warm): cwd, platform, date, a git status summary, the project's AGENTS.md /
LUXE.md (read through the permission gate: regular files only, capped,
redacted), and the tools. The git call is bounded; on any failure the prompt
just says the directory is not a git checkout.
"""

from __future__ import annotations

import logging
import os
import subprocess
from datetime import date
from pathlib import Path

import trio

from luxe.engine.model import ToolSpec
from luxe.engine.ports import PermissionGate
from luxe.regular_file import read_regular

log = logging.getLogger("luxe.session")

PROJECT_FILES = ("AGENTS.md", "LUXE.md")
PROJECT_FILE_CAP = 32 * 1024
GIT_TIMEOUT_S = 2.0


async def git_summary(cwd: Path) -> str:
    """`git status` in a few lines: branch and changed files (capped)."""
    try:
        with trio.move_on_after(GIT_TIMEOUT_S):
            done = await trio.run_process(
                # Never the index lock: the person's own git may run meanwhile.
                ["git", "--no-optional-locks", "status", "--porcelain=v1", "--branch"],
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


def project_instructions(cwd: Path, gate: PermissionGate) -> str:
    """AGENTS.md and LUXE.md, read like any other file read: the gate must
    allow reading them (a link to a secret file is refused), only regular
    files, capped, and redacted. A file the gate refuses is left out."""
    parts = []
    for name in PROJECT_FILES:
        verdict = gate.check("read", {"path": str(cwd / name)})
        if verdict.decision != "allow":
            if (cwd / name).exists():
                log.warning("%s left out of the system prompt: %s", name, verdict.reason)
            continue
        read = read_regular(cwd / name, PROJECT_FILE_CAP)
        if read is None:
            continue
        data, cut = read
        text = gate.redact(data.decode("utf-8", "replace"), cut_end=cut)
        parts.append(f"<{name}>\n{text.strip()}\n</{name}>")
    return "\n\n".join(parts)


def _has_instructions(cwd: Path) -> bool:
    """Whether an instruction file (or a link by that name) is there."""
    return any(os.path.lexists(cwd / name) for name in PROJECT_FILES)


async def build_system_prompt(cwd: Path, tools: list[ToolSpec], gate: PermissionGate) -> str:
    import platform  # ~9 ms at import time: only the first turn pays it

    if _has_instructions(cwd):
        await gate.settle()  # an instruction file is checked against every secret file
    git = await git_summary(cwd)
    tool_lines = "\n".join(f"- {t.name}: {t.description}" for t in tools)
    instructions = project_instructions(cwd, gate)
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
