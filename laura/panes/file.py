"""A file pane: one file's rows and the per-pane state the host keeps for it.

Rows come from `render_document(name, text, width)` alone, so richer
renderers drop in without touching this module. The state a pane grows
(line cursor, scroll, highlight, diff view, follow, comments) lives here;
`draw` paints it into a canvas with a line-number gutter.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import attrs

from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.render.document import render_document, render_plain
from laura.render.style import Row, Span, Style

GUTTER_STYLE = Style(fg=(110, 110, 110))
LIT_GUTTER_STYLE = Style(fg=(216, 222, 233))
CURSOR_BG = (67, 76, 94)
ERROR_STYLE = Style(fg=(224, 108, 117))


class Comment(NamedTuple):
    """A note on a source line, from the agent (`laura comment`) or the user."""

    line: int
    body: str
    author: str


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
        self.comments: list[Comment] = []
        self._rows: tuple[int, list[Row]] | None = None

    # --- rows ---------------------------------------------------------------

    @property
    def line_count(self) -> int:
        return len(self.text.splitlines())

    def gutter_width(self) -> int:
        return len(str(max(self.line_count, 1))) + 3  # number, space, marker, space

    def rows(self, inner_width: int) -> list[Row]:
        """Rendered rows at the pane's inner width (cached per width)."""
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

    # --- drawing --------------------------------------------------------------

    def title(self, cwd: str) -> str:
        shown = self.path
        if cwd and (self.path + os.sep).startswith(cwd.rstrip(os.sep) + os.sep):
            shown = os.path.relpath(self.path, cwd)
        return f"#{self.id} {shown}"

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
