"""GitHub's answer may hold a null where a thread or a comment should be
(one the viewer may not see), or where a comment's author should be (a
deleted account). Luxe shows the threads it can read and skips the rest:
one null once failed the whole Guided Review of the pull request and
`load_pull_request` with "internal error: AttributeError". The real
`luxe --rpc`, the real gh and the fake GitHub."""

from __future__ import annotations

import pytest

from tests.fakes.github.model import Comment, Thread, User
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe

pytestmark = needs_gh


@pytest.mark.parametrize("null", ["a thread", "a comment", "a comment's author"])
def test_a_null_in_the_threads_is_skipped(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, null: str
) -> None:
    pull = open_fix_retry(github, checkout)
    checkout.git("checkout", "-q", "main")
    good = Thread("src/retry.py", 2, [Comment("Why 2?", User("mona"))])
    author = "mona"
    if null == "a thread":
        pull.threads += [None, good]  # type: ignore[list-item]
    elif null == "a comment":
        good.comments.insert(0, None)  # type: ignore[arg-type]
        pull.threads.append(good)
    else:
        good.comments[0].author = None  # type: ignore[assignment]
        pull.threads.append(good)
        author = "ghost"  # as GitHub shows a deleted account
    luxe = spawn([{"error": "no chapters"}])
    luxe.handshake()
    luxe.send("load_guided_review", {"request_id": "r",
                                     "target": {"kind": "pull_request", "number": pull.number}})
    luxe.expect("guided_review_loaded")
    session = luxe.expect("review_session_restored")["session"]
    assert [[(e["author"], e["body"]) for e in f["thread"]] for f in session["findings"]] == [
        [(f"github:{author}", "Why 2?")]]
    luxe.send("load_pull_request", {"request_id": "p", "number": pull.number})
    loaded = luxe.expect("pull_request_loaded")
    assert [[(c["author"], c["body"]) for c in t["comments"]] for t in loaded["threads"]] == [
        [(author, "Why 2?")]]
    assert luxe.close() == 0
