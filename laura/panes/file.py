"""A file pane: one file shown in a tab, and the state the host keeps for it.

The pane holds its modes (highlight, diff view, follow) and its review
(laura/review), loads its file, and coordinates parts with one job each:

- laura/panes/source.py: reading and preparing the file (`Loaded`), big
  files off the UI loop;
- `FileGit` (file_git.py): the load against git HEAD (marks, `+a -d`);
- `PaneRows` (file_rows.py): the load laid out lazily per width and mode,
  with the review's cards placed among the rows while it has threads
  (`CardedRows`, carded_rows.py);
- `Viewport` (file_view.py): cursor, scroll and horizontal scroll;
- file_anchors.py: where the review's comments and threads meet the rows;
- file_draw.py: painting rows with their gutter, and the border's stats.

State changes in the methods the tab, the commands and the review UI call,
in the jobs that land a load, git's answer, a row count or a reach (rows
laid out through a far line before a highlight, a place or a jump lands
there), and in `fit`, the
settle the tab and the host run after every change (a new width re-wraps
rows, a followed file pins to its end). `draw` and `title` only read.

The pane owns no task: the host calls `reload_if_changed()` on a timer and
before answering a request. A small file reloads inline; a big one (see
`laura.panes.source.loads_inline`), and git's answer for any file, are
fetched by jobs its tab's `Loader` runs off the UI loop: until a first load
lands the pane shows "loading…" (a reload keeps what it showed), until git
answers it shows no marks. A job that lands after the file changed again is
dropped; a change seen during a reload is read once that reload lands.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

import trio

from laura import gitmarks
from laura.panes import file_anchors, file_rows
from laura.panes.carded_rows import Shown, View, base_of
from laura.panes.file_draw import draw_rows, draw_stats
from laura.panes.file_git import NO_CHANGES, FileGit
from laura.panes.file_rows import PaneRows
from laura.panes.file_view import Viewport
from laura.panes.source import (
    Loaded,
    Loader,
    cap_warning,
    closed,
    file_size,
    lines_grew,
    load_source,
    loading,
    loads_inline,
    plain_warning,
    shown_plain,
)
from laura.panes.watch import FileWatch
from laura.protocol import Rect
from laura.render.canvas import Canvas, text_width
from laura.render.document import MARKDOWN, Document
from laura.render.lines import clamp_range
from laura.render.marks import Marks
from laura.render.view import DocumentView, count_rows
from laura.render.wrapped_view import WrappedView
from laura.review.state import PaneReview
from laura.review.threads import Anchor
from laura.steps import drive, run_steps, telling, while_current

# A code file's colours: those of its first lines are made when it loads,
# within a few milliseconds ...
COLOUR_FIRST_LINES = 200
COLOUR_FIRST_SECONDS = 0.01
# ... the rest in steps, with a frame at most this often as they land.
COLOUR_REDRAW_SECONDS = 0.1
# How often the title's progress is redrawn while a move waits for the rows.
PROGRESS_SECONDS = 0.25
# A file's rows are laid out (or counted) on the spot for this long at most
# to reach a line; reaching one further down (a big log, a long markdown
# file) runs in the background first.
SYNC_REACH_SECONDS = 0.01
# Without background jobs (a tab driven by tests), the first lines' colours
# are made at once, this long at most.
COLOUR_INLINE_SECONDS = 1.0


class FilePane:
    """One file pane. `highlight` is a source line range (1-based,
    inclusive) clamped to the file; `cursor` and `scroll` index rendered
    rows (see `Viewport`)."""

    kind = "panel"
    _loaded: Loaded  # what the pane shows: set by every load

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
        `measure_only` (a dry run) never starts a background job."""
        self.id = pane_id
        self.path = path  # absolute
        self.shown_path = shown_path  # as the request named it
        self.highlight: tuple[int, int] | None = None
        self.diff_view = False
        self.follow = False
        self.is_spool = False  # set by the tab when `laura tail` created the file
        # Inline review: threads, freeze, a failed submission (laura/review).
        self.review = PaneReview()
        self.watch = FileWatch(path)
        self.loader = loader if loader is not None else Loader()
        self.measure_only = measure_only
        self.viewport = Viewport()
        self.layout = PaneRows()
        self.changes = FileGit(
            path, self.loader, lambda: self.line_count, self._git_answered, asks=not measure_only
        )
        self.loading = False  # the first load (or one after an error) is in flight: "loading…" shows
        self.reloading = False  # a reload is in flight: the last load shows until it lands
        self._reload_again = False  # the file changed during that reload: read it again when it lands
        self.size = 0
        self.cap = self.loader.cap  # the most this pane reads: its share of the read budget
        self._load_token = 0  # bumped on every load: a job for an older one is dropped
        self._counting: set[tuple[int, int, bool]] = set()
        # Background reaches by (version, load, width, diff view): the line each goes to.
        self._reach_to: dict[tuple[int, int, int, bool], int] = {}
        self._landed = trio.Event()  # set once the current load has landed
        self._after_load: tuple[int | None, int | None] | None = None  # cursor and top lines
        self._highlight_inner: Rect | None = None  # a highlight waiting for the load or its rows
        self._restore_after_reach: tuple[int, int | None] | None = None  # a place waiting for its rows
        # The document and views a reload replaces (their counts may carry over).
        self._grown_from: tuple[Document, dict[tuple[int, bool], View]] | None = None
        self._diff_wanted = False  # the diff view waits for git's answer
        self._load()

    # --- the content ----------------------------------------------------------------

    def _load(self) -> bool:
        """Load the file: inline (True) or, when big and a loader runs jobs,
        in the background (False). Meanwhile the pane shows "loading…" on
        a first load, and what it showed on a reload (a followed log keeps
        its lines on screen while it grows)."""
        self._load_token += 1
        self._landed.set()  # a wait for the load it replaces looks again
        self.size = file_size(self.path)
        self.cap = self.loader.budget.share(self, self.loader.cap, self.size, keep=not self.measure_only)
        if self.loader.in_background and not loads_inline(self.path, self.size):
            self.reloading = (
                self._grown_from is not None
                and not (self.loading or self.measure_only)  # a dry run's pane starts no job
                and self.error is None
            )
            if not self.reloading:
                self._install(loading(self.path))
                self.loading = True
            self._landed = trio.Event()
            if not self.measure_only:
                self.loader.start(functools.partial(self._load_job, self._load_token))
            return False
        self._install(load_source(self.path, self.cap))
        self.loading = self.reloading = False
        return True

    def _install(self, loaded: Loaded, grew: bool | None = None) -> None:
        """Show `loaded`. `grew`: whether its lines begin with the lines of
        the document a reload replaces (None: compare them here)."""
        old = self._grown_from
        self._grown_from = None
        kept = 0 if old is None else len(old[0].lines)
        if loaded.grown:
            loaded, grew = loaded.joined(), True
        elif old is not None and grew is None and loaded.document.notice is None:
            grew = run_steps(lines_grew(old[0], loaded.document))
        self._loaded = loaded
        self.changes.new_load(self._load_token)
        self.layout.forget()
        if old is not None and grew:
            self._carry_counts(old[1], kept)
        self._start_colouring()

    def _carry_counts(self, views: dict[tuple[int, bool], View], kept: int) -> None:
        """A plain file that only grew (a log) keeps the row counts of its
        `kept` old lines, instead of counting a million lines again on every
        reload."""
        for (width, diff_view), view in views.items():
            if not diff_view and isinstance(view, WrappedView):
                new = self.layout.view(width, False, self.document, lambda: self.marks, lambda: self.git)
                if isinstance(new, WrappedView):
                    new.adopt_counts(view, kept)

    def _start_colouring(self) -> None:
        """A code file's colours: the first screens' at once (a few
        milliseconds), the rest in steps between keys, shown as they land.
        Without a loader running jobs (a tab driven by tests), the first
        screens' only, however long they take."""
        colouring = self.document.colouring
        if colouring is None or self.measure_only:
            return
        if not self.loader.in_background:
            colouring.advance(COLOUR_FIRST_LINES, COLOUR_INLINE_SECONDS)
            return
        if colouring.compiled:  # else the first step would compile the lexer here
            colouring.advance(COLOUR_FIRST_LINES, COLOUR_FIRST_SECONDS)
        if not colouring.done:
            self.loader.start(functools.partial(self._colour_job, self._load_token))

    async def _colour_job(self, token: int) -> None:
        colouring = self.document.colouring
        assert colouring is not None
        if not colouring.compiled:
            await self.loader.in_thread(colouring.compile)
        current = lambda: token == self._load_token  # noqa: E731 (a load or close ends it)
        steps = colouring.steps(
            self.loader.on_change, current, COLOUR_REDRAW_SECONDS, first=COLOUR_FIRST_LINES
        )
        await drive(steps)

    def close(self) -> None:
        """The pane is gone: its background jobs stop at their next step,
        and what it holds of the file (lines, colours, rows, git's diff) is
        let go now. The pane's parts refer to each other (git's answers come
        back to it), so the pane itself is freed only by the collector's
        full pass, which runs rarely (see `laura.app.run_host`): keeping its
        content until then, every open and close of a file kept its memory
        (a 32 MB log of short lines: 110 MB a time). The allocator is then
        asked to give the freed pages back (laura.memory)."""
        self._load_token += 1
        self._reload_again = False
        self._loaded = closed(self.path)
        self.loader.budget.release(self)
        self._grown_from = None
        self.layout.forget()
        self.viewport.forget()
        self.changes.new_load(self._load_token)
        self.loading = self.reloading = False
        self._landed.set()  # a comment waiting for the load is answered now
        self.loader.give_back_soon()

    async def _load_job(self, token: int) -> None:
        """Load in a worker thread, then install (unless the file changed
        again); a change noticed meanwhile is read when this one lands."""
        loaded = await self.loader.load(self.path, self._loaded if self.reloading else None, self.cap)
        grew = loaded.grown
        if not grew and self._grown_from is not None and token == self._load_token:
            grew = await drive(lines_grew(self._grown_from[0], loaded.document))
        if token != self._load_token:
            return
        if self.reloading and (self.review.held or self.review.has_threads):
            self._keep_under_review()
            return
        place, self._after_load = self._after_load, None
        self._install(loaded, grew)
        self.loading = self.reloading = False
        self._landed.set()
        if self._highlight_inner is not None and self.highlight is not None:
            inner, self._highlight_inner = self._highlight_inner, None
            self.set_highlight(self.highlight, inner)
        elif self.highlight is not None:
            self.highlight = clamp_range(*self.highlight, self.line_count)
        if self.follow:
            self.viewport.pin_end = True
        elif place is not None and self._highlight_inner is None:
            self._restore(*place)
        if self._reload_again:
            self._reload_again = False
            self.reload()
        self.loader.on_change()

    def _keep_under_review(self) -> None:
        """A comment was begun or made on the lines shown while a reload
        read the file: they stay (the comment would land on other lines),
        and the change is seen again by the next poll, which freezes the
        pane or waits for the prompt to close, as for any change."""
        self.watch.forget()
        self._grown_from = self._after_load = None
        self.reloading = self._reload_again = False
        self._landed.set()
        self.loader.on_change()

    @property
    def document(self) -> Document:
        """What the pane shows (a "loading…" notice until a first load lands)."""
        return self._loaded.document

    @property
    def error(self) -> str | None:
        """Why the file cannot be shown, or None."""
        return self._loaded.error

    @property
    def size_warnings(self) -> list[str]:
        """Said when the file is bigger than what a pane reads of it, or
        than what it lays out as markdown or colours as code."""
        found = (
            cap_warning(self.shown_path, self.size, self.cap, self.loader.cap, self.loader.budget.total),
            plain_warning(self.path, self.shown_path, self.size, self.cap),
        )
        return [warning for warning in found if warning is not None]

    @property
    def line_count(self) -> int:
        return self.document.line_count

    def source_lines(self) -> Sequence[str]:
        """The snapshot's source lines as the gutter and `L<n>` count them
        (what a review quotes): the loader's lines, never the whole text
        split again (2M lines took 0.3-0.5 s on the UI loop)."""
        return self.document.lines

    # --- git --------------------------------------------------------------------------

    @property
    def git(self) -> gitmarks.GitDiff:
        """This file against HEAD, asked of git once per load (see FileGit)."""
        if self.loading:
            return NO_CHANGES
        return self.changes.diff_of(readable=self.error is None)

    @property
    def marks(self) -> Marks:
        if self.loading:
            return gitmarks.marks_of(NO_CHANGES, 0)
        return self.changes.marks_of(readable=self.error is None)

    def stats(self) -> str:
        """`+a -d` against HEAD, or "" when nothing changed."""
        return gitmarks.stats_text(self.marks)

    async def refresh_git(self) -> None:
        """Ask git afresh and wait for the answer (the host does before a
        `diffview` request, so the reply is about the file as it is now)."""
        if not self.loading and self.error is None:
            await self.changes.refresh()

    def _git_answered(self, diff: gitmarks.GitDiff, marks: Marks) -> None:
        """Git answered: new marks (rows may gain gap rows), the cursor kept on its line."""
        line, top = self._line_at(self.viewport.cursor), self._line_at(self.viewport.scroll)
        unmarked = self.changes.marks is None or self.changes.marks.empty
        self.changes.diff, self.changes.marks = diff, marks
        if marks.empty and unmarked:  # the plain rows stand; only the diff view changes
            self.layout.forget_diff_views()
        else:
            self.layout.forget()
        if self._diff_wanted:
            self._diff_wanted = False
            self.diff_view = gitmarks.diff_view_refusal(diff) is None
        self._restore(line, top)

    # --- rows -------------------------------------------------------------------------

    @property
    def cursor(self) -> int:
        return self.viewport.cursor

    @property
    def scroll(self) -> int:
        return self.viewport.scroll

    @property
    def hscroll(self) -> int:
        return self.viewport.hscroll

    def gutter_width(self) -> int:
        return len(str(max(self.line_count, 1))) + 3  # number, space, marker, space

    def text_width(self, inner_width: int) -> int:
        return max(inner_width - self.gutter_width(), 1)

    def source_rows(self, inner_width: int) -> View:
        """The file's rows alone at the pane's inner width, in the current mode."""
        return self.layout.view(
            self.text_width(inner_width),
            self.diff_view,
            self.document,
            lambda: self.marks,
            lambda: self.git,
        )

    def _shown(self, inner_width: int) -> Shown:
        """The rows, with the review's cards while it has threads. Moves nothing."""
        return self.layout.with_cards(self.source_rows(inner_width), self.review.book)

    def rows(self, inner_width: int) -> Shown:
        """What the pane shows; when it changed since it was last looked at
        (cards came or went), the viewport first keeps its place."""
        rows = self._shown(inner_width)
        self.viewport.look_at(self.layout.generation, rows)
        return rows

    def content_rows(self, inner_width: int) -> int | None:
        """Every rendered row (a full layout for markdown and wrapped text;
        `laura layout` asks for this exact count). When laying out (or
        counting) the rest takes over SYNC_REACH_SECONDS, the count is made
        in steps between keys: None until it is known (or while loading; a
        dry run's pane never counts)."""
        if self.loading:
            return None
        rows = self.rows(inner_width)
        if (
            rows.complete()
            or not self.loader.in_background
            or base_of(rows).reach_within(self.line_count, SYNC_REACH_SECONDS)
        ):
            return rows.content_rows()
        key = (self.text_width(inner_width), self.diff_view)
        if key not in self.layout.counts:
            self._start_count(key)
        count = self.layout.counts.get(key)  # the file's rows alone
        return None if count is None else count + file_rows.cards_in(rows)

    def _start_count(self, key: tuple[int, bool]) -> None:
        job = (self.layout.version, *key)
        if job in self._counting or self.measure_only:
            return
        self._counting.add(job)
        self.loader.start(functools.partial(self._count_job, job))

    async def _count_job(self, job: tuple[int, int, bool]) -> None:
        """Count the rows at `job`'s width and mode in steps; a reload or new
        marks meanwhile end it (a log's new view takes the counts so far)."""
        version, width, diff_view = job
        document, marks = self.document, self.marks
        view = self.layout.view(width, diff_view, document, lambda: marks, lambda: self.git)
        current = lambda: version == self.layout.version  # noqa: E731
        try:
            if isinstance(view, WrappedView):  # counts itself, and keeps the counts
                steps = view.count_steps()
                # ... so a view no longer kept (another width since) stops.
                kept = functools.partial(_still_shown, view, self.layout, (width, diff_view))
                current = lambda: version == self.layout.version and kept()  # noqa: E731
            else:
                fresh = document.fresh_blocks()
                if document.kind == MARKDOWN:  # its first pass reads the whole text (5 MB: 110 ms)
                    fresh = await self.loader.started(fresh)
                steps = count_rows(fresh, len(document.lines), width, marks)
            total = await drive(while_current(current, steps))
        finally:
            self._counting.discard(job)
        if total is not None and current():
            self.layout.counts[(width, diff_view)] = total
            self.loader.on_change()

    async def reach(self, line: int, inner_width: int) -> None:
        """Wait for the file's load to land, then lay out (or count) its
        rows through `line` in steps between keys: what an agent's comment
        there needs before it applies. A reload or new marks meanwhile
        replace the rows: the new ones are laid out."""
        while True:
            while self.loading:
                await self._landed.wait()
            if self.reloading:  # the file as it is now (once: a busy log may reload again)
                await self._landed.wait()
            view = self.source_rows(inner_width)
            if not (self._counts_later and 1 <= line <= self.line_count) or view.laid_through() >= line:
                return
            key = (self.text_width(inner_width), self.diff_view)
            shown = functools.partial(_still_shown, view, self.layout, key)
            await drive(while_current(shown, view.reach_steps(line)))
            await trio.lowlevel.checkpoint()

    def _start_reach(self, line: int, inner_width: int) -> None:
        """Lay out (or count) the rows through `line` in the background,
        then put the place or the highlight waiting for them."""
        job = (self.layout.version, self._load_token, self.text_width(inner_width), self.diff_view)
        running = job in self._reach_to
        self._reach_to[job] = max(line, self._reach_to.get(job, 0))
        if not running:
            self.loader.start(functools.partial(self._reach_job, job))

    async def _reach_job(self, job: tuple[int, int, int, bool]) -> None:
        version, token, width, diff_view = job
        view = self.layout.view(width, diff_view, self.document, lambda: self.marks, lambda: self.git)
        current = lambda: version == self.layout.version and token == self._load_token  # noqa: E731
        try:
            while current() and view.laid_through() < min(self._reach_to[job], view.line_count):
                steps = telling(view.reach_steps(self._reach_to[job]), self._tell_progress, PROGRESS_SECONDS)
                await drive(while_current(current, steps))
        finally:
            del self._reach_to[job]
        if token != self._load_token:
            return  # closed, or loaded again (which puts the place and the highlight itself)
        if self._restore_after_reach is not None:
            self._restore(*self._restore_after_reach)
        if self._highlight_inner is not None and self.highlight is not None and not self.loading:
            inner, self._highlight_inner = self._highlight_inner, None
            self.set_highlight(self.highlight, inner)
        self.loader.on_change()

    def _tell_progress(self) -> None:
        """A frame for the title's `[reaching … N%]` (nothing else changes
        on screen while rows far down are laid out)."""
        if self._line_awaited() is not None:
            self.loader.on_change()

    def rows_known(self, inner_width: int, wanted: int) -> tuple[int, bool]:
        """Rows known to exist after laying out at most about `wanted`, and
        whether that is the exact total: what an `open` reply needs to say
        whether the pane overflows, without laying out the whole document."""
        rows = self.rows(inner_width)
        return rows.available(wanted), rows.complete()

    def lit_rows(self, inner_width: int) -> range:
        """Rows whose source range meets the highlight (empty when none, or
        while it waits for the file's load or its rows' count)."""
        if self.highlight is None or self.line_count == 0 or self._highlight_inner is not None:
            return range(0)
        if self._counts_later and self.source_rows(inner_width).laid_through() < self.highlight[1]:
            return range(0)  # lit once reached (`fit` has it reached), never laid out here
        return self.layout.lit(self._shown(inner_width), self.highlight)

    @property
    def _counts_later(self) -> bool:
        """Whether rows far down are laid out (or counted) in the background."""
        return self.loader.in_background and not self.measure_only

    # --- moves and modes --------------------------------------------------------------

    def set_highlight(self, line_range: tuple[int, int] | None, inner: Rect) -> None:
        """Light `line_range` (clamped to the file), put the cursor on its
        first row and scroll it into view once. None clears."""
        if line_range is None:
            self.highlight = None
            return
        if self.loading:  # applied when the load lands
            self.highlight, self._highlight_inner = line_range, inner
            return
        self.highlight = clamp_range(line_range[0], line_range[1], self.line_count)
        if self._must_reach(self.highlight[1], inner.width):  # applied once reached
            self._highlight_inner = inner
            self._start_reach(self.highlight[1], inner.width)
            return
        lit = self.lit_rows(inner.width)
        if lit:
            self.viewport.show_range(lit, self.rows(inner.width), inner)

    def _must_reach(self, line: int, inner_width: int) -> bool:
        """Whether reaching `line` needs the rows above it laid out (or
        counted) in the background first: work that takes over
        SYNC_REACH_SECONDS (counting a line that wraps takes 20 microseconds
        or more, one of 64 KiB 20 ms, laying out a paragraph of markdown
        about 80: a million lines of log, or 7 MB of markdown, would hold
        keys for seconds). While a background reach runs for this view it
        does that work: asking again (every frame, every key) adds none."""
        if not self._counts_later:
            return False
        view = self.source_rows(inner_width)
        if view.laid_through() >= line:
            return False
        if self._reach_running(inner_width):
            return True
        return not view.reach_within(line, SYNC_REACH_SECONDS)

    def clear_highlight(self) -> None:
        self.highlight = None

    def move_cursor(self, delta: int, inner: Rect) -> None:
        self.viewport.move_cursor(self.rows(inner.width), delta, inner)

    def scroll_by(self, delta: int, inner: Rect) -> None:
        self.viewport.scroll_by(self.rows(inner.width), delta, inner)

    def move_to_edge(self, step: int, inner: Rect) -> None:
        """Home/End: the cursor on the first row (`step` < 0) or the last
        (in a long markdown file or log, once the rows above it are laid
        out or counted: `pin_to_end`)."""
        if step > 0:
            self.pin_to_end(inner)
        else:
            self.viewport.to_top(self.rows(inner.width), inner)

    def scroll_sideways(self, steps: int, inner: Rect) -> None:
        """←/→: shift pre-formatted rows (code, tables, fences)."""
        rows = self.source_rows(inner.width)
        widest = rows.max_pre_cells(self.viewport.scroll, inner.height)
        self.viewport.scroll_sideways(widest, rows.width, steps)

    def clamp(self, inner: Rect) -> None:
        """Keep scroll and cursor on rows that exist."""
        self.viewport.clamp(self.rows(inner.width), inner)

    def pin_to_end(self, inner: Rect) -> None:
        """Cursor and view on the last row; where the rows through the end
        are laid out (a long markdown file) or counted in the background
        first, once they are (`pin_end` stays set till then)."""
        if self._must_reach(self.line_count, inner.width):
            self.viewport.pin_end = True
            self._start_reach(self.line_count, inner.width)
            return
        count = self.content_rows(inner.width)
        if count is None:  # still being counted: pin again once it is known
            self.viewport.pin_end = True
            rows = self.rows(inner.width)
            wanted = self.viewport.cursor + inner.height
            count = rows.available(wanted) if isinstance(base_of(rows), DocumentView) else 0
        self.viewport.pin_to_end(count, inner)

    def set_follow(self, follow: bool, inner: Rect) -> None:
        """Following pins the cursor (and the view) to the last row, now and
        on every reload."""
        self.follow = follow
        if follow:
            self.viewport.inner = self.viewport.inner or inner
            self.pin_to_end(inner)

    def set_diff_view(self, on: bool) -> str | None:
        """Turn the inline diff view on or off; returns why it cannot be
        turned on (nothing to diff, no git) and changes nothing then."""
        if not on:
            self._diff_wanted = False
            self._switch_mode(False)
            return None
        if not self.loader.in_background:
            self.changes.ask_again()  # the file may have changed since
            self.layout.forget()
        elif self.git is not self.changes.diff:  # no answer yet: turn on when it comes
            self._diff_wanted = True
            return None
        refusal = gitmarks.diff_view_refusal(self.git)
        if refusal is None:
            self._switch_mode(True)
        return refusal

    def _switch_mode(self, diff_view: bool) -> None:
        if diff_view == self.diff_view:
            return
        line = self._line_at(self.viewport.cursor)
        self.diff_view = diff_view
        self._restore(line, None)

    # --- live files -------------------------------------------------------------------

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

    def refresh(self) -> None:
        """Ctrl+R: discard every thread and reload."""
        self.review.discard()
        self.watch.poll()
        self.reload()

    def reload(self) -> None:
        """Read the file again; keep the cursor on its source line, the
        view around it, the highlight clamped to the new length; with
        `follow`, pin to the end (at the next fit) instead. During a
        reload in the background a new one waits for it to land (a log
        growing faster than it loads would otherwise never show again)."""
        if self.reloading:
            self._reload_again = True
            return
        line, top = self._line_at(self.viewport.cursor), self._line_at(self.viewport.scroll)
        self._grown_from = (self.document, dict(self.layout.views()))
        if not self._load():  # in the background: the place is restored when it lands
            if line is not None:
                self._after_load = (line, top)
            return
        if self.highlight is not None:
            self.highlight = clamp_range(*self.highlight, self.line_count)
        if self.follow:
            self.viewport.pin_end = True
            return
        self._restore(line, top)

    def _line_at(self, index: int) -> int | None:
        """The source line row `index` stands for, at the last fit's width."""
        inner = self.viewport.inner
        return None if inner is None else file_anchors.line_at(self.rows(inner.width), index)

    def _restore(self, line: int | None, top: int | None) -> None:
        """Put the cursor back on source line `line` and the top on `top`
        (far down a big file at a new width: once its rows are laid out or
        counted, at the top meanwhile)."""
        inner = self.viewport.inner
        if inner is None or line is None:
            return
        rows = self.rows(inner.width)
        if self._must_reach(max(line, top or 0), inner.width):
            self._restore_after_reach = (line, top)
            self.viewport.place(0, 0, rows, inner)
            self._start_reach(max(line, top or 0), inner.width)
            return
        self._restore_after_reach = None

        def first_row(line: int) -> int:
            found = rows.rows_meeting(line, line) if self.line_count else range(0)
            return found.start if found else 0

        self.viewport.place(first_row(line), None if top is None else first_row(top), rows, inner)

    def fit(self, inner: Rect) -> None:
        """Settle the view in `inner` after any change; the tab and the host
        call it after every command, reload and layout, before a frame is
        drawn. Rows re-wrapped by a new width keep the cursor and the top on
        their lines, a followed file pins to its end after a reload, and
        cursor and scroll stay on rows that exist."""
        viewport = self.viewport
        if viewport.inner is not None and viewport.inner.width != inner.width:
            line, top = self._line_at(viewport.cursor), self._line_at(viewport.scroll)
            viewport.inner = inner
            self._restore(line, top)
        viewport.inner = inner
        if viewport.pin_end:
            viewport.pin_end = False
            self.pin_to_end(inner)
        self.clamp(inner)
        if self.highlight is not None and self._must_reach(self.highlight[1], inner.width):
            self._start_reach(self.highlight[1], inner.width)  # then it is lit
        # Lay out and style the rows the next frame shows, so that drawing
        # only reads (a frame's cost also paces the next frame).
        self._shown(inner.width).window(viewport.scroll, inner.height)
        self._want_colours(inner)

    def _want_colours(self, inner: Rect) -> None:
        """A code file's lines on screen, and a screen below them, are
        coloured before the rest (far down a big file: by a run of their own)."""
        colouring = self.document.colouring
        if colouring is None or colouring.done or self.diff_view:
            return
        top = self._line_at(self.viewport.scroll)
        if top is not None:
            colouring.want(top, top + 2 * inner.height)

    # --- the inline review ------------------------------------------------------------

    def anchor_at(self, index: int, inner_width: int) -> Anchor | None:
        """The source range a comment on row `index` is about."""
        return self.rows(inner_width).anchor_at(index)

    def sources_of_line(self, line: int, inner_width: int) -> list[Anchor | None]:
        """The source ranges of the file's rows showing `line` (a folded
        block's whole range), made without the rows of any other line."""
        if not 1 <= line <= self.line_count:
            return []
        view = self.source_rows(inner_width)
        if self._counts_later and view.laid_through() < line:  # not reached (`reach` gave up)
            return []
        return [view[index].source for index in view.rows_for_line(line)]

    def cursor_line(self, inner_width: int) -> int:
        return file_anchors.line_at(self.rows(inner_width), self.viewport.cursor) or 0

    def jump_to_thread(self, forward: bool, inner: Rect) -> bool:
        """`n`/`N`: put the cursor on the next/previous thread's line."""
        line = self.cursor_line(inner.width)
        book = self.review.book
        thread = book.next_thread(line) if forward else book.previous_thread(line)
        if thread is None:
            return False
        if self._must_reach(thread.line, inner.width):  # there once its rows are ready
            self._restore_after_reach = (thread.line, None)
            self._start_reach(thread.line, inner.width)
            return True
        row = file_anchors.row_of_line(self.rows(inner.width), thread.line)
        if row is None:
            return False
        self.move_cursor(row - self.viewport.cursor, inner)
        return True

    def review_label(self, inner: Rect) -> str:
        """`[review: N ↑a ↓b]` (and the frozen mark) for the visible rows."""
        if not self.review.has_threads and not self.review.frozen:
            return ""
        rows = self._shown(inner.width)
        first, last = file_anchors.lines_on_screen(rows, self.viewport.scroll, inner.height)
        return self.review.border_label(first, last)

    # --- drawing (reads only) ---------------------------------------------------------

    def _title_head(self, cwd: str) -> str:
        shown = self.path
        if cwd and (self.path + os.sep).startswith(cwd.rstrip(os.sep) + os.sep):
            shown = os.path.relpath(self.path, cwd)
        part = " [first part]" if self.size > self.cap else ""
        if shown_plain(self.path, self.size, self.cap):
            part += " [as plain text]"
        return f"#{self.id} {shown}{part}" + (" [diff]" if self.diff_view else "")

    def _reaching_label(self, inner: Rect | None) -> str:
        """` [reaching the end… 40%]` (or `line N`) while a move waits for
        the rows above its line to be laid out (or counted) in the
        background: End, a far highlight, a thread's line, the place kept
        across a reload or a new width."""
        line = self._line_awaited()
        if line is None or inner is None or not self._reach_running(inner.width):
            return ""
        what = "the end" if self.viewport.pin_end else f"line {line}"
        done = min(100, self.source_rows(inner.width).laid_through() * 100 // max(line, 1))
        return f" [reaching {what}… {done}%]"

    def _line_awaited(self) -> int | None:
        """The line a move waits for the rows through, if any."""
        if self.loading:
            return None
        if self.viewport.pin_end:
            return self.line_count
        if self._highlight_inner is not None and self.highlight is not None:
            return self.highlight[1]
        if self._restore_after_reach is not None:
            line, top = self._restore_after_reach
            return max(line, top or 0)
        return None

    def _reach_running(self, inner_width: int) -> bool:
        """Whether rows are being laid out (or counted) for the current view."""
        job = (self.layout.version, self._load_token, self.text_width(inner_width), self.diff_view)
        return job in self._reach_to

    def _title_start(self, cwd: str, inner: Rect | None) -> str:
        """The title up to the `+a -d` stats."""
        return self._title_head(cwd) + self._reaching_label(inner)

    def title(self, cwd: str, inner: Rect | None = None) -> str:
        """`#id path [diff] +a -d  [review: …]` for the border."""
        title = self._title_start(cwd, inner)
        stats = self.stats()
        if stats:
            title += f" {stats}"
        label = self.review_label(inner) if inner is not None else ""
        return f"{title}  {label}" if label else title

    def draw(self, canvas: Canvas, inner: Rect, focused: bool, cwd: str | None = None) -> None:
        """Paint the view `fit` settled; with `cwd` (the one the border's
        title was made with) the title's `+a -d` gets its colours."""
        viewport = self.viewport
        shown = self._shown(inner.width)
        if cwd is not None:
            draw_stats(canvas, inner, text_width(self._title_start(cwd, inner)), self.stats())
        draw_rows(
            canvas,
            inner,
            shown.window(viewport.scroll, inner.height, viewport.hscroll),
            viewport.scroll,
            number_width=self.gutter_width() - 3,
            lit=self.lit_rows(inner.width),
            lighting=self.highlight is not None,
            cursor=viewport.cursor if focused else None,
        )


def _still_shown(view: View, layout: PaneRows, key: tuple[int, bool]) -> bool:
    """Whether `view` is still the pane's rows at `key` (width, diff view)."""
    return layout.views().get(key) is view
