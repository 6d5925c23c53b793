"""A pull request's GitHub review threads as Guided Review findings: shown
on the pull_request target's review with author `github:<login>`,
read-only (edits are refused; answer them with reply_review_thread and
resolve_review_thread). Pure: the threads are read by the caller."""

from __future__ import annotations

import attrs

from luxe.protocol import github as gp
from luxe.review.model import (
    Anchor,
    FileAnchor,
    Finding,
    LineAnchor,
    Review,
    ReviewAnchor,
    ReviewSession,
    Side,
    ThreadEntry,
)

ID_PREFIX = "github:"


def _anchor(review: Review, thread: gp.ReviewThread) -> tuple[Anchor, bool]:
    """Where the thread sits in the review, and whether it lost its line."""
    file_id = next((f.id for f in review.files if f.path == thread.path), None)
    if file_id is None:
        return ReviewAnchor(), True
    side: Side = "old" if thread.side == "left" else "new"
    if thread.line is not None:
        for hunk in review.hunks:
            if hunk.file_id != file_id:
                continue
            for line in hunk.lines:
                number = line.old_line if side == "old" else line.new_line
                if number == thread.line and (side == "new" or line.kind != "add"):
                    return LineAnchor(file_id, hunk.id, side, thread.line), False
    return FileAnchor(file_id), True


def thread_findings(review: Review, threads: list[gp.ReviewThread]) -> tuple[Finding, ...]:
    found = []
    for thread in threads:
        anchor, lost = _anchor(review, thread)
        entries = tuple(
            ThreadEntry(f"github:{c.author}", c.body, c.created_at) for c in thread.comments
        )
        if not entries:
            continue
        found.append(Finding(
            id=f"{ID_PREFIX}{thread.id}",
            anchor=anchor,
            severity="suggestion",
            status="resolved" if thread.resolved else "open",
            outdated=thread.outdated or lost,
            thread=entries,
            sent=False,
            fix=None,
            read_only=True,
        ))
    return tuple(found)


def with_threads(session: ReviewSession, findings: tuple[Finding, ...]) -> ReviewSession:
    """`session` with its GitHub findings replaced by `findings` (unchanged
    when they are the same)."""
    own = tuple(f for f in session.findings if not f.read_only)
    shown = tuple(f for f in session.findings if f.read_only)
    if shown == findings:
        return session
    return attrs.evolve(session, findings=(*own, *findings),
                        session_revision=session.session_revision + 1)
