"""Key, paste and mouse bindings of the host: which event goes where.

Keys name commands (laura/commands.py) in the tables below; what is left
goes to the focused pane's child or to the prompt being typed. The dispatch
order is the documented one (docs/laura.md, Keys): the first rule that
matches wins. `Bindings` owns no state of its own beyond what it is given:
the host (behind `Workspace`) and the review UI.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from laura import commands, layout
from laura.commands import Context, Move, Workspace
from laura.keys import Event, Key, Mouse, Paste
from laura.keys import Focus as OuterFocus  # the user's terminal gained or lost focus
from laura.layout import SHELL
from laura.protocol import DiffView, Error, Focus, Highlight
from laura.review_ui import ReviewUI
from laura.tab import Tab, inner

# A command's name and its argument.
Binding = tuple[str, Any]
# A `Key` matches exactly; a key name ("up") matches that key with any modifier.
KeyTable = Mapping[Key | str, Binding]

# Anywhere (once the lock, the modal prompts and the menus have had theirs).
HOST_KEYS: KeyTable = {
    Key("p", ctrl=True): ("panes-popup", None),
    Key("t", ctrl=True): ("tab-menu", None),
    Key("q", ctrl=True): ("ask-quit", None),
}

# The focused file pane.
FILE_PANE_KEYS: KeyTable = {
    "escape": ("focus", Focus(pane=SHELL)),
    "up": ("move-cursor", Move(-1)),
    "down": ("move-cursor", Move(1)),
    "pageup": ("scroll-page", Move(-1)),
    "pagedown": ("scroll-page", Move(1)),
    "home": ("move-to-edge", Move(-1)),
    "end": ("move-to-edge", Move(1)),
    Key("g"): ("move-to-edge", Move(-1)),
    Key("G"): ("move-to-edge", Move(1)),
    Key("g", shift=True): ("move-to-edge", Move(1)),
    "left": ("scroll-sideways", Move(-1)),
    "right": ("scroll-sideways", Move(1)),
    Key("h"): ("highlight", Highlight()),
    Key("d"): ("diffview", DiffView()),
    Key("x"): ("close-pane", Move(0)),
    # The review (laura/review_ui.py): prompts, and the threads' keys.
    Key("c"): ("comment-prompt", Move(0)),
    Key("S"): ("review-prompt", Move(0)),
    Key("s", shift=True): ("review-prompt", Move(0)),
    Key("r"): ("fold-thread", Move(0)),
    Key("n"): ("jump-thread", Move(1)),
    Key("N"): ("jump-thread", Move(-1)),
    Key("n", shift=True): ("jump-thread", Move(-1)),
    Key("r", ctrl=True): ("refresh", Move(0)),
}

# The tab menu (Ctrl+T); any other key closes it.
TAB_MENU_KEYS: KeyTable = {
    "left": ("previous-tab", None),
    "right": ("next-tab", None),
    Key("n"): ("new-tab", None),
    Key("x"): ("close-tab", None),
    Key("r"): ("rename-tab", None),
}

WHEEL_ROWS = 3


def bound(table: KeyTable, key: Key) -> Binding | None:
    return table.get(key) or table.get(key.name)


class Bindings:
    """Input handling over the host's state (see the module docstring)."""

    def __init__(self, host: Workspace, review_ui: ReviewUI) -> None:
        self.host = host
        self.review_ui = review_ui

    def run(self, tab: Tab, binding: Binding) -> None:
        """Run a bound command; its refusal is shown as a toast."""
        name, argument = binding
        reply = commands.run(name, Context(tab, self.host), argument)
        if isinstance(reply, Error):
            self.host.show_toast(reply.message)

    def handle_events(self, events: list[Event]) -> None:
        for event in events:
            try:
                if isinstance(event, Key):
                    self.handle_key(event)
                elif isinstance(event, Paste):
                    self.handle_paste(event.text)
                elif isinstance(event, Mouse):
                    self.handle_mouse(event)
                elif isinstance(event, OuterFocus):
                    self.host.outer_focused = event.gained
            except Exception as exc:  # a bug costs one key, never the session
                self.host.show_toast(f"internal error: {type(exc).__name__}: {exc}")

    def handle_key(self, key: Key) -> None:
        """Dispatch one key; the first rule that matches wins (see docs/laura.md)."""
        host, tab = self.host, self.host.current()
        if tab is None:
            return
        if key == Key("f12"):
            self.run(tab, ("lock", None))
        elif host.locked:
            self._to_shell(tab, key)
        elif host.mode == "quit":
            self.run(tab, ("quit", 0) if key == Key("y") else ("dismiss", None))
        elif host.mode == "help":
            self.run(tab, ("dismiss", None))
        elif key == Key("h", ctrl=True):
            self.run(tab, ("help", None))
        elif self.review_ui.active:
            self.review_ui.key(key, host.show_toast)
        elif host.mode == "rename":
            self._rename_key(tab, key)
        elif host.mode == "panes":
            self._panes_key(tab, key)
        elif host.mode == "tabs":
            self.run(tab, bound(TAB_MENU_KEYS, key) or ("dismiss", None))
        elif (binding := bound(HOST_KEYS, key)) is not None:
            self.run(tab, binding)
        elif tab.focus in tab.panes:
            self._file_pane_key(tab, key)
        else:
            self._to_shell(tab, key)

    def _to_shell(self, tab: Tab, key: Key) -> None:
        if tab.shell is not None:
            tab.shell.key(key)

    def _file_pane_key(self, tab: Tab, key: Key) -> None:
        binding = bound(FILE_PANE_KEYS, key)
        if binding is not None:
            self.run(tab, binding)

    def _panes_key(self, tab: Tab, key: Key) -> None:
        """The panes popup: digits pick a pane id, committing as soon as no
        longer id could match."""
        host = self.host
        live = [str(pane) for pane in layout.order(tab.tree)]
        if key.name.isdigit() and not (key.ctrl or key.alt):
            host.typed += key.name
            longer = [pane for pane in live if pane.startswith(host.typed) and pane != host.typed]
            if host.typed in live and not longer:
                self._focus_typed(tab)
            elif not any(pane.startswith(host.typed) for pane in live):
                host.show_toast(f"no pane #{host.typed}")
                host.typed = ""
        elif key.name == "backspace":
            host.typed = host.typed[:-1]
        elif key.name == "enter" and host.typed in live:
            self._focus_typed(tab)
        else:
            self.run(tab, ("dismiss", None))

    def _focus_typed(self, tab: Tab) -> None:
        pane = int(self.host.typed)
        self.run(tab, ("dismiss", None))
        self.run(tab, ("focus", Focus(pane=pane)))

    def _rename_key(self, tab: Tab, key: Key) -> None:
        host = self.host
        if key.name == "enter":
            self.run(tab, ("label-tab", host.typed))
        elif key.name == "escape":
            self.run(tab, ("dismiss", None))
        elif key.name == "backspace":
            host.typed = host.typed[:-1]
        elif len(key.name) == 1 and not (key.ctrl or key.alt):
            host.typed += key.name
        elif key.name == "space":
            host.typed += " "

    def handle_paste(self, text: str) -> None:
        host, tab = self.host, self.host.current()
        if tab is None:
            return
        if host.mode == "rename":
            host.typed += " ".join(text.splitlines())
        elif self.review_ui.active:
            self.review_ui.paste(text)
        elif host.mode is None and (host.locked or tab.focus == SHELL) and tab.shell is not None:
            tab.shell.paste(text)

    def handle_mouse(self, event: Mouse) -> None:
        tab = self.host.current()
        if tab is None or self.host.mode is not None:
            return
        hits = [
            (pane_id, rect)
            for pane_id, rect in tab.rects().items()
            if rect.x <= event.x < rect.x + rect.width and rect.y <= event.y < rect.y + rect.height
        ]
        if not hits:
            return
        pane_id, rect = hits[0]
        clicked = event.pressed and event.code & ~(4 | 8 | 16) == 0
        if clicked and pane_id != tab.focus:
            self.run(tab, ("focus", Focus(pane=pane_id)))
        if pane_id == SHELL:
            if tab.shell is not None:
                tab.shell.mouse(event, inner(rect))
        elif event.wheel:
            self.run(tab, ("scroll", Move(event.wheel * WHEEL_ROWS, pane_id)))
