"""A file pane: one file's rows and the per-pane state the host keeps for it.

Rows come from `render_document(name, text, width)` alone, so richer
renderers drop in without touching this module. The state a pane grows
(line cursor, scroll, highlight, diff view, follow, comments) lives here;
`draw` paints it into a canvas with a line-number gutter.
"""

from __future__ import annotations

import os

import attrs

from laura.panes.watch import FileWatch
from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.render.document import render_document, render_plain
from laura.render.style import Row, Span, Style
from laura.review.cards import with_cards
from laura.review.payload import split_source_lines
from laura.review.state import PaneReview
from laura.review.threads import Anchor

GUTTER_STYLE = Style(fg=(110, 110, 110))
LIT_GUTTER_STYLE = Style(fg=(216, 222, 233))
CURSOR_BG = (67, 76, 94)
ERROR_STYLE = Style(fg=(224, 108, 117))


def read_text(path: str) -> tuple[str, str | None]:
    """The file's text, or ("", error text) when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(), None
    except OSError as exc:
        return "", f"{exc.strerror or exc} (os error {exc.errno})"


class FilePane:
    """One file pane. `cursor` and `scroll` index rendered rows."""

    kind = "panel"

    def __init__(self, pane_id: int, path: str, shown_path: str) -> None:
        self.id = pane_id
        self.path = path  # absolute
        self.shown_path = shown_path  # as the request named it
        self.text, self.error = read_text(path)
        self.cursor = 0
        self.scroll = 0
        self.highlight: tuple[int, int] | None = None
        self.diff_view = False
        self.follow = False
        # Inline review: threads, freeze, a failed submission (laura/review).
        self.review = PaneReview()
        self.watch = FileWatch(path)
        self._rows: tuple[int, list[Row]] | None = None
        self._generation = 0  # bumped whenever the source rows are rebuilt
        self._with_cards: tuple[tuple[int, int], list[Row]] | None = None
        self._shown: tuple[int, list[Row]] | None = None  # what rows() last returned

    # --- rows ---------------------------------------------------------------

    @property
    def line_count(self) -> int:
        return len(self.text.splitlines())

    def gutter_width(self) -> int:
        return len(str(max(self.line_count, 1))) + 3  # number, space, marker, space

    def rows(self, inner_width: int) -> list[Row]:
        """Rendered rows at the pane's inner width with the review's thread
        cards under their lines (both cached)."""
        rows = self.source_rows(inner_width)
        book = self.review.book
        if not book.is_empty:
            key = (self._generation, book.version)
            if self._with_cards is None or self._with_cards[0] != key:
                text_width = max(inner_width - self.gutter_width(), 1)
                self._with_cards = (key, with_cards(rows, book.threads(), text_width, indent=1))
            rows = self._with_cards[1]
        shown = self._shown
        if shown is not None and shown[0] == self._generation and shown[1] is not rows:
            self._keep_place(shown[1], rows)
        self._shown = (self._generation, rows)
        return rows

    def _keep_place(self, old: list[Row], new: list[Row]) -> None:
        """Cards appeared, changed or folded: keep the cursor and the top of
        the view on the same source rows, so nothing seems to jump. A row on
        a card that went away maps to the nearest surviving row above it."""
        where = {id(row): index for index, row in enumerate(new)}

        def moved(index: int) -> int:
            for earlier in range(min(index, len(old) - 1), -1, -1):
                found = where.get(id(old[earlier]))
                if found is not None:
                    return found
            return 0

        self.cursor, self.scroll = moved(self.cursor), moved(self.scroll)

    def source_rows(self, inner_width: int) -> list[Row]:
        """The file's rendered rows alone at the pane's inner width (cached per width)."""
        text_width = max(inner_width - self.gutter_width(), 1)
        if self._rows is None or self._rows[0] != text_width:
            if self.error is not None:
                message = f"Couldn't read this file — {self.error}. Check the path."
                rows = [Row((Span(message, ERROR_STYLE),), source=None)]
            else:
                try:
                    rows = render_document(self.path, self.text, text_width)
                except Exception:  # a renderer bug degrades to plain text, never a crash
                    rows = render_plain(self.text, text_width)
            self._rows = (text_width, rows)
            self._generation += 1
        return self._rows[1]

    def content_rows(self, inner_width: int) -> int:
        return len(self.rows(inner_width))

    def lit_rows(self, inner_width: int) -> range:
        """Rows whose source range meets the highlight (empty when none)."""
        if self.highlight is None:
            return range(0)
        start, end = self.highlight
        hits = [
            index
            for index, row in enumerate(self.rows(inner_width))
            if row.source is not None and row.source[0] <= end and row.source[1] >= start
        ]
        return range(hits[0], hits[-1] + 1) if hits else range(0)

    # --- state changes --------------------------------------------------------

    def set_highlight(self, line_range: tuple[int, int] | None, inner: Rect) -> None:
        """Light `line_range` (clamped to the file) and centre it once; None clears."""
        if line_range is None:
            self.highlight = None
            return
        last = max(self.line_count, 1)
        start = min(line_range[0], last)
        self.highlight = (start, max(start, min(line_range[1], last)))
        lit = self.lit_rows(inner.width)
        if lit:
            self.cursor = lit.start
            margin = max((inner.height - len(lit)) // 2, 0)
            self.scroll = lit.start - margin
            self.clamp(inner)

    def set_follow(self, follow: bool, inner: Rect) -> None:
        """Following pins the cursor (and the view) to the last row."""
        self.follow = follow
        if follow:
            self.cursor = self.content_rows(inner.width) - 1
            self.scroll = self.cursor
            self.clamp(inner)

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

    def clamp(self, inner: Rect) -> None:
        count = self.content_rows(inner.width)
        self.cursor = min(max(self.cursor, 0), max(count - 1, 0))
        self.scroll = min(max(self.scroll, 0), max(count - inner.height, 0))
        if self.cursor < self.scroll:
            self.cursor = self.scroll
        elif self.cursor >= self.scroll + max(inner.height, 1):
            self.cursor = self.scroll + max(inner.height, 1) - 1

    # --- inline review ----------------------------------------------------------

    def source_lines(self) -> list[str]:
        """The snapshot's source lines as the gutter and `L<n>` count them."""
        return split_source_lines(self.text)

    def anchor_at(self, index: int, inner_width: int) -> Anchor | None:
        """The source range a comment on row `index` is about: the row's own,
        or for a row standing for no line (a card, a table border) the
        nearest line above it."""
        rows = self.rows(inner_width)
        for row in reversed(rows[: index + 1]):
            if row.source is not None:
                return row.source
        return None

    def cursor_line(self, inner_width: int) -> int:
        anchor = self.anchor_at(self.cursor, inner_width)
        return anchor[0] if anchor is not None else 0

    def jump_to_thread(self, forward: bool, inner: Rect) -> bool:
        """`n`/`N`: put the cursor on the next/previous thread's line."""
        line = self.cursor_line(inner.width)
        book = self.review.book
        thread = book.next_thread(line) if forward else book.previous_thread(line)
        if thread is None:
            return False
        for index, row in enumerate(self.rows(inner.width)):
            if row.source is not None and row.source[0] <= thread.line <= row.source[1]:
                self.move_cursor(index - self.cursor, inner)
                return True
        return False

    def reload_if_changed(self) -> bool:
        """Re-read the file if it changed on disk, unless unsubmitted threads
        hold it frozen (comments would land on other lines); a frozen pane
        reloads once its threads are gone. True when anything changed."""
        if self.review.thaw_due():
            self.review.thawed()
            self.watch.poll()
            self.reload()
            return True
        if not self.watch.poll():
            return False
        if self.review.file_changed():
            self.reload()
        return True

    def refresh(self) -> None:
        """Ctrl+R: discard every thread and reload."""
        self.review.discard()
        self.watch.poll()
        self.reload()

    def reload(self) -> None:
        self.text, self.error = read_text(self.path)
        self._rows = None
        if self.highlight is not None:
            last = max(self.line_count, 1)
            start = min(self.highlight[0], last)
            self.highlight = (start, max(start, min(self.highlight[1], last)))

    def review_label(self, inner: Rect) -> str:
        """`[review: N ↑a ↓b]` (and the frozen mark) for the visible rows."""
        if not self.review.has_threads and not self.review.frozen:
            return ""
        rows = self.rows(inner.width)
        shown = [r.source for r in rows[self.scroll : self.scroll + inner.height] if r.source]
        first = shown[0][0] if shown else 0
        last = shown[-1][1] if shown else 0
        return self.review.border_label(first, last)

    # --- drawing --------------------------------------------------------------

    def title(self, cwd: str, inner: Rect | None = None) -> str:
        shown = self.path
        if cwd and (self.path + os.sep).startswith(cwd.rstrip(os.sep) + os.sep):
            shown = os.path.relpath(self.path, cwd)
        label = self.review_label(inner) if inner is not None else ""
        return f"#{self.id} {shown}  {label}" if label else f"#{self.id} {shown}"

    def draw(self, canvas: Canvas, inner: Rect, focused: bool) -> None:
        rows = self.rows(inner.width)
        self.clamp(inner)
        gutter = self.gutter_width()
        number_width = gutter - 3
        lit = self.lit_rows(inner.width)
        right = inner.x + inner.width
        for offset in range(inner.height):
            index = self.scroll + offset
            if index >= len(rows):
                break
            row = rows[index]
            y = inner.y + offset
            number = str(row.source[0]) if row.first and row.source else ""
            gutter_style = LIT_GUTTER_STYLE if index in lit else GUTTER_STYLE
            x = canvas.put(inner.x, y, number.rjust(number_width), gutter_style, right)
            x = canvas.put(x, y, f" {row.marker} ", GUTTER_STYLE, right)
            canvas.put_spans(x, y, row.spans, right)
            band = Rect(inner.x, y, inner.width, 1)
            if index in lit:
                _paint(canvas, band, reverse=True)
            elif focused and index == self.cursor:
                _paint(canvas, band, background=CURSOR_BG)


def _paint(
    canvas: Canvas,
    band: Rect,
    *,
    reverse: bool = False,
    background: tuple[int, int, int] | None = None,
) -> None:
    row = canvas.rows[band.y]
    for x in range(band.x, min(band.x + band.width, canvas.width)):
        text, style = row[x]
        style = attrs.evolve(style, reverse=True) if reverse else attrs.evolve(style, bg=background)
        row[x] = (text, style)
