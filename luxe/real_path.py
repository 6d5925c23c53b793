"""Which file a path names: every symlink resolved, asked of the kernel.

A repository chooses its symlinks, and `os.path.realpath` and
`Path.resolve` walk them in Python, a recursion per link and no bound: a
chain of 1,200 links raised RecursionError (from the permission gate, on a
`read`: the turn ended with an internal error), `Path.resolve` raised on a
loop (`a -> b -> a`, `x -> x`, `d/loop/file`), and both raised on a NUL.
Here the kernel follows the links (at most 40, within PATH_MAX): the
longest prefix of the path that resolves is opened with `O_PATH` (which
reads nothing and never blocks on a FIFO or a device) and its name read
back from /proc (kernel_path, shared with Laura). What lies past that
prefix does not exist (yet) or cannot be resolved: a dangling symlink
there is followed by hand, as realpath follows it (a write through it
creates its target, so its target is what the rules must judge), at most
MAX_HOPS times; the rest is kept as given.

Like `os.path.realpath`, never strict and never raising; unlike it, `..`
is folded before anything is resolved (as every tool folds a path before
it opens it: `call_path`). A pure blocking function with no state: a few
system calls, never a wait.
"""

from __future__ import annotations

import os
import stat

from kernel_path import resolved

# The kernel's own bound on the links one lookup follows (MAXSYMLINKS).
MAX_HOPS = 40


def _longest_prefix(parts: list[str]) -> tuple[str, int]:
    """The resolved name of the longest prefix of `parts` (an absolute
    path's components, `parts[0]` the root) that resolves, and its length.
    A prefix resolves only if every shorter one does, so a binary search
    finds it in a handful of opens whatever the depth."""
    found = resolved(os.path.join(*parts))
    if found is not None:
        return found, len(parts)
    good, known = 1, "/"  # the root always resolves
    bad = len(parts)
    while bad - good > 1:
        middle = (good + bad) // 2
        here = resolved(os.path.join(*parts[:middle]))
        if here is None:
            bad = middle
        else:
            good, known = middle, here
    return known, good


def real_path(path: str | os.PathLike[str]) -> str:
    """`path` absolute, normalised, with every symlink resolved as far as it
    resolves; what is missing past that is kept as given."""
    current = os.path.abspath(os.fspath(path))
    if "\0" in current:
        return current
    for _ in range(MAX_HOPS):
        parts = ["/", *(p for p in current.split("/") if p)]
        known, length = _longest_prefix(parts)
        rest = parts[length:]
        if not rest:
            return known
        step = os.path.join(known, rest[0])
        try:
            link = stat.S_ISLNK(os.lstat(step).st_mode)
            target = os.readlink(step) if link else None
        except OSError:
            target = None
        if target is None:  # missing, or not a link: nothing more resolves
            return os.path.join(known, *rest)
        current = os.path.normpath(os.path.join(known, target, *rest[1:]))
    return current
