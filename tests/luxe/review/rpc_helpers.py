"""Helpers for the Guided Review tests that drive `luxe --rpc`."""

from __future__ import annotations

from typing import Any

from tests.fakes.github.model import PullRequest
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import publish
from tests.helpers.gitrepo import Repo
from tests.luxe.rpc_driver import FRAME_TIMEOUT_S, LuxeProcess

NO_CHAPTERS = {"error": "no chapters from this script"}


def load(
    luxe: LuxeProcess, request_id: str, target: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    luxe.send("load_guided_review", {"request_id": request_id, "target": target})
    loaded = luxe.expect("guided_review_loaded")
    assert loaded["request_id"] == request_id
    # review_session_restored always comes right after.
    restored = luxe.next_frame()
    assert restored["kind"] == "review_session_restored"
    return loaded["review"], restored["content"]["session"]


def line_anchor(review: dict[str, Any], text: str) -> dict[str, Any]:
    for hunk in review["hunks"]:
        for line in hunk["lines"]:
            if line["text"] == text and line["new_line"] is not None:
                return {"kind": "line", "file_id": hunk["file_id"], "hunk_id": hunk["id"],
                        "side": "new", "line": line["new_line"]}  # fmt: skip
    raise AssertionError(f"no line {text!r}")


def saved(luxe: LuxeProcess, request_id: str | None, **kw: Any) -> dict[str, Any]:
    return luxe.expect("review_session_saved", where=lambda c: c["request_id"] == request_id, **kw)[
        "session"
    ]


def until(luxe: LuxeProcess, kinds: set[str], timeout: float = FRAME_TIMEOUT_S) -> dict[str, dict[str, Any]]:
    """Read frames until one of each kind has come, in whatever order."""
    seen: dict[str, dict[str, Any]] = {}
    while set(seen) != kinds:
        frame = luxe.next_frame(timeout=timeout)
        if frame["kind"] in kinds and frame["kind"] not in seen:
            seen[frame["kind"]] = frame.get("content", {})
    return seen


def topic_pull_request(repo: Repo, github: FakeGitHub) -> PullRequest:
    """`repo` (empty) published as acme/widgets with a.py on main, the
    branch `topic` changing it checked out and pushed, and its pull request."""
    repo.write("a.py", "A = 1\n")
    repo.commit("init")
    checkout = publish(repo.path, github, github.env(), "acme/widgets")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("a.py", "A = 2\n")
    repo.commit("second")
    checkout.git("push", "-q", "-u", "origin", "topic")
    return github.world.open_pull(checkout.remote, title="T", body="", head="topic", base="main")


def pull_request_load_fails(luxe: LuxeProcess, number: int, reason: str) -> None:
    """A Guided Review of pull request `number` fails saying `reason`."""
    luxe.send("load_guided_review",
              {"request_id": "p", "target": {"kind": "pull_request", "number": number}})
    failed = luxe.expect("guided_review_load_failed", timeout=30)
    assert failed["request_id"] == "p" and reason in failed["reason"], failed


def next_load_is_answered(luxe: LuxeProcess, repo: Repo) -> None:
    """The review is free again: a working-tree load of `topic_pull_request`'s
    repository (a.py changed once more) is answered."""
    repo.write("a.py", "A = 3\n")
    review, _ = load(luxe, "w", {"kind": "working_tree"})
    assert [f["path"] for f in review["files"]] == ["a.py"]
