"""The `git diff` Laura runs for a file pane reads, and writes nothing: a
checkout whose files' times changed but not their content (a `touch`, a
branch switched and back) made every open and reload rewrite .git/index,
holding index.lock while the person's own `git commit` wanted it. Real git,
both ways Laura asks (on the UI loop's trio and in a worker's thread)."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest
import trio

from laura.gitmarks import HAS_CHANGES, NO_CHANGES, git_diff, git_diff_blocking
from tests.laura.git_helpers import committed, git, isolate_environment

LIMIT = 1 << 20


def index_state(repo: Path) -> tuple[int, str]:
    index = repo / ".git" / "index"
    return index.stat().st_mtime_ns, hashlib.sha256(index.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("spelling", "name", "edit", "state"),
    [
        ("a touched file, its content the same", "notes.txt", None, NO_CHANGES),
        ("a touched file in a folder", "deep/er/notes.txt", None, NO_CHANGES),
        # A control: git refreshes nothing for a file with real changes.
        ("a changed file among touched ones", "notes.txt", "one\nTWO\n", HAS_CHANGES),
    ],
)
@pytest.mark.parametrize("way", ["trio", "blocking"])
def test_opening_a_file_leaves_the_index_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str, name: str,
    edit: str | None, state: str, way: str,
) -> None:
    isolate_environment(tmp_path, monkeypatch)
    repo = committed(tmp_path, "README", "a repository\n").parent
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("one\ntwo\n")
    for n in range(5):
        (repo / f"other{n}.txt").write_text(f"{n}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    if edit is not None:
        path.write_text(edit)
    now = time.time()
    os.utime(repo / ".git" / "index", (now - 100, now - 100))
    for file in repo.rglob("*"):
        if ".git" not in file.parts and file.is_file():
            os.utime(file, (now - 10, now - 10))
    before = index_state(repo)
    diff = trio.run(git_diff, path, LIMIT) if way == "trio" else git_diff_blocking(path, LIMIT)
    assert diff.state == state, spelling
    assert index_state(repo) == before
    assert not (repo / ".git" / "index.lock").exists()
