"""The review state one file pane carries: threads, freeze, a failed submission.

Pure rules, no I/O; the host's file pane owns one `PaneReview` and asks it
what to do: whether a change on disk may reload the pane, what bytes `S`
writes, whether an agent request must be refused.

Freezing exists because threads are anchored to line numbers: reloading a
file that changed under unsubmitted comments would silently move them onto
other lines. A frozen pane keeps its snapshot until its threads are gone
(submitted, discarded with Ctrl+R, or deleted one by one), then reloads.

A comment prompt holds its pane for the same reason ("draft hold"): the
draft is anchored to a line number of the text on screen, so while it is
open the pane does not reload, and the agent may not replace it.
When the prompt closes the change is handled as usual: with threads the
pane freezes, without it reloads.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from laura.review.payload import review_bytes
from laura.review.prompt import drafting_refusal, frozen_refusal, unsubmitted_refusal
from laura.review.threads import ThreadBook

FROZEN_MARK = "⚠"


@attrs.define
class PaneReview:
    """Threads of one pane plus what they imply.

    `frozen`: the file changed on disk while threads were open; the pane
    shows its snapshot. `failed_body`: the overall body of a submission whose
    write failed, kept so Enter retries it. `held`: a comment prompt is open
    on the pane; a change on disk waits until it closes."""

    book: ThreadBook = attrs.field(factory=ThreadBook)
    frozen: bool = False
    failed_body: str | None = None
    held: bool = False

    @property
    def has_threads(self) -> bool:
        return not self.book.is_empty

    def file_changed(self) -> bool:
        """The file changed on disk: True when the pane may reload now;
        False when it freezes instead (it has threads)."""
        if self.has_threads:
            self.frozen = True
            return False
        return True

    def thaw_due(self) -> bool:
        """True once a frozen pane has no threads left: reload it, then call
        `thawed`."""
        return self.frozen and not self.has_threads

    def thawed(self) -> None:
        self.frozen = False

    def discard(self) -> None:
        """Ctrl+R, or the person closing the pane: drop every thread (the
        caller reloads the file)."""
        self.book.clear()
        self.frozen = False
        self.failed_body = None

    def submission(self, path: str, body: str, source_lines: Sequence[str]) -> bytes:
        """The bytes `S` writes to the shell's PTY for these threads."""
        return review_bytes(path, self.book.threads(), body, source_lines, frozen=self.frozen)

    def submitted(self) -> int:
        """The write succeeded: clear the threads. Returns how many there were
        (for the journal). A frozen pane thaws on the next `thaw_due`."""
        count = self.book.count
        self.book.clear()
        self.failed_body = None
        return count

    def submission_failed(self, body: str) -> None:
        """The write failed: keep the threads and the body for a retry."""
        self.failed_body = body

    # -- refusals of agent requests --------------------------------------------

    def highlight_refusal(self, pane: int, has_range: bool) -> str | None:
        """Why a `highlight` must be refused, or None. Clearing always works:
        a frozen pane's line numbers belong to the snapshot, not the file the
        agent is looking at, so only pointing at lines is refused."""
        return frozen_refusal(pane) if self.frozen and has_range else None

    def replace_refusal(self, pane: int) -> str | None:
        """Why the agent's `close` or `open --panel` must be refused, or None."""
        return unsubmitted_refusal(pane) if self.has_threads else None

    def open_panel_refusal(self, pane: int) -> str | None:
        """Why the agent's `open --panel` must be refused, or None: as for
        `close`, and also while the person types a comment on the pane (the
        comment would land on that line of the other file). A `close` under
        the prompt just ends the prompt with its pane."""
        refusal = self.replace_refusal(pane)
        if refusal is None and self.held:
            return drafting_refusal(pane)
        return refusal

    # -- the border -----------------------------------------------------------

    def border_label(self, first_visible: int, last_visible: int) -> str:
        """`[review: N ↑a ↓b]` and the frozen mark, or "" with nothing to show."""
        label = self.book.counts(first_visible, last_visible).label()
        return " ".join(part for part in (label, FROZEN_MARK if self.frozen else "") if part)
