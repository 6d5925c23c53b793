"""The emulator's state and the operations on its line buffers.

`ScreenState` owns the main and alternate buffers, the scrollback, the cursor,
margins, modes and dirty-row tracking, and every operation that moves lines
or blanks cells (erase, scroll, insert/delete lines, alternate screen,
resize). Parsing lives in `controls.py` and `core.py`, which build on this.
"""

from __future__ import annotations

from collections import deque

from laura.emulator import Alert, ReplyFn
from laura.render.style import PLAIN, Span, Style
from laura.vt.line import FILL, Line
from laura.vt.reflow import reflow
from laura.vt.sgr import blank_style

HISTORY_LIMIT = 10_000
# A child ringing in a loop must not grow memory: older alerts are dropped.
ALERT_LIMIT = 16


def _blank_line(style: Style, columns: int) -> Line:
    if style is PLAIN:
        return Line()
    return Line(" " * columns, [0, style])


class SavedCursor:
    __slots__ = ("autowrap", "charsets", "origin", "shift", "style", "x", "y")

    def __init__(self, x: int, y: int, style: Style, origin: bool, autowrap: bool,
                 charsets: list[str], shift: int) -> None:
        self.x, self.y, self.style = x, y, style
        self.origin, self.autowrap = origin, autowrap
        self.charsets, self.shift = list(charsets), shift


