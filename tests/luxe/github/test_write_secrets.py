"""What Luxe publishes on GitHub for a client passes the redactor first: a
secret value Luxe knows (the person's `.env`) pasted into a reply, a
comment, a pull request's title or description, or a Guided Review's
comments is posted as `[REDACTED:KEY]`, never in the clear on a page
anyone may read. The real `luxe --rpc`, the real gh and the fake GitHub."""

from __future__ import annotations

import json

from tests.fakes.github.model import Comment, Thread
from tests.fakes.github.server import FakeGitHub
from tests.helpers.github import Checkout, needs_gh, open_fix_retry
from tests.luxe.conftest import SpawnLuxe

pytestmark = needs_gh

VALUE = "postkey-Tn6Jw2Xc8"
# Two spellings: the value itself, and upper-cased (as `tr a-z A-Z` prints it).
SPELLINGS = (VALUE, VALUE.upper())


def _published(github: FakeGitHub) -> str:
    pull = github.world.repos["o/r"].pulls[1]
    return json.dumps([pull.title, pull.body, [c.body for c in pull.issue_comments],
                       [[c.body for c in t.comments] for t in pull.threads],
                       [(r.body, r.comments) for r in pull.reviews]])


def test_nothing_published_for_a_client_carries_a_secret(
    spawn: SpawnLuxe, github: FakeGitHub, checkout: Checkout
) -> None:
    pull = open_fix_retry(github, checkout)
    checkout.git("checkout", "-q", "main")
    thread = Thread("src/retry.py", 2, [Comment("Which key?")])
    pull.threads.append(thread)
    (checkout.path / ".env").write_text(f"KEY={VALUE}\n")
    luxe = spawn([{"error": "no chapters"}], "--github-writes")
    luxe.handshake()
    for n, spelling in enumerate(SPELLINGS):
        luxe.send("reply_review_thread", {"request_id": f"t{n}", "thread_id": thread.id,
                                          "body": f"This one: {spelling}"})
        luxe.expect("review_thread_updated")
        luxe.send("post_comment", {"request_id": f"c{n}", "pull_request": 1,
                                   "body": f"Rotated {spelling}."})
        luxe.expect("comment_posted")
        luxe.send("update_pull_request", {"request_id": f"u{n}", "number": 1,
                                          "title": f"Retry ({spelling})",
                                          "body": f"Uses {spelling}."})
        luxe.expect("pull_request_updated")
    luxe.send("load_guided_review", {"request_id": "r",
                                     "target": {"kind": "pull_request", "number": 1}})
    review = luxe.expect("guided_review_loaded")["review"]
    luxe.expect("review_session_restored")
    hunk = review["hunks"][0]
    line = next(x for x in hunk["lines"] if x["text"] == "    return 2")
    anchor = {"kind": "line", "file_id": hunk["file_id"], "hunk_id": hunk["id"], "side": "new",
              "line": line["new_line"]}
    for n, (where, spelling) in enumerate([(anchor, SPELLINGS[0]),
                                           ({"kind": "review"}, SPELLINGS[1])]):
        luxe.send("edit_review", {"request_id": f"e{n}", "review_id": review["id"],
                                  "edit": "comment", "anchor": where, "severity": "issue",
                                  "body": f"Do not commit {spelling}"})
        luxe.expect("review_session_saved")
    luxe.send("preview_pull_request_review", {"request_id": "v", "review_id": review["id"]})
    preview = luxe.expect("pull_request_review_preview")
    luxe.send("post_pull_request_review", {"request_id": "v"})
    luxe.expect("pull_request_review_posted")
    assert luxe.close() == 0
    published = _published(github)
    assert "This one: [REDACTED:KEY]" in published and "Do not commit [REDACTED:KEY]" in published
    for spelling in SPELLINGS:
        assert spelling not in published, published
        assert spelling not in json.dumps(preview), preview
