"""The fake GitHub answers the real gh and git through its HTTPS proxy, and
refuses (and records) a tunnel to any other host; a stalled answer ends
when the fake stops."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.fakes.github.model import Check
from tests.fakes.github.server import GH, FakeGitHub
from tests.helpers.github import IDENTITY, new_checkout, open_pull
from tests.helpers.wait import wait_until

pytestmark = pytest.mark.skipif(GH is None, reason="gh is not installed (.ci/run installs it)")


def _run(cwd: Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=60, check=False)


def test_gh_and_git_round_trip(tmp_path: Path) -> None:
    with FakeGitHub(tmp_path / "github") as github:
        github.world.create_repo("o/r")
        env = github.env()
        work = tmp_path / "w"
        work.mkdir()
        for argv in (
            ["git", "init", "-q", "-b", "main"],
            ["git", "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty",
             "-m", "init"],
            ["git", "remote", "add", "origin", github.remote_url("o/r")],
            ["git", "push", "-q", "-u", "origin", "main"],
            ["git", "checkout", "-q", "-b", "feat"],
            ["git", "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty",
             "-m", "feature"],
            ["git", "push", "-q", "-u", "origin", "feat"],
        ):
            done = _run(work, env, *argv)
            assert done.returncode == 0, (argv, done.stderr)
        created = _run(work, env, "gh", "pr", "create", "--title", "T", "--body", "B")
        assert created.stdout.strip() == "https://ghe.test/o/r/pull/1", created.stderr
        github.world.repos["o/r"].pulls[1].checks.append(Check("ci", "IN_PROGRESS", None))
        viewed = _run(work, env, "gh", "pr", "view", "--json", "number,statusCheckRollup")
        assert '"status":"IN_PROGRESS"' in viewed.stdout, viewed.stderr
        merged = _run(work, env, "gh", "pr", "merge", "1", "--squash")
        assert merged.returncode == 0, merged.stderr
        log = _run(Path(github.world.repos["o/r"].path), env, "git", "log", "-1", "--format=%s", "main")
        assert log.stdout.strip() == "T (#1)"
        # Nothing else is reachable through the proxy, and that is recorded.
        outside = _run(work, env, "git", "ls-remote", "https://example.com/x.git")
        assert outside.returncode != 0
        assert github.refused_connects == ["example.com:443"]
        assert github.api.missing_fields <= {"PullRequest.milestone"}


def test_unauthenticated_gh_is_told_so(tmp_path: Path) -> None:
    with FakeGitHub(tmp_path / "github") as github:
        github.api.authenticated = False
        done = _run(tmp_path, github.env(), "gh", "api", "user")
        assert done.returncode != 0
        assert "Bad credentials" in done.stderr or "401" in done.stderr
        assert github.refused_connects == []


def test_a_pull_request_as_guided_review_reads_it(tmp_path: Path) -> None:
    with FakeGitHub(tmp_path / "github") as github:
        checkout = new_checkout(tmp_path / "w", github, {**github.env(), **IDENTITY})
        pull = open_pull(github, checkout, "twice", {"src/retry.py": "def retry():\n    return 2\n"},
                         "Retry twice")
        env, bare = github.env(), Path(checkout.remote.path)
        viewed = _run(checkout.path, env, "gh", "pr", "view", "1", "--json", "headRefOid")
        assert viewed.stdout.strip() == f'{{"headRefOid":"{pull.headRefOid}"}}', viewed.stderr
        base = _run(checkout.path, env, "gh", "api", "repos/{owner}/{repo}/pulls/1", "--jq", ".base.sha")
        assert base.stdout.strip() == pull.baseRefOid == checkout.git("rev-parse", "main")
        # The diff media type: git's own diff of the branch, from outside any checkout too.
        diff = _run(tmp_path, env, "gh", "pr", "diff", "1", "--color", "never", "--repo", "o/r")
        git_diff = _run(bare, env, "git", "diff", "main...twice")
        assert diff.stdout == git_diff.stdout and "+    return 2" in diff.stdout, diff.stderr
        unknown = _run(checkout.path, env, "gh", "pr", "view", "9", "--json", "headRefOid")
        assert unknown.returncode != 0
        assert "Could not resolve to a PullRequest with the number of 9" in unknown.stderr
        assert github.errors == [] and github.refused_connects == []


def test_a_stalled_answer_ends_when_the_fake_stops(tmp_path: Path) -> None:
    gh: subprocess.Popen[bytes] | None = None
    try:
        with FakeGitHub(tmp_path / "github") as github:
            github.api.delay_s = 600.0
            gh = subprocess.Popen(["gh", "api", "user"], env={**os.environ, **github.env()},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_until(lambda: github.api.held == 1, what="gh's request to be held")
        # Stopping cut the held request unanswered: no thread sleeps out its 600 s.
        wait_until(lambda: github.api.held == 0, timeout=30, what="the hold to end")
        assert gh.wait(timeout=60) != 0
    finally:
        if gh is not None:
            gh.kill()
            gh.wait()