class ScreenState:
    """State plus buffer operations; see the module docstring."""

    def __init__(self, lines: int, columns: int, reply: ReplyFn | None = None) -> None:
        self.lines = max(1, lines)
        self.columns = max(1, columns)
        self._reply = reply
        self.history: deque[Line] = deque(maxlen=HISTORY_LIMIT)
        self.main_buffer: list[Line] = [Line() for _ in range(self.lines)]
        self.alt_buffer: list[Line] = [Line() for _ in range(self.lines)]
        self.buffer = self.main_buffer
        self.title = ""
        # Bells and OSC 9 notifications not yet taken by the host (bounded).
        self.alerts: list[Alert] = []
        self.errors = 0  # exceptions swallowed by feed(); tests assert it stays 0
        self._dirty: set[int] = set()
        self._all_dirty = True
        self._reset_modes()

    def _reset_modes(self) -> None:
        self.x = 0
        self.y = 0
        self.style = PLAIN
        self.top = 0
        self.bottom = self.lines - 1
        self.autowrap = True
        self.origin = False
        self.insert_mode = False
        self.newline_mode = False
        self.cursor_visible = True
        self.alt_screen = False
        self.bracketed_paste = False
        self.app_cursor_keys = False
        self.mouse_tracking = 0
        self.sgr_mouse = False
        self.focus_reporting = False  # DECSET 1004
        # DECSET 2026 (synchronized output): the host holds this screen's
        # drawing while it is set, for at most its safety timeout.
        self.synchronized = False
        self.charsets = ["B", "B"]
        self.shift = 0  # 0: G0 active (SI), 1: G1 active (SO)
        self._translate = False  # the active charset is DEC line drawing
        self._last_char = " "
        self.tabstops = set(range(8, self.columns, 8))
        self._saved_main: SavedCursor | None = None
        self._saved_alt: SavedCursor | None = None

    # -- the seam's read side -------------------------------------------------

    @property
    def cursor(self) -> tuple[int, int]:
        return min(self.x, self.columns - 1), self.y

    @property
    def history_size(self) -> int:
        return 0 if self.alt_screen else len(self.history)

    def row(self, y: int, scroll: int = 0) -> tuple[Span, ...]:
        if not 0 <= y < self.lines:
            return ()
        if scroll <= 0 or self.alt_screen:
            return self.buffer[y].spans(self.columns)
        history = self.history
        index = len(history) - min(scroll, len(history)) + y
        if index < len(history):
            return history[index].spans(self.columns)
        return self.buffer[index - len(history)].spans(self.columns)

    def take_alerts(self) -> list[Alert]:
        alerts, self.alerts = self.alerts, []
        return alerts

    def _alert(self, alert: Alert) -> None:
        if len(self.alerts) >= ALERT_LIMIT:
            del self.alerts[0]
        self.alerts.append(alert)

    def take_dirty(self) -> set[int]:
        if self._all_dirty:
            self._all_dirty = False
            self._dirty = set()
            return set(range(self.lines))
        dirty, self._dirty = self._dirty, set()
        return dirty

    def display(self) -> list[str]:
        """Visible rows as plain strings (tests and tools)."""
        return [line.plain(self.columns) for line in self.buffer]

    # -- scrolling ------------------------------------------------------------

    def _scroll_up(self, count: int) -> None:
        """Move the scroll region's lines up by `count`; lines leaving a
        full-screen region of the main screen enter the scrollback."""
        top, bottom, buffer = self.top, self.bottom, self.buffer
        count = min(count, bottom - top + 1)
        self._all_dirty = True
        if top == 0 and bottom == self.lines - 1 and buffer is self.main_buffer:
            history = self.history
            for _ in range(count):
                history.append(buffer.pop(0))
                buffer.append(Line())
            return
        for _ in range(count):
            del buffer[top]
            buffer.insert(bottom, Line())

    def _scroll_down(self, count: int) -> None:
        top, bottom, buffer = self.top, self.bottom, self.buffer
        count = min(count, bottom - top + 1)
        self._all_dirty = True
        for _ in range(count):
            del buffer[bottom]
            buffer.insert(top, Line())

    def _index(self) -> None:
        """LF/IND: down one line, scrolling at the bottom margin."""
        y = self.y
        if y == self.bottom:
            self._scroll_up(1)
        elif y < self.lines - 1:
            self.y = y + 1

    def _reverse_index(self) -> None:
        y = self.y
        if y == self.top:
            self._scroll_down(1)
        elif y > 0:
            self.y = y - 1

    def _insert_lines(self, count: int) -> None:
        y, top, bottom, buffer = self.y, self.top, self.bottom, self.buffer
        if not top <= y <= bottom:
            return
        blank = blank_style(self.style)
        for _ in range(min(count, bottom - y + 1)):
            del buffer[bottom]
            buffer.insert(y, _blank_line(blank, self.columns))
        self._all_dirty = True  # the column stays, as in tmux (xterm homes it)

    def _delete_lines(self, count: int) -> None:
        y, top, bottom, buffer = self.y, self.top, self.bottom, self.buffer
        if not top <= y <= bottom:
            return
        blank = blank_style(self.style)
        for _ in range(min(count, bottom - y + 1)):
            del buffer[y]
            buffer.insert(bottom, _blank_line(blank, self.columns))
        self._all_dirty = True

    # -- erasing --------------------------------------------------------------

    def _erase_in_line(self, mode: int) -> None:
        x, columns = self.x, self.columns
        line = self.buffer[self.y]
        blank = blank_style(self.style)
        if mode == 0:
            line.erase(x, columns, blank)
        elif mode == 1:
            line.erase(0, min(x + 1, columns), blank)
        elif mode == 2:
            line.erase(0, columns, blank)
        else:
            return
        line.wrapped = False
        self._dirty.add(self.y)

    def _erase_in_display(self, mode: int) -> None:
        blank = blank_style(self.style)
        buffer, columns = self.buffer, self.columns
        if mode == 0:
            self._erase_in_line(0)
            for y in range(self.y + 1, self.lines):
                buffer[y] = _blank_line(blank, columns)
        elif mode == 1:
            self._erase_in_line(1)
            for y in range(self.y):
                buffer[y] = _blank_line(blank, columns)
        elif mode == 2:
            for y in range(self.lines):
                buffer[y] = _blank_line(blank, columns)
        elif mode == 3:
            self.history.clear()
        self._all_dirty = True

    def _erase_chars(self, count: int) -> None:
        x = self.x
        if x >= self.columns:
            return
        self.buffer[self.y].erase(x, min(x + count, self.columns), blank_style(self.style))
        self._dirty.add(self.y)

    def _insert_chars(self, count: int) -> None:
        x = self.x
        if x >= self.columns:
            return
        self.buffer[self.y].insert_blanks(x, min(count, self.columns - x),
                                          blank_style(self.style), self.columns)
        self._dirty.add(self.y)

    def _delete_chars(self, count: int) -> None:
        x = self.x
        if x >= self.columns:
            return
        self.buffer[self.y].delete(x, min(count, self.columns - x),
                                   blank_style(self.style), self.columns)
        self._dirty.add(self.y)

    def _alignment_test(self) -> None:
        """DECALN: fill the screen with E, reset margins, home the cursor."""
        self.buffer[:] = [Line("E" * self.columns) for _ in range(self.lines)]
        self.top, self.bottom = 0, self.lines - 1
        self.x = self.y = 0
        self._all_dirty = True

    # -- cursor save/restore and the alternate screen -------------------------

    def _save_cursor(self) -> None:
        saved = SavedCursor(self.x, self.y, self.style, self.origin, self.autowrap,
                            self.charsets, self.shift)
        if self.alt_screen:
            self._saved_alt = saved
        else:
            self._saved_main = saved

    def _restore_cursor(self) -> None:
        saved = self._saved_alt if self.alt_screen else self._saved_main
        if saved is None:
            self.x = self.y = 0
            self.style = PLAIN
            self.origin = False
            return
        self.x = min(saved.x, self.columns - 1)  # a pending wrap is not restored
        self.y = min(saved.y, self.lines - 1)
        self.style = saved.style
        self.origin, self.autowrap = saved.origin, saved.autowrap
        self.charsets, self.shift = list(saved.charsets), saved.shift
        self._update_translate()

    def _update_translate(self) -> None:
        self._translate = self.charsets[self.shift] == "0"

    def _enter_alt(self, save_cursor: bool) -> None:
        if self.alt_screen:
            return
        if save_cursor:
            self._save_cursor()
        self.alt_buffer = [Line() for _ in range(self.lines)]
        self.buffer = self.alt_buffer
        self.alt_screen = True
        self._all_dirty = True

    def _leave_alt(self, restore_cursor: bool) -> None:
        if not self.alt_screen:
            return
        self.buffer = self.main_buffer
        self.alt_screen = False
        if restore_cursor:
            self._restore_cursor()
        self._all_dirty = True

    # -- resize ---------------------------------------------------------------

    def resize(self, lines: int, columns: int) -> None:
        """New size. On a width change the main screen and its scrollback are
        re-wrapped (`reflow.py`); the alternate screen's lines are clipped (a
        wide character cut in half becomes a blank). On the main screen a
        shorter screen pushes its top lines into the scrollback and a taller
        one pulls them back."""
        try:
            self._resize(max(1, lines), max(1, columns))
        except Exception:  # never let a resize kill the pane
            self.errors += 1
            self._all_dirty = True

    def _resize(self, lines: int, columns: int) -> None:
        if columns != self.columns:
            old = self.columns
            clip = [self.alt_buffer]
            if self.alt_screen:
                clip.append(self.main_buffer)  # its cursor is not known here
            else:
                history, screen, (self.x, self.y) = reflow(
                    self.history, self.main_buffer, (self.x, self.y), old, columns)
                self.history = deque(history[-HISTORY_LIMIT:], maxlen=HISTORY_LIMIT)
                self.main_buffer[:] = screen
            for buffer in clip:
                for line in buffer:
                    if len(line.text) > columns:
                        line._clip(columns)
            self.tabstops = {t for t in self.tabstops if t < columns} | set(
                range((old // 8 + 1) * 8, columns, 8))
            self.columns = columns
        if lines != self.lines:
            self.main_buffer, y_main = self._fit(self.main_buffer, lines, True)
            self.alt_buffer, y_alt = self._fit(self.alt_buffer, lines, False)
            self.y = y_alt if self.alt_screen else y_main
            self.buffer = self.alt_buffer if self.alt_screen else self.main_buffer
            self.lines = lines
        self.x = min(self.x, self.columns)
        self.y = min(self.y, self.lines - 1)
        self.top, self.bottom = 0, self.lines - 1
        self._all_dirty = True

    def _fit(self, buffer: list[Line], lines: int, main: bool) -> tuple[list[Line], int]:
        """`buffer` changed to `lines` rows, and where the cursor row went."""
        buffer = list(buffer)
        y = self.y if main != self.alt_screen else 0
        while len(buffer) > lines:
            # Drop empty rows below the cursor first, then push the top away.
            if len(buffer) - 1 > y and not buffer[-1].text:
                buffer.pop()
                continue
            top = buffer.pop(0)
            if main:
                self.history.append(top)
            y = max(0, y - 1)
        while len(buffer) < lines:
            if main and self.history:
                buffer.insert(0, self.history.pop())
                y += 1
            else:
                buffer.append(Line())
        return buffer, y


__all__ = ["FILL", "HISTORY_LIMIT", "ScreenState"]
