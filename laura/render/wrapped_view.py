"""Rows of plain text, made as they are read: each line wraps on its own.

A plain-text line's rows depend on that line alone, so a `WrappedView` keeps
only how many rows each line takes (a byte a line: `RowCounts`) and makes
the rows of the lines it is asked for. Counting is quick: a line without a tab whose
characters fit the pane even at two cells each (or at one, when they are
all ASCII) is one row, decided at C speed for a run of lines; only the other
lines are wrapped to be counted (a file of short CJK lines was counted
eight times slower). Counting runs as far as a request
needs, or to the end in steps (`count_steps`) for a pane's background count.
Before it, plain text was laid out from its first line down to the one
shown, and every row kept: following a 1,000,000-line log to its end held
keys for 5 s and kept 490 MB of rows. Pure: no I/O, no terminal.
"""

from __future__ import annotations

import bisect
import itertools
import time
from collections.abc import Callable, Sequence

from laura.render.cells import wrap_count
from laura.render.code import TAB
from laura.render.lines import Line, clamp_range
from laura.render.marks import Marks
from laura.render.row_counts import STRIDE, RowCounts
from laura.render.style import Row
from laura.render.view import LINE_SHOWN_LIMIT, LazyRows, gap_row, wrapped_rows
from laura.steps import STEP_SECONDS, Steps

# Lines counted in one go (a step of a background count: a few milliseconds).
COUNT_RUN = 8192
# Lines whose rows are kept once made (a few screens'); past it the keep starts anew.
KEPT_LINES = 2048


