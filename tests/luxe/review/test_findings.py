"""Every edit kind on a review session, and every failure changing nothing."""

from __future__ import annotations

from typing import Any

import pytest

from luxe.review.diffparse import parse_diff
from luxe.review.edits import edit_from_wire
from luxe.review.findings import EditFailed, add_entry, apply_edit, new_session, set_fix
from luxe.review.model import (
    FileAnchor,
    Fix,
    LineAnchor,
    RangeAnchor,
    Review,
    ReviewAnchor,
    ReviewSession,
    WireError,
    WorkingTreeTarget,
    to_wire,
)

DIFF = """\
diff --git a/net/retry.py b/net/retry.py
index 1111111..2222222 100644
--- a/net/retry.py
+++ b/net/retry.py
@@ -10,4 +10,5 @@ def fetch(url):
     session = open_session()
-    return session.get(url)
+    session.get(url)
+    return session.get(url)
     # done
\x20
"""

NOW = "2026-11-29T20:00:00Z"


@pytest.fixture
def review() -> Review:
    parsed = parse_diff(DIFF)
    return Review(
        "review:abcdef12",
        parsed.revision_id,
        WorkingTreeTarget(),
        None,
        None,
        parsed.files,
        parsed.hunks,
        (),
    )


def ids(review: Review) -> tuple[str, str]:
    return review.files[0].id, review.hunks[0].id


def line(review: Review, side: str = "new", number: int = 12) -> dict[str, Any]:
    file_id, hunk_id = ids(review)
    return {"kind": "line", "file_id": file_id, "hunk_id": hunk_id, "side": side, "line": number}


class Reviewer:
    """Applies wire-shaped edits like the session owner will, numbering findings."""

    def __init__(self, review: Review) -> None:
        self.review = review
        self.session = new_session(review)
        self.count = 0

    def edit(self, **content: Any) -> ReviewSession:
        result = apply_edit(
            self.session,
            self.review,
            edit_from_wire(content),
            now=NOW,
            new_id=f"finding:{self.count + 1}",
        )
        self.count += 1
        self.session = result.session
        return result.session

    def fails(self, reason: str, **content: Any) -> None:
        before = self.session
        with pytest.raises((EditFailed, WireError), match=reason):
            self.edit(**content)
        assert self.session == before


def test_comment_reply_and_send(review: Review) -> None:
    reviewer = Reviewer(review)
    session = reviewer.edit(
        edit="comment", anchor=line(review), body="Why retry twice?", severity="question", send=True
    )
    (finding,) = session.findings
    assert session.session_revision == 1
    assert finding.anchor == LineAnchor(*ids(review), "new", 12)
    assert (finding.severity, finding.status, finding.outdated, finding.sent, finding.fix) == (
        "question", "open", False, True, None,
    )  # fmt: skip
    assert to_wire(finding.thread) == [
        {"author": "reviewer", "body": "Why retry twice?", "at": NOW}
    ]

    session = reviewer.edit(edit="reply", finding_id=finding.id, body="Still curious")
    assert [e.body for e in session.findings[0].thread] == ["Why retry twice?", "Still curious"]
    assert session.session_revision == 2


def test_anchors_of_every_kind(review: Review) -> None:
    reviewer = Reviewer(review)
    file_id, hunk_id = ids(review)
    reviewer.edit(edit="comment", anchor=line(review, "old", 11), body="old side", severity="nit")
    reviewer.edit(
        edit="comment",
        anchor={
            "kind": "range",
            "file_id": file_id,
            "hunk_id": hunk_id,
            "side": "new",
            "start": 11,
            "end": 12,
        },
        body="these two",
        severity="issue",
    )
    reviewer.edit(
        edit="comment", anchor={"kind": "file", "file_id": file_id}, body="file", severity="praise"
    )
    session = reviewer.edit(edit="comment", anchor={"kind": "review"}, body="overall")
    assert [f.anchor for f in session.findings] == [
        LineAnchor(file_id, hunk_id, "old", 11),
        RangeAnchor(file_id, hunk_id, "new", 11, 12),
        FileAnchor(file_id),
        ReviewAnchor(),
    ]
    assert session.findings[3].severity == "suggestion"  # the default


