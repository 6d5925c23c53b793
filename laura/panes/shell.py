"""The shell pane (pane 0): a tab's PTY child seen through its emulator.

Owns the view state over the terminal — how far back into the scrollback the
user has scrolled — and turns keys, pastes and mouse events into the bytes
the child expects. Uses the emulator only through the `Emulator` protocol.
"""

from __future__ import annotations

from laura.emulator import Emulator
from laura.keys import Key, Mouse, bracketed, encode_key, encode_mouse
from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.render.style import Span, Style
from laura.terminal import Terminal

WHEEL_STEP = 3
SCROLL_LABEL_STYLE = Style(fg=(235, 203, 139), reverse=True)


class ShellPane:
    kind = "pty"
    id = 0

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.scroll = 0  # lines back into the history; 0 = live
        self._rows: list[tuple[Span, ...]] = []
        self._view: tuple[int, int, int, bool, int] | None = None
        self._history_seen = 0
        self._cursor: tuple[int, int] = (0, 0)
        self._focus_reported: bool | None = None  # what the child was last told

    @property
    def emulator(self) -> Emulator:
        return self.terminal.emulator

    def fit(self, inner: Rect) -> None:
        """Size the PTY to the pane's inner rect (a resize snaps to live)."""
        before = (self.emulator.lines, self.emulator.columns)
        self.terminal.resize(inner.height, inner.width)
        if (self.emulator.lines, self.emulator.columns) != before:
            self.scroll = 0

    def scroll_by(self, delta: int) -> None:
        """Positive scrolls back into the history; clamps at live and the top."""
        self.scroll = min(max(self.scroll + delta, 0), self.emulator.history_size)

    def send(self, data: bytes) -> None:
        """Write to the child and snap the view back to live."""
        self.scroll = 0
        self.terminal.write(data)

    def key(self, key: Key) -> None:
        """A key for the shell: PageUp/PageDown scroll the main screen's
        history (on the alternate screen they go to the child)."""
        plain = not (key.ctrl or key.alt or key.shift)
        if plain and key.name in ("pageup", "pagedown") and not self.emulator.alt_screen:
            page = max(self.emulator.lines, 1)
            self.scroll_by(page if key.name == "pageup" else -page)
            return
        self.send(encode_key(key, self.emulator.app_cursor_keys))

    def report_focus(self, focused: bool) -> None:
        """Tell a child that asked for focus events (DECSET 1004) when this
        pane gains or loses focus; the current state once, as it asks."""
        if not self.emulator.focus_reporting:
            self._focus_reported = None
            return
        if focused != self._focus_reported:
            self._focus_reported = focused
            self.terminal.write(b"\x1b[I" if focused else b"\x1b[O")

    def paste(self, text: str) -> None:
        """Forward a paste: bracketed (as the user's terminal sent it) when the
        child asked for bracketed paste, raw otherwise."""
        data = bracketed(text) if self.emulator.bracketed_paste else text.encode()
        self.send(data)

    def mouse(self, event: Mouse, inner: Rect) -> None:
        """Forward in SGR form when the child asked for the mouse; otherwise
        the wheel scrolls the history."""
        emulator = self.emulator
        if emulator.mouse_tracking and emulator.sgr_mouse:
            motion = bool(event.code & 32)
            if motion and emulator.mouse_tracking < 1002:
                return
            if not event.pressed and emulator.mouse_tracking < 1000:
                return
            x = min(max(event.x - inner.x, 0), inner.width - 1)
            y = min(max(event.y - inner.y, 0), inner.height - 1)
            self.terminal.write(encode_mouse(event.code, x, y, event.pressed))
            return
        if event.wheel and not emulator.alt_screen:
            self.scroll_by(-event.wheel * WHEEL_STEP)

    def take_view(self) -> list[tuple[Span, ...]]:
        """Bring the rows on view up to date with the emulator, re-reading
        only where it reports changes (everything after a scroll, resize or
        screen switch); the host calls it before each frame, and `draw`
        paints what it left. While the child is inside a synchronized
        update, the last complete frame stays on view (its changes wait in
        the emulator's dirty set)."""
        emulator = self.emulator
        if self._rows and self.terminal.holding() and len(self._rows) == emulator.lines:
            return self._rows
        self._cursor = emulator.cursor
        history = emulator.history_size
        if self.scroll and history > self._history_seen:
            # Keep the scrolled-back view on the same lines while output arrives.
            self.scroll += history - self._history_seen
        self._history_seen = history
        self.scroll = min(self.scroll, history)
        dirty = emulator.take_dirty()
        view = (self.scroll, emulator.lines, emulator.columns, emulator.alt_screen, history if self.scroll else 0)
        if view != self._view or len(self._rows) != emulator.lines:
            self._rows = [emulator.row(y, self.scroll) for y in range(emulator.lines)]
            self._view = view
        else:
            for y in dirty:
                if 0 <= y < len(self._rows):
                    self._rows[y] = emulator.row(y, self.scroll)
        return self._rows

    def draw(self, canvas: Canvas, inner: Rect, focused: bool) -> None:
        """Paint the view `take_view` left (reads only)."""
        emulator = self.emulator
        rows = self._rows
        right = inner.x + inner.width
        for y in range(min(inner.height, len(rows))):
            canvas.put_spans(inner.x, inner.y + y, rows[y], right)
        if self.scroll:
            label = f" scrollback {self.scroll}/{emulator.history_size} "
            canvas.put(max(right - len(label), inner.x), inner.y, label, SCROLL_LABEL_STYLE, right)
        elif focused and emulator.cursor_visible:
            x, y = self._cursor
            if x < inner.width and y < inner.height:
                canvas.cursor = (inner.x + x, inner.y + y)
