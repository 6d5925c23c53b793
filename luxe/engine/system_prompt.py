"""The system prompt: where the model is and what it can do.

Built once per session (a stable prompt keeps the provider's prompt cache
warm): cwd, platform, date, a git status summary, the project's AGENTS.md /
LUXE.md (read through the permission gate: regular files only, capped,
redacted), and the tools. The git call is bounded in time and output
(luxe.git_read); on a failure the prompt says what failed.
"""

from __future__ import annotations

import logging
import os
from datetime import date
from pathlib import Path

from luxe.engine.model import ToolSpec
from luxe.engine.ports import PermissionGate
from luxe.git_read import git_read, whole_lines
from luxe.regular_file import open_regular

log = logging.getLogger("luxe.session")

PROJECT_FILES = ("AGENTS.md", "LUXE.md")
PROJECT_FILE_CAP = 32 * 1024
GIT_TIMEOUT_S = 2.0
STATUS_CAP = 64 * 1024  # a checkout with more changes is summed up as "more than"
SHOWN_CHANGES = 20


async def git_summary(cwd: Path) -> str:
    """`git status` in a few lines: branch and changed files (capped)."""
    try:
        done = await git_read(
            "status", "--porcelain=v1", "--branch",
            cwd=cwd, timeout_s=GIT_TIMEOUT_S, stdout_cap=STATUS_CAP,
        )  # fmt: skip
    except OSError:
        return "git is not installed"
    if done is None:
        return "git status timed out"
    if done.returncode != 0 and not done.truncated:
        return "not a git checkout"
    lines = whole_lines(done)
    branch = lines[0].removeprefix("## ") if lines else "unknown"
    changes = lines[1:]
    if not changes:
        return f"git branch {branch}; working tree clean"
    shown = "\n".join(f"  {c}" for c in changes[:SHOWN_CHANGES])
    more = len(changes) - SHOWN_CHANGES
    if done.truncated:
        count = f"more than {len(changes)}"
        rest = f"\n  … and more than {more} more" if more > 0 else "\n  … and more"
    else:
        count = f"{len(changes)}"
        rest = f"\n  … and {more} more" if more > 0 else ""
    return f"git branch {branch}; {count} changed paths:\n{shown}{rest}"


def project_instructions(cwd: Path, gate: PermissionGate) -> str:
    """AGENTS.md and LUXE.md, read like any other file read: the gate must
    allow reading them (a link to a secret file is refused), only regular
    files, capped, and redacted. A file the gate refuses is left out, and
    so is one whose opened file is a secret (a name swapped after the check)."""
    parts = []
    for name in PROJECT_FILES:
        verdict = gate.check("read", {"path": str(cwd / name)})
        if verdict.decision != "allow":
            if (cwd / name).exists():
                log.warning("%s left out of the system prompt: %s", name, verdict.reason)
            continue
        read = _read_instructions(cwd / name, gate)
        if read is None:
            continue
        data, cut = read
        text = gate.redact(data.decode("utf-8", "replace"), cut_end=cut)
        parts.append(f"<{name}>\n{text.strip()}\n</{name}>")
    return "\n\n".join(parts)


def _read_instructions(path: Path, gate: PermissionGate) -> tuple[bytes, bool] | None:
    """Up to PROJECT_FILE_CAP bytes of the regular file `path` and whether
    there was more; None when it is missing, not a regular file, or (judged
    on the descriptor) a secret file."""
    try:
        with open_regular(path) as f:
            if gate.is_secret_opened(f.fileno()):
                log.warning("%s left out of the system prompt: the file opened is a secret", path.name)
                return None
            data = f.read(PROJECT_FILE_CAP + 1)
    except (OSError, ValueError):
        return None
    return data[:PROJECT_FILE_CAP], len(data) > PROJECT_FILE_CAP


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
