"""Comment threads of one file pane: who said what about which source lines.

Pure state, no I/O. A thread is anchored to an `Anchor`, the 1-based inclusive
source range of the rendered row it was made on: `(n, n)` for an ordinary line,
`(a, b)` for a markdown block that folds several source lines onto one row, so
comments on any row of that block join one thread. A thread holds a root note
and its replies (one level), each written by the person at the keyboard or by
an agent (labelled by name), and a collapsed flag for its card.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator

import attrs

Anchor = tuple[int, int]

# The label an agent's comment carries when neither the request nor `ready
# --agent` named it.
DEFAULT_AGENT = "agent"


@attrs.frozen
class Note:
    """One comment. `agent` is None for the person, else the agent's label."""

    body: str
    agent: str | None = None

    @property
    def by_person(self) -> bool:
        return self.agent is None


@attrs.define
class Thread:
    """The comments on one anchor, oldest first (the root, then replies)."""

    anchor: Anchor
    notes: list[Note] = attrs.field(factory=list)
    collapsed: bool = False

    @property
    def line(self) -> int:
        """The first source line of the anchor: where the thread sorts."""
        return self.anchor[0]

    @property
    def header(self) -> str:
        """`L<n>` for one line, `L<a>-<b>` for a folded block."""
        start, end = self.anchor
        return f"L{start}" if start == end else f"L{start}-{end}"

    @property
    def newest(self) -> Note:
        return self.notes[-1]


class Intent(enum.Enum):
    """What Enter will do with the person's draft, decided when `c` is pressed."""

    NEW = "new"  # no thread on the line yet: start one
    REPLY = "reply"  # the newest note is someone else's: answer it
    EDIT = "edit"  # the newest note is the person's own: rewrite it


class Change(enum.Enum):
    """What committing a draft did to the threads."""

    ADDED = "added"
    REPLIED = "replied"
    EDITED = "edited"
    DELETED = "deleted"
    UNCHANGED = "unchanged"


@attrs.frozen
class CommentDraft:
    """The person's comment in progress: where, what Enter will do, and the
    text the prompt starts with (the note being edited, else empty)."""

    anchor: Anchor
    intent: Intent
    prefill: str = ""


@attrs.frozen
class ReviewCounts:
    """The border's `[review: N ↑a ↓b]`: all threads, those wholly above the
    visible lines and those wholly below them."""

    total: int
    above: int
    below: int

    def label(self) -> str:
        """The border text, or "" when the pane has no threads."""
        if self.total == 0:
            return ""
        return f"[review: {self.total} ↑{self.above} ↓{self.below}]"


class CommentError(ValueError):
    """A comment request that cannot be applied; the message is worded for
    the agent that sent it and names what to change."""


def is_blank(text: str | None) -> bool:
    """True for a missing, empty or whitespace-only body."""
    return text is None or not text.strip()


def agent_label(author: str | None, ready_agent: str | None) -> str:
    """The name an agent's comment is shown and submitted under: the
    request's `author`, else the tab's `ready --agent` name, else `agent`."""
    for name in (author, ready_agent):
        if name is not None and name.strip():
            return name.strip()
    return DEFAULT_AGENT


def anchor_for_line(line: int, sources: Iterable[Anchor | None]) -> Anchor:
    """The anchor a source line comments on: the range of the first rendered
    row that contains it (a folded block's whole range), else the line alone."""
    for source in sources:
        if source is not None and source[0] <= line <= source[1]:
            return source
    return (line, line)


def validate_agent_comment(line: int, body: str | None, line_count: int) -> str:
    """The body of a valid agent comment on `line` of a file with
    `line_count` source lines; raises CommentError saying what is wrong."""
    if body is None or is_blank(body):
        raise CommentError("comment needs a body")
    if line < 1:
        raise CommentError(f"line {line} is not a line: lines count from 1")
    if line > line_count:
        noun = "line" if line_count == 1 else "lines"
        raise CommentError(f"line {line} is past the file's {line_count} {noun}")
    return body


