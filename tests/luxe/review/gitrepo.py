"""Real git repositories in temp dirs for the review tests."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

FAKE_GH = Path(__file__).resolve().parents[2] / "fakes" / "gh"


class Repo:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "reviewer@example.invalid")
        self.git("config", "user.name", "Reviewer")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, input: bytes | None = None) -> str:
        result = subprocess.run(
            ["git", *args], cwd=self.path, capture_output=True, input=input, check=False
        )
        if result.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {result.stderr.decode()}")
        return result.stdout.decode("utf-8", "surrogateescape")

    def write(self, name: str, text: str | bytes) -> None:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)

    def commit(self, message: str = "change") -> str:
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


class FakeGh:
    """The fake gh on PATH, with its state file."""

    def __init__(self, bin_dir: Path, state_path: Path) -> None:
        self.state_path = state_path
        self.path = bin_dir / "gh"  # in the command line of every fake gh running
        bin_dir.mkdir(parents=True, exist_ok=True)
        (bin_dir / "gh").symlink_to(FAKE_GH)
        self.write({"default_repo": "acme/widgets", "repos": {}})

    def write(self, state: dict[str, object]) -> None:
        self.state_path.write_text(json.dumps(state))

    def state(self) -> dict[str, object]:
        return json.loads(self.state_path.read_text())

    def add_pull(
        self, repo: str, number: int, base: str, head: str, diff: str, hang_s: float = 0
    ) -> None:
        state = self.state()
        repos = state.setdefault("repos", {})
        assert isinstance(repos, dict)
        repos.setdefault(repo, {"pulls": {}})["pulls"][str(number)] = {
            "baseRefOid": base,
            "headRefOid": head,
            "diff": diff,
            "hang_s": hang_s,
        }
        self.write(state)
