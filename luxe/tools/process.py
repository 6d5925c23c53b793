"""Process groups: start a child in its own group, end the whole group.

`terminate_group` is the one way a tool or hook process ends early: SIGTERM
to the group, a short grace, SIGKILL to whatever is left, and the leader is
always reaped. It is safe to call twice and on a group that already ended.
"""

from __future__ import annotations

import os
import signal
import sys

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


async def terminate_group(process: trio.Process, grace_s: float = GRACE_S) -> None:
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
