"""Changes of a file against git HEAD: gutter marks, `+a -d` stats and the
hunks the inline diff view shows (laura.render.diff_view).

`git_diff` runs the user's git (async, in its own process group, ended with
process_group.terminate_group on cancel) and is what the host uses;
`git_diff_blocking` is the same for callers outside trio (a `Tab` driven
without a host). The file's name is given to git as a literal pathspec (a
checkout's file named `*` or `:!x` would otherwise be a pattern matching
other files). A file that is untracked, outside a repository, or in a
repository without HEAD has no marks; a missing git binary is reported once
per process (`take_missing_warning`). Git's output is read as it comes and
never past `output_limit` (twice the pane's file cap): a bigger diff ends git
and answers TOO_LARGE, so rewriting a huge tracked file cannot make Laura
hold all of git's output. Its hunks are parsed and kept as columns
(laura.git_hunks) and the marks made from them as runs (laura.render.marks),
a big diff in steps that share the loop (laura.steps); both are pure.
"""

from __future__ import annotations

import itertools
import operator
import os
import selectors
import subprocess
import time
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import trio

import hidden_environ
import program_path
from laura.filecheck import human_size
from laura.git_hunks import Hunks, decoded, hunk_steps
from laura.realpath import real_path
from laura.render.marks import ChangedLines, Marks, RemovedCounts
from laura.steps import Steps, drive, run_steps
from process_group import terminate_group, terminate_group_blocking

MISSING_GIT_WARNING = "diff markers unavailable — install `git` to see changes in the gutter"
NOTHING_TO_DIFF = "no changes vs HEAD — nothing to diff"
DIFF_VIEW_NEEDS_GIT = "diff view unavailable — install `git`"
DIFF_TOO_LARGE = "diff view unavailable — git's diff of this file is over {limit}"

GIT_TIMEOUT = 10.0
# Git's output is read in pieces of this size.
READ_SIZE = 64 * 1024
# Diff output up to this size is parsed at once; more, in steps on the loop.
PARSE_INLINE_LIMIT = 256 * 1024
# Hunks marked in one step (a few milliseconds).
MARK_RUN = 32 * 1024
# A hostless caller (a Tab driven directly) waits for git: never long.
BLOCKING_TIMEOUT = 2.0

HAS_CHANGES = "changes"
NO_CHANGES = "clean"  # clean, untracked, not in a repository, no HEAD
GIT_MISSING = "missing"
TOO_LARGE = "too large"  # git's output passed the limit: no marks, no diff view


@attrs.frozen
class GitDiff:
    """What git said about one file: `state` is HAS_CHANGES, NO_CHANGES,
    GIT_MISSING or TOO_LARGE (then `limit` is the output limit it passed);
    `hunks` are empty unless there are changes."""

    state: str
    hunks: Hunks = attrs.field(factory=Hunks)
    limit: int = 0


def output_limit(file_cap: int) -> int:
    """The most of git's output read for a file pane whose cap is
    `file_cap`: a diff of a file under the cap, every line changed, holds
    the old and the new lines."""
    return 2 * file_cap + READ_SIZE


def marks_from_hunks(hunks: Hunks, line_count: int) -> Marks:
    """Per-line marks: added-only hunks mark ADDED, mixed ones MODIFIED on
    each new line; a pure deletion counts its lines on the line below the
    gap (line_count + 1 when the deletion is at the end)."""
    return run_steps(marks_steps(hunks, line_count))


def marks_steps(hunks: Hunks, line_count: int) -> Steps[Marks]:
    """`marks_from_hunks` as a stepwise job: the changed lines are the
    hunks' own columns; the gaps are gathered a step per MARK_RUN hunks, at
    C speed."""
    gaps: tuple[array[int], array[int]] = (array("q"), array("q"))
    through = hunks.removed_through
    for first in range(0, len(hunks), MARK_RUN):
        yield
        last = min(first + MARK_RUN, len(hunks))
        before = itertools.chain([through[first - 1] if first else 0], through[first : last - 1])
        removed = map(operator.sub, through[first:last], before)
        pure = list(map(operator.not_, hunks.new_counts[first:last]))
        places = itertools.compress(hunks.places[first:last], pure)
        gaps[0].extend(map(min, places, itertools.repeat(line_count + 1)))
        gaps[1].extend(itertools.compress(removed, pure))
    changed = ChangedLines(hunks.places, hunks.new_counts, hunks.removed_through)
    return Marks(changed, RemovedCounts(*gaps), hunks.added, hunks.deleted)


def marks_of(diff: GitDiff, line_count: int) -> Marks:
    return marks_from_hunks(diff.hunks, line_count)


def stats_text(marks: Marks) -> str:
    """`+a -d` for the pane border; empty when nothing changed."""
    if not marks.added and not marks.deleted:
        return ""
    return f"+{marks.added} -{marks.deleted}"


def diff_view_refusal(diff: GitDiff) -> str | None:
    """Why the inline diff view cannot be shown, or None when it can."""
    if diff.state == GIT_MISSING:
        return DIFF_VIEW_NEEDS_GIT
    if diff.state == TOO_LARGE:
        return DIFF_TOO_LARGE.format(limit=human_size(diff.limit))
    if diff.state != HAS_CHANGES:
        return NOTHING_TO_DIFF
    return None


_missing_warned = False


