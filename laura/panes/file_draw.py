"""Painting a file pane's rows: gutter numbers, change markers, the
highlight (lit rows are reverse video across the whole row, every other
row is dimmed, its emoji blanked), the cursor band, and the `+a -d`
stats in the border.

Pure drawing into a `Canvas`; the pane decides which rows and where.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import attrs

from laura.protocol import Rect
from laura.render import theme
from laura.render.canvas import Canvas, text_width
from laura.render.marks import ADDED, MODIFIED, REMOVED
from laura.render.style import Row, Span, Style

GUTTER_STYLE = Style(fg=(110, 110, 110))
LIT_GUTTER_STYLE = Style(fg=(216, 222, 233), bold=True, reverse=True)
PLAIN_GUTTER = Style()
CURSOR_BG = (67, 76, 94)
MARKER_STYLES = {ADDED: theme.MARK_ADDED, MODIFIED: theme.MARK_MODIFIED, REMOVED: theme.MARK_REMOVED}
MARKER_CELL = "▌"


# Colour emoji ignore "faint": in a dimmed row they would outshine the lit one.
_EMOJI = re.compile("[\U0001F000-\U0001FAFF]\uFE0F?|[\u2600-\u27BF\u2B00-\u2BFF]\uFE0F")


# The styles below are made once per style (`attrs.evolve` costs some 4 µs:
# a highlighted screen dims hundreds of spans a frame).
@functools.lru_cache(maxsize=4096)
def dimmed(style: Style) -> Style:
    """How a row outside a highlight looks: faint, no bold, no background."""
    return attrs.evolve(style, dim=True, bold=False, bg=None)


@functools.lru_cache(maxsize=4096)
def _reversed(style: Style) -> Style:
    return attrs.evolve(style, reverse=True)


@functools.lru_cache(maxsize=4096)
def _on(style: Style, background: tuple[int, int, int]) -> Style:
    return attrs.evolve(style, bg=background)


def _blank_emoji(text: str) -> str:
    if text.isascii():
        return text
    return _EMOJI.sub(lambda match: " " * text_width(match.group()), text)


def draw_rows(
    canvas: Canvas,
    inner: Rect,
    rows: Sequence[Row],
    first_index: int,
    *,
    number_width: int,
    lit: range,
    lighting: bool,
    cursor: int | None,
) -> None:
    """Paint `rows` (row `first_index` of the pane at the top of `inner`):
    each with its gutter — the first source line on a range's first row,
    a space, the change marker, a space — then its text. With `lighting`
    (a highlight is set) rows in `lit` are reverse video from the gutter to
    the right edge (the spec's "reverse-videos lines") and the rest are
    dimmed; `cursor` (when the pane has focus) gets the cursor band."""
    right = inner.x + inner.width
    for offset, row in enumerate(rows[: max(inner.height, 0)]):
        index = first_index + offset
        y = inner.y + offset
        is_lit = index in lit
        number = str(row.source[0]) if row.first and row.source else ""
        gutter_style = LIT_GUTTER_STYLE if is_lit and number else GUTTER_STYLE
        x = canvas.put(inner.x, y, number.rjust(number_width), gutter_style, right)
        x = canvas.put(x, y, " ", PLAIN_GUTTER, right)
        marker_style = MARKER_STYLES.get(row.marker)
        marker = MARKER_CELL if marker_style is not None else " "
        x = canvas.put(x, y, marker, marker_style or GUTTER_STYLE, right)
        x = canvas.put(x, y, " ", PLAIN_GUTTER, right)
        spans = row.spans
        if lighting and not is_lit:
            spans = tuple(Span(_blank_emoji(span.text), dimmed(span.style)) for span in spans)
        canvas.put_spans(x, y, spans, right)
        if is_lit:
            _reverse(canvas, Rect(inner.x, y, inner.width, 1))
        if cursor == index:
            _band(canvas, Rect(inner.x, y, inner.width, 1), CURSOR_BG)


def draw_stats(canvas: Canvas, inner: Rect, title_width: int, stats: str) -> None:
    """Colour the `+a -d` a pane's border title ends with (green, red);
    the title starts one cell into the border, after a space."""
    if not stats:
        return
    added, deleted = stats.split(" ")
    x = inner.x + 1 + title_width + 1
    right = inner.x + inner.width
    if x + len(stats) > right:
        return
    x = canvas.put(x, inner.y - 1, added, theme.MARK_ADDED, right)
    canvas.put(x + 1, inner.y - 1, deleted, theme.MARK_REMOVED, right)


def _reverse(canvas: Canvas, band: Rect) -> None:
    row = canvas.rows[band.y]
    for x in range(band.x, min(band.x + band.width, canvas.width)):
        text, style = row[x]
        row[x] = (text, _reversed(style))


def _band(canvas: Canvas, band: Rect, background: tuple[int, int, int]) -> None:
    row = canvas.rows[band.y]
    for x in range(band.x, min(band.x + band.width, canvas.width)):
        text, style = row[x]
        row[x] = (text, _on(style, background))
