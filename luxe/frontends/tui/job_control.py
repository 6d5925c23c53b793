"""Whether a shell can resume luxe once Ctrl+Z stops it, and stopping it.

A stopped process is resumed by its job-control shell (`fg`): a parent in
the same session but another process group. Luxe started without one (the
program a terminal, tmux or Laura runs, `laura --agent`, `exec luxe`, or a
wrapper run the same way) would stay stopped for good, its terminal frozen
(POSIX calls such a process group orphaned). Linux only reads the
ancestors' groups; elsewhere, the parent is all that is looked at.

The shell learns of a stop from its own child, which may be a wrapper of
luxe's in the same group (`sh -c 'luxe; …'`): `stop_job` stops those
ancestors, then luxe. Not the whole group: a child luxe is starting is in
it until it leaves for its own, and stopped there it would hold luxe's
fork (vfork) for good, so luxe itself would never finish stopping.
"""

from __future__ import annotations

import os
import signal

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


def _in_group() -> tuple[list[int], int | None]:
    """Luxe's ancestors in its process group, nearest first, and the first
    ancestor outside it (None when none is found)."""
    group = os.getpgrp()
    pid, inside = os.getpid(), list[int]()
    for _ in range(MAX_ANCESTORS):
        parent = _parent_of(pid)
        if parent is None or parent <= 0:
            return inside, None
        try:
            if os.getpgid(parent) != group:
                return inside, parent
        except OSError:
            return inside, None
        inside.append(parent)
        pid = parent
    return inside, None


def resumable() -> bool:
    """True when a process outside luxe's group, in its session, is an
    ancestor of luxe's group (a shell with job control to `fg` it)."""
    _inside, outside = _in_group()
    try:
        return outside is not None and os.getsid(outside) == os.getsid(0)
    except OSError:
        return False


def stop_job() -> None:
    """Stop luxe and its ancestors in its group, the farthest first; `fg`
    (SIGCONT to the group) resumes them all."""
    inside, _outside = _in_group()
    for pid in reversed(inside):
        try:
            os.kill(pid, signal.SIGSTOP)
        except OSError:
            pass
    os.kill(os.getpid(), signal.SIGSTOP)
