"""A VirtualTerminal's whole state as one value to compare: two ways of
feeding the same bytes must leave equal `vt_state`s."""

from __future__ import annotations

from laura.vt import VirtualTerminal
from laura.vt.line import Line


def _line(line: Line) -> tuple:
    # Style runs as drawn: equal neighbours merged, empty ones dropped.
    return line.text, line.spans(10_000), line.wrapped, line.marks


def vt_state(vt: VirtualTerminal) -> tuple:
    return (
        [_line(line) for line in vt.history],
        [_line(line) for line in vt.main_buffer],
        [_line(line) for line in vt.alt_buffer],
        vt.alt_screen, vt.x, vt.y, vt.style, vt.top, vt.bottom, vt.autowrap, vt.origin,
        vt.insert_mode, vt.newline_mode, vt.charsets, vt.shift, vt._last_char,
        sorted(vt.tabstops), vt.title, vt.alerts, vt.errors,
    )
