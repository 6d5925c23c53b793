"""Keys on a Tab through the host's real bindings, with no terminal.

`press` sends one key the way laura.app.Host does: `Bindings.handle_key`,
so a file pane's review keys take the command table's path
(laura/commands.py) as they do in the running program. `KeyHost` is the
smallest Workspace that path needs: one tab, toasts kept in a list.
"""

from __future__ import annotations

from collections.abc import Callable

from laura.bindings import Bindings
from laura.commands import Mode, apply
from laura.keys import Key
from laura.panes.file import FilePane
from laura.protocol import Focus
from laura.review_ui import ReviewUI
from laura.tab import Tab


class KeyHost:
    def __init__(self, tab: Tab, review_ui: ReviewUI, toast: Callable[[str], None]) -> None:
        self.tab = tab
        self.review_ui = review_ui
        self.toast = toast
        self.mode: Mode = None
        self.typed = ""
        self.locked = False
        self.outer_focused = True

    def current(self) -> Tab | None:
        return self.tab

    def quit(self, code: int = 0) -> None:
        raise AssertionError("a review key quit laura")

    def new_tab(self) -> None:
        raise AssertionError("a review key opened a tab")

    def close_tab(self) -> None:
        raise AssertionError("a review key closed the tab")

    def switch_tab(self, step: int) -> None:
        raise AssertionError("a review key switched tabs")

    def show_toast(self, text: str) -> None:
        self.toast(text)


def press(ui: ReviewUI, tab: Tab, pane: FilePane, key: Key, toast: Callable[[str], None]) -> None:
    """`key` on `pane`, focused first, through the host's bindings."""
    if tab.focus != pane.id:
        apply(tab, Focus(pane=pane.id))
    host = KeyHost(tab, ui, toast)
    Bindings(host, ui).handle_key(key)
