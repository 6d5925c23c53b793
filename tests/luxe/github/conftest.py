"""Fixtures for GitHub tests: the real gh against the fake GitHub
(tests/fakes/github), a checkout whose `origin` is a bare repository served
by git http-backend, and luxe started in it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.github.model import PullRequest, Repo
from tests.fakes.github.server import GH, FakeGitHub
from tests.luxe.rpc_driver import make_env

# Every GitHub test module sets `pytestmark = needs_gh`.
needs_gh = pytest.mark.skipif(GH is None, reason="gh is not installed (.ci/run installs it)")

IDENTITY = {
    "GIT_AUTHOR_NAME": "Tess",
    "GIT_AUTHOR_EMAIL": "tess@example.invalid",
    "GIT_COMMITTER_NAME": "Tess",
    "GIT_COMMITTER_EMAIL": "tess@example.invalid",
}


class Checkout:
    """A working copy with `origin` on the fake GitHub."""

    def __init__(self, path: Path, env: dict[str, str], remote: Repo) -> None:
        self.path, self.env, self.remote = path, env, remote

    def git(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["git", *args], cwd=self.path, env=self.env, capture_output=True,
                              text=True, timeout=60, check=False)
        if check and done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)}: {done.stderr}")
        return done.stdout.strip()

    def gh(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["gh", *args], cwd=self.path, env=self.env, capture_output=True,
                              text=True, timeout=60, check=False)

    def commit(self, name: str, text: str, message: str) -> str:
        (self.path / name).parent.mkdir(parents=True, exist_ok=True)
        (self.path / name).write_text(text)
        self.git("add", name)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def branch(self, name: str, files: dict[str, str], message: str, push: bool = True) -> str:
        self.git("checkout", "-q", "-b", name)
        for file, text in files.items():
            (self.path / file).write_text(text)
            self.git("add", file)
        self.git("commit", "-q", "-m", message)
        if push:
            self.git("push", "-q", "-u", "origin", name)
        return self.git("rev-parse", "HEAD")

    def remote_sha(self, branch: str) -> str | None:
        return self.remote.sha(branch)

    def fix_retry(self, push: bool = True) -> str:
        """The branch most tests use: `fix-retry`, one commit changing src/retry.py."""
        return self.branch("fix-retry", {"src/retry.py": "def retry():\n    return 2\n"},
                           "retry twice", push=push)


def open_fix_retry(github: FakeGitHub, checkout: Checkout) -> PullRequest:
    """`fix-retry` pushed, with its pull request (#1 in a fresh world) onto main."""
    checkout.fix_retry()
    return github.world.open_pull(checkout.remote, title="Retry twice", body="",
                                  head="fix-retry", base="main")


@pytest.fixture
def github(tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(tmp_path / "github") as fake:
        fake.world.create_repo("o/r")
        yield fake
        assert fake.refused_connects == [], "something tried to leave loopback"
        assert fake.errors == []


@pytest.fixture
def env(tmp_path: Path, github: FakeGitHub) -> dict[str, str]:
    return make_env(tmp_path, **github.env(), **IDENTITY)


@pytest.fixture
def checkout(tmp_path: Path, github: FakeGitHub, env: dict[str, str]) -> Checkout:
    path = tmp_path / "repo"
    path.mkdir()
    co = Checkout(path, {**os.environ, **env}, github.world.repos["o/r"])
    co.git("init", "-q", "-b", "main")
    co.commit("README.md", "# demo\n", "init")
    co.commit("src/retry.py", "def retry():\n    return 1\n", "add retry")
    co.git("remote", "add", "origin", github.remote_url("o/r"))
    co.git("push", "-q", "-u", "origin", "main")
    return co


@pytest.fixture
def repo(checkout: Checkout) -> Path:
    return checkout.path
