"""The parser against real git output: applying the parsed hunks to the old
text gives the new text, whatever the edit."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.review.diffparse import parse_diff

LINES = st.lists(st.sampled_from(["a", "b", "c", "", "def f():", "    pass", "x = 1"]), max_size=30)


def git_diff(old: list[str], new: list[str]) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        a, b = Path(scratch, "a.txt"), Path(scratch, "b.txt")
        a.write_text("".join(line + "\n" for line in old))
        b.write_text("".join(line + "\n" for line in new))
        result = subprocess.run(
            ["git", "diff", "--no-index", "--no-color", "--no-ext-diff", "-U3", "a.txt", "b.txt"],
            cwd=scratch, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode in (0, 1), result.stderr
        return result.stdout


def apply(old: list[str], text: str) -> list[str]:
    parsed = parse_diff(text)
    out: list[str] = []
    cursor = 1  # next old line to copy
    for hunk in parsed.hunks:
        for line in hunk.lines:
            if line.old_line is not None:
                assert line.old_line >= cursor
                out.extend(old[cursor - 1 : line.old_line - 1])
                cursor = line.old_line
                assert old[line.old_line - 1] == line.text  # the old side is the old file
                cursor += 1
            if line.new_line is not None:
                assert line.new_line == len(out) + 1  # new line numbers count the new file
                out.append(line.text)
    out.extend(old[cursor - 1 :])
    return out


@settings(max_examples=40, deadline=None)
@given(LINES, LINES)
def test_parsed_hunks_rebuild_the_new_text(old: list[str], new: list[str]) -> None:
    text = git_diff(old, new)
    if old == new:
        assert text == ""
        return
    assert apply(old, text) == new
    (file,) = parse_diff(text).files
    assert file.path == "b.txt" and file.old_path == "a.txt"  # --no-index: a rename
