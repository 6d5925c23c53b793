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
  was given (docs/hooks.md: what a hook detaches may live on). A token is
  kept (luxe.children) until a sweep finds no descendant of Luxe holding
  it: then nothing can hold it again, and the sweep forgets it.

The sweep runs at the end of every bash call (luxe.tools.shell) and of
every turn (the session's `Leftovers` port, luxe.app), so also after
`cancel_turn`.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Mapping

import trio

from luxe import children
from luxe.tools import escapees
from process_group import GRACE_S, terminate_group

log = logging.getLogger("luxe.process")

# An ended orphan's children are the next round's orphans; a process that
# keeps starting new sessions is left to the next sweep (or the exit) after
# this many.
ROUNDS = 8
# Finding the marks of hook runs no process holds any more: at most this
# many passes over Luxe's descendants, this far apart (see _spent_keeps).
MARK_PASSES = 4
MARK_PASS_GAP_S = 0.002


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


def _marks(environ: bytes, keeps: Mapping[str, frozenset[str]]) -> list[tuple[str, str]]:
    """The (variable, token) marks of `keeps` an environment block holds."""
    found = []
    for entry in environ.split(b"\0"):
        var, sep, value = entry.partition(b"=")
        name, token = var.decode("utf-8", "replace"), value.decode("utf-8", "replace")
        if sep and token in keeps.get(name, ()):
            found.append((name, token))
    return found


def _kept(pid: int, keeps: Mapping[str, frozenset[str]]) -> bool:
    """Whether `pid`'s environment holds a mark of a process left running
    on purpose (a hook's daemon)."""
    environ = escapees.environ_of(pid) if keeps else None
    return bool(environ and _marks(environ, keeps))


def _held_marks(keeps: Mapping[str, frozenset[str]]) -> tuple[set[tuple[str, str]], bool]:
    """The marks of `keeps` Luxe's living descendants hold, in one pass,
    and whether one of ours could not be read (in the middle of an exec, it
    may hold any; or its environment is empty). Where Linux lists no
    children, none: the sweep, reading the same lists, meets no orphan
    there to spare."""
    held: set[tuple[str, str]] = set()
    unreadable = False
    for pid in escapees.our_subtree() or ():
        environ = escapees.environ_of(pid)
        unreadable = unreadable or (environ is None and escapees.is_ours(pid))
        held.update(_marks(environ or b"", keeps))
    return held, unreadable


async def _spent_keeps(keeps: Mapping[str, frozenset[str]]) -> dict[str, set[str]]:
    """The marks of `keeps` no living descendant of Luxe holds: in two
    passes (one may have been forking: its child, reparented behind the
    first walk, is met by the second), and while one of ours cannot be
    read, up to MARK_PASSES a moment apart (an exec ends in that time; one
    that stays unreadable has an empty environment).

    Such a mark can never spare anything again: a process gets it only from
    a parent that holds it, and a sweep spares only Luxe's own children,
    which are its descendants (an orphan comes to Luxe, the subreaper, only
    from below it; when Luxe is not the subreaper, sweeps end nothing)."""
    held: set[tuple[str, str]] = set()
    for done in range(1, MARK_PASSES + 1):
        found, unreadable = _held_marks(keeps)
        held |= found
        if done >= 2 and not unreadable:
            break
        await trio.sleep(MARK_PASS_GAP_S)
    return {var: {token for token in tokens if (var, token) not in held}
            for var, tokens in keeps.items()}


async def _forget_spent_keeps() -> None:
    """Forget the marks no process holds any more (luxe.children keeps a
    hook run's until then; a long session runs thousands). Not while a
    command runs: its processes come and go, and the next sweep comes."""
    keeps = await children.look(_quiet_keeps)
    if keeps:
        children.forget_keeps(await _spent_keeps(keeps))


def _quiet_keeps(registered: children.Registered) -> Mapping[str, frozenset[str]] | None:
    return None if registered.command_running else registered.keeps


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
    """End the orphans nothing running may own (see the module doc); ends
    nothing unless Luxe is the subreaper (elsewhere its children are only
    ones it started). First forgets the hook runs' marks no process holds
    any more. Shielded: it runs in `finally` blocks and must finish; takes
    a grace at most per round, when an orphan ignores SIGTERM. Returns the
    pids of the orphans ended (not their group's other members)."""
    with trio.CancelScope(shield=True):
        await _forget_spent_keeps()
        ended = await _end_orphans() if escapees.is_subreaper() else []
    if ended:
        log.info("ended %d orphaned process(es) no call owned: %s", len(ended), ended)
    return ended


async def _end_orphans() -> list[int]:
    """Round after round, end the orphans' groups; the pids ended."""
    ended: list[int] = []
    for _ in range(ROUNDS):
        groups = await children.look(_orphan_groups)
        if not groups:
            break
        async with trio.open_nursery() as nursery:
            for group in groups:
                nursery.start_soon(terminate_group, group, (signal.SIGTERM,), GRACE_S)
        ended += [pid for group in groups for pid in group.members]
    return ended

