"""Where the inline review meets a file pane's rows: which source lines a
row stands for, the row a thread sits on, the lines on screen. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from laura.panes.file_rows import VIEWS
from laura.render.style import Row
from laura.review.threads import Anchor


def anchor_at(rows: Sequence[Row], index: int) -> Anchor | None:
    """The source range a comment on row `index` is about: the row's own,
    or for a row standing for no line (a card, a table border) the nearest
    line above it."""
    if isinstance(rows, VIEWS):  # without copying (or making) every row above
        return rows.anchor_at(index)
    for row in reversed(rows[: index + 1]):
        if row.source is not None:
            return row.source
    return None


def line_at(rows: Sequence[Row], index: int) -> int | None:
    """The first source line of `anchor_at`, or None above every line."""
    anchor = anchor_at(rows, index)
    return anchor[0] if anchor is not None else None


def row_of_line(rows: Sequence[Row], line: int) -> int | None:
    """The first row whose source range holds `line` (where its thread sits)."""
    if isinstance(rows, VIEWS):
        found = rows.rows_for_line(line) if 1 <= line <= rows.line_count else range(0)
        return found.start if found else None
    for index, row in enumerate(rows):
        if row.source is not None and row.source[0] <= line <= row.source[1]:
            return index
    return None


def lines_on_screen(rows: Sequence[Row], top: int, height: int) -> tuple[int, int]:
    """The first and last source line of the rows from `top` (0, 0: none)."""
    shown = [row.source for row in rows[top : top + height] if row.source]
    return (shown[0][0], shown[-1][1]) if shown else (0, 0)
