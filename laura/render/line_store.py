"""A file's source lines, kept as the text they were split from.

A list of lines costs a string object and a pointer per line, some 60-70
bytes for a short one: a 64 MiB log of two-letter lines took 1.6 GB in a
pane. A `LineStore` keeps the text of each piece a file was loaded in (lines
joined by newlines, as it was read) and where each of its lines starts: two
bytes a line in a piece under 64 KiB, four above. It reads as a sequence of
`str`: `store[n]` cuts one line out of its piece, a slice splits a run of a
piece at C speed. Appending pieces and joining stores never copies text, so
a log that grew shares the old load's pieces. Pure: no I/O.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from array import array
from collections.abc import Iterator, Sequence
from typing import overload

# A piece shorter than this keeps its line starts in two bytes each.
_SHORT_PIECE = 0xFFFF


class LineStore(Sequence[str]):
    """Lines, in order; none holds a newline."""

    __slots__ = ("_count", "_firsts", "_starts", "_texts")

    def __init__(self) -> None:
        self._texts: list[str] = []
        # [k]: where each line of piece k starts in its text, then one past
        # the newline that ends its last line (or past its end).
        self._starts: list[array[int]] = []
        self._firsts = array("q")  # [k]: the index of piece k's first line
        self._count = 0

    @classmethod
    def of_text(cls, text: str) -> LineStore:
        """The lines of `text` as an editor counts them (a final newline ends
        the last line; it does not start another)."""
        store = cls()
        store.add_text(text)
        return store

    def add_text(self, text: str) -> None:
        """Append the lines of `text`, counted as `of_text` counts them."""
        if not text:
            return
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        ends = itertools.accumulate(map(operator.add, map(len, lines), itertools.repeat(1)))
        starts = array("H" if len(text) < _SHORT_PIECE else "I", [0])
        starts.extend(ends)
        self._add(text, starts, len(lines))

    def add_line(self, line: str) -> None:
        """Append one line (which holds no newline), however long."""
        self._add(line, array("H" if len(line) < _SHORT_PIECE else "I", [0, len(line) + 1]), 1)

    def _add(self, text: str, starts: array[int], count: int) -> None:
        self._texts.append(text)
        self._starts.append(starts)
        self._firsts.append(self._count)
        self._count += count

    def joined(self, other: LineStore) -> LineStore:
        """This store's lines, then `other`'s: a new store sharing both's
        pieces (nothing is copied but a few references per piece)."""
        store = LineStore()
        for source in (self, other):
            for text, starts in zip(source._texts, source._starts, strict=True):
                store._add(text, starts, len(starts) - 1)
        return store

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._count)
            if step != 1:
                return [self[at] for at in range(start, stop, step)]
            return self._run(start, stop)
        at = operator.index(index)
        if at < 0:
            at += self._count
        if not 0 <= at < self._count:
            raise IndexError("line index out of range")
        piece = bisect.bisect_right(self._firsts, at) - 1
        starts = self._starts[piece]
        local = at - self._firsts[piece]
        return self._texts[piece][starts[local] : starts[local + 1] - 1]

    def _run(self, start: int, stop: int) -> list[str]:
        """Lines start..stop-1: each piece's share split in one call."""
        out: list[str] = []
        if start >= stop:
            return out
        piece = bisect.bisect_right(self._firsts, start) - 1
        while start < stop:
            first = self._firsts[piece]
            starts = self._starts[piece]
            local_stop = min(stop - first, len(starts) - 1)
            text = self._texts[piece][starts[start - first] : starts[local_stop] - 1]
            out.extend(text.split("\n"))
            start = first + local_stop
            piece += 1
        return out

    def __iter__(self) -> Iterator[str]:
        for piece in range(len(self._texts)):
            first = self._firsts[piece]
            yield from self._run(first, first + len(self._starts[piece]) - 1)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LineStore | list | tuple):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LineStore({self._count} lines in {len(self._texts)} pieces)"
