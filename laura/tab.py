"""One workspace tab's state and its answers to the protocol's requests.

A `Tab` holds the split tree, the file panes, focus and the agent flags. It
does no I/O beyond reading files and runs no task: each request has a method
(`open`, `close`, `focus_pane`, `highlight`, `diffview`, `report`,
`mark_ready`, `comment`) that applies it to the live state and returns the
response; laura/commands.py names them, for the socket and for keys alike,
so tests can drive a tab without a terminal. The host owns the shell pane
(its PTY) and the socket; it sets `area` to the content rect and `shell` to
the running shell pane. `TabRuntime` is a tab as the host runs it: the tab
plus the cancel scope of its task.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from laura import gitmarks, layout, spool
from laura.journal import Journal
from laura.layout import SHELL, LayoutError, Leaf, Tree
from laura.panes.file import FilePane
from laura.panes.source import Loader
from laura.protocol import (
    Close,
    DiffView,
    Error,
    Focus,
    Highlight,
    Ok,
    Open,
    Opened,
    PaneReport,
    Ready,
    ReadyReply,
    Rect,
    Report,
    Response,
)
from laura.protocol import Comment as CommentRequest
from laura.realpath import real_path
from laura.review.prompt import OPEN_WARNING
from laura.review.threads import CommentError
from laura.spool import runtime_dir

NOT_READY_WARNING = OPEN_WARNING
CLOSE_BOTH = "close takes a pane id or `all`, not both"
EDITOR_REFUSED = "editor panes are experimental and not built into this Laura"
# Rows an `open` lays out past the visible ones to word its overflow warning.
OVERFLOW_LOOKAHEAD = 200


def inner(rect: Rect) -> Rect:
    """A pane's rect inside its one-cell border."""
    return Rect(rect.x + 1, rect.y + 1, max(rect.width - 2, 0), max(rect.height - 2, 0))


