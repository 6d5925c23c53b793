"""A Guided Review posted as one GitHub review through the real gh:
comments inside the pull request's diff become review comments, others are
folded into the body, the verdict is proposed, and a post after the
comments changed is refused."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import LuxeProcess

pytestmark = needs_gh


def _anchor(review: dict[str, Any], path: str, text: str) -> dict[str, Any]:
    file_id = next(f["id"] for f in review["files"] if f["path"] == path)
    for hunk in review["hunks"]:
        if hunk["file_id"] != file_id:
            continue
        for line in hunk["lines"]:
            if line["text"] == text and line["new_line"] is not None:
                return {"kind": "line", "file_id": file_id, "hunk_id": hunk["id"], "side": "new",
                        "line": line["new_line"]}
    raise AssertionError(f"no line {text!r} in {path}")


def _comment(luxe: LuxeProcess, rid: str, review_id: str, anchor: dict[str, Any], body: str,
             severity: str) -> None:
    luxe.send("edit_review", {"request_id": rid, "review_id": review_id, "edit": "comment",
                              "anchor": anchor, "body": body, "severity": severity})
    luxe.expect("review_session_saved", where=lambda c: c["request_id"] == rid)


def test_preview_post_and_a_post_after_the_comments_changed(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    repo = open_fix_retry(github, checkout).repo
    # A local commit the pull request does not have yet: its lines are outside the diff.
    checkout.commit("README.md", "# demo\nRetries twice.\n", "document it")
    luxe = spawn([{"error": "no chapters from the model"}], "--github-writes")
    luxe.handshake()
    luxe.send("load_guided_review", {"request_id": "r", "target": {"kind": "branch", "base": "main"}})
    review = luxe.expect("guided_review_loaded")["review"]
    luxe.expect("review_session_restored")
    rid = review["id"]
    _comment(luxe, "e1", rid, _anchor(review, "src/retry.py", "    return 2"), "Why 2?", "issue")
    _comment(luxe, "e2", rid, _anchor(review, "README.md", "Retries twice."), "Say why.", "nit")

    luxe.send("preview_pull_request_review", {"request_id": "v1", "review_id": rid,
                                              "pull_request": 1})
    preview = luxe.expect("pull_request_review_preview")
    assert preview["pull_request"] == 1 and preview["verdict"] == "request_changes"
    assert preview["comments"] == [
        {"path": "src/retry.py", "line": 2, "side": "RIGHT", "body": "Why 2?"}]
    assert preview["folded"] == ["`README.md` line 2: Say why."]
    assert "`README.md` line 2: Say why." in preview["body"]
    assert repo.pulls[1].reviews == []  # a preview publishes nothing

    luxe.send("post_pull_request_review", {"request_id": "v1"})
    posted = luxe.expect("pull_request_review_posted")
    assert posted["url"].startswith("https://ghe.test/o/r/pull/1#pullrequestreview-")
    (one,) = repo.pulls[1].reviews
    assert one.event == "REQUEST_CHANGES" and "Say why." in one.body
    assert one.comments == [{"path": "src/retry.py", "line": 2, "side": "RIGHT", "body": "Why 2?"}]
    # One review, never one request per comment.
    assert [n for n, _ in github.api.calls if n.startswith("POST")] == [
        "POST /repos/o/r/pulls/1/reviews"]
    luxe.send("post_pull_request_review", {"request_id": "v1"})
    assert "already posted" in luxe.expect("pull_request_review_post_failed")["reason"]

    # A new preview, then the comments change: what posts must be what was seen.
    luxe.send("preview_pull_request_review", {"request_id": "v2", "review_id": rid,
                                              "pull_request": 1})
    luxe.expect("pull_request_review_preview")
    _comment(luxe, "e3", rid, _anchor(review, "src/retry.py", "def retry():"), "Name?", "question")
    luxe.send("post_pull_request_review", {"request_id": "v2", "verdict": "comment"})
    refused = luxe.expect("pull_request_review_post_failed")
    assert refused["reason"] == "comments changed since the preview; preview again"
    assert len(repo.pulls[1].reviews) == 1
    luxe.close()


def test_a_failed_post_can_be_confirmed_again(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    from tests.fakes.github.api import Failure

    repo = open_fix_retry(github, checkout).repo
    github.api.failures.append(Failure("POST /repos/o/r/pulls/1/reviews", 502, "Bad Gateway"))
    luxe = spawn([{"error": "no chapters"}], "--github-writes")
    luxe.handshake()
    luxe.send("load_guided_review", {"request_id": "r", "target": {"kind": "branch", "base": "main"}})
    review = luxe.expect("guided_review_loaded")["review"]
    _comment(luxe, "e1", review["id"], _anchor(review, "src/retry.py", "    return 2"), "Ok", "praise")
    luxe.send("edit_review", {"request_id": "e2", "review_id": review["id"], "edit": "verdict",
                              "verdict": "approve", "body": "Looks right."})
    luxe.expect("review_session_saved", where=lambda c: c["request_id"] == "e2")
    # The branch's own pull request when none is named.
    luxe.send("preview_pull_request_review", {"request_id": "v", "review_id": review["id"]})
    preview = luxe.expect("pull_request_review_preview")
    assert (preview["pull_request"], preview["verdict"], preview["body"]) == (1, "approve",
                                                                            "Looks right.")
    luxe.send("post_pull_request_review", {"request_id": "v"})
    assert "502" in luxe.expect("pull_request_review_post_failed")["reason"]
    luxe.send("post_pull_request_review", {"request_id": "v"})
    luxe.expect("pull_request_review_posted")
    (posted,) = repo.pulls[1].reviews
    assert posted.event == "APPROVE" and json.dumps(posted.comments)
    luxe.close()
