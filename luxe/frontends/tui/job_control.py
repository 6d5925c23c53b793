"""Whether a shell can resume luxe once Ctrl+Z stops it.

A stopped process is resumed by its job-control shell (`fg`): a parent in
the same session but another process group. Luxe started without one (the
program a terminal, tmux or Laura runs, `laura --agent`, `exec luxe`, or a
wrapper run the same way) would stay stopped for good, its terminal frozen
(POSIX calls such a process group orphaned). Linux only reads the
ancestors' groups; elsewhere, the parent is all that is looked at.
"""

from __future__ import annotations

import os

MAX_ANCESTORS = 64


def _parent_of(pid: int) -> int | None:
    if pid == os.getpid():
        return os.getppid()
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return int(stat[stat.rfind(b")") + 2 :].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def resumable() -> bool:
    """True when a process outside luxe's group, in its session, is an
    ancestor of luxe's group (a shell with job control to `fg` it)."""
    group, session = os.getpgrp(), os.getsid(0)
    pid = os.getpid()
    for _ in range(MAX_ANCESTORS):
        parent = _parent_of(pid)
        if parent is None or parent <= 0:
            return False
        try:
            if os.getpgid(parent) != group:
                return os.getsid(parent) == session
        except OSError:
            return False
        pid = parent
    return False
