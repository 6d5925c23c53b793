"""Terminal cell arithmetic on styled text: width, word wrap and clipping.

Pure functions. Wide (East Asian) characters take two cells, combining marks
none. Prose wraps greedily on spaces (over-long words are split); pre-formatted
lines never wrap, they are clipped to a window with a visible marker.
"""

from __future__ import annotations

import re

from laura.render import theme
from laura.render.canvas import char_width
from laura.render.style import Span

_PIECES = re.compile(r" +|[^ ]+")


def char_cells(ch: str) -> int:
    """Cells one character takes: 0 (combining, zero-width), 1 or 2 — the
    canvas's own rule, so what wraps here fits there."""
    return char_width(ch)


def text_cells(text: str) -> int:
    if text.isascii():
        return len(text)
    return sum(char_cells(ch) for ch in text)


def spans_cells(spans: tuple[Span, ...] | list[Span]) -> int:
    return sum(text_cells(span.text) for span in spans)


def _cut(text: str, start: int, stop: int, cells: int, ascii_: bool) -> tuple[int, int]:
    """The end of the longest run text[start:end] (end <= stop) that takes
    at most `cells` cells (`start` itself when the first character is
    wider), and the cells it takes. Looks at no more of the text than that
    run and one character: a word of megabytes is split in time linear in
    its length."""
    if ascii_:
        end = min(stop, start + max(0, cells))
        return end, end - start
    used = 0
    for index in range(start, stop):
        width = char_cells(text[index])
        if used + width > cells:
            return index, used
        used += width
    return stop, used


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
        return [_merge(tuple(prefix) + tuple(spans) if prefix else spans)]
    if spans_cells(continuation) > width - 2:  # no room left for text under the hang
        continuation = ()
    text = "".join(span.text for span in spans)
    cuts = _row_cuts(text, width - spans_cells(prefix), width - spans_cells(continuation))
    rows: list[tuple[Span, ...]] = []
    pieces = _Slicer(spans)
    for index, (start, end) in enumerate(cuts):
        lead = prefix if index == 0 else continuation
        rows.append(_merge(tuple(lead) + pieces.take(start, end)))
    return rows


def wrap_count(text: str, width: int) -> int:
    """How many rows `wrap_spans` makes of `text` at `width`, with no prefix
    or hang (the same cuts, without making the rows: a third of the time)."""
    width = max(1, width)
    if text_cells(text) <= width:
        return 1
    return len(_row_cuts(text, width, width))


def _row_cuts(text: str, first: int, rest: int) -> list[tuple[int, int]]:
    """Greedy word wrap of `text` as (start, end) character offsets per row:
    `first` cells on the first row, `rest` on the others."""
    cuts: list[tuple[int, int]] = []
    start = end = used = 0
    room = max(1, first)
    has_text = False

    def close(next_start: int) -> None:
        nonlocal start, end, used, room, has_text
        cuts.append((start, end if has_text else start))
        start = end = next_start
        used = 0
        room = max(1, rest)
        has_text = False

    for match in _PIECES.finditer(text):
        piece = match.group()
        begin, finish = match.span()
        cells = text_cells(piece)
        if piece[0] == " ":
            if not has_text and cuts:  # spaces opening a continuation row
                start = end = finish
            elif used + cells <= room:
                used += cells
                if not has_text:
                    end = finish  # the first row's indentation is kept
            else:
                close(finish)
            continue
        if used + cells > room and has_text:
            close(begin)
        if used + cells <= room:
            if not has_text:
                start = start if start < begin and not cuts else begin
            used += cells
            end = finish
            has_text = True
            continue
        position = begin
        ascii_word = piece.isascii()
        while position < finish:  # a word longer than the row: split it
            stop, taken = _cut(text, position, finish, room - used, ascii_word)
            if stop == position:
                if has_text or used or (not cuts and room < max(1, rest)):
                    close(position)  # a fresh (or roomier) row may hold it
                    continue
                stop, taken = position + 1, char_cells(text[position])  # wider than any row
            if not has_text and start > position:
                start = position
            used += taken
            position = end = stop
            has_text = True
            if position < finish:
                close(position)
    cuts.append((start, end if has_text else start))
    return cuts


def slice_spans(spans: tuple[Span, ...], start: int, end: int) -> tuple[Span, ...]:
    """The characters [start, end) of the spans' joined text, styles kept."""
    return _Slicer(spans).take(start, end)


class _Slicer:
    """The characters [start, end) of the spans' joined text, styles kept,
    for ranges that never go back (a line's rows, in order): each call
    starts at the span the last one ended in, so a line of a million spans
    is cut into rows in one pass, not a pass per row."""

    def __init__(self, spans: tuple[Span, ...]) -> None:
        self._spans = spans
        self._index = 0  # the first span that may still hold text to take
        self._offset = 0  # where that span starts in the joined text

    def take(self, start: int, end: int) -> tuple[Span, ...]:
        out: list[Span] = []
        index, position = self._index, self._offset
        while index < len(self._spans):
            span = self._spans[index]
            length = len(span.text)
            if position + length > start and position < end:
                out.append(Span(span.text[max(0, start - position) : end - position], span.style))
            if position + length > end:
                break  # the next row starts in this span
            position += length
            index += 1
        self._index, self._offset = index, position
        return tuple(out)


def _merge(spans: tuple[Span, ...]) -> tuple[Span, ...]:
    """Join neighbouring spans of one style (fewer, longer runs to draw);
    `spans` itself when none join (no new tuple for the collector to walk)."""
    if _merged_already(spans):
        return spans
    merged: list[Span] = []
    for span in spans:
        if not span.text:
            continue
        if merged and merged[-1].style == span.style:
            merged[-1] = Span(merged[-1].text + span.text, span.style)
        else:
            merged.append(span)
    return tuple(merged)


def _merged_already(spans: tuple[Span, ...]) -> bool:
    """Whether no span of `spans` is empty and no two neighbours share a style."""
    style = None
    for span in spans:
        if not span.text or span.style == style:
            return False
        style = span.style
    return True


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
