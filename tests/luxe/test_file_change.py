"""The diffs Luxe shows for a write or an edit (permission previews,
file_changed): exactly difflib's for ordinary changes; for texts built to
make difflib's quadratic matching take seconds, one hunk in linear time
that still applies (checked with the real `git apply`)."""

from __future__ import annotations

import difflib
import random
import re
import subprocess
from pathlib import Path

import pytest

from luxe.engine import file_change
from luxe.engine.file_change import DIFF_MAX_BYTES, unified


def applied(tmp_path: Path, old: str, diff: str) -> str:
    """`old` with `diff` applied by git."""
    target = tmp_path / "f"
    target.write_text(old)
    done = subprocess.run(
        ["git", "apply", "--unidiff-zero", "-p1", "-"], input=diff.encode(), cwd=tmp_path,
        capture_output=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, (done.stderr, diff)
    return target.read_text()


def random_text(rng: random.Random, pieces: list[str], most: int) -> str:
    text = "".join(rng.choice(pieces) for _ in range(rng.randrange(most)))
    return text.rstrip("\n") if text and rng.random() < 0.3 else text


def test_ordinary_changes_are_difflibs_diff() -> None:
    rng = random.Random(7)
    for _ in range(300):
        old = random_text(rng, ["a\n", "b\n", "c c\n", "\n"], 30)
        new = random_text(rng, ["a\n", "b\n", "d\n", "\n"], 30)
        expected = "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in difflib.unified_diff(
                re.findall(r"[^\n]*\n|[^\n]+", old), re.findall(r"[^\n]*\n|[^\n]+", new), "a/f", "b/f"
            )
        )
        assert unified("f", old, new) == expected


def test_only_a_newline_ends_a_line() -> None:
    """A form feed or a lone carriage return stays inside its line, as git
    and `read` count lines; only a real last line without `\\n` is marked."""
    old = "a\x0c\nb\rc\nend"
    new = "a\x0c\nB\rc\nend\n"
    assert unified("f", old, new) == (
        "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\x0c\n-b\rc\n-end\n\\ No newline at end of file\n"
        "+B\rc\n+end\n"
    )


def test_past_the_matching_limit_one_hunk_still_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_change, "MATCH_LIMIT", 0)
    rng = random.Random(11)
    for _ in range(150):
        old = random_text(rng, ["a\n", "b\n", "c c\n", "\n"], 14)
        new = random_text(rng, ["a\n", "b\n", "d\n", "\n"], 14)
        if old == new:
            continue
        diff = unified("f", old, new)
        assert diff.count("\n@@ ") == 1
        assert applied(tmp_path, old, diff) == new


def _repeating(seed: int, values: int) -> str:
    rng = random.Random(seed)
    return "".join(f"{rng.randrange(values)}\n" for _ in range(60_000))[:DIFF_MAX_BYTES]


@pytest.mark.parametrize(
    "old, new",
    [
        # short lines repeating a few hundred values (seconds in difflib)
        (_repeating(1, 300), _repeating(2, 300)),
        (_repeating(3, 1000), _repeating(4, 1000)),
        # the same lines, every other one changed
        ("".join(f"{n % 500}\n" for n in range(50_000))[:DIFF_MAX_BYTES],
         "".join(f"{n % 500}\n" if n % 2 else f"x{n % 499}\n" for n in range(50_000))[:DIFF_MAX_BYTES]),
    ],
)  # fmt: skip
def test_texts_built_to_be_slow_get_one_hunk_that_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str
) -> None:
    def quadratic(*args: object, **kwargs: object) -> None:
        raise AssertionError("difflib's matcher ran on a text built to make it slow")

    monkeypatch.setattr(difflib, "SequenceMatcher", quadratic)
    diff = unified("f", old, new)
    assert diff.count("\n@@ ") == 1
    assert applied(tmp_path, old, diff) == new


def test_a_file_judged_a_secret_once_opened_gives_no_line(tmp_path: Path) -> None:
    # The descriptor is judged before a byte is read: the preview refuses
    # (SecretOpened), the snapshot and the diff after the call have none.
    (tmp_path / "notes.md").write_text("# ENV FILE MARKER\nAPI_KEY=x\n")
    args = {"path": "notes.md", "content": "TEXT\n"}
    judged: list[int] = []

    def secret(fd: int) -> bool:
        judged.append(fd)
        return True

    with pytest.raises(file_change.SecretOpened):
        file_change.planned_diff(tmp_path, "write", args, secret)
    before = file_change.snapshot(tmp_path, "write", args, secret)
    assert list(before.values()) == [None]
    plain = file_change.snapshot(tmp_path, "write", args, lambda fd: False)
    assert file_change.diff_since(str(tmp_path / "notes.md"), plain, secret) is None
    assert "ENV FILE MARKER" in str(plain)  # a plain file is read
    assert len(judged) == 3
    # A new file is not opened: nothing to judge, an empty "before".
    assert file_change.planned_diff(tmp_path, "write", {"path": "new.md", "content": "a\n"}, secret)
    assert len(judged) == 3
