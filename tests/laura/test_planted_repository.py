"""A file pane over a clone that plants bare repositories in its folders
(tests/helpers/planted.py): the git diff behind its change marks never opens
one, so no payload in a planted config runs, whether the pane asks git in
the UI thread (open) or on the loop (reload), and whatever path names the file."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from laura.filecheck import DEFAULT_MAX_FILE_BYTES
from laura.gitmarks import NO_CHANGES, git_diff, git_diff_blocking, output_limit
from tests.helpers.planted import live_payloads, planted_clone
from tests.laura.git_helpers import isolate_environment
from tests.laura.tab_driver import make_tab, open_pane, visible

# Files inside each plant, some reached through a symlink or `..`.
FILES = [
    "evil/notes.txt",
    "linked/notes.txt",
    "docs/deep/x.git/sub/page.md",
    "tools/vendor/notes.txt",
    "docs/../tools/vendor/watch.sh",
]

LIMIT = output_limit(DEFAULT_MAX_FILE_BYTES)


@pytest.fixture(autouse=True)
def private_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_environment(tmp_path, monkeypatch)


def test_the_plants_are_live_without_a_guard(tmp_path: Path) -> None:
    assert live_payloads(tmp_path) == ["docs_deep_x.git", "evil", "tools_vendor"]


def test_git_marks_never_open_a_planted_repository(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    clone = planted_clone(tmp_path, markers)
    for name in FILES:
        assert git_diff_blocking(clone / name, LIMIT).state == NO_CHANGES, name
        assert trio.run(git_diff, clone / name, LIMIT).state == NO_CHANGES, name
    assert list(markers.iterdir()) == []


def test_panes_open_and_reload_over_plants_and_run_nothing(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    clone = planted_clone(tmp_path, markers)
    tab = make_tab(clone)
    panes = [open_pane(tab, clone / name) for name in FILES]
    assert "notes of a vendored" in visible(tab, panes[0])[0]
    for name in FILES:
        with (clone / name).open("a") as f:
            f.write("one more line\n")
    assert tab.poll_files()
    assert any("more" in row for row in visible(tab, panes[0]))  # reloaded (narrow: wrapped)
    assert list(markers.iterdir()) == []
