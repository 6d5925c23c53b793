"""Logical lines and the row <-> source-line map.

A renderer turns source text into `Line`s (one logical line each, before
wrapping) grouped into `Block`s that cover a contiguous run of source lines.
The view wraps them into `Row`s. The functions here answer the questions
every line-addressed feature asks of rendered rows: which rows show source
line n, which rows meet lines a..b (highlight), clamped to the file.

Source lines are 1-based and inclusive everywhere, as a person counts them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, overload

import attrs

from laura.render.style import Row, Span


@attrs.frozen
class Line:
    """One logical rendered line.

    `source` is the inclusive 1-based range of source lines it stands for
    (None: it stands for none, e.g. a table's bottom border); `pre` lines are
    pre-formatted (clipped, never wrapped); prose lines wrap with `hang` at
    the start of each continuation row. `first` is False for a line that
    continues the same source range as the line before it (the gutter shows
    the number once).
    """

    spans: tuple[Span, ...]
    source: tuple[int, int] | None
    pre: bool = False
    hang: tuple[Span, ...] = ()
    first: bool = True
    fill: bool = False  # repeat the last character to the full width (rules)


@attrs.frozen
class BlankLines(Sequence[Line]):
    """Source lines `first`..`first + total - 1` shown as empty lines, each
    made as it is read: a run of blank lines held as two numbers (a `Line`
    each cost 190 bytes, and a megabyte of newlines in a markdown file 200 MB)."""

    first: int
    total: int

    def __len__(self) -> int:
        return self.total

    @overload
    def __getitem__(self, index: int) -> Line: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Line]: ...
    def __getitem__(self, index: int | slice) -> Line | Sequence[Line]:
        if isinstance(index, slice):
            return [self[at] for at in range(*index.indices(self.total))]
        if index < 0:
            index += self.total
        if not 0 <= index < self.total:
            raise IndexError(index)
        number = self.first + index
        return Line((), (number, number))


@attrs.frozen
class Block:
    """Lines covering source lines `start..end` (1-based, inclusive).

    A block may be `deferred`: its `lines` are then unstyled stand-ins (one
    pre-formatted line each, with the right sources) and `deferred()` makes
    the real ones, with the same count, sources and `first` flags. A view
    counts and addresses rows from the stand-ins and styles them only when
    they are shown (a table's cells, a fence's highlighting).
    """

    lines: Sequence[Line]
    start: int
    end: int
    deferred: Callable[[], tuple[Line, ...]] | None = attrs.field(default=None, eq=False)
    # How to make this block again from the source (its document may drop
    # it and make it again when it is read); None: it is kept.
    again: Callable[[], Block] | None = attrs.field(default=None, eq=False)


class Blocks(Protocol):
    """A document's blocks by their place in it, made as they are asked for."""

    def block(self, index: int) -> Block | None:
        """Block `index` (0-based), made if need be; None past the last."""


class KeptBlocks:
    """Blocks from an iterable, each kept once made."""

    def __init__(self, blocks: Iterable[Block]) -> None:
        self._source = iter(blocks)
        self._made: list[Block] = []

    def block(self, index: int) -> Block | None:
        while index >= len(self._made):
            made = next(self._source, None)
            if made is None:
                return None
            self._made.append(made)
        return self._made[index]


def clamp_range(start: int, end: int | None, line_count: int) -> tuple[int, int]:
    """A requested range clamped to the file: `end` defaults to `start`,
    a reversed range is put in order, both ends are kept inside 1..line_count
    (a range wholly past the end pins to the last line)."""
    if end is None:
        end = start
    if end < start:
        start, end = end, start
    last = max(1, line_count)
    return min(max(1, start), last), min(max(1, end), last)


def meets(source: tuple[int, int] | None, start: int, end: int) -> bool:
    return source is not None and source[0] <= end and source[1] >= start


def rows_meeting(rows: Sequence[Row], start: int, end: int, begin: int = 0) -> range:
    """Rows from the first to the last whose source range meets start..end
    (a folded block meets as a whole), looking from row `begin` on. Empty
    when none does."""
    first = last = -1
    for index in range(begin, len(rows)):
        row = rows[index]
        if meets(row.source, start, end):
            if first < 0:
                first = index
            last = index
        elif first >= 0 and row.source is not None and row.source[0] > end:
            break
    return range(first, last + 1) if first >= 0 else range(0)


def rows_for_line(rows: Sequence[Row], line: int) -> range:
    """The rows that show source line `line` (all rows of a folded block)."""
    return rows_meeting(rows, line, line)


def first_row_for_line(rows: Sequence[Row], line: int) -> int | None:
    found = rows_for_line(rows, line)
    return found.start if found else None


def line_of_row(rows: Sequence[Row], index: int) -> int | None:
    """The source line a row addresses (first of its range); rows standing
    for no line (gap rows, borders) address the nearest line above."""
    for at in range(min(index, len(rows) - 1), -1, -1):
        source = rows[at].source
        if source is not None:
            return source[0]
    return None


def content_rows(rows: Sequence[Row]) -> int:
    """Rendered rows, including wrapped continuation and gap rows."""
    return len(rows)
