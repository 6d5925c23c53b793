"""Git in Laura's tests: `git` (tests/helpers/gitrepo.py: a fixed user, no
configuration of this machine), and a process environment where the code
under test sees none either."""

from __future__ import annotations

from pathlib import Path

import pytest

from laura import gitmarks
from tests.helpers.gitrepo import git as git


def committed(root: Path, name: str, text: str) -> Path:
    """`root/repo/name` holding `text`, committed in a fresh repository."""
    repo = root / "repo"
    repo.mkdir(exist_ok=True)
    git(repo, "init", "-q")
    path = repo / name
    path.write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", "start")
    return path


def isolate_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Private HOME and XDG dirs for code under test in this process, git
    without system config, and gitmarks' once-per-process state reset."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg-run"))
    monkeypatch.setenv("LAURA_RUNTIME", str(tmp_path / "xdg-run" / "laura"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setattr(gitmarks, "_git_missing", False)
    monkeypatch.setattr(gitmarks, "_missing_warned", False)
