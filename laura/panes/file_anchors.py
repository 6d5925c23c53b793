"""Where the inline review meets a file pane's rows: which source lines a
row stands for, the row a thread sits on, the lines on screen. Pure.
"""

from __future__ import annotations

from laura.panes.carded_rows import Shown


def line_at(rows: Shown, index: int) -> int | None:
    """The first source line of the range a comment on row `index` is
    about, or None above every line."""
    anchor = rows.anchor_at(index)
    return anchor[0] if anchor is not None else None


def row_of_line(rows: Shown, line: int) -> int | None:
    """The first row whose source range holds `line` (where its thread sits)."""
    found = rows.rows_for_line(line) if 1 <= line <= rows.line_count else range(0)
    return found.start if found else None


def lines_on_screen(rows: Shown, top: int, height: int) -> tuple[int, int]:
    """The first and last source line of the rows from `top` (0, 0: none)."""
    shown = [row.source for row in rows[top : top + height] if row.source]
    return (shown[0][0], shown[-1][1]) if shown else (0, 0)

