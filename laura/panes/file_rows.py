"""What a file pane shows, laid out: caches over one load's document, its
git marks and the review's cards. It moves no cursor, reads no file and
runs no job.

One lazily laid-out `DocumentView` (or, for code and diffs, a `LineView`,
which makes any row at once) per text width and mode (the file, or the
inline diff view) is kept until the content or git's marks change, so a
first paint lays out one screen. While the review has threads, the rows are
a list with the cards under their lines (pre-formatted rows already clipped
at the horizontal scroll). `generation` changes whenever rows are built
anew, so the viewport can tell when a row index stops meaning the same row;
`version` changes with the content or the marks, so a count made off the
loop for an older one is dropped. The functions below answer questions
about either kind of rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from laura import gitmarks
from laura.render.document import Document
from laura.render.line_view import LineView
from laura.render.lines import rows_meeting
from laura.render.style import Row
from laura.render.view import DocumentView, Marks
from laura.render.wrapped_view import WrappedView
from laura.review.cards import with_cards
from laura.review.threads import ThreadBook

# A document's rows at one width: laid out as read (markdown, the diff view),
# or made as read (plain text, code, diffs).
View = DocumentView | LineView | WrappedView
VIEWS = (DocumentView, LineView, WrappedView)


class PaneRows:
    """The layout caches of one file pane (see the module docstring)."""

    def __init__(self) -> None:
        self.generation = 0
        self.version = 0
        self.counts: dict[tuple[int, bool], int] = {}  # row counts laid out off the loop
        self._views: dict[tuple[int, bool], View] = {}
        self._with_cards: tuple[tuple[int, int, int], list[Row]] | None = None
        self._lit: tuple[Sequence[Row], tuple[int, int], range] | None = None

    def forget(self) -> None:
        """The content or the marks changed: every row is built anew."""
        self._views = {}
        self.counts = {}
        self.version += 1
        self.generation += 1  # new rows: no place to keep
        self._lit = None

    def forget_diff_views(self) -> None:
        """Git answered without marks: the plain rows stand."""
        for key in [key for key in self._views if key[1]]:
            del self._views[key]

    def views(self) -> dict[tuple[int, bool], View]:
        return self._views

    def view(
        self,
        width: int,
        diff_view: bool,
        document: Document,
        marks: Callable[[], Marks],
        diff: Callable[[], gitmarks.GitDiff],
    ) -> View:
        """The file's rows alone at text width `width`, laid out as they are
        read (one view per width and mode)."""
        key = (width, diff_view)
        found = self._views.get(key)
        if found is not None:
            return found
        self.generation += 1
        view: View
        if diff_view:
            blocks = gitmarks.diff_view_blocks(document.lines, diff().hunks)
            view = DocumentView(blocks, document.line_count, width)
        else:
            view = document.view(width, marks())
        self._views[key] = view
        return view

    def with_cards(self, rows: View, book: ThreadBook, width: int, hscroll: int) -> Sequence[Row]:
        """`rows` with the review's cards under their lines (when it has any)."""
        if book.is_empty:
            return rows
        key = (self.generation, book.version, hscroll)
        if self._with_cards is None or self._with_cards[0] != key:
            clipped = rows.window(0, len(rows), hscroll)
            self._with_cards = (key, with_cards(clipped, book.threads(), width, indent=1))
        return self._with_cards[1]

    def lit(self, rows: Sequence[Row], highlight: tuple[int, int]) -> range:
        """Rows of `rows` meeting `highlight`; asked every frame, so
        answered once per row set and range."""
        cached = self._lit
        if cached is None or cached[0] is not rows or cached[1] != highlight:
            cached = self._lit = (rows, highlight, meeting(rows, *highlight))
        return cached[2]


def meeting(rows: Sequence[Row], start: int, end: int) -> range:
    """The rows whose source range meets start..end (a view answers it
    without laying out past `end`)."""
    if isinstance(rows, VIEWS):
        return rows.rows_meeting(start, end)
    return rows_meeting(rows, start, end)


def known(rows: Sequence[Row], wanted: int) -> tuple[int, bool]:
    """Rows known to exist after laying out at most about `wanted`, and
    whether that is the exact total."""
    if not isinstance(rows, VIEWS):
        return len(rows), True  # the rows with the review's cards: a list
    return rows.available(wanted), rows.complete()


def available(rows: Sequence[Row], wanted: int) -> int:
    """How many of the first `wanted` rows exist (laying out only so far)."""
    if isinstance(rows, VIEWS):
        return rows.available(wanted)
    return min(wanted, len(rows))


def complete(rows: Sequence[Row]) -> bool:
    return not isinstance(rows, VIEWS) or rows.complete()


def unclipped(rows: Sequence[Row], hscroll: int) -> Sequence[Row]:
    """Every row as drawn at `hscroll` (a view's rows are clipped lazily)."""
    return rows.window(0, len(rows), hscroll) if isinstance(rows, VIEWS) else rows


def window(rows: Sequence[Row], top: int, height: int, hscroll: int) -> Sequence[Row]:
    """The rows on screen from `top`, ready to draw."""
    if isinstance(rows, VIEWS):
        return rows.window(top, height, hscroll)
    return list(rows[top : top + height])  # with the review's cards: already clipped
