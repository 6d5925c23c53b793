"""The children Luxe starts itself: the one place they are started, and the
one registry of their pids (what tells an orphan Luxe adopted from a child
it started: luxe.orphans).

Every child (a bash call, a command hook, a language server, rg, git and
gh, the editor) is started by `open_process` (trio), `popen` (any thread)
or `run` (to completion, in the caller's thread), and is in the registry
from the moment its pid exists until its owner has reaped it and calls
`forget`. Nothing else in Luxe starts a process. Each starts with PATH
cut to its absolute entries (program_path): never a repository's `./git`.

`look` (a sweep's one view of the registry) never sees a child that exists
but is not registered yet:
- `popen` holds the registry's lock from before the fork until the pid is
  registered, and `look` runs under the same lock;
- `open_process` forks in one of trio's worker threads, and the loop's
  thread cannot hold a lock across that await (a hook's `popen` takes it on
  the loop's thread: it would wait forever). So the child counts as
  *starting* from before the fork until its pid is registered, in the same
  trio step `trio.lowlevel.open_process` returns in (no checkpoint between),
  and `look` waits until nothing is starting.

The registry is process-wide, as the parent links it mirrors are; it is
thread-safe. A `command` child runs a command the model or a hook
definition gave (a bash call, a command hook): what it leaves behind is
what sweeps look for, so a sweep waits while one runs.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import trio

import program_path
from luxe.record import record

T = TypeVar("T")

# How long `look` waits for a start in a worker thread to be registered (a
# fork and exec: milliseconds; an exec stuck on a dead network mount: never).
START_WAIT_S = 5.0
POLL_S = 0.001


@record
class Child:
    pid: int
    command: bool  # a bash call's or a hook's process (see the module doc)


@record
class Registered:
    """What `look` shows: the children registered, and the marks of what
    their commands may leave running on purpose (`keeps`: variable ->
    tokens; a hook's daemon)."""

    children: Mapping[int, Child]
    keeps: Mapping[str, frozenset[str]]

    @property
    def command_running(self) -> bool:
        return any(child.command for child in self.children.values())


_lock = threading.Lock()
_children: dict[int, Child] = {}
_keeps: dict[str, set[str]] = {}
_starting = 0


def _register(pid: int, command: bool, keeps: tuple[str, str] | None) -> None:
    """Under `_lock`."""
    _children[pid] = Child(pid, command)
    if keeps is not None:
        _keeps.setdefault(keeps[0], set()).add(keeps[1])


def _absolute_path(options: dict[str, Any]) -> dict[str, Any]:
    """`options` with the child's environment's PATH cut to its absolute
    entries: the child is looked up there, and so is every program it
    starts (program_path)."""
    return {**options, "env": program_path.environment(options.get("env"))}


async def open_process(
    argv: Sequence[str], *, command: bool = False, **options: Any
) -> trio.Process:
    """`trio.lowlevel.open_process(argv, **options)`, registered. The caller
    owns the process: it ends and reaps it, then calls `forget`."""
    global _starting
    with _lock:
        _starting += 1
    process: trio.Process | None = None
    try:
        process = await trio.lowlevel.open_process(list(argv), **_absolute_path(options))
    finally:
        with _lock:
            if process is not None:
                _register(process.pid, command, None)
            _starting -= 1
    return process


def popen(
    argv: Sequence[str],
    *,
    command: bool = False,
    keeps: tuple[str, str] | None = None,
    **options: Any,
) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(argv, **options)`, registered; from any thread (on
    the loop's, it blocks at most while another thread forks). `keeps`
    (variable, token): a process whose environment holds it was left
    running on purpose (a hook's daemon), and sweeps leave it alone; the
    mark is kept until no process holds it (`forget_keeps`). The caller
    owns the process: it reaps it, then calls `forget`."""
    with _lock:
        process = subprocess.Popen(list(argv), **_absolute_path(options))
        _register(process.pid, command, keeps)
    return process


def run(
    argv: Sequence[str], *, capture: bool = True, **options: Any
) -> subprocess.CompletedProcess[bytes]:
    """Run `argv` to completion in the caller's thread (a worker thread, or
    before the event loop starts), reaped and forgotten on every way out.
    With `capture`, stdout and stderr are read; else they are inherited."""
    pipe = subprocess.PIPE if capture else None
    process = popen(argv, stdout=pipe, stderr=pipe, **options)
    try:
        with process:  # waits for it on the way out
            try:
                out, err = process.communicate()
            except BaseException:
                process.kill()
                raise
    finally:
        forget(process.pid)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def forget(pid: int) -> None:
    """The owner has reaped child `pid`: it is no longer Luxe's."""
    with _lock:
        _children.pop(pid, None)


def forget_keeps(spent: Mapping[str, Iterable[str]]) -> None:
    """Forget these marks (variable -> tokens): no process holds them any
    more, so none can again (a process gets one only from a parent holding
    it) and no sweep needs them. luxe.orphans finds them at each sweep;
    else a session would keep one for every hook run."""
    with _lock:
        for var, tokens in spent.items():
            left = _keeps.get(var)
            if left is None:
                continue
            left.difference_update(tokens)
            if not left:
                del _keeps[var]


async def look(view: Callable[[Registered], T], *, wait_s: float = START_WAIT_S) -> T | None:
    """`view(registered)`, run under the registry's lock once no child is
    starting (so every child Luxe has is registered); None when one is
    still starting after `wait_s`. `view` must be quick and must not keep
    what it is given: a `popen` in any thread waits for it."""
    deadline = trio.current_time() + wait_s
    while True:
        with _lock:
            if not _starting:
                keeps = {var: frozenset(tokens) for var, tokens in _keeps.items()}
                return view(Registered(dict(_children), keeps))
        if trio.current_time() >= deadline:
            return None
        # A start in a worker thread ends in milliseconds; nothing signals it.
        await trio.sleep(POLL_S)
