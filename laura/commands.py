"""Every user action as one named command: keys and socket requests land here.

As in pymux, an action has one name and one implementation, in `COMMANDS`.
A socket request names its command by its `type` (`open`, `close`, `focus`,
`highlight`, `diffview`, `layout`, `ready`, `update`, `comment`); a key
binding (laura/bindings.py) names a command and its argument. So a key that
does what a request does takes the request's path: `d` on a file pane is a
`diffview` request on the focused pane, refused and journaled as one, and the
two cannot drift apart.

A command runs in a `Context`: the tab it acts on and, when a key invoked
it, the host behind the small `Workspace` interface (modes, tabs, toasts). A
socket request never changes the host, so its context carries none. Every
command answers a protocol `Response`; a refusal is an `Error` that changes
nothing (for a key, the host shows it as a toast). Commands own no task and
never block.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import attrs

from laura.layout import LayoutError
from laura.panes.file import FilePane
from laura.protocol import (
    REQUEST_TYPES,
    Close,
    Error,
    Ok,
    ProtocolError,
    Rect,
    Request,
    Response,
    decode_request,
    encode_response,
)
from laura.tab import Tab

# The host's modal state: a popup, menu or prompt that takes the next key.
Mode = str | None  # "panes" | "tabs" | "quit" | "help" | "rename" | None


class ReviewPrompts(Protocol):
    """The review's modal prompts (laura.review_ui.ReviewUI is the one): each
    opener answers like a command, refusing with why."""

    def begin_comment(self, tab: Tab, pane: FilePane, area: Rect) -> Response: ...
    def begin_review(self, tab: Tab, pane: FilePane) -> Response: ...
    def ask_close(self, tab: Tab, pane: FilePane) -> Response: ...


class Workspace(Protocol):
    """What commands need of the host (laura.app.Host is the one)."""

    mode: Mode
    typed: str  # the panes popup's digits, or the tab name being typed
    locked: bool
    outer_focused: bool  # the user's terminal has focus (its focus reports)

    @property
    def review_ui(self) -> ReviewPrompts: ...

    def current(self) -> Tab | None: ...
    def quit(self, code: int = 0) -> None: ...
    def new_tab(self) -> None: ...
    def close_tab(self) -> None: ...
    def switch_tab(self, step: int) -> None: ...
    def show_toast(self, text: str) -> None: ...


@attrs.frozen
class Context:
    """Where a command runs: `tab`, and the host when a key invoked it."""

    tab: Tab
    host: Workspace | None = None

    @property
    def workspace(self) -> Workspace:
        if self.host is None:  # a socket request never names a host command
            raise LayoutError("this command needs the host")
        return self.host


@attrs.frozen
class Move:
    """The argument of a view command: how far, on which file pane (None:
    the focused one)."""

    amount: int
    pane: int | None = None


Command = Callable[[Context, Any], Response]


def _request(answer: Callable[[Tab, Any], Response]) -> Command:
    """The command that is the tab's answer to the request of its name."""
    return lambda context, request: answer(context.tab, request)


def _on_pane(act: Callable[[Context, FilePane, Rect, int], Response]) -> Command:
    """A command on one file pane (`Move.pane`, or the focused one), with
    `Move.amount` as its argument."""

    def run(context: Context, move: Move) -> Response:
        tab = context.tab
        pane = tab.panes.get(tab.focus if move.pane is None else move.pane)
        if pane is None:
            return Error("no file pane focused")
        return act(context, pane, tab.pane_inner(pane), move.amount)

    return run


def _view(change: Callable[[FilePane, Rect, int], None]) -> Command:
    """A command that changes a file pane's view by `Move.amount`."""

    def act(context: Context, pane: FilePane, area: Rect, amount: int) -> Response:
        change(pane, area, amount)
        return Ok()

    return _on_pane(act)


def _fold_thread(pane: FilePane, area: Rect, _: int) -> None:
    pane.review.book.toggle(pane.anchor_at(pane.cursor, area.width))
    pane.clamp(area)


def _refresh(pane: FilePane, area: Rect, _: int) -> None:
    pane.refresh()
    pane.clamp(area)


def _jump_thread(context: Context, pane: FilePane, area: Rect, step: int) -> Response:
    if pane.jump_to_thread(step > 0, area):
        return Ok()
    return Error("no threads in this pane")


