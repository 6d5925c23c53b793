"""A path's real name, resolved by the kernel at a bounded cost.

`os.path.realpath` walks a path in Python, an `lstat` per component and a
recursion per symlink, with no limit on either: a chain of 400 symlinks of
1,600 components each (a repository can hold one) took a second per call,
on the UI loop, and an `open` resolves every open pane's path to find a
duplicate; a chain of 1,000 links raised RecursionError. The kernel follows
at most 40 links within PATH_MAX bytes, so the path is opened with `O_PATH`
(which reads nothing and never blocks: a FIFO or a device is not opened for
I/O) and the open descriptor's name read back from /proc (kernel_path,
shared with Luxe). A path that does
not resolve (missing, a loop, too long) is its parent's real name and its
own last part, or, failing that, its normalised self.

A pure blocking function with no state: two system calls, never a wait.
"""

from __future__ import annotations

import os

from kernel_path import resolved


def real_path(path: str) -> str:
    """`path` absolute with every symlink resolved, as the kernel sees it."""
    path = os.path.abspath(path)
    found = resolved(path)
    if found is not None:
        return found
    parent, name = os.path.split(path)
    found = resolved(parent)
    return os.path.join(found, name) if found is not None else path
