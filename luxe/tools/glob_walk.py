"""The glob tool's walk: the files under a directory whose relative path
matches a pattern such as `**/*.py` or `src/*.ts`, found without following
a symlinked directory, and never more than a cap of them.

Why not `Path.glob`: its `*` follows a symlink to a directory, so a
repository holding `a/l0 -> .` … `a/l9 -> .` made `a/*/*/*/*/*/*/f` match a
million paths (500 MB, 21 s; each further `*` ten times that), and its walk
only looked at a stop flag when something matched. Here a directory is
entered only when the pattern could still match below it, the stop flag is
read at every directory, and the walk ends at MAX_MATCHES. Both the walk and
the matching keep their own stack (no recursion), so a checkout 1,500
directories deep is walked too (Path.glob raised RecursionError).

Pattern syntax: `/`-separated segments; `**` is any number of directories
(none too); in a segment `*`, `?` and `[…]` as in fnmatch, never crossing a
`/`. Leading segments without wildcards (`src/`, `../lib/`) name where the
walk starts. Pure but for the walk (os.scandir); runs in a worker thread.
"""

from __future__ import annotations

import fnmatch
import os
import threading
from pathlib import Path

MAX_MATCHES = 100_000
_WILDCARDS = frozenset("*?[")

# The segments still to match after some path: a set of indices into the
# pattern's segments (len(segments): all matched).
States = frozenset[int]


def glob_files(
    cwd: Path, pattern: str, stop: threading.Event, skip: frozenset[str]
) -> tuple[list[Path], bool]:
    """Files under `cwd` matching `pattern`, sorted by path (directories
    named in `skip` are not entered), and whether the walk stopped at
    MAX_MATCHES."""
    segments = [s for s in pattern.split("/") if s and s != "."]
    start = 0
    while start < len(segments) - 1 and not _WILDCARDS.intersection(segments[start]):
        start += 1
    base = os.path.normpath(cwd.joinpath(*segments[:start]))
    rest = tuple(segments[start:])
    found: list[Path] = []
    stack = [(base, _closure(frozenset({0}), rest))]
    while stack:
        if stop.is_set():
            break
        directory, states = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            after = _step(states, entry.name, rest)
            if not after:
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                if is_dir and entry.name not in skip and any(j < len(rest) for j in after):
                    stack.append((entry.path, after))
                elif not is_dir and len(rest) in after and entry.is_file():
                    found.append(Path(entry.path))
            except OSError:
                continue
            if len(found) >= MAX_MATCHES:
                return found, True
    return found, False


def _closure(states: States, segments: tuple[str, ...]) -> States:
    """`states` plus every state past a `**` (it may match no directory)."""
    out = set(states)
    for j in sorted(states):
        while j < len(segments) and segments[j] == "**":
            j += 1
            out.add(j)
    return frozenset(out)


def _step(states: States, name: str, segments: tuple[str, ...]) -> States:
    """The states after one more path component, `name`."""
    after = set()
    for j in states:
        if j < len(segments):
            if segments[j] == "**":
                after.add(j)  # one more directory under the `**`
            elif fnmatch.fnmatchcase(name, segments[j]):
                after.add(j + 1)
    return _closure(frozenset(after), segments)
