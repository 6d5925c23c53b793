"""Terminal cell arithmetic on styled text: width, word wrap and clipping.

Pure functions. Wide (East Asian) characters take two cells, combining marks
none. Prose wraps greedily on spaces (over-long words are split); pre-formatted
lines never wrap, they are clipped to a window with a visible marker.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from laura.render import theme
from laura.render.style import Span, Style

_PIECES = re.compile(r" +|[^ ]+")


@lru_cache(maxsize=4096)
def char_cells(ch: str) -> int:
    """Cells one character takes: 0 (combining, zero-width), 1 or 2."""
    if unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\ufeff":
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def text_cells(text: str) -> int:
    if text.isascii():
        return len(text)
    return sum(char_cells(ch) for ch in text)


def spans_cells(spans: tuple[Span, ...] | list[Span]) -> int:
    return sum(text_cells(span.text) for span in spans)


def _split_at_cells(text: str, cells: int) -> tuple[str, str]:
    """Split `text` so the head takes at most `cells` cells (the head may
    be empty when the first character is wider)."""
    if text.isascii():
        return text[: max(0, cells)], text[max(0, cells) :]
    used = 0
    for index, ch in enumerate(text):
        width = char_cells(ch)
        if used + width > cells:
            return text[:index], text[index:]
        used += width
    return text, ""


def wrap_spans(
    spans: tuple[Span, ...],
    width: int,
    prefix: tuple[Span, ...] = (),
    continuation: tuple[Span, ...] = (),
) -> list[tuple[Span, ...]]:
    """Word-wrap `spans` into rows of at most `width` cells.

    The first row starts with `prefix`, later rows with `continuation` (a
    hanging indent, e.g. under a list bullet). Leading spaces of the first row
    are kept; spaces at a break are dropped; words longer than a row are split.
    Always returns at least one row.
    """
    width = max(1, width)
    if spans_cells(prefix) + spans_cells(spans) <= width:  # the common case: it fits
        return [_merge(tuple(prefix) + tuple(spans))]
    if spans_cells(continuation) > width - 2:  # no room left for text under the hang
        continuation = ()
    # Words may cross spans ("**bold**text"): group non-space fragments.
    words: list[tuple[bool, list[tuple[str, Style]]]] = []
    for span in spans:
        for piece in _PIECES.findall(span.text):
            is_space = piece[0] == " "
            if words and words[-1][0] == is_space:
                words[-1][1].append((piece, span.style))
            else:
                words.append((is_space, [(piece, span.style)]))

    rows: list[tuple[Span, ...]] = []
    row: list[Span] = list(prefix)
    lead = len(row)
    used = start = spans_cells(prefix)
    has_text = False

    def flush() -> None:
        nonlocal row, lead, used, start, has_text
        if has_text:
            while len(row) > lead and row[-1].text.strip(" ") == "":
                row.pop()
            if len(row) > lead:
                row[-1] = Span(row[-1].text.rstrip(" "), row[-1].style)
        rows.append(tuple(row))
        row = list(continuation)
        lead = len(row)
        used = start = spans_cells(continuation)
        has_text = False

    for is_space, fragments in words:
        cells = sum(text_cells(text) for text, _ in fragments)
        if is_space:
            if has_text or not rows:
                if used + cells <= width:
                    row.extend(Span(t, s) for t, s in fragments)
                    used += cells
                else:
                    flush()
            continue
        if used + cells > width and has_text:
            flush()
        for text, style in fragments:
            while text:
                head, rest = _split_at_cells(text, width - used)
                if not head:
                    if used > start:  # start a new row and try again
                        flush()
                        continue
                    head, rest = text[:1], text[1:]  # wider than a row: place anyway
                text = rest
                row.append(Span(head, style))
                used += text_cells(head)
                has_text = True
    flush()
    return [_merge(r) for r in rows]


def _merge(spans: tuple[Span, ...]) -> tuple[Span, ...]:
    """Join neighbouring spans of one style (fewer, longer runs to draw)."""
    merged: list[Span] = []
    for span in spans:
        if not span.text:
            continue
        if merged and merged[-1].style == span.style:
            merged[-1] = Span(merged[-1].text + span.text, span.style)
        else:
            merged.append(span)
    return tuple(merged)


def clip_spans(spans: tuple[Span, ...], width: int, offset: int = 0) -> tuple[Span, ...]:
    """The cells [offset, offset + width) of a pre-formatted line.

    When text continues past the right edge the last cell shows a dim `›`;
    when scrolled right past text, the first cell shows a dim `‹`. A wide
    character cut by an edge becomes a space.
    """
    width = max(1, width)
    offset = max(0, offset)
    total = spans_cells(spans)
    if offset == 0 and total <= width:
        return spans
    left_mark = offset > 0 and total > 0
    right_mark = total > offset + width
    start = offset + (1 if left_mark else 0)
    stop = offset + width - (1 if right_mark else 0)
    out: list[Span] = [Span("‹", theme.CLIP)] if left_mark else []
    position = 0
    for span in spans:
        text = span.text
        cells = text_cells(text)
        end = position + cells
        if end <= start or position >= stop:
            position = end
            continue
        if text.isascii():
            piece = text[max(0, start - position) : stop - position]
        else:
            chars: list[str] = []
            at = position
            for ch in text:
                w = char_cells(ch)
                if at >= start and at + w <= stop:
                    chars.append(ch)
                elif at < stop and at + w > start:
                    chars.append(" " * (min(at + w, stop) - max(at, start)))
                at += w
            piece = "".join(chars)
        out.append(Span(piece, span.style))
        position = end
    if right_mark:
        out.append(Span(theme.CLIP_MARK, theme.CLIP))
    return _merge(tuple(out))
