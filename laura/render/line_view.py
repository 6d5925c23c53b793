"""Rows of a document shown one row per source line (code, diffs), made as they are read.

Such a document needs no layout to know its rows: row r is source line r's,
shifted down by the "N lines removed" gap rows above the lines after a
deletion. So a `LineView` answers any count, row or line at once and makes
only the rows asked for. Before it, such a file was laid out from its first
line down to the one shown: opening a 133,000-line file at its end took
0.7 s on the UI loop and kept a row object per line, and a file of 8 million
empty lines took a minute and gigabytes. Pure: no I/O, no terminal.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

import attrs

from laura.render.cells import clip_spans, spans_cells
from laura.render.lines import Line, clamp_range
from laura.render.style import Row
from laura.render.view import LazyRows, Marks, gap_row
from laura.steps import Steps

# Rows kept once made (a few screens' worth); past it the keep starts anew.
KEPT_ROWS = 4096


class LineView(LazyRows):
    """The rows of `line_count` source lines at text width `width`:
    `line(n)` makes line n's pre-formatted `Line`, and `final(n)` says
    whether it will stay as made (a code line not coloured yet will not: its
    row is made again each time it is read, until it is)."""

    one_row_per_line = True
    mismatches = 0

    def __init__(
        self,
        line_count: int,
        width: int,
        marks: Marks,
        line: Callable[[int], Line],
        final: Callable[[int], bool],
    ) -> None:
        self.width = max(1, width)
        self.line_count = line_count
        self.marks = marks
        self._line = line
        self._final = final
        # Lines with a gap row above them (line_count + 1: below the last).
        self._gaps = sorted(n for n in marks.removed if 1 <= n <= line_count + 1)
        self._kept: dict[int, Row] = {}

    # -- rows and lines ------------------------------------------------------

    def _row_of_line(self, line: int) -> int:
        return line - 1 + bisect.bisect_right(self._gaps, line)

    def _place(self, index: int) -> tuple[int, bool]:
        """Row `index` as (line, is its gap row): the line whose row or gap
        row it is."""
        if not self._gaps and 0 <= index < self.line_count:  # most files: row r is line r + 1
            return index + 1, False
        before = bisect.bisect_right(range(1, self.line_count + 1), index, key=self._row_of_line)
        if before and self._row_of_line(before) == index:
            return before, False
        return before + 1, True

    def _row(self, index: int) -> Row:
        kept = self._kept.get(index)
        if kept is not None:
            return kept
        number, is_gap = self._place(index)
        if is_gap:
            row = gap_row(self.marks.removed[number], self.width)
        else:
            made = self._line(number)
            row = Row(made.spans, made.source, made.first, self.marks.line_marker(number))
            if not self._final(number):
                return row
        if len(self._kept) >= KEPT_ROWS:
            self._kept.clear()
        self._kept[index] = row
        return row

    # -- a sequence of rows ----------------------------------------------------

    def __len__(self) -> int:
        return self.line_count + len(self._gaps)

    def rows_so_far(self) -> int:
        return len(self)

    # -- what a pane asks (as DocumentView answers it) -------------------------------

    def window(self, top: int, height: int, hscroll: int = 0) -> list[Row]:
        """Rows top..top+height, code rows clipped at `hscroll` to the width
        with a visible marker where text continues."""
        out: list[Row] = []
        for index in range(max(0, top), min(max(0, top) + height, len(self))):
            row = self._row(index)
            if row.source is not None:  # a line's row, not a gap row
                clipped = clip_spans(row.spans, self.width, hscroll)
                if clipped is not row.spans:
                    row = attrs.evolve(row, spans=clipped)
            out.append(row)
        return out

    def content_rows(self) -> int:
        return len(self)

    def ensure_rows(self, count: int) -> None:
        """Nothing to lay out (every row is known)."""

    def ensure_line(self, line: int) -> None:
        """Nothing to lay out (every row is known)."""

    def complete(self) -> bool:
        return True

    def laid_through(self) -> int:
        """Every line's row is known."""
        return self.line_count

    def reach_within(self, line: int, seconds: float) -> bool:
        return True

    def reach_steps(self, line: int) -> Steps[None]:
        """Nothing to lay out."""
        yield from ()

    def available(self, count: int) -> int:
        """Every row is known: the total (at least `count` when there are as many)."""
        return len(self)

    def rows_meeting(self, start: int, end: int | None = None) -> range:
        """Rows lit by a highlight of start..end, clamped to the file."""
        if self.line_count == 0:
            return range(0)
        start, end = clamp_range(start, end, self.line_count)
        return range(self._row_of_line(start), self._row_of_line(end) + 1)

    def rows_for_line(self, line: int) -> range:
        return self.rows_meeting(line, line)

    def line_at(self, index: int) -> int | None:
        """The source line row `index` addresses; a gap row addresses the
        line above it."""
        if index < 0 or not len(self):
            return None
        number, is_gap = self._place(min(index, len(self) - 1))
        if is_gap:
            number -= 1
        return number if number >= 1 else None

    def anchor_at(self, index: int) -> tuple[int, int] | None:
        """Row `index`'s line as a source range (a gap row: the line above)."""
        line = self.line_at(index)
        return None if line is None else (line, line)

    def max_pre_cells(self, top: int, height: int) -> int:
        """Widest code row in the window (how far → may scroll)."""
        widest = 0
        for index in range(max(0, top), min(max(0, top) + height, len(self))):
            row = self._row(index)
            if row.source is not None:
                widest = max(widest, spans_cells(row.spans))
        return widest

