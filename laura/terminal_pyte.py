"""A pyte-backed `Emulator` (laura/emulator.py) for the shell pane.

pyte parses the child's output; this adapter adds what pyte lacks: a
scrollback kept by reference (the line objects pyte scrolls off the top, so
no copying), the alternate screen (DEC modes 47/1047/1049), and the mode
flags the host reads (mouse tracking, SGR mouse, bracketed paste, cursor
keys). Answers to DSR/DA go out through the reply callback.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import pyte
from pyte.screens import Margins

from laura.emulator import ReplyFn
from laura.render.style import Color, Span, Style

SCROLLBACK = 10_000

_NAMED = {
    "black": 0,
    "red": 1,
    "green": 2,
    "brown": 3,
    "yellow": 3,
    "blue": 4,
    "magenta": 5,
    "cyan": 6,
    "white": 7,
}
_ALT_MODES = {47, 1047, 1049}
_MOUSE_MODES = {1000, 1002, 1003}


def _colour(name: str) -> Color:
    if name == "default":
        return None
    if name.startswith("bright") and name[6:] in _NAMED:
        return _NAMED[name[6:]] + 8
    if name in _NAMED:
        return _NAMED[name]
    try:
        return (int(name[0:2], 16), int(name[2:4], 16), int(name[4:6], 16))
    except ValueError:
        return None


class _Screen(pyte.Screen):
    """pyte's Screen plus scrollback, alternate screen and mode flags."""

    def __init__(self, columns: int, lines: int, reply: ReplyFn) -> None:
        self.history: deque[Any] = deque(maxlen=SCROLLBACK)
        self.alt_screen = False
        self.mouse_tracking = 0
        self.sgr_mouse = False
        self.bracketed_paste = False
        self.app_cursor_keys = False
        self.title_text = ""
        self._reply = reply
        self._saved_main: Any = None
        super().__init__(columns, lines)

    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if self.cursor.y == bottom and top == 0 and not self.alt_screen:
            # pyte moves line objects up; the one leaving the top is ours to keep.
            self.history.append(self.buffer[top])
        super().index()

    def set_title(self, param: str) -> None:
        self.title_text = param
        super().set_title(param)

    def write_process_input(self, data: str) -> None:
        self._reply(data.encode())

    def _private(self, modes: tuple[int, ...], on: bool) -> None:
        for mode in modes:
            if mode in _ALT_MODES:
                self._switch_alt(on, save_cursor=mode == 1049)
            elif mode in _MOUSE_MODES:
                self.mouse_tracking = mode if on else 0
            elif mode == 1006:
                self.sgr_mouse = on
            elif mode == 2004:
                self.bracketed_paste = on
            elif mode == 1:
                self.app_cursor_keys = on

    def _switch_alt(self, on: bool, save_cursor: bool) -> None:
        if on == self.alt_screen:
            return
        if on:
            if save_cursor:
                self.save_cursor()
            self._saved_main = self.buffer
            self.buffer = type(self.buffer)(self.buffer.default_factory)  # type: ignore[attr-defined]
        else:
            self.buffer = self._saved_main
            self._saved_main = None
            if save_cursor:
                self.restore_cursor()
        self.alt_screen = on
        self.dirty.update(range(self.lines))

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private"):
            self._private(modes, True)
        super().set_mode(*modes, **kwargs)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        if kwargs.get("private"):
            self._private(modes, False)
        super().reset_mode(*modes, **kwargs)


class PyteEmulator:
    """The `Emulator` protocol over pyte (slow: about 1 MB/s)."""

    columns: int
    lines: int
    cursor_visible: bool
    title: str
    alt_screen: bool
    bracketed_paste: bool
    app_cursor_keys: bool
    mouse_tracking: int
    sgr_mouse: bool

    def __init__(self, lines: int, columns: int, reply: ReplyFn) -> None:
        self._screen = _Screen(max(2, columns), max(1, lines), reply)
        self._stream = pyte.ByteStream(self._screen)
        self._styles: dict[tuple[Any, ...], Style] = {}
        self._sync_flags()

    def feed(self, data: bytes) -> None:
        self._stream.feed(data)
        self._sync_flags()

    def resize(self, lines: int, columns: int) -> None:
        self._screen.resize(max(1, lines), max(2, columns))
        self._screen.dirty.update(range(self._screen.lines))
        self._sync_flags()

    def _style(self, char: Any) -> Style:
        key = char[1:]
        style = self._styles.get(key)
        if style is None:
            fg, bg, bold, italics, underscore, strike, reverse, blink = key
            style = Style(
                fg=_colour(fg),
                bg=_colour(bg),
                bold=bold,
                italic=italics,
                underline=underscore,
                strike=strike,
                reverse=reverse,
                blink=blink,
            )
            self._styles[key] = style
        return style

    def _line(self, y: int, scroll: int) -> Any:
        screen = self._screen
        if scroll <= 0 or screen.alt_screen:
            return screen.buffer[y]
        history = screen.history
        index = len(history) - min(scroll, len(history)) + y
        return history[index] if index < len(history) else screen.buffer[index - len(history)]

    def row(self, y: int, scroll: int = 0) -> tuple[Span, ...]:
        line = self._line(y, scroll)
        if not line:
            return ()
        spans: list[Span] = []
        text: list[str] = []
        current: tuple[Any, ...] | None = None
        last = max(line) if line else -1
        for x in range(min(last + 1, self._screen.columns)):
            char = line[x]
            key = char[1:]
            if key != current:
                if text and current is not None:
                    spans.append(Span("".join(text), self._style(line[x - len(text)])))
                text = []
                current = key
            text.append(char[0])
        if text and current is not None:
            spans.append(Span("".join(text), self._style(line[last])))
        return tuple(spans)

    @property
    def history_size(self) -> int:
        return 0 if self._screen.alt_screen else len(self._screen.history)

    def take_dirty(self) -> set[int]:
        dirty = set(self._screen.dirty)
        self._screen.dirty.clear()
        return dirty

    @property
    def cursor(self) -> tuple[int, int]:
        screen = self._screen
        return (min(screen.cursor.x, screen.columns - 1), min(screen.cursor.y, screen.lines - 1))

    def _sync_flags(self) -> None:
        # The Emulator protocol exposes plain attributes; refresh them after
        # every change so readers never reach into pyte.
        screen = self._screen
        self.columns = int(screen.columns)
        self.lines = int(screen.lines)
        self.cursor_visible = not screen.cursor.hidden
        self.title = screen.title_text
        self.alt_screen = screen.alt_screen
        self.bracketed_paste = screen.bracketed_paste
        self.app_cursor_keys = screen.app_cursor_keys
        self.mouse_tracking = screen.mouse_tracking
        self.sgr_mouse = screen.sgr_mouse