def take_missing_warning() -> str | None:
    """MISSING_GIT_WARNING the first time git was found missing in this
    process, then None: the warning is given once."""
    global _missing_warned
    if _git_missing and not _missing_warned:
        _missing_warned = True
        return MISSING_GIT_WARNING
    return None


_git_missing = False


def _command(path: Path) -> list[str]:
    # No pager, no external diff driver, no colour, whatever the user's config;
    # and never a bare repository found by walking up from the file (one that
    # a checkout planted in a folder: its config's commands would run); and
    # no write of the index after the diff (a file whose times changed but
    # not its content made every open and reload rewrite .git/index, and
    # hold its lock against the person's own `git commit`).
    return [
        "git",
        "-c", "safe.bareRepository=explicit",
        "-c", "diff.autoRefreshIndex=false",
        "-c", "core.pager=cat",
        "-c", "color.ui=never",
        "-c", "core.quotepath=off",
        "-C", str(path.parent),
        "--literal-pathspecs",
        "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0",
        "HEAD", "--", path.name,
    ]  # fmt: skip


def _spawn_options() -> dict[str, Any]:
    """How git is started: its output piped, nothing else, in its own
    process group (so ending it ends what it started)."""
    return {
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.DEVNULL,
        "env": _environment(),
        "start_new_session": True,
    }


def _environment() -> dict[str, str]:
    """Laura's environment without the provider's key (a git is dumpable,
    so any process of the user reads its /proc/<git>/environ while it runs:
    tests/laura/test_git_gets_no_provider_key.py), and with PATH cut to its
    absolute entries (program_path): never the repository's own `./git`."""
    hidden = hidden_environ.credential_variables(os.environ)
    env = {name: value for name, value in program_path.environment().items() if name not in hidden}
    env.update(GIT_PAGER="cat", GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    env.pop("GIT_EXTERNAL_DIFF", None)
    return env


def _outcome(returncode: int, chunks: Sequence[bytes | bytearray]) -> GitDiff:
    if returncode != 0:
        return GitDiff(NO_CHANGES)
    return _answer(run_steps(hunk_steps(decoded(chunks))))


def _answer(hunks: Hunks) -> GitDiff:
    """Git's hunks as an answer: none, or hunks out of git's order (not a
    diff git writes, and not one rows can be placed by), are no changes."""
    if not hunks or not hunks.in_order:
        return GitDiff(NO_CHANGES)
    return GitDiff(HAS_CHANGES, hunks)


def _note_missing() -> GitDiff:
    global _git_missing
    _git_missing = True
    return GitDiff(GIT_MISSING)


def git_diff_blocking(path: str | Path, limit: int, timeout: float = BLOCKING_TIMEOUT) -> GitDiff:
    """`git diff -U0 HEAD -- path`, waited for in the caller's thread (a
    file pane asks on open and reload). Past `timeout`, or past `limit`
    bytes of output, the whole process group (git and anything it started,
    e.g. an fsmonitor hook) is killed and reaped; a timeout counts as no
    changes, too much output as TOO_LARGE."""
    path = Path(real_path(os.fspath(path)))
    try:
        process = subprocess.Popen(_command(path), **_spawn_options())
    except FileNotFoundError:
        return _note_missing()
    except OSError:
        return GitDiff(NO_CHANGES)
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while (left := deadline - time.monotonic()) > 0:
                if not selector.select(left):
                    continue
                chunk = os.read(process.stdout.fileno(), READ_SIZE)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    return GitDiff(TOO_LARGE, limit=limit)
                chunks.append(chunk)
            else:
                return GitDiff(NO_CHANGES)
        process.wait(max(deadline - time.monotonic(), 0.01))
    except subprocess.TimeoutExpired:
        return GitDiff(NO_CHANGES)
    finally:
        terminate_group_blocking(process)
    return _outcome(process.returncode, chunks)


async def git_diff(path: str | Path, limit: int) -> GitDiff:
    """`git diff -U0 HEAD -- path` in its own process group, its output read
    as it comes. On cancel, after GIT_TIMEOUT (no changes) or past `limit`
    bytes of output (TOO_LARGE) the group is terminated and reaped."""
    path = Path(await trio.to_thread.run_sync(real_path, os.fspath(path), abandon_on_cancel=True))
    try:
        process = await trio.lowlevel.open_process(_command(path), **_spawn_options())
    except FileNotFoundError:
        return _note_missing()
    except OSError:
        return GitDiff(NO_CHANGES)
    assert process.stdout is not None
    chunks: list[bytes | bytearray] = []
    size = 0
    try:
        with trio.move_on_after(GIT_TIMEOUT) as waited:
            while chunk := await process.stdout.receive_some(READ_SIZE):
                size += len(chunk)
                if size > limit:
                    return GitDiff(TOO_LARGE, limit=limit)
                chunks.append(chunk)
            returncode = await process.wait()
        if waited.cancelled_caught:
            return GitDiff(NO_CHANGES)
    finally:
        await terminate_group(process)
        await process.stdout.aclose()
    if returncode != 0 or size <= PARSE_INLINE_LIMIT:
        return _outcome(returncode, chunks)
    # Git is done; its big output is parsed in steps that share the loop
    # (however long that takes: it is the time git's answer is kept to).
    return _answer(await drive(hunk_steps(decoded(chunks))))
