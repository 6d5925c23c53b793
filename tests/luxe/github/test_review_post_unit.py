"""draft_review: which comments go inline, which are folded, which verdict."""

from __future__ import annotations

from luxe.github.review_post import FOLDED_HEADING, commentable_lines, draft_review
from luxe.review.diffparse import parse_diff
from luxe.review.model import (
    FileAnchor,
    Finding,
    LineAnchor,
    Review,
    ReviewAnchor,
    ReviewSession,
    ThreadEntry,
    Verdict,
    WorkingTreeTarget,
)

DIFF = """diff --git a/a.py b/a.py
index 1111111..2222222 100644
--- a/a.py
+++ b/a.py
@@ -1,2 +1,2 @@
 keep
-old
+new
"""


def _review() -> Review:
    parsed = parse_diff(DIFF)
    return Review("review:x", parsed.revision_id, WorkingTreeTarget(), None, None,
                  parsed.files, parsed.hunks, ())


def _finding(fid: str, anchor: object, body: str, severity: str = "question",
             author: str = "reviewer", status: str = "open") -> Finding:
    return Finding(fid, anchor, severity, status, False,  # type: ignore[arg-type]
                   (ThreadEntry(author, body, "t"),), False, None)


def test_inline_folded_and_proposed_verdict() -> None:
    review = _review()
    file_id, hunk_id = review.files[0].id, review.hunks[0].id
    findings = (
        _finding("f1", LineAnchor(file_id, hunk_id, "new", 2), "Why new?", "issue"),
        _finding("f2", LineAnchor(file_id, hunk_id, "old", 2), "Old was fine."),
        _finding("f3", FileAnchor(file_id), "Split this file."),
        _finding("f4", ReviewAnchor(), "Overall fine."),
        _finding("f5", LineAnchor(file_id, hunk_id, "new", 1), "Done.", status="resolved"),
        _finding("f6", LineAnchor(file_id, hunk_id, "new", 1), "Agent said.", author="agent"),
    )
    session = ReviewSession("review:x", "review:x", review.revision_id, 3, findings, None)
    # The pull request's diff only has the new side of a.py.
    lines = {("a.py", "RIGHT", 1), ("a.py", "RIGHT", 2)}
    drafted = draft_review(review, session, lines)
    assert [(c.path, c.line, c.side, c.body) for c in drafted.comments] == [
        ("a.py", 2, "RIGHT", "Why new?")]
    assert drafted.folded == ("`a.py` line 2: Old was fine.", "`a.py`: Split this file.",
                              "Overall fine.")
    assert drafted.verdict == "request_changes"  # an open issue
    assert drafted.body.startswith(FOLDED_HEADING)


def test_the_reviews_own_verdict_wins() -> None:
    review = _review()
    session = ReviewSession("review:x", "review:x", review.revision_id, 1, (),
                            Verdict("approve", "Ship it.", "t"))
    drafted = draft_review(review, session, set())
    assert (drafted.verdict, drafted.body, drafted.comments) == ("approve", "Ship it.", ())


def test_commentable_lines_of_a_diff() -> None:
    assert commentable_lines(DIFF) == {
        ("a.py", "RIGHT", 1), ("a.py", "LEFT", 1), ("a.py", "LEFT", 2), ("a.py", "RIGHT", 2)}
