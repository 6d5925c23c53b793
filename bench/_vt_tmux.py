"""Shared by bench/laura_emulator.py: what tmux must be given, and how its
capture is read, so that tmux's final screen can be compared with laura.vt's
where the two may legitimately differ.

laura.vt follows xterm (hosted programs see TERM=xterm-256color). On these
inputs tmux 3.3a differs from xterm on purpose or by its own limits, so the
tmux side gets the equivalent input (`tmux_equivalent`) and laura's screen
the same stand-ins (`laura_view`):

- Malformed UTF-8: xterm and laura.vt draw U+FFFD, tmux drops the bytes.
  tmux gets the input decoded with U+FFFD in their place.
- A character that is not ASCII inside an escape or control sequence: xterm
  (and laura.vt) abandon the sequence and draw nothing; tmux skips the byte
  and goes on with the sequence. tmux gets a CAN in its place.
- `ESC k ... ST`: screen's window title, which only tmux knows (xterm
  ignores ESC k and draws what follows). tmux gets `ESC CAN`.
- DCS: tmux passes it through to the outer terminal and ends it only at ST;
  xterm (and laura.vt) end it at any ESC, CAN or SUB. tmux gets an ST in
  front of those.
- Characters whose width glibc's wcwidth (tmux's) and laura.vt's table
  (Python's unicodedata) disagree on: unassigned code points, which tmux
  3.3a drops (wcwidth -1), and a few blocks the two Unicode versions size
  differently. Both sides get U+FFFD in each of laura's cells.
- `capture-pane -p` shows a DEC line-drawing cell as the ASCII it was
  written as; laura.vt keeps the drawn character. The capture is taken with
  `-e` (which marks those cells with SO/SI) and translated with the same
  table (`plain_capture`).

Not made equivalent (it depends on where the cursor is): BS or CUB from a
pending wrap moves from the last column in xterm and laura.vt, from one past
it in tmux (docs/laura-vt.md). The bench's inputs do not end on it at
200x50; other sizes and seeds can, and then differ in that one cell.

Not a benchmark itself (`make bench` runs it and it says so). Pure
computation; nothing to cancel.
"""

from __future__ import annotations

import codecs
import ctypes
import functools
import re
from collections.abc import Callable

from laura.vt.core import _DEC_GRAPHICS
from laura.vt.width import char_width

_CAN = "\x18"
_LC_CTYPE = 0
_SGR = re.compile("\x1b\\[[0-9;:]*m")
_LINE_DRAWING = re.compile("\x0e([^\x0f]*)\x0f?")


@functools.cache
def _wcwidth() -> Callable[[int], int]:
    """glibc's wcwidth in a UTF-8 locale, as tmux measures characters."""
    libc = ctypes.CDLL(None)
    if not libc.setlocale(_LC_CTYPE, b"C.UTF-8"):
        raise RuntimeError("no C.UTF-8 locale: glibc's widths are not known")
    wcwidth: Callable[[int], int] = libc.wcwidth
    return wcwidth


@functools.cache
def _stand_in(char: str) -> str | None:
    """U+FFFD in each of laura's cells for `char` when tmux's width for it
    differs from laura's; None when they agree."""
    if ord(char) < 0xA0:
        return None
    ours = char_width(char)
    if _wcwidth()(ord(char)) == ours:
        return None
    return "\ufffd" * ours


def laura_view(rows: list[str]) -> list[str]:
    """laura's rows with the same stand-ins tmux was given."""
    out = []
    for row in rows:
        if not row.isascii():
            row = "".join(char if (s := _stand_in(char)) is None else s for char in row)
        out.append(row)
    return out


def tmux_equivalent(data: bytes) -> bytes:
    """`data` rewritten so that tmux draws what xterm and laura.vt draw
    (see the module docstring); ASCII without ESC k or DCS is unchanged."""
    if data.isascii() and b"\x1bk" not in data and b"\x1bP" not in data:
        return data
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(data)
    out: list[str] = []
    put = out.append
    # ground, escape (after ESC and its intermediates), csi, string (OSC,
    # APC, SOS, PM), dcs
    state = "ground"
    intermediates = False
    for char in text:
        code = ord(char)
        if state == "ground":
            if char == "\x1b":
                state, intermediates = "escape", False
            elif code >= 0xA0 and (stand_in := _stand_in(char)) is not None:
                char = stand_in
            put(char)
            continue
        if state == "dcs" and char in "\x1b\x18\x1a":
            put("\x1b\\")  # where xterm ends the DCS
            state = "ground"
        if char in "\x18\x1a":
            state = "ground"
        elif char == "\x1b":
            state, intermediates = "escape", False
        elif state in ("string", "dcs"):
            if char == "\x07" and state == "string":
                state = "ground"
        elif code < 0x20 or 0x7F <= code < 0xA0:
            pass  # a control acts (or DEL, C1 are skipped) and the sequence goes on
        elif code > 0x7F:
            char, state = _CAN, "ground"  # xterm abandons the sequence
        elif state == "escape":
            if code < 0x30:
                intermediates = True
            elif intermediates:
                state = "ground"
            elif char == "k":
                char, state = _CAN, "ground"
            else:
                state = {"[": "csi", "]": "string", "X": "string", "^": "string",
                         "_": "string", "P": "dcs"}.get(char, "ground")
        elif 0x40 <= code <= 0x7E:  # csi final byte
            state = "ground"
        put(char)
    return "".join(out).encode("utf-8", "surrogatepass")


def plain_capture(escaped: str) -> list[str]:
    """Rows of a `capture-pane -p -e` capture as laura.vt shows them: SGR
    dropped, line-drawing cells (between SO and SI) translated."""
    text = _SGR.sub("", escaped)
    if "\x0e" in text:
        text = _LINE_DRAWING.sub(lambda m: m.group(1).translate(_DEC_GRAPHICS), text)
    return text.split("\n")


if __name__ == "__main__":
    print("bench/_vt_tmux.py is bench/laura_emulator.py's helper module; nothing to measure")
