"""A name in a repository that is one file and another by turns, as fast
as a thread can swap them: what a hostile repository (a process of its, a
build it started) can do between any look at a path and the open.

    with swapping_names(repo, os.mkfifo) as path:    # "swap/racy.md"
        ...  # a regular file (TEXT) and a FIFO by turns

The directory `swap` and another (`.other`) trade places, one atomic
renameat2(RENAME_EXCHANGE) each, until the block ends. `hard_link_to_env`,
`link_to_env` and `link_to_a_siblings_env` plant a secret file (ENV, in the
repository's .env or a sibling project's) as the other name;
`folder_holding_a_link_to_env` and `link_to_a_folder_holding_a_link_to_env`
plant a folder (or a symlink to one) holding a hard link to the .env under a
plain name.
"""

from __future__ import annotations

import ctypes
import os
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


# A .env's text: what a test writes as the repository's (or a sibling's) secret file.
ENV = "# ENV FILE MARKER\nAPI_KEY=sk-live-Zr81Qw7Tn3\n"


def hard_link_to_env(at: Path) -> None:
    """`at` (in the other directory) a hard link to the repository's .env."""
    os.link(at.parent.parent / ".env", at)


def link_to_env(at: Path) -> None:
    """`at` a symlink to the repository's .env."""
    at.symlink_to("../.env")


def link_to_a_siblings_env(at: Path) -> None:
    """`at` a symlink to a sibling project's .env, which no walk of this
    repository finds."""
    sibling = at.parent.parent.parent / "sibling"
    sibling.mkdir()
    (sibling / ".env").write_text(ENV)
    at.symlink_to(sibling / ".env")


def folder_holding_a_link_to_env(at: Path) -> None:
    """`at` a folder holding `notes.md`, a hard link to the repository's
    .env: a search walking the swapped name finds `racy.md/notes.md`."""
    at.mkdir()
    os.link(at.parent.parent / ".env", at / "notes.md")


def link_to_a_folder_holding_a_link_to_env(at: Path) -> None:
    """`at` a symlink to a sibling folder holding `notes.md`, a hard link
    to the repository's .env: a search given the swapped name as its path
    follows the link (a walk from above never does)."""
    vault = at.parent.parent.parent / "vault"
    vault.mkdir()
    os.link(at.parent.parent / ".env", vault / "notes.md")
    at.symlink_to(vault)
