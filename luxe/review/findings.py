"""Review sessions: the findings on a review, changed only by pure functions.

Every function takes a session (and the review it belongs to) and returns a
new session with `session_revision` one higher, or raises EditFailed with a
reason and changes nothing. The caller owns ids and clocks: it passes `now`
(ISO 8601, UTC) and the id for a new finding, so these stay deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import attrs

from luxe.record import record
from luxe.review.edits import (
    BodyEdit,
    CommentEdit,
    DeleteEdit,
    Edit,
    FixEdit,
    ReopenEdit,
    ReplyEdit,
    ResolveEdit,
    VerdictEdit,
)
from luxe.review.model import (
    DECISIONS,
    SEVERITIES,
    Anchor,
    Author,
    DiffLine,
    FileAnchor,
    Finding,
    Fix,
    Hunk,
    LineAnchor,
    RangeAnchor,
    Review,
    ReviewAnchor,
    ReviewSession,
    ThreadEntry,
    Verdict,
)


class EditFailed(Exception):
    """An edit that cannot apply; `reason` is written for a person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@record
class EditResult:
    session: ReviewSession
    # The finding the edit created or touched, and whether it asks the agent
    # to act now (a sent comment, reply or fix).
    finding_id: str | None
    send: bool


def new_session(review: Review) -> ReviewSession:
    return ReviewSession(review.id, review.id, review.revision_id, 0, (), None)


def side_line(line: DiffLine, side: str) -> int | None:
    return line.new_line if side == "new" else line.old_line


def check_anchor(anchor: Anchor, review: Review) -> None:
    """Raise EditFailed unless `anchor` points at something in `review`."""
    if isinstance(anchor, ReviewAnchor):
        return
    if not any(file.id == anchor.file_id for file in review.files):
        raise EditFailed(f"anchor: file {anchor.file_id} is not in the review")
    if isinstance(anchor, FileAnchor):
        return
    hunk = next((h for h in review.hunks if h.id == anchor.hunk_id), None)
    if hunk is None or hunk.file_id != anchor.file_id:
        raise EditFailed(f"anchor: hunk {anchor.hunk_id} is not in file {anchor.file_id}")
    if anchor.side not in ("old", "new"):
        raise EditFailed(f"anchor: side must be old or new, not {anchor.side!r}")
    numbers = {side_line(line, anchor.side) for line in hunk.lines} - {None}
    wanted = [anchor.line] if isinstance(anchor, LineAnchor) else [anchor.start, anchor.end]
    if isinstance(anchor, RangeAnchor) and anchor.start > anchor.end:
        raise EditFailed(f"anchor: range {anchor.start}-{anchor.end} runs backwards")
    for number in wanted:
        if number not in numbers:
            raise EditFailed(f"anchor: {anchor.side} line {number} is not in hunk {anchor.hunk_id}")


def _body(body: str | None, what: str) -> str:
    if body is None or not body.strip():
        raise EditFailed(f"{what} needs a body")
    return body


def _find(session: ReviewSession, finding_id: str | None) -> Finding:
    found = next((f for f in session.findings if f.id == finding_id), None)
    if found is None:
        raise EditFailed(f"unknown finding {finding_id}")
    return found


def _find_editable(session: ReviewSession, finding_id: str | None) -> Finding:
    """A finding a client may change: not one shown from GitHub."""
    found = _find(session, finding_id)
    if found.read_only:
        raise EditFailed(
            f"finding {found.id} is a GitHub review thread, read-only here: answer it on GitHub "
            "(reply_review_thread, resolve_review_thread)"
        )
    return found


def _replace(session: ReviewSession, finding: Finding) -> ReviewSession:
    findings = tuple(finding if f.id == finding.id else f for f in session.findings)
    return attrs.evolve(session, findings=findings, session_revision=session.session_revision + 1)


def _entry(author: Author, body: str, now: str) -> ThreadEntry:
    return ThreadEntry(author, body, now)


def apply_edit(
    session: ReviewSession, review: Review, edit: Edit, *, now: str, new_id: str
) -> EditResult:
    """Apply one client edit. Raises EditFailed (nothing changes) when the
    finding is unknown, the anchor is not in the review, a body is empty, or
    the edit makes no sense for the finding's state."""
    if session.review_id != review.id:
        raise EditFailed(f"the session belongs to {session.review_id}, not {review.id}")
    handler = _HANDLERS[type(edit)]
    return handler(session, review, edit, now, new_id)


def _comment(
    session: ReviewSession, review: Review, edit: Edit, now: str, new_id: str
) -> EditResult:
    assert isinstance(edit, CommentEdit)
    check_anchor(edit.anchor, review)
    if edit.severity not in SEVERITIES:
        raise EditFailed(f"severity must be one of {', '.join(SEVERITIES)}")
    finding = Finding(
        id=new_id,
        anchor=edit.anchor,
        severity=edit.severity,
        status="open",
        outdated=False,
        thread=(_entry("reviewer", _body(edit.body, "a comment"), now),),
        sent=edit.send,
        fix=None,
    )
    added = attrs.evolve(
        session,
        findings=(*session.findings, finding),
        session_revision=session.session_revision + 1,
    )
    return EditResult(added, new_id, edit.send)


def _reply(session: ReviewSession, review: Review, edit: Edit, now: str, new_id: str) -> EditResult:
    assert isinstance(edit, ReplyEdit)
    finding = _find_editable(session, edit.finding_id)
    body = _body(edit.body, "a reply")
    changed = attrs.evolve(
        finding,
        thread=(*finding.thread, _entry("reviewer", body, now)),
        sent=finding.sent or edit.send,
    )
    return EditResult(_replace(session, changed), finding.id, edit.send)


