"""A Guided Review as one GitHub review: each open reviewer comment on a
line inside the pull request's diff becomes `{path, line, side, body}`;
every other comment (outside the diff, on a file or on the whole review) is
folded into the review's body, and the preview lists those.
"""

from __future__ import annotations

from collections.abc import Callable

from luxe.protocol import github as gp
from luxe.record import record
from luxe.review.diffparse import parse_diff
from luxe.review.model import LineAnchor, RangeAnchor, Review, ReviewSession

FOLDED_HEADING = "Comments on lines outside this pull request's diff:"


@record
class DraftReview:
    verdict: gp.Verdict
    body: str
    comments: tuple[gp.ReviewComment, ...]
    folded: tuple[str, ...]


def commentable_lines(diff_text: str) -> set[tuple[str, str, int]]:
    """(path, side, line) of every line of the diff a review comment may sit on."""
    parsed = parse_diff(diff_text)
    paths = {f.id: f.path for f in parsed.files}
    lines: set[tuple[str, str, int]] = set()
    for hunk in parsed.hunks:
        path = paths[hunk.file_id]
        for line in hunk.lines:
            if line.new_line is not None:
                lines.add((path, "RIGHT", line.new_line))
            if line.old_line is not None and line.kind != "add":
                lines.add((path, "LEFT", line.old_line))
    return lines


def draft_review(review: Review, session: ReviewSession, diff_lines: set[tuple[str, str, int]],
                 redact: Callable[[str], str] = lambda text: text) -> DraftReview:
    """The review to post; every comment and the verdict's words pass `redact`
    (a known secret value is never published)."""
    paths = {f.id: f.path for f in review.files}
    comments: list[gp.ReviewComment] = []
    folded: list[str] = []
    for finding in session.findings:
        if finding.status != "open" or not finding.thread:
            continue
        first = finding.thread[0]
        if first.author != "reviewer":
            continue
        body = redact(first.body)
        anchor = finding.anchor
        if isinstance(anchor, (LineAnchor, RangeAnchor)):
            path = paths.get(anchor.file_id, "?")
            line = anchor.line if isinstance(anchor, LineAnchor) else anchor.end
            side = "RIGHT" if anchor.side == "new" else "LEFT"
            if (path, side, line) in diff_lines:
                comments.append(gp.ReviewComment(path, line, side, body))
                continue
            folded.append(f"`{path}` line {line}: {body}")
        elif anchor.kind == "file":
            folded.append(f"`{paths.get(anchor.file_id, '?')}`: {body}")
        else:
            folded.append(body)
    if session.verdict is not None:
        verdict: gp.Verdict = session.verdict.decision
        opening = redact(session.verdict.body)
    else:
        serious = any(
            f.status == "open" and f.severity == "issue" for f in session.findings
        )
        verdict = "request_changes" if serious else "comment"
        opening = ""
    return DraftReview(verdict, compose_body(opening, folded), tuple(comments), tuple(folded))


def compose_body(opening: str, folded: list[str] | tuple[str, ...]) -> str:
    parts = [opening.strip()] if opening.strip() else []
    if folded:
        parts.append(FOLDED_HEADING + "\n\n" + "\n".join(f"- {item}" for item in folded))
    return "\n\n".join(parts)
