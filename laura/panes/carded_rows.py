"""A file pane's rows with the review's cards among them, made as they are read.

Each thread's card goes under the last row of its first line (under a
folded block's last row), in source order; a thread whose line no row shows
has its card at the end. The cards are placed as the file's own rows become
known: a card is placed once its line is laid out (or counted), so showing
the top of a long file with a comment far down lays out one screen, and a
row index maps to a card or a file row by a search over the cards, never by
copying rows. Before it, the first card made and walked every row of the
file on the UI loop: one comment on a 400,000-line file held keys for 13 s.
Pure: no I/O, no terminal.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import attrs

from laura.render.diff_view import DiffView
from laura.render.document import row_text
from laura.render.line_view import LineView
from laura.render.style import Row
from laura.render.view import DocumentView, LazyRows
from laura.render.wrapped_view import WrappedView
from laura.review.cards import card_rows
from laura.review.threads import Thread

# A document's rows at one width: laid out as read (markdown), or made as
# read (plain text, code, diffs, the inline diff view).
View = DocumentView | LineView | WrappedView | DiffView


@attrs.define
class _Group:
    """The cards under one file row (`after`): (thread's place in source
    order, its card's rows), in that order, and their rows one after another."""

    after: int
    cards: list[tuple[int, list[Row]]]
    rows: list[Row] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.rows = [row for _, card in self.cards for row in card]

    def add(self, cards: list[tuple[int, list[Row]]]) -> None:
        self.cards = sorted([*self.cards, *cards], key=lambda card: card[0])
        self.__attrs_post_init__()


class CardedRows(LazyRows):
    """`base`'s rows with a card for each of `threads` (in source order)
    under the last row of its first line; `indent` cells before each card."""

    def __init__(self, base: View, threads: Sequence[Thread], indent: int = 1) -> None:
        self.base = base
        self.width = base.width
        self.line_count = base.line_count
        self._cards = [(thread.line, card_rows(thread, base.width, indent)) for thread in threads]
        self.card_rows = sum(len(rows) for _, rows in self._cards)
        self._next = 0  # cards before it are placed (or wait in _unshown)
        self._unshown: list[tuple[int, list[Row]]] = []  # cards of lines no row shows: at the end
        self._groups: list[_Group] = []  # by `after`
        self._afters: list[int] = []  # each group's `after`
        self._starts: list[int] = []  # each group's first row here
        self._before: list[int] = [0]  # card rows above each group, then all placed

    # -- placing cards ------------------------------------------------------

    def _place_known(self) -> None:
        """Place the cards whose lines the base has laid out (all of them,
        the unshown ones at the end, once it is complete)."""
        base = self.base
        complete = base.complete()
        through = base.line_count if complete else base.laid_through()
        placed = False
        while self._next < len(self._cards) and (complete or self._cards[self._next][0] <= through):
            line, rows = self._cards[self._next]
            card = (self._next, rows)
            self._next += 1
            found = base.rows_for_line(line) if 1 <= line <= base.line_count else range(0)
            if found:
                self._add(found.stop - 1, [card])
                placed = True
            else:
                self._unshown.append(card)
        if complete and self._unshown:
            self._add(len(base) - 1, self._unshown)
            self._unshown = []
            placed = True
        if placed:
            self._index()

    def _add(self, after: int, cards: list[tuple[int, list[Row]]]) -> None:
        at = bisect.bisect_left(self._afters, after)
        if at < len(self._groups) and self._groups[at].after == after:
            self._groups[at].add(cards)
        else:
            self._groups.insert(at, _Group(after, cards))
            self._afters.insert(at, after)

    def _index(self) -> None:
        self._starts, self._before, total = [], [], 0
        for group in self._groups:
            self._before.append(total)
            self._starts.append(group.after + 1 + total)
            total += len(group.rows)
        self._before.append(total)

    def _locate(self, index: int) -> tuple[int, int]:
        """Row `index` (known) as (base row, -1), or as (group, row of its
        card rows) for a card's row."""
        at = bisect.bisect_right(self._starts, index) - 1
        if at < 0:
            return index, -1
        offset = index - self._starts[at]
        if offset < len(self._groups[at].rows):
            return at, offset
        return index - self._before[at + 1], -1

    def row_of(self, base_row: int) -> int:
        """Where the base's row `base_row` is here (the cards above it placed)."""
        return base_row + self._before[bisect.bisect_left(self._afters, base_row)]

    # -- a sequence of rows ---------------------------------------------------

    def rows_so_far(self) -> int:
        return self.base.rows_so_far() + self._before[-1]

    def ensure_rows(self, count: int) -> None:
        while True:
            self._place_known()
            known = self.rows_so_far()
            if known >= count or self.complete():
                return
            self.base.ensure_rows(self.base.rows_so_far() + count - known)
            if self.base.complete():
                self._place_known()
                return

    def _row(self, index: int) -> Row:
        at, offset = self._locate(index)
        return self.base[at] if offset < 0 else self._groups[at].rows[offset]

    def __len__(self) -> int:
        len(self.base)
        self._place_known()
        return self.rows_so_far()

    # -- what a pane asks (as the base answers it) ---------------------------

    def complete(self) -> bool:
        return self.base.complete() and self._next == len(self._cards) and not self._unshown

    def available(self, count: int) -> int:
        self.ensure_rows(count)
        return self.rows_so_far()

    def content_rows(self) -> int:
        return len(self)

    def window(self, top: int, height: int, hscroll: int = 0) -> list[Row]:
        """Rows top..top+height, the file's clipped at `hscroll` as the base
        clips them (the cards are drawn as they are)."""
        top = max(0, top)
        self.ensure_rows(top + height)
        out: list[Row] = []
        index, stop = top, min(top + height, self.rows_so_far())
        while index < stop:
            at, offset = self._locate(index)
            if offset >= 0:
                card = self._groups[at].rows[offset : offset + stop - index]
                out.extend(card)
                index += len(card)
                continue
            # File rows up to the next card (or the end of the window).
            following = bisect.bisect_right(self._starts, index)
            end = self._starts[following] if following < len(self._starts) else stop
            run = min(end, stop) - index
            out.extend(self.base.window(at, run, hscroll))
            index += run
        return out

    def rows_meeting(self, start: int, end: int | None = None) -> range:
        """The rows from the first to the last of the file's rows meeting
        start..end (the cards between them too)."""
        found = self.base.rows_meeting(start, end)
        if not found:
            return found
        self._place_known()
        return range(self.row_of(found.start), self.row_of(found.stop - 1) + 1)

    def rows_for_line(self, line: int) -> range:
        return self.rows_meeting(line, line)

    def _base_row(self, index: int) -> int | None:
        """The file row standing for row `index`: its own, or for a card's
        row the one the card is under (None above every row)."""
        if index < 0:
            return None
        self.ensure_rows(index + 1)
        known = self.rows_so_far()
        if not known:
            return None
        at, offset = self._locate(min(index, known - 1))
        return self._groups[at].after if offset >= 0 else at

    def anchor_at(self, index: int) -> tuple[int, int] | None:
        """The source range of row `index`, or of the nearest row above it
        that has one (a card's: the line it is under)."""
        row = self._base_row(index)
        return None if row is None else self.base.anchor_at(row)

    def line_at(self, index: int) -> int | None:
        row = self._base_row(index)
        return None if row is None else self.base.line_at(row)

    def max_pre_cells(self, top: int, height: int) -> int:
        row = self._base_row(top)
        return 0 if row is None else self.base.max_pre_cells(row, height)


Shown = View | CardedRows


def base_of(rows: Shown) -> View:
    """The file's own rows under `rows`."""
    return rows.base if isinstance(rows, CardedRows) else rows


def carried(old: Shown, new: Shown, index: int) -> int:
    """Row `index` of `old` as a row of `new`, both over the same file rows
    (cards came, went, changed or folded): the same row, or for a card's
    row that is gone the nearest row above it that is not."""
    if isinstance(old, CardedRows):
        old.ensure_rows(index + 1)
        at, offset = old._locate(min(index, max(old.rows_so_far() - 1, 0)))
        if offset >= 0:
            return _carried_card(old._groups[at], offset, new)
        index = at
    if isinstance(new, CardedRows):
        new.base.ensure_rows(index + 1)
        new._place_known()  # every card above the row (its line is laid out)
        return new.row_of(index)
    return index


def _carried_card(group: _Group, offset: int, new: Shown) -> int:
    """A row of an old card under file row `group.after`: the same row of
    the new cards there, or the nearest one above that still is."""
    if isinstance(new, CardedRows):
        new.base.ensure_rows(group.after + 1)
        new._place_known()
        at = bisect.bisect_left(new._afters, group.after)
        if at < len(new._groups) and new._afters[at] == group.after:
            rows = new._groups[at].rows
            for earlier in range(offset, -1, -1):
                if earlier < len(rows) and row_text(rows[earlier]) == row_text(group.rows[earlier]):
                    return new._starts[at] + earlier
        return new.row_of(group.after)
    return group.after
