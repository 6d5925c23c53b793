"""A file pane: one file's rows and the per-pane state the host keeps for it.

Rows come from `laura.render.document`: the pane holds a `Document` (parsed
once per load) and a lazily laid-out view per text width, so a first paint
renders one screen. The state a pane grows (line cursor, scroll, horizontal
scroll, highlight, diff view, follow, git marks, the inline review's threads)
lives here; `draw` paints it into a canvas with a line-number gutter. While
the review has threads, their cards are merged into the rows (a plain list
then: reviews are of files a person reads).

The pane owns no task: the host calls `reload_if_changed()` on a timer and
before answering a request. A small file reloads inline; a big one (past
`laura.panes.source.INLINE_LIMIT`), and git's answer for any file, are
fetched by jobs its tab's `Loader` runs off the UI loop: until a load lands
the pane shows "loading…", until git answers it shows no marks. A job that
lands after the file changed again is dropped.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

from laura import gitmarks
from laura.panes.file_draw import draw_rows, draw_stats
from laura.panes.source import (
    INLINE_LIMIT,
    Loaded,
    Loader,
    cap_warning,
    file_size,
    load_source,
    loading,
)
from laura.panes.watch import FileWatch
from laura.protocol import Rect
from laura.render.canvas import Canvas, text_width
from laura.render.lines import clamp_range, rows_meeting
from laura.render.style import Row
from laura.render.view import DocumentView, Marks, count_rows
from laura.review.cards import with_cards
from laura.review.payload import split_source_lines
from laura.review.state import PaneReview
from laura.review.threads import Anchor
from laura.steps import drive

HSCROLL_STEP = 8


class FilePane:
    """One file pane. `cursor` and `scroll` index rendered rows; `highlight`
    is a source line range (1-based, inclusive) clamped to the file."""

    kind = "panel"

    def __init__(
        self,
        pane_id: int,
        path: str,
        shown_path: str,
        loader: Loader | None = None,
        *,
        measure_only: bool = False,
    ) -> None:
        """`loader` runs big loads and git off the UI loop (None: all inline);
        `measure_only` (a dry run) never starts a background load."""
        self.id = pane_id
        self.path = path  # absolute
        self.shown_path = shown_path  # as the request named it
        self.cursor = 0
        self.scroll = 0
        self.hscroll = 0
        self.highlight: tuple[int, int] | None = None
        self.diff_view = False
        self.follow = False
        self.is_spool = False  # set by the tab when `laura tail` created the file
        # Inline review: threads, freeze, a failed submission (laura/review).
        self.review = PaneReview()
        self.watch = FileWatch(path)
        self._inner: Rect | None = None  # the text area at the last fit
        self._pin_end = False
        self._generation = 0  # bumped whenever the source rows are rebuilt (and on load)
        self._with_cards: tuple[tuple[int, int, int], list[Row]] | None = None
        self._shown: tuple[int, int, Sequence[Row]] | None = None  # what rows() last returned
        self.loader = loader if loader is not None else Loader()
        self.measure_only = measure_only
        self.loading = False
        self.size = 0
        self._load_token = 0  # bumped on every load: a job for an older one is dropped
        self._content_version = 0  # bumped when rows change (load, git's marks)
        self._git_asked: int | None = None  # the load token git was last asked for
        self._counts: dict[tuple[int, bool], int] = {}  # row counts laid out off the loop
        self._counting: set[tuple[int, int, bool]] = set()
        self._after_load: tuple[int | None, int | None] | None = None  # cursor and top lines
        self._highlight_inner: Rect | None = None  # a highlight waiting for the load
        self._diff_wanted = False  # the diff view waits for git's answer
        self._load()

    # --- content --------------------------------------------------------------

    def _load(self) -> bool:
        """Load the file: inline (True) or, when big and a loader runs jobs,
        in the background (False; the pane shows "loading…" meanwhile)."""
        self._load_token += 1
        self.size = file_size(self.path)
        if self.loader.in_background and self.size > INLINE_LIMIT:
            self._install(loading(self.path))
            self.loading = True
            if not self.measure_only:
                self.loader.start(functools.partial(self._load_job, self._load_token))
            return False
        self._install(load_source(self.path, self.loader.cap))
        self.loading = False
        return True

    def _install(self, loaded: Loaded) -> None:
        self._loaded = loaded
        self.error = loaded.error
        self.document = loaded.document
        self._git: gitmarks.GitDiff | None = None
        self._marks: Marks | None = None
        self._views: dict[tuple[int, bool], DocumentView] = {}
        self._counts = {}
        self._content_version += 1
        self._generation += 1  # new rows: no place to keep
        self._lit: tuple[Sequence[Row], tuple[int, int], range] | None = None

    async def _load_job(self, token: int) -> None:
        """Load in the background (`Loader.load`), then install (unless the
        file changed again meanwhile)."""
        loaded = await self.loader.load(self.path)
        if token != self._load_token:
            return
        place, self._after_load = self._after_load, None
        self._install(loaded)
        self.loading = False
        if self._highlight_inner is not None and self.highlight is not None:
            inner, self._highlight_inner = self._highlight_inner, None
            self.set_highlight(self.highlight, inner)
        elif self.highlight is not None:
            self.highlight = clamp_range(*self.highlight, self.line_count)
        if self.follow:
            self._pin_end = True
        elif place is not None and self._highlight_inner is None:
            self._restore(*place)
        self.loader.on_change()

    @property
    def text(self) -> str:
        """The file's text as decoded (what review payloads quote)."""
        return self._loaded.text

    @property
    def size_warning(self) -> str | None:
        """Said when the file is bigger than what a pane reads of it."""
        return cap_warning(self.shown_path, self.size, self.loader.cap)

    @property
    def line_count(self) -> int:
        return self.document.line_count

    @property
    def git(self) -> gitmarks.GitDiff:
        """This file against HEAD, asked of git once per load: inline without
        a background loader, else by a job (no changes until it answers)."""
        if self._git is None:
            if self.loading:
                return gitmarks.GitDiff(gitmarks.NO_CHANGES)
            if self.error is not None:
                self._git = gitmarks.GitDiff(gitmarks.NO_CHANGES)
            elif (offered := self.loader.take(self.path)) is not None:
                self._git = offered
            elif self.loader.in_background:
                self._ask_git()
                return gitmarks.GitDiff(gitmarks.NO_CHANGES)
            else:
                self._git = gitmarks.git_diff_blocking(self.path)
        return self._git

    @property
    def marks(self) -> Marks:
        if self._marks is None:
            git = self.git
            if self._git is None:  # git has not answered yet
                return gitmarks.marks_of(git, 0)
            self._marks = gitmarks.marks_of(git, self.line_count)
        return self._marks

    def _ask_git(self) -> None:
        if self._git_asked == self._load_token or self.measure_only:
            return
        self._git_asked = self._load_token
        self.loader.start(functools.partial(self._git_job, self._load_token))

    async def _git_job(self, token: int) -> None:
        diff = await gitmarks.git_diff(self.path)
        marks = await drive(gitmarks.marks_steps(diff.hunks, self.line_count))
        if token == self._load_token:
            self._set_git(diff, marks)
            self.loader.on_change()

    async def refresh_git(self) -> None:
        """Ask git afresh and wait for the answer (the host does before a
        `diffview` request, so the reply is about the file as it is now)."""
        if self.loading or self.error is not None:
            return
        token = self._load_token
        diff = await gitmarks.git_diff(self.path)
        if token == self._load_token:
            marks = await drive(gitmarks.marks_steps(diff.hunks, self.line_count))
            self._set_git(diff, marks)

    def _set_git(self, diff: gitmarks.GitDiff, marks: Marks) -> None:
        """Git answered: new marks (rows may gain gap rows), the cursor kept on its line."""
        line, top = self._cursor_line(), self._top_line()
        unmarked = self._marks is None or self._marks.empty
        self._git, self._marks = diff, marks
        if marks.empty and unmarked:  # the plain rows stand; only the diff view changes
            for key in [key for key in self._views if key[1]]:
                del self._views[key]
        else:
            self._views.clear()
            self._counts = {}
            self._content_version += 1
        if self._diff_wanted:
            self._diff_wanted = False
            self.diff_view = gitmarks.diff_view_refusal(diff) is None
        self._restore(line, top)

    def stats(self) -> str:
        """`+a -d` against HEAD, or "" when nothing changed."""
        return gitmarks.stats_text(self.marks)

    # --- rows ---------------------------------------------------------------

    def gutter_width(self) -> int:
        return len(str(max(self.line_count, 1))) + 3  # number, space, marker, space

    def text_width(self, inner_width: int) -> int:
        return max(inner_width - self.gutter_width(), 1)

    def rows(self, inner_width: int) -> Sequence[Row]:
        """What the pane shows (see `_current_rows`). When the rows changed
        since they were last asked for (cards appeared or folded), the
        cursor and the top of the view first move to stay on their rows."""
        rows = self._current_rows(inner_width)
        shown = self._shown
        if (
            shown is not None
            and shown[:2] == (self._generation, self.hscroll)
            and shown[2] is not rows
        ):
            self._keep_place(shown[2], rows)
        self._shown = (self._generation, self.hscroll, rows)
        return rows

    def _current_rows(self, inner_width: int) -> Sequence[Row]:
        """The lazily laid-out view of the file, or, while the review has
        threads, a list with their cards under their lines (pre-formatted
        rows already clipped at the horizontal scroll). Moves nothing."""
        rows: Sequence[Row] = self.source_rows(inner_width)
        book = self.review.book
        if not book.is_empty:
            key = (self._generation, book.version, self.hscroll)
            if self._with_cards is None or self._with_cards[0] != key:
                assert isinstance(rows, DocumentView)
                clipped = rows.window(0, len(rows), self.hscroll)
                width = self.text_width(inner_width)
                self._with_cards = (key, with_cards(clipped, book.threads(), width, indent=1))
            rows = self._with_cards[1]
        return rows

    def _keep_place(self, old: Sequence[Row], new: Sequence[Row]) -> None:
        """Cards appeared, changed or folded: keep the cursor and the top of
        the view on the same source rows, so nothing seems to jump. A row on
        a card that went away maps to the nearest surviving row above it."""
        old_rows = old.window(0, len(old), self.hscroll) if isinstance(old, DocumentView) else old
        new_rows = new.window(0, len(new), self.hscroll) if isinstance(new, DocumentView) else new
        where = {_row_key(row): index for index, row in enumerate(new_rows)}

        def moved(index: int) -> int:
            for earlier in range(min(index, len(old_rows) - 1), -1, -1):
                found = where.get(_row_key(old_rows[earlier]))
                if found is not None:
                    return found
            return 0

        self.cursor, self.scroll = moved(self.cursor), moved(self.scroll)

    def source_rows(self, inner_width: int) -> DocumentView:
        """The file's rows alone at the pane's inner width, laid out as they
        are read (one view per width and mode, kept until the file reloads)."""
        width = self.text_width(inner_width)
        key = (width, self.diff_view)
        view = self._views.get(key)
        if view is None:
            self._generation += 1
            if self.diff_view:
                blocks = gitmarks.diff_view_blocks(self.document.lines, self.git.hunks)
                view = DocumentView(blocks, self.line_count, width, one_row_per_line=False)
            else:
                view = self.document.view(width, self.marks)
            self._views[key] = view
        return view

    def content_rows(self, inner_width: int) -> int | None:
        """Every rendered row (a full layout for markdown and wrapped text;
        `laura layout` asks for this exact count). For a big file the count
        is made off the UI loop: None until it is known (or while loading)."""
        if self.loading:
            return None
        rows = self.rows(inner_width)
        if not isinstance(rows, DocumentView):
            return len(rows)
        background = self.loader.in_background and self.size > INLINE_LIMIT
        if rows.one_row_per_line or rows.complete() or not background:
            return rows.content_rows()
        key = (self.text_width(inner_width), self.diff_view)
        if key not in self._counts:
            self._start_count(key)
        return self._counts.get(key)

    def _start_count(self, key: tuple[int, bool]) -> None:
        job = (self._content_version, *key)
        if job in self._counting or self.measure_only:
            return
        self._counting.add(job)
        self.loader.start(functools.partial(self._count_job, job))

    async def _count_job(self, job: tuple[int, int, bool]) -> None:
        version, width, diff_view = job
        document, marks = self.document, self.marks
        hunks = self.git.hunks

        if diff_view:
            blocks = gitmarks.diff_view_blocks(document.lines, hunks)
            steps = count_rows(blocks, len(document.lines), width)
        else:
            steps = count_rows(document.fresh_blocks(), len(document.lines), width, marks)
        try:
            total = await drive(steps)
        finally:
            self._counting.discard(job)
        if version == self._content_version:
            self._counts[(width, diff_view)] = total
            self.loader.on_change()

    def rows_known(self, inner_width: int, wanted: int) -> tuple[int, bool]:
        """Rows known to exist after laying out at most about `wanted` of
        them, and whether that is the exact total. What an `open` reply
        needs to say whether the pane overflows, without paying for the
        whole document (the rest is laid out as it is scrolled to, or when a
        `layout` report asks for the exact count)."""
        rows = self.rows(inner_width)
        if not isinstance(rows, DocumentView):
            return len(rows), True
        if rows.one_row_per_line:
            return rows.content_rows(), True
        known = rows.available(wanted)
        return known, rows.complete()

    def lit_rows(self, inner_width: int) -> range:
        """Rows whose source range meets the highlight (empty when none)."""
        if self.highlight is None or self.line_count == 0:
            return range(0)
        rows = self._current_rows(inner_width)
        cached = self._lit
        if cached is None or cached[0] is not rows or cached[1] != self.highlight:
            # drawn every frame: answer once per row set and range
            if isinstance(rows, DocumentView):
                lit = rows.rows_meeting(*self.highlight)
            else:
                lit = rows_meeting(rows, *self.highlight)
            cached = self._lit = (rows, self.highlight, lit)
        return cached[2]

    # --- state changes --------------------------------------------------------

    def set_highlight(self, line_range: tuple[int, int] | None, inner: Rect) -> None:
        """Light `line_range` (clamped to the file), put the cursor on its
        first row and scroll it into view once: centred when it fits, else
        from its top. None clears."""
        if line_range is None:
            self.highlight = None
            return
        if self.loading:  # applied when the load lands
            self.highlight, self._highlight_inner = line_range, inner
            return
        self.highlight = clamp_range(line_range[0], line_range[1], self.line_count)
        lit = self.lit_rows(inner.width)
        if lit:
            self.cursor = lit.start
            height = max(inner.height, 1)
            margin = (height - len(lit)) // 2 if len(lit) <= height else 0
            self.scroll = max(lit.start - margin, 0)
            self.clamp(inner)

    def clear_highlight(self) -> None:
        self.highlight = None

    def move_cursor(self, delta: int, inner: Rect) -> None:
        self.cursor += delta
        self.clamp(inner)
        if self.cursor < self.scroll:
            self.scroll = self.cursor
        elif self.cursor >= self.scroll + inner.height:
            self.scroll = self.cursor - inner.height + 1

    def scroll_by(self, delta: int, inner: Rect) -> None:
        self.scroll += delta
        self.cursor += delta
        self.clamp(inner)

    def scroll_sideways(self, steps: int, inner: Rect) -> None:
        """←/→: shift pre-formatted rows (code, tables, fences) by a step,
        no further than the widest one on screen needs."""
        view = self.source_rows(inner.width)
        widest = view.max_pre_cells(self.scroll, inner.height)
        limit = max(widest - view.width + 1, 0)
        self.hscroll = min(max(self.hscroll + steps * HSCROLL_STEP, 0), limit)

    def clamp(self, inner: Rect) -> None:
        """Keep scroll and cursor on rows that exist, laying out only as far
        as the view needs (the full count is known once laid out to the end)."""
        rows = self.rows(inner.width)

        def available(count: int) -> int:
            if isinstance(rows, DocumentView):
                return rows.available(count)
            return min(count, len(rows))

        complete = not isinstance(rows, DocumentView) or rows.complete()
        height = max(inner.height, 1)
        self.scroll = max(self.scroll, 0)
        laid = available(self.scroll + height)
        if complete or laid < self.scroll + height:
            self.scroll = min(self.scroll, max(laid - height, 0))
        self.cursor = max(self.cursor, 0)
        laid = available(self.cursor + 1)
        self.cursor = min(self.cursor, max(laid - 1, 0))
        if self.cursor < self.scroll:
            self.cursor = self.scroll
        elif self.cursor >= self.scroll + height:
            self.cursor = self.scroll + height - 1
        self.cursor = min(self.cursor, max(available(self.cursor + 1) - 1, 0))

    def pin_to_end(self, inner: Rect) -> None:
        count = self.content_rows(inner.width)
        if count is None:  # still being counted: pin again once it is known
            self._pin_end = True
            rows = self.rows(inner.width)
            count = rows.available(self.cursor + inner.height) if isinstance(rows, DocumentView) else 0
        self.cursor = max(count - 1, 0)
        self.scroll = max(count - max(inner.height, 1), 0)

    def set_diff_view(self, on: bool) -> str | None:
        """Turn the inline diff view on or off; returns why it cannot be
        turned on (nothing to diff, no git) and changes nothing then."""
        if not on:
            self._diff_wanted = False
            self._switch_mode(False)
            return None
        if not self.loader.in_background:
            self._git = None  # ask git afresh: the file may have changed since
            self._marks = None
            self._views.clear()
        elif self.git is not self._git:  # git (or the load) has not answered: turn on when it does
            self._diff_wanted = True
            return None
        refusal = gitmarks.diff_view_refusal(self.git)
        if refusal is None:
            self._switch_mode(True)
        return refusal

    def _switch_mode(self, diff_view: bool) -> None:
        if diff_view == self.diff_view:
            return
        line = self._cursor_line()
        self.diff_view = diff_view
        self._restore(line, None)

    # --- live files -----------------------------------------------------------

    def reload_if_changed(self) -> bool:
        """Re-read the file if it changed on disk, unless unsubmitted threads
        hold it frozen (comments would land on other lines); a frozen pane
        reloads once its threads are gone. While a comment prompt is open on
        the pane nothing is looked at: the change stays pending until the
        prompt closes. True when anything changed."""
        if self.review.held:
            return False
        if self.review.thaw_due():
            self.review.thawed()
            self.watch.poll()
            self.reload()
            return True
        if not self.watch.poll():
            return False
        if self.review.file_changed():
            self.reload()
        return True

    def poll(self) -> bool:
        return self.reload_if_changed()

    def refresh(self) -> None:
        """Ctrl+R: discard every thread and reload."""
        self.review.discard()
        self.watch.poll()
        self.reload()

    def reload(self) -> None:
        """Read the file again; keep the cursor on its source line, the
        view around it, the highlight clamped to the new length; with
        `follow`, pin to the end instead."""
        line = self._cursor_line()
        top = self._top_line()
        old_document, old_views = self.document, self._views
        if not self._load():  # in the background: the place is restored when it lands
            if line is not None:
                self._after_load = (line, top)
            return
        kept = self.document.continues(old_document)
        if kept and self.marks.empty:  # a growing log: lay out only what was appended
            for (width, diff_view), view in old_views.items():
                if not diff_view:
                    self._views[(width, False)] = self.document.view(
                        width, self.marks, reuse=(view, kept)
                    )
        if self.highlight is not None:
            self.highlight = clamp_range(*self.highlight, self.line_count)
        if self.follow:
            self._pin_end = True
            return
        self._restore(line, top)

    def _line_at(self, index: int) -> int | None:
        if self._inner is None:
            return None
        anchor = self.anchor_at(index, self._inner.width)
        return anchor[0] if anchor is not None else None

    def _cursor_line(self) -> int | None:
        return self._line_at(self.cursor)

    def _top_line(self) -> int | None:
        return self._line_at(self.scroll)

    def _restore(self, line: int | None, top: int | None) -> None:
        inner = self._inner
        if inner is None or line is None:
            return
        rows = self.rows(inner.width)

        def first_row(line: int) -> int:
            if not self.line_count:
                return 0
            if isinstance(rows, DocumentView):
                found = rows.rows_meeting(line)
            else:
                found = rows_meeting(rows, line, line)
            return found.start if found else 0

        cursor = first_row(line)
        if top is not None:
            self.scroll = first_row(top)
        self.cursor = cursor
        if not self.scroll <= cursor < self.scroll + max(inner.height, 1):
            self.scroll = max(cursor - max(inner.height, 1) // 2, 0)
        self.clamp(inner)

    # --- inline review ----------------------------------------------------------

    def source_lines(self) -> list[str]:
        """The snapshot's source lines as the gutter and `L<n>` count them."""
        return split_source_lines(self.text)

    def anchor_at(self, index: int, inner_width: int) -> Anchor | None:
        """The source range a comment on row `index` is about: the row's own,
        or for a row standing for no line (a card, a table border) the
        nearest line above it."""
        rows = self.rows(inner_width)
        for row in reversed(rows[: index + 1]):
            if row.source is not None:
                return row.source
        return None

    def cursor_line(self, inner_width: int) -> int:
        anchor = self.anchor_at(self.cursor, inner_width)
        return anchor[0] if anchor is not None else 0

    def jump_to_thread(self, forward: bool, inner: Rect) -> bool:
        """`n`/`N`: put the cursor on the next/previous thread's line."""
        line = self.cursor_line(inner.width)
        book = self.review.book
        thread = book.next_thread(line) if forward else book.previous_thread(line)
        if thread is None:
            return False
        for index, row in enumerate(self.rows(inner.width)):
            if row.source is not None and row.source[0] <= thread.line <= row.source[1]:
                self.move_cursor(index - self.cursor, inner)
                return True
        return False

    def review_label(self, inner: Rect) -> str:
        """`[review: N ↑a ↓b]` (and the frozen mark) for the visible rows."""
        if not self.review.has_threads and not self.review.frozen:
            return ""
        rows = self._current_rows(inner.width)
        shown = [r.source for r in rows[self.scroll : self.scroll + inner.height] if r.source]
        first = shown[0][0] if shown else 0
        last = shown[-1][1] if shown else 0
        return self.review.border_label(first, last)

    def set_follow(self, follow: bool, inner: Rect) -> None:
        """Following pins the cursor (and the view) to the last row, now and
        on every reload."""
        self.follow = follow
        if follow:
            self._inner = self._inner or inner
            self.pin_to_end(inner)

    # --- drawing --------------------------------------------------------------

    def fit(self, inner: Rect) -> None:
        """Settle the view in `inner` after any change; the host calls it on
        every layout, key, request and reload, before a frame is drawn.
        Rows re-wrapped by a new width keep the cursor and the top on their
        lines, a followed file pins to its end after a reload, and cursor
        and scroll stay on rows that exist."""
        if self._inner is not None and self._inner.width != inner.width:
            line, top = self._cursor_line(), self._top_line()
            self._inner = inner
            self._restore(line, top)
        self._inner = inner
        if self._pin_end:
            self._pin_end = False
            self.pin_to_end(inner)
        self.clamp(inner)

    def _title_head(self, cwd: str) -> str:
        shown = self.path
        if cwd and (self.path + os.sep).startswith(cwd.rstrip(os.sep) + os.sep):
            shown = os.path.relpath(self.path, cwd)
        part = " [first part]" if self.size > self.loader.cap else ""
        return f"#{self.id} {shown}{part}" + (" [diff]" if self.diff_view else "")

    def title(self, cwd: str, inner: Rect | None = None) -> str:
        """`#id path [diff] +a -d  [review: …]` for the border."""
        title = self._title_head(cwd)
        stats = self.stats()
        if stats:
            title += f" {stats}"
        label = self.review_label(inner) if inner is not None else ""
        return f"{title}  {label}" if label else title

    def draw(self, canvas: Canvas, inner: Rect, focused: bool, cwd: str | None = None) -> None:
        """Paint the view `fit` settled (reads only); with `cwd` (the one the
        border's title was made with) the title's `+a -d` gets its colours."""
        shown = self._current_rows(inner.width)
        if isinstance(shown, DocumentView):
            rows = shown.window(self.scroll, inner.height, self.hscroll)
        else:  # with the review's cards: already clipped
            rows = list(shown[self.scroll : self.scroll + inner.height])
        if cwd is not None:
            draw_stats(canvas, inner, text_width(self._title_head(cwd)), self.stats())
        draw_rows(
            canvas,
            inner,
            rows,
            self.scroll,
            number_width=self.gutter_width() - 3,
            lit=self.lit_rows(inner.width),
            lighting=self.highlight is not None,
            cursor=self.cursor if focused else None,
        )


def row_text(row: Row) -> str:
    return "".join(span.text for span in row.spans)


def _row_key(row: Row) -> tuple[object, ...]:
    """What identifies a row across a re-merge of cards: its source, its
    place in a wrapped line and its text (rows are rebuilt, not shared)."""
    return (row.source, row.first, row_text(row))
