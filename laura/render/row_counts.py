"""How many rows each line of a plain view takes: a byte a line.

A `WrappedView` counts each line's rows once (at its width) and keeps the
counts, to map rows to lines both ways. It kept the rows through each line
in four bytes: a 64 MiB file of empty lines, 270 MB of counts. Nearly every
line takes one row and almost none 255 or more, so a `RowCounts` keeps a
byte a line (255: the count is in a table of such lines) and the running
total every STRIDE lines; the rows through line n are the total before its
stride and a sum of at most STRIDE bytes (a microsecond, at C speed).
Pure: no I/O.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Sequence

# Lines between running totals.
STRIDE = 256
# A byte that says: this line's rows are in the table of long lines.
_MANY = 255


class RowCounts:
    """The rows each of the first `len(self)` lines takes (1-based lines)."""

    def __init__(self) -> None:
        self._counts = bytearray()
        self._totals = array("q")  # [k]: the rows of lines 1..(k + 1) * STRIDE
        self._long: dict[int, int] = {}  # line -> its rows, for lines of _MANY rows or more
        self._long_lines = array("q")  # those lines, in order

    def __len__(self) -> int:
        return len(self._counts)

    def extend(self, counts: Sequence[int]) -> None:
        """The next lines' counts (each at least one)."""
        if counts and max(counts) >= _MANY:
            first = len(self._counts) + 1
            for offset, count in enumerate(counts):
                if count >= _MANY:
                    self._long[first + offset] = count
                    self._long_lines.append(first + offset)
            counts = [min(count, _MANY) for count in counts]
        self._counts.extend(counts)
        while len(self._counts) >= (len(self._totals) + 1) * STRIDE:
            start = len(self._totals) * STRIDE
            before = self._totals[-1] if self._totals else 0
            self._totals.append(before + self._sum(start, start + STRIDE))

    def rows_of(self, line: int) -> int:
        """Line `line`'s rows (it is counted)."""
        count = self._counts[line - 1]
        return self._long[line] if count == _MANY else count

    def through(self, line: int) -> int:
        """The rows of lines 1..`line` (0: none; at most `len(self)`)."""
        stride, within = divmod(line, STRIDE)
        before = self._totals[stride - 1] if stride else 0
        return before + self._sum(line - within, line) if within else before

    def throughs(self, start: int, stop: int) -> list[int]:
        """`through(line)` for each line `start`..`stop` (a stride or so: one
        sum, then a running total at C speed)."""
        counts: Sequence[int] = memoryview(self._counts)[start:stop]
        low = bisect.bisect_right(self._long_lines, start)
        high = bisect.bisect_right(self._long_lines, stop)
        if low < high:
            counts = list(counts)
            for line in self._long_lines[low:high]:
                counts[line - start - 1] = self._long[line]
        return list(itertools.accumulate(counts, initial=self.through(start)))

    def prefix(self, lines: int) -> RowCounts:
        """The counts of the first `lines` lines (a log that grew keeps them)."""
        kept = RowCounts()
        kept._counts = self._counts[:lines]
        kept._totals = self._totals[: lines // STRIDE]
        within = bisect.bisect_right(self._long_lines, lines)
        kept._long_lines = self._long_lines[:within]
        kept._long = {line: self._long[line] for line in kept._long_lines}
        return kept

    def _sum(self, start: int, stop: int) -> int:
        """The rows of lines start + 1..stop."""
        total = sum(memoryview(self._counts)[start:stop])
        if self._long_lines:
            low = bisect.bisect_right(self._long_lines, start)
            high = bisect.bisect_right(self._long_lines, stop)
            total += sum(self._long[line] - _MANY for line in self._long_lines[low:high])
        return total
