"""How an agent turn on a thread ends when it brings no answer, end to end
over `luxe --rpc`: a fix whose every edit is denied (by the client or a
hook) fails instead of counting as done, and each other ending (a prompt
hook's denial, a provider error, out of turns, no report) leaves a `system`
entry that names its reason, with the finding still open."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.gitrepo import Repo
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.review.rpc_helpers import NO_CHAPTERS, line_anchor, load, saved
from tests.luxe.rpc_driver import LuxeProcess

BEFORE = "def fetch(call):\n    call()\n    return call()\n"


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("net/retry.py", "def fetch(call):\n    return call()\n")
    repo.commit("init")
    repo.write("net/retry.py", BEFORE)
    return repo


def send_to_agent(luxe: LuxeProcess, review: dict[str, Any], request_id: str, edit: str, body: str) -> str:
    """A new finding on `    call()` sent to the agent; returns its id."""
    fields = {"severity": "question"} if edit == "comment" else {}
    luxe.send("edit_review", {"request_id": request_id, "review_id": review["id"], "edit": edit,
                              "anchor": line_anchor(review, "    call()"), "body": body,
                              "send": True, **fields})  # fmt: skip
    session = saved(luxe, request_id)
    return str(session["findings"][-1]["id"])


def settled(luxe: LuxeProcess, finding_id: str) -> dict[str, Any]:
    """The finding once the agent's turn on it has left its result."""
    while True:
        session = saved(luxe, None, timeout=20)
        finding = next(f for f in session["findings"] if f["id"] == finding_id)
        fix = finding["fix"]
        if fix is not None and fix["state"] in ("done", "failed"):
            return finding
        if fix is None and finding["thread"][-1]["author"] != "reviewer":
            return finding


def entries(finding: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["author"], e["body"]) for e in finding["thread"]]


def write_hooks(env: dict[str, str], tmp_path: Path) -> None:
    """Hooks that deny the `edit` tool and any prompt naming FORBIDDEN."""
    hook = tmp_path / "deny.py"
    hook.write_text(
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        "use = event.get('ToolUse') or {}\n"
        "other = event.get('Other') or {}\n"
        "if use.get('tool_name') == 'edit':\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'edits wait for CI'}))\n"
        "elif isinstance(other, dict) and 'FORBIDDEN' in str(other.get('content', '')):\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'the prompt names a forbidden word'}))\n"
    )
    config = Path(env["XDG_CONFIG_HOME"]) / "luxe"
    config.mkdir(parents=True, exist_ok=True)
    command = [{"command": [sys.executable, str(hook)]}]
    (config / "hooks.json").write_text(
        json.dumps({"BeforeToolUse": command, "UserPromptSubmit": command})
    )


def test_denied_fixes_fail_and_a_denied_prompt_says_why(
    spawn: SpawnLuxe, project: Repo, env: dict[str, str], tmp_path: Path
) -> None:
    write_hooks(env, tmp_path)
    write = {"path": "net/retry.py", "content": "def fetch(call):\n    return call()\n"}
    edit = {"path": "net/retry.py", "old_string": "    call()\n", "new_string": ""}
    steps = [
        NO_CHAPTERS,
        {"tool_calls": [{"name": "write", "args": write}]},
        {"text": "I could not edit."},
        {"tool_calls": [{"name": "read", "args": {"path": "net/retry.py"}}, {"name": "edit", "args": edit}]},
        {"text": "The edit was blocked."},
    ]  # fmt: skip
    luxe = spawn(steps, cwd=project.path)  # permission mode "ask": write asks the client
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})

    # The client rejects the only edit; the agent then reports anyway.
    rejected = send_to_agent(luxe, review, "f1", "fix", "One call")
    asked = luxe.expect("permission_requested", timeout=20)
    luxe.send("respond_permission", {"id": asked["id"], "reply": "reject"})
    finding = settled(luxe, rejected)
    assert finding["fix"] == {"state": "failed", "report": "I could not edit."}
    assert finding["status"] == "open"
    assert entries(finding)[1:] == [
        ("agent", "I could not edit."),
        ("system", "The fix was not applied: every change the agent tried was denied "
                   "(write: the user rejected this call), so no file changed."),
    ]  # fmt: skip

    # A BeforeToolUse hook denies the edit (the read beside it ran: it changes nothing).
    blocked = send_to_agent(luxe, review, "f2", "fix", "Drop the extra call")
    finding = settled(luxe, blocked)
    assert finding["fix"]["state"] == "failed" and finding["status"] == "open"
    author, body = entries(finding)[-1]
    assert author == "system" and "was denied" in body and "edits wait for CI" in body, body
    assert (project.path / "net/retry.py").read_text() == BEFORE

    # A UserPromptSubmit hook denies the turn itself: no model request is made.
    for request_id, kind, what in [("q1", "comment", "answer"), ("f3", "fix", "fix")]:
        denied = send_to_agent(luxe, review, request_id, kind, f"Is FORBIDDEN used? ({kind})")
        finding = settled(luxe, denied)
        assert finding["status"] == "open"
        assert entries(finding)[-1] == (
            "system",
            f"The {what} stopped: a permission or hook denied it "
            "(the prompt names a forbidden word).",
        )
        if kind == "fix":
            assert finding["fix"]["state"] == "failed"
    assert luxe.close() == 0


def test_error_max_turns_and_no_report_each_leave_a_system_entry(
    spawn: SpawnLuxe, project: Repo
) -> None:
    steps = [
        NO_CHAPTERS,
        {"error": "the model is overloaded"},
        {"error": "the model is overloaded"},
        {"tool_calls": [{"name": "read", "args": {"path": "net/retry.py"}}]},
        {"text": ""},
        {"text": ""},
    ]
    luxe = spawn(steps, "--max-turns", "1", cwd=project.path)
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    expected = [
        ("fix", "The fix failed: ", "the model is overloaded"),
        ("comment", "The answer failed: ", "the model is overloaded"),
        ("fix", "The fix stopped: the agent ran out of turns before it reported",
         "stopped after 1 model requests"),
        ("fix", "The agent ended its turn without a report.", ""),
        ("comment", "The agent ended its turn without an answer.", ""),
    ]  # fmt: skip
    for number, (kind, opening, detail) in enumerate(expected):
        finding_id = send_to_agent(luxe, review, f"e{number}", kind, f"Please look ({number})")
        finding = settled(luxe, finding_id)
        author, body = entries(finding)[-1]
        assert author == "system" and body.startswith(opening) and detail in body, body
        assert finding["status"] == "open"
        assert finding["fix"] == ({"state": "failed", "report": None} if kind == "fix" else None)
    assert (project.path / "net/retry.py").read_text() == BEFORE
    assert luxe.close() == 0
