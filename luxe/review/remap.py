"""Carry a review session over to a newer revision of the same review.

Every finding is kept. An anchor moves to where its lines are in the new
diff, found by content (same file, same side, same kind and text, nearest to
where it was); when its lines are gone or changed, the anchor stays as it was
and the finding is marked `outdated`. Outdated stays outdated. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from luxe.review.findings import side_line
from luxe.review.model import (
    Anchor,
    DiffLine,
    FileAnchor,
    Finding,
    Hunk,
    LineAnchor,
    RangeAnchor,
    Review,
    ReviewFile,
    ReviewSession,
)


def remap_session(session: ReviewSession, old: Review, new: Review) -> ReviewSession:
    """The session on `new`'s revision; unchanged if the revision is the same."""
    if old.revision_id == new.revision_id:
        return session
    findings = tuple(_remap_finding(finding, old, new) for finding in session.findings)
    return attrs.evolve(
        session,
        revision_id=new.revision_id,
        findings=findings,
        session_revision=session.session_revision + 1,
    )


def _remap_finding(finding: Finding, old: Review, new: Review) -> Finding:
    if finding.outdated:
        return finding
    anchor = _remap_anchor(finding.anchor, old, new)
    if anchor is None:
        return attrs.evolve(finding, outdated=True)
    return attrs.evolve(finding, anchor=anchor)


def _remap_anchor(anchor: Anchor, old: Review, new: Review) -> Anchor | None:
    if not isinstance(anchor, FileAnchor | LineAnchor | RangeAnchor):
        return anchor  # the review as a whole is always there
    old_file = next((f for f in old.files if f.id == anchor.file_id), None)
    new_file = _same_file(old_file, new.files) if old_file else None
    if new_file is None:
        return None
    if isinstance(anchor, FileAnchor):
        return FileAnchor(new_file.id)
    old_hunk = next((h for h in old.hunks if h.id == anchor.hunk_id), None)
    if old_hunk is None:
        return None
    side = anchor.side
    start, end = (
        (anchor.line, anchor.line) if isinstance(anchor, LineAnchor) else (anchor.start, anchor.end)
    )
    wanted = [line for line in _side_lines(old_hunk, side) if start <= _number(line, side) <= end]
    if not wanted:
        return None
    key = [(line.kind, line.text) for line in wanted]
    best: tuple[int, Hunk, int] | None = None
    for hunk in new.hunks:
        if hunk.file_id != new_file.id:
            continue
        lines = _side_lines(hunk, side)
        for index in range(len(lines) - len(key) + 1):
            if all(
                (lines[index + k].kind, lines[index + k].text) == key[k] for k in range(len(key))
            ):
                moved = _number(lines[index], side)
                distance = abs(moved - start)
                if best is None or distance < best[0]:
                    best = (distance, hunk, moved)
    if best is None:
        return None
    _, hunk, moved = best
    if isinstance(anchor, LineAnchor):
        return LineAnchor(new_file.id, hunk.id, side, moved)
    return RangeAnchor(new_file.id, hunk.id, side, moved, moved + (end - start))


def _same_file(old_file: ReviewFile, files: Sequence[ReviewFile]) -> ReviewFile | None:
    for file in files:
        if file.id == old_file.id:
            return file
    for file in files:  # renamed since, or no longer renamed
        if file.path == old_file.path or (file.old_path and file.old_path == old_file.path):
            return file
    return None


def _side_lines(hunk: Hunk, side: str) -> list[DiffLine]:
    return [line for line in hunk.lines if side_line(line, side) is not None]


def _number(line: DiffLine, side: str) -> int:
    number = side_line(line, side)
    assert number is not None
    return number
