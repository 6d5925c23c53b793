"""Reading a pull request and its threads, commenting, answering and
resolving threads, updating and merging (each method), through the real gh
over `luxe --rpc`."""

from __future__ import annotations

import pytest

from tests.fakes.github.model import Comment, Thread
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe

pytestmark = needs_gh


def _pull(github: FakeGitHub, checkout: Checkout) -> int:
    return open_fix_retry(github, checkout).number


def test_load_comment_reply_and_resolve(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    number = _pull(github, checkout)
    pull = github.world.repos["o/r"].pulls[number]
    thread = Thread("src/retry.py", 2, [Comment("Why 2?")])
    pull.threads.append(thread)
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    luxe.send("load_pull_request", {"request_id": "l"})
    loaded = luxe.expect("pull_request_loaded")
    assert loaded["pull_request"]["number"] == number
    (seen,) = loaded["threads"]
    assert (seen["id"], seen["path"], seen["line"], seen["side"], seen["resolved"]) == (
        thread.id, "src/retry.py", 2, "right", False)
    assert [(c["author"], c["body"]) for c in seen["comments"]] == [("reviewer", "Why 2?")]
    luxe.send("load_pull_request", {"request_id": "l404", "number": 404})
    assert "404" in luxe.expect("pull_request_load_failed")["reason"]

    luxe.send("post_comment", {"request_id": "c", "body": "Thanks!"})
    posted = luxe.expect("comment_posted")
    assert posted["url"].startswith(f"https://ghe.test/o/r/pull/{number}#issuecomment-")
    assert [c.body for c in pull.issue_comments] == ["Thanks!"]

    luxe.send("reply_review_thread", {"request_id": "t1", "thread_id": thread.id,
                                      "body": "Fixed, and a newline\nin it."})
    replied = luxe.expect("review_thread_updated")
    assert replied["resolved"] is False and replied["url"]
    assert thread.comments[-1].body == "Fixed, and a newline\nin it."
    luxe.send("resolve_review_thread", {"request_id": "t2", "thread_id": thread.id})
    assert luxe.expect("review_thread_updated")["resolved"] is True
    assert thread.isResolved
    luxe.send("resolve_review_thread", {"request_id": "t3", "thread_id": "PRRT_nope"})
    assert "PRRT_nope" in luxe.expect("review_thread_update_failed")["reason"]
    luxe.close()


def test_update_title_base_and_draft(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    number = _pull(github, checkout)
    checkout.git("push", "-q", "origin", "main:release")
    pull = github.world.repos["o/r"].pulls[number]
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    luxe.send("update_pull_request", {"request_id": "u", "number": number, "title": "Retry 2x",
                                      "base": "release", "draft": True})
    assert luxe.expect("pull_request_updated")["number"] == number
    assert (pull.title, pull.baseRefName, pull.isDraft) == ("Retry 2x", "release", True)
    luxe.send("update_pull_request", {"request_id": "u2", "number": number, "draft": False})
    luxe.expect("pull_request_updated")
    assert pull.isDraft is False
    luxe.send("update_pull_request", {"request_id": "u3", "number": number, "base": "nowhere"})
    assert luxe.expect("pull_request_update_failed")["reason"]
    luxe.close()


@pytest.mark.parametrize("method", ["merge", "squash", "rebase"])
def test_merge_with_each_method(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, method: str
) -> None:
    number = _pull(github, checkout)
    repo = github.world.repos["o/r"]
    before = repo.sha("main")
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    luxe.send("merge_pull_request", {"request_id": "m", "number": number, "method": method})
    merged = luxe.expect("pull_request_merged")
    assert merged == {"request_id": "m", "number": number, "method": method}
    pull = repo.pulls[number]
    assert pull.state == "MERGED" and pull.merge_method == method.upper()
    subjects = checkout.git("--git-dir", str(repo.path), "log", "--format=%s", f"{before}..main")
    expected = {
        "merge": ["Merge pull request #1 from o/fix-retry", "retry twice"],
        "squash": ["Retry twice (#1)"],
        "rebase": ["retry twice"],
    }[method]
    assert subjects.splitlines() == expected
    luxe.send("merge_pull_request", {"request_id": "m2", "number": number, "method": method})
    assert luxe.expect("pull_request_merge_failed")["reason"] == (
        f"pull request #{number} is merged, not open")
    luxe.close()


def test_a_repository_that_is_not_owner_name_is_refused(
    spawn: SpawnLuxe, github: FakeGitHub
) -> None:
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    for bad in ("@/etc/passwd", "o/r/../../x", "-R/x", "o"):
        luxe.send("load_pull_request", {"request_id": "l", "number": 1, "repository": bad})
        assert "is not owner/name" in luxe.expect("pull_request_load_failed")["reason"]
        luxe.send("merge_pull_request", {"request_id": "m", "number": 1, "method": "merge",
                                         "repository": bad})
        assert "is not owner/name" in luxe.expect("pull_request_merge_failed")["reason"]
    luxe.close()
    assert [n for n, _ in github.api.calls if n not in ("PullRequestForBranch",)] == []
