"""Guided Review frames: the actions that load, edit and commit a review and
the events that answer them (see docs/rpc.md, "Guided Review").

The review and the session travel as plain objects (`luxe.review.model`
defines their fields and builds them); the protocol only names the frames,
so it stays free of the rest of the project.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal

import attrs

from luxe.protocol.frame import Frame, frame

# The header of a secret file's hunk (by name, link or hard link): its one
# line is a placeholder, and a client shows nothing of the file itself.
SECRET_HUNK_HEADER = "secret file changed"

EditKind = Literal["comment", "reply", "fix", "edit", "resolve", "reopen", "delete", "verdict"]
SeverityName = Literal["question", "suggestion", "issue", "nit", "praise"]
DecisionName = Literal["approve", "request_changes", "comment"]

# -- actions ----------------------------------------------------------------------


@frame
class LoadGuidedReview(Frame):
    """Load a review of `target` ({kind: working_tree|staged|commit|range|branch|pull_request, …})."""

    KIND: ClassVar[str] = "load_guided_review"
    request_id: str
    target: dict[str, Any]


@frame
class EditReview(Frame):
    """One change to the open review's session; `edit` names it, the other
    fields sit beside it and are read by kind (see docs/rpc.md)."""

    KIND: ClassVar[str] = "edit_review"
    request_id: str
    review_id: str
    edit: EditKind
    finding_id: str | None = None
    anchor: dict[str, Any] | None = None
    body: str | None = None
    severity: SeverityName | None = None
    send: bool | None = None
    verdict: DecisionName | None = None

    def edit_fields(self) -> dict[str, Any]:
        """The edit as `luxe.review.edits.edit_from_wire` reads it."""
        fields = attrs.asdict(self)
        for name in ("request_id", "review_id"):
            fields.pop(name)
        return {name: value for name, value in fields.items() if value is not None}


@frame
class CommitReviewChapters(Frame):
    """Commit the chapters (all when `chapters` is left out) one commit each."""

    KIND: ClassVar[str] = "commit_review_chapters"
    request_id: str
    review_id: str
    chapters: list[str] | None = None
    message_style: str | None = None  # accepted; messages are title + summary


ReviewAction = LoadGuidedReview | EditReview | CommitReviewChapters
REVIEW_ACTIONS = (LoadGuidedReview, EditReview, CommitReviewChapters)

# -- events -----------------------------------------------------------------------


@frame
class GuidedReviewLoaded(Frame):
    KIND: ClassVar[str] = "guided_review_loaded"
    request_id: str
    review: dict[str, Any]


@frame
class ReviewSessionRestored(Frame):
    """Always follows guided_review_loaded: the review's findings (none yet
    for a review never seen before)."""

    KIND: ClassVar[str] = "review_session_restored"
    session: dict[str, Any]


@frame
class GuidedReviewLoadFailed(Frame):
    KIND: ClassVar[str] = "guided_review_load_failed"
    request_id: str
    reason: str


@frame
class ReviewSessionSaved(Frame):
    """An edit saved (request_id set), or an agent update (request_id null)."""

    KIND: ClassVar[str] = "review_session_saved"
    request_id: str | None
    session: dict[str, Any]


@frame
class ReviewSessionSaveFailed(Frame):
    KIND: ClassVar[str] = "review_session_save_failed"
    request_id: str
    reason: str


@frame
class ChapterCommitInfo(Frame):
    chapter_id: str
    sha: str
    message: str


@frame
class ReviewChaptersCommitted(Frame):
    KIND: ClassVar[str] = "review_chapters_committed"
    request_id: str
    commits: list[ChapterCommitInfo]


@frame
class ReviewChaptersCommitFailed(Frame):
    KIND: ClassVar[str] = "review_chapters_commit_failed"
    request_id: str
    reason: str


ReviewEvent = (
    GuidedReviewLoaded
    | ReviewSessionRestored
    | GuidedReviewLoadFailed
    | ReviewSessionSaved
    | ReviewSessionSaveFailed
    | ReviewChaptersCommitted
    | ReviewChaptersCommitFailed
)
REVIEW_EVENTS = (
    GuidedReviewLoaded,
    ReviewSessionRestored,
    GuidedReviewLoadFailed,
    ReviewSessionSaved,
    ReviewSessionSaveFailed,
    ReviewChaptersCommitted,
    ReviewChaptersCommitFailed,
)

# The event that answers a review action under its request_id when it fails.
# A frame of one of these kinds that is malformed but carries a string
# request_id is refused with this event, not `action_rejected`, so the client
# waiting on that request_id gets its answer (see docs/rpc.md).
FAILURE_EVENTS: dict[str, Callable[[str, str], ReviewEvent]] = {
    LoadGuidedReview.KIND: GuidedReviewLoadFailed,
    EditReview.KIND: ReviewSessionSaveFailed,
    CommitReviewChapters.KIND: ReviewChaptersCommitFailed,
}


def failure_for(kind: str | None, request_id: str | None, reason: str) -> ReviewEvent | None:
    """The failure event answering a refused review action under its
    request_id, or None when the frame is not one or has no usable request_id."""
    make = FAILURE_EVENTS.get(kind) if kind is not None else None
    if make is None or request_id is None:
        return None
    return make(request_id, reason)
