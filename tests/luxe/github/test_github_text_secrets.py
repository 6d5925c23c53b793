"""Text from GitHub (a review thread's comments, an issue's) is written by
anyone who can comment, and may quote a secret: a reviewer pointing at the
production key a pull request committed. Luxe redacts the values it knows
(the project's `.env`) in it before the client or the model sees it, as it
does for the diff beside it. The real `luxe --rpc`, the real gh and the fake
GitHub."""

from __future__ import annotations

import json

import pytest

from tests.fakes.github.model import Comment, Issue, Thread, User
from tests.fakes.github.server import FakeGitHub
from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import provider_env

pytestmark = needs_gh

VALUE = "ghsecret-Vb7Qx3Lm9"
# Two spellings: the value itself, and as a shell would show it upper-cased.
QUOTES = (f"You committed the key {VALUE}, rotate it.", f"Still there: {VALUE.upper()}")


@pytest.fixture
def secret(checkout: Checkout) -> None:
    (checkout.path / ".env").write_text(f"KEY={VALUE}\n")  # the person's own, never committed


def _pull_quoting_the_key(github: FakeGitHub, checkout: Checkout) -> int:
    pull = open_fix_retry(github, checkout)
    checkout.git("checkout", "-q", "main")
    pull.threads += [Thread("src/retry.py", 2, [Comment(QUOTES[0], User("mona"))]),
                     Thread("src/retry.py", 1, [Comment(QUOTES[1], User("octo"))])]
    return pull.number


def test_review_threads_shown_in_a_guided_review_or_loaded_are_redacted(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, secret: None
) -> None:
    number = _pull_quoting_the_key(github, checkout)
    luxe = spawn([{"error": "no chapters"}])
    luxe.handshake()
    luxe.send("load_guided_review", {"request_id": "r",
                                     "target": {"kind": "pull_request", "number": number}})
    luxe.expect("guided_review_loaded")
    session = luxe.expect("review_session_restored")["session"]
    bodies = [entry["body"] for f in session["findings"] for entry in f["thread"]]
    assert bodies == ["You committed the key [REDACTED:KEY], rotate it.",
                      "Still there: [REDACTED:KEY]"], bodies
    luxe.send("load_pull_request", {"request_id": "p", "number": number})
    loaded = luxe.expect("pull_request_loaded")
    assert [c["body"] for t in loaded["threads"] for c in t["comments"]] == bodies
    assert luxe.close() == 0
    for quote in (VALUE, VALUE.upper()):
        assert quote not in json.dumps(luxe.frames), quote


@pytest.mark.parametrize("start", ["--issue", "--from-pr"])
def test_github_text_given_to_the_model_at_start_is_redacted(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout, start: str
) -> None:
    if start == "--issue":
        github.world.repos["o/r"].issues[42] = Issue(
            42, "Leaked key", QUOTES[0], [Comment(QUOTES[1])])
        number = 42
    else:
        number = _pull_quoting_the_key(github, checkout)
    # Untracked: --from-pr checks the pull request out with it in place.
    (checkout.path / ".env").write_text(f"KEY={VALUE}\n")
    with FakeLLMServer([{"text": "ok"}]) as server:
        luxe = spawn(None, start, str(number), env_extra=provider_env(server, "anthropic"))
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "go"})
        luxe.expect("turn_ended")
        assert luxe.close() == 0
        system = json.dumps(server.requests[0].body["system"])
    assert "[REDACTED:KEY]" in system
    for quote in (VALUE, VALUE.upper()):
        assert quote not in system and quote not in json.dumps(luxe.frames), quote
