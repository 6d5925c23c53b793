"""Noticing that a file pane's file changed on disk, by a cheap stat poll.

The stdlib has no inotify, so a pane polls: `FileWatch.poll()` stats the
file and compares inode, size, mtime_ns and ctime_ns with what it saw last.
A rewrite of the same size inside one timestamp tick leaves all four equal,
so while the file's mtime is "racy" (close enough to now that another write
could share the tick, git's rule) the content's digest is compared too.
A pane polls on a timer and also right before answering a request, so a
request that arrives right after an edit sees the new content. Hashing a
file of megabytes takes 5-20 ms, every poll for two seconds after each
write, so the host hashes the files a poll is about to hash first
(`digest_ahead`), a 256 KiB read per step between keys, and the poll only
compares. (It was hashed in a worker thread: while the loop was busy and
entered the kernel between steps, that thread waited for the interpreter
lock for seconds, and so did every request waiting for the hash. A thread
asks for the lock only after 5 ms without any switch, and the loop took it
back within microseconds of each system call.)
"""

from __future__ import annotations

import hashlib
import os
import time

import attrs

from laura.filecheck import open_regular
from laura.steps import Steps, drive, run_steps

# Writes this close together may share an mtime on coarse file systems.
RACY_SECONDS = 2.0
# Bigger files are trusted to their stat: hashing them on every poll while
# they are being written (a growing log) would cost more than it could catch.
DIGEST_LIMIT = 4 * 1024 * 1024
# What one step of hashing reads (about 0.3 ms with the hash).
DIGEST_STEP = 256 * 1024


@attrs.frozen
class Stamp:
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int


def stamp_of(path: str) -> Stamp | None:
    """The file's stamp, or None when it cannot be stat'ed (gone, no access)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Stamp(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def digest_of(path: str, size: int = 0) -> bytes | None:
    """A digest of the file's content; None when it is too big to hash on
    every poll (over DIGEST_LIMIT), is not a regular file or cannot be read."""
    return run_steps(digest_steps(path, size))


def digest_steps(path: str, size: int = 0) -> Steps[bytes | None]:
    """`digest_of`, a DIGEST_STEP read per step."""
    if size > DIGEST_LIMIT:
        return None
    try:  # only ever a regular file: opening a FIFO would block the loop
        fd = open_regular(path)
    except OSError:
        return None
    try:
        hasher = hashlib.sha256()
        read = 0
        while chunk := os.read(fd, DIGEST_STEP):
            read += len(chunk)
            if read > DIGEST_LIMIT:  # it grew meanwhile
                return None
            hasher.update(chunk)
            yield
        return hasher.digest()
    except OSError:
        return None
    finally:
        os.close(fd)


class FileWatch:
    """Remembers what one file looked like when last (re)loaded.

    Owns no task and no file handle: `poll` does its work inline, using a
    digest `digest_ahead` made for the same stamp when there is one.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.stamp = stamp_of(path)
        self.digest = digest_of(path, self.stamp.size) if self.stamp is not None else None
        self._ahead: tuple[Stamp, bytes | None] | None = None  # a digest made ahead of the poll

    def forget(self) -> None:
        """Forget what the file looked like: the next poll reports a change
        (a reload that could not be shown is asked for again)."""
        self.stamp = self.digest = None
        self._ahead = None

    def poll(self, now_ns: int | None = None) -> bool:
        """True when the file changed since the last poll (or construction):
        content, existence or identity. A touch that changes nothing else is
        not a change."""
        stamp = stamp_of(self.path)
        if stamp is None or self.stamp is None:
            changed = stamp != self.stamp
            self.stamp = stamp
            self.digest = None if stamp is None else self._digest(stamp)
            return changed
        if stamp == self.stamp and not _racy(stamp, now_ns):
            return False
        if stamp.inode != self.stamp.inode or stamp.size != self.stamp.size:
            self.stamp = stamp
            self.digest = self._digest(stamp)
            return True
        if stamp.size > DIGEST_LIMIT:  # same size, other times: trust the stat
            self.stamp = stamp
            return True
        digest = self._digest(stamp)
        self.stamp = stamp
        changed = digest != self.digest
        self.digest = digest
        return changed

    def digest_due(self, now_ns: int | None = None) -> Stamp | None:
        """The stamp of the content the next poll would hash (None: it
        would hash nothing)."""
        stamp = stamp_of(self.path)
        if stamp is None or stamp.size > DIGEST_LIMIT:
            return None
        if self.stamp is None or stamp != self.stamp or _racy(stamp, now_ns):
            return stamp
        return None

    def hashed_ahead(self, stamp: Stamp, digest: bytes | None) -> None:
        """The content the next poll would hash, hashed (`digest_ahead`)."""
        self._ahead = (stamp, digest)

    def _digest(self, stamp: Stamp) -> bytes | None:
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] == stamp:
            return ahead[1]
        return digest_of(self.path, stamp.size)


def _racy(stamp: Stamp, now_ns: int | None) -> bool:
    """Whether another write could still share the file's mtime tick."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    return now_ns - stamp.mtime_ns < RACY_SECONDS * 1e9 and stamp.size <= DIGEST_LIMIT


async def digest_ahead(watches: list[FileWatch]) -> None:
    """Hash the files whose next poll would hash them, in steps between
    keys, so that the poll only compares.

    Cancellation: cancelled at a step's rest; the file is closed."""
    for watch in watches:
        stamp = watch.digest_due()
        if stamp is not None:
            watch.hashed_ahead(stamp, await drive(digest_steps(watch.path, stamp.size)))
