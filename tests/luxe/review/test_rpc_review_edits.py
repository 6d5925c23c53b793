"""Every edit kind and its failures over `luxe --rpc`, the range and branch
targets, and an invalid chapter proposal falling back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.gitrepo import Repo
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.review.rpc_helpers import line_anchor, load
from tests.luxe.rpc_driver import LuxeProcess


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("src/cache.py", "SIZE = 10\n\ndef get(key):\n    return None\n")
    repo.write("tests/test_cache.py", "def test_get():\n    pass\n")
    repo.commit("init")
    repo.write("src/cache.py", "SIZE = 100\n\ndef get(key):\n    return STORE.get(key)\n")
    repo.write("tests/test_cache.py", "def test_get():\n    assert get('x') is None\n")
    return repo


def edit(luxe: LuxeProcess, request_id: str, review_id: str, **fields: Any) -> dict[str, Any]:
    """Send one edit; returns the answer's content with its kind."""
    luxe.send("edit_review", {"request_id": request_id, "review_id": review_id, **fields})
    while True:
        frame = luxe.next_frame()
        content = frame.get("content", {})
        if frame["kind"] in ("review_session_saved", "review_session_save_failed") and (
            content.get("request_id") == request_id
        ):
            return {"kind": frame["kind"], **content}


def test_every_edit_kind_and_failure(spawn: SpawnLuxe, project: Repo) -> None:
    # An invalid proposal (one hunk in no chapter) falls back to the directories.
    bad_proposal = {"chapters": [{"title": "Only one", "summary": "", "hunk_ids": ["hunk:nope"]}]}
    luxe = spawn(
        [{"tool_calls": [{"name": "propose_chapters", "args": bad_proposal}]}], cwd=project.path
    )
    luxe.expect("ready")
    review, _ = load(luxe, "r1", {"kind": "working_tree"})
    assert [c["title"] for c in review["chapters"]] == [
        "Update src/cache.py",
        "Update tests/test_cache.py",
    ]
    rid = review["id"]
    anchor = line_anchor(review, "SIZE = 100")

    comment = edit(
        luxe, "e1", rid, edit="comment", anchor=anchor, body="Why 100?", severity="question"
    )
    (finding,) = comment["session"]["findings"]
    fid = finding["id"]
    steps: list[tuple[dict[str, Any], Any]] = [
        ({"edit": "reply", "finding_id": fid, "body": "Memory?"}, lambda f: f["thread"][-1]["body"] == "Memory?"),
        ({"edit": "edit", "finding_id": fid, "body": "Why 100 entries?"}, lambda f: f["thread"][0]["body"] == "Why 100 entries?"),
        ({"edit": "resolve", "finding_id": fid}, lambda f: f["status"] == "resolved"),
        ({"edit": "reopen", "finding_id": fid}, lambda f: f["status"] == "open"),
        ({"edit": "fix", "finding_id": fid, "body": "Make it 64"}, lambda f: f["fix"] == {"state": "requested", "report": None}),
    ]  # fmt: skip
    revision = comment["session"]["session_revision"]
    for n, (fields, check) in enumerate(steps, 2):
        answer = edit(luxe, f"e{n}", rid, **fields)
        assert answer["kind"] == "review_session_saved", answer
        assert check(answer["session"]["findings"][0]), fields
        assert answer["session"]["session_revision"] == revision + 1
        revision += 1
    verdict = edit(luxe, "v1", rid, edit="verdict", verdict="request_changes", body="Size it")
    assert verdict["session"]["verdict"]["decision"] == "request_changes"
    deleted = edit(luxe, "d1", rid, edit="delete", finding_id=fid)
    assert deleted["session"]["findings"] == []

    failures = [
        ({"edit": "reply", "finding_id": fid, "body": "gone"}, f"unknown finding {fid}"),
        ({"edit": "comment", "anchor": {**anchor, "line": 99}, "body": "x"}, "new line 99 is not in hunk"),
        ({"edit": "comment", "anchor": {"kind": "file", "file_id": "file:0"}, "body": "x"}, "file file:0 is not in the review"),
        ({"edit": "comment", "anchor": {"kind": "review"}, "body": "   "}, "a comment needs a body"),
        ({"edit": "comment", "body": "no anchor"}, "required field missing"),
        ({"edit": "verdict", "verdict": "comment"}, "a comment verdict needs a body"),
        ({"edit": "fix"}, "a fix needs a finding_id, or an anchor and a body"),
    ]  # fmt: skip
    for n, (fields, reason) in enumerate(failures):
        answer = edit(luxe, f"x{n}", rid, **fields)
        assert answer["kind"] == "review_session_save_failed" and reason in answer["reason"], answer
    # Nothing changed: the next save counts on from the last one.
    after = edit(luxe, "last", rid, edit="comment", anchor={"kind": "review"}, body="Done")
    assert after["session"]["session_revision"] == deleted["session"]["session_revision"] + 1
    assert luxe.close() == 0


def test_range_and_branch_targets(spawn: SpawnLuxe, project: Repo) -> None:
    base = project.head()
    project.git("checkout", "-q", "-b", "feature")
    project.commit("bigger cache")
    luxe = spawn([{"error": "no chapters"}] * 3, cwd=project.path)
    luxe.expect("ready")
    ranged, _ = load(luxe, "a", {"kind": "range", "base": base, "head": "feature"})
    branch, _ = load(luxe, "b", {"kind": "branch"})
    explicit, _ = load(luxe, "c", {"kind": "branch", "base": "main"})
    assert ranged["revision_id"] == branch["revision_id"] == explicit["revision_id"]
    assert len({ranged["id"], branch["id"], explicit["id"]}) == 3
    assert (branch["base"], branch["head"]) == (base, project.head())
    assert {f["path"] for f in branch["files"]} == {"src/cache.py", "tests/test_cache.py"}
    assert branch["target"] == {"kind": "branch", "base": None}
    luxe.send("commit_review_chapters", {"request_id": "k", "review_id": explicit["id"]})
    refused = luxe.expect("review_chapters_commit_failed")
    assert "already committed" in refused["reason"]
    assert luxe.close() == 0


def test_a_session_that_cannot_be_saved_is_a_failed_save(spawn: SpawnLuxe, project: Repo) -> None:
    (project.path / ".luxe").mkdir()
    (project.path / ".luxe" / "reviews").write_text("not a directory\n")
    project.git("add", ".luxe")
    project.commit("a file where the store would go")
    project.write("src/cache.py", "SIZE = 1\n")
    luxe = spawn([{"error": "no chapters"}], cwd=project.path)
    luxe.expect("ready")
    review, session = load(luxe, "r1", {"kind": "working_tree"})
    assert session["findings"] == []
    answer = edit(luxe, "e1", review["id"], edit="comment", anchor={"kind": "review"}, body="Hi")
    assert answer["kind"] == "review_session_save_failed"
    assert answer["reason"].startswith("cannot save the session:")
    assert luxe.close() == 0
