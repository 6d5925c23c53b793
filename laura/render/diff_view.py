"""The inline diff view's rows, made as they are read: a file's lines with
the lines git says were removed shown above the line they preceded.

Every row of the view is one pre-formatted line: a removed line (`-text`,
red, no line number) or a current one (`+text`, green, when added or
changed; ` text` otherwise), addressed by its new-file line number;
deletions at the end come last. So where a row is follows from git's hunks
alone, which laura.git_hunks keeps as columns in git's order: line n's
row is n - 1 plus the lines removed by the hunks placed at or above it (a
binary search), and the removed lines of hunk k come right above the line
it is placed at. A `DiffView` answers any count, row or line at once, keeps
nothing per hunk, and makes only the rows asked for. Before it, the view was
laid out as a document, a row object kept per line: a 32 MB file with
every tenth line changed, shown to its end, held 250 MB more, and setting
out every hunk first (200,000-400,000 of them) held keys 0.3 s. Pure: no
I/O, no terminal.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from laura.render import theme
from laura.render.cells import clip_spans, spans_cells
from laura.render.code import TAB
from laura.render.style import Row, Span
from laura.render.view import KnownRows

if TYPE_CHECKING:
    from laura.git_hunks import Hunks

# Rows kept once made (a few screens' worth); past it the keep starts anew.
KEPT_ROWS = 4096


class DiffView(KnownRows):
    """The inline diff view of `lines` (the file as it is) and git's `hunks`
    of it against HEAD (in git's order), at text width `width`."""

    mismatches = 0

    def __init__(self, lines: Sequence[str], hunks: Hunks, width: int) -> None:
        if not hunks.in_order:
            raise ValueError("the inline diff view needs hunks in git's order")
        self.width = max(1, width)
        self.line_count = len(lines)
        self._lines = lines
        self._hunks = hunks
        self._kept: dict[int, Row] = {}

    # -- where rows are --------------------------------------------------------

    def _at(self, hunk: int) -> int:
        """The line hunk `hunk`'s removed lines are shown above (line_count
        + 1: below the last; a hunk past the end of a file that shrank since
        git looked is shown there too)."""
        return min(self._hunks.places[hunk], self.line_count + 1)

    def _removed_before(self, hunk: int) -> int:
        return self._hunks.removed_through[hunk - 1] if hunk else 0

    def _first_removed_row(self, hunk: int) -> int:
        return self._at(hunk) - 1 + self._removed_before(hunk)

    def _last_hunk_at(self, line: int) -> int:
        """The last hunk placed at or above `line` (1..line_count; -1: none)."""
        return bisect.bisect_right(self._hunks.places, line) - 1

    def _row_of_line(self, line: int) -> int:
        hunk = self._last_hunk_at(line)
        return line - 1 + (self._hunks.removed_through[hunk] if hunk >= 0 else 0)

    def _place(self, index: int) -> tuple[int, str | None]:
        """Row `index` as (line, None) for a line's row, or (the line it is
        shown above, its text) for a removed line's."""
        hunks = self._hunks
        hunk = bisect.bisect_right(range(len(hunks)), index, key=self._first_removed_row) - 1
        if hunk < 0:
            return index + 1, None
        offset = index - self._first_removed_row(hunk)
        removed = hunks.removed_of(hunk)
        if offset < len(removed):
            return self._at(hunk), hunks.removed_lines[removed[offset]]
        return index + 1 - hunks.removed_through[hunk], None

    def _line_of(self, index: int) -> tuple[int, bool]:
        line, removed = self._place(index)
        return line, removed is not None

    def _changed(self, line: int) -> bool:
        """Whether `line` was added or changed: it is among the lines of the
        last hunk placed at or above it (each hunk starts past the lines of
        the one before)."""
        hunk = self._last_hunk_at(line)
        return hunk >= 0 and line < self._hunks.places[hunk] + self._hunks.new_counts[hunk]

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

    # -- a sequence of rows, every one known -------------------------------------

    def __len__(self) -> int:
        return self.line_count + self._hunks.deleted

    # -- what a pane asks (as DocumentView answers it) -------------------------------

    def window(self, top: int, height: int, hscroll: int = 0) -> list[Row]:
        """Rows top..top+height, clipped at `hscroll` to the width with a
        visible marker where text continues."""
        out: list[Row] = []
        for index in range(max(0, top), min(max(0, top) + height, len(self))):
            row = self._row(index)
            clipped = clip_spans(row.spans, self.width, hscroll)
            out.append(row if clipped is row.spans else attrs.evolve(row, spans=clipped))
        return out

    def max_pre_cells(self, top: int, height: int) -> int:
        """Widest row in the window (how far → may scroll)."""
        rows = range(max(0, top), min(max(0, top) + height, len(self)))
        return max((spans_cells(self._row(index).spans) for index in rows), default=0)
