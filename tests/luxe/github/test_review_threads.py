"""A Guided Review of a pull request, read through the real gh, shows the
pull request's GitHub review threads as read-only findings with author
`github:<login>`."""

from __future__ import annotations

from tests.fakes.github.model import Comment, Thread, User
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe

pytestmark = needs_gh


def test_threads_are_read_only_findings(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    pull = open_fix_retry(github, checkout)
    checkout.git("checkout", "-q", "main")
    open_thread = Thread("src/retry.py", 2, [Comment("Why 2?", User("mona")),
                                             Comment("Flaky network.", User("octo"))])
    done_thread = Thread("src/retry.py", 1, [Comment("Name it.", User("mona"))], side="LEFT",
                         isResolved=True)
    pull.threads += [open_thread, done_thread]
    luxe = spawn([{"error": "no chapters"}], "--github-writes")
    luxe.handshake()
    luxe.send("load_guided_review", {"request_id": "r",
                                     "target": {"kind": "pull_request", "number": pull.number}})
    review = luxe.expect("guided_review_loaded")["review"]
    assert [f["path"] for f in review["files"]] == ["src/retry.py"]
    session = luxe.expect("review_session_restored")["session"]
    first, second = session["findings"]
    assert first["id"] == f"github:{open_thread.id}" and first["read_only"] is True
    assert [(e["author"], e["body"]) for e in first["thread"]] == [
        ("github:mona", "Why 2?"), ("github:octo", "Flaky network.")]
    assert first["anchor"]["kind"] == "line" and first["anchor"]["side"] == "new"
    assert first["anchor"]["line"] == 2 and first["status"] == "open"
    assert second["status"] == "resolved" and second["anchor"]["side"] == "old"
    luxe.send("edit_review", {"request_id": "e", "review_id": review["id"], "edit": "reply",
                              "finding_id": first["id"], "body": "ok"})
    refused = luxe.expect("review_session_save_failed")
    assert "read-only" in refused["reason"] and "reply_review_thread" in refused["reason"]
    # Answering on GitHub, then reloading, shows the answer.
    luxe.send("reply_review_thread", {"request_id": "t", "thread_id": open_thread.id,
                                      "body": "Fixed."})
    luxe.expect("review_thread_updated")
    luxe.send("load_guided_review", {"request_id": "r2",
                                     "target": {"kind": "pull_request", "number": pull.number}})
    luxe.expect("guided_review_loaded")
    again = luxe.expect("review_session_restored")["session"]
    assert again["findings"][0]["thread"][-1] == {
        "author": "github:octo", "body": "Fixed.", "at": again["findings"][0]["thread"][-1]["at"]}
    luxe.close()
