"""Files only the user may read: the one way Luxe and Laura create and open
what holds a person's conversation, prompts, logs, journals and spools.

Whatever the umask (022 and 002 are common, 000 happens), a directory made
here is 0700 and a file 0600, and one an older version left looser is
tightened when it is next used. Below the base (an XDG directory, `$HOME`,
`$XDG_RUNTIME_DIR`: the person's own choice, used as given and only created
if missing), each directory is walked one `openat` at a time with
`O_NOFOLLOW`, so nothing another local user planted is written through:

- a directory or file another user owns is refused (`NotPrivate`, whose
  message names the path and both uids): a `/tmp/laura` made first by
  someone else, a session file pre-created for the person to fill;
- a symbolic link is followed only when the person owns it (as the kernel's
  `fs.protected_symlinks` does in `/tmp`); another user's link, to a file,
  a directory or nowhere, is refused without touching where it points;
- a file that is not a regular file (a FIFO, a device) is refused without
  blocking.

`own_folder` is the stricter check for a folder Luxe writes in beside or
inside a repository (`<repo>.worktrees`): there, the person's own link may
be one an unpacked archive planted, so no link is followed at all.

Imports nothing of either program; blocking calls, a few system calls each.
"""

from __future__ import annotations

import errno
import fcntl
import os
import pwd
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

DIR_MODE = 0o700
FILE_MODE = 0o600

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_FILE_FLAGS = os.O_CREAT | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK


def home(env: Mapping[str, str]) -> Path:
    """The user's home, below which the XDG defaults are: `$HOME` if it is
    absolute, else (unset, empty, relative) the password database's. A
    relative `$HOME` would put the files in whatever folder the program
    started in, a repository more often than not."""
    value = env.get("HOME", "")
    return Path(value if os.path.isabs(value) else pwd.getpwuid(os.geteuid()).pw_dir)


class NotPrivate(OSError):
    """A path that cannot be kept private to the user; the message says why."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


def _refuse_foreign(st: os.stat_result, path: Path, what: str = "") -> None:
    me = os.geteuid()
    if st.st_uid != me:
        raise NotPrivate(
            errno.EPERM,
            f"{path}{what} belongs to uid {st.st_uid}, not to you (uid {me}); "
            "nothing is kept there",
        )


def _open_link(parent: int, name: str, path: Path, flags: int, mode: int = 0) -> int:
    """`name` in `parent` is a symbolic link (or not what was asked for):
    follow it only if the person owns the link."""
    try:
        st = os.lstat(name, dir_fd=parent)
    except FileNotFoundError:
        raise NotPrivate(errno.ENOENT, f"{path} vanished while it was opened") from None
    if not stat.S_ISLNK(st.st_mode):
        raise NotPrivate(errno.ENOTDIR, f"{path} is not a directory")
    _refuse_foreign(st, path, " is a symbolic link that")
    return os.open(name, flags, mode, dir_fd=parent)


def _tighten(fd: int, path: Path, mode: int, kind: str) -> None:
    st = os.fstat(fd)
    wanted = stat.S_ISDIR if kind == "directory" else stat.S_ISREG
    if not wanted(st.st_mode):
        raise NotPrivate(errno.EINVAL, f"{path} is not a {kind}")
    _refuse_foreign(st, path)
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.fchmod(fd, stat.S_IMODE(st.st_mode) & ~0o077 | mode)


def _base(base: Path) -> int:
    """Open `base`, creating it and any missing parent 0700 (XDG's rule for
    a base directory it creates)."""
    try:
        return os.open(base, _DIR_FLAGS)
    except FileNotFoundError:
        pass
    missing = [base]
    while not missing[-1].parent.exists() and missing[-1].parent != missing[-1]:
        missing.append(missing[-1].parent)
    for path in reversed(missing):
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            pass
    return os.open(base, _DIR_FLAGS)


def _child_dir(parent: int, name: str, path: Path) -> int:
    try:
        os.mkdir(name, DIR_MODE, dir_fd=parent)
    except FileExistsError:
        pass
    try:
        fd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        fd = _open_link(parent, name, path, _DIR_FLAGS)
    try:
        _tighten(fd, path, DIR_MODE, "directory")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _parts(path: Path, base: Path) -> tuple[str, ...]:
    parts = path.relative_to(base).parts
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{path} does not name a place below {base}")
    return parts


def open_dir(path: Path, base: Path) -> int:
    """A descriptor of directory `path` (made 0700 if missing, tightened to
    owner-only if looser), every directory between `base` and it checked as
    the module says. The caller closes it."""
    parts = _parts(path, base)
    fd = _base(base)
    try:
        for index, name in enumerate(parts):
            child = _child_dir(fd, name, base.joinpath(*parts[: index + 1]))
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_dir(path: Path, base: Path) -> None:
    """`open_dir` for its checks alone."""
    os.close(open_dir(path, base))


def open_file(path: Path, flags: int, base: Path) -> int:
    """A descriptor of file `path` opened with `flags` (`os.O_CREAT` is
    added: created 0600; an existing one looser is tightened), its directory
    made by `open_dir`. With `os.O_EXCL` a link of any owner is refused;
    `os.O_TRUNC` truncates only once the file is known to be the user's."""
    truncate = bool(flags & os.O_TRUNC)
    flags &= ~os.O_TRUNC
    directory = open_dir(path.parent, base)
    try:
        try:
            fd = os.open(path.name, flags | _FILE_FLAGS | os.O_NOFOLLOW, FILE_MODE, dir_fd=directory)
        except OSError as error:
            if error.errno != errno.ELOOP:
                raise
            fd = _open_link(directory, path.name, path, flags | _FILE_FLAGS, FILE_MODE)
    finally:
        os.close(directory)
    try:
        _tighten(fd, path, FILE_MODE, "regular file")
        # Regular now: blocking writes, as the callers expect.
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        if truncate:
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_append(path: Path, base: Path, *, encoding: str = "utf-8") -> TextIO:
    """`open_file` for appending text, as a line-buffered file object."""
    fd = open_file(path, os.O_WRONLY | os.O_APPEND, base)
    return os.fdopen(fd, "a", encoding=encoding, buffering=1)


def own_folder(path: Path) -> None:
    """Make folder `path` if missing (its mode from the umask: it holds
    work, not secrets), then refuse it (`NotPrivate`) unless it is a folder
    itself, not a symbolic link of anyone's, the user's, and not writable by
    other users, who could swap what is made in it."""
    try:
        os.mkdir(path)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise NotPrivate(errno.ELOOP, f"{path} is a symbolic link; nothing is made through one")
    if not stat.S_ISDIR(st.st_mode):
        raise NotPrivate(errno.ENOTDIR, f"{path} is not a directory")
    _refuse_foreign(st, path)
    if stat.S_IMODE(st.st_mode) & 0o022:
        raise NotPrivate(
            errno.EPERM,
            f"{path} can be written by other users (mode {stat.S_IMODE(st.st_mode):04o}); "
            "nothing is made in it",
        )
