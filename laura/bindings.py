"""Key, paste and mouse bindings of the host: which event goes where.

A mixin of `laura.app.Host`: it reads and changes the host's modes (popup,
tab menu, quit prompt, help, rename, lock), focus and tabs, and forwards what
is left to the focused pane. The dispatch order is the documented one
(docs/laura.md, Keys): the first rule that matches wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from laura import layout
from laura.keys import Event, Focus, Key, Mouse, Paste
from laura.layout import SHELL
from laura.panes.review import ReviewUI
from laura.tab import Tab, inner

if TYPE_CHECKING:
    from laura.app import TabRuntime


class Bindings:
    """Input handling over the host's state (see the module docstring)."""

    tabs: list[TabRuntime]
    active: int
    mode: str | None
    locked: bool
    typed: str
    outer_focused: bool
    review_ui: ReviewUI

    def current(self) -> Tab | None:
        raise NotImplementedError

    def quit(self, code: int = 0) -> None:
        raise NotImplementedError

    def new_tab(self) -> None:
        raise NotImplementedError

    def show_toast(self, text: str) -> None:
        raise NotImplementedError

    def mark_dirty(self) -> None:
        raise NotImplementedError

    def handle_events(self, events: list[Event]) -> None:
        for event in events:
            try:
                if isinstance(event, Key):
                    self.handle_key(event)
                elif isinstance(event, Paste):
                    self.handle_paste(event.text)
                elif isinstance(event, Mouse):
                    self.handle_mouse(event)
                elif isinstance(event, Focus):
                    self.outer_focused = event.gained
            except Exception as exc:  # a bug costs one key, never the session
                self.show_toast(f"internal error: {type(exc).__name__}: {exc}")
        self.mark_dirty()

    def handle_key(self, key: Key) -> None:
        """Dispatch one key; the first rule that matches wins (see docs/laura.md)."""
        tab = self.current()
        if tab is None:
            return
        if key == Key("f12"):
            self.locked = not self.locked
            return
        if self.locked:
            if tab.shell is not None:
                tab.shell.key(key)
            return
        if self.mode == "quit":
            self.mode = None
            if key == Key("y"):
                self.quit(0)
            return
        if self.mode == "help":
            self.mode = None
            return
        if key == Key("h", ctrl=True):
            self.mode = "help"
            return
        if self.review_ui.active:
            self.review_ui.key(key, self.show_toast)
            return
        if self.mode == "rename":
            self._rename_key(tab, key)
            return
        if self.mode == "panes":
            self._panes_key(tab, key)
            return
        if self.mode == "tabs":
            self._tabs_key(key)
            return
        if key == Key("p", ctrl=True):
            self.mode, self.typed = "panes", ""
            return
        if key == Key("t", ctrl=True):
            self.mode = "tabs"
            return
        if key == Key("q", ctrl=True):
            self.mode = "quit"
            return
        if tab.focus != SHELL and tab.focus in tab.panels:
            self._file_key(tab, key)
            return
        if tab.shell is not None:
            tab.shell.key(key)

    def _file_key(self, tab: Tab, key: Key) -> None:
        panel = tab.panels[tab.focus]
        area = tab.panel_inner(panel)
        if self.review_ui.file_key(tab, panel, key, area, self.show_toast):
            return
        if key.name == "escape":
            tab.focus = SHELL
        elif key.name == "up":
            panel.move_cursor(-1, area)
        elif key.name == "down":
            panel.move_cursor(1, area)
        elif key.name == "pageup":
            panel.scroll_by(-max(area.height, 1), area)
        elif key.name == "pagedown":
            panel.scroll_by(max(area.height, 1), area)
        elif key.name == "left":
            panel.scroll_sideways(-1, area)
        elif key.name == "right":
            panel.scroll_sideways(1, area)
        elif key == Key("h"):
            panel.clear_highlight()
        elif key == Key("d"):
            refusal = panel.set_diff_view(not panel.diff_view)
            if refusal is not None:
                self.show_toast(refusal)
        elif key == Key("x"):
            tab.close_pane(panel.id)

    def _panes_key(self, tab: Tab, key: Key) -> None:
        live = [str(pane) for pane in layout.order(tab.tree)]
        if key.name.isdigit() and not (key.ctrl or key.alt):
            self.typed += key.name
            longer = [pane for pane in live if pane.startswith(self.typed) and pane != self.typed]
            if self.typed in live and not longer:
                self._focus(tab, int(self.typed))
            elif not any(pane.startswith(self.typed) for pane in live):
                self.show_toast(f"no pane #{self.typed}")
                self.typed = ""
            return
        if key.name == "backspace":
            self.typed = self.typed[:-1]
            return
        if key.name == "enter" and self.typed in live:
            self._focus(tab, int(self.typed))
            return
        self.mode = None

    def _focus(self, tab: Tab, pane: int) -> None:
        tab.focus = pane
        self.mode = None
        self.typed = ""

    def _tabs_key(self, key: Key) -> None:
        if key.name == "left" and self.tabs:
            self.active = (self.active - 1) % len(self.tabs)
        elif key.name == "right" and self.tabs:
            self.active = (self.active + 1) % len(self.tabs)
        elif key == Key("n"):
            self.mode = None
            self.new_tab()
        elif key == Key("x"):
            self.mode = None
            if self.tabs:
                self.tabs[self.active].scope.cancel()
        elif key == Key("r"):
            self.mode = "rename"
            self.typed = ""
        else:
            self.mode = None

    def _rename_key(self, tab: Tab, key: Key) -> None:
        if key.name == "enter":
            tab.label = self.typed.strip()
            self.mode = None
        elif key.name == "escape":
            self.mode = None
        elif key.name == "backspace":
            self.typed = self.typed[:-1]
        elif len(key.name) == 1 and not (key.ctrl or key.alt):
            self.typed += key.name
        elif key.name == "space":
            self.typed += " "

    def handle_paste(self, text: str) -> None:
        tab = self.current()
        if tab is None:
            return
        if self.mode == "rename":
            self.typed += " ".join(text.splitlines())
            return
        if self.review_ui.active:
            self.review_ui.paste(text)
            return
        if self.mode is None and (self.locked or tab.focus == SHELL) and tab.shell is not None:
            tab.shell.paste(text)

    def handle_mouse(self, event: Mouse) -> None:
        tab = self.current()
        if tab is None or self.mode is not None:
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
        if clicked:
            tab.focus = pane_id
        if pane_id == SHELL:
            if tab.shell is not None:
                tab.shell.mouse(event, inner(rect))
        elif event.wheel:
            panel = tab.panels[pane_id]
            panel.scroll_by(event.wheel * 3, inner(rect))
