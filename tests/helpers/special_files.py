"""What a repository (or a broken setup) can put where Luxe reads a small
text file (a settings, rules or hooks file, a custom command): a FIFO (an
open waits for a writer for good), a link to /dev/zero (a read never ends),
a sparse terabyte, a directory.

    plant(path, "fifo")                  # path's parent is created
    NOT_REGULAR                          # what Luxe says of the first, second and last
"""

from __future__ import annotations

import os
from pathlib import Path

SPELLINGS = ("fifo", "dev_zero", "huge", "directory")
NOT_REGULAR = "not a regular file (a FIFO, a device, a socket or a directory)"


def plant(path: Path, spelling: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if spelling == "fifo":
        os.mkfifo(path)
    elif spelling == "dev_zero":
        path.symlink_to("/dev/zero")
    elif spelling == "huge":
        with path.open("wb") as f:
            f.write(b"# a start that looks right\n")
            f.truncate(1 << 40)  # sparse: no disk
    elif spelling == "directory":
        path.mkdir()
    else:
        raise ValueError(spelling)


def said(spelling: str, cap: str) -> str:
    """What Luxe says of a planted `spelling` where it reads at most `cap`
    (as Luxe writes it: `64 KiB`, `1 MiB`)."""
    return f"larger than {cap}" if spelling == "huge" else NOT_REGULAR
