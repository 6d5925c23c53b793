"""Read-only writes nothing, git's index included. A checkout whose files'
times changed but not their content (a `touch`, a checkout of another
branch and back, a build tool's copy): `git status` and `git diff HEAD`
rewrote .git/index to record the new times, and held index.lock while
they did (the person's own `git commit` then fails). The agent's git and
Luxe's own now leave the index alone (GIT_OPTIONAL_LOCKS and
diff.autoRefreshIndex at command scope), and `git describe --dirty`, which
writes it regardless, is no reader. Through the real `luxe --rpc`, read-only,
every reading command approved."""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from pathlib import Path

import pytest

from .e2e import call, tool_results
from .hostile import hostile_luxe, run_turn

COMMANDS = {
    "git status": "git status --short",
    "git diff HEAD": "git diff HEAD --stat; echo listed",
    "git diff from elsewhere": "cd src && git --no-pager -C .. diff HEAD -- . && echo compared",
    "a status in porcelain v2": "git status --porcelain=v2 --branch",
}


def stat_dirty(repo: Path) -> None:
    """Every tracked file's times moved past what the index records, and the
    index made older than them, as after a `touch` of the tree."""
    (repo / "src").mkdir(exist_ok=True)
    for name in ("src/a.py", "src/b.py"):
        (repo / name).write_text(f"# {name}\n")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "more"], check=True)
    now = time.time()
    os.utime(repo / ".git" / "index", (now - 100, now - 100))
    for path in repo.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            os.utime(path, (now - 10, now - 10))


def snapshot(repo: Path) -> dict[str, tuple[int, str]]:
    return {
        str(p.relative_to(repo)): (p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
        for p in (repo / ".git").rglob("*")
        if p.is_file()
    }


@pytest.mark.parametrize("spelling", list(COMMANDS))
def test_a_reading_git_leaves_the_index_as_it_was(
    spelling: str, repo: Path, env: dict[str, str]
) -> None:
    stat_dirty(repo)
    before = snapshot(repo)
    steps = [{"tool_calls": [call("bash", command=COMMANDS[spelling])]}, {"text": "done"}]
    with hostile_luxe(steps, "read-only", "--auto-approve", cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        results = tool_results(server.bodies[-1])
        assert luxe.close() == 0
    assert "[exit status 0]" in results[0], results
    after = snapshot(repo)
    assert after == before, sorted(k for k in after if after.get(k) != before.get(k))


@pytest.mark.parametrize("command", ["git describe --always --dirty", "git describe --al --dir=-x"])
def test_describe_dirty_is_refused_and_writes_nothing(
    command: str, repo: Path, env: dict[str, str]
) -> None:
    stat_dirty(repo)
    before = snapshot(repo)
    steps = [{"tool_calls": [call("bash", command=command)]}, {"text": "done"}]
    with hostile_luxe(steps, "read-only", "--auto-approve", cwd=repo, env=env) as (luxe, _server):
        frames = run_turn(luxe)
        assert luxe.close() == 0
    finished = [f["content"] for f in frames if f["kind"] == "tool_finished"]
    assert finished and finished[0]["denied"], finished
    assert snapshot(repo) == before
