"""Every string Luxe reads from GitHub passes the redactor before a client
sees it, not only the threads' comments: a pull request's title, its head
branch, a commenter's login, a check's name are all written by whoever
opens the pull request or runs a check on it, and may quote the person's
own key (their `.env`). They reached `workspace_updated` and
`pull_request_loaded` in the clear. The real `luxe --rpc`, the real gh and
the fake GitHub."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.fakes.github.model import Check, Comment, PullRequest, Thread, User
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_pull
from tests.luxe.conftest import SpawnLuxe

pytestmark = needs_gh

VALUE = "ghsecret-Rk4Tz8Wq2"
REDACTED = "[REDACTED:KEY]"


def _title(checkout: Checkout, github: FakeGitHub) -> PullRequest:
    return open_pull(github, checkout, "fix-retry", {"src/retry.py": "R = 2\n"},
                     f"Rotate {VALUE} before release")


def _head_branch(checkout: Checkout, github: FakeGitHub) -> PullRequest:
    return open_pull(github, checkout, f"leak-{VALUE}", {"src/retry.py": "R = 2\n"}, "Retry")


def _author(checkout: Checkout, github: FakeGitHub) -> PullRequest:
    pull = open_pull(github, checkout, "fix-retry", {"src/retry.py": "R = 2\n"}, "Retry")
    pull.threads.append(Thread("src/retry.py", 1, [Comment("Why 2?", User(f"bot-{VALUE}"))]))
    return pull


def _check(checkout: Checkout, github: FakeGitHub) -> PullRequest:
    pull = open_pull(github, checkout, "fix-retry", {"src/retry.py": "R = 2\n"}, "Retry")
    pull.checks.append(Check(f"deploy with {VALUE}", detailsUrl=f"https://ci/{VALUE}"))
    return pull


SPELLINGS: dict[str, Callable[[Checkout, FakeGitHub], PullRequest]] = {
    "the title": _title,
    "the head branch": _head_branch,
    "a commenter's login": _author,
    "a check's name": _check,
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_github_names_are_redacted_in_every_frame(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, spelling: str
) -> None:
    pull = SPELLINGS[spelling](checkout, github)  # checked out: the workspace's pull request
    (checkout.path / ".env").write_text(f"KEY={VALUE}\n")  # the person's own, never committed
    luxe = spawn([{"error": "no chapters"}])
    luxe.handshake()
    shown = luxe.expect("workspace_updated")["pull_request"]
    assert shown is not None and shown["number"] == pull.number
    luxe.send("load_pull_request", {"request_id": "p", "number": pull.number})
    loaded = luxe.expect("pull_request_loaded")
    luxe.send("load_guided_review", {"request_id": "r",
                                     "target": {"kind": "pull_request", "number": pull.number}})
    luxe.expect("guided_review_loaded")
    session = luxe.expect("review_session_restored")["session"]
    assert luxe.close() == 0
    where = {"the title": shown["title"], "the head branch": shown["head"],
             "a check's name": shown["checks"][0]["name"] if shown["checks"] else "",
             "a commenter's login": loaded["threads"][0]["comments"][0]["author"]
             if loaded["threads"] else ""}[spelling]
    assert REDACTED in where, where
    if spelling == "a commenter's login":
        assert session["findings"][0]["thread"][0]["author"] == f"github:bot-{REDACTED}"
    assert VALUE not in json.dumps(luxe.frames)
