"""Git change marks and the inline diff view, against real repositories."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
import trio

from laura import gitmarks
from laura.filecheck import DEFAULT_MAX_FILE_BYTES
from laura.git_hunks import decoded, hunk_steps, parse_hunks
from laura.gitmarks import (
    DIFF_VIEW_NEEDS_GIT,
    GIT_MISSING,
    HAS_CHANGES,
    MISSING_GIT_WARNING,
    NO_CHANGES,
    NOTHING_TO_DIFF,
    diff_view_refusal,
    git_diff,
    git_diff_blocking,
    marks_of,
    output_limit,
    stats_text,
)
from laura.render import theme
from laura.render.code import source_lines
from laura.render.diff_view import DiffView
from laura.render.document import Document
from laura.render.marks import ADDED, MODIFIED
from laura.render.style import Row
from laura.steps import run_steps
from tests.laura.git_helpers import committed, git, isolate_environment
from tests.laura.render_helpers import picture, text, wait_until
from tests.laura.tmux import wait_until as wait_until_sync

LIMIT = output_limit(DEFAULT_MAX_FILE_BYTES)


@pytest.fixture(autouse=True)
def quiet_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_environment(tmp_path, monkeypatch)


def numbered(count: int) -> list[str]:
    return [f"line {n}" for n in range(1, count + 1)]


def test_modify_delete_and_insert_give_modified_removed_and_added(tmp_path: Path) -> None:
    path = committed(tmp_path, "ten.txt", "\n".join(numbered(10)) + "\n")
    lines = numbered(10)
    lines[1] = "line 2 changed"
    del lines[4]
    lines.insert(7, "inserted")
    path.write_text("\n".join(lines) + "\n")
    diff = git_diff_blocking(path, LIMIT)
    assert diff.state == HAS_CHANGES
    marks = marks_of(diff, len(lines))
    assert marks.changed == {2: MODIFIED, 8: ADDED}
    assert marks.removed == {5: 1}
    assert stats_text(marks) == "+2 -2"
    rows = Document("ten.txt", path.read_text()).view(40, marks).window(0, 20)
    assert picture(rows)[:7] == [
        "  1 |line 1",
        "  2~|line 2 changed",
        "  3 |line 3",
        "  4 |line 4",
        "    |── 1 line removed ──────────────────────",
        "  5-|line 6",
        "  6 |line 7",
    ]


def test_markers_follow_the_file_after_another_edit(tmp_path: Path) -> None:
    path = committed(tmp_path, "a.py", "a = 1\nb = 2\n")
    assert git_diff_blocking(path, LIMIT).state == NO_CHANGES
    path.write_text("a = 1\nb = 3\nc = 4\n")
    marks = marks_of(git_diff_blocking(path, LIMIT), 3)
    assert marks.changed == {2: MODIFIED, 3: MODIFIED}
    path.write_text("a = 1\nb = 2\nc = 4\n")
    marks = marks_of(git_diff_blocking(path, LIMIT), 3)
    assert marks.changed == {3: ADDED}


def test_deletion_at_the_end_and_the_start(tmp_path: Path) -> None:
    path = committed(tmp_path, "f.txt", "\n".join(numbered(5)) + "\n")
    path.write_text("\n".join(numbered(5)[1:3]) + "\n")
    marks = marks_of(git_diff_blocking(path, LIMIT), 2)
    assert marks.removed == {1: 1, 3: 2}
    assert marks.changed == {}


def test_untracked_clean_outside_a_repo_have_no_marks_and_refuse_the_diff_view(
    tmp_path: Path,
) -> None:
    tracked = committed(tmp_path, "clean.md", "# hi\n")
    untracked = tracked.parent / "new.md"
    untracked.write_text("# new\n")
    outside = tmp_path / "loose.md"
    outside.write_text("# loose\n")
    for path in (tracked, untracked, outside):
        diff = git_diff_blocking(path, LIMIT)
        assert diff.state == NO_CHANGES, path
        assert marks_of(diff, 1).empty
        assert diff_view_refusal(diff) == NOTHING_TO_DIFF


def test_repository_without_commits_has_no_marks(tmp_path: Path) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("x\n")
    git(repo, "add", "a.txt")
    assert git_diff_blocking(repo / "a.txt", LIMIT).state == NO_CHANGES


def test_user_pager_and_external_diff_settings_are_ignored(tmp_path: Path) -> None:
    path = committed(tmp_path, "a.txt", "one\ntwo\n")
    git(path.parent, "config", "core.pager", "false")
    git(path.parent, "config", "diff.external", "false")
    git(path.parent, "config", "color.diff", "always")
    path.write_text("one\nTWO\n")
    diff = git_diff_blocking(path, LIMIT)
    assert diff.state == HAS_CHANGES
    assert marks_of(diff, 2).changed == {2: MODIFIED}


def test_a_missing_git_binary_gives_no_marks_and_warns_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    diff = git_diff_blocking(path, LIMIT)
    assert diff.state == GIT_MISSING
    assert marks_of(diff, 1).empty
    assert diff_view_refusal(diff) == DIFF_VIEW_NEEDS_GIT
    assert gitmarks.take_missing_warning() == MISSING_GIT_WARNING
    assert gitmarks.take_missing_warning() is None
    assert git_diff_blocking(path, LIMIT).state == GIT_MISSING
    assert gitmarks.take_missing_warning() is None


def test_the_diff_view_interleaves_removed_lines_and_keeps_new_line_numbers(
    tmp_path: Path,
) -> None:
    path = committed(tmp_path, "six.txt", "\n".join(numbered(6)) + "\n")
    lines = numbered(6)
    lines[1] = "line 2 CHANGED"
    del lines[3]
    path.write_text("\n".join(lines) + "\n")
    diff = git_diff_blocking(path, LIMIT)
    assert diff_view_refusal(diff) is None
    current = source_lines(path.read_text())
    view = DiffView(current, diff.hunks, 40)
    rows = view.window(0, 20)
    assert picture(rows) == [
        "  1 | line 1",
        "    |-line 2",
        "  2 |+line 2 CHANGED",
        "  3 | line 3",
        "    |-line 4",
        "  4 | line 5",
        "  5 | line 6",
    ]
    assert rows[1].spans[0].style == theme.DIFF_REMOVED
    assert rows[2].spans[0].style == theme.DIFF_ADDED
    assert [text(view[i]) for i in view.rows_meeting(2, 3)] == ["+line 2 CHANGED", " line 3"]


def test_the_diff_view_of_markdown_shows_raw_lines_not_the_reflow(tmp_path: Path) -> None:
    path = committed(tmp_path, "doc.md", "alpha\nbeta\n\n# Tail\n")
    path.write_text("alpha\nbeta CHANGED\n\n# Tail\n")
    diff = git_diff_blocking(path, LIMIT)
    current = source_lines(path.read_text())
    shown = [text(row) for row in DiffView(current, diff.hunks, 40)]
    assert "-beta" in shown and "+beta CHANGED" in shown
    assert not any("alpha beta" in line for line in shown)


def test_deletions_at_the_end_come_after_the_last_line() -> None:
    hunks = parse_hunks("@@ -3,2 +2,0 @@\n-three\n-four\n")
    shown = [text(row) for row in DiffView(["one", "two"], hunks, 40)]
    assert shown == [" one", " two", "-three", "-four"]


@pytest.mark.parametrize("seed", range(6))
def test_the_diff_view_reads_as_the_old_file_and_as_the_new_one(tmp_path: Path, seed: int) -> None:
    # Random edits (changes, insertions and deletions, at the start and the
    # end too) diffed by the real git: the rows without `+` are the old file,
    # the rows without `-` the new one, and each new line keeps its number.
    rng = random.Random(seed)
    old = numbered(rng.randrange(1, 80))
    path = committed(tmp_path, f"f{seed}.txt", "\n".join(old) + "\n")
    new = list(old)
    for _ in range(rng.randrange(1, 12)):
        at = rng.randrange(len(new) + 1)
        edit = rng.choice(["change", "insert", "delete"])
        if edit == "insert" or not new:
            new[at:at] = [f"new {rng.random():.6f}" for _ in range(rng.randrange(1, 4))]
        elif edit == "change":
            new[min(at, len(new) - 1)] += " CHANGED"
        else:
            del new[at : at + rng.randrange(1, 4)]
    path.write_text("".join(line + "\n" for line in new))
    diff = git_diff_blocking(path, LIMIT)
    rows = list(DiffView(new, diff.hunks, 40))
    shown = [text_of(row) for row in rows]
    assert [line[1:] for line in shown if not line.startswith("+")] == old
    assert [line[1:] for line in shown if not line.startswith("-")] == new
    assert [row.source for row in rows if row.source is not None] == [(n, n) for n in range(1, len(new) + 1)]


def text_of(row: Row) -> str:
    return "".join(span.text for span in row.spans)


async def test_async_git_diff_matches_the_blocking_one(tmp_path: Path) -> None:
    path = committed(tmp_path, "a.txt", "one\n")
    path.write_text("one\ntwo\n")
    diff = await git_diff(path, LIMIT)
    assert diff == git_diff_blocking(path, LIMIT)
    assert marks_of(diff, 2).changed == {2: ADDED}


def slow_hook(tmp_path: Path, marker: str) -> Path:
    """An fsmonitor hook that hangs in a child process; both the hook and
    its child carry `marker` in their command lines."""
    sleeper = tmp_path / f"{marker}-sleep"
    sleeper.symlink_to(shutil.which("sleep") or "/bin/sleep")
    hook = tmp_path / marker
    hook.write_text(f"#!/bin/sh\n'{sleeper}' 30\n")
    hook.chmod(0o755)
    return hook


def _alive(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def test_cancelling_a_slow_git_leaves_no_process_behind(tmp_path: Path) -> None:
    path = committed(tmp_path, "a.txt", "one\n")
    marker = f"slow-fsmonitor-{os.getpid()}-{tmp_path.name}"
    hook = slow_hook(tmp_path, marker)
    git(path.parent, "config", "core.fsmonitor", str(hook))
    path.write_text("two\n")
    with trio.move_on_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(git_diff, path, LIMIT)
            await wait_until(lambda: bool(_alive(marker)))
            nursery.cancel_scope.cancel()
    await wait_until(lambda: not _alive(marker))


def test_a_slow_git_in_the_ui_thread_times_out_and_leaves_nothing_behind(tmp_path: Path) -> None:
    path = committed(tmp_path, "a.txt", "one\n")
    marker = f"slow-hook-{os.getpid()}-{tmp_path.name}"
    hook = slow_hook(tmp_path, marker)
    git(path.parent, "config", "core.fsmonitor", str(hook))
    path.write_text("two\n")
    assert git_diff_blocking(path, LIMIT, timeout=0.5).state == NO_CHANGES
    wait_until_sync(lambda: not _alive(marker), 5)


def test_a_big_diff_is_parsed_in_steps_and_gives_what_the_one_shot_parse_gives(
    tmp_path: Path,
) -> None:
    lines = [f"line {n} with some words in it" for n in range(1, 30_001)]
    path = committed(tmp_path, "big.txt", "\n".join(lines) + "\n")
    for n in range(0, len(lines), 3):
        lines[n] = lines[n].upper()
    path.write_text("\n".join(lines) + "\n")
    stepped = trio.run(gitmarks.git_diff, path, LIMIT)
    assert stepped == git_diff_blocking(path, LIMIT)
    assert len(stepped.hunks) == 10_000
    marks = marks_of(stepped, len(lines))
    assert (marks.added, marks.deleted) == (10_000, 10_000)
    assert trio.run(gitmarks.drive, gitmarks.marks_steps(stepped.hunks, len(lines))) == marks


@pytest.mark.parametrize("seed", range(4))
def test_a_big_diff_decoded_and_parsed_chunk_by_chunk_is_the_diff_decoded_and_parsed_whole(seed: int) -> None:
    # Multi-byte characters and bytes that are not UTF-8, cut anywhere by
    # the reads: the same lines, the same U+FFFD, as decoding it all at once.
    rng = random.Random(seed)
    pieces = [b"+", b"-", b"@@ -1 +1 @@", b"\n", b"a", "\u00e9".encode(), "\u754c".encode(), b"\xff", b"\xe7\x95"]
    data = b"".join(rng.choice(pieces) for _ in range(5_000))
    cuts = sorted(rng.sample(range(1, len(data)), 200))
    chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    assert "".join(decoded(chunks)) == data.decode("utf-8", errors="replace")
    assert run_steps(hunk_steps(decoded(chunks))) == parse_hunks(data.decode("utf-8", errors="replace"))
    assert "".join(decoded([])) == ""


def _git_processes_in(repo: Path) -> list[int]:
    """git processes whose working directory is `repo` (ours: the test's)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if (
                os.readlink(f"/proc/{pid}/cwd") == str(repo)
                and "git" in Path(f"/proc/{pid}/comm").read_text()
            ):
                found.append(int(pid))
        except OSError:
            continue
    return found


