"""The inline diff view's rows, made as they are read: a file's lines with
the lines git says were removed shown above the line they preceded.

Every row of the view is one pre-formatted line: a removed line (`-text`,
red, no line number) or a current one (`+text`, green, when added or
changed; ` text` otherwise), addressed by its new-file line number;
deletions at the end come last. So where a row is follows from the hunks
alone: line n's row is n - 1 plus the removed lines placed at or above
it. A `DiffView` indexes the hunks (in git's order) a run at a time, as far
as a request needs (where each hunk's removed lines go and how many removed
lines come before them: two numbers a hunk), and makes only the rows asked
for. Before it, the view was laid out as a document and kept a row object
per line: a 33 MB file with every tenth line changed, shown to its end,
held 500 MB; and setting out every hunk first (200,000-400,000 of them)
held keys 0.3 s. Pure: no I/O, no terminal.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import time
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from laura.render import theme
from laura.render.cells import clip_spans, spans_cells
from laura.render.code import TAB
from laura.render.lines import clamp_range
from laura.render.style import Row, Span
from laura.render.view import CountedRows
from laura.steps import STEP_SECONDS, Steps

if TYPE_CHECKING:
    from laura.gitmarks import Hunk

# Hunks indexed in one go (a millisecond or two).
INDEX_RUN = 8192
# Rows kept once made (a few screens' worth); past it the keep starts anew.
KEPT_ROWS = 4096

_NEW_START = operator.attrgetter("new_start")
_NEW_COUNT = operator.attrgetter("new_count")
_REMOVED = operator.attrgetter("removed")


class DiffView(CountedRows):
    """The inline diff view of `lines` (the file as it is) and git's `hunks`
    of it against HEAD, at text width `width`."""

    mismatches = 0

    def __init__(self, lines: Sequence[str], hunks: Sequence[Hunk], width: int) -> None:
        self.width = max(1, width)
        self.line_count = len(lines)
        self._lines = lines
        self._hunks = hunks
        # Per hunk indexed so far: the line its removed lines are shown
        # above (line_count + 1: below the last; never above an earlier
        # hunk's), the removed lines through it, and 1 + the index of the
        # last hunk through it that added or changed lines (0: none did).
        self._at = array("q")
        self._removed_through = array("q")
        self._changing = array("q")
        self._kept: dict[int, Row] = {}

    # -- indexing the hunks ----------------------------------------------------

    def _index_run(self) -> None:
        """Index the next INDEX_RUN hunks (at C speed: no Python per hunk)."""
        start = len(self._at)
        run = self._hunks[start : start + INDEX_RUN]
        counts = list(map(_NEW_COUNT, run))
        # A pure deletion's `new_start` is the line after which lines went.
        placed = map(operator.add, map(_NEW_START, run), map(operator.not_, counts))
        clamped = map(min, placed, itertools.repeat(self.line_count + 1))
        for column, values, step, initial in (
            (self._at, clamped, max, self._at[-1] if start else 1),
            (self._removed_through, map(len, map(_REMOVED, run)), operator.add,
             self._removed_through[-1] if start else 0),
            (self._changing, map(operator.mul, itertools.count(start + 1), map(bool, counts)), max,
             self._changing[-1] if start else 0),
        ):  # fmt: skip
            column.extend(itertools.accumulate(values, step, initial=initial))
            del column[start]  # the initial value

    def _index_within(self, seconds: float) -> bool:
        """Index runs for about `seconds` at most; whether every hunk is."""
        deadline = time.perf_counter() + seconds
        while not self.complete():
            if time.perf_counter() > deadline:
                return False
            self._index_run()
        return True

    def complete(self) -> bool:
        """Whether every hunk is indexed (every row known)."""
        return len(self._at) == len(self._hunks)

    def laid_through(self) -> int:
        """The last line whose row is known (a hunk not indexed yet may put
        removed lines above the line the last indexed one goes above)."""
        if self.complete():
            return self.line_count
        return self._at[-1] - 1 if self._at else 0

    def rows_so_far(self) -> int:
        """The rows known: through the last indexed hunk's removed lines."""
        removed = self._removed_through[-1] if self._at else 0
        if self.complete():
            return self.line_count + removed
        return self._at[-1] - 1 + removed if self._at else 0

    def ensure_rows(self, count: int) -> None:
        while self.rows_so_far() < count and not self.complete():
            self._index_run()

    def ensure_line(self, line: int) -> None:
        while self.laid_through() < line and not self.complete():
            self._index_run()

    def reach_within(self, line: int, seconds: float) -> bool:
        """Index through line `line` if that takes at most about `seconds`;
        whether it is indexed that far."""
        deadline = time.perf_counter() + seconds
        while self.laid_through() < line and not self.complete():
            if time.perf_counter() > deadline:
                return False
            self._index_run()
        return True

    def reach_steps(self, line: int) -> Steps[None]:
        """Index through line `line`, a run per step."""
        while self.laid_through() < line and not self.complete():
            self._index_within(STEP_SECONDS)
            yield

    def count_steps(self) -> Steps[int]:
        """Index every hunk, a run per step; returns the rows in all."""
        while not self._index_within(STEP_SECONDS):
            yield
        return self.rows_so_far()

    def available(self, count: int) -> int:
        self.ensure_rows(count)
        return self.rows_so_far()

    # -- rows and lines ------------------------------------------------------

    def _first_removed_row(self, hunk: int) -> int:
        before = self._removed_through[hunk - 1] if hunk else 0
        return self._at[hunk] - 1 + before

    def _last_hunk_at(self, line: int) -> int:
        """The last indexed hunk placed at or above `line` (-1: none)."""
        return bisect.bisect_right(self._at, line) - 1

    def _row_of_line(self, line: int) -> int:
        hunk = self._last_hunk_at(line)
        return line - 1 + (self._removed_through[hunk] if hunk >= 0 else 0)

    def _place(self, index: int) -> tuple[int, str | None]:
        """Row `index` (known) as (line, None) for a line's row, or (the
        line it is shown above, its text) for a removed line's."""
        hunk = bisect.bisect_right(range(len(self._at)), index, key=self._first_removed_row) - 1
        if hunk < 0:
            return index + 1, None
        offset = index - self._first_removed_row(hunk)
        removed = self._hunks[hunk].removed
        if offset < len(removed):
            return self._at[hunk], removed[offset]
        return index + 1 - self._removed_through[hunk], None

    def _changed(self, line: int) -> bool:
        """Whether `line` was added or changed: it is in the lines of the last
        hunk above it that added or changed any."""
        hunk = self._last_hunk_at(line)
        changing = self._changing[hunk] - 1 if hunk >= 0 else -1
        if changing < 0:
            return False
        found = self._hunks[changing]
        return found.new_start <= line < found.new_start + found.new_count

    def _row(self, index: int) -> Row:
        kept = self._kept.get(index)
        if kept is not None:
            return kept
        line, removed = self._place(index)
        if removed is not None:
            row = Row((Span("-" + removed.expandtabs(TAB), theme.DIFF_REMOVED),), None)
        else:
            text = self._lines[line - 1]
            text = text.expandtabs(TAB) if "\t" in text else text
            if self._changed(line):
                row = Row((Span("+" + text, theme.DIFF_ADDED),), (line, line))
            else:
                row = Row((Span(" " + text),), (line, line))
        if len(self._kept) >= KEPT_ROWS:
            self._kept.clear()
        self._kept[index] = row
        return row

    # -- a sequence of rows ----------------------------------------------------

    def __len__(self) -> int:
        while not self.complete():
            self._index_run()
        return self.rows_so_far()

    # -- what a pane asks (as DocumentView answers it) -------------------------------

    def window(self, top: int, height: int, hscroll: int = 0) -> list[Row]:
        """Rows top..top+height, clipped at `hscroll` to the width with a
        visible marker where text continues."""
        top = max(0, top)
        self.ensure_rows(top + height)
        out: list[Row] = []
        for index in range(top, min(top + height, self.rows_so_far())):
            row = self._row(index)
            clipped = clip_spans(row.spans, self.width, hscroll)
            out.append(row if clipped is row.spans else attrs.evolve(row, spans=clipped))
        return out

    def content_rows(self) -> int:
        return len(self)

    def rows_meeting(self, start: int, end: int | None = None) -> range:
        """Rows lit by a highlight of start..end, clamped to the file (the
        removed lines among them too)."""
        if self.line_count == 0:
            return range(0)
        start, end = clamp_range(start, end, self.line_count)
        self.ensure_line(end)
        return range(self._row_of_line(start), self._row_of_line(end) + 1)

    def rows_for_line(self, line: int) -> range:
        return self.rows_meeting(line, line)

    def line_at(self, index: int) -> int | None:
        """The line row `index` addresses; a removed line's row addresses the
        line above it."""
        if index < 0:
            return None
        self.ensure_rows(index + 1)
        known = self.rows_so_far()
        if not known:
            return None
        line, removed = self._place(min(index, known - 1))
        if removed is not None:
            line -= 1
        return line if line >= 1 else None

    def anchor_at(self, index: int) -> tuple[int, int] | None:
        """Row `index`'s line as a source range (a removed line: the line above)."""
        line = self.line_at(index)
        return None if line is None else (line, line)

    def max_pre_cells(self, top: int, height: int) -> int:
        """Widest row in the window (how far → may scroll)."""
        top = max(0, top)
        self.ensure_rows(top + height)
        end = min(top + height, self.rows_so_far())
        return max((spans_cells(self._row(index).spans) for index in range(top, end)), default=0)
