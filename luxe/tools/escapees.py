"""Processes that left their group: found by a token, or by descent.

A tool call (and a hook run) puts a token in the environment of the process
it starts; every descendant inherits it, also one that left the process
group with `setsid`. `kill_tagged` finds them through /proc and SIGKILLs
them. `become_subreaper` makes Luxe the parent of every orphaned descendant
(Linux): one that also cleared its environment is then told apart from
Luxe's own children by luxe.orphans, and `kill_descendants` at exit reaches
every one. All are synchronous and quick (one pass over /proc); the /proc
readers here are also luxe.orphans'.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import time

log = logging.getLogger("luxe.process")

CALL_TOKEN_VAR = "LUXE_CALL"
_PR_SET_CHILD_SUBREAPER = 36
# Set once this process is the subreaper of its descendants: then every
# process that left a tool call's group is, once the group is dead, a child
# of ours (or a descendant of one), and only children need to be looked at.
_subreaper = False


def _pids() -> list[int]:
    try:
        return [int(e) for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []


def is_subreaper() -> bool:
    """Whether this process is the parent of its orphaned descendants."""
    return _subreaper


def proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, process group) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    return (fields[0].decode(), int(fields[1]), int(fields[2])) if len(fields) > 2 else None


def reap(pids: list[int], wait_s: float = 0.0) -> None:
    """Collect the exit status of those that became our children (orphans
    adopted by a subreaper), so no zombie is left behind; with `wait_s`,
    wait that long at most for them to die (SIGKILLed: a moment)."""
    left = list(pids)
    deadline = time.monotonic() + wait_s
    while left:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except (ChildProcessError, OSError):
                done = pid  # not ours (or gone): nothing to wait for
            if done:
                left.remove(pid)
        if not left or time.monotonic() >= deadline:
            return
        time.sleep(0.001)


def children_of_self() -> list[int] | None:
    """Our children (of every thread), or None where Linux does not list them."""
    return _children_of("self")


def _children_of(pid: int | str) -> list[int] | None:
    """`pid`'s children (of every thread); None where Linux does not list
    them, or once `pid` is gone."""
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return None
    return out


def our_subtree() -> list[int] | None:
    """Our descendants, walked down the kernel's lists of children (a pass
    costs what they number, not all of /proc); None where Linux does not
    list children. A pass can miss the child of one that forks and exits
    meanwhile (it is reparented behind the walk): the next pass meets it."""
    found = children_of_self()
    if found is None:
        return None
    seen = set(found)
    for pid in found:  # grows as it is walked: breadth first
        below = [child for child in _children_of(pid) or () if child not in seen]
        seen.update(below)
        found += below
    return found


def is_ours(pid: int) -> bool:
    """Whether `pid` runs as our user (its environment is ours to read)."""
    try:
        return os.stat(f"/proc/{pid}").st_uid == os.getuid()
    except OSError:
        return False


def kill_tagged(var: str, token: str, *, children_only: bool = True) -> list[int]:
    """SIGKILL our processes (same uid: their environ is readable) whose
    environment holds `var=token`. Call once the group they left is dead.
    As the subreaper (and with `children_only`), only our children are
    looked at, pass after pass (a killed one's children become ours);
    otherwise all of /proc, twice (one may have been forking). Returns the
    pids killed."""
    needle = f"{var}={token}\0".encode()
    me = os.getpid()
    killed: list[int] = []
    narrow = children_only and _subreaper
    for _ in range(8 if narrow else 2):
        found = unsure = False
        candidates = children_of_self() if narrow else None
        for pid in _pids() if candidates is None else candidates:
            if pid == me or pid in killed:
                continue
            environ = environ_of(pid)
            if environ is None:
                # A child whose environment cannot be read yet (it is in
                # the middle of an exec: `setsid bash -c 'exec sleep'`) is
                # looked at again, or it would outlive its call.
                unsure = unsure or narrow
                continue
            if needle in environ:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    continue
                killed.append(pid)
                found = True
        if found and narrow:
            reap(killed, wait_s=1.0)  # their children are ours once they are dead
        elif unsure:
            time.sleep(0.002)
        elif not found:
            break
    reap(killed)
    return killed


def environ_of(pid: int) -> bytes | None:
    """A living process's environment block; None while it cannot be read
    (gone or exiting, not ours, or between the two halves of an exec)."""
    info = proc_stat(pid)
    if info is None or info[0] in ("Z", "X"):
        return b""  # gone or a zombie: holds nothing, nothing to wait for
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read()
    except OSError:
        return None if proc_stat(pid) is not None else b""
    return environ or None


def descendants(root: int) -> list[int]:
    """Living processes descended from `root`, by parent links."""
    parents: dict[int, int] = {}
    for pid in _pids():
        info = proc_stat(pid)
        if info is not None and info[0] not in ("Z", "X"):
            parents[pid] = info[1]
    out = []
    for pid in parents:
        seen: set[int] = set()
        parent = parents.get(pid, 0)
        while parent and parent not in seen:
            if parent == root:
                out.append(pid)
                break
            seen.add(parent)
            parent = parents.get(parent, 0)
    return out


def kill_descendants() -> list[int]:
    """SIGKILL every living descendant of this process (at exit: nothing a
    tool started outlives the session). Returns the pids killed."""
    killed = []
    for _ in range(3):
        found = [p for p in descendants(os.getpid()) if p not in killed]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
    reap(killed)
    if killed:
        log.info("killed %d leftover process(es) at exit: %s", len(killed), killed)
    return killed


def become_subreaper() -> bool:
    """Make this process the parent of its orphaned descendants (Linux)."""
    global _subreaper
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper
