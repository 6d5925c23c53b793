"""Reference screens for differential tests: pyte's, and tmux's own.

A screen is compared as a grid of cells `(text, colours-and-attributes)`, with
colours normalised to hex RGB so that `31`, `38;5;1` and pyte's "red" agree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pyte
from pyte.graphics import FG_BG_256

from laura.render.style import Color, Style
from laura.vt import VirtualTerminal
from tests.helpers.wait import wait_until as wait_until

Cell = tuple[str, tuple]

_PYTE_NAMES = ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]


def _hex(colour: Color) -> str:
    if colour is None:
        return "default"
    if isinstance(colour, int):
        return FG_BG_256[colour]
    return "{:02x}{:02x}{:02x}".format(*colour)


def _pyte_hex(colour: str) -> str:
    if colour == "default":
        return colour
    if colour in _PYTE_NAMES:
        return FG_BG_256[_PYTE_NAMES.index(colour)]
    if colour.startswith("bright") and colour[6:] in _PYTE_NAMES:
        return FG_BG_256[8 + _PYTE_NAMES.index(colour[6:])]
    if colour == "bfightmagenta":  # sic, pyte's table
        return FG_BG_256[13]
    return colour.lower()


def style_key(style: Style, dim: bool = True) -> tuple:
    return (_hex(style.fg), _hex(style.bg), style.bold, style.italic, style.underline,
            style.strike, style.reverse, style.blink) + ((style.dim,) if dim else ())


def grid(vt: VirtualTerminal, dim: bool = True) -> list[list[Cell]]:
    """Our visible screen as cells; a wide character's right half is ''."""
    from laura.vt.width import char_width

    rows = []
    for y in range(vt.lines):
        cells: list[Cell] = []
        for span in vt.row(y):
            key = style_key(span.style, dim)
            for char in span.text:
                width = char_width(char) if not char.isascii() else 1
                if width == 0 and cells:
                    cells[-1] = (cells[-1][0] + char, cells[-1][1])
                elif width == 2:
                    cells += [(char, key), ("", key)]
                elif width == 1:
                    cells.append((char, key))
        blank = (" ", style_key(Style(), dim))
        cells += [blank] * (vt.columns - len(cells))
        rows.append(cells[: vt.columns])
    return rows


def pyte_screen(data: bytes, lines: int, columns: int) -> pyte.Screen:
    screen = pyte.Screen(columns, lines)
    stream = pyte.ByteStream(screen)
    stream.feed(data)
    return screen


def pyte_grid(screen: pyte.Screen) -> list[list[Cell]]:
    rows = []
    for y in range(screen.lines):
        line = screen.buffer[y]
        cells = []
        for x in range(screen.columns):
            c = line[x]
            key = (_pyte_hex(c.fg), _pyte_hex(c.bg), c.bold, c.italics, c.underscore,
                   c.strikethrough, c.reverse, c.blink)
            cells.append((c.data, key))
        rows.append(cells)
    return rows


def text_of(rows: list[list[Cell]]) -> list[str]:
    return ["".join(c[0] for c in row).rstrip() for row in rows]


def ours(data: bytes, lines: int, columns: int, chunk: int = 0) -> VirtualTerminal:
    vt = VirtualTerminal(lines, columns)
    if chunk:
        for i in range(0, len(data), chunk):
            vt.feed(data[i : i + chunk])
    else:
        vt.feed(data)
    assert vt.errors == 0
    return vt


# Bound for waiting on tmux (or laura): a hang guard only, so generous enough
# for a loaded 2-core CI machine; pytest-timeout is the backstop.
WAIT_S = 60.0


