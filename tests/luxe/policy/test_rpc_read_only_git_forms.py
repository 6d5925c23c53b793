"""Read-only runs only readers: git forms that passed for readers but wrote
or ran a program. Through the real `luxe --rpc`, read-only, every call
approved:

- `git stash -m list` (and `-m show`, `-- show`) is a `stash push`: git
  takes the first word for the subcommand and `push` when it is an option,
  so the person's changes were stashed away and the files reverted;
- `git remote show NAME` asks the remote: a `helper::address` runs the
  `git-remote-helper` program (`-n` asks nothing, and stays a reader).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import hostile_luxe, run_turn


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=stdin, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def one_call(command: str, repo: Path, env: dict[str, str], **kw: str) -> dict[str, object]:
    """The tool_finished content of one read-only, auto-approved bash call."""
    steps = [{"tool_calls": [call("bash", command=command)]}, {"text": "done"}]
    with hostile_luxe(steps, "read-only", "--auto-approve", cwd=repo, env=env, **kw) as (
        luxe,
        _server,
    ):
        frames = run_turn(luxe)
        assert luxe.close() == 0
    finished = [f["content"] for f in frames if f["kind"] == "tool_finished"]
    assert len(finished) == 1, frames
    return finished[0]


@pytest.mark.parametrize("command", ["git stash -m list", "git stash -q -m show", "git stash -- show"])
def test_a_stash_push_spelled_as_list_or_show_is_refused(
    command: str, repo: Path, env: dict[str, str]
) -> None:
    (repo / "show").write_text("tracked\n")
    git(repo, "add", "show")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-qm", "show")
    (repo / "README.md").write_text("the person's unsaved work\n")
    (repo / "show").write_text("more of it\n")
    done = one_call(command, repo, env)
    assert (repo / "README.md").read_text() == "the person's unsaved work\n"
    assert (repo / "show").read_text() == "more of it\n"
    assert not (repo / ".git" / "refs" / "stash").exists()
    assert done["denied"], done


@pytest.fixture
def helper(tmp_path: Path) -> tuple[str, Path]:
    """A directory holding `git-remote-luxetest`, which leaves a mark."""
    bin_dir = tmp_path / "helpers"
    bin_dir.mkdir()
    mark = tmp_path / "helper-ran"
    program = bin_dir / "git-remote-luxetest"
    program.write_text(f"#!/bin/sh\necho ran >> '{mark}'\nexit 1\n")
    program.chmod(0o755)
    return str(bin_dir), mark


@pytest.mark.parametrize(
    "command",
    [
        "git remote show luxetest::a",
        "git remote -v show luxetest::b",
        "git --no-pager remote show origin",
    ],
)
def test_remote_show_that_would_ask_the_remote_is_refused(
    command: str, helper: tuple[str, Path], repo: Path, env: dict[str, str]
) -> None:
    bin_dir, mark = helper
    git(repo, "remote", "add", "origin", "luxetest::c")
    done = one_call(command, repo, env, path_extra=bin_dir)
    assert not mark.exists()
    assert done["denied"], done


def test_remote_show_without_asking_stays_a_reader(
    helper: tuple[str, Path], repo: Path, env: dict[str, str]
) -> None:
    bin_dir, mark = helper
    git(repo, "remote", "add", "origin", "luxetest::c")
    steps = [{"tool_calls": [call("bash", command="git remote show -n origin")]}, {"text": "done"}]
    with hostile_luxe(
        steps, "read-only", "--auto-approve", cwd=repo, env=env, path_extra=bin_dir
    ) as (luxe, server):
        run_turn(luxe)
        results = tool_results(server.bodies[-1])
        assert luxe.close() == 0
    assert "Fetch URL: luxetest::c" in results[0], results
    assert not mark.exists()