class Tab:
    """A tab's layout, panes and agent state (see the module docstring)."""

    def __init__(self, number: int, socket_name: str, cwd: str, session: str) -> None:
        self.number = number
        self.socket_name = socket_name
        self.cwd = cwd
        self.label = ""
        self.tree: Tree = Leaf(SHELL)
        self.panes: dict[int, FilePane] = {}
        self.focus = SHELL
        self.next_id = 1
        self.ready = False
        # The foreground process group of the shell pane's terminal when
        # `ready` came: the agent's. None when there was no terminal to ask.
        self.reader_group: int | None = None
        self.agent: str | None = None
        self.default_session = session
        self.session: str | None = None
        self.journal: Journal | None = None  # opened by `ready`
        self.area = Rect(0, 1, 80, 22)
        self.shell: Any = None  # the host's ShellPane, once running
        self.runtime: str | None = None  # where tail spools live (the host's choice)
        # Runs big loads and git off the UI loop once the host attaches its nursery.
        self.loader = Loader()

    # --- geometry -------------------------------------------------------------

    def rects(self) -> dict[int, Rect]:
        return layout.rects(self.tree, self.area)

    def fit_panes(self) -> None:
        """Settle every file pane's view in its rect (after any change)."""
        rects = self.rects()
        for pane_id, pane in self.panes.items():
            pane.fit(inner(rects[pane_id]))

    def report(self, tree: Tree | None = None, extra: FilePane | None = None) -> Report:
        """The layout report for `tree` (default: the live one); `extra` is a
        would-be pane a dry run measures."""
        panes: list[PaneReport] = []
        rects = layout.rects(tree or self.tree, self.area)
        for pane_id in sorted(rects):
            rect = rects[pane_id]
            visible = max(rect.height - 2, 0)
            if pane_id == SHELL:
                panes.append(PaneReport(pane_id, "pty", None, rect, None, visible, 0, _tiny(rect)))
                continue
            pane = extra if extra is not None and extra.id == pane_id else self.panes[pane_id]
            content = pane.content_rows(max(rect.width - 2, 1))  # None: not known yet
            overflow = max(content - visible, 0) if content is not None else 0
            clipped = overflow > 0 or _tiny(rect)
            panes.append(
                PaneReport(
                    pane_id, "panel", pane.shown_path, rect, content, visible, overflow, clipped
                )
            )
        return Report(self.area, panes)

    # --- requests -------------------------------------------------------------

    def focus_pane(self, request: Focus) -> Response:
        self._pane_or_shell(request.pane)
        self.focus = request.pane
        self.log("focus", pane=request.pane)
        return Ok()

    def _pane_or_shell(self, pane: int) -> None:
        if pane != SHELL and pane not in self.panes:
            raise LayoutError(f"no pane #{pane}")

    def _target_pane(self, pane: int | None, verb: str) -> FilePane:
        """The pane a request names, or the focused one; errors as the original."""
        if pane is None:
            if self.focus == SHELL or self.focus not in self.panes:
                raise LayoutError(f"no pane focused {verb}")
            return self.panes[self.focus]
        if pane not in self.panes:
            raise LayoutError(f"no pane #{pane}")
        return self.panes[pane]

    def pane_inner(self, pane: FilePane) -> Rect:
        rect = self.rects().get(pane.id, Rect(0, 0, 3, 3))
        return inner(rect)

    def resolve(self, path: str) -> str:
        """A request's path made absolute against the host's cwd."""
        return self._resolve(path)

    def _resolve(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.cwd, os.path.expanduser(path)))

    def open(self, request: Open) -> Response:
        if request.edit:
            return Error(EDITOR_REFUSED)
        path = self._resolve(request.path)
        if request.panel is not None:
            return self._replace(request, path)
        placement = layout.place(
            self.tree,
            self.area,
            split_pane=request.split,
            dir=request.dir,
            ratio=request.ratio,
            side=request.side,
            focused=self.focus,
        )
        new_id = self.next_id
        pane = FilePane(new_id, path, request.path, self.loader, measure_only=request.dry_run)
        if request.dry_run:
            tree = layout.open_pane(self.tree, self.area, placement, new_id, check_fit=False)
            return self.report(tree, extra=pane)
        tree = layout.open_pane(self.tree, self.area, placement, new_id, check_fit=True)
        duplicate = self._duplicate_of(path)
        self.tree = tree
        self.next_id += 1
        self.panes[new_id] = pane
        refusal = self._prepare(pane, request)
        warnings = self._open_warnings(pane, duplicate, refusal)
        if request.focus:
            self.focus = new_id
        self.log("open", pane=new_id, path=path)
        if request.highlight is not None:
            self._log_highlight(pane)
        return Opened(new_id, warnings)

    def _replace(self, request: Open, path: str) -> Response:
        old = self.panes.get(request.panel or 0)
        if old is None:
            return Error(f"no pane #{request.panel} to replace")
        refusal = old.review.open_panel_refusal(old.id)
        if refusal is not None:
            return Error(refusal)
        if request.dry_run:
            # Unlike the original (which replaced anyway), a dry run only
            # measures: the same tree, the new file in the old pane's rect.
            return self.report(extra=FilePane(old.id, path, request.path, self.loader, measure_only=True))
        if real_path(old.path) != real_path(path):
            self.discard_spool(old)
        old.close()  # first: the new file may read the share the old one held
        pane = FilePane(old.id, path, request.path, self.loader)
        self.panes[old.id] = pane
        refusal = self._prepare(pane, request)
        warnings = self._open_warnings(pane, None, refusal)
        self.log("open", pane=old.id, path=path, replaced=True)
        if request.highlight is not None:
            self._log_highlight(pane)
        return Opened(old.id, warnings)

    def _prepare(self, pane: FilePane, request: Open) -> str | None:
        """Apply an open's follow, highlight and diff, in that order (so an
        explicit highlight wins the first frame); returns a diff refusal.
        A pane becomes a spool only when `laura tail` says it created the
        file and the file sits directly in the runtime directory."""
        pane.is_spool = request.spool and spool.is_spool(pane.path, self._runtime_path())
        pane.set_follow(request.follow, self.pane_inner(pane))
        if request.highlight is not None:
            pane.set_highlight(request.highlight, self.pane_inner(pane))
        if request.diff:
            return pane.set_diff_view(True)
        return None

    def _duplicate_of(self, path: str) -> int | None:
        real = real_path(path)
        same = [pid for pid, p in self.panes.items() if real_path(p.path) == real]
        return min(same) if same else None

    def _open_warnings(
        self, pane: FilePane, duplicate: int | None, diff_refusal: str | None = None
    ) -> list[str]:
        warnings = []
        if not self.ready:
            warnings.append(NOT_READY_WARNING)
        if pane.error is not None:
            warnings.append(f"cannot read {pane.shown_path}: {pane.error}")
        warnings.extend(pane.size_warnings)
        pane.git  # noqa: B018 - asks git now, so a missing binary is known
        missing_git = gitmarks.take_missing_warning()
        if missing_git is not None:
            warnings.append(missing_git)
        if diff_refusal is not None:
            warnings.append(diff_refusal)
        rect = self.rects()[pane.id]
        visible = max(rect.height - 2, 0)
        # Only what is needed to know the pane overflows is laid out (a
        # screenful and a bit): counting a 10,000-line markdown file's every
        # row would cost the open half a second. A long document's warning
        # gives a lower bound; `laura layout` reports the exact count.
        known, exact = pane.rows_known(max(rect.width - 2, 1), visible + OVERFLOW_LOOKAHEAD)
        overflow = max(known - visible, 0)
        if overflow:
            more = "" if exact else "+"
            warnings.append(
                f"pane #{pane.id} overflows: {overflow}{more} row(s) below the fold"
                " — scroll, or grow the pane"
            )
        elif _tiny(rect):
            warnings.append(f"pane #{pane.id} too small to render — lower --ratio or change --dir")
        if duplicate is not None:
            warnings.append(
                f"already open in pane #{duplicate} — use `laura highlight --pane {duplicate}`"
                f" or `laura open --panel {duplicate}`"
            )
        return warnings

    def close(self, request: Close) -> Response:
        if request.all and request.pane is not None:
            # Naming one pane and asking for all is ambiguous: closing every
            # pane would throw away more than the caller pointed at.
            return Error(CLOSE_BOTH)
        if request.all:
            # All or nothing: one pane's unsubmitted review keeps every pane open.
            for pane in sorted(self.panes.values(), key=lambda each: each.id):
                refusal = pane.review.replace_refusal(pane.id)
                if refusal is not None:
                    return Error(refusal)
            self.tree = Leaf(SHELL)
            self.close_all()
            self.panes.clear()
            self.focus = SHELL
            self.log("close", all=True)
            return Ok()
        if request.pane is None:
            if self.focus == SHELL:
                return Error("no pane focused to close")
            target = self.focus
        else:
            target = request.pane
        # The agent may not throw away the person's comments; the person's
        # own `x` asks instead (see the host).
        closing = self.panes.get(target)
        refusal = closing.review.replace_refusal(target) if closing is not None else None
        if refusal is not None:
            return Error(refusal)
        self.close_pane(target)
        self.log("close", pane=target)
        return Ok()

    def close_all(self) -> None:
        """Every file pane lets go of its file (and its share of the read
        budget, which other tabs' panes use) and its spool is deleted: the
        tab is ending, or returns to the shell alone."""
        for pane in self.panes.values():
            pane.close()
            self.discard_spool(pane)

    def close_pane(self, pane_id: int) -> None:
        """Remove a file pane; raises LayoutError for the shell or an absent id."""
        self.tree = layout.remove(self.tree, pane_id)
        pane = self.panes.pop(pane_id, None)
        if pane is not None:
            pane.close()
            self.discard_spool(pane)
        if self.focus == pane_id:
            self.focus = SHELL

    def _runtime_path(self) -> Path:
        return Path(self.runtime) if self.runtime else runtime_dir()

    def discard_spool(self, pane: FilePane) -> None:
        """Delete the pane's file only if it is a tail spool Laura wrote (the
        pane was opened by `laura tail`); a file the person opened from the
        runtime directory themselves is never touched."""
        if pane.is_spool:
            spool.delete_spool(pane.path, self._runtime_path())

    def highlight(self, request: Highlight) -> Response:
        pane = self._target_pane(request.pane, "to highlight")
        refusal = pane.review.highlight_refusal(pane.id, request.range is not None)
        if refusal is not None:
            return Error(refusal)
        pane.set_highlight(request.range, self.pane_inner(pane))
        self._log_highlight(pane)
        return Ok()

    def _log_highlight(self, pane: FilePane) -> None:
        if pane.highlight is None:
            self.log("highlight", pane=pane.id, cleared=True)
        else:
            self.log("highlight", pane=pane.id, start=pane.highlight[0], end=pane.highlight[1])

    def diffview(self, request: DiffView) -> Response:
        pane = self._target_pane(request.pane, "for diff view")
        turn_on = (not pane.diff_view) if request.on is None else request.on
        refusal = pane.set_diff_view(turn_on)
        if refusal is not None:
            return Error(refusal)
        self.log("diff", pane=pane.id, on=pane.diff_view)
        return Ok()

    def comment(self, request: CommentRequest) -> Response:
        """The agent's comment: starts or extends the thread on that line.
        Not gated on `ready`: showing is unconditional, only writing into
        the PTY needs a consumer."""
        pane = self._target_pane(request.pane, "to comment on")
        try:
            pane.review.book.comment_from_agent(
                request.line,
                request.body,
                line_count=pane.line_count,
                sources=pane.sources_of_line(request.line, self.pane_inner(pane).width),
                author=request.author,
                ready_agent=self.agent,
            )
        except CommentError as exc:
            return Error(str(exc))
        self.log("comment", pane=pane.id, line=request.line)
        return Ok()

    def mark_ready(self, request: Ready) -> Response:
        """Mark the tab as hosting an agent (it never becomes un-ready) and
        open the session's journal; each `ready` reopens it and logs again."""
        self.ready = True
        self.reader_group = self._foreground_group()
        if request.agent is not None:
            self.agent = request.agent
        self.session = request.session or self.session or self.default_session
        self.journal = Journal.open(self.session, self.agent)
        self.log("ready")
        return ReadyReply(str(self.journal.path), [], self.report())

    def _foreground_group(self) -> int | None:
        shell = self.shell
        return shell.terminal.foreground_group() if shell is not None else None

    def reader_gone(self) -> bool:
        """Whether `ready` came from a job the tab's own program (its shell)
        ran, and that shell is in the foreground again: the agent exited or
        was suspended, and a review typed now would reach the shell, which
        runs each line (`> comment` redirects, `$(…)` in a file line runs).
        Another job in the foreground (the agent started after a `laura
        ready` typed at the prompt) is not the shell. `ready` with the shell
        itself in the foreground (the tab's program is the agent) declares
        it the reader."""
        shell = self.shell
        if self.reader_group is None or shell is None:
            return False  # no terminal was there to ask: nothing to compare
        program = shell.terminal.pid  # it leads its session and its group
        return self.reader_group != program and self._foreground_group() == program

    def log(self, event_type: str, **fields: Any) -> None:
        """Journal an event once `ready` opened the journal (best effort)."""
        if self.journal is not None:
            self.journal.log(event_type, **fields)

    # --- files and the inline review ---------------------------------------------

    def poll_files(self) -> bool:
        """Reload every pane whose file changed (frozen panes stay put);
        True when anything changed."""
        changed = False
        for pane in list(self.panes.values()):
            changed = pane.reload_if_changed() or changed
        if changed:
            self.fit_panes()
        return changed

    def submit_review(self, pane: FilePane, body: str, write: Callable[[bytes], bool]) -> bool:
        """`S` then Enter: write the pane's review into the shell's PTY with
        `write` (True when the bytes were handed to the PTY). On success the
        threads clear and focus returns to the shell; on failure threads and
        body are kept for a retry. Journals the attempt either way."""
        data = pane.review.submission(pane.path, body, pane.source_lines())
        book = pane.review.book
        counts = {"threads": book.count, "comments": book.comment_count}
        if write(data):
            pane.review.submitted()
            self.focus = SHELL
            self.log("review", path=pane.path, **counts, body=body)
            return True
        pane.review.submission_failed(body)
        error = "the shell pane did not take the review (its program has exited?)"
        self.log("review", path=pane.path, **counts, body=body, error=error)
        return False


class TabRuntime:
    """A Tab plus what the host runs for it: cancelling `scope` ends the
    tab's task (its child, reader and socket)."""

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.scope = trio.CancelScope()


def _tiny(rect: Rect) -> bool:
    return rect.width < layout.MIN_PANE or rect.height < layout.MIN_PANE
