"""`@path` completion: the project's files, listed off the event loop and
kept a while, and the ones a query's characters match in order.

A listing is git's (tracked and untracked files, not ignored; bounded in
time and bytes), else a bounded walk in a worker thread. Neither stops the
loop drawing (a checkout of 100,000 files takes some 150 ms to list), and a
listing is kept for FRESH_S, so Tab after Tab does not list again. Every file can be found: the
match runs over the whole list, first in one regular expression (C) over
all of it, then scored in Python for the few that match.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from pathlib import Path

import trio

from luxe.git_read import git_read, whole_lines

FRESH_S = 10.0  # a listing this old is listed again at the next completion
MOST_FILES = 500_000  # of git's list; a walk stops at WALK_MOST
LISTING_CAP = 64 * MOST_FILES  # bytes of git's list read at most
LIST_TIMEOUT_S = 5.0
WALK_MOST = 5000
SHOWN = 50


async def project_files(cwd: Path) -> list[str]:
    """Files of the project: git's list (tracked and untracked, not ignored;
    bounded in time and output, luxe.git_read), else a bounded walk in a
    worker thread."""
    try:
        done = await git_read(
            "ls-files", "-co", "--exclude-standard", "-z",
            cwd=cwd, timeout_s=LIST_TIMEOUT_S, stdout_cap=LISTING_CAP,
        )  # fmt: skip
    except OSError:
        done = None
    if done is not None and (done.returncode == 0 or done.truncated):
        return [name for name in whole_lines(done, "\0")[:MOST_FILES] if name]
    return await trio.to_thread.run_sync(walked, cwd)


def walked(cwd: Path) -> list[str]:
    """The first WALK_MOST files under `cwd`, hidden folders left out (blocking)."""
    from luxe.tools.paths import walk_files

    files = walk_files(cwd, lambda name: not name.startswith("."))
    return [os.path.relpath(path, cwd) for path in itertools.islice(files, WALK_MOST)]


class ProjectFiles:
    """The project's files for completion, listed at most every FRESH_S."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._files: list[str] = []
        self._joined = ""  # see `joined`
        self._listed_at: float | None = None

    async def matching(self, query: str) -> list[str]:
        """The best SHOWN files for `query` (see `fuzzy`)."""
        now = time.monotonic()
        if self._listed_at is None or now - self._listed_at > FRESH_S:
            self._files = await project_files(self.cwd)
            self._joined = joined(self._files)
            self._listed_at = time.monotonic()
        return fuzzy(query, self._files, self._joined)


def joined(names: list[str]) -> str:
    """`names` as one string, each between NULs (no file name holds one)."""
    return "\0" + "\0".join(names) + "\0"


def fuzzy(query: str, candidates: list[str], all_joined: str | None = None) -> list[str]:
    """Candidates holding `query`'s characters in order, case ignored; those
    holding it whole first (earlier, then shorter), then the shorter.
    `all_joined` is `joined(candidates)`, if at hand."""
    if not query:
        return sorted(candidates, key=len)[:SHOWN]
    if all_joined is None:
        all_joined = joined(candidates)
    # A name holding the characters in order, found by the regex engine in
    # one pass, not a Python loop over every file. Each step takes the first
    # occurrence of its character and never gives it back (a possessive run
    # of anything else), so a name built to make it backtrack (a file a
    # repository may ship, `aaaa…`) costs no more than its length.
    steps = "".join(f"[^\0{re.escape(ch)}]*+{re.escape(ch)}" for ch in query)
    pattern = re.compile(f"(?<=\0){steps}[^\0]*+", re.IGNORECASE)
    q = query.lower()
    scored = []
    for found in pattern.finditer(all_joined):
        name = found.group()
        at = name.lower().find(q)
        scored.append((0, at, len(name), name) if at >= 0 else (1, 0, len(name), name))
    return [name for *_, name in sorted(scored)[:SHOWN]]
