"""The Guided Review's plain data: targets, the review (files, hunks,
chapters) and the review session (findings, threads, verdict).

Field names and values match the "Guided Review" section of
luxe-protocol.md exactly, so the protocol layer can put these on the wire as
they are (`to_wire`). Everything is frozen: edits build new values. Nothing
here does I/O or imports trio.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar

import attrs
import cattrs
from cattrs.gen import make_dict_unstructure_fn
from cattrs.v import format_exception

from luxe.record import record

# -- targets -------------------------------------------------------------------


@record
class WorkingTreeTarget:
    """Staged and unstaged changes against HEAD, untracked files included."""

    kind: Literal["working_tree"] = "working_tree"


@record
class StagedTarget:
    """The index against HEAD."""

    kind: Literal["staged"] = "staged"


@record
class CommitTarget:
    sha: str
    kind: Literal["commit"] = "commit"


@record
class RangeTarget:
    base: str
    head: str
    kind: Literal["range"] = "range"


@record
class BranchTarget:
    """HEAD against its merge-base with `base` (default: the default branch)."""

    base: str | None = None
    kind: Literal["branch"] = "branch"


@record
class PullRequestTarget:
    number: int
    repository: str | None = None  # owner/name; None for the checkout's own
    kind: Literal["pull_request"] = "pull_request"


Target = (
    WorkingTreeTarget | StagedTarget | CommitTarget | RangeTarget | BranchTarget | PullRequestTarget
)

# -- the review ------------------------------------------------------------------

LineKind = Literal["context", "add", "del"]
FileStatus = Literal["added", "modified", "deleted", "renamed", "copied"]


@record
class DiffLine:
    kind: LineKind
    old_line: int | None
    new_line: int | None
    text: str


@record
class Hunk:
    """One hunk of one file. A file with no text hunks (binary, a pure rename,
    a mode change, an empty new file) gets one hunk with no lines, so every
    change belongs to a chapter and can be committed."""

    id: str
    file_id: str
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    header: str
    lines: tuple[DiffLine, ...]


@record
class ReviewFile:
    id: str
    path: str
    old_path: str | None  # set when renamed or copied
    status: FileStatus
    additions: int
    deletions: int
    binary: bool
    language: str | None


@record
class Chapter:
    id: str
    title: str
    summary: str
    hunk_ids: tuple[str, ...]


def empty_note(target: Target) -> str:
    """What a review of `target` with no changes tells the reviewer."""
    if isinstance(target, WorkingTreeTarget):
        return "Nothing to review: the working tree has no changes against HEAD."
    if isinstance(target, StagedTarget):
        return "Nothing to review: nothing is staged."
    if isinstance(target, CommitTarget):
        return f"Nothing to review: commit {target.sha} changes no files."
    if isinstance(target, RangeTarget):
        return f"Nothing to review: {target.base}..{target.head} changes no files."
    if isinstance(target, BranchTarget):
        since = target.base or "the default branch"
        return f"Nothing to review: the branch has no changes since its merge-base with {since}."
    return f"Nothing to review: pull request #{target.number} changes no files."


@record
class Review:
    id: str
    revision_id: str
    target: Target
    base: str | None  # the commit the diff starts from (None: the empty tree)
    head: str | None  # the commit it ends at (None: the index or working tree)
    files: tuple[ReviewFile, ...]
    hunks: tuple[Hunk, ...]
    chapters: tuple[Chapter, ...]
    # Derived from the above, never passed in (and ignored when read back), so
    # they cannot disagree with `files`: an empty diff says so on the wire.
    empty: bool = attrs.field(init=False)
    note: str | None = attrs.field(init=False)

    @empty.default
    def _empty_default(self) -> bool:
        return not self.files

    @note.default
    def _note_default(self) -> str | None:
        return None if self.files else empty_note(self.target)


# -- the review session ------------------------------------------------------------

Side = Literal["old", "new"]
Severity = Literal["question", "suggestion", "issue", "nit", "praise"]
SEVERITIES: tuple[str, ...] = ("question", "suggestion", "issue", "nit", "praise")
Author = Literal["reviewer", "agent", "system"]
FixState = Literal["requested", "running", "done", "failed"]
Decision = Literal["approve", "request_changes", "comment"]
DECISIONS: tuple[str, ...] = ("approve", "request_changes", "comment")


@record
class LineAnchor:
    file_id: str
    hunk_id: str
    side: Side
    line: int
    kind: Literal["line"] = "line"


@record
class RangeAnchor:
    file_id: str
    hunk_id: str
    side: Side
    start: int
    end: int
    kind: Literal["range"] = "range"


@record
class FileAnchor:
    file_id: str
    kind: Literal["file"] = "file"


@record
class ReviewAnchor:
    kind: Literal["review"] = "review"


Anchor = LineAnchor | RangeAnchor | FileAnchor | ReviewAnchor


@record
class ThreadEntry:
    # An Author, or `github:<login>` on a finding shown from a GitHub thread.
    author: str
    body: str
    at: str  # ISO 8601, UTC


@record
class Fix:
    state: FixState
    report: str | None = None


@record
class Finding:
    id: str
    anchor: Anchor
    severity: Severity
    status: Literal["open", "resolved"]
    outdated: bool
    thread: tuple[ThreadEntry, ...]
    sent: bool
    fix: Fix | None
    # A GitHub review thread of a pull_request target: shown, never edited here.
    read_only: bool = False


@record
class Verdict:
    decision: Decision
    body: str
    at: str


@record
class ReviewSession:
    id: str  # the review's id: one session per review
    review_id: str
    revision_id: str
    session_revision: int
    findings: tuple[Finding, ...]
    verdict: Verdict | None


# -- wire form -------------------------------------------------------------------------


class WireError(ValueError):
    """A value read from a client or from disk does not have the expected shape."""


_T = TypeVar("_T")
_converter = cattrs.Converter()

_TARGET_CLASSES: dict[str, type[Any]] = {
    "working_tree": WorkingTreeTarget,
    "staged": StagedTarget,
    "commit": CommitTarget,
    "range": RangeTarget,
    "branch": BranchTarget,
    "pull_request": PullRequestTarget,
}
_ANCHOR_CLASSES: dict[str, type[Any]] = {
    "line": LineAnchor,
    "range": RangeAnchor,
    "file": FileAnchor,
    "review": ReviewAnchor,
}


def _tagged(classes: Mapping[str, type[Any]], what: str) -> Any:
    def structure(value: Any, _: Any) -> Any:
        if not isinstance(value, Mapping):
            raise WireError(f"{what} must be an object")
        kind = value.get("kind")
        cls = classes.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise WireError(f"unknown {what} kind {kind!r} (expected one of {', '.join(classes)})")
        fields = {f.name: value.get(f.name) for f in attrs.fields(cls) if f.name in value}
        try:
            return _converter.structure(fields, cls)
        except Exception as error:  # cattrs raises several kinds; one clear message
            raise WireError(f"{what} {kind}: {_describe(error)}") from None

    return structure


def _format(error: BaseException, type_: Any) -> str:
    if isinstance(error, WireError):
        return str(error)  # already written for a person
    return format_exception(error, type_)


def _describe(error: Exception) -> str:
    if not isinstance(error, cattrs.BaseValidationError):
        return str(error)
    messages = cattrs.transform_error(error, format_exception=_format)
    return "; ".join(messages) if messages else str(error)


# The derived fields (init=False) go on the wire too; cattrs leaves them out by default.
_converter.register_unstructure_hook(
    Review, make_dict_unstructure_fn(Review, _converter, _cattrs_include_init_false=True)
)
_converter.register_structure_hook(Target, _tagged(_TARGET_CLASSES, "target"))
_converter.register_structure_hook(Anchor, _tagged(_ANCHOR_CLASSES, "anchor"))


def _strict_int(value: Any, _: Any) -> int:
    # JSON true/false and "12" are not line numbers.
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireError(f"expected an integer, got {value!r}")
    return value


def _strict_str(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise WireError(f"expected a string, got {value!r}")
    return value


def _strict_bool(value: Any, _: Any) -> bool:
    if not isinstance(value, bool):
        raise WireError(f"expected true or false, got {value!r}")
    return value


_converter.register_structure_hook(bool, _strict_bool)
_converter.register_structure_hook(int, _strict_int)
_converter.register_structure_hook(str, _strict_str)


def to_wire(value: Any) -> Any:
    """Plain JSON-ready data for any value of this module."""
    return _converter.unstructure(value)


def from_wire(data: Any, cls: type[_T]) -> _T:
    """Read a value of `cls` from plain data; raises WireError with a reason."""
    try:
        return _converter.structure(data, cls)
    except WireError:
        raise
    except Exception as error:
        raise WireError(_describe(error)) from None


def target_from_wire(data: Any) -> Target:
    return from_wire(data, Target)  # type: ignore[arg-type]
