"""What a file pane shows, laid out: caches over one load's document, its
git marks and the review's cards. It moves no cursor, reads no file and
runs no job.

One lazily laid-out `DocumentView` (or, for code and diffs, a `LineView`,
and for the inline diff view a `DiffView`, which make any row at once; for
plain text a `WrappedView`, which counts rows and makes them as read) per
text width and mode (the file, or the inline diff view) is kept until the content or git's marks change, so a
first paint lays out one screen; only the KEPT_VIEWS used last are kept (a
view laid out or counted to the end holds rows or counts for every line,
and every width a dragged terminal passed through stayed). While the
review has threads, the rows are a `CardedRows` over that view, the cards
placed as the view is laid out. `generation` changes whenever rows are built anew, so the viewport can
tell when a row index stops meaning the same row; `version` changes with the
content or the marks, so a count made off the loop for an older one is
dropped.
"""

from __future__ import annotations

from collections.abc import Callable

from laura import gitmarks
from laura.panes.carded_rows import CardedRows, Shown, View
from laura.render.diff_view import DiffView
from laura.render.document import Document
from laura.render.marks import Marks
from laura.review.threads import ThreadBook

# The views kept: the width shown, the one before (a pane toggled back and
# forth), and the diff view beside them.
KEPT_VIEWS = 3


class PaneRows:
    """The layout caches of one file pane (see the module docstring)."""

    def __init__(self) -> None:
        self.generation = 0
        self.version = 0
        self.counts: dict[tuple[int, bool], int] = {}  # row counts laid out off the loop
        self._views: dict[tuple[int, bool], View] = {}
        self._carded: tuple[View, int, CardedRows] | None = None
        self._lit: tuple[Shown, tuple[int, int], range] | None = None

    def forget(self) -> None:
        """The content or the marks changed: every row is built anew."""
        self._views = {}
        self.counts = {}
        self.version += 1
        self.generation += 1  # new rows: no place to keep
        self._carded = None
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
        found = self._views.pop(key, None)
        if found is not None:
            self._views[key] = found  # the most recently used last
            return found
        self.generation += 1
        view: View
        if diff_view:
            view = DiffView(document.lines, diff().hunks, width)
        else:
            view = document.view(width, marks())
        self._views[key] = view
        while len(self._views) > KEPT_VIEWS:
            del self._views[next(iter(self._views))]
        return view

    def with_cards(self, rows: View, book: ThreadBook) -> Shown:
        """`rows` with the review's cards under their lines (when it has any),
        placed as `rows` are laid out."""
        if book.is_empty:
            return rows
        cached = self._carded
        if cached is None or cached[0] is not rows or cached[1] != book.version:
            cached = self._carded = (rows, book.version, CardedRows(rows, book.threads()))
        return cached[2]

    def lit(self, rows: Shown, highlight: tuple[int, int]) -> range:
        """Rows of `rows` meeting `highlight`; asked every frame, so
        answered once per row set and range."""
        cached = self._lit
        if cached is None or cached[0] is not rows or cached[1] != highlight:
            cached = self._lit = (rows, highlight, rows.rows_meeting(*highlight))
        return cached[2]


def cards_in(rows: Shown) -> int:
    """How many of `rows` are the review's cards' (all of them, placed or not)."""
    return rows.card_rows if isinstance(rows, CardedRows) else 0

