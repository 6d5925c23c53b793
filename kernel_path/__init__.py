"""Which file a path names, asked of the kernel: the one way Luxe and Laura
resolve a path a repository controls.

`os.path.realpath` and `Path.resolve` walk a path in Python, a recursion
per symlink and no bound on the links: a chain of 1,000 links raised
RecursionError, and a chain of long links cost a second per call. The
kernel follows at most 40 links within PATH_MAX bytes: the path is opened
with `O_PATH` (which reads nothing and never blocks: a FIFO or a device is
not opened for I/O) and the descriptor's name read back from /proc.
`resolved` is that one step; each program builds its own answer for a path
that does not resolve on top of it (luxe.real_path, laura.realpath).
Imports nothing of either program; a pure blocking function, two system
calls, never a wait.
"""

from __future__ import annotations

import os


def resolved(path: str) -> str | None:
    """The kernel's name for what `path` names, or None (missing, a loop,
    too long, a NUL, a component not a directory, no permission)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    finally:
        os.close(fd)
