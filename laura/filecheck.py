"""What a file pane may read: only a regular file, and only so much of it.

A path an agent names can be a FIFO (opening it blocks until a writer
comes), a character device (`/dev/zero` never ends), a socket or a
directory. `refusal` names what is not a regular file from a `stat`, which
never blocks; `open_regular` then opens with O_NONBLOCK and checks the open
descriptor again (the path may have been swapped in between), so nothing is
ever read from anything but a regular file. `read_capped` reads at most a
cap (the `max_file_bytes` setting) and says how big the file really was.

Pure blocking functions with no state; callers run them off the UI loop
when the file is big (see laura/panes/source.py).
"""

from __future__ import annotations

import mmap
import os
import stat

import attrs

READ_CHUNK = 1 << 20
# What a pane reads of one file unless settings say otherwise.
DEFAULT_MAX_FILE_BYTES = 64 << 20

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


class NotRegularFile(OSError):
    """The path names something other than a regular file; str() says what."""


def kind_refusal(mode: int) -> str | None:
    """`is a FIFO`, `is a character device`, …; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in _KINDS:
        if test(mode):
            return f"is {name}"
    return "is not a regular file"


def refusal(path: str) -> str | None:
    """Why `path` cannot be shown judging by its stat (following symlinks),
    or None when it is a regular file (or cannot be stat'ed: the read says why)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return kind_refusal(mode)


def open_regular(path: str) -> int:
    """A read-only descriptor on `path`, only if it is a regular file.
    Never blocks (O_NONBLOCK), never makes a terminal ours (O_NOCTTY).
    Raises NotRegularFile naming the type, or the OSError of the open."""
    reason = refusal(path)
    if reason is not None:
        raise NotRegularFile(reason)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        reason = kind_refusal(os.fstat(fd).st_mode)
        if reason is not None:
            raise NotRegularFile(reason)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


# Past this a file is read into an anonymous mapping rather than joined from
# chunks: zero-filling or joining a big buffer holds the interpreter.
MAPPED_FROM = 8 << 20


@attrs.frozen
class Capped:
    """The first `length` bytes of a file of `size` bytes, in `buffer`."""

    buffer: bytes | mmap.mmap
    length: int
    size: int

    @property
    def truncated(self) -> bool:
        return self.size > self.length

    @property
    def data(self) -> bytes:
        """The bytes read (a copy when mapped: meant for small files)."""
        if isinstance(self.buffer, bytes):
            return self.buffer
        return self.buffer[: self.length]

    def view(self) -> memoryview:
        return memoryview(self.buffer)[: self.length]


def read_capped(path: str, cap: int) -> Capped:
    """At most `cap` bytes of the regular file `path`; raises like
    `open_regular`. A big file is read in 1 MiB chunks straight into an
    anonymous mapping (its pages are zeroed by the kernel as the read
    touches them, with the interpreter free), never joined in memory."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if min(size, cap) < MAPPED_FROM:
            return _read_chunks(fd, size, cap)
        buffer = mmap.mmap(-1, min(size, cap))
        with memoryview(buffer) as view:
            total = 0
            while total < len(buffer):
                count = os.readv(fd, [view[total : total + READ_CHUNK]])
                if not count:
                    break
                total += count
        if total >= cap and os.read(fd, 1):
            size = max(size, total + 1)
        return Capped(buffer, total, max(size, total))
    finally:
        os.close(fd)


def _read_chunks(fd: int, size: int, cap: int) -> Capped:
    chunks: list[bytes] = []
    total = 0
    while total < cap:
        chunk = os.read(fd, min(READ_CHUNK, cap - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total >= cap and os.read(fd, 1):
        size = max(size, total + 1)
    return Capped(b"".join(chunks), total, max(size, total))


def human_size(count: int) -> str:
    """`64 MiB`, `1.5 GiB`, `900 B`."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} B"
