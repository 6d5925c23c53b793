"""One workspace tab's state and the protocol requests that change it.

A `Tab` holds the split tree, the file panes, focus and the agent flags. It
does no I/O beyond reading files, and no trio: `answer(line)` decodes one
request line, applies it to the live state and returns the response line,
so tests can drive it without a terminal. The host owns the shell pane (its
PTY) and the socket; it sets `area` to the content rect and `shell` to the
running shell pane.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any

from laura import layout
from laura.layout import SHELL, LayoutError, Leaf, Tree
from laura.panes.file import Comment, FilePane
from laura.protocol import (
    Close,
    DiffView,
    Error,
    Focus,
    Highlight,
    Layout,
    Ok,
    Open,
    Opened,
    PaneReport,
    ProtocolError,
    Ready,
    ReadyReply,
    Rect,
    Report,
    Request,
    Response,
    Update,
    decode_request,
    encode_response,
)
from laura.protocol import Comment as CommentRequest

NOT_READY_WARNING = "pane shown, but run `laura ready` to enable inline review submission"
EDITOR_REFUSED = "editor panes are experimental: start Laura with LAURA_EXPERIMENTAL_EDITOR=1"
DIFF_UNAVAILABLE = "diff view isn't available in this build yet"


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
        self.panels: dict[int, FilePane] = {}
        self.focus = SHELL
        self.next_id = 1
        self.ready = False
        self.agent: str | None = None
        self.default_session = session
        self.session: str | None = None
        self.area = Rect(0, 1, 80, 22)
        self.shell: Any = None  # the host's ShellPane, once running

    # --- geometry -------------------------------------------------------------

    def rects(self) -> dict[int, Rect]:
        return layout.rects(self.tree, self.area)

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
            panel = extra if extra is not None and extra.id == pane_id else self.panels[pane_id]
            content = panel.content_rows(max(rect.width - 2, 1))
            overflow = max(content - visible, 0)
            clipped = overflow > 0 or _tiny(rect)
            panes.append(
                PaneReport(pane_id, "panel", panel.shown_path, rect, content, visible, overflow, clipped)
            )
        return Report(self.area, panes)

    # --- requests -------------------------------------------------------------

    def answer(self, line: bytes) -> bytes:
        """Decode, apply and encode one request; never raises on bad input."""
        try:
            request = decode_request(line)
        except ProtocolError as exc:
            return encode_response(Error(str(exc)))
        return encode_response(self.apply(request))

    def apply(self, request: Request) -> Response:
        try:
            if isinstance(request, Open):
                return self._open(request)
            if isinstance(request, Close):
                return self._close(request)
            if isinstance(request, Focus):
                self._panel_or_shell(request.pane)
                self.focus = request.pane
                return Ok()
            if isinstance(request, Highlight):
                return self._highlight(request)
            if isinstance(request, DiffView):
                return self._diffview(request)
            if isinstance(request, Layout):
                return self.report()
            if isinstance(request, Ready):
                return self._ready(request)
            if isinstance(request, Update):
                return Ok()
            if isinstance(request, CommentRequest):
                return self._comment(request)
        except LayoutError as exc:
            return Error(str(exc))
        return Error(f"unsupported request {type(request).__name__}")

    def _panel_or_shell(self, pane: int) -> None:
        if pane != SHELL and pane not in self.panels:
            raise LayoutError(f"no pane #{pane}")

    def _target_panel(self, pane: int | None, verb: str) -> FilePane:
        """The panel a request names, or the focused one; errors as the original."""
        if pane is None:
            if self.focus == SHELL or self.focus not in self.panels:
                raise LayoutError(f"no pane focused {verb}")
            return self.panels[self.focus]
        if pane not in self.panels:
            raise LayoutError(f"no pane #{pane}")
        return self.panels[pane]

    def panel_inner(self, panel: FilePane) -> Rect:
        rect = self.rects().get(panel.id, Rect(0, 0, 3, 3))
        return inner(rect)

    def _resolve(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.cwd, os.path.expanduser(path)))

    def _open(self, request: Open) -> Response:
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
        panel = FilePane(new_id, path, request.path)
        if request.dry_run:
            tree = layout.open_pane(self.tree, self.area, placement, new_id, check_fit=False)
            return self.report(tree, extra=panel)
        tree = layout.open_pane(self.tree, self.area, placement, new_id, check_fit=True)
        duplicate = self._duplicate_of(path)
        self.tree = tree
        self.next_id += 1
        self.panels[new_id] = panel
        panel.set_follow(request.follow, self.panel_inner(panel))
        warnings = self._open_warnings(panel, duplicate)
        if request.highlight is not None:
            panel.set_highlight(request.highlight, self.panel_inner(panel))
        if request.diff:
            warnings.append(DIFF_UNAVAILABLE)
        if request.focus:
            self.focus = new_id
        return Opened(new_id, warnings)

    def _replace(self, request: Open, path: str) -> Response:
        old = self.panels.get(request.panel or 0)
        if old is None:
            return Error(f"no pane #{request.panel} to replace")
        panel = FilePane(old.id, path, request.path)
        self.panels[old.id] = panel
        panel.set_follow(request.follow, self.panel_inner(panel))
        warnings = self._open_warnings(panel, None)
        if request.highlight is not None:
            panel.set_highlight(request.highlight, self.panel_inner(panel))
        if request.diff:
            warnings.append(DIFF_UNAVAILABLE)
        return Opened(old.id, warnings)

    def _duplicate_of(self, path: str) -> int | None:
        real = os.path.realpath(path)
        same = [pid for pid, p in self.panels.items() if os.path.realpath(p.path) == real]
        return min(same) if same else None

    def _open_warnings(self, panel: FilePane, duplicate: int | None) -> list[str]:
        warnings = []
        if not self.ready:
            warnings.append(NOT_READY_WARNING)
        if panel.error is not None:
            warnings.append(f"cannot read {panel.shown_path}: {panel.error}")
        rect = self.rects()[panel.id]
        report = next(p for p in self.report().panes if p.id == panel.id)
        if report.overflow_rows:
            warnings.append(
                f"pane #{panel.id} overflows: {report.overflow_rows} row(s) below the fold"
                " — scroll, or grow the pane"
            )
        elif _tiny(rect):
            warnings.append(f"pane #{panel.id} too small to render — lower --ratio or change --dir")
        if duplicate is not None:
            warnings.append(
                f"already open in pane #{duplicate} — use `laura highlight --pane {duplicate}`"
                f" or `laura open --panel {duplicate}`"
            )
        return warnings

    def _close(self, request: Close) -> Response:
        if request.all:
            self.tree = Leaf(SHELL)
            self.panels.clear()
            self.focus = SHELL
            return Ok()
        if request.pane is None:
            if self.focus == SHELL:
                return Error("no pane focused to close")
            target = self.focus
        else:
            target = request.pane
        self.close_pane(target)
        return Ok()

    def close_pane(self, pane: int) -> None:
        """Remove a file pane; raises LayoutError for the shell or an absent id."""
        self.tree = layout.remove(self.tree, pane)
        self.panels.pop(pane, None)
        if self.focus == pane:
            self.focus = SHELL

    def _highlight(self, request: Highlight) -> Response:
        panel = self._target_panel(request.pane, "to highlight")
        panel.set_highlight(request.range, self.panel_inner(panel))
        return Ok()

    def _diffview(self, request: DiffView) -> Response:
        panel = self._target_panel(request.pane, "for diff view")
        turn_on = (not panel.diff_view) if request.on is None else request.on
        if turn_on:
            return Error(DIFF_UNAVAILABLE)
        panel.diff_view = False
        return Ok()

    def _comment(self, request: CommentRequest) -> Response:
        panel = self._target_panel(request.pane, "to comment on")
        if request.body is None or not request.body.strip():
            return Error("comment needs a body")
        if request.line > panel.line_count:
            return Error(f"line {request.line} is past the file's {panel.line_count} lines")
        author = request.author or self.agent or "agent"
        panel.comments.append(Comment(request.line, request.body, author))
        return Ok()

    def _ready(self, request: Ready) -> Response:
        self.ready = True
        if request.agent is not None:
            self.agent = request.agent
        self.session = request.session or self.session or self.default_session
        journal = journal_path(self.session)
        event = {"type": "ready", "session": self.session}
        if self.agent:
            event["agent"] = self.agent
        _append_event(journal, event)
        return ReadyReply(journal, [], self.report())


def _tiny(rect: Rect) -> bool:
    return rect.width < layout.MIN_PANE or rect.height < layout.MIN_PANE


def journal_path(session: str) -> str:
    """~/.laura/sessions/<session>.ndjson, the session id sanitised."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session) or "session"
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".laura", "sessions", f"{safe}.ndjson")


def _append_event(path: str, event: dict[str, Any]) -> None:
    # Best effort: a journal that cannot be written never fails a request.
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"ts": int(time.time() * 1000), **event}) + "\n")
    except OSError:
        pass
