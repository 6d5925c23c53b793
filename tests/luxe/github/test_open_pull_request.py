"""Opening pull requests over `luxe --rpc` through the real gh: refused
without --github-writes and in read-only, preview then open (the model's
draft or the commit messages), a stack of three bottom-up, opened once, and
a 422 then a retried open."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.github.api import Failure
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh
from tests.helpers.procs import peak_rss_kb
from tests.luxe.conftest import SpawnLuxe

pytestmark = needs_gh


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ((), "--github-writes"),
        (("--github-writes", "--read-only"), "read-only"),
    ],
)
def test_writes_are_refused_without_the_flag_and_in_read_only(
    spawn: SpawnLuxe, github: FakeGitHub, flags: tuple[str, ...], words: str
) -> None:
    luxe = spawn([], *flags)
    luxe.handshake()
    attempts = {
        "preview_pull_request": {"request_id": "p"},
        "open_pull_request": {"request_id": "p"},
        "preview_pull_request_review": {"request_id": "v", "review_id": "review:x"},
        "post_pull_request_review": {"request_id": "v"},
        "post_comment": {"request_id": "c", "body": "hi", "pull_request": 1},
        "reply_review_thread": {"request_id": "t", "thread_id": "T", "body": "ok"},
        "resolve_review_thread": {"request_id": "t", "thread_id": "T"},
        "update_pull_request": {"request_id": "u", "number": 1, "title": "x"},
        "merge_pull_request": {"request_id": "m", "number": 1, "method": "squash"},
        "plan_restack": {"request_id": "s"},
        "restack": {"request_id": "s", "plan_id": "x"},
    }
    for kind, content in attempts.items():
        luxe.send(kind, content)
        rejected = luxe.expect("action_rejected")
        assert rejected["kind"] == kind and words in rejected["reason"], rejected
    luxe.close()
    writes = [name for name, _ in github.api.calls if name.startswith(("POST", "DELETE"))]
    mutations = [name for name, _ in github.api.calls if name.endswith(("Create", "Merge"))]
    assert writes == [] and mutations == []


def test_a_read_only_permissions_file_also_refuses(
    spawn: SpawnLuxe, env: dict[str, str]
) -> None:
    config = Path(env["XDG_CONFIG_HOME"]) / "luxe"
    config.mkdir(parents=True, exist_ok=True)
    (config / "permissions.json").write_text('{"mode": "read-only"}')
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    luxe.send("merge_pull_request", {"request_id": "m", "number": 1, "method": "merge"})
    assert "read-only" in luxe.expect("action_rejected")["reason"]
    luxe.close()


def test_preview_then_open_with_the_models_draft(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    checkout.fix_retry(push=False)
    luxe = spawn([{"text": "Retry a failed call twice\n\nA flaky network gets one more try."}],
                 "--github-writes")
    luxe.handshake()
    luxe.send("preview_pull_request", {"request_id": "p1"})
    preview = luxe.expect("pull_request_preview")
    assert preview["title"] == "Retry a failed call twice"
    assert preview["body"] == "A flaky network gets one more try."
    assert (preview["base"], preview["head"], preview["drafted_by"]) == ("main", "fix-retry", "model")
    assert [c["subject"] for c in preview["commits"]] == ["retry twice"]
    assert github.world.repos["o/r"].pulls == {}  # a preview publishes nothing
    luxe.send("open_pull_request", {"request_id": "p1", "body": "Edited by a person."})
    opened = luxe.expect("pull_request_opened")
    assert opened["number"] == 1 and opened["url"] == "https://ghe.test/o/r/pull/1"
    pull = github.world.repos["o/r"].pulls[1]
    assert (pull.title, pull.body, pull.baseRefName, pull.headRefName) == (
        "Retry a failed call twice", "Edited by a person.", "main", "fix-retry")
    # Pushing was part of opening.
    assert checkout.remote_sha("fix-retry") == checkout.git("rev-parse", "fix-retry")
    assert checkout.git("rev-parse", "--abbrev-ref", "fix-retry@{upstream}") == "origin/fix-retry"
    luxe.send("open_pull_request", {"request_id": "p1"})
    again = luxe.expect("pull_request_open_failed")
    assert again["reason"] == "already opened: #1"
    assert len(github.world.repos["o/r"].pulls) == 1
    luxe.close()


def test_a_stack_of_three_opens_bottom_up_once_and_falls_back_to_commits(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    checkout.branch("part-1", {"one.txt": "1\n"}, "add one", push=False)
    checkout.branch("part-2", {"two.txt": "2\n"}, "add two", push=False)
    checkout.branch("part-3", {"three.txt": "3\n"}, "add three", push=False)
    luxe = spawn([{"error": "model unavailable"}] * 3, "--github-writes")
    luxe.handshake()
    luxe.send("preview_pull_request", {"request_id": "s"})
    preview = luxe.expect("pull_request_preview")
    assert preview["drafted_by"] == "commits"
    assert [(d["head"], d["base"], d["title"]) for d in preview["pull_requests"]] == [
        ("part-1", "main", "add one"),
        ("part-2", "part-1", "add two"),
        ("part-3", "part-2", "add three"),
    ]
    luxe.send("open_pull_request", {"request_id": "s"})
    opened = luxe.expect("pull_request_opened")
    assert [(o["head"], o["number"]) for o in opened["opened"]] == [
        ("part-1", 1), ("part-2", 2), ("part-3", 3)]
    pulls = github.world.repos["o/r"].pulls
    assert [(p.headRefName, p.baseRefName) for p in pulls.values()] == [
        ("part-1", "main"), ("part-2", "part-1"), ("part-3", "part-2")]
    luxe.send("open_pull_request", {"request_id": "s"})
    assert luxe.expect("pull_request_open_failed")["reason"] == "already opened: #1, #2, #3"
    # The branch now has its pull request: a new preview says so.
    luxe.send("preview_pull_request", {"request_id": "s2"})
    assert "already has pull request #3" in luxe.expect("pull_request_preview_failed")["reason"]
    luxe.close()


def test_a_422_then_a_retried_open(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    checkout.fix_retry(push=False)
    github.api.failures.append(Failure("PullRequestCreate", 422, "Validation Failed"))
    luxe = spawn([{"error": "no model"}], "--github-writes")
    luxe.handshake()
    luxe.send("preview_pull_request", {"request_id": "p", "draft": True})
    luxe.expect("pull_request_preview")
    luxe.send("open_pull_request", {"request_id": "p"})
    failed = luxe.expect("pull_request_open_failed")
    assert "422" in failed["reason"] and "fix-retry" in failed["reason"]
    assert github.world.repos["o/r"].pulls == {}
    luxe.send("open_pull_request", {"request_id": "p"})
    assert luxe.expect("pull_request_opened")["number"] == 1
    assert github.world.repos["o/r"].pulls[1].isDraft is True  # as the preview asked
    luxe.close()


def test_open_needs_a_preview(spawn: SpawnLuxe) -> None:
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    luxe.send("open_pull_request", {"request_id": "nope"})
    assert "preview_pull_request first" in luxe.expect("pull_request_open_failed")["reason"]
    luxe.close()


def test_a_base_that_is_not_a_branch_name_is_refused(
    spawn: SpawnLuxe, checkout: Checkout, tmp_path: Path
) -> None:
    checkout.fix_retry(push=False)
    luxe = spawn([], "--github-writes")
    luxe.handshake()
    target = tmp_path / "written"
    luxe.send("preview_pull_request", {"request_id": "p", "base": f"--output={target}"})
    assert "is not a branch name" in luxe.expect("pull_request_preview_failed")["reason"]
    assert not target.exists()
    luxe.close()


def test_a_branch_with_a_huge_file_is_drafted_from_the_head_of_its_diff(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    """The model sees the first 20,000 characters of the branch's diff; a
    file of 100 MB in it (a pack of under a megabyte) is not read whole: git
    is stopped once luxe has what it shows."""
    checkout.git("checkout", "-q", "-b", "vendor-data")
    (checkout.path / "data.py").write_text('ROW = "one line of generated data"\n' * 3_000_000)
    checkout.git("add", "data.py")
    checkout.git("commit", "-q", "-m", "vendor the data")
    luxe = spawn([{"text": "Vendor the data\n\nOne generated module."}], "--github-writes")
    luxe.handshake()
    luxe.send("preview_pull_request", {"request_id": "p"})
    preview = luxe.expect("pull_request_preview")
    assert (preview["title"], preview["drafted_by"]) == ("Vendor the data", "model")
    peak_kb = peak_rss_kb(luxe.pid)
    assert peak_kb < 100 << 10, peak_kb  # it read the diff whole: 245 MB
    luxe.close()
