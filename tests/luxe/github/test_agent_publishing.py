"""The agent's own GitHub writes are permission rules, not the flag: a
`gh pr merge` asks first (even when an allow rule covers gh), and runs for
real in yolo."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe

pytestmark = needs_gh

MERGE = [
    {"tool_calls": [{"name": "bash", "args": {"command": "gh pr merge 1 --squash"}}]},
    {"text": "done"},
]


def test_an_agent_gh_pr_merge_asks(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, env: dict[str, str]
) -> None:
    open_fix_retry(github, checkout)
    config = Path(env["XDG_CONFIG_HOME"]) / "luxe"
    config.mkdir(parents=True, exist_ok=True)
    (config / "permissions.json").write_text('{"allow": ["bash(gh *)"]}')
    luxe = spawn(MERGE, "--permission-mode", "accept-edits")
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "merge it"})
    asked = luxe.expect("permission_requested")
    assert asked["args"] == {"command": "gh pr merge 1 --squash"}
    assert "publishes (gh pr merge)" in asked["reason"]
    luxe.send("respond_permission", {"id": asked["id"], "reply": "reject"})
    luxe.expect("turn_ended")
    assert github.world.repos["o/r"].pulls[1].state == "OPEN"
    luxe.close()


def test_yolo_runs_it(spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout) -> None:
    open_fix_retry(github, checkout)
    luxe = spawn(MERGE, "--yolo")
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "merge it"})
    finished = luxe.expect("tool_finished")
    assert finished["is_error"] is False, finished
    luxe.expect("turn_ended")
    assert github.world.repos["o/r"].pulls[1].state == "MERGED"
    # The turn ran gh: the workspace follows on its own.
    merged = luxe.expect("workspace_updated", where=lambda c: c["pull_request"] is not None
                         and c["pull_request"]["state"] == "merged")
    assert merged["github"] == "ok"
    luxe.close()


def test_read_only_refuses_it(spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout) -> None:
    open_fix_retry(github, checkout)
    luxe = spawn(MERGE, "--read-only")
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "merge it"})
    finished = luxe.expect("tool_finished")
    assert finished["denied"] is True and "read-only" in finished["summary"]
    luxe.expect("turn_ended")
    assert github.world.repos["o/r"].pulls[1].state == "OPEN"
    luxe.close()
