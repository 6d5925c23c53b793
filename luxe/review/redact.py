"""What of a review may be shown: secret files hidden, secret values redacted.

A review is built from git's output, which holds whatever the change holds:
an untracked `.env` in a working-tree review, a key rotated in a commit.
`guard_review` is applied once, where the review is read, so every frame
(`guided_review_loaded`), the chapters request and every finding's context
come from the guarded review. The commit path re-reads the diff from disk,
so what is committed is the real change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from luxe.policy.secret_names import is_secret_path
from luxe.protocol.review import SECRET_HUNK_HEADER
from luxe.record import record
from luxe.review.model import DiffLine, Hunk, Review

SECRET_PLACEHOLDER = "[secret file changed: its contents are not shown]"


@record
class ReviewGuard:
    """The session's redactor and its test for secret files (by identity too)."""

    redact: Callable[[str], str]
    is_secret_file: Callable[[str], bool]


def _secret_hunk(hunk: Hunk) -> Hunk:
    return attrs.evolve(
        hunk,
        header=SECRET_HUNK_HEADER,
        lines=(DiffLine("context", None, None, SECRET_PLACEHOLDER),),
    )


def guard_review(review: Review, root: Path, guard: ReviewGuard) -> Review:
    """`review` with each hunk of a secret file replaced by a placeholder
    (ids and line counts kept, so chapters and commits still cover it) and
    every other hunk's text and header redacted."""
    secret_files = {
        f.id
        for f in review.files
        if any(
            is_secret_path(p) or guard.is_secret_file(str(root / p))
            for p in (f.path, f.old_path)
            if p
        )
    }
    hunks = []
    for hunk in review.hunks:
        if hunk.file_id in secret_files:
            hunks.append(_secret_hunk(hunk))
            continue
        lines = tuple(
            line if (safe := guard.redact(line.text)) == line.text else attrs.evolve(line, text=safe)
            for line in hunk.lines
        )
        hunks.append(attrs.evolve(hunk, header=guard.redact(hunk.header), lines=lines))
    return attrs.evolve(review, hunks=tuple(hunks))
