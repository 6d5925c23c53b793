"""Real git repositories in temp dirs: the tests' one way to build them.

`git` runs as a fixed user, blind to this machine's global and system
configuration (a developer's hooks, signing or default branch never leak
in). `Repo` is a repository to write files in and commit; its own config
names a user, so what the code under test commits there works too.
`make_repo` is a repository with one commit.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

USER = ("-c", "user.name=T", "-c", "user.email=t@example.invalid")


def git(repo: Path, *args: str, input: bytes | None = None, as_user: bool = True) -> str:
    """Run git in `repo`; its stdout. Fails the test with git's stderr.
    `as_user=False` leaves the committer to the repository's own config."""
    result = subprocess.run(
        ["git", *(USER if as_user else ()), *args],
        cwd=repo,
        capture_output=True,
        input=input,
        check=False,
        env={
            **os.environ,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
        },
    )
    if result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {result.stderr.decode()}")
    return result.stdout.decode("utf-8", "surrogateescape")


class Repo:
    """A repository on branch `main` whose config names a committer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "reviewer@example.invalid")
        self.git("config", "user.name", "Reviewer")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, input: bytes | None = None) -> str:
        return git(self.path, *args, input=input, as_user=False)

    def write(self, name: str, text: str | bytes) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path

    def commit(self, message: str = "change") -> str:
        """Commit everything in the working tree; the new HEAD."""
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def log(self) -> list[str]:
        return self.git("log", "--format=%s").splitlines()

    def snapshot(self) -> dict[str, str]:
        """Every working-tree file (outside .git) and its content hash."""
        files = {}
        for dirpath, dirnames, filenames in os.walk(self.path):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for name in filenames:
                full = Path(dirpath, name)
                files[str(full.relative_to(self.path))] = hashlib.sha256(
                    full.read_bytes()
                ).hexdigest()
        return files

    def index_hash(self) -> str:
        return hashlib.sha256((self.path / ".git" / "index").read_bytes()).hexdigest()


def make_repo(path: Path, files: Mapping[str, str] | None = None) -> Path:
    """A repository with one commit ("init") holding `files` (default a README)."""
    repo = Repo(path)
    for name, text in (files or {"README.md": "# demo\nA demo project.\n"}).items():
        repo.write(name, text)
    repo.commit("init")
    return path