class TmuxOracle:
    """A private tmux server (`tmux -L <unique>`) that replays byte streams
    into a pane of a given size and reports what tmux shows."""

    def __init__(self, workdir: Path) -> None:
        self.name = f"lvt-{uuid.uuid4().hex[:10]}"
        self.workdir = workdir
        self.env = dict(os.environ, TMUX="", HOME=str(workdir), XDG_CONFIG_HOME=str(workdir))
        # A session that lives as long as the oracle, so the server does not
        # exit (and race the next replay) whenever a replay's session ends.
        self.tmux("new-session", "-d", "-s", "keep", "sleep 3600")

    def tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.name, "-f", "/dev/null", *args],
                             capture_output=True, text=True, env=self.env, timeout=WAIT_S)
        return out.stdout

    def replay(self, data: bytes, lines: int, columns: int) -> tuple[list[str], list[str], tuple[int, int]]:
        """(plain rows, rows with SGR escapes, cursor) after `data` is written raw
        (no output post-processing) into a `lines`x`columns` pane."""
        source = self.workdir / f"{uuid.uuid4().hex}.bin"
        source.write_bytes(data)
        marker = f"done-{source.stem[:8]}"
        # The title is set after the stream, so once tmux shows it, tmux has
        # parsed everything before it.
        script = f"stty -opost -echo; cat {source}; printf '\\033]2;{marker}\\033\\\\'; exec sleep 600"
        self.tmux("new-session", "-d", "-s", "s" + source.stem[:8], "-x", str(columns),
                  "-y", str(lines), "sh", "-c", script)
        try:
            target = "s" + source.stem[:8]
            wait_until(lambda: self.tmux("display", "-p", "-t", target, "#{pane_title}").strip()
                       == marker, WAIT_S, "tmux to parse the stream")
            plain = self.tmux("capture-pane", "-p", "-t", target)
            escaped = self.tmux("capture-pane", "-p", "-e", "-N", "-t", target)
            cursor = self.tmux("display", "-p", "-t", target, "#{cursor_x} #{cursor_y}")
            x, y = (int(v) for v in cursor.split())
            # tmux reports x == columns while a wrap is pending.
            return plain.split("\n")[:lines], escaped.split("\n")[:lines], (min(x, columns - 1), y)
        finally:
            self.tmux("kill-session", "-t", "s" + source.stem[:8])

    def replay_resized(self, data: bytes, lines: int, columns: int,
                       widths: list[int]) -> list[tuple[list[str], tuple[int, int, int]]]:
        """After replaying `data`, resize the window to each width in turn;
        for each: (plain rows, (cursor x, cursor y, history size))."""
        source = self.workdir / f"{uuid.uuid4().hex}.bin"
        source.write_bytes(data)
        target, marker = "r" + source.stem[:8], f"done-{source.stem[:8]}"
        script = f"stty -opost -echo; cat {source}; printf '\\033]2;{marker}\\033\\\\'; exec sleep 600"
        self.tmux("new-session", "-d", "-s", target, "-x", str(columns), "-y", str(lines),
                  "sh", "-c", script)
        try:
            wait_until(lambda: self.tmux("display", "-p", "-t", target, "#{pane_title}").strip()
                       == marker, WAIT_S, "tmux to parse the stream")
            out = []
            for width in widths:
                self.tmux("resize-window", "-t", target, "-x", str(width), "-y", str(lines))
                wait_until(lambda w=width: self.tmux("display", "-p", "-t", target,
                                                     "#{pane_width}").strip() == str(w),
                           WAIT_S, "tmux to resize")
                rows = self.tmux("capture-pane", "-p", "-t", target).split("\n")[:lines]
                x, y, history = self.tmux("display", "-p", "-t", target,
                                          "#{cursor_x} #{cursor_y} #{history_size}").split()
                out.append(([row.rstrip() for row in rows], (int(x), int(y), int(history))))
            return out
        finally:
            self.tmux("kill-session", "-t", target)

    def close(self) -> None:
        self.tmux("kill-server")


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


def tmux_grid(escaped: list[str], lines: int, columns: int) -> list[list[Cell]]:
    """Cells of a `capture-pane -e -N` capture. Each row is placed with CUP
    (SGR state carries over between rows, as tmux writes it)."""
    vt = VirtualTerminal(lines, columns)
    vt.feed("".join(f"\x1b[{y + 1};1H{row}" for y, row in enumerate(escaped)).encode())
    return grid(vt)
