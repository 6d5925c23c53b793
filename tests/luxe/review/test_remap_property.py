"""Re-mapping keeps findings on their lines when edits elsewhere move them."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from luxe.review.diffparse import parse_diff
from luxe.review.findings import side_line
from luxe.review.model import Finding, LineAnchor, Review, ReviewSession, WorkingTreeTarget
from luxe.review.remap import remap_session


def review_of(old: list[str], new: list[str]) -> Review:
    with tempfile.TemporaryDirectory() as scratch:
        Path(scratch, "f.txt").write_text("".join(f"{line}\n" for line in old))
        Path(scratch, "g.txt").write_text("".join(f"{line}\n" for line in new))
        text = subprocess.run(
            ["git", "diff", "--no-index", "--no-color", "-U3", "f.txt", "g.txt"],
            cwd=scratch, capture_output=True, text=True, check=False,
        ).stdout  # fmt: skip
    parsed = parse_diff(text)
    return Review("review:00000000", parsed.revision_id, WorkingTreeTarget(), None, None,
                  parsed.files, parsed.hunks, ())  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(
    changed=st.sets(st.integers(0, 59), min_size=1, max_size=6),
    inserted=st.integers(1, 5),
    where=st.integers(0, 59),
)
def test_lines_moved_by_other_edits_keep_their_findings(
    changed: set[int], inserted: int, where: int
) -> None:
    base = [f"line {n}" for n in range(60)]
    first = [f"changed {n}" if n in changed else line for n, line in enumerate(base)]
    # The second revision inserts lines somewhere that is not a changed line.
    if where in changed:
        return
    second = first[:where] + [f"new {k}" for k in range(inserted)] + first[where:]
    old, new = review_of(base, first), review_of(base, second)

    findings = []
    for hunk in old.hunks:
        for line in hunk.lines:
            if line.kind == "add":
                anchor = LineAnchor(hunk.file_id, hunk.id, "new", line.new_line or 0)
                findings.append(Finding(line.text, anchor, "nit", "open", False, (), False, None))
    session = ReviewSession(old.id, old.id, old.revision_id, 0, tuple(findings), None)

    moved = remap_session(session, old, new)
    texts = {
        (h.id, side_line(line, "new")): line.text
        for h in new.hunks
        for line in h.lines
        if line.new_line
    }
    for finding in moved.findings:
        assert not finding.outdated, finding
        assert isinstance(finding.anchor, LineAnchor)
        assert (
            texts[(finding.anchor.hunk_id, finding.anchor.line)] == finding.id
        )  # id holds the text