def _fix(session: ReviewSession, review: Review, edit: Edit, now: str, new_id: str) -> EditResult:
    assert isinstance(edit, FixEdit)
    if edit.finding_id is None:
        if edit.anchor is None:
            raise EditFailed("a fix needs a finding_id, or an anchor and a body")
        _body(edit.body, "a fix on a new anchor")
        created = _comment(
            session,
            review,
            CommentEdit(edit.anchor, edit.body or "", "issue", edit.send),
            now,
            new_id,
        )
        finding = _find(created.session, new_id)
        fixed = attrs.evolve(finding, fix=Fix("requested"))
        return EditResult(_swap(created.session, fixed), new_id, edit.send)
    finding = _find_editable(session, edit.finding_id)
    if finding.fix is not None and finding.fix.state == "running":
        raise EditFailed(f"a fix for {finding.id} is already running")
    thread = finding.thread
    if edit.body is not None and edit.body.strip():
        thread = (*thread, _entry("reviewer", edit.body, now))
    fixed = attrs.evolve(
        finding, thread=thread, fix=Fix("requested"), status="open", sent=finding.sent or edit.send
    )
    return EditResult(_replace(session, fixed), finding.id, edit.send)


def _swap(session: ReviewSession, finding: Finding) -> ReviewSession:
    """Replace a finding without counting another save (one edit, one save)."""
    return attrs.evolve(
        session, findings=tuple(finding if f.id == finding.id else f for f in session.findings)
    )


def _edit_body(
    session: ReviewSession, review: Review, edit: Edit, now: str, new_id: str
) -> EditResult:
    assert isinstance(edit, BodyEdit)
    finding = _find_editable(session, edit.finding_id)
    body = _body(edit.body, "an edit")
    first = finding.thread[0]
    changed = attrs.evolve(finding, thread=(attrs.evolve(first, body=body), *finding.thread[1:]))
    return EditResult(_replace(session, changed), finding.id, False)


def _status(
    status: Literal["open", "resolved"],
) -> Callable[[ReviewSession, Review, Edit, str, str], EditResult]:
    def change(
        session: ReviewSession, review: Review, edit: Edit, now: str, new_id: str
    ) -> EditResult:
        assert isinstance(edit, ResolveEdit | ReopenEdit)
        finding = _find_editable(session, edit.finding_id)
        if finding.status == status:
            raise EditFailed(f"finding {finding.id} is already {status}")
        return EditResult(
            _replace(session, attrs.evolve(finding, status=status)), finding.id, False
        )

    return change


def _delete(
    session: ReviewSession, review: Review, edit: Edit, now: str, new_id: str
) -> EditResult:
    assert isinstance(edit, DeleteEdit)
    finding = _find_editable(session, edit.finding_id)
    remaining = tuple(f for f in session.findings if f.id != finding.id)
    return EditResult(
        attrs.evolve(session, findings=remaining, session_revision=session.session_revision + 1),
        finding.id,
        False,
    )


def _verdict(
    session: ReviewSession, review: Review, edit: Edit, now: str, new_id: str
) -> EditResult:
    assert isinstance(edit, VerdictEdit)
    if edit.verdict not in DECISIONS:
        raise EditFailed(f"verdict must be one of {', '.join(DECISIONS)}")
    if edit.verdict != "approve":
        _body(edit.body, f"a {edit.verdict} verdict")
    verdict = Verdict(edit.verdict, edit.body, now)
    return EditResult(
        attrs.evolve(session, verdict=verdict, session_revision=session.session_revision + 1),
        None,
        False,
    )


_HANDLERS: dict[type, Callable[[ReviewSession, Review, Edit, str, str], EditResult]] = {
    CommentEdit: _comment,
    ReplyEdit: _reply,
    FixEdit: _fix,
    BodyEdit: _edit_body,
    ResolveEdit: _status("resolved"),
    ReopenEdit: _status("open"),
    DeleteEdit: _delete,
    VerdictEdit: _verdict,
}

# -- what the agent and Luxe itself record --------------------------------------------


def add_entry(
    session: ReviewSession, finding_id: str, author: Author, body: str, *, now: str
) -> ReviewSession:
    """Append to a finding's thread (the agent's answer, Luxe's own word)."""
    finding = _find(session, finding_id)
    return _replace(
        session, attrs.evolve(finding, thread=(*finding.thread, _entry(author, body, now)))
    )


def set_fix(
    session: ReviewSession, finding_id: str, fix: Fix, *, now: str, system_note: str | None = None
) -> ReviewSession:
    """Move a finding's fix along (running, done, failed). A fix's report is
    recorded on the thread as the agent's (a failed fix may have one: the
    agent's words when its edits were denied); `system_note` records why a
    fix failed. The finding stays open either way: the reviewer resolves."""
    finding = _find(session, finding_id)
    thread = finding.thread
    if fix.report:
        thread = (*thread, _entry("agent", fix.report, now))
    if system_note:
        thread = (*thread, _entry("system", system_note, now))
    return _replace(session, attrs.evolve(finding, fix=fix, thread=thread))


def finding_hunk(finding: Finding, review: Review) -> Hunk | None:
    anchor = finding.anchor
    if isinstance(anchor, LineAnchor | RangeAnchor):
        return next((h for h in review.hunks if h.id == anchor.hunk_id), None)
    return None
