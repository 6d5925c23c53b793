"""A grid of styled cells and the escape output that turns one frame into the next.

Each frame is drawn whole into a fresh `Canvas`; `frame_diff` compares it
with the frame on screen and writes only the cells that changed (per row, the
span from the first to the last differing cell). Pure: no terminal, no trio.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import compress, repeat
from typing import cast

from wcwidth import wcwidth

from laura.protocol import Rect
from laura.render.style import PLAIN, Color, Span, Style

# A cell is (text, style); the right half of a wide character holds "".
Cell = tuple[str, Style]
BLANK: Cell = (" ", PLAIN)


@lru_cache(maxsize=4096)
def char_width(char: str) -> int:
    """Cells `char` takes: 0 for combining marks, 2 for wide characters."""
    if " " <= char < "\x7f":
        return 1
    width = wcwidth(char)
    return 1 if width < 0 else width


def visible_control(char: str) -> str:
    """The symbol drawn for a control character, which must never reach the
    terminal raw: a file name or an agent's text could otherwise carry escape
    sequences into the user's terminal. C0 and DEL get their Unicode control
    pictures (ESC shows as ␛), C1 the replacement character."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def _is_control(char: str) -> bool:
    return char < " " or "\x7f" <= char <= "\x9f"


# The width of each character `put` met, for laying a text down without a
# call per character. Bounded; cleared when full.
_WIDTHS: dict[str, int] = {}
_WIDTHS_LIMIT = 100_000


def _widths(text: str) -> list[int] | None:
    """`char_width` of each character of `text`, or None if one is a
    control (drawn as a symbol: `put` goes character by character)."""
    found = list(map(_WIDTHS.get, text))
    if None not in found:
        return cast(list[int], found)
    if len(_WIDTHS) > _WIDTHS_LIMIT:
        _WIDTHS.clear()
    for char in set(text):
        if char not in _WIDTHS:
            if _is_control(char):
                return None
            _WIDTHS[char] = char_width(char)
    return list(map(_WIDTHS.__getitem__, text))


def _lay_down(row: list[Cell], x: int, end: int, text: str, widths: list[int], style: Style) -> None:
    """Write `text` (no control, `widths` its characters' widths) into
    row[x:end] as `Canvas.put` does character by character."""
    if 0 not in widths:
        cells = list(zip(text, repeat(style)))
        if end - x != len(text):  # the right halves of wide characters
            for at in reversed(list(compress(range(len(text)), map((2).__eq__, widths)))):
                cells.insert(at + 1, ("", style))
    else:
        cells = []
        for char, width in zip(text, widths, strict=True):
            if width:
                cells.append((char, style))
                if width == 2:
                    cells.append(("", style))
            elif cells:  # a combining mark joins the cell before
                previous, previous_style = cells[-1]
                cells[-1] = (previous + char, previous_style)
            elif x > 0:
                previous, previous_style = row[x - 1]
                row[x - 1] = (previous + char, previous_style)
    row[x:end] = cells


def text_width(text: str) -> int:
    return sum(char_width(char) for char in text)


