"""The real gh against the fake GitHub (tests/fakes/github), for any test
that reads or writes pull requests: the `github` fixture (a running fake
with an empty `o/r`), working copies whose `origin` is a bare repository
the fake serves (`Checkout`, `publish`, `new_checkout`), and `needs_gh`,
the skip marker for a machine without gh (.ci/run installs it).

Ownership: the `github` fixture starts the fake and stops it at teardown
(a stalled answer ends then too), failing the test if anything tried to
leave loopback or the fake raised while answering.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.fakes.github.model import PullRequest, Repo
from tests.fakes.github.server import GH, FakeGitHub

# Every module of tests that run gh sets `pytestmark = needs_gh`.
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
            (self.path / file).parent.mkdir(parents=True, exist_ok=True)
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


def open_pull(github: FakeGitHub, checkout: Checkout, head: str, files: dict[str, str],
              title: str) -> PullRequest:
    """Branch `head` from where `checkout` is, with `files` written in one
    commit titled `title`, pushed, and its pull request onto main."""
    checkout.branch(head, files, title)
    return github.world.open_pull(checkout.remote, title=title, body="", head=head, base="main")


def _remote(github: FakeGitHub, full: str) -> Repo:
    return github.world.repos.get(full) or github.world.create_repo(full)


def publish(path: Path, github: FakeGitHub, env: Mapping[str, str], full: str = "o/r") -> Checkout:
    """The repository at `path` (on `main`, with commits) as the working copy
    of `full` on the fake (created if new): `origin` added and main pushed.
    `env` is added to this process's environment for git (the fake's, at least)."""
    checkout = Checkout(path, {**os.environ, **env}, _remote(github, full))
    checkout.git("remote", "add", "origin", github.remote_url(full))
    checkout.git("push", "-q", "-u", "origin", "main")
    return checkout


def new_checkout(path: Path, github: FakeGitHub, env: Mapping[str, str], full: str = "o/r") -> Checkout:
    """A new repository at `path` (a README and src/retry.py, two commits)
    published as `full` (see `publish`); `env` must name a committer."""
    path.mkdir(parents=True)
    checkout = Checkout(path, {**os.environ, **env}, _remote(github, full))
    checkout.git("init", "-q", "-b", "main")
    checkout.commit("README.md", "# demo\n", "init")
    checkout.commit("src/retry.py", "def retry():\n    return 1\n", "add retry")
    return publish(path, github, env, full)


@pytest.fixture
def github(tmp_path: Path) -> Iterator[FakeGitHub]:
    """A running fake GitHub with the empty repository `o/r`."""
    with FakeGitHub(tmp_path / "github") as fake:
        fake.world.create_repo("o/r")
        yield fake
        assert fake.refused_connects == [], "something tried to leave loopback"
        assert fake.errors == []


def hanging_gh(
    folder: Path, real: str | None = None, *, hangs_on: str = "", prints: str = "",
    stubborn: bool = False,
) -> str:
    """`folder` (created), holding a `gh` that never answers (and never
    exits); given the `real` gh, one that answers everything but
    `gh <hangs_on>` (its first two words), which prints `prints` and then
    hangs. `stubborn`: the hanging gh leaves a member of its process group
    that ignores SIGTERM, so only the group's SIGKILL ends it."""
    folder.mkdir()
    hang = "(trap '' TERM; exec sleep 600) &\n" if stubborn else ""
    hang += f"printf %s {shlex.quote(prints)}\nexec sleep 600\n" if prints else "exec sleep 600\n"
    script = folder / "gh"
    if real is None:
        script.write_text(f"#!/bin/sh\n{hang}")
    else:
        script.write_text(f'#!/bin/sh\nif [ "$1 $2" = {shlex.quote(hangs_on)} ]; then\n'
                          f'{hang}fi\nexec {shlex.quote(real)} "$@"\n')
    script.chmod(0o755)
    return str(folder)
