"""The edits a client sends in `edit_review`, read from the frame's content.

`edit` names the kind; the other fields sit beside it (see luxe-protocol.md).
Unknown fields are ignored; a missing or ill-typed field is a WireError that
names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from luxe.record import record
from luxe.review.model import Anchor, Decision, Severity, WireError, from_wire


@record
class CommentEdit:
    anchor: Anchor
    body: str
    severity: Severity = "suggestion"
    send: bool = False


@record
class ReplyEdit:
    finding_id: str
    body: str
    send: bool = False


@record
class FixEdit:
    """Ask the agent to fix a finding, or a new one at `anchor` with `body`."""

    finding_id: str | None = None
    anchor: Anchor | None = None
    body: str | None = None
    send: bool = False


@record
class BodyEdit:
    """`edit`: change the finding's comment (the first entry of its thread)."""

    finding_id: str
    body: str


@record
class ResolveEdit:
    finding_id: str


@record
class ReopenEdit:
    finding_id: str


@record
class DeleteEdit:
    finding_id: str


@record
class VerdictEdit:
    verdict: Decision
    body: str = ""


Edit = (
    CommentEdit
    | ReplyEdit
    | FixEdit
    | BodyEdit
    | ResolveEdit
    | ReopenEdit
    | DeleteEdit
    | VerdictEdit
)

EDIT_KINDS: dict[str, type[Any]] = {
    "comment": CommentEdit,
    "reply": ReplyEdit,
    "fix": FixEdit,
    "edit": BodyEdit,
    "resolve": ResolveEdit,
    "reopen": ReopenEdit,
    "delete": DeleteEdit,
    "verdict": VerdictEdit,
}


def edit_from_wire(content: Mapping[str, Any]) -> Edit:
    """Read an edit from `edit_review`'s content (request_id and review_id
    are the caller's). Raises WireError with a reason."""
    kind = content.get("edit")
    cls = EDIT_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise WireError(f"unknown edit {kind!r} (expected one of {', '.join(EDIT_KINDS)})")
    fields = {f.name: content[f.name] for f in attrs.fields(cls) if f.name in content}
    try:
        edit: Edit = from_wire(fields, cls)
    except WireError as error:
        raise WireError(f"edit {kind}: {error}") from None
    return edit
