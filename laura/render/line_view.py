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
from laura.render.lines import Line
from laura.render.marks import Marks
from laura.render.style import Row
from laura.render.view import KnownRows, gap_row

# Rows kept once made (a few screens' worth); past it the keep starts anew.
KEPT_ROWS = 4096


class LineView(KnownRows):
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
        self._gaps = marks.gap_lines(line_count)
        self._kept: dict[int, Row] = {}

    # -- rows and lines ------------------------------------------------------

    def _row_of_line(self, line: int) -> int:
        return line - 1 + bisect.bisect_right(self._gaps, line)

    def _line_of(self, index: int) -> tuple[int, bool]:
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
        number, is_gap = self._line_of(index)
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

    def max_pre_cells(self, top: int, height: int) -> int:
        """Widest code row in the window (how far → may scroll)."""
        widest = 0
        for index in range(max(0, top), min(max(0, top) + height, len(self))):
            row = self._row(index)
            if row.source is not None:
                widest = max(widest, spans_cells(row.spans))
        return widest