class Canvas:
    """A width x height grid of cells, drawn into by the panes."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.rows: list[list[Cell]] = [[BLANK] * width for _ in range(height)]
        self.cursor: tuple[int, int] | None = None  # where the terminal cursor shows

    def put(self, x: int, y: int, text: str, style: Style = PLAIN, right: int | None = None) -> int:
        """Write `text` from (x, y), clipped at column `right` (exclusive,
        default the canvas edge); returns the column after the last cell."""
        if not 0 <= y < self.height:
            return x
        limit = self.width if right is None else min(right, self.width)
        row = self.rows[y]
        if x >= 0 and text.isascii() and text.isprintable():
            # The common case, one slice assignment instead of a loop per cell.
            end = min(x + len(text), limit)
            if end > x:
                row[x:end] = zip(text[: end - x], repeat(style))
            return max(end, x)
        widths = _widths(text) if x >= 0 else None
        if widths is not None:
            end = x + sum(widths)
            if end <= limit:  # it all fits: as the loop below, without calls per character
                _lay_down(row, x, end, text, widths, style)
                return end
        for char in text:
            if _is_control(char):
                char = visible_control(char)
            width = char_width(char)
            if width == 0:
                if x > 0 and x - 1 < limit:
                    previous, previous_style = row[x - 1]
                    row[x - 1] = (previous + char, previous_style)
                continue
            if x + width > limit:
                if width == 2 and x < limit:
                    row[x] = (" ", style)
                return limit
            if x >= 0:
                row[x] = (char, style)
                if width == 2:
                    row[x + 1] = ("", style)
            x += width
        return x

    def put_spans(self, x: int, y: int, spans: tuple[Span, ...] | list[Span], right: int) -> int:
        for span in spans:
            x = self.put(x, y, span.text, span.style, right)
            if x >= right:
                break
        return x

    def fill(self, rect: Rect, char: str = " ", style: Style = PLAIN) -> None:
        for y in range(max(rect.y, 0), min(rect.y + rect.height, self.height)):
            row = self.rows[y]
            for x in range(max(rect.x, 0), min(rect.x + rect.width, self.width)):
                row[x] = (char, style)

    def restyle(self, rect: Rect, style: Style) -> None:
        """Give every cell in `rect` `style`, keeping its text."""
        for y in range(max(rect.y, 0), min(rect.y + rect.height, self.height)):
            row = self.rows[y]
            for x in range(max(rect.x, 0), min(rect.x + rect.width, self.width)):
                row[x] = (row[x][0], style)

    def same_as(self, other: Canvas) -> bool:
        """Whether `other` shows exactly this: same size, cells and cursor."""
        return (
            (self.width, self.height, self.cursor) == (other.width, other.height, other.cursor)
            and self.rows == other.rows
        )

    def text(self) -> list[str]:
        """The plain text of every row (for tests and debugging)."""
        return ["".join(cell[0] for cell in row) for row in self.rows]


def _colour(color: Color, base: int) -> str:
    # base 30 for foreground, 40 for background
    if color is None:
        return str(base + 9)
    if isinstance(color, tuple):
        r, g, b = color
        return f"{base + 8};2;{r};{g};{b}"
    if color < 8:
        return str(base + color)
    if color < 16:
        return str(base + 60 + color - 8)
    return f"{base + 8};5;{color}"


@lru_cache(maxsize=1024)
def sgr(style: Style) -> str:
    """The SGR sequence that sets exactly `style` (from a reset)."""
    attributes = (
        (style.bold, "1"),
        (style.dim, "2"),
        (style.italic, "3"),
        (style.underline, "4"),
        (style.blink, "5"),
        (style.reverse, "7"),
        (style.strike, "9"),
    )
    codes = ["0", *(code for on, code in attributes if on)]
    if style.fg is not None:
        codes.append(_colour(style.fg, 30))
    if style.bg is not None:
        codes.append(_colour(style.bg, 40))
    return "\x1b[" + ";".join(codes) + "m"


def hyperlink(target: str | None) -> str:
    """OSC 8 opening a link to `target` (already checked printable ASCII by
    the emulator), or closing the open one when None."""
    return f"\x1b]8;;{target or ''}\x1b\\"


def frame_diff(previous: Canvas | None, current: Canvas) -> str:
    """Escape output that turns the screen showing `previous` (None: unknown,
    redraw everything) into `current`, leaving the cursor where `current`
    wants it (hidden when it wants none)."""
    out: list[str] = ["\x1b[?25l"]
    full = previous is None or (previous.width, previous.height) != (current.width, current.height)
    if full:
        out.append("\x1b[0m\x1b[2J")
    active: Style | None = None
    link: str | None = None  # the OSC 8 hyperlink open in the outer terminal
    for y, row in enumerate(current.rows):
        old = None if full or previous is None else previous.rows[y]
        if old == row:
            continue
        start, end = 0, len(row)
        if old is not None:
            while start < end and old[start] == row[start]:
                start += 1
            while end > start and old[end - 1] == row[end - 1]:
                end -= 1
        # Never start on the right half of a wide character.
        while start > 0 and row[start][0] == "":
            start -= 1
        out.append(f"\x1b[{y + 1};{start + 1}H")
        for text, style in row[start:end]:
            if text == "":
                continue
            if style is not active:
                out.append(sgr(style))
                active = style
                if style.link != link:
                    link = style.link
                    out.append(hyperlink(link))
            out.append(text)
    if link is not None:
        out.append(hyperlink(None))
    out.append("\x1b[0m")
    if current.cursor is not None:
        x, y = current.cursor
        out.append(f"\x1b[{y + 1};{x + 1}H\x1b[?25h")
    return "".join(out)
