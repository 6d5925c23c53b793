"""Git run by Luxe for itself (luxe.git_read), against real repositories:
the system prompt's status, the edits pane's changed lines and `@path`
completion's listing. What each answers, and that a repository cannot make
one hang, fill memory, run its converter or match other files' changes."""

from __future__ import annotations

import os
import stat
import tracemalloc
from pathlib import Path

import pytest
import trio

from luxe.engine import system_prompt
from luxe.frontends.tui import path_completion
from luxe.hosting import panes
from tests.helpers.deep_tree import deep_tree
from tests.helpers.gitrepo import Repo
from tests.helpers.procs import alive


@pytest.fixture(autouse=True)
def _no_machine_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """Git as a fresh user's: this machine's global config never leaks in."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)


# --- the system prompt's status ------------------------------------------------------------


async def test_status_names_the_branch_and_the_changes(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("README.md", "hello\n")
    repo.commit("init")
    assert await system_prompt.git_summary(repo.path) == "git branch main; working tree clean"
    repo.write("README.md", "changed\n")
    repo.write("new.txt", "new\n")
    summary = await system_prompt.git_summary(repo.path)
    assert summary == "git branch main; 2 changed paths:\n   M README.md\n  ?? new.txt"


async def test_status_outside_a_checkout_says_so(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert await system_prompt.git_summary(tmp_path / "plain") == "not a git checkout"


async def test_status_of_many_changes_is_read_up_to_its_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("README.md", "hello\n")
    repo.commit("init")
    for n in range(300):
        repo.write(f"{n:04d}" + "x" * 200, "")
    monkeypatch.setattr(system_prompt, "STATUS_CAP", 16 * 1024)
    summary = await system_prompt.git_summary(repo.path)
    head, *listed = summary.split("\n")
    shown = int(head.split("more than ")[1].split()[0])
    assert head == f"git branch main; more than {shown} changed paths:"
    assert 60 < shown < 300  # some 16 KiB of 207-byte lines, never a cut one
    assert listed[:2] == ["  ?? 0000" + "x" * 200, "  ?? 0001" + "x" * 200]
    assert listed[-1] == f"  … and more than {shown - 20} more"
    assert len(listed) == 21


def _hanging_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` on PATH that starts a child and hangs (as an fsmonitor hook
    or a network filesystem can); the child's pid lands in the file returned."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pid_file = tmp_path / "child.pid"
    script = bin_dir / "git"
    script.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pid_file}\nwait\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return pid_file


HANGING = {
    "status": (system_prompt, "GIT_TIMEOUT_S", lambda cwd: system_prompt.git_summary(cwd)),
    "edits pane": (panes, "GIT_TIMEOUT_S", lambda cwd: panes.edit_view(cwd, "x.txt")),
    "listing": (path_completion, "LIST_TIMEOUT_S", lambda cwd: path_completion.project_files(cwd)),
}
ANSWERED_WITHOUT_GIT = {
    "status": "git status timed out",
    "edits pane": panes.EditView(False, None),
    "listing": ["bin/git", "child.pid"],  # the walk
}


@pytest.mark.parametrize("reader", sorted(HANGING))
async def test_a_hanging_git_ends_with_all_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    pid_file = _hanging_git(tmp_path, monkeypatch)
    module, deadline, read = HANGING[reader]
    monkeypatch.setattr(module, deadline, 0.5)
    with trio.fail_after(10):
        answer = await read(tmp_path)
    if isinstance(answer, list):
        answer.sort()
    assert answer == ANSWERED_WITHOUT_GIT[reader]
    assert not alive(int(pid_file.read_text())), "git's child outlived the read"


async def test_no_git_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert await system_prompt.git_summary(tmp_path) == "git is not installed"


# --- the edits pane's changed lines --------------------------------------------------------


def _two_changed_files(tmp_path: Path, name: str) -> Repo:
    """`name` changed at line 2, `a.txt` at line 50."""
    repo = Repo(tmp_path / "repo")
    body = "".join(f"line {n}\n" for n in range(1, 61))
    repo.write(name, body)
    repo.write("a.txt", body)
    repo.commit("init")
    repo.write(name, body.replace("line 2\n", "line two\n"))
    repo.write("a.txt", body.replace("line 50\n", "line fifty\n"))
    return repo


@pytest.mark.parametrize("name", ["*", "?.txt", ":!b.txt", ":(glob)*"])
async def test_a_file_named_like_a_pattern_shows_its_own_changes(tmp_path: Path, name: str) -> None:
    repo = _two_changed_files(tmp_path, name)
    view = await panes.edit_view(repo.path, name)
    assert view == panes.EditView(True, (2, 2))


ROW = "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z\n"
HUGE_EDITS = {
    # how the edit leaves the file, and the lines it lights (None: those read)
    "emptied": ("emptied\n", (1, 1)),
    "every line changed": (ROW.upper() * 450_000, (1, 450_000)),
    "every other line changed": ((ROW + ROW.upper()) * 225_000, None),
}


@pytest.mark.parametrize("edit", list(HUGE_EDITS))
async def test_an_edit_of_a_huge_file_reads_only_the_start_of_its_diff(
    tmp_path: Path, edit: str
) -> None:
    # Some 24 MB of lines in the diff: git writes them all in a second or so.
    repo = Repo(tmp_path / "repo")
    repo.write("big.csv", ROW * 450_000)
    repo.commit("init")
    text, lines = HUGE_EDITS[edit]
    repo.write("big.csv", text)
    tracemalloc.start()
    try:
        view = await panes.edit_view(repo.path, "big.csv")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert view.diff, edit
    if lines is not None:
        assert view.lines == lines, edit
    else:  # the hunks within the cap: from the first (line 2) to the last read
        assert view.lines is not None and view.lines[0] == 2 and view.lines[1] < 450_000, view
    assert peak < 4 * panes.EDIT_DIFF_CAP, f"{peak} bytes held for the diff ({edit})"


@pytest.mark.parametrize("driver", ["textconv", "command"])
async def test_a_repositorys_converter_or_diff_program_is_never_run(
    tmp_path: Path, driver: str
) -> None:
    # A repository handed over whole (an archive, a copied folder) carries
    # its own config; .gitattributes names the driver for a file.
    repo = _two_changed_files(tmp_path, "b.txt")
    marker = tmp_path / "converted"
    repo.write(".gitattributes", "b.txt diff=conv\n")
    repo.git("config", f"diff.conv.{driver}", f"sh -c 'touch {marker}; cat \"$0\"'")
    view = await panes.edit_view(repo.path, "b.txt")
    assert view == panes.EditView(True, (2, 2))
    assert not marker.exists()


# --- `@path` completion's listing ----------------------------------------------------------


async def test_the_listing_holds_tracked_and_untracked_files_not_ignored(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(".gitignore", "*.log\n")
    repo.write("src/main.py", "")
    repo.commit("init")
    repo.write("notes.md", "")
    repo.write("debug.log", "")
    files = await path_completion.project_files(repo.path)
    assert sorted(files) == [".gitignore", "notes.md", "src/main.py"]


async def test_a_listing_past_its_cap_never_holds_a_cut_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Repo(tmp_path / "repo")
    names = [f"{n:03d}-" + "n" * 95 for n in range(200)]  # 100 bytes with the NUL
    for name in names:
        repo.write(name, "")
    monkeypatch.setattr(path_completion, "LISTING_CAP", 5050)
    files = await path_completion.project_files(repo.path)
    assert files == names[:50]


async def test_outside_a_checkout_the_listing_is_a_walk(tmp_path: Path) -> None:
    (tmp_path / "plain" / "sub").mkdir(parents=True)
    (tmp_path / "plain" / "sub" / "f.txt").write_text("")
    (tmp_path / "plain" / ".hidden").mkdir()
    (tmp_path / "plain" / ".hidden" / "g.txt").write_text("")
    assert await path_completion.project_files(tmp_path / "plain") == ["sub/f.txt"]


async def test_outside_a_checkout_a_deep_tree_is_walked(tmp_path: Path) -> None:
    # os.walk recursed, and raised RecursionError.
    with deep_tree(tmp_path / "plain", 1500) as bottom:
        (bottom / "bottom.txt").write_text("")
        (tmp_path / "plain" / "up").symlink_to("..")  # a link to a directory: not entered
        files = await path_completion.project_files(tmp_path / "plain")
    assert files == ["d/" * 1500 + "bottom.txt"]
