"""Lazily laid-out rows of one document at one width.

A `DocumentView` pulls `Block`s from a renderer only as far as a caller
needs: the first screen needs the first screen's blocks, a highlight at
line n needs the blocks up to n, `len()` (content_rows) needs them all. A
laid-out block is remembered by its row count; its rows are laid out again
when read, and a few screens of them are kept. A deferred block (a markdown
table or fence) is counted from its unstyled stand-ins, which count and
address rows, and styled when any of its rows is read. Pure: no I/O, no
terminal.

Git change markers are applied while laying out: each row's marker is the
strongest over its source range, and a "N lines removed" gap row goes above
the first row of the line below a deletion.
"""

from __future__ import annotations

import array
import bisect
import time
from abc import abstractmethod
from collections.abc import Generator, Iterable, Iterator, Sequence
from typing import overload

import attrs

from laura.render import theme
from laura.render.cells import clip_spans, slice_spans, spans_cells, wrap_spans
from laura.render.kept import Kept
from laura.render.lines import Block, Blocks, KeptBlocks, Line, clamp_range, rows_meeting
from laura.render.marks import ADDED, MODIFIED, NO_MARKS, REMOVED, Marks
from laura.render.style import Row, Span
from laura.steps import Steps

_STRENGTH = {MODIFIED: 3, ADDED: 2, REMOVED: 1}


def gap_row(count: int, width: int) -> Row:
    """The row standing for `count` removed lines: no number, not addressable."""
    label = f"── {count} line{'s' if count != 1 else ''} removed "
    fill = max(0, width - len(label))
    return Row((Span((label + "─" * fill)[: max(width, 1)], theme.GAP),), None, True, " ")


# The most characters of one line a pane lays out (wrapped, 64 KiB is some
# 550 rows at 120 columns, laid out in about 10 ms). A line of 40 MB (a
# minified bundle, a log of one line) laid out whole took seconds and
# 400,000 rows on the UI loop, in one step; as editors do (VS Code stops
# rendering a line after 10,000 characters), the rest is counted, not shown.
LINE_SHOWN_LIMIT = 64 * 1024
# Rows a document view keeps once laid out (a few screens' worth, whole
# blocks); past it the keep starts anew.
KEPT_ROWS = 4096


def cut_row(rest: int, source: tuple[int, int] | None, marker: str) -> Row:
    """The row ending a line cut at LINE_SHOWN_LIMIT: it says how much of
    the line is not shown, and belongs to the line (the same source)."""
    label = f"… the rest of this line ({rest:,} more characters) is not shown"
    return Row((Span(label, theme.GAP),), source, False, marker)


def wrapped_rows(line: Line, width: int, marker: str) -> list[Row]:
    """A prose line's rows at `width`: word-wrapped, hanging its `hang`,
    cut after LINE_SHOWN_LIMIT characters with a row saying how much is not shown."""
    spans = line.spans
    # One span is the common case (plain text): no generator per line.
    length = len(spans[0].text) if len(spans) == 1 else sum(len(span.text) for span in spans)
    if length > LINE_SHOWN_LIMIT:  # a minified bundle, a log of one line
        spans = slice_spans(spans, 0, LINE_SHOWN_LIMIT)
    rows = [
        Row(row_spans, line.source, line.first and index == 0, marker)
        for index, row_spans in enumerate(wrap_spans(spans, width, (), line.hang))
    ]
    if length > LINE_SHOWN_LIMIT:
        rows.append(cut_row(length - LINE_SHOWN_LIMIT, line.source, marker))
    return rows


