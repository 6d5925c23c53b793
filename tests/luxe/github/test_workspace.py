"""workspace_updated: once after ready, on refresh_workspace, after a turn
that ran git, polled while checks are pending, and one frame saying why
when gh is missing, unauthenticated or the remote is not GitHub."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.github.model import Check
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import processes_with_marker, wait_until

pytestmark = needs_gh


def _open_pull(github: FakeGitHub, checkout: Checkout, *checks: Check) -> int:
    pull = open_fix_retry(github, checkout)
    pull.checks.extend(checks)
    return pull.number


def test_after_ready_without_a_pull_request(spawn: SpawnLuxe) -> None:
    luxe = spawn([])
    luxe.handshake()
    update = luxe.expect("workspace_updated")
    assert update == {
        "branch": "main", "upstream": "origin/main", "ahead": 0, "behind": 0, "dirty": False,
        "pull_request": None, "github": "ok",
    }
    luxe.close()


def test_pending_checks_are_polled_until_they_finish(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    number = _open_pull(github, checkout, Check("ci", "IN_PROGRESS", None, "https://ci/1"))
    luxe = spawn([], env_extra={"LUXE_GITHUB_POLL_S": "0.3"})
    luxe.handshake()
    first = luxe.expect("workspace_updated")
    pull = first["pull_request"]
    assert pull["number"] == number and pull["state"] == "open" and pull["head"] == "fix-retry"
    assert pull["checks"] == [
        {"name": "ci", "status": "in_progress", "conclusion": None, "url": "https://ci/1"}
    ]
    check = github.world.repos["o/r"].pulls[number].checks[0]
    check.status, check.conclusion = "COMPLETED", "SUCCESS"
    done = luxe.expect("workspace_updated")  # nobody asked: the poll saw the change
    assert done["pull_request"]["checks"][0]["conclusion"] == "success"
    luxe.close()


def test_refresh_and_a_turn_that_ran_git(spawn: SpawnLuxe, checkout: Checkout) -> None:
    steps = [
        {"tool_calls": [{"name": "bash", "args": {"command": "git checkout -q -b topic"}}]},
        {"text": "switched"},
    ]
    luxe = spawn(steps, "--yolo")
    luxe.handshake()
    assert luxe.expect("workspace_updated")["branch"] == "main"
    luxe.send("refresh_workspace")
    assert luxe.expect("workspace_updated")["branch"] == "main"  # asked: sent though unchanged
    luxe.send("submit_user_message", {"text": "make a topic branch"})
    luxe.expect("turn_ended")
    after = luxe.expect("workspace_updated")
    assert after["branch"] == "topic" and after["upstream"] is None
    (checkout.path / "new.txt").write_text("x")
    luxe.send("refresh_workspace")
    assert luxe.expect("workspace_updated")["dirty"] is True
    luxe.close()


def test_without_gh(spawn: SpawnLuxe, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin-without-gh"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to("/usr/bin/git")
    luxe = spawn([], env_extra={"PATH": str(bin_dir)})
    luxe.handshake()
    update = luxe.expect("workspace_updated")
    assert update["github"] == "gh_missing" and update["branch"] == "main"
    luxe.close()
    assert [f for f in luxe.frames if f["kind"] == "workspace_updated"] == [
        {"kind": "workspace_updated", "content": update}
    ]


@pytest.mark.parametrize("planted", ["not executable", "a directory"])
def test_a_gh_that_cannot_start_is_a_status_not_the_end(
    spawn: SpawnLuxe, tmp_path: Path, planted: str
) -> None:
    """A `gh` on PATH that will not start: the workspace says why, and the
    session answers the next request."""
    bin_dir = tmp_path / "bin-with-a-broken-gh"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to("/usr/bin/git")
    if planted == "a directory":
        (bin_dir / "gh").mkdir()
    else:
        (bin_dir / "gh").write_text("not a program\n")
    luxe = spawn([], env_extra={"PATH": str(bin_dir)})
    luxe.handshake()
    update = luxe.expect("workspace_updated")
    assert update["github"] == "error: gh could not start: Permission denied"
    luxe.send("refresh_workspace")
    assert luxe.expect("workspace_updated")["branch"] == "main"
    assert luxe.close() == 0


def test_unauthenticated(spawn: SpawnLuxe, github: FakeGitHub) -> None:
    github.api.authenticated = False
    luxe = spawn([])
    luxe.handshake()
    assert luxe.expect("workspace_updated")["github"] == "not_authenticated"
    luxe.send("refresh_workspace")
    assert luxe.expect("workspace_updated")["github"] == "not_authenticated"
    luxe.close()
    errors = [f for f in luxe.frames if f["kind"] == "error"]
    assert errors == []


def test_a_remote_that_is_not_github(spawn: SpawnLuxe, checkout: Checkout, tmp_path: Path) -> None:
    checkout.git("remote", "set-url", "origin", str(tmp_path / "elsewhere.git"))
    luxe = spawn([])
    luxe.handshake()
    assert luxe.expect("workspace_updated")["github"] == "no_github_remote"
    luxe.close()


def test_the_handshake_does_not_wait_for_a_slow_github(
    spawn: SpawnLuxe, github: FakeGitHub
) -> None:
    github.api.delay_s = 30.0
    luxe = spawn([{"text": "hi"}])
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "hello"})
    ended = luxe.collect_until("turn_ended")
    # The turn ran while gh still waited on GitHub.
    assert "workspace_updated" not in [f["kind"] for f in ended]
    luxe.close()


def test_close_while_gh_waits_on_github_leaves_no_gh_behind(
    spawn: SpawnLuxe, github: FakeGitHub, env: dict[str, str]
) -> None:
    github.api.delay_s = 20.0
    luxe = spawn([])
    luxe.handshake()
    running = wait_until(lambda: processes_with_marker("pr view", scope=env), what="gh running")
    assert running
    luxe.close()  # exits 0 without waiting for GitHub
    assert processes_with_marker("pr view", scope=env) == []
    assert "workspace_updated" not in [f["kind"] for f in luxe.frames]


def test_offline(spawn: SpawnLuxe) -> None:
    # Nothing listens on port 1: gh cannot reach GitHub at all.
    luxe = spawn([], env_extra={"HTTPS_PROXY": "http://127.0.0.1:1",
                                "https_proxy": "http://127.0.0.1:1"})
    luxe.handshake()
    update = luxe.expect("workspace_updated")
    assert update["github"] == "offline" and update["pull_request"] is None
    assert update["branch"] == "main"
    luxe.close()
