"""A file pane's rows with thread cards woven in under their lines.

`CardedView` wraps the pane's laid-out view (`laura.render.view.DocumentView`
or anything with the same reading surface) and answers the same questions a
pane asks of it (rows, windows, which rows meet a line range, which line a
row addresses), counting the card rows. Pure: no I/O.

Building one lays the base view out to the end (cards go after the last row
of their line, and a count needs every row); only panes with threads pay
that, and only when a thread or the base view changes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, overload

from laura.render.lines import clamp_range, meets
from laura.render.style import Row
from laura.review.cards import card_rows
from laura.review.threads import Thread


class RowView(Protocol):
    """What CardedView needs of the view it wraps."""

    width: int
    line_count: int

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Row]: ...
    def window(self, top: int, height: int, hscroll: int = 0) -> list[Row]: ...
    def max_pre_cells(self, top: int, height: int) -> int: ...


class CardedView:
    """`base` with each thread's card after the last row of its first line."""

    def __init__(self, base: RowView, threads: Sequence[Thread], indent: int = 1) -> None:
        self.base = base
        self.width = base.width
        self.line_count = base.line_count
        rows = list(base)
        last_row: dict[int, int] = {}
        for index, row in enumerate(rows):
            if row.source is not None:
                for line in range(row.source[0], row.source[1] + 1):
                    last_row[line] = index
        cards_after: dict[int, list[Row]] = {}
        for thread in threads:
            at = last_row.get(thread.line, len(rows) - 1)
            cards_after.setdefault(at, []).extend(card_rows(thread, self.width, indent))
        # An int is a row of the base view (by its index there); a Row is a card row.
        self._entries: list[int | Row] = list(cards_after.get(-1, ()))
        self._rows: list[Row] = list(cards_after.get(-1, ()))
        for index, row in enumerate(rows):
            self._entries.append(index)
            self._rows.append(row)
            for card in cards_after.get(index, ()):
                self._entries.append(card)
                self._rows.append(card)

    # -- sequence of rows ---------------------------------------------------

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> Row: ...
    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...
    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        return self._rows[index]

    def __iter__(self) -> Iterator[Row]:
        return iter(self._rows)

    # -- what a pane asks -----------------------------------------------------

    def window(self, top: int, height: int, hscroll: int = 0) -> list[Row]:
        out: list[Row] = []
        for entry in self._entries[max(0, top) : max(0, top) + height]:
            out.append(entry if isinstance(entry, Row) else self.base.window(entry, 1, hscroll)[0])
        return out

    def max_pre_cells(self, top: int, height: int) -> int:
        widest = 0
        for entry in self._entries[max(0, top) : max(0, top) + height]:
            if not isinstance(entry, Row):
                widest = max(widest, self.base.max_pre_cells(entry, 1))
        return widest

    def content_rows(self) -> int:
        return len(self._rows)

    def available(self, count: int) -> int:
        return min(count, len(self._rows))

    def complete(self) -> bool:
        return True

    def ensure_rows(self, count: int) -> None:
        """Everything is laid out already."""

    def ensure_line(self, line: int) -> None:
        """Everything is laid out already."""

    def rows_meeting(self, start: int, end: int | None = None) -> range:
        if self.line_count == 0:
            return range(0)
        start, end = clamp_range(start, end, self.line_count)
        hits = [i for i, row in enumerate(self._rows) if meets(row.source, start, end)]
        return range(hits[0], hits[-1] + 1) if hits else range(0)

    def rows_for_line(self, line: int) -> range:
        return self.rows_meeting(line, line)

    def line_at(self, index: int) -> int | None:
        for at in range(min(index, len(self._rows) - 1), -1, -1):
            source = self._rows[at].source
            if source is not None:
                return source[0]
        return None

    # -- keeping the cursor in place when cards change -------------------------

    def base_index(self, index: int) -> int | None:
        """The base row at `index`, or the nearest base row above a card."""
        for at in range(min(index, len(self._entries) - 1), -1, -1):
            entry = self._entries[at]
            if not isinstance(entry, Row):
                return entry
        return None

    def index_of_base(self, base_index: int) -> int:
        for at, entry in enumerate(self._entries):
            if entry == base_index and not isinstance(entry, Row):
                return at
        return 0
