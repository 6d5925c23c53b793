"""The live region: the bounded rows at the bottom of the terminal that are
redrawn, and the scrollback above them that is only ever appended to. Pure.

`LiveRegion.frame(rows, cursor, commits)` returns the bytes that bring the
screen from the previous frame to this one: lines in `commits` are written
once above the live region (into the terminal's own scrollback) and never
touched again; of the live rows, only those that changed are rewritten, and
a row that only grew gets just its new tail. It never sends ESC[3J and never
clears above the live region. Every frame is wrapped in synchronized output
(DEC mode 2026) when `synchronized` is set.

Rows are already rendered terminal text no wider than the terminal; the
cursor is (row, column) inside the region, where the editor's cursor is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from luxe.frontends.tui.text import cell_width
from luxe.record import state

SYNC_BEGIN = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def visible(row: str) -> str:
    return _ESCAPE.sub("", row)


def _up(n: int) -> str:
    return f"\x1b[{n}A" if n > 1 else "\x1b[A" if n == 1 else ""


def _down(n: int) -> str:
    return f"\x1b[{n}B" if n > 1 else "\x1b[B" if n == 1 else ""


def _column(col: int) -> str:
    return "\r" + (f"\x1b[{col}C" if col > 0 else "")


def _grown_tail(old: str, new: str) -> tuple[int, str] | None:
    """When `new` is `old` plus more text in the same style, the column to
    write from and what to write there (the SGR in force first)."""
    if not new.startswith(old) or old == new:
        return None
    # The old row must not end inside a styled span that `new` continues:
    # spans close with a reset, so cut back to the last reset or plain text.
    cut = len(old)
    last_open = None
    for m in _SGR.finditer(old):
        last_open = None if m.group() in ("\x1b[0m", "\x1b[m") else m.group()
    if last_open is not None and not old.endswith("\x1b[0m"):
        # Inside a span: re-open its style before the new tail.
        return cell_width(visible(old)), last_open + new[cut:]
    return cell_width(visible(old)), new[cut:]


@state
class LiveRegion:
    """What is on screen below the scrollback (the previous frame)."""

    rows: list[str] = attrs.Factory(list)
    cursor: tuple[int, int] = (0, 0)
    synchronized: bool = True
    # Rows on screen from the top of the region (>= len(rows) after a shrink).
    _drawn: int = 0
    # Set by a resize: the width the terminal has rewrapped the rows to.
    _reflow_width: int | None = None

    def frame(
        self, rows: Sequence[str], cursor: tuple[int, int], commits: Sequence[str] = ()
    ) -> str:
        """The bytes to draw this frame; remembers it as the previous one."""
        out: list[str] = []
        at = self.cursor[0]
        previous = self.rows
        if self._reflow_width is not None:
            # After a resize: up to the region's top as the terminal has
            # rewrapped it, blank it row by row, and draw it all again.
            above, total = self._rewrapped(self._reflow_width)
            self._reflow_width = None
            out.append(_up(above) + self._clear(0, total))
            at, previous, self._drawn = 0, [], total
        if commits:
            out.append(_up(at) + self._clear(0, self._drawn))
            out.extend(line + "\x1b[0m\r\n" for line in commits)
            at, previous, self._drawn = 0, [], 0
        leftover = self._drawn > len(rows)
        for i, row in enumerate(rows):
            if i < len(previous) and previous[i] == row:
                continue
            out.append(self._move(at, i))
            at = i
            tail = _grown_tail(previous[i], row) if i < len(previous) else None
            if tail is not None:
                out.append(_column(tail[0]) + tail[1])
            else:
                out.append("\r\x1b[K" + row)
        if leftover:
            # Rows left from a taller frame are on screen below: clear them.
            out.append(self._move(at, len(rows)))
            out.append(self._clear(len(rows), self._drawn))
            at = len(rows)
        self._drawn = len(rows)
        out.append(self._move(at, cursor[0]))
        out.append(_column(cursor[1]))
        self.rows = list(rows)
        self.cursor = cursor
        body = "".join(out)
        if self.synchronized:
            return SYNC_BEGIN + body + SYNC_END
        return body

    @staticmethod
    def _clear(start: int, end: int) -> str:
        """Blank rows start..end-1 of the region, from row `start` (col 0),
        ending back there. Row by row: an erase-below at the screen's top
        left would make tmux push the whole screen into its history. Back
        by the saved cursor (DECSC/DECRC), not by counting rows up: after a
        shrink some of those rows are past the screen's bottom, where the
        moves down stop, and as many moves up would end above `start`."""
        count = end - start
        if count <= 0:
            return "\r"
        return "\r\x1b7" + "\x1b[B".join(["\x1b[2K"] * count) + "\x1b8"

    def _move(self, at: int, to: int) -> str:
        if to <= at:
            return _up(at - to)
        # Rows already on screen are reached by cursor moves; new rows below
        # them by newlines, which scroll the terminal when at its bottom.
        on_screen = max(self._drawn - 1, at)
        down = min(to, on_screen) - at
        newlines = to - max(on_screen, at)
        self._drawn = max(self._drawn, to + 1)
        return _down(down) + "\r\n" * newlines

    def erase(self) -> str:
        """Bytes that remove the live region (the cursor ends where it began),
        for exit and suspend: the scrollback above stays as it is."""
        text = _up(self.cursor[0]) + self._clear(0, max(self._drawn, len(self.rows)))
        self.forget()
        return text

    def forget(self) -> None:
        """Treat the screen as holding no live region (after erase/redraw)."""
        self.rows, self.cursor, self._drawn = [], (0, 0), 0

    def reflowed(self, width: int) -> None:
        """After a resize to `width`: a reflowing terminal (tmux, Laura) has
        rewrapped the rows; the next frame goes up to the region's top as
        rewrapped and redraws it whole. Any number of resizes may come
        before that frame: only the last width counts."""
        self._reflow_width = max(width, 1)

    def _rewrapped(self, width: int) -> tuple[int, int]:
        """(rows above the cursor, rows in all) once the rows wrap at `width`."""
        row, col = self.cursor
        heights = [max(1, -(-cell_width(visible(r)) // width)) for r in self.rows]
        above = sum(heights[:row]) + (col // width if row < len(self.rows) else 0)
        return above, max(sum(heights), above + 1, self._drawn)

    @property
    def height(self) -> int:
        return len(self.rows)
