"""Where a file pane looks: the viewport over its rendered rows.

`cursor` and `scroll` index rendered rows, `hscroll` shifts pre-formatted
ones. Every move is given the rows it moves over and the text area, and
keeps cursor and scroll on rows that exist, laying out only as far as it
needs (a long document is counted only once it is laid out to the end).
`inner` is the text area of the last `fit` (the pane's settle), which a
reload or a change of mode needs to put the cursor back on its line. Pure
state: no I/O, no task.
"""

from __future__ import annotations

from collections.abc import Sequence

from laura.panes import file_rows
from laura.protocol import Rect
from laura.render.document import row_text
from laura.render.style import Row

HSCROLL_STEP = 8


class Viewport:
    """Cursor, scroll and horizontal scroll of one file pane."""

    def __init__(self) -> None:
        self.cursor = 0
        self.scroll = 0
        self.hscroll = 0
        self.inner: Rect | None = None  # the text area at the last fit
        self.pin_end = False  # a followed file reloaded: pin at the next fit
        self._shown: tuple[int, int, Sequence[Row]] | None = None  # rows last looked at

    def look_at(self, generation: int, rows: Sequence[Row]) -> None:
        """The pane now shows `rows`; when the same snapshot's rows changed
        (cards appeared, changed or folded) the cursor and the top first
        move to stay on the same source rows, so nothing seems to jump."""
        shown = self._shown
        if shown is not None and shown[:2] == (generation, self.hscroll) and shown[2] is not rows:
            old = file_rows.unclipped(shown[2], self.hscroll)
            new = file_rows.unclipped(rows, self.hscroll)
            where = {_row_key(row): index for index, row in enumerate(new)}

            def moved(index: int) -> int:
                # A row on a card that went away: the nearest surviving row above.
                for earlier in range(min(index, len(old) - 1), -1, -1):
                    found = where.get(_row_key(old[earlier]))
                    if found is not None:
                        return found
                return 0

            self.cursor, self.scroll = moved(self.cursor), moved(self.scroll)
        self._shown = (generation, self.hscroll, rows)

    def clamp(self, rows: Sequence[Row], inner: Rect) -> None:
        """Keep scroll and cursor on rows that exist."""
        height = max(inner.height, 1)
        self.scroll = max(self.scroll, 0)
        laid = file_rows.available(rows, self.scroll + height)
        if file_rows.complete(rows) or laid < self.scroll + height:
            self.scroll = min(self.scroll, max(laid - height, 0))
        self.cursor = max(self.cursor, 0)
        laid = file_rows.available(rows, self.cursor + 1)
        self.cursor = min(self.cursor, max(laid - 1, 0))
        if self.cursor < self.scroll:
            self.cursor = self.scroll
        elif self.cursor >= self.scroll + height:
            self.cursor = self.scroll + height - 1
        self.cursor = min(self.cursor, max(file_rows.available(rows, self.cursor + 1) - 1, 0))

    def move_cursor(self, rows: Sequence[Row], delta: int, inner: Rect) -> None:
        self.cursor += delta
        self.clamp(rows, inner)
        if self.cursor < self.scroll:
            self.scroll = self.cursor
        elif self.cursor >= self.scroll + inner.height:
            self.scroll = self.cursor - inner.height + 1

    def scroll_by(self, rows: Sequence[Row], delta: int, inner: Rect) -> None:
        self.scroll += delta
        self.cursor += delta
        self.clamp(rows, inner)

    def scroll_sideways(self, widest: int, width: int, steps: int) -> None:
        """←/→: shift pre-formatted rows by a step, no further than the
        widest one on screen (`widest` cells, in a `width`-cell text area)
        needs."""
        limit = max(widest - width + 1, 0)
        self.hscroll = min(max(self.hscroll + steps * HSCROLL_STEP, 0), limit)

    def pin_to_end(self, total: int, inner: Rect) -> None:
        """Cursor on the last of `total` rows, the view ending there."""
        self.cursor = max(total - 1, 0)
        self.scroll = max(total - max(inner.height, 1), 0)

    def show_range(self, lit: range, rows: Sequence[Row], inner: Rect) -> None:
        """Put the cursor on the first row of `lit` and scroll it into view:
        centred when it fits, else from its top."""
        self.cursor = lit.start
        height = max(inner.height, 1)
        margin = (height - len(lit)) // 2 if len(lit) <= height else 0
        self.scroll = max(lit.start - margin, 0)
        self.clamp(rows, inner)

    def place(self, cursor: int, top: int | None, rows: Sequence[Row], inner: Rect) -> None:
        """Put the cursor on row `cursor` and the top on row `top` (None:
        keep it), recentring when the cursor would be out of view."""
        if top is not None:
            self.scroll = top
        self.cursor = cursor
        if not self.scroll <= cursor < self.scroll + max(inner.height, 1):
            self.scroll = max(cursor - max(inner.height, 1) // 2, 0)
        self.clamp(rows, inner)


def _row_key(row: Row) -> tuple[object, ...]:
    """What identifies a row across a re-merge of cards: its source, its
    place in a wrapped line and its text (rows are rebuilt, not shared)."""
    return (row.source, row.first, row_text(row))
