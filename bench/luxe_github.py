"""GitHub costs nothing on the handshake's path, and a refresh costs about
one gh call.

Against the fake GitHub (tests/fakes/github: the real gh through an HTTPS
proxy on loopback), in the same run:
  start -> `ready` in a checkout with a GitHub remote and a pull request,
  beside a checkout with no remote               (target: within 5 %)
  `refresh_workspace` -> `workspace_updated` on a running luxe, beside a
  bare `gh pr view --json <the same fields>`      (target: within 1.2x)
Runs alternate between the two sides so machine load hits both alike.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import Luxe, check_interpreter, isolated_env, summary, workspace

from luxe.github.pulls import PR_FIELDS
from tests.fakes.github.server import GH, FakeGitHub

RUNS = 15


def _git(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _checkout(root: Path, env: dict[str, str], remote: str | None) -> Path:
    path = root / ("with-remote" if remote else "no-remote")
    path.mkdir()
    _git(path, env, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# bench\n")
    _git(path, env, "add", "README.md")
    _git(path, env, "commit", "-q", "-m", "init")
    if remote:
        _git(path, env, "remote", "add", "origin", remote)
        _git(path, env, "push", "-q", "-u", "origin", "main")
        _git(path, env, "checkout", "-q", "-b", "topic")
        (path / "topic.txt").write_text("topic\n")
        _git(path, env, "add", "topic.txt")
        _git(path, env, "commit", "-q", "-m", "topic")
        _git(path, env, "push", "-q", "-u", "origin", "topic")
    return path


def main() -> None:
    check_interpreter()
    if GH is None:
        sys.exit("gh is not installed (apt-get install gh)")
    with workspace() as tmp, FakeGitHub(Path(tmp) / "github") as github:
        root = Path(tmp)
        repo = github.world.create_repo("o/r")
        env = isolated_env(root, {**github.env(), "GIT_AUTHOR_NAME": "b",
                                  "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
                                  "GIT_COMMITTER_EMAIL": "b@x"})
        env = {**os.environ, **env}
        with_remote = _checkout(root, env, github.remote_url("o/r"))
        no_remote = _checkout(root, env, None)
        github.world.open_pull(repo, title="Topic", body="", head="topic", base="main")
        args = ["--model", "scripted:/dev/null"]

        ready = {"remote": [], "none": []}  # type: dict[str, list[float]]
        for _ in range(RUNS):
            for side, cwd in (("remote", with_remote), ("none", no_remote)):
                luxe = Luxe(args, cwd=cwd, env=env)
                at, _ = luxe.until("ready")
                ready[side].append((at - luxe.started_at) * 1000)
                luxe.close()

        refresh: list[float] = []
        bare: list[float] = []
        luxe = Luxe(args, cwd=with_remote, env=env)
        luxe.until("workspace_updated")  # the one after ready
        for _ in range(RUNS):
            start = time.monotonic()
            luxe.send("refresh_workspace")
            at, update = luxe.until("workspace_updated")
            assert update["github"] == "ok", update
            refresh.append((at - start) * 1000)
            start = time.monotonic()
            subprocess.run(["gh", "pr", "view", "--json", PR_FIELDS], cwd=with_remote, env=env,
                           check=True, capture_output=True)
            bare.append((time.monotonic() - start) * 1000)
        luxe.close()
        assert github.refused_connects == [], github.refused_connects

    ratio_ready = statistics.median(ready["remote"]) / statistics.median(ready["none"])
    ratio_refresh = statistics.median(refresh) / statistics.median(bare)
    print(f"start -> ready, GitHub remote + pull request  {summary(ready['remote'])}")
    print(f"start -> ready, no remote                     {summary(ready['none'])}")
    print(f"  ratio of medians {ratio_ready:.3f}   target <= 1.05 (gh is not on the handshake's path)")
    print(f"refresh_workspace -> workspace_updated        {summary(refresh)}")
    print(f"bare gh pr view --json (same fields)          {summary(bare)}")
    print(f"  ratio of medians {ratio_refresh:.3f}   target <= 1.20")


if __name__ == "__main__":
    main()
