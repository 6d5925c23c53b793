"""Open or read a file only if it is a regular file, without ever blocking.

A path a repository or a tool call controls may name a FIFO (an open for
reading waits for a writer forever), a character device (`/dev/zero` never
ends), a socket, a directory or a symlink to one of those; and what it
names may change between any look at the path and the open. So a file is
opened once, non-blocking (a FIFO's open cannot wait either), close-on-exec
and never as a controlling terminal, and the descriptor opened is the one
checked (fstat) and the one read: no look at the path lets anything
through. A look before the open only spares opening what is plainly not a
file (a device's open may act: a tape rewinds, a watchdog arms).

`open_regular_to_write` is the same for a file about to be written (the
`write` tool): never truncated or written before it is checked.
`open_regular_to_edit` opens an existing file once for reading and writing
(the `edit` tool): what it reads and what it then writes are the same file
by construction, however the name changes in between.

`read_text_file` is what reads the small text files a person or a
repository configures Luxe with (settings, rules and hooks files, custom
commands): capped, decoded, and a clause saying why one was not read.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO, Literal

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_EDIT_FLAGS = os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_Mode = Literal["rb", "wb", "r+b"]


class NotRegularFile(OSError):
    """A directory, FIFO, socket or device where a file was expected."""


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> BinaryIO:
    """`path` open for reading, if it is a regular file. Symlinks are
    followed; with `follow=False` a symlink as the last component is refused
    (ELOOP). Raises NotRegularFile, FileNotFoundError or another OSError."""
    return _open_checked(path, _FLAGS, "rb", follow=follow, look=True)


def open_regular_to_write(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` open for writing, created if missing (mode 0666 less the
    umask), if it is a regular file; nothing in it is changed yet (the
    caller truncates once it has judged the file). The open never waits: a
    FIFO swapped in is refused (ENXIO with no reader, NotRegularFile with
    one), where a plain open for writing waited for a reader for good."""
    return _open_checked(path, _WRITE_FLAGS, "wb", follow=True, look=False)


def open_regular_to_edit(path: str | os.PathLike[str]) -> BinaryIO:
    """The existing regular file `path` open for reading and writing
    (symlinks followed, as open_regular does), positioned at its start;
    nothing in it is changed yet. The caller judges the descriptor, reads
    it, then truncates and writes through it: a name swapped after the open
    cannot send the result into another file. Never created; raises
    NotRegularFile, FileNotFoundError or another OSError (EACCES for a file
    it may read but not write)."""
    return _open_checked(path, _EDIT_FLAGS, "r+b", follow=True, look=True)


def _open_checked(
    path: str | os.PathLike[str], flags: int, mode: _Mode, *, follow: bool, look: bool
) -> BinaryIO:
    """The one open all of the above share: `path` opened once with `flags`
    (non-blocking, no controlling terminal, close-on-exec; O_NOFOLLOW unless
    `follow`), refused unless the descriptor (fstat) is a regular file, then
    made blocking and wrapped as `mode`. With `look`, a stat first spares
    opening what is plainly not a file (a device's open may act)."""
    if look:
        try:
            looked = os.stat(path, follow_symlinks=follow)
        except OSError:
            looked = None  # the open says why, or finds a file there after all
        if looked is not None and not stat.S_ISREG(looked.st_mode) and not stat.S_ISLNK(looked.st_mode):
            raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
    fd = os.open(path, flags if follow else flags | os.O_NOFOLLOW, 0o666)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
        if mode != "rb":
            os.set_blocking(fd, True)
        return os.fdopen(fd, mode)
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: str | os.PathLike[str], cap: int, *, follow: bool = True) -> tuple[bytes, bool]:
    """Up to `cap` bytes of the regular file `path` and whether there was
    more (see open_regular for `follow` and what it raises)."""
    with open_regular(path, follow=follow) as f:
        data = f.read(cap + 1)
    return data[:cap], len(data) > cap


def read_regular(path: str | os.PathLike[str], cap: int) -> tuple[bytes, bool] | None:
    """Up to `cap` bytes of `path` and whether there was more, or None when
    it is missing, unreadable or not a regular file (symlinks followed)."""
    try:
        return read_capped(path, cap)
    except (OSError, ValueError):
        return None


class UnreadableFile(Exception):
    """Why a small text file (a settings file, a custom command) was not
    read, as a clause to follow its path: `not a regular file`, ..."""


def read_text_file(
    path: str | os.PathLike[str], cap: int, *, errors: str = "strict"
) -> str | None:
    """The UTF-8 text of the regular file `path` (symlinks followed), or None
    when there is none. Raises UnreadableFile when it is not a regular file
    (a FIFO, a device, a socket, a directory), holds more than `cap` bytes,
    cannot be read, or (with `errors="strict"`) is not UTF-8."""
    try:
        data, more = read_capped(path, cap)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise UnreadableFile("not a regular file (a FIFO, a device, a socket or a directory)") from None
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UnreadableFile(f"cannot be read: {why}") from None
    if more:
        size = f"{cap >> 20} MiB" if cap >= 1 << 20 else f"{cap >> 10} KiB"
        raise UnreadableFile(f"larger than {size}") from None
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"not UTF-8 text (byte {exc.start})") from None
