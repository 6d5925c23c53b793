"""Secret files by identity: a file's (device, inode) key, which every
hard link to it shares, its signature (key, mtime, size) that tells when
it changed, and whether an open descriptor is a secret file.
"""

from __future__ import annotations

import os
import stat

from luxe.policy.secret_names import is_secret_path

FileKey = tuple[int, int]  # (st_dev, st_ino): what every hard link of a file shares
FileSignature = tuple[int, int, int, int]  # (st_dev, st_ino, st_mtime_ns, st_size)


def file_key(path: str) -> FileKey | None:
    """The identity of the file `path` names (symlinks followed), or None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def opened_is_secret(fd: int, keys: frozenset[FileKey]) -> bool:
    """Whether the file open on `fd` is a secret file: its identity is one
    of `keys` (a hard link under any name, or a known secret swapped in
    under a name that was checked), or the kernel's name for it (the path
    it was opened by, every link resolved) names a secret (a link swapped
    in to a secret nobody walked: a sibling project's `.env`). A descriptor
    that cannot be judged is a secret."""
    try:
        st = os.fstat(fd)
    except OSError:
        return True
    if (st.st_dev, st.st_ino) in keys:
        return True
    try:
        name = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return False
    return is_secret_path(name)


def file_signature(path: str, *, follow: bool = False) -> FileSignature | None:
    try:
        st = os.stat(path, follow_symlinks=follow)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


def found_signature(path: str) -> FileSignature | None:
    """The signature of a secret file the walk found: its own, or, when it
    is a symlink (`.env -> config/dev.txt`, `.env -> ../shared.env`), its
    target's if that is a regular file: the target holds the values, and
    is the file to refuse by identity. A link to anything else (a device, a
    FIFO) counts for nothing: `.env -> /dev/null` must not make /dev/null a
    secret file."""
    try:
        st = os.stat(path, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):
                return None
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
