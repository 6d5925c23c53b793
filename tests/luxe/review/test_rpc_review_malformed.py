"""A malformed Guided Review frame that carries a string request_id is
answered once under it (with the action's own failure event) and changes
nothing; only a frame with no usable request_id gets `action_rejected`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.gitrepo import Repo
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.review.rpc_helpers import NO_CHAPTERS, line_anchor, load, saved
from tests.luxe.rpc_driver import LuxeProcess


@pytest.fixture
def project(repo: Repo) -> Repo:
    repo.write("net/retry.py", "def fetch(call):\n    return call()\n")
    repo.commit("init")
    repo.write("net/retry.py", "def fetch(call):\n    call()\n    return call()\n")
    return repo


def answer(luxe: LuxeProcess) -> dict[str, Any]:
    """The next frame that answers an action: its content, and its kind as `frame`."""
    answers = {
        "action_rejected", "review_session_saved", "review_session_save_failed",
        "guided_review_loaded", "guided_review_load_failed",
        "review_chapters_committed", "review_chapters_commit_failed",
    }  # fmt: skip
    while True:
        frame = luxe.next_frame(timeout=20)
        if frame["kind"] in answers:
            return {**frame.get("content", {}), "frame": frame["kind"]}


def test_malformed_review_frames_are_answered_under_their_request_id(
    spawn: SpawnLuxe, project: Repo
) -> None:
    luxe = spawn([NO_CHAPTERS], cwd=project.path)
    luxe.expect("ready")
    review, session = load(luxe, "r1", {"kind": "working_tree"})
    rid = review["id"]
    anchor = line_anchor(review, "    call()")

    edits: list[tuple[str, dict[str, Any], str]] = [
        ("f1", {"edit": "bogus"}, "edit_review: field `edit` must be one of"),
        ("f2", {"edit": "comment", "anchor": anchor, "body": "Hm", "severity": "bogus"},
         "edit_review: field `severity` must be one of"),
        ("f3", {"edit": "comment", "anchor": anchor, "body": 7},
         "edit_review: field `body` must be a string"),
        ("f4", {"edit": "comment", "anchor": "line 2", "body": "Hm"},
         "edit_review: field `anchor` must be an object"),
        ("f5", {"edit": "reply", "finding_id": "x", "body": "Hm", "send": "yes"},
         "edit_review: field `send` must be true or false"),
    ]  # fmt: skip
    for request_id, fields, reason in edits:
        luxe.send("edit_review", {"request_id": request_id, "review_id": rid, **fields})
        got = answer(luxe)
        assert got["frame"] == "review_session_save_failed", got
        assert got["request_id"] == request_id and got["reason"].startswith(reason), got
    luxe.send("edit_review", {"request_id": "f6", "edit": "resolve", "finding_id": "x"})
    assert answer(luxe) == {"frame": "review_session_save_failed", "request_id": "f6",
                            "reason": "edit_review: missing field `review_id`"}  # fmt: skip

    luxe.send("load_guided_review", {"request_id": "l1", "target": "working_tree"})
    assert answer(luxe) == {"frame": "guided_review_load_failed", "request_id": "l1",
                            "reason": "load_guided_review: field `target` must be an object"}  # fmt: skip
    luxe.send("load_guided_review", {"request_id": "l2"})
    assert answer(luxe) == {"frame": "guided_review_load_failed", "request_id": "l2",
                            "reason": "load_guided_review: missing field `target`"}  # fmt: skip
    luxe.send("commit_review_chapters", {"request_id": "k1", "review_id": rid, "chapters": "all"})
    assert answer(luxe) == {"frame": "review_chapters_commit_failed", "request_id": "k1",
                            "reason": "commit_review_chapters: field `chapters` must be a list"}  # fmt: skip
    luxe.send("commit_review_chapters", {"request_id": "k2", "review_id": rid, "chapters": [1]})
    got = answer(luxe)
    assert (got["frame"], got["request_id"]) == ("review_chapters_commit_failed", "k2"), got
    assert "item 0 must be a string" in got["reason"]

    # No usable request_id (none, or not a string): nothing to answer under.
    for content in (
        {"review_id": rid, "edit": "bogus"},
        {"request_id": 5, "review_id": rid, "edit": "bogus"},
        {"request_id": None, "target": {"kind": "working_tree"}},
    ):
        kind = "load_guided_review" if "target" in content else "edit_review"
        luxe.send(kind, content)
        got = answer(luxe)
        assert (got["frame"], got["kind"]) == ("action_rejected", kind), got
        assert "request_id" not in got and got["reason"].startswith(f"{kind}: "), got

    # Nothing changed: the same review is open, its session untouched, no commit made.
    assert project.log() == ["init"]
    luxe.send("edit_review", {"request_id": "ok", "review_id": rid, "edit": "comment",
                              "anchor": anchor, "body": "Why twice?"})  # fmt: skip
    after = saved(luxe, "ok")
    assert after["session_revision"] == session["session_revision"] + 1
    assert [f["thread"][0]["body"] for f in after["findings"]] == ["Why twice?"]
    assert luxe.close() == 0
