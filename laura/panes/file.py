"""A file pane: one file's rows and the per-pane state the host keeps for it.

Rows come from `laura.render.document`: the pane holds a `Document` (parsed
once per load) and a lazily laid-out view per text width, so a first paint
renders one screen. The state a pane grows (line cursor, scroll, horizontal
scroll, highlight, diff view, follow, git marks, comments) lives here; `draw`
paints it into a canvas with a line-number gutter.

The pane owns no task: the host calls `poll()` on a timer and before
answering a request, and `poll` reloads inline when the file changed.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import attrs

from laura import gitmarks
from laura.panes.watch import FileWatch
from laura.protocol import Rect
from laura.render import theme
from laura.render.canvas import Canvas, text_width
from laura.render.diff import read_text
from laura.render.document import Document
from laura.render.lines import clamp_range
from laura.render.style import Row, Span, Style
from laura.render.view import ADDED, MODIFIED, REMOVED, DocumentView, Marks

GUTTER_STYLE = Style(fg=(110, 110, 110))
LIT_GUTTER_STYLE = Style(fg=(216, 222, 233), bold=True, reverse=True)
CURSOR_BG = (67, 76, 94)
ERROR_STYLE = Style(fg=(224, 108, 117))
MARKER_STYLES = {ADDED: theme.MARK_ADDED, MODIFIED: theme.MARK_MODIFIED, REMOVED: theme.MARK_REMOVED}
MARKER_CELL = "▌"
HSCROLL_STEP = 8


class Comment(NamedTuple):
    """A note on a source line, from the agent (`laura comment`) or the user."""

    line: int
    body: str
    author: str


def dimmed(style: Style) -> Style:
    """How a row outside a highlight looks: faint, no bold, no background."""
    return attrs.evolve(style, dim=True, bold=False, bg=None)


class FilePane:
    """One file pane. `cursor` and `scroll` index rendered rows; `highlight`
    is a source line range (1-based, inclusive) clamped to the file."""

    kind = "panel"

    def __init__(self, pane_id: int, path: str, shown_path: str) -> None:
        self.id = pane_id
        self.path = path  # absolute
        self.shown_path = shown_path  # as the request named it
        self.cursor = 0
        self.scroll = 0
        self.hscroll = 0
        self.highlight: tuple[int, int] | None = None
        self.diff_view = False
        self.follow = False
        self.comments: list[Comment] = []
        self.watch = FileWatch(path)
        self._inner: Rect | None = None  # the text area at the last draw
        self._pin_end = False
        self._load()

    # --- content --------------------------------------------------------------

    def _load(self) -> None:
        text, reason = read_text(self.path)
        self.text = text or ""
        self.error = reason
        self.document = Document(self.path, self.text, unreadable=reason)
        self._git: gitmarks.GitDiff | None = None
        self._marks: Marks | None = None
        self._views: dict[tuple[int, bool], DocumentView] = {}
        self._lit: tuple[DocumentView, tuple[int, int], range] | None = None

    @property
    def line_count(self) -> int:
        return self.document.line_count

    @property
    def git(self) -> gitmarks.GitDiff:
        """This file against HEAD, asked of git once per load."""
        if self._git is None:
            if self.error is not None:
                self._git = gitmarks.GitDiff(gitmarks.NO_CHANGES)
            else:
                self._git = gitmarks.git_diff_blocking(self.path)
        return self._git

    @property
    def marks(self) -> Marks:
        if self._marks is None:
            self._marks = gitmarks.marks_of(self.git, self.line_count)
        return self._marks

    def stats(self) -> str:
        """`+a -d` against HEAD, or "" when nothing changed."""
        return gitmarks.stats_text(self.marks)

    # --- rows ---------------------------------------------------------------

    def gutter_width(self) -> int:
        return len(str(max(self.line_count, 1))) + 3  # number, space, marker, space

    def text_width(self, inner_width: int) -> int:
        return max(inner_width - self.gutter_width(), 1)

    def rows(self, inner_width: int) -> DocumentView:
        """Rendered rows at the pane's inner width, laid out as they are read
        (one view per width and mode, kept until the file reloads)."""
        width = self.text_width(inner_width)
        key = (width, self.diff_view)
        view = self._views.get(key)
        if view is None:
            if self.diff_view:
                blocks = gitmarks.diff_view_blocks(self.document.lines, self.git.hunks)
                view = DocumentView(blocks, self.line_count, width, one_row_per_line=False)
            else:
                view = self.document.view(width, self.marks)
            self._views[key] = view
        return view

    def content_rows(self, inner_width: int) -> int:
        return self.rows(inner_width).content_rows()

    def lit_rows(self, inner_width: int) -> range:
        """Rows whose source range meets the highlight (empty when none)."""
        if self.highlight is None or self.line_count == 0:
            return range(0)
        view = self.rows(inner_width)
        cached = self._lit
        if cached is None or cached[0] is not view or cached[1] != self.highlight:
            # drawn every frame: answer once per view and range
            cached = self._lit = (view, self.highlight, view.rows_meeting(*self.highlight))
        return cached[2]

    # --- state changes --------------------------------------------------------

    def set_highlight(self, line_range: tuple[int, int] | None, inner: Rect) -> None:
        """Light `line_range` (clamped to the file), put the cursor on its
        first row and scroll it into view once: centred when it fits, else
        from its top. None clears."""
        if line_range is None:
            self.highlight = None
            return
        self.highlight = clamp_range(line_range[0], line_range[1], self.line_count)
        lit = self.lit_rows(inner.width)
        if lit:
            self.cursor = lit.start
            height = max(inner.height, 1)
            margin = (height - len(lit)) // 2 if len(lit) <= height else 0
            self.scroll = max(lit.start - margin, 0)
            self.clamp(inner)

    def clear_highlight(self) -> None:
        self.highlight = None

    def move_cursor(self, delta: int, inner: Rect) -> None:
        self.cursor += delta
        self.clamp(inner)
        if self.cursor < self.scroll:
            self.scroll = self.cursor
        elif self.cursor >= self.scroll + inner.height:
            self.scroll = self.cursor - inner.height + 1

    def scroll_by(self, delta: int, inner: Rect) -> None:
        self.scroll += delta
        self.cursor += delta
        self.clamp(inner)

    def scroll_sideways(self, steps: int, inner: Rect) -> None:
        """←/→: shift pre-formatted rows (code, tables, fences) by a step,
        no further than the widest one on screen needs."""
        view = self.rows(inner.width)
        widest = view.max_pre_cells(self.scroll, inner.height)
        limit = max(widest - view.width + 1, 0)
        self.hscroll = min(max(self.hscroll + steps * HSCROLL_STEP, 0), limit)

    def clamp(self, inner: Rect) -> None:
        """Keep scroll and cursor on rows that exist, laying out only as far
        as the view needs (the full count is known once laid out to the end)."""
        view = self.rows(inner.width)
        height = max(inner.height, 1)
        self.scroll = max(self.scroll, 0)
        laid = view.available(self.scroll + height)
        if view.complete():
            self.scroll = min(self.scroll, max(laid - height, 0))
        self.cursor = max(self.cursor, 0)
        laid = view.available(self.cursor + 1)
        self.cursor = min(self.cursor, max(laid - 1, 0))
        if self.cursor < self.scroll:
            self.cursor = self.scroll
        elif self.cursor >= self.scroll + height:
            self.cursor = self.scroll + height - 1
        self.cursor = min(self.cursor, max(view.available(self.cursor + 1) - 1, 0))

    def pin_to_end(self, inner: Rect) -> None:
        view = self.rows(inner.width)
        count = view.content_rows()
        self.cursor = max(count - 1, 0)
        self.scroll = max(count - max(inner.height, 1), 0)

    def set_diff_view(self, on: bool) -> str | None:
        """Turn the inline diff view on or off; returns why it cannot be
        turned on (nothing to diff, no git) and changes nothing then."""
        if not on:
            self._switch_mode(False)
            return None
        self._git = None  # ask git afresh: the file may have changed since
        self._marks = None
        self._views.clear()
        refusal = gitmarks.diff_view_refusal(self.git)
        if refusal is None:
            self._switch_mode(True)
        return refusal

    def _switch_mode(self, diff_view: bool) -> None:
        if diff_view == self.diff_view:
            return
        line = self._cursor_line()
        self.diff_view = diff_view
        self._restore(line, None)

    # --- live files -----------------------------------------------------------

    def poll(self) -> bool:
        """Reload if the file changed on disk; True when it did."""
        if not self.watch.poll():
            return False
        self.reload()
        return True

    def reload(self) -> None:
        """Read the file again; keep the cursor on its source line, the
        view around it, the highlight clamped to the new length; with
        `follow`, pin to the end instead."""
        line = self._cursor_line()
        top = self._top_line()
        old_document, old_views = self.document, self._views
        self._load()
        kept = self.document.continues(old_document)
        if kept and self.marks.empty:  # a growing log: lay out only what was appended
            for (width, diff_view), view in old_views.items():
                if not diff_view:
                    self._views[(width, False)] = self.document.view(
                        width, self.marks, reuse=(view, kept)
                    )
        if self.highlight is not None:
            self.highlight = clamp_range(*self.highlight, self.line_count)
        if self.follow:
            self._pin_end = True
            return
        self._restore(line, top)

    def _cursor_line(self) -> int | None:
        if self._inner is None:
            return None
        return self.rows(self._inner.width).line_at(self.cursor)

    def _top_line(self) -> int | None:
        if self._inner is None:
            return None
        return self.rows(self._inner.width).line_at(self.scroll)

    def _restore(self, line: int | None, top: int | None) -> None:
        inner = self._inner
        if inner is None or line is None:
            return
        view = self.rows(inner.width)
        found = view.rows_meeting(line) if self.line_count else range(0)
        cursor = found.start if found else 0
        if top is not None:
            above = view.rows_meeting(top) if self.line_count else range(0)
            self.scroll = above.start if above else 0
        self.cursor = cursor
        if not self.scroll <= cursor < self.scroll + max(inner.height, 1):
            self.scroll = max(cursor - max(inner.height, 1) // 2, 0)
        self.clamp(inner)

    def start_following(self) -> None:
        self.follow = True
        self._pin_end = True

    def set_follow(self, follow: bool, inner: Rect) -> None:
        """Following pins the cursor (and the view) to the last row, now and
        on every reload."""
        self.follow = follow
        if follow:
            self._inner = self._inner or inner
            self.pin_to_end(inner)

    # --- drawing --------------------------------------------------------------

    def title(self, cwd: str) -> str:
        shown = self.path
        if cwd and (self.path + os.sep).startswith(cwd.rstrip(os.sep) + os.sep):
            shown = os.path.relpath(self.path, cwd)
        title = f"#{self.id} {shown}"
        if self.diff_view:
            title += " [diff]"
        self._title_width = text_width(title)
        stats = self.stats()
        return f"{title} {stats}" if stats else title

    def _draw_stats(self, canvas: Canvas, inner: Rect) -> None:
        """Colour the `+a -d` the border title ends with (green, red)."""
        stats = self.stats()
        width = getattr(self, "_title_width", None)
        if not stats or width is None:
            return
        added, deleted = stats.split(" ")
        x = inner.x + 1 + width + 1  # border corner, space, title, space
        right = inner.x + inner.width
        if x + len(stats) > right:
            return
        x = canvas.put(x, inner.y - 1, added, theme.MARK_ADDED, right)
        canvas.put(x + 1, inner.y - 1, deleted, theme.MARK_REMOVED, right)

    def draw(self, canvas: Canvas, inner: Rect, focused: bool) -> None:
        if self._inner is not None and self._inner.width != inner.width:
            # resized: rows re-wrap, so keep the cursor and the top on their lines
            line, top = self._cursor_line(), self._top_line()
            self._inner = inner
            self._restore(line, top)
        self._inner = inner
        if self._pin_end:
            self._pin_end = False
            self.pin_to_end(inner)
        self.clamp(inner)
        view = self.rows(inner.width)
        rows = view.window(self.scroll, inner.height, self.hscroll)
        number_width = self.gutter_width() - 3
        lit = self.lit_rows(inner.width)
        lighting = self.highlight is not None
        right = inner.x + inner.width
        self._draw_stats(canvas, inner)
        for offset, row in enumerate(rows):
            index = self.scroll + offset
            y = inner.y + offset
            is_lit = index in lit
            number = str(row.source[0]) if row.first and row.source else ""
            gutter_style = LIT_GUTTER_STYLE if is_lit and number else GUTTER_STYLE
            x = canvas.put(inner.x, y, number.rjust(number_width), gutter_style, right)
            x = canvas.put(x, y, " ", PLAIN_GUTTER, right)
            marker_style = MARKER_STYLES.get(row.marker)
            marker = MARKER_CELL if marker_style is not None else " "
            x = canvas.put(x, y, marker, marker_style or GUTTER_STYLE, right)
            x = canvas.put(x, y, " ", PLAIN_GUTTER, right)
            spans = row.spans
            if lighting and not is_lit:
                spans = tuple(Span(span.text, dimmed(span.style)) for span in spans)
            canvas.put_spans(x, y, spans, right)
            if focused and index == self.cursor:
                _paint(canvas, Rect(inner.x, y, inner.width, 1), background=CURSOR_BG)


PLAIN_GUTTER = Style()


def _paint(canvas: Canvas, band: Rect, *, background: tuple[int, int, int]) -> None:
    row = canvas.rows[band.y]
    for x in range(band.x, min(band.x + band.width, canvas.width)):
        text, style = row[x]
        row[x] = (text, attrs.evolve(style, bg=background))


def row_text(row: Row) -> str:
    return "".join(span.text for span in row.spans)
