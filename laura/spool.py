"""Tail spools: files in Laura's runtime directory that hold piped input.

`CMD | laura tail` copies its stdin into a spool file and opens it as a pane;
the host deletes the spool when that pane or its tab closes. Where spools
live is `laura.client.runtime_dir()`. Only files
Laura itself spooled are ever deleted: a path qualifies when its parent
directory is exactly the runtime directory (not reached through `..`, not a
file opened from elsewhere).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import BinaryIO

COPY_CHUNK = 8192
_UNSAFE = re.compile(r"[^A-Za-z0-9]")


def spool_path(directory: str | os.PathLike[str], title: str | None, pid: int) -> Path:
    """`<dir>/<stem>-<pid>.txt`, the stem being the title (default `tail`)
    with every character but ASCII letters and digits replaced by `-`."""
    stem = _UNSAFE.sub("-", title) if title else "tail"
    return Path(directory) / f"{stem or 'tail'}-{pid}.txt"


def is_spool(path: str | os.PathLike[str], directory: str | os.PathLike[str]) -> bool:
    """True only for a file whose parent is exactly the runtime directory,
    compared without resolving `..` or symlinks in the name given."""
    given = Path(os.path.abspath(os.fspath(path)))
    if ".." in Path(os.fspath(path)).parts:
        return False
    return given.parent == Path(os.path.abspath(directory))


def delete_spool(path: str | os.PathLike[str], directory: str | os.PathLike[str]) -> bool:
    """Delete `path` if it is one of our spools; True when it was removed."""
    if not is_spool(path, directory):
        return False
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


def copy_until_eof(source: BinaryIO, spool: BinaryIO) -> int:
    """Copy `source` into `spool` in 8 KiB reads, flushing each so the pane
    sees lines as they come; returns the bytes copied. Blocks until EOF."""
    total = 0
    while True:
        chunk = source.read1(COPY_CHUNK) if hasattr(source, "read1") else source.read(COPY_CHUNK)
        if not chunk:
            return total
        spool.write(chunk)
        spool.flush()
        total += len(chunk)
