"""Adopted orphans: processes that became Luxe's children without Luxe
starting them, ended at the quiet moments of a session.

Luxe is the subreaper of its descendants (luxe.tools.escapees), so a
process that left a tool call's process group and lost its parent becomes
Luxe's child. One that kept its environment carries its call's token and
dies with the call (`kill_tagged`); one that also cleared it (`env -i
setsid -f sleep 1000`, a daemon that double-forks with an empty
environment) carries nothing, and is told apart by what it is not: its
parent is Luxe, and Luxe did not start it (luxe.children registers every
child it starts). `sweep` ends each such orphan's whole process group with
the one group terminator (process_group.terminate_group: SIGTERM, a grace,
SIGKILL, then reaped), round after round, since an ended orphan's own
children become Luxe's in turn. Left alone:

- everything, while a bash call or a command hook runs (a registered
  `command` child): an orphan with an empty environment cannot be told
  from that call's own processes, so it waits for the next sweep, at the
  end of the last call running or of the turn;
- an orphan in the process group of a child Luxe started and has not
  reaped (a language server's, rg's, git's): it is that child's;
- an orphan in Luxe's own process group: a tool call's processes live in
  sessions of their own and cannot join it, so only a child Luxe runs in
  its own group (the editor, the secret scan's git) can leave one there;
  it is ended at exit, with every other descendant;
- a hook's daemon: an orphan whose environment holds a token a hook run
  was given (docs/hooks.md: what a hook detaches may live on).

The sweep runs at the end of every bash call (luxe.tools.shell) and of
every turn (the session's `Leftovers` port, luxe.app), so also after
`cancel_turn`.
"""

from __future__ import annotations

import logging
import os
import signal

import trio

from luxe import children
from luxe.tools import escapees
from process_group import GRACE_S, terminate_group

log = logging.getLogger("luxe.process")

# An ended orphan's children are the next round's orphans; a process that
# keeps starting new sessions is left to the next sweep (or the exit) after
# this many.
ROUNDS = 8


class _OrphanGroup:
    """An orphan's process group as terminate_group's GroupLeader: its id
    is the group's, and `wait` reaps the orphans of ours in it."""

    def __init__(self, pgid: int, members: list[int]) -> None:
        self.pid = pgid
        self.members = members
        self.returncode: int | None = None

    async def wait(self) -> None:
        # terminate_group waits for the group to empty first: they are dead.
        escapees.reap(self.members)
        self.returncode = -signal.SIGKILL


def _kept(pid: int, keeps: dict[str, frozenset[str]]) -> bool:
    """Whether `pid`'s environment holds a mark of a process left running
    on purpose (a hook's daemon)."""
    environ = escapees.environ_of(pid) if keeps else None
    if not environ:
        return False
    for entry in environ.split(b"\0"):
        var, sep, value = entry.partition(b"=")
        if sep and value.decode("utf-8", "replace") in keeps.get(var.decode("utf-8", "replace"), ()):
            return True
    return False


def _orphan_groups(registered: children.Registered) -> list[_OrphanGroup] | None:
    """The process groups of the orphans to end now, or None while a
    command runs. Reaps the orphans that have died meanwhile. Runs under
    the registry's lock (children.look)."""
    if registered.command_running:
        return None
    ours = os.getpgrp()
    keeps = dict(registered.keeps)
    groups: dict[int, list[int]] = {}
    for pid in escapees.children_of_self() or ():
        if pid in registered.children:
            continue
        info = escapees.proc_stat(pid)
        if info is None:
            continue
        state, _parent, pgid = info
        if state in ("Z", "X"):
            escapees.reap([pid])  # an orphan that died by itself: no zombie is left
        elif pgid != ours and pgid not in registered.children and not _kept(pid, keeps):
            groups.setdefault(pgid, []).append(pid)
    return [_OrphanGroup(pgid, members) for pgid, members in groups.items()]


async def sweep() -> list[int]:
    """End the orphans nothing running may own (see the module doc); a
    no-op unless Luxe is the subreaper (elsewhere its children are only
    ones it started). Shielded: it runs in `finally` blocks and must
    finish; takes a grace at most per round, when an orphan ignores
    SIGTERM. Returns the pids of the orphans ended (not their group's
    other members)."""
    if not escapees.is_subreaper():
        return []
    ended: list[int] = []
    with trio.CancelScope(shield=True):
        for _ in range(ROUNDS):
            groups = await children.look(_orphan_groups)
            if not groups:
                break
            async with trio.open_nursery() as nursery:
                for group in groups:
                    nursery.start_soon(terminate_group, group, (signal.SIGTERM,), GRACE_S)
            ended += [pid for group in groups for pid in group.members]
    if ended:
        log.info("ended %d orphaned process(es) no call owned: %s", len(ended), ended)
    return ended

