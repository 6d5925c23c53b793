"""What the agent is told when a reviewer sends a finding, and what Luxe
records when the agent's turn ends without an answer. Pure.

A sent comment or reply asks the agent to answer on the thread; a fix asks it
to change the code and end with a report. Each turn is scoped to its finding:
the hunk, the file and the thread so far travel as the turn's context.
"""

from __future__ import annotations

from collections.abc import Sequence

from luxe.engine.ports import READ_ONLY_TOOLS
from luxe.engine.turn import CallRecord
from luxe.review.findings import finding_hunk
from luxe.review.model import (
    FileAnchor,
    Finding,
    Hunk,
    LineAnchor,
    RangeAnchor,
    Review,
    ReviewFile,
)

MAX_CONTEXT_LINES = 400


def _file_of(finding: Finding, review: Review) -> ReviewFile | None:
    anchor = finding.anchor
    if isinstance(anchor, FileAnchor | LineAnchor | RangeAnchor):
        return next((f for f in review.files if f.id == anchor.file_id), None)
    return None


def _render_hunk(hunk: Hunk) -> list[str]:
    marks = {"context": " ", "add": "+", "del": "-"}
    return [hunk.header, *(marks[line.kind] + line.text for line in hunk.lines)]


def _where(finding: Finding, review: Review) -> str:
    anchor = finding.anchor
    file = _file_of(finding, review)
    if isinstance(anchor, LineAnchor) and file:
        return f"{file.path}, {anchor.side} line {anchor.line}"
    if isinstance(anchor, RangeAnchor) and file:
        return f"{file.path}, {anchor.side} lines {anchor.start}-{anchor.end}"
    if file:
        return f"the file {file.path}"
    return "the change as a whole"


def finding_context(finding: Finding, review: Review) -> str:
    """The finding's place in the change and its thread, for the turn's context."""
    parts = [
        f"Guided Review of {review.target.kind} (review {review.id}, revision {review.revision_id})."
    ]
    parts.append(
        f"The reviewer's comment is on {_where(finding, review)}; severity {finding.severity}."
    )
    file = _file_of(finding, review)
    if file is not None:
        renamed = f" (renamed from {file.old_path})" if file.old_path else ""
        parts.append(
            f"File: {file.path}{renamed}, {file.status}, +{file.additions} -{file.deletions}."
        )
    hunk = finding_hunk(finding, review)
    hunks = [hunk] if hunk else [h for h in review.hunks if file and h.file_id == file.id]
    lines: list[str] = []
    for each in hunks:
        lines.extend(_render_hunk(each))
    if lines:
        shown = lines[:MAX_CONTEXT_LINES]
        more = f"\n… {len(lines) - len(shown)} more lines" if len(lines) > len(shown) else ""
        parts.append("The diff there:\n```diff\n" + "\n".join(shown) + more + "\n```")
    thread = "\n".join(f"[{entry.author}] {entry.body}" for entry in finding.thread)
    parts.append("The thread so far:\n" + thread)
    return "\n\n".join(parts)


def question_prompt(finding: Finding) -> str:
    last = next((e.body for e in reversed(finding.thread) if e.author == "reviewer"), "")
    return (
        "A reviewer asks about the change under review (see the context). Answer on the "
        f"thread, briefly and concretely. Do not change any file.\n\n{last}"
    )


def fix_prompt(finding: Finding) -> str:
    asked = "\n".join(e.body for e in finding.thread if e.author == "reviewer")
    return (
        "A reviewer asks you to fix this finding in the change under review (see the "
        "context). Make the change in the files, then end with a short report of what you "
        f"changed and why; the report is recorded on the thread.\n\n{asked}"
    )


def why_fix_denied(calls: Sequence[CallRecord]) -> str | None:
    """Why a fix turn that ended with a report still failed, or None when it
    did not: the turn tried to change something (called a tool that is not
    read-only), every such call was denied (by the client, the gate or a
    hook), and so no file changed. A fix that calls no mutating tool at all
    (the agent finds nothing to change and says so) is not failed here."""
    mutating = [call for call in calls if call.name not in READ_ONLY_TOOLS]
    if not mutating or not all(call.denied for call in mutating):
        return None
    if any(call.changed for call in calls):
        return None
    reasons = list(dict.fromkeys(f"{call.name}: {call.reason}" for call in mutating))
    return (
        "The fix was not applied: every change the agent tried was denied "
        f"({'; '.join(reasons)}), so no file changed."
    )


def why_no_answer(reason: str, error: str | None, *, fix: bool) -> str:
    """Luxe's own word when a turn ended without an answer or report."""
    what = "fix" if fix else "answer"
    if reason == "cancelled":
        return f"The {what} was cancelled before the agent reported."
    if reason == "denied":
        why = f" ({error})" if error else ""
        return f"The {what} stopped: a permission or hook denied it{why}."
    if reason == "error":
        return f"The {what} failed: {error or 'the turn ended with an error'}."
    if reason == "max_turns":
        why = f" ({error})" if error else ""
        return f"The {what} stopped: the agent ran out of turns before it reported{why}."
    if reason == "end_turn":
        return f"The agent ended its turn without {'a report' if fix else 'an answer'}."
    return f"The {what} ended ({reason}) without a report."