class LazyRows(Sequence[Row]):
    """A sequence of rows made as they are read (the three views). A view
    says how many rows are known so far (`rows_so_far`), makes more known
    (`ensure_rows`; `len` makes them all known) and makes a known row
    (`_row`); reading by index, slice or iteration is the same for all."""

    @abstractmethod
    def rows_so_far(self) -> int: ...

    @abstractmethod
    def ensure_rows(self, count: int) -> None: ...

    @abstractmethod
    def _row(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            if index.stop is None or index.stop < 0 or (index.start or 0) < 0:
                len(self)
            else:
                self.ensure_rows(index.stop)
            return [self._row(at) for at in range(*index.indices(self.rows_so_far()))]
        if index < 0:
            index += len(self)
        else:
            self.ensure_rows(index + 1)
        if not 0 <= index < self.rows_so_far():
            raise IndexError(index)
        return self._row(index)

    def __iter__(self) -> Iterator[Row]:
        index = 0
        while True:
            self.ensure_rows(index + 1)
            if index >= self.rows_so_far():
                return
            yield self._row(index)
            index += 1


class KnownRows(LazyRows):
    """A view that knows every row at once: a row per line, and rows above
    some lines (code and diffs with their gap rows, the inline diff view
    with its removed lines). Nothing is laid out: it is complete and reached
    everywhere. A subclass makes rows (`_row`), counts them (`__len__`) and
    says where line n's row is (`_row_of_line`) and which line a row stands
    for or above (`_line_of`)."""

    line_count: int

    @abstractmethod
    def _row_of_line(self, line: int) -> int:
        """The row of line `line` (1..line_count)."""

    @abstractmethod
    def _line_of(self, index: int) -> tuple[int, bool]:
        """Row `index` (a known one) as (line, whether it stands above that
        line rather than for it)."""

    def rows_so_far(self) -> int:
        return len(self)

    def ensure_rows(self, count: int) -> None:
        """Nothing to lay out (every row is known)."""

    def ensure_line(self, line: int) -> None:
        """Nothing to lay out (every row is known)."""

    def complete(self) -> bool:
        return True

    def laid_through(self) -> int:
        return self.line_count

    def reach_within(self, line: int, seconds: float) -> bool:
        return True

    def reach_steps(self, line: int) -> Steps[None]:
        """Nothing to lay out."""
        yield from ()

    def available(self, count: int) -> int:
        return len(self)

    def content_rows(self) -> int:
        return len(self)

    def rows_meeting(self, start: int, end: int | None = None) -> range:
        """Rows lit by a highlight of start..end, clamped to the file (the
        rows above lines among them too)."""
        if self.line_count == 0:
            return range(0)
        start, end = clamp_range(start, end, self.line_count)
        return range(self._row_of_line(start), self._row_of_line(end) + 1)

    def rows_for_line(self, line: int) -> range:
        return self.rows_meeting(line, line)

    def line_at(self, index: int) -> int | None:
        """The line row `index` addresses; a row above a line addresses the
        line above it."""
        if index < 0 or not len(self):
            return None
        line, above = self._line_of(min(index, len(self) - 1))
        if above:
            line -= 1
        return line if line >= 1 else None

    def anchor_at(self, index: int) -> tuple[int, int] | None:
        """Row `index`'s line as a source range (a row above a line: the line above)."""
        line = self.line_at(index)
        return None if line is None else (line, line)


class DocumentView(LazyRows):
    """Rows of a document at one text width, laid out on demand.

    Acts as a read-only sequence of unclipped rows (`len` forces the whole
    layout). `window` returns rows clipped for drawing at a horizontal offset.

    What a view keeps of the blocks it has laid out is their row counts and
    the lines they reach (two arrays), not their rows: a block's rows are
    laid out again from the block (`blocks.block(index)`, which may make it
    again) when they are read, and a few screens of them are kept
    (KEPT_ROWS). Keeping every row cost 230 bytes each: a megabyte of
    one-word headings, 60 MB a view.
    """

    def __init__(
        self,
        blocks: Blocks,
        line_count: int,
        width: int,
        marks: Marks = NO_MARKS,
    ) -> None:
        self.width = max(1, width)
        self.line_count = line_count
        self.marks = marks
        self._blocks = blocks
        self._complete = False
        self._starts = array.array("q")  # the first source line of each laid block
        self._row_ends = array.array("q")  # rows in all after each laid block
        self._through = array.array("q")  # the last source line laid after each block
        self._tail: Row | None = None  # the gap row for lines removed after the last line
        # Blocks' rows (and which are pre-formatted) read last: a table styled
        # for the screen stays while the layout goes on to the end.
        self._kept: Kept[tuple[list[Row], list[bool]]] = Kept(KEPT_ROWS)
        self._mismatched: set[int] = set()

    @property
    def mismatches(self) -> int:
        """Deferred blocks whose real lines did not fit their stand-ins (a
        renderer bug: the stand-ins are shown, never shifted rows)."""
        return len(self._mismatched)

    # -- laying out -------------------------------------------------------

    def _pull(self) -> bool:
        """Lay out one more block; False when there are none left."""
        if self._complete:
            return False
        block = self._blocks.block(len(self._starts))
        if block is None:
            self._complete = True
            if self.marks.removed.get(self.line_count + 1):
                self._tail = gap_row(self.marks.removed[self.line_count + 1], self.width)
            return False
        rows, _ = self._laid_out(block.lines)  # counted, not kept: rows are kept as they are read
        self._starts.append(block.start)
        self._row_ends.append(self._laid_rows() + len(rows))
        self._through.append(max(self._laid_to_line, block.end))
        return True

    @property
    def _laid_to_line(self) -> int:
        """The last source line covered by laid-out blocks."""
        return self._through[-1] if self._through else 0

    def _laid_rows(self) -> int:
        return self._row_ends[-1] if self._row_ends else 0

    def _block_rows(self, index: int) -> tuple[list[Row], list[bool]]:
        """Laid block `index`'s rows (a deferred one's styled), and which
        are pre-formatted."""
        kept = self._kept.get(index)
        if kept is not None:
            return kept
        block = self._blocks.block(index)
        assert block is not None, "a laid-out block is always there"
        rows, pre = self._laid_out(block.lines if block.deferred is None else block.deferred())
        counted = self._rows_in(index)
        if len(rows) != counted:  # a renderer bug: never shift rows
            self._mismatched.add(index)
            if block.deferred is not None:  # the stand-ins it was counted from
                rows, pre = self._laid_out(block.lines)
            rows = rows[:counted] + [Row((), None)] * (counted - len(rows))
            pre = pre[:counted] + [False] * (counted - len(pre))
        self._kept.put(index, (rows, pre), len(rows))
        return rows, pre

    def _laid_out(self, lines: Iterable[Line]) -> tuple[list[Row], list[bool]]:
        """`lines`' rows at this width, and which are pre-formatted."""
        rows: list[Row] = []
        pre: list[bool] = []
        for line in lines:
            self._lay(line, rows, pre)
        return rows, pre

    def _rows_in(self, index: int) -> int:
        return self._row_ends[index] - self._first_row(index)

    def _first_row(self, index: int) -> int:
        return self._row_ends[index - 1] if index else 0

    def _place(self, index: int) -> tuple[int, int]:
        """Known row `index` as (its block, its place in the block's rows);
        the block is len(laid) for the tail row."""
        block = bisect.bisect_right(self._row_ends, index)
        return block, index - self._first_row(block)

    def _row_and_pre(self, index: int) -> tuple[Row, bool]:
        block, at = self._place(index)
        if block == len(self._starts):
            assert self._tail is not None
            return self._tail, False
        rows, pre = self._block_rows(block)
        return rows[at], pre[at]

    def _lay(self, line: Line, out: list[Row], out_pre: list[bool]) -> None:
        marker = " "
        if line.source is not None and line.first and not self.marks.empty:
            a, b = line.source
            removed = sum(self.marks.removed.get(n, 0) for n in range(a, b + 1))
            if removed:
                out.append(gap_row(removed, self.width))
                out_pre.append(False)
        if line.source is not None and not self.marks.empty:
            best = 0
            for n in range(line.source[0], line.source[1] + 1):
                mark = self.marks.changed.get(n)
                if mark is None and line.first and n in self.marks.removed:
                    mark = REMOVED
                if mark is not None and _STRENGTH[mark] > best:
                    best, marker = _STRENGTH[mark], mark
        if line.fill:
            spans = line.spans
            room = self.width - spans_cells(spans)
            if room > 0 and spans:
                last = spans[-1]
                spans = (*spans[:-1], Span(last.text + last.text[-1] * room, last.style))
            out.append(Row(clip_spans(spans, self.width), line.source, line.first, marker))
            out_pre.append(False)
            return
        if line.pre:
            out.append(Row(line.spans, line.source, line.first, marker))
            out_pre.append(True)
            return
        rows = wrapped_rows(line, self.width, marker)
        out.extend(rows)
        out_pre.extend([False] * len(rows))

    def ensure_rows(self, count: int) -> None:
        while self.rows_so_far() < count and self._pull():
            pass

    def ensure_line(self, line: int) -> None:
        """Lay out at least through the block holding source line `line`
        (and the rows right after it, which may still belong to it)."""
        while self._laid_to_line < line and self._pull():
            pass

    def complete(self) -> bool:
        """True once every row is laid out."""
        return self._complete

    def laid_through(self) -> int:
        """The last source line whose rows are all laid out."""
        return self.line_count if self._complete else self._laid_to_line

    def reach_within(self, line: int, seconds: float) -> bool:
        """Lay out through line `line` if that takes at most about
        `seconds`; whether it is laid out that far."""
        deadline = time.perf_counter() + seconds
        while self._laid_to_line < line and not self._complete:
            if time.perf_counter() > deadline:
                return False
            self._pull()
        return True

    def reach_steps(self, line: int) -> Steps[None]:
        """Lay out through line `line`, a block per step."""
        while self._laid_to_line < line and self._pull():
            yield

    def available(self, count: int) -> int:
        """Rows known to exist, asking for `count`: at least `count` when the
        document has that many, else the exact total."""
        self.ensure_rows(count)
        return self.rows_so_far()

    # -- sequence of rows ---------------------------------------------------

    def __len__(self) -> int:
        while self._pull():
            pass
        return self.rows_so_far()

    def rows_so_far(self) -> int:
        return self._laid_rows() + (self._tail is not None)

    def _row(self, index: int) -> Row:
        return self._row_and_pre(index)[0]

    # -- what a pane asks ---------------------------------------------------

    def window(self, top: int, height: int, hscroll: int = 0) -> list[Row]:
        """Rows top..top+height, pre-formatted ones clipped at `hscroll` to
        the width with a visible marker where text continues."""
        top = max(0, top)
        self.ensure_rows(top + height)
        out: list[Row] = []
        for index in range(top, min(top + height, self.rows_so_far())):
            row, pre = self._row_and_pre(index)
            if pre:
                clipped = clip_spans(row.spans, self.width, hscroll)
                if clipped is not row.spans:  # most lines fit: keep the row as it is
                    row = attrs.evolve(row, spans=clipped)
            out.append(row)
        return out

    def content_rows(self) -> int:
        """Rendered rows in all (wrapped continuation and gap rows too)."""
        return len(self)

    def rows_meeting(self, start: int, end: int | None = None) -> range:
        """Rows lit by a highlight of start..end after clamping to the file:
        every row whose source range meets it, first to last."""
        start, end = clamp_range(start, end, self.line_count)
        if self.line_count == 0:
            return range(0)
        self.ensure_line(end)  # blocks come in source order: later ones start after `end`
        # Only blocks reaching `start` and starting by `end` can meet it.
        low = bisect.bisect_left(self._through, start)
        high = bisect.bisect_right(self._starts, end)
        first = last = -1
        for index in range(low, high):
            found = rows_meeting(self._block_rows(index)[0], start, end)
            if found:
                first = self._first_row(index) + found.start
                break
        for index in range(high - 1, low - 1, -1):
            found = rows_meeting(self._block_rows(index)[0], start, end)
            if found:
                last = self._first_row(index) + found.stop - 1
                break
        return range(first, last + 1) if first >= 0 else range(0)

    def anchor_at(self, index: int) -> tuple[int, int] | None:
        """The source range of row `index`, or of the nearest row above it
        that has one (None above every line)."""
        if index < 0:
            return None
        self.ensure_rows(index + 1)
        for at in range(min(index, self.rows_so_far() - 1), -1, -1):
            source = self._row(at).source
            if source is not None:
                return source
        return None

    def line_at(self, index: int) -> int | None:
        """The source line row `index` addresses (the first of its range);
        a row standing for no line (a gap row, a border) addresses the
        nearest line above it; None above every line."""
        source = self.anchor_at(index)
        return None if source is None else source[0]

    def laid_sources(self) -> list[tuple[tuple[int, int] | None, bool]]:
        """(source, first) of every row laid out so far, as counted (a
        deferred block's from its stand-ins): what addressing sees."""
        sources = []
        for index in range(len(self._starts)):
            block = self._blocks.block(index)
            assert block is not None, "a laid-out block is always there"
            rows, _ = self._laid_out(block.lines)
            sources += [(row.source, row.first) for row in rows]
        if self._tail is not None:
            sources.append((self._tail.source, self._tail.first))
        return sources

    def rows_for_line(self, line: int) -> range:
        return self.rows_meeting(line, line)

    def max_pre_cells(self, top: int, height: int) -> int:
        """Widest pre-formatted row in the window (how far →  may scroll)."""
        self.ensure_rows(top + height)
        widest = 0
        for index in range(max(0, top), min(top + height, self.rows_so_far())):
            row, pre = self._row_and_pre(index)
            if pre:
                widest = max(widest, spans_cells(row.spans))
        return widest


def count_rows(
    blocks: Iterable[Block], line_count: int, width: int, marks: Marks = NO_MARKS
) -> Generator[None, None, int]:
    """What `DocumentView(...).content_rows()` says, laying out one line per
    step (drive it with `next` until StopIteration carries the count) and
    keeping no row, so counting a big document can share the UI loop and
    leaves nothing behind for the garbage collector to walk."""
    view = DocumentView(KeptBlocks(()), line_count, width, marks)
    total = 0
    for block in blocks:
        for line in block.lines:
            rows: list[Row] = []
            view._lay(line, rows, [])
            total += len(rows)
            yield
        yield
    if marks.removed.get(line_count + 1):
        total += 1
    return total
