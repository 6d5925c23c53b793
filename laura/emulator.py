"""The seam between Laura's shell pane and a VT emulator.

The host feeds the child's bytes in and draws rows out; it needs nothing
else. pyte stood here first; `laura.vt` is the fast emulator behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple, Protocol

from laura.render.style import Span

# Called with bytes the emulator must send back to the child (answers to DSR
# `CSI 6n`, DA `CSI c`). The host writes them to the PTY.
ReplyFn = Callable[[bytes], None]


class Alert(NamedTuple):
    """Something the child wants the person to notice: a `bell` (BEL), or a
    `notify` (OSC 9, or OSC 777;notify) whose `text` is printable and capped."""

    kind: Literal["bell", "notify"]
    text: str = ""


class Emulator(Protocol):
    columns: int
    lines: int

    def feed(self, data: bytes) -> None:
        """Parse output bytes; a UTF-8 sequence or escape may be split across calls."""
        ...

    def resize(self, lines: int, columns: int) -> None: ...

    def row(self, y: int, scroll: int = 0) -> tuple[Span, ...]:
        """The spans of visible row `y` (0-based) when the view is scrolled
        back `scroll` lines into the history (0 = live). Trailing blanks may
        be omitted."""
        ...

    @property
    def history_size(self) -> int:
        """Lines of scrollback available (0 on the alternate screen)."""
        ...

    def take_alerts(self) -> list[Alert]:
        """Bells and notifications since the last call, oldest first."""
        ...

    # The alerts `take_alerts` would return now (read only).
    alerts: list[Alert]

    def take_dirty(self) -> set[int]:
        """Rows changed since the last call (all rows after a resize or scroll)."""
        ...

    @property
    def cursor(self) -> tuple[int, int]:
        """(x, y), 0-based, always inside the screen."""
        ...

    cursor_visible: bool
    title: str
    alt_screen: bool
    bracketed_paste: bool
    app_cursor_keys: bool
    # xterm mouse tracking: 0 (off), 1000, 1002 or 1003; sgr_mouse for 1006.
    mouse_tracking: int
    sgr_mouse: bool
    # DECSET 1004: the child wants CSI I / CSI O when its pane gains or loses focus.
    focus_reporting: bool
    # DECSET 2026: the child is drawing a frame; hold its screen until it ends.
    synchronized: bool
