"""Open or read a file only if it is a regular file, without ever blocking.

A path a repository or a tool call controls may name a FIFO (an open for
reading waits for a writer forever), a character device (`/dev/zero` never
ends) or a symlink to one of those. Checked twice: before the open, and on
the open descriptor (opened non-blocking, so a FIFO swapped in between
cannot hold the open either)."""

from __future__ import annotations

import os
import stat
from typing import BinaryIO


class NotRegularFile(OSError):
    """A directory, FIFO, socket or device where a file was expected."""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` open for reading (symlinks followed). Raises NotRegularFile,
    FileNotFoundError or another OSError."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], cap: int) -> tuple[bytes, bool] | None:
    """Up to `cap` bytes of `path` and whether there was more, or None when
    it is missing, unreadable or not a regular file (symlinks followed)."""
    try:
        with open_regular(path) as f:
            data = f.read(cap + 1)
    except (OSError, ValueError):
        return None
    return data[:cap], len(data) > cap
