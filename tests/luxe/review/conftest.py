"""Fixtures for the Guided Review tests: a private home for every git and
gh, a repository, and the real gh against the fake GitHub for pull requests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import github as github
from tests.helpers.gitrepo import Repo


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every git and gh we run sees a temp home, never the user's config."""
    home = tmp_path / "home"
    for name, sub in [
        ("HOME", ""),
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_RUNTIME_DIR", "run"),
    ]:
        path = home / sub
        path.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(name, str(path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in list(os.environ):
        if name.startswith("GIT_") and name != "GIT_CONFIG_NOSYSTEM":
            monkeypatch.delenv(name)
    yield home


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


@pytest.fixture
def github_env(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The fake GitHub's environment, also set in this process's: the
    review's reads run gh from here (tests/helpers/github.py)."""
    env = github.env()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env
