"""Process groups: end a child's whole group, whatever it left running.

`terminate_group` ends every process group Luxe starts (tools, command
hooks, language servers, Guided Review's git and gh): SIGTERM to the group,
a grace, SIGKILL to whatever is left (a grandchild that ignores TERM too),
and the leader is always reaped. With no grace it SIGKILLs at once (hooks).
It is safe to call twice and on a group that already ended.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Protocol

import trio

GRACE_S = 0.5
# SIGKILL cannot be caught, but a killed process only dies once the kernel
# schedules it; on a busy machine that can take a moment. Bounded so a
# process stuck in uninterruptible sleep cannot hang the caller.
KILL_SETTLE_S = 10.0


def _group_alive(pgid: int) -> bool:
    """True while any process of the group is alive (zombies do not count:
    in a container without an init that reaps, they linger forever)."""
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


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class GroupLeader(Protocol):
    """A started process that leads its own group (start_new_session):
    trio.Process is one; `wait` reaps it and sets `returncode`."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> object: ...


async def terminate_group(process: GroupLeader, grace_s: float = GRACE_S) -> None:
    """End `process`'s group (its pid is the group id) and reap the leader.

    Runs shielded: it is called from `finally` blocks of cancelled scopes and
    must finish its job. When it returns, no process of the group is alive
    (the leader is reaped; other members are at most zombies awaiting their
    new parent), so a caller may report "killed" truthfully. It takes about
    `grace_s`, plus the moment SIGKILLed members need to die.
    """
    pgid = process.pid
    with trio.CancelScope(shield=True):
        if process.returncode is None or _group_alive(pgid):
            if grace_s > 0:
                _signal_group(pgid, signal.SIGTERM)
                with trio.move_on_after(grace_s):
                    await process.wait()
                    # No event exists for "the last member of a group died": poll.
                    while _group_alive(pgid):  # noqa: ASYNC110
                        await trio.sleep(0.02)
            _signal_group(pgid, signal.SIGKILL)
        await process.wait()
        # The leader's exit says nothing about the rest of the group: wait
        # until every SIGKILLed member has actually died.
        with trio.move_on_after(KILL_SETTLE_S):
            while _group_alive(pgid):  # noqa: ASYNC110
                await trio.sleep(0.01)
