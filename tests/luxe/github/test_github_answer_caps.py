"""What gh prints of GitHub's data is read to a cap: anyone who can open a
pull request or comment writes a title, a body, threads, a diff, and read
whole they could exhaust Luxe's memory. Past the cap (16 MB of JSON; a
diff's as Guided Review's) the read fails with a reason saying so, and the
session goes on as it was. The real `luxe --rpc`, the real gh and the fake
GitHub."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.github.model import Comment, Issue, PullRequest, Thread, User
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry, open_pull
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import FrameTimeout, LuxeProcess

pytestmark = needs_gh

HUGE = 17 << 20  # past every cap (16 MB)


def _huge_title(pull: PullRequest) -> None:
    pull.title = "T" * HUGE


def _one_huge_comment(pull: PullRequest) -> None:
    pull.threads.append(Thread("src/retry.py", 2, [Comment("x" * HUGE, User("mona"))]))


def _many_threads(pull: PullRequest) -> None:
    # 100 threads of 100 comments (all one page holds), none large alone.
    body = "y" * (HUGE // 10_000 + 1)
    pull.threads += [
        Thread("src/retry.py", 2, [Comment(body, User("mona")) for _ in range(100)])
        for _ in range(100)
    ]


LOADS: dict[str, Callable[[PullRequest], None]] = {
    "a huge title": _huge_title,
    "one huge thread comment": _one_huge_comment,
    "many threads of many comments": _many_threads,
}


def _answer(luxe: LuxeProcess, request_id: str) -> dict[str, Any]:
    """The frame answering `request_id`, whatever its kind."""
    while True:
        frame = luxe.next_frame()
        if (frame.get("content") or {}).get("request_id") == request_id:
            return frame


def _other_pull(github: FakeGitHub, checkout: Checkout) -> int:
    """A second, ordinary pull request (checkout back on main after)."""
    checkout.git("checkout", "-q", "main")
    other = open_pull(github, checkout, "other", {"b.py": "B = 1\n"}, "Add b")
    checkout.git("checkout", "-q", "main")
    return other.number


@pytest.mark.parametrize("spelling", list(LOADS))
def test_a_pull_request_too_large_to_read_fails_its_load_and_the_session_goes_on(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, spelling: str
) -> None:
    pull = open_fix_retry(github, checkout)
    other = _other_pull(github, checkout)
    LOADS[spelling](pull)
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    luxe.send("load_pull_request", {"request_id": "big", "number": pull.number})
    answer = _answer(luxe, "big")
    assert answer["kind"] == "pull_request_load_failed", str(answer)[:300]
    reason = answer["content"]["reason"]
    assert "too large" in reason and "16 MB" in reason, reason
    # The session goes on as it was: the next load is answered.
    luxe.send("load_pull_request", {"request_id": "ok", "number": other})
    loaded = luxe.expect("pull_request_loaded")
    assert loaded["request_id"] == "ok" and loaded["pull_request"]["title"] == "Add b"
    assert luxe.close() == 0


def test_the_branch_pull_request_too_large_to_read_leaves_the_workspace_saying_so(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    pull = open_fix_retry(github, checkout)  # checked out: the workspace's pull request
    _huge_title(pull)
    luxe = spawn([])
    luxe.handshake()
    update = luxe.expect("workspace_updated")
    assert update["branch"] == "fix-retry" and update["pull_request"] is None, str(update)[:300]
    assert update["github"].startswith("error: ") and "too large" in update["github"], update
    pull.title = "Retry twice"
    luxe.send("refresh_workspace")
    assert luxe.expect("workspace_updated")["pull_request"]["title"] == "Retry twice"
    assert luxe.close() == 0


def _working_tree_review(luxe: LuxeProcess, checkout: Checkout) -> str:
    (checkout.path / "notes.txt").write_text("note\n")
    luxe.send("load_guided_review", {"request_id": "r", "target": {"kind": "working_tree"}})
    review_id: str = luxe.expect("guided_review_loaded")["review"]["id"]
    luxe.expect("review_session_restored")
    return review_id


@pytest.mark.parametrize("spelling", ["one huge added file", "many files", "a huge deletion"])
def test_a_pull_request_diff_too_large_is_answered_too_large(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, spelling: str
) -> None:
    line = "z" * 63 + "\n"
    lines = HUGE // len(line) + 1
    if spelling == "one huge added file":
        big = open_pull(github, checkout, "big", {"big.txt": line * lines}, "Vendor a big file")
    elif spelling == "many files":
        files = {f"gen/f{i}.txt": line * (lines // 50 + 1) for i in range(50)}
        big = open_pull(github, checkout, "big", files, "Generate files")
    else:
        checkout.commit("big.txt", line * lines, "a big file")  # on main
        checkout.git("push", "-q", "origin", "main")
        checkout.git("checkout", "-q", "-b", "big")
        checkout.git("rm", "-q", "big.txt")
        checkout.git("commit", "-q", "-m", "drop the big file")
        checkout.git("push", "-q", "-u", "origin", "big")
        big = github.world.open_pull(checkout.remote, title="Drop it", body="", head="big",
                                     base="main")
    other = _other_pull(github, checkout)
    luxe = spawn([{"error": "no chapters"}], "--github-writes")
    luxe.handshake()
    review_id = _working_tree_review(luxe, checkout)
    luxe.send("preview_pull_request_review", {"request_id": "v", "review_id": review_id,
                                              "pull_request": big.number})
    answer = _answer(luxe, "v")
    assert answer["kind"] == "pull_request_review_preview_failed", str(answer)[:300]
    reason = answer["content"]["reason"]
    assert "too large" in reason and "16 MB" in reason, reason
    # The session goes on as it was: the same review previews against a small diff.
    luxe.send("preview_pull_request_review", {"request_id": "v2", "review_id": review_id,
                                              "pull_request": other})
    assert luxe.expect("pull_request_review_preview")["pull_request"] == other
    assert luxe.close() == 0


@pytest.mark.parametrize("start", ["--from-pr with a huge body", "--issue with huge comments"])
def test_a_session_started_from_github_text_too_large_to_read_is_refused(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, start: str
) -> None:
    if start.startswith("--from-pr"):
        pull = open_fix_retry(github, checkout)
        checkout.git("checkout", "-q", "main")
        pull.body = "B" * HUGE
        flags = ["--from-pr", str(pull.number)]
    else:
        body = "c" * (HUGE // 50 + 1)
        github.world.repos["o/r"].issues[42] = Issue(
            42, "Leaky", "", [Comment(body, User("mona")) for _ in range(50)])
        flags = ["--issue", "42"]
    luxe = spawn([], *flags)
    with pytest.raises(FrameTimeout, match="closed stdout"):
        luxe.next_frame()  # not even ready
    assert luxe.wait_exit() == 2
    said = luxe.stderr_text()
    assert "too large" in said and "16 MB" in said, said
    assert checkout.git("branch", "--show-current") == "main"  # nothing checked out
