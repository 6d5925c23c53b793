"""The person's side of the inline review in the host: keys, prompt, footer.

`ReviewUI` owns the review's modal state: the comment or review-body prompt
that the `comment-prompt` and `review-prompt` commands open (`c` and `S` on a
focused file pane, laura/commands.py), the close question `x` asks on a pane
with threads, and, while one of those is open, every key. It draws the
prompt over the bottom of the shell pane and says what the footer should
read. It owns no task: the only side effect beyond the tab's state is
handing the review's bytes to the shell pane's PTY writer.

Ready gating fails closed: until the tab received `ready`, `c` and `S` only
say why; nothing is ever written into the PTY for them. Nor is it once the
agent that sent `ready` has left the terminal's foreground (`Tab.reader_gone`).
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable

import attrs

from laura import commands
from laura.chrome import draw_border
from laura.commands import Context
from laura.keys import Key
from laura.layout import SHELL
from laura.panes.file import FilePane
from laura.protocol import Close, Error, Ok, Rect, Response
from laura.render.canvas import Canvas, text_width
from laura.render.style import PLAIN
from laura.review.cards import visible
from laura.review.prompt import (
    NO_THREADS,
    NOT_READY,
    READER_GONE,
    REVIEW_HINT,
    SUBMIT_FAILED,
    DraftEditor,
    close_question,
    comment_hint,
    frozen_notice,
)
from laura.review.threads import CommentDraft
from laura.tab import Tab, inner

# The footer of a focused file pane: the review's keys once the tab is ready;
# before, why they are missing (both fit a 120-column terminal).
HINT_FILE_READY = (
    "  ↑/↓ move · c comment · n/N threads · r fold · S submit · d diff · h clear · "
    "Ctrl+R refresh · x close · Esc leave pane"
)
HINT_FILE_NOT_READY = (
    f"  ↑/↓ move · ←/→ scroll · d diff · h clear · x close · Esc leave pane · {NOT_READY}"
)
MAX_PROMPT_ROWS = 6

Toast = Callable[[str], None]


class DraftKind(enum.Enum):
    COMMENT = "comment"
    REVIEW = "review body"


@attrs.define
class Draft:
    """A prompt in progress on pane `pane` of `tab`."""

    kind: DraftKind
    tab: Tab
    pane: int
    editor: DraftEditor
    comment: CommentDraft | None = None
    failed: bool = False  # a review whose write failed: Enter retries


def shell_writer(tab: Tab) -> Callable[[bytes], bool]:
    """Hand bytes to the tab's shell PTY; False when there is no live child
    to read them (the write would go nowhere)."""

    def write(data: bytes) -> bool:
        shell = tab.shell
        if shell is None or shell.terminal.exited.is_set():
            return False
        shell.send(data)
        return True

    return write


class ReviewUI:
    """The review's modal state in the host: at most one prompt or one
    close question at a time, across all tabs."""

    def __init__(self, writer: Callable[[Tab], Callable[[bytes], bool]] = shell_writer) -> None:
        self._draft: Draft | None = None
        self.confirm_close: tuple[Tab, int] | None = None
        self.writer = writer

    @property
    def draft(self) -> Draft | None:
        return self._draft

    @draft.setter
    def draft(self, draft: Draft | None) -> None:
        """Open or close a prompt. A comment prompt holds its pane (no reload
        under it: the draft is anchored to a line number of what is on
        screen) until it closes, however it closes. A review-body prompt
        needs no hold: its pane has threads, so a change freezes it."""
        for old_or_new, held in ((self._draft, False), (draft, True)):
            if old_or_new is not None and old_or_new.kind is DraftKind.COMMENT:
                pane = old_or_new.tab.panes.get(old_or_new.pane)
                if pane is not None:
                    pane.review.held = held
        self._draft = draft

    @property
    def active(self) -> bool:
        """True while every key belongs to the review (a prompt or a question).
        A prompt or question whose pane has gone (the agent closed it, its
        tab ended) is dropped here, so no key is spent on it."""
        if self.draft is not None and self.draft.pane not in self.draft.tab.panes:
            self.draft = None
        if self.confirm_close is not None:
            tab, pane_id = self.confirm_close
            if pane_id not in tab.panes:
                self.confirm_close = None
        return self.draft is not None or self.confirm_close is not None

    # -- the commands that open a prompt (laura/commands.py) --------------------

    def begin_comment(self, tab: Tab, pane: FilePane, area: Rect) -> Response:
        """`c`: a comment prompt on the line under the cursor."""
        if not tab.ready:
            return Error(NOT_READY)
        anchor = pane.anchor_at(pane.cursor, area.width)
        if anchor is None:
            return Error("no line here to comment on")
        comment = pane.review.book.begin_comment(anchor)
        editor = DraftEditor(comment.prefill)
        self.draft = Draft(DraftKind.COMMENT, tab, pane.id, editor, comment)
        return Ok()

    def begin_review(self, tab: Tab, pane: FilePane) -> Response:
        """`S`: the review-body prompt, before the review is submitted."""
        if not tab.ready:
            return Error(NOT_READY)
        if not pane.review.has_threads:
            return Error(NO_THREADS)
        if tab.reader_gone():
            return Error(READER_GONE)
        editor = DraftEditor(pane.review.failed_body or "")
        self.draft = Draft(DraftKind.REVIEW, tab, pane.id, editor)
        return Ok()

    def ask_close(self, tab: Tab, pane: FilePane) -> Response:
        """`x` on a pane with threads: ask before they are discarded."""
        self.confirm_close = (tab, pane.id)
        return Ok()

    # -- keys while a prompt or question is open ---------------------------------

    def key(self, key: Key, toast: Toast) -> None:
        """A key while `active`: the close question or the open prompt."""
        if self.confirm_close is not None:
            tab, pane_id = self.confirm_close
            self.confirm_close = None
            if key == Key("y") and pane_id in tab.panes:
                tab.panes[pane_id].review.discard()
                commands.run("close", Context(tab), Close(pane=pane_id))
            return
        draft = self.draft
        if draft is None:
            return
        pane = draft.tab.panes.get(draft.pane)
        if pane is None:  # the pane went away under the prompt
            self.draft = None
            return
        editor = draft.editor
        if key.name == "escape" and not (key.ctrl or key.alt):
            self.draft = None
        elif key.name == "enter" and not (key.ctrl or key.alt):
            if editor.enter():
                self._commit(draft, pane, toast)
        elif key.name == "backspace":
            editor.backspace()
        elif key.name == "delete":
            editor.delete()
        elif key.name == "left":
            editor.left()
        elif key.name == "right":
            editor.right()
        elif key.name == "home":
            editor.home()
        elif key.name == "end":
            editor.end()
        elif key.name == "space":
            editor.insert(" ")
        elif len(key.name) == 1 and not (key.ctrl or key.alt):
            editor.insert(key.name)

    def paste(self, text: str) -> None:
        if self.draft is not None:
            self.draft.editor.insert(text.replace("\r\n", "\n").replace("\r", "\n"))

    def _commit(self, draft: Draft, pane: FilePane, toast: Toast) -> None:
        if draft.kind is DraftKind.COMMENT:
            assert draft.comment is not None
            pane.review.book.commit_comment(draft.comment, draft.editor.text)
            self.draft = None
            return
        if draft.tab.reader_gone():  # it left while the body was typed
            toast(READER_GONE)
            return
        if draft.tab.submit_review(pane, draft.editor.text, self.writer(draft.tab)):
            self.draft = None
            return
        draft.failed = True
        toast(SUBMIT_FAILED)

    # -- drawing ---------------------------------------------------------------

    def hint(self, tab: Tab, width: int) -> str | None:
        """The footer for the review's state, or None to leave it to the host."""
        if self.confirm_close is not None:
            _, pane_id = self.confirm_close
            pane = tab.panes.get(pane_id)
            return "  " + close_question(pane.review.book.count if pane else 0)
        if self.draft is not None:
            if self.draft.failed:
                return "  " + SUBMIT_FAILED
            if self.draft.kind is DraftKind.REVIEW:
                return REVIEW_HINT
            assert self.draft.comment is not None
            return comment_hint(self.draft.comment.anchor, self.draft.comment.intent)
        pane = tab.panes.get(tab.focus) if tab.focus != SHELL else None
        if pane is None:
            return None
        if pane.review.frozen:
            return "  " + frozen_notice(os.path.basename(pane.path), width)
        return HINT_FILE_READY if tab.ready else HINT_FILE_NOT_READY

    def draw(self, canvas: Canvas, tab: Tab) -> None:
        """The prompt, boxed over the bottom of the tab's shell pane."""
        draft = self.draft
        if draft is None or draft.tab is not tab:
            return
        shell = tab.rects().get(SHELL)
        if shell is None:
            return
        lines = [visible(text) for text in draft.editor.lines()]
        line, column = draft.editor.cursor_position()
        column = len(visible(draft.editor.lines()[line][:column]))
        rows = min(max(len(lines), 1), MAX_PROMPT_ROWS)
        height = min(rows + 2, shell.height)
        box = Rect(shell.x, shell.y + shell.height - height, shell.width, height)
        canvas.fill(box, " ", PLAIN)
        title = "comment" if draft.kind is DraftKind.COMMENT else "review body"
        draw_border(canvas, box, True, title)
        area = inner(box)
        if area.width <= 0 or area.height <= 0:
            return
        first = min(max(line - area.height + 1, 0), max(len(lines) - area.height, 0))
        cursor_x = text_width(lines[line][:column])
        shift = max(cursor_x - area.width + 1, 0)
        for offset, text in enumerate(lines[first : first + area.height]):
            shown = _skip_cells(text, shift)
            canvas.put(area.x, area.y + offset, shown, PLAIN, area.x + area.width)
        canvas.cursor = (area.x + cursor_x - shift, area.y + line - first)


def _skip_cells(text: str, cells: int) -> str:
    """`text` without its first `cells` cells (for a prompt scrolled sideways)."""
    skipped = 0
    for index, char in enumerate(text):
        if skipped >= cells:
            return text[index:]
        skipped += text_width(char)
    return ""
