"""Finding the project's secret files by walking it: bounded, symlinks
not followed, named secrets looked for inside skipped directories (and
the directories outside the project its symlinks lead to) too, every
other file listed by inode number so hard links to a secret are found.
An unchanged directory's listing is kept from one walk to the next.
"""

from __future__ import annotations

import os
import time

from luxe.policy.secret_names import is_secret_path
from luxe.real_path import real_path
from luxe.record import record

# Directories the walk for hard links skips (big, and not the project's own
# files). Secret files *named* as such are still looked for inside them,
# with a budget of their own.
SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache"})
MAX_WALK_ENTRIES = 50_000
MAX_SKIPPED_WALK_ENTRIES = 200_000


@record
class _Listing:
    """What one directory holds, for the walk: its subdirectories to enter,
    the skipped directories in it, its symlinks to directories, its files
    named as secrets, and every other regular file with its inode number."""

    entries: int
    subdirs: list[str]
    skipped: list[str]
    linked: list[str]
    named: list[str]
    files: list[tuple[int, str]]


@record
class _Kept:
    """A directory's listing, valid while the directory is the same inode
    with the same ctime. An entry added, removed or renamed changes it, and
    unlike the mtime no one but the clock sets it: `touch -d` to put a
    directory's mtime back after hiding a hard link in it moves the ctime."""

    ino: int
    ctime_ns: int
    listing: _Listing


# Listings are kept only for directories last changed this long before they
# were listed: a change in the same clock tick as the listing would leave
# the ctime as it was (filesystem clocks tick in milliseconds).
RACY_NS = 2_000_000_000

# The kept listings of the last walk, by directory (only the walk of the
# project itself keeps them; a skipped directory has SkippedCache).
Listings = dict[str, _Kept]


def _list(
    directory: str,
    skip: frozenset[str],
    with_files: bool,
    previous: Listings | None,
    kept: Listings | None,
) -> _Listing | None:
    """`directory`'s listing (other files only `with_files`): the one kept
    from the last walk while the directory is unchanged, else read now (and
    kept for the next walk unless it changed too recently to tell a later
    change apart)."""
    st = None
    if kept is not None:
        try:
            st = os.stat(directory, follow_symlinks=False)
        except OSError:
            return None
        old = previous.get(directory) if previous is not None else None
        if old is not None and old.ino == st.st_ino and old.ctime_ns == st.st_ctime_ns:
            kept[directory] = old
            return old.listing
    listed_at = time.time_ns()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return None
    listing = _Listing(len(entries), [], [], [], [], [])
    for entry in entries:
        try:
            if entry.is_symlink():
                if entry.is_dir():
                    listing.linked.append(entry.path)
                elif is_secret_path(entry.path) and entry.is_file():
                    listing.named.append(entry.path)  # its values are its target's
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in skip:
                    listing.subdirs.append(entry.path)
                elif entry.name != ".git":
                    listing.skipped.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                if is_secret_path(entry.path):
                    listing.named.append(entry.path)
                elif with_files:
                    listing.files.append((entry.inode(), entry.path))
        except OSError:
            continue
    if kept is not None and st is not None and st.st_ctime_ns < listed_at - RACY_NS:
        kept[directory] = _Kept(st.st_ino, st.st_ctime_ns, listing)
    return listing


def _scan(
    root: str,
    budget: int,
    named: list[str],
    by_inode: dict[int, list[str]] | None,
    skip: frozenset[str] = SKIPPED_DIRS,
    listings: tuple[Listings, Listings] | None = None,
) -> tuple[list[str], list[str], int]:
    """Walk `root` (symlinks not followed, directories named in `skip` not
    entered) for secret files by name, and with `by_inode` every other
    regular file by inode number (free from `scandir` on Linux). Returns the
    skipped directories met (`.git` aside), the symlinks to directories met,
    and how many entries it saw.
    With `listings` (the last walk's, and an empty dict for this one's), an
    unchanged directory is not read again (see _list)."""
    previous, kept = listings if listings is not None else (None, None)
    skipped: list[str] = []
    linked: list[str] = []
    stack, seen = [root], 0
    while stack and seen <= budget:
        listing = _list(stack.pop(), skip, by_inode is not None, previous, kept)
        if listing is None:
            continue
        seen += listing.entries
        stack += listing.subdirs
        skipped += listing.skipped
        linked += listing.linked
        named += listing.named
        if by_inode is not None:
            for ino, path in listing.files:
                by_inode.setdefault(ino, []).append(path)
    return skipped, linked, seen


def _outside(links: list[str], root: str) -> list[str]:
    """The real directories `links` lead to that lie outside `root`: a link
    out of the project (`vend -> ../other`, `up -> ..`) puts the person's
    other secret files within a tool's reach, so they are walked like a
    skipped directory (symlinks in them are not followed)."""
    inside = real_path(root).rstrip("/") + "/"
    out = []
    for link in links:
        target = real_path(link)  # a chain of links raised RecursionError
        if not (target + "/").startswith(inside):
            out.append(target)
    return out


# A skipped directory's walk, kept while the directory's own mtime stays:
# path -> (mtime_ns, the secret files found under it).
SkippedCache = dict[str, tuple[int, list[str]]]


def walk_project(
    root: str,
    cache: SkippedCache | None = None,
    *,
    deep: bool = True,
    listings: tuple[Listings, Listings] | None = None,
) -> tuple[list[str], dict[int, list[str]]]:
    """Secret files by name (also inside `node_modules` and the other
    skipped directories, and in the directories outside the project its
    symlinks lead to: walked again only when their own entries changed,
    as `npm install` changes them), and every other regular file outside
    those by inode number, so hard links to a secret are found without a
    `stat` each."""
    cache = {} if cache is None else cache
    named: list[str] = []
    by_inode: dict[int, list[str]] = {}
    skipped, linked, _ = _scan(root, MAX_WALK_ENTRIES, named, by_inode, listings=listings)
    skipped += _outside(linked, root)
    if not deep:
        skipped = []
    budget = MAX_SKIPPED_WALK_ENTRIES
    for directory in dict.fromkeys(skipped):
        try:
            mtime = os.stat(directory).st_mtime_ns
        except OSError:
            continue
        cached = cache.get(directory)
        if cached is not None and cached[0] == mtime:
            named += cached[1]
            continue
        if budget <= 0:
            break
        inner: list[str] = []
        # Inside, everything is walked (nested node_modules too) but `.git`.
        _, _, seen = _scan(directory, budget, inner, None, skip=frozenset({".git"}))
        budget -= seen
        cache[directory] = (mtime, inner)
        named += inner
    return named, by_inode
