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

from laura.panes.carded_rows import Shown, base_of, carried
from laura.protocol import Rect

HSCROLL_STEP = 8


class Viewport:
    """Cursor, scroll and horizontal scroll of one file pane."""

    def __init__(self) -> None:
        self.cursor = 0
        self.scroll = 0
        self.hscroll = 0
        self.inner: Rect | None = None  # the text area at the last fit
        self.pin_end = False  # pin at the next fit (a followed file reloaded, End waiting for rows)
        self._shown: tuple[int, Shown] | None = None  # rows last looked at

    def look_at(self, generation: int, rows: Shown) -> None:
        """The pane now shows `rows`; when the same file rows' cards changed
        (appeared, changed or folded) the cursor and the top first move to
        stay on the same rows, so nothing seems to jump."""
        shown = self._shown
        if shown is not None and shown[0] == generation and shown[1] is not rows:
            old = shown[1]
            if base_of(old) is base_of(rows):
                self.cursor = carried(old, rows, self.cursor)
                self.scroll = carried(old, rows, self.scroll)
        self._shown = (generation, rows)

    def forget(self) -> None:
        """Let go of the rows last looked at (the pane closed)."""
        self._shown = None

    def clamp(self, rows: Shown, inner: Rect) -> None:
        """Keep scroll and cursor on rows that exist."""
        height = max(inner.height, 1)
        self.scroll = max(self.scroll, 0)
        laid = rows.available(self.scroll + height)
        if rows.complete() or laid < self.scroll + height:
            self.scroll = min(self.scroll, max(laid - height, 0))
        self.cursor = max(self.cursor, 0)
        laid = rows.available(self.cursor + 1)
        self.cursor = min(self.cursor, max(laid - 1, 0))
        if self.cursor < self.scroll:
            self.cursor = self.scroll
        elif self.cursor >= self.scroll + height:
            self.cursor = self.scroll + height - 1
        self.cursor = min(self.cursor, max(rows.available(self.cursor + 1) - 1, 0))

    def move_cursor(self, rows: Shown, delta: int, inner: Rect) -> None:
        """Move the cursor by `delta` rows, scrolling to keep it in view; a
        pin to the end still waiting for its rows is dropped (the person
        moved: the view must not jump from under them later)."""
        self.pin_end = False
        self.cursor = max(self.cursor + delta, 0)
        height = max(inner.height, 1)
        if self.cursor < self.scroll:  # the view follows the cursor, then both are kept on rows
            self.scroll = self.cursor
        elif self.cursor >= self.scroll + height:
            self.scroll = self.cursor - height + 1
        self.clamp(rows, inner)

    def scroll_by(self, rows: Shown, delta: int, inner: Rect) -> None:
        """Scroll view and cursor by `delta` rows (dropping a pin, as above)."""
        self.pin_end = False
        self.scroll += delta
        self.cursor += delta
        self.clamp(rows, inner)

    def to_top(self, rows: Shown, inner: Rect) -> None:
        """Cursor and view on the first row (dropping a pin, as above)."""
        self.pin_end = False
        self.place(0, 0, rows, inner)

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

    def show_range(self, lit: range, rows: Shown, inner: Rect) -> None:
        """Put the cursor on the first row of `lit` and scroll it into view:
        centred when it fits, else from its top."""
        self.cursor = lit.start
        height = max(inner.height, 1)
        margin = (height - len(lit)) // 2 if len(lit) <= height else 0
        self.scroll = max(lit.start - margin, 0)
        self.clamp(rows, inner)

    def place(self, cursor: int, top: int | None, rows: Shown, inner: Rect) -> None:
        """Put the cursor on row `cursor` and the top on row `top` (None:
        keep it), recentring when the cursor would be out of view."""
        if top is not None:
            self.scroll = top
        self.cursor = cursor
        if not self.scroll <= cursor < self.scroll + max(inner.height, 1):
            self.scroll = max(cursor - max(inner.height, 1) // 2, 0)
        self.clamp(rows, inner)