class ThreadBook:
    """Every thread of one file pane, keyed by anchor.

    Owns nothing but memory; the pane that holds it decides when it is
    cleared (after a submission, on refresh, when the pane closes)."""

    def __init__(self) -> None:
        self._threads: dict[Anchor, Thread] = {}
        # Bumped by every change, so a pane can cache the rows it drew.
        self.version = 0

    # -- reading -----------------------------------------------------------

    @property
    def count(self) -> int:
        return len(self._threads)

    @property
    def comment_count(self) -> int:
        """Comments in all threads (roots and replies, the agent's too)."""
        return sum(len(thread.notes) for thread in self._threads.values())

    @property
    def is_empty(self) -> bool:
        return not self._threads

    def threads(self) -> list[Thread]:
        """All threads in source order (by first line, then by last)."""
        return sorted(self._threads.values(), key=lambda thread: thread.anchor)

    def __iter__(self) -> Iterator[Thread]:
        return iter(self.threads())

    def thread_at(self, anchor: Anchor) -> Thread | None:
        return self._threads.get(anchor)

    def thread_covering(self, line: int) -> Thread | None:
        """The first thread whose anchor contains `line`."""
        for thread in self.threads():
            if thread.anchor[0] <= line <= thread.anchor[1]:
                return thread
        return None

    # -- the person's comments ---------------------------------------------

    def begin_comment(self, anchor: Anchor) -> CommentDraft:
        """The draft `c` opens on `anchor`: a new thread, a reply, or an edit
        of the person's own newest note (pre-filled with it)."""
        thread = self._threads.get(anchor)
        if thread is None:
            return CommentDraft(anchor, Intent.NEW)
        if thread.newest.by_person:
            return CommentDraft(anchor, Intent.EDIT, thread.newest.body)
        return CommentDraft(anchor, Intent.REPLY)

    def commit_comment(self, draft: CommentDraft, text: str) -> Change:
        """Apply the person's Enter. A blank text never creates anything; a
        blank edit deletes the note (and the thread with its last note).

        The intent is re-checked against the thread as it is now: if the note
        to edit is no longer the newest (the thread changed meanwhile), the
        text is added as a reply rather than overwriting someone else's note.
        """
        self.version += 1
        thread = self._threads.get(draft.anchor)
        editing = draft.intent is Intent.EDIT and thread is not None and thread.newest.by_person
        if editing:
            assert thread is not None
            if is_blank(text):
                thread.notes.pop()
                if not thread.notes:
                    del self._threads[draft.anchor]
                return Change.DELETED
            if text == thread.newest.body:
                return Change.UNCHANGED
            thread.notes[-1] = Note(text)
            return Change.EDITED
        if is_blank(text):
            return Change.UNCHANGED
        return self._append(draft.anchor, Note(text))

    # -- the agent's comments ----------------------------------------------

    def add_agent_comment(self, anchor: Anchor, body: str, label: str) -> Change:
        """Start or extend the thread on `anchor` with the agent's note.
        Validate first with `validate_agent_comment`."""
        return self._append(anchor, Note(body, agent=label))

    def comment_from_agent(
        self,
        line: int,
        body: str | None,
        *,
        line_count: int,
        sources: Iterable[Anchor | None],
        author: str | None = None,
        ready_agent: str | None = None,
    ) -> Thread:
        """The agent's `comment` request, whole: validate it (CommentError on
        a blank body or a line outside the file), find the anchor the line
        belongs to, label the note, and return the thread it landed in."""
        text = validate_agent_comment(line, body, line_count)
        anchor = anchor_for_line(line, sources)
        self.add_agent_comment(anchor, text, agent_label(author, ready_agent))
        return self._threads[anchor]

    def _append(self, anchor: Anchor, note: Note) -> Change:
        self.version += 1
        thread = self._threads.get(anchor)
        if thread is None:
            self._threads[anchor] = Thread(anchor, [note])
            return Change.ADDED
        thread.notes.append(note)
        return Change.REPLIED

    # -- cards -------------------------------------------------------------

    def toggle(self, anchor: Anchor | None) -> None:
        """The `r` key: toggle the thread on the cursor's anchor; off a thread,
        collapse every card if any is open, else expand them all."""
        self.version += 1
        thread = self._threads.get(anchor) if anchor is not None else None
        if thread is not None:
            thread.collapsed = not thread.collapsed
            return
        any_open = any(not each.collapsed for each in self._threads.values())
        self.set_all_collapsed(any_open)

    def set_all_collapsed(self, collapsed: bool) -> None:
        self.version += 1
        for thread in self._threads.values():
            thread.collapsed = collapsed

    # -- navigation ----------------------------------------------------------

    def next_thread(self, line: int) -> Thread | None:
        """`n`: the first thread starting after `line`, wrapping to the first."""
        ordered = self.threads()
        for thread in ordered:
            if thread.line > line:
                return thread
        return ordered[0] if ordered else None

    def previous_thread(self, line: int) -> Thread | None:
        """`N`: the last thread starting before `line`, wrapping to the last."""
        ordered = self.threads()
        for thread in reversed(ordered):
            if thread.line < line:
                return thread
        return ordered[-1] if ordered else None

    def counts(self, first_visible: int, last_visible: int) -> ReviewCounts:
        """Threads in all, wholly above line `first_visible`, wholly below
        line `last_visible` (the pane's visible source lines)."""
        above = sum(1 for t in self._threads.values() if t.anchor[1] < first_visible)
        below = sum(1 for t in self._threads.values() if t.anchor[0] > last_visible)
        return ReviewCounts(self.count, above, below)

    def clear(self) -> None:
        self.version += 1
        self._threads.clear()
