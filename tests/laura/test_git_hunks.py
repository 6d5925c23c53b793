"""Git's hunks of a file, parsed by runs and kept as columns: the same hunks
a plain line-by-line reading gives, however git's output is cut into
reads; a file's name is never a pattern matching other files; and a diff
of a big file with every line changed costs about its size, not 70 times
it (the real `laura`, in tmux, read from /proc)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from laura.filecheck import DEFAULT_MAX_FILE_BYTES
from laura.git_hunks import Hunk, Hunks, hunk_steps, parse_hunks
from laura.gitmarks import (
    HAS_CHANGES,
    NO_CHANGES,
    NOTHING_TO_DIFF,
    diff_view_refusal,
    git_diff,
    git_diff_blocking,
    marks_of,
    output_limit,
)
from laura.render.marks import ADDED, MODIFIED
from laura.steps import run_steps
from tests.laura.git_helpers import committed, git, isolate_environment
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]
MB = 1 << 20
LIMIT = output_limit(DEFAULT_MAX_FILE_BYTES)


@pytest.fixture(autouse=True)
def private_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_environment(tmp_path, monkeypatch)


def read_line_by_line(text: str) -> list[Hunk]:
    """How a diff reads line by line: a header starts a hunk; after one,
    `-` lines are its removed lines; every other line is passed over."""
    hunks: list[Hunk] = []
    for line in text.split("\n"):
        if line.startswith("@@ -") and " @@" in line:
            new = line.split(" ")[2][1:].split(",")
            hunks.append(Hunk(int(new[0]), 1 if len(new) == 1 else int(new[1]), ()))
        elif hunks and line.startswith("-"):
            last = hunks[-1]
            hunks[-1] = Hunk(last.new_start, last.new_count, (*last.removed, line[1:]))
    return hunks


def random_diff(rng: random.Random) -> str:
    lines = ["diff --git a/x b/x", "index 1..2 100644", "--- a/x", "+++ b/x"]
    for _ in range(rng.randrange(0, 10)):
        removed, added = rng.randrange(0, 4), rng.randrange(0, 4)
        lines.append(f"@@ -{rng.randrange(1, 99)},{removed} +{rng.randrange(0, 99)},{added} @@ def f():")
        # Lines that look like headers, file headers or notes, and long ones.
        texts = ["", "-x", "+y", "@@ -1 +1 @@", "--- a/x", "a\tb", "\\ no", "é" * rng.randrange(0, 3000)]
        lines += ["-" + rng.choice(texts) for _ in range(removed)]
        if rng.random() < 0.3:
            lines.append("\\ No newline at end of file")
        lines += ["+" + rng.choice(texts) for _ in range(added)]
        if rng.random() < 0.2:
            lines.append(rng.choice(["\\ No newline at end of file", "", " context", "@@ not a header"]))
    return "\n".join(lines) + rng.choice(["\n", ""])


@pytest.mark.parametrize("seed", range(8))
def test_hunks_read_by_runs_are_the_hunks_read_line_by_line(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        text = random_diff(rng)
        expected = read_line_by_line(text)
        assert list(parse_hunks(text)) == expected
        # Cut anywhere, as git's output is read.
        cuts = sorted(rng.sample(range(len(text) + 1), k=min(len(text) + 1, rng.randrange(0, 12))))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        parsed = run_steps(hunk_steps(pieces))
        assert parsed == expected
        assert parsed.deleted == sum(len(hunk.removed) for hunk in expected)
        assert parsed.added == sum(hunk.new_count for hunk in expected)
        assert Hunks.of(expected) == parsed


def test_a_line_longer_than_a_read_is_one_removed_line() -> None:
    line = "x" * (3 * MB + 7)
    text = f"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{line}\n+y\n"
    pieces = [text[at : at + 65536] for at in range(0, len(text), 65536)]
    (hunk,) = run_steps(hunk_steps(pieces))
    assert hunk.removed == (line,) and hunk.new_count == 1


@pytest.mark.parametrize("name", ["*", "*.txt", "?.txt", "[ab].txt", ":!b.txt", ":(glob)**"])
def test_a_files_name_is_never_a_pattern_matching_other_files(tmp_path: Path, name: str) -> None:
    # A checkout's file whose name is a pathspec pattern or magic: its marks
    # are its own changes, never those of the files the pattern matches.
    path = committed(tmp_path, name, "one\ntwo\n")
    for other in ("a.txt", "b.txt"):
        (path.parent / other).write_text("alpha\nbeta\n")
        git(path.parent, "add", other)
    git(path.parent, "commit", "-q", "-m", "others")
    for other in ("a.txt", "b.txt"):
        (path.parent / other).write_text("ALPHA\nbeta\nGAMMA\n")
    path.write_text("one\nTWO\n")
    diff = git_diff_blocking(path, LIMIT)
    assert diff.state == HAS_CHANGES
    assert list(diff.hunks) == [Hunk(2, 1, ("two",))]
    marks = marks_of(diff, 2)
    assert dict(marks.changed) == {2: MODIFIED} and (marks.added, marks.deleted) == (1, 1)


def test_marks_of_many_hunks_are_runs_read_as_lines(tmp_path: Path) -> None:
    lines = [f"line {n}" for n in range(1, 2001)]
    path = committed(tmp_path, "f.txt", "\n".join(lines) + "\n")
    edited = [line.upper() if n % 3 == 0 else line for n, line in enumerate(lines) if n % 7 != 5]
    edited[:0] = ["new first"]
    path.write_text("\n".join(edited) + "\n")
    diff = git_diff_blocking(path, LIMIT)
    marks = marks_of(diff, len(edited))
    expected_changed: dict[int, str] = {}
    expected_removed: dict[int, int] = {}
    for hunk in diff.hunks:
        if hunk.new_count == 0:
            below = min(hunk.new_start + 1, len(edited) + 1)
            expected_removed[below] = expected_removed.get(below, 0) + len(hunk.removed)
        for line in range(hunk.new_start, hunk.new_start + hunk.new_count):
            expected_changed[line] = MODIFIED if hunk.removed else ADDED
    assert dict(marks.changed) == expected_changed and len(marks.changed) == len(expected_changed)
    assert dict(marks.removed) == expected_removed
    assert all(marks.changed.get(n) == expected_changed.get(n) for n in range(-1, len(edited) + 3))
    assert list(marks.gap_lines(len(edited))) == sorted(expected_removed)


EDITS = {
    "every line changed": lambda n, line: "x" + line,
    "every other line deleted": lambda n, line: "" if n % 2 else line,
    "a line added after every line": lambda n, line: line + "+\n",
}


@pytest.mark.tmux
@pytest.mark.parametrize("edit", list(EDITS))
def test_a_big_files_changes_cost_about_its_size(laura_session: Make, tmp_path: Path, edit: str) -> None:
    """8 MB of short lines, tracked, then edited throughout (a million
    hunks): opening it shows its marks (git's diff read and kept) and its
    diff view to the end. A diff kept as hunk objects, tuples of lines and
    a mark per line took 70 times the file."""
    lines = [f"{n:06x}\n" for n in range(8 * MB // 7)]
    path = committed(tmp_path, "short.txt", "".join(lines) + "LAST\n")
    size = path.stat().st_size
    path.write_text("".join(EDITS[edit](n, line) for n, line in enumerate(lines)) + "LAST\n")
    session = laura_session(command=["cat"])
    before = session.resident_bytes()
    opened = session.cli("open", str(path))
    assert opened.returncode == 0, opened.stderr
    added, deleted = git(path.parent, "diff", "--numstat").split()[:2]
    session.wait_for(f"+{added} -{deleted}", timeout=120)
    session.send_keys("d")
    session.wait_for("[diff]", timeout=60)
    session.send_keys("End")
    session.wait_for(lambda screen: "LAST" in screen and "reaching" not in screen, timeout=120)
    # Resident memory after the work holds what malloc kept of its peaks as
    # well as what Laura keeps: 4 to 8.25 times the file over many runs
    # (once 66 MB in CI). Twice the worst seen still catches the old keeping
    # (70 times) with room to spare.
    grown = session.resident_bytes() - before
    assert grown < 16 * size, f"{grown / MB:.0f} MB for a {size / MB:.0f} MB file and its changes"


# Output no git writes: a hunk above the one before it, one over the lines
# of the one before, two deletions at one place, and a change at line 0.
DISORDERED = {
    "a hunk above the one before": "@@ -5 +5 @@\n-five\n+FIVE\n@@ -2 +2 @@\n-two\n+TWO\n",
    "a hunk over the one before": "@@ -2,3 +2,3 @@\n-a\n-b\n-c\n+A\n+B\n+C\n@@ -3 +3 @@\n-x\n+X\n",
    "two deletions at one place": "@@ -2 +1,0 @@\n-two\n@@ -3 +1,0 @@\n-three\n",
    "a change at line 0": "@@ -1 +0,1 @@\n-one\n+ONE\n",
}


@pytest.mark.parametrize("spelling", list(DISORDERED))
def test_hunks_out_of_git_order_are_no_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    # A `git` on PATH that answers with them: the file shows no marks and
    # the diff view has nothing to show, by either way of asking.
    assert not parse_hunks(DISORDERED[spelling]).in_order
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "output").write_text("--- a/f.txt\n+++ b/f.txt\n" + DISORDERED[spelling])
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\ncat {bin_dir / 'output'}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    path = tmp_path / "f.txt"
    path.write_text("".join(f"{n}\n" for n in range(1, 9)))
    for diff in (git_diff_blocking(path, LIMIT), trio.run(git_diff, path, LIMIT)):
        assert diff.state == NO_CHANGES and not diff.hunks
        assert marks_of(diff, 8).empty and diff_view_refusal(diff) == NOTHING_TO_DIFF
