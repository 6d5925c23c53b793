"""A name in a repository that is one file and another by turns, as fast
as a thread can swap them: what a hostile repository (a process of its, a
build it started) can do between any look at a path and the open.

    with swapping_names(repo, os.mkfifo) as path:    # "swap/racy.md"
        ...  # a regular file (TEXT) and a FIFO by turns

The directory `swap` and another (`.other`) trade places, one atomic
renameat2(RENAME_EXCHANGE) each, until the block ends.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_RENAME_EXCHANGE = 2  # renameat2(2): swap two names atomically
_AT_FDCWD = -100


@contextmanager
def swapping_names(repo: Path, plant_other: Callable[[Path], None]) -> Iterator[str]:
    """`swap/racy.md` in `repo`, a regular file and what `plant_other`
    puts at `racy.md` in another directory, by turns: the directory `swap`
    and the other trade places (one atomic renameat2 each), as fast as a
    thread can, until the block ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    (repo / "swap").mkdir()
    (repo / "swap" / "racy.md").write_text("TEXT\n")
    (repo / ".other").mkdir()
    plant_other(repo / ".other" / "racy.md")
    here, there = bytes(repo / "swap"), bytes(repo / ".other")
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            if libc.renameat2(_AT_FDCWD, here, _AT_FDCWD, there, _RENAME_EXCHANGE) != 0:
                raise OSError(ctypes.get_errno(), "renameat2")

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        yield "swap/racy.md"
    finally:
        stop.set()
        thread.join(timeout=10)
