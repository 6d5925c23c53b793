"""An empty diff says so on the review itself, for every target kind."""

from __future__ import annotations

import attrs

from luxe.review.model import (
    BranchTarget,
    CommitTarget,
    PullRequestTarget,
    RangeTarget,
    Review,
    ReviewFile,
    StagedTarget,
    Target,
    WorkingTreeTarget,
    from_wire,
    to_wire,
)


def review_of(target: Target, files: tuple[ReviewFile, ...] = ()) -> Review:
    return Review("review:1", "rev", target, None, None, files, (), ())


def test_each_target_kind_names_what_is_empty() -> None:
    notes = {
        WorkingTreeTarget(): "the working tree has no changes against HEAD",
        StagedTarget(): "nothing is staged",
        CommitTarget("abc123"): "commit abc123 changes no files",
        RangeTarget("v1", "v2"): "v1..v2 changes no files",
        BranchTarget(): "merge-base with the default branch",
        BranchTarget("develop"): "merge-base with develop",
        PullRequestTarget(7): "pull request #7 changes no files",
    }
    for target, words in notes.items():
        wire = to_wire(review_of(target))
        assert wire["empty"] is True, target
        assert wire["note"].startswith("Nothing to review: ") and words in wire["note"], wire


def test_a_review_with_files_is_not_empty_and_the_fields_follow_the_files() -> None:
    file = ReviewFile("file:1", "a.py", None, "added", 1, 0, False, "python")
    full = review_of(StagedTarget(), (file,))
    assert (to_wire(full)["empty"], to_wire(full)["note"]) == (False, None)
    # Derived, never stored: read back or evolved, they follow `files`.
    stale = {**to_wire(full), "empty": True, "note": "stale"}
    assert (from_wire(stale, Review).empty, from_wire(stale, Review).note) == (False, None)
    assert attrs.evolve(full, files=()).empty is True