def _close_pane(context: Context, pane: FilePane, area: Rect, _: int) -> Response:
    """`x`: close the pane, or first ask when closing would discard threads."""
    if pane.review.has_threads:
        return context.workspace.review_ui.ask_close(context.tab, pane)
    return context.tab.close(Close(pane=pane.id))


def _mode(mode: Mode) -> Command:
    """A command that opens a popup, menu or prompt (or, with None, closes it)."""

    def run(context: Context, _: None) -> Response:
        host = context.workspace
        host.mode, host.typed = mode, ""
        return Ok()

    return run


def _host(action: Callable[[Workspace, Any], None], *, closes_menu: bool = True) -> Command:
    """A command on the host itself; most leave any menu they came from."""

    def run(context: Context, argument: Any) -> Response:
        host = context.workspace
        if closes_menu:
            host.mode = None
        action(host, argument)
        return Ok()

    return run


def _toggle_lock(host: Workspace, _: None) -> None:
    host.locked = not host.locked


def _label_tab(context: Context, label: str) -> Response:
    context.tab.label = label.strip()
    context.workspace.mode = None
    return Ok()


COMMANDS: dict[str, Command] = {
    # The socket's requests (the names are the wire's `type`s).
    "open": _request(Tab.open),
    "close": _request(Tab.close),
    "focus": _request(Tab.focus_pane),
    "highlight": _request(Tab.highlight),
    "diffview": _request(Tab.diffview),
    "layout": lambda context, _: context.tab.report(),
    "ready": _request(Tab.mark_ready),
    "update": lambda context, _: Ok(),
    "comment": _request(Tab.comment),
    # A file pane's view (keys and the wheel).
    "move-cursor": _view(lambda pane, area, rows: pane.move_cursor(rows, area)),
    "scroll": _view(lambda pane, area, rows: pane.scroll_by(rows, area)),
    "scroll-page": _view(lambda pane, area, pages: pane.scroll_by(pages * max(area.height, 1), area)),
    "scroll-sideways": _view(lambda pane, area, steps: pane.scroll_sideways(steps, area)),
    "move-to-edge": _view(lambda pane, area, step: pane.move_to_edge(step, area)),
    # A file pane's review (keys): threads, and the prompts of laura/review_ui.py.
    "fold-thread": _view(_fold_thread),
    "jump-thread": _on_pane(_jump_thread),
    "refresh": _view(_refresh),
    "comment-prompt": _on_pane(
        lambda context, pane, area, _: context.workspace.review_ui.begin_comment(context.tab, pane, area)
    ),
    "review-prompt": _on_pane(
        lambda context, pane, area, _: context.workspace.review_ui.begin_review(context.tab, pane)
    ),
    "close-pane": _on_pane(_close_pane),
    # The host (keys only).
    "lock": _host(_toggle_lock, closes_menu=False),
    "help": _mode("help"),
    "ask-quit": _mode("quit"),
    "quit": _host(lambda host, code: host.quit(code)),
    "panes-popup": _mode("panes"),
    "tab-menu": _mode("tabs"),
    "new-tab": _host(lambda host, _: host.new_tab()),
    "close-tab": _host(lambda host, _: host.close_tab()),
    "previous-tab": _host(lambda host, _: host.switch_tab(-1), closes_menu=False),
    "next-tab": _host(lambda host, _: host.switch_tab(1), closes_menu=False),
    "rename-tab": _mode("rename"),
    "label-tab": _label_tab,
    "dismiss": _mode(None),
}

_REQUEST_NAMES = {request_type: name for name, request_type in REQUEST_TYPES.items()}


def run(name: str, context: Context, argument: Any = None) -> Response:
    """Run command `name`; a refusal is an `Error` and changes nothing.
    The tab's file panes are settled afterwards, so a frame only reads."""
    try:
        return COMMANDS[name](context, argument)
    except LayoutError as exc:
        return Error(str(exc))
    finally:
        context.tab.fit_panes()


def apply(tab: Tab, request: Request, host: Workspace | None = None) -> Response:
    """Run the command a request names, on `tab`."""
    return run(_REQUEST_NAMES[type(request)], Context(tab, host), request)


def answer(tab: Tab, line: bytes) -> bytes:
    """The socket's path: decode, apply and encode one request line; never
    raises on bad input. Files are polled first, so a request right after
    an edit sees the new content."""
    try:
        request = decode_request(line)
    except ProtocolError as exc:
        return encode_response(Error(str(exc)))
    tab.poll_files()
    return encode_response(apply(tab, request))
