"""Guided Review's agent over a real provider (the fake model server), an
interrupted fix across a restart, and a hook that denies commits."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from luxe.review.load import read_review
from luxe.review.model import WorkingTreeTarget
from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.gitrepo import Repo
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.review.rpc_helpers import NO_CHAPTERS, line_anchor, load, saved
from tests.luxe.rpc_driver import live_descendants


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("net/retry.py", "def fetch(call):\n    return call()\n")
    repo.commit("init")
    repo.write("net/retry.py", "def fetch(call):\n    call()\n    return call()\n")
    repo.write("docs/retry.md", "# Retry\n\nCalls twice.\n")
    return repo


def request_text(body: dict[str, Any]) -> str:
    """Everything the model was told in one Anthropic request, as text."""
    return json.dumps(body, ensure_ascii=False)


def test_chapters_and_a_question_through_the_provider(spawn: SpawnLuxe, project: Repo) -> None:
    expected, _ = trio.run(read_review, project.path, WorkingTreeTarget())
    ids = [h.id for h in expected.hunks]
    docs, code = ([h.id for h in expected.hunks if h.file_id == f.id] for f in expected.files)
    proposal = {
        "chapters": [
            {"title": "Fetch calls twice", "summary": "the change", "hunk_ids": code},
            {"title": "Say so in the docs", "summary": "the docs", "hunk_ids": docs},
        ]
    }
    steps = [
        {"tool_calls": [{"name": "propose_chapters", "args": proposal}]},
        {"text": "To warm the connection pool before the real call."},
    ]
    with FakeLLMServer(steps) as server:
        env_extra = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test-key"}
        luxe = spawn(
            None, "--model", "anthropic/claude-sonnet-4-5", cwd=project.path, env_extra=env_extra
        )
        luxe.expect("ready")
        review, _ = load(luxe, "r1", {"kind": "working_tree"})
        assert [c["title"] for c in review["chapters"]] == [
            "Fetch calls twice",
            "Say so in the docs",
        ]

        chapters_request = server.requests[0].body
        assert [t["name"] for t in chapters_request["tools"]] == ["propose_chapters"]
        for hunk_id in ids:
            assert hunk_id in request_text(chapters_request["messages"])

        luxe.send("edit_review", {"request_id": "q1", "review_id": review["id"], "edit": "comment",
                                  "anchor": line_anchor(review, "    call()"),
                                  "body": "Why call twice?", "severity": "question", "send": True})  # fmt: skip
        saved(luxe, "q1")
        answered = saved(luxe, None)
        thread = answered["findings"][0]["thread"]
        assert thread[-1] == {**thread[-1], "author": "agent",
                              "body": "To warm the connection pool before the real call."}  # fmt: skip
        # The turn was scoped to the finding: its hunk, file and thread.
        question = request_text(server.requests[1].body["messages"])
        for needed in ("Why call twice?", "net/retry.py, new line 2", "+    call()", "[reviewer]"):
            assert needed in question, needed
        assert luxe.close() == 0


def test_a_fix_interrupted_by_close_is_failed_on_the_next_load(
    spawn: SpawnLuxe, project: Repo
) -> None:
    luxe = spawn(
        [NO_CHAPTERS, {"tool_calls": [{"name": "bash", "args": {"command": "sleep 30"}}]}],
        "--yolo",
        cwd=project.path,
    )
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    luxe.send("edit_review", {"request_id": "f1", "review_id": review["id"], "edit": "fix",
                              "anchor": {"kind": "review"}, "body": "Make it faster", "send": True})  # fmt: skip
    saved(luxe, "f1")
    luxe.expect("tool_started")
    assert luxe.close() == 0
    assert live_descendants(luxe.pid) == []  # the fix's shell died with luxe

    again = spawn([], cwd=project.path)
    again.expect("ready")
    _, session = load(again, "r2", {"kind": "working_tree"})
    (finding,) = session["findings"]
    assert finding["fix"]["state"] == "failed" and finding["status"] == "open"
    assert finding["thread"][-1]["author"] == "system"
    assert again.close() == 0


def test_a_hook_can_deny_chapter_commits(
    spawn: SpawnLuxe, project: Repo, env: dict[str, str], tmp_path: Path
) -> None:
    config = Path(env["XDG_CONFIG_HOME"]) / "luxe"
    config.mkdir(parents=True, exist_ok=True)
    hook = tmp_path / "deny_commits.py"
    hook.write_text(
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        "if event['ToolUse']['tool_name'] == 'commit_review_chapters':\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'commits wait for CI'}))\n"
    )
    (config / "hooks.json").write_text(
        json.dumps({"BeforeToolUse": [{"command": [sys.executable, str(hook)]}]})
    )
    luxe = spawn([NO_CHAPTERS], cwd=project.path)
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    luxe.send("commit_review_chapters", {"request_id": "k1", "review_id": review["id"]})
    refused = luxe.expect("review_chapters_commit_failed")
    assert refused == {"request_id": "k1", "reason": "commits wait for CI"}
    assert project.log() == ["init"]
    assert luxe.close() == 0


def test_edits_while_the_agent_works_are_kept_with_its_answer(
    spawn: SpawnLuxe, project: Repo
) -> None:
    luxe = spawn([NO_CHAPTERS, {"delay_s": 1.0, "text": "It warms the pool."}], cwd=project.path)
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    rid = review["id"]
    luxe.send("edit_review", {"request_id": "q", "review_id": rid, "edit": "comment",
                              "anchor": line_anchor(review, "    call()"), "body": "Why?",
                              "severity": "question", "send": True})  # fmt: skip
    question = saved(luxe, "q")["findings"][0]["id"]
    luxe.expect("turn_started")
    # While the model thinks, the reviewer goes on.
    luxe.send("edit_review", {"request_id": "n", "review_id": rid, "edit": "comment",
                              "anchor": {"kind": "file", "file_id": review["files"][0]["id"]},
                              "body": "Docs read well", "severity": "praise"})  # fmt: skip
    luxe.send("edit_review", {"request_id": "r", "review_id": rid, "edit": "reply",
                              "finding_id": question, "body": "Is it needed at all?"})  # fmt: skip
    assert len(saved(luxe, "r")["findings"]) == 2
    final = saved(luxe, None)
    threads = {f["id"]: [(e["author"], e["body"]) for e in f["thread"]] for f in final["findings"]}
    assert threads[question] == [
        ("reviewer", "Why?"),
        ("reviewer", "Is it needed at all?"),
        ("agent", "It warms the pool."),
    ]
    assert len(threads) == 2  # the praise is still there
    assert luxe.close() == 0


def test_a_fix_asks_the_client_before_it_edits(spawn: SpawnLuxe, project: Repo) -> None:
    write = {"path": "net/retry.py", "content": "def fetch(call):\n    return call()\n"}
    steps = [
        NO_CHAPTERS,
        {"tool_calls": [{"name": "write", "args": write}]},
        {"text": "Wrote fetch back to one call."},
    ]
    luxe = spawn(steps, cwd=project.path)  # permission mode "ask"
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    luxe.send("edit_review", {"request_id": "f", "review_id": review["id"], "edit": "fix",
                              "anchor": line_anchor(review, "    call()"), "body": "One call", "send": True})  # fmt: skip
    asked = luxe.expect("permission_requested")
    assert asked["tool"] == "write"
    assert (project.path / "net/retry.py").read_text() == "def fetch(call):\n    call()\n    return call()\n"
    luxe.send("respond_permission", {"id": asked["id"], "reply": "once"})
    while True:
        session = saved(luxe, None)
        fix = session["findings"][0]["fix"]
        if fix["state"] == "done":
            break
    assert fix["report"] == "Wrote fetch back to one call."
    assert (project.path / "net/retry.py").read_text() == write["content"]
    assert luxe.close() == 0