def test_fix_edit_resolve_reopen_delete_verdict(review: Review) -> None:
    reviewer = Reviewer(review)
    reviewer.edit(edit="comment", anchor=line(review), body="Drop the first call", severity="issue")
    session = reviewer.edit(edit="fix", finding_id="finding:1", body="please", send=True)
    assert session.findings[0].fix == Fix("requested")
    assert session.findings[0].sent
    reviewer.session = set_fix(reviewer.session, "finding:1", Fix("running"), now=NOW)
    reviewer.fails("already running", edit="fix", finding_id="finding:1")

    session = reviewer.edit(edit="fix", anchor=line(review, "new", 13), body="Also this")
    (_, created) = session.findings
    assert (created.id, created.severity, created.fix, created.sent) == (
        "finding:3",
        "issue",
        Fix("requested"),
        False,
    )

    session = reviewer.edit(edit="edit", finding_id="finding:1", body="Drop the FIRST call")
    assert session.findings[0].thread[0].body == "Drop the FIRST call"
    session = reviewer.edit(edit="resolve", finding_id="finding:1")
    assert session.findings[0].status == "resolved"
    reviewer.fails("already resolved", edit="resolve", finding_id="finding:1")
    session = reviewer.edit(edit="reopen", finding_id="finding:1")
    assert session.findings[0].status == "open"
    reviewer.fails("already open", edit="reopen", finding_id="finding:1")
    session = reviewer.edit(edit="delete", finding_id="finding:3")
    assert [f.id for f in session.findings] == ["finding:1"]
    session = reviewer.edit(edit="verdict", verdict="request_changes", body="One call only")
    assert to_wire(session.verdict) == {
        "decision": "request_changes",
        "body": "One call only",
        "at": NOW,
    }
    session = reviewer.edit(edit="verdict", verdict="approve")
    assert session.verdict is not None and session.verdict.decision == "approve"
    assert session.session_revision == 10  # one per save (9 edits, 1 agent update)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (
            {"edit": "reply", "finding_id": "finding:404", "body": "hi"},
            "unknown finding finding:404",
        ),
        ({"edit": "resolve", "finding_id": "finding:404"}, "unknown finding"),
        ({"edit": "reopen", "finding_id": "finding:404"}, "unknown finding"),
        ({"edit": "delete", "finding_id": "finding:404"}, "unknown finding"),
        ({"edit": "edit", "finding_id": "finding:404", "body": "x"}, "unknown finding"),
        ({"edit": "fix", "finding_id": "finding:404"}, "unknown finding"),
        ({"edit": "fix"}, "needs a finding_id, or an anchor and a body"),
        ({"edit": "reply", "finding_id": "finding:1", "body": "  "}, "a reply needs a body"),
        ({"edit": "edit", "finding_id": "finding:1", "body": ""}, "an edit needs a body"),
        ({"edit": "comment", "anchor": {"kind": "review"}, "body": "\n"}, "a comment needs a body"),
        (
            {"edit": "comment", "anchor": {"kind": "file", "file_id": "file:nope"}, "body": "x"},
            "file file:nope is not in the review",
        ),
        (
            {"edit": "comment", "anchor": {"kind": "planet"}, "body": "x"},
            "unknown anchor kind 'planet'",
        ),
        ({"edit": "comment", "anchor": {"kind": "line"}, "body": "x"}, "required field missing"),
        ({"edit": "comment", "body": "x"}, "required field missing"),
        (
            {"edit": "comment", "anchor": {"kind": "review"}, "body": "x", "severity": "blocker"},
            "severity",
        ),
        ({"edit": "verdict", "verdict": "comment", "body": ""}, "a comment verdict needs a body"),
        ({"edit": "verdict", "verdict": "maybe"}, "verdict"),
        ({"edit": "teleport"}, "unknown edit 'teleport'"),
        (
            {"edit": "reply", "finding_id": "finding:1", "body": "x", "send": "yes"},
            "expected true or false",
        ),
    ],
)
def test_failures_change_nothing(review: Review, content: dict[str, Any], reason: str) -> None:
    reviewer = Reviewer(review)
    reviewer.edit(edit="comment", anchor=line(review), body="first", severity="nit")
    reviewer.fails(reason, **content)


@pytest.mark.parametrize(
    ("side", "number", "reason"),
    [
        ("new", 99, "new line 99 is not in hunk"),
        ("old", 15, "old line 15 is not in hunk"),
        ("up", 12, "side"),
    ],
)
def test_line_anchors_must_be_in_their_hunk(
    review: Review, side: str, number: int, reason: str
) -> None:
    Reviewer(review).fails(reason, edit="comment", anchor=line(review, side, number), body="x")


def test_range_and_hunk_checks(review: Review) -> None:
    reviewer = Reviewer(review)
    file_id, hunk_id = ids(review)
    anchor = {
        "kind": "range",
        "file_id": file_id,
        "hunk_id": hunk_id,
        "side": "new",
        "start": 12,
        "end": 11,
    }
    reviewer.fails("runs backwards", edit="comment", anchor=anchor, body="x")
    wrong = {"kind": "line", "file_id": file_id, "hunk_id": "hunk:other", "side": "new", "line": 12}
    reviewer.fails("hunk hunk:other is not in file", edit="comment", anchor=wrong, body="x")


def test_agent_entries_and_fix_states(review: Review) -> None:
    reviewer = Reviewer(review)
    reviewer.edit(edit="comment", anchor=line(review), body="Fix it", severity="issue")
    session = reviewer.edit(edit="fix", finding_id="finding:1", send=True)
    session = set_fix(session, "finding:1", Fix("running"), now=NOW)
    session = add_entry(session, "finding:1", "agent", "Looking at it", now=NOW)
    session = set_fix(session, "finding:1", Fix("done", "Removed the first call"), now=NOW)
    (finding,) = session.findings
    assert finding.fix == Fix("done", "Removed the first call")
    assert [(e.author, e.body) for e in finding.thread] == [
        ("reviewer", "Fix it"),
        ("agent", "Looking at it"),
        ("agent", "Removed the first call"),
    ]
    failed = set_fix(
        session, "finding:1", Fix("failed"), now=NOW, system_note="The turn was cancelled."
    )
    assert failed.findings[0].thread[-1].author == "system"
    assert failed.findings[0].status == "open"
    assert failed.session_revision == session.session_revision + 1
    with pytest.raises(EditFailed, match="unknown finding"):
        add_entry(session, "finding:9", "agent", "x", now=NOW)
