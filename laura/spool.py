"""Tail spools: files in Laura's runtime directory that hold piped input.

`CMD | laura tail` copies its stdin into a spool file and opens it as a pane;
the host deletes the spool when that pane or its tab closes. Only files
Laura itself spooled are ever deleted: a path qualifies when its parent
directory is exactly the runtime directory (not reached through `..`, not a
file opened from elsewhere).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO

import private_files

COPY_CHUNK = 8192
_UNSAFE = re.compile(r"[^A-Za-z0-9]")


def _usable_dir(path: Path, base: Path, refused: Callable[[str], None] | None) -> bool:
    """`path` made or found private to the user (private_files: 0700, the
    user's own, not another user's link); a refusal is told to `refused`."""
    try:
        private_files.make_dir(path, base)
    except private_files.NotPrivate as error:
        if refused is not None:
            refused(error.strerror or str(error))
        return False
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


def runtime_dir(
    env: Mapping[str, str] | None = None, refused: Callable[[str], None] | None = None
) -> Path:
    """Where spools live: `$LAURA_RUNTIME` if it is absolute, its last
    component is `laura` and it is usable; else `$XDG_RUNTIME_DIR/laura`;
    else `~/.laura/runtime/laura`. Created on the way, 0700. A `laura`
    directory another user made first (`XDG_RUNTIME_DIR=/tmp` makes it
    `/tmp/laura`), or another user's link there, is passed over, and why is
    told to `refused`."""
    env = os.environ if env is None else env
    chosen = env.get("LAURA_RUNTIME", "")
    if chosen:
        path = Path(chosen)
        if path.is_absolute() and path.name == "laura" and _usable_dir(path, path.parent, refused):
            return path
    xdg = env.get("XDG_RUNTIME_DIR", "")
    if xdg and Path(xdg).is_absolute() and _usable_dir(Path(xdg) / "laura", Path(xdg), refused):
        return Path(xdg) / "laura"
    home = private_files.home(env)
    fallback = home / ".laura" / "runtime" / "laura"
    _usable_dir(fallback, home, refused)
    return fallback


def create_spool(path: Path) -> BinaryIO:
    """A new spool file at `path`, 0600, created exclusively: whatever was at
    the name (a leftover, a link) is never written through."""
    flags = os.O_WRONLY | os.O_EXCL
    try:
        fd = private_files.open_file(path, flags, path.parent.parent)
    except FileExistsError:
        # A spool a crashed tail left under a pid used again: the directory
        # is the user's alone (0700), so the name is theirs to reuse; unlink
        # removes a link itself, never what it names.
        os.unlink(path)
        fd = private_files.open_file(path, flags, path.parent.parent)
    return os.fdopen(fd, "wb")


def spool_path(directory: Path, title: str | None, pid: int) -> Path:
    """`<dir>/<stem>-<pid>.txt`, the stem being the title (default `tail`)
    with every character but ASCII letters and digits replaced by `-`."""
    stem = _UNSAFE.sub("-", title) if title else "tail"
    return directory / f"{stem or 'tail'}-{pid}.txt"


def is_spool(path: str | os.PathLike[str], directory: Path) -> bool:
    """True only for a file whose parent is exactly the runtime directory,
    compared without resolving `..` or symlinks in the name given."""
    given = Path(os.path.abspath(os.fspath(path)))
    if ".." in Path(os.fspath(path)).parts:
        return False
    return given.parent == Path(os.path.abspath(directory))


def delete_spool(path: str | os.PathLike[str], directory: Path) -> bool:
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
