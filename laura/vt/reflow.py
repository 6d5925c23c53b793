"""Re-wrapping the main screen and its scrollback at a new width.

Rows that auto-wrapped (`Line.wrapped`) are joined back into the logical
lines the program wrote, cut again at the new width (a wide character is
never split), and laid out so that the cursor stays on the character it was
on and, as in tmux, on the same screen row when it can (rows above it move
into or out of the scrollback). Pure function over `Line`s: the emulator
swaps the result in.
"""

from __future__ import annotations

from collections.abc import Sequence

from laura.render.style import PLAIN
from laura.vt.line import FILL, Line


def _join(rows: Sequence[Line], old_columns: int) -> Line:
    """One logical line from rows that wrapped into each other."""
    if len(rows) == 1:
        return rows[0].copy()
    big = Line()
    offset = 0
    for index, row in enumerate(rows):
        text = row.text
        if text:
            runs: list = []
            for i in range(0, len(row.runs), 2):
                if row.runs[i] < len(text):
                    runs += (row.runs[i] + offset, row.runs[i + 1])
            big.splice(offset, text, runs)
            if row.marks:
                for x, mark in row.marks.items():
                    big.add_mark(offset + x, mark)
        last = index == len(rows) - 1
        if last:
            break
        following = rows[index + 1].text
        # A wrapped row is full, except for the cell a wide character that
        # did not fit left empty.
        if len(text) == old_columns - 1 and following[1:2] == FILL:
            offset += len(text)
        else:
            offset += max(old_columns, len(text))
    return big


def _cut(line: Line, columns: int) -> list[tuple[int, int]]:
    """Cell ranges of the rows `line` takes at `columns` width."""
    text = line.text
    if not text:
        return [(0, 0)]
    cuts = []
    start = 0
    while start < len(text):
        end = min(start + columns, len(text))
        if end < len(text) and text[end] == FILL:
            end -= 1
            if end == start:  # a wide character in one column: it gets clipped
                end = start + 2
        cuts.append((start, end))
        start = end
    return cuts


def _row(line: Line, start: int, end: int, wrapped: bool, columns: int) -> Line:
    piece, runs = line.slice(start, end)
    row = Line(piece, runs or [0, PLAIN]) if piece else Line()
    if line.marks:
        for x, mark in line.marks.items():
            if start <= x < end:
                row.add_mark(x - start, mark)
    row.wrapped = wrapped
    if len(row.text) > columns:
        row._clip(columns)
    return row


def reflow(history: Sequence[Line], screen: Sequence[Line], cursor: tuple[int, int],
           old_columns: int, columns: int) -> tuple[list[Line], list[Line], tuple[int, int]]:
    """(history rows, screen rows, cursor) at the new width; the screen keeps
    its number of rows."""
    lines = len(screen)
    rows = [*history, *screen]
    cursor_x, cursor_y = cursor
    cursor_row = len(history) + cursor_y
    # Group rows into logical lines; note where the cursor is.
    logical: list[Line] = []
    cursor_at = (0, 0)
    group: list[Line] = []
    group_start = 0
    for index, row in enumerate(rows):
        if not group:
            group_start = index
        group.append(row)
        if row.wrapped and index < len(rows) - 1:
            continue
        joined_offsets = []
        offset = 0
        for k, member in enumerate(group):
            joined_offsets.append(offset)
            if k < len(group) - 1:
                nxt = group[k + 1].text
                if len(member.text) == old_columns - 1 and nxt[1:2] == FILL:
                    offset += len(member.text)
                else:
                    offset += max(old_columns, len(member.text))
        if group_start <= cursor_row < group_start + len(group):
            cursor_at = (len(logical), joined_offsets[cursor_row - group_start] + cursor_x)
        logical.append(_join(group, old_columns))
        group = []
    # Cut them again.
    new_rows: list[Line] = []
    new_cursor = (0, 0)
    for number, line in enumerate(logical):
        cuts = _cut(line, columns)
        first = len(new_rows)
        for k, (start, end) in enumerate(cuts):
            new_rows.append(_row(line, start, end, k < len(cuts) - 1, columns))
        if cursor_at[0] == number:
            offset = cursor_at[1]
            k = next((k for k, (start, end) in enumerate(cuts) if start <= offset < end),
                     len(cuts) - 1)
            new_cursor = (min(offset - cuts[k][0], columns), first + k)
    cursor_row = new_cursor[1]
    new_top = max(0, cursor_row - cursor_y)
    visible = new_rows[new_top : new_top + lines]
    visible += [Line() for _ in range(lines - len(visible))]
    x = new_cursor[0]
    if x >= columns and len(visible[cursor_row - new_top].text) < columns:
        x = columns - 1  # x == columns (a pending wrap) only after a full row
    return new_rows[:new_top], visible, (x, cursor_row - new_top)