class WrappedView(LazyRows):
    """The rows of `lines` word-wrapped at text width `width`; `line(n)`
    makes line n's `Line` (1-based)."""

    mismatches = 0

    def __init__(
        self, lines: Sequence[str], width: int, marks: Marks, line: Callable[[int], Line]
    ) -> None:
        self.width = max(1, width)
        self.line_count = len(lines)
        self.marks = marks
        self._lines = lines
        self._line = line
        # Lines with a gap row above them (line_count + 1: below the last).
        self._gaps = marks.gap_lines(len(lines))
        # Each counted line's rows, gap rows aside: a byte a line.
        self._counts = RowCounts()
        self._kept: dict[int, list[Row]] = {}

    # -- counting ------------------------------------------------------------

    def _count_run(
        self, seconds: float | None = None, limit: int = COUNT_RUN, rows: int | None = None
    ) -> None:
        """Count the next `limit` lines' rows (COUNT_RUN at most); stop
        sooner after the line that takes the run past `seconds`, or that
        makes `rows` rows (lines that wrap are counted by wrapping them: 20
        microseconds or more each, 20 ms for a line of 64 KiB)."""
        start = len(self._counts)
        chunk = self._lines[start : start + max(1, min(limit, COUNT_RUN))]
        width = self.width
        lengths = map(len, chunk)
        plain = map(str.isascii, chunk)
        tabbed = map(str.__contains__, chunk, itertools.repeat("\t"))
        deadline = None if seconds is None else time.perf_counter() + seconds
        counts: list[int] = []
        made = 0
        for offset, (size, simple, tab) in enumerate(zip(lengths, plain, tabbed, strict=True)):
            # One row, known at a glance: no character takes over two cells.
            if not tab and (size if simple else 2 * size) <= width:
                counts.append(1)
                made += 1
                if rows is not None and made >= rows:
                    break
                continue
            counts.append(count := self._count(start + offset + 1))
            made += count
            if deadline is not None and time.perf_counter() > deadline:
                break
            if rows is not None and made >= rows:
                break
        self._counts.extend(counts)

    def _count(self, number: int) -> int:
        """Line `number`'s rows, counted (kept only once read)."""
        kept = self._kept.get(number)
        if kept is not None:
            return len(kept)
        line = self._lines[number - 1]
        text = line.expandtabs(TAB) if "\t" in line else line
        if len(text) <= LINE_SHOWN_LIMIT:  # as `plain_line` and `wrapped_rows` make it
            return wrap_count(text, self.width)
        return len(wrapped_rows(self._line(number), self.width, " "))

    @property
    def counted_lines(self) -> int:
        return len(self._counts)

    def adopt_counts(self, old: WrappedView, lines: int) -> None:
        """Take `old`'s counts of its first `lines` lines (the same text at
        the same width: a log that grew), instead of counting them again."""
        if old.width == self.width and not self._counts:
            self._counts = old._counts.prefix(min(lines, len(old._counts), self.line_count))

    def reach_within(self, line: int, seconds: float) -> bool:
        """Count through line `line` if that takes at most about `seconds`;
        whether it is counted that far."""
        deadline = time.perf_counter() + seconds
        while len(self._counts) < min(line, self.line_count):
            left = deadline - time.perf_counter()
            if left <= 0:
                return False
            self._count_run(left, limit=line - len(self._counts))
        return True

    def complete(self) -> bool:
        """Whether every line is counted."""
        return len(self._counts) == self.line_count

    def laid_through(self) -> int:
        """The last line whose rows are counted."""
        return len(self._counts)

    def reach_steps(self, line: int) -> Steps[None]:
        """Count through line `line`, a run per step."""
        while len(self._counts) < min(line, self.line_count):
            self._count_run(STEP_SECONDS, limit=line - len(self._counts))
            yield

    def count_steps(self) -> Steps[int]:
        """Count every line, a run per step; returns the rows in all."""
        while not self.complete():
            self._count_run(STEP_SECONDS)
            yield
        return self.rows_so_far()

    def _count_to_line(self, line: int) -> None:
        while len(self._counts) < min(line, self.line_count):
            self._count_run(limit=line - len(self._counts))

    def rows_so_far(self) -> int:
        """Rows of the counted lines and the gap rows among them."""
        counted = len(self._counts)
        gaps = bisect.bisect_right(self._gaps, counted + (1 if self.complete() else 0))
        return self._counts.through(counted) + gaps

    def ensure_rows(self, count: int) -> None:
        while (known := self.rows_so_far()) < count and not self.complete():
            self._count_run(limit=count - known, rows=count - known)  # a line is a row at least

    def ensure_line(self, line: int) -> None:
        self._count_to_line(line)

    def available(self, count: int) -> int:
        self.ensure_rows(count)
        return min(count, self.rows_so_far())

    # -- rows and lines ------------------------------------------------------

    def _first_row(self, line: int) -> int:
        """The row of line `line`'s first row (it and the lines before counted)."""
        return self._counts.through(line - 1) + bisect.bisect_right(self._gaps, line)

    def _place(self, index: int) -> tuple[int, int]:
        """Row `index` (known) as (line, row of it), or (line, -1) for the gap
        row above that line."""
        counted = len(self._counts)
        # The stride of lines it is in, then the line: a line's first row
        # is quick to find at a stride's start (laura.render.row_counts).
        starts = range(1, counted + 1, STRIDE)
        stride = bisect.bisect_right(starts, index, key=self._first_row)
        line = 0
        if stride:
            first = starts[stride - 1]
            last = min(first + STRIDE - 1, counted)
            before = self._counts.throughs(first - 1, last - 1)  # the rows before each line

            def first_row(number: int) -> int:
                return before[number - first] + bisect.bisect_right(self._gaps, number)

            line = first - 1 + bisect.bisect_right(range(first, last + 1), index, key=first_row)
        if line:
            offset = index - self._first_row(line)
            if offset < self._counts.rows_of(line):
                return line, offset
        return line + 1, -1

    def _rows_of(self, number: int) -> list[Row]:
        rows = self._kept.get(number)
        if rows is None:
            if len(self._kept) >= KEPT_LINES:
                self._kept.clear()
            rows = self._kept[number] = wrapped_rows(self._line(number), self.width, self.marks.line_marker(number))
        return rows

    def _row(self, index: int) -> Row:
        number, offset = self._place(index)
        if offset < 0:
            return gap_row(self.marks.removed[number], self.width)
        return self._rows_of(number)[offset]

    # -- a sequence of rows ----------------------------------------------------

    def __len__(self) -> int:
        self._count_to_line(self.line_count)
        return self.rows_so_far()

    # -- what a pane asks (as DocumentView answers it) -------------------------------

    def window(self, top: int, height: int, hscroll: int = 0) -> list[Row]:
        """Rows top..top+height (prose: nothing to scroll sideways)."""
        top = max(0, top)
        self.ensure_rows(top + height)
        return [self._row(at) for at in range(top, min(top + height, self.rows_so_far()))]

    def content_rows(self) -> int:
        return len(self)

    def rows_meeting(self, start: int, end: int | None = None) -> range:
        """Rows lit by a highlight of start..end, clamped to the file."""
        if self.line_count == 0:
            return range(0)
        start, end = clamp_range(start, end, self.line_count)
        self._count_to_line(end)
        return range(self._first_row(start), self._first_row(end) + len(self._rows_of(end)))

    def rows_for_line(self, line: int) -> range:
        return self.rows_meeting(line, line)

    def anchor_at(self, index: int) -> tuple[int, int] | None:
        """Row `index`'s line as a source range (a gap row: the line above)."""
        line = self.line_at(index)
        return None if line is None else (line, line)

    def line_at(self, index: int) -> int | None:
        """The source line row `index` addresses; a gap row addresses the
        line above it."""
        if index < 0:
            return None
        self.ensure_rows(index + 1)
        known = self.rows_so_far()
        if not known:
            return None
        number, offset = self._place(min(index, known - 1))
        if offset < 0:
            number -= 1
        return number if number >= 1 else None

    def max_pre_cells(self, top: int, height: int) -> int:
        return 0  # prose wraps: nothing is pre-formatted
