"""Ending a child's whole process group: the one terminator Luxe and Laura share.

Every child either program starts (a tool, a command hook, a language
server, git and gh, a tab's program) leads its own process group, so ending
it means ending the group: the first signals (SIGTERM; a tab adds SIGHUP
and SIGCONT; a hook gets SIGKILL at once, `kill_group`), a grace while any
member lives, SIGKILL to what is left, a bounded wait until the SIGKILLed
members are gone, and the leader reaped. The leader's exit is not the end: a
grandchild that ignores SIGTERM keeps the group alive, so the waits watch
the group, never only the leader.

`terminate_group` (trio) and `terminate_group_blocking` (the caller's thread)
run the same `_rounds`. Both are safe on a group that has already ended.
Imports nothing of either program.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from typing import Protocol

import trio

GRACE_S = 0.5
# SIGKILL cannot be caught, but a killed process dies only once the kernel
# schedules it (on a busy machine, a moment). Bounded so a process in
# uninterruptible sleep cannot hang the caller.
KILL_SETTLE_S = 10.0
POLL_S = 0.02


def group_alive(pgid: int) -> bool:
    """True while any process of group `pgid` is alive. Zombies do not count:
    without an init that reaps, an orphaned one lingers forever."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not sys.platform.startswith("linux"):
        return True
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return True
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # Fields after the command name: state, ppid, pgrp, ...
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False


def _signal_group(pgid: int, signals: Iterable[int]) -> None:
    for sig in signals:
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return


def _rounds(first: tuple[int, ...], grace: float) -> tuple[tuple[tuple[int, ...], float], ...]:
    """What to send and how long to wait for the group to empty after it."""
    return ((first, grace), ((signal.SIGKILL,), KILL_SETTLE_S))


class GroupLeader(Protocol):
    """A started process that leads its own group (start_new_session):
    trio.Process is one; `wait` reaps it and sets `returncode`."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> object: ...


async def terminate_group(
    process: GroupLeader, first: tuple[int, ...] = (signal.SIGTERM,), grace: float = GRACE_S
) -> None:
    """End `process`'s group (its pid is the group id) and reap the leader.

    Shielded: it runs in `finally` blocks and as trio's `deliver_cancel`,
    and must finish. On return no member is alive (at most zombies awaiting
    their new parent). Takes up to `grace`, plus the moment SIGKILLed members
    need to die."""
    pgid = process.pid
    with trio.CancelScope(shield=True):
        for signals, wait in _rounds(first, grace):
            if not group_alive(pgid):
                break
            _signal_group(pgid, signals)
            # No event exists for "the last member of a group died": poll.
            with trio.move_on_after(wait):
                while group_alive(pgid):  # noqa: ASYNC110
                    await trio.sleep(POLL_S)
        await process.wait()


async def kill_group(process: GroupLeader) -> None:
    """`terminate_group` with no grace: SIGKILL at once (a command hook,
    which had its time)."""
    await terminate_group(process, (signal.SIGKILL,), 0)


def terminate_group_blocking(
    process: subprocess.Popen[bytes], first: tuple[int, ...] = (signal.SIGTERM,), grace: float = GRACE_S
) -> None:
    """`terminate_group` for a child waited on in the caller's thread; closes
    its pipes (a member that escaped the group may still hold them open)."""
    pgid = process.pid
    for signals, wait in _rounds(first, grace):
        if not group_alive(pgid):
            break
        _signal_group(pgid, signals)
        deadline = time.monotonic() + wait
        while group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(POLL_S)
    process.wait()
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()