HUGE_DIFFS = {
    # every line rewritten
    "rewritten": (lambda n: f"line {n}\n", lambda n: f"LINE {n} changed\n"),
    # one enormous line changed
    "one long line": (
        lambda n: "x" * 400_000 + "\n" if n == 0 else "",
        lambda n: "y" * 400_000 + "\n" if n == 0 else "",
    ),
    # a short file with a great deal appended
    "appended": (
        lambda n: "start\n" if n == 0 else "",
        lambda n: "start\n" if n == 0 else f"added {n}\n",
    ),
}


@pytest.mark.parametrize("shape", HUGE_DIFFS)
def test_git_output_past_the_limit_is_never_held(tmp_path: Path, shape: str) -> None:
    before, after = HUGE_DIFFS[shape]
    path = committed(tmp_path, "big.txt", "".join(before(n) for n in range(40_000)))
    path.write_text("".join(after(n) for n in range(40_000)))
    limit = 64 * 1024
    for diff in (git_diff_blocking(path, limit), trio.run(git_diff, path, limit)):
        assert (diff.state, diff.hunks, diff.limit) == (gitmarks.TOO_LARGE, (), limit)
        assert (
            diff_view_refusal(diff)
            == "diff view unavailable — git's diff of this file is over 64 KiB"
        )
        assert stats_text(marks_of(diff, 40_000)) == ""
    wait_until_sync(lambda: not _git_processes_in(path.parent), 5)
    # Under a limit it fits, the same file has its changes.
    assert git_diff_blocking(path, LIMIT).state == HAS_CHANGES
    assert trio.run(git_diff, path, LIMIT).state == HAS_CHANGES


@pytest.mark.parametrize("name", ["--output=x.txt", "-p", "--no-index"])
def test_the_limit_holds_for_option_looking_names(tmp_path: Path, name: str) -> None:
    before, after = HUGE_DIFFS["rewritten"]
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    path = repo / name
    path.write_text("".join(before(n) for n in range(40_000)))
    git(repo, "add", "--", name)
    git(repo, "commit", "-q", "-m", "start")
    path.write_text("".join(after(n) for n in range(40_000)))
    for diff in (git_diff_blocking(path, 64 * 1024), trio.run(git_diff, path, 64 * 1024)):
        assert diff.state == gitmarks.TOO_LARGE
    assert git_diff_blocking(path, LIMIT).state == HAS_CHANGES
    assert not (path.parent / "x.txt").exists()
