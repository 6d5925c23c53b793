"""Markdown tables (GitHub's pipe tables) laid out in aligned columns that
fit the terminal's width, and read out row by row for plain mode.

A block is a table when its second line is a delimiter row (`|---|:-:|`)
with as many cells as the first; body rows are padded or cut to that many
cells, as GitHub does. Columns wider than the width allows shrink (the
widest first) and their cells wrap. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from luxe.frontends.tui.text import Line, line_width, plain_text, wrap

# Renders a cell's inline markdown with a base role: markdown.inline.
Inline = Callable[[str, str], Line]

_DELIMITER_CELL = re.compile(r"^:?-+:?$")
_PIPE = re.compile(r"(?<!\\)\|")
MIN_COLUMN = 4  # the narrowest a column shrinks to (narrower, its words are shreds)
SIDES = 4  # a row's outer borders and their padding: "│ " and " │"
BETWEEN = 3  # between two cells: " │ "


def cells_of(line: str) -> list[str]:
    """A row's cells, without the outer pipes; `\\|` is a pipe in a cell."""
    row = line.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _PIPE.split(row)]


def parse(lines: list[str]) -> tuple[list[str], list[str], list[list[str]]] | None:
    """(header, alignments, body rows), or None when `lines` is not a table.
    An alignment is "left", "right" or "center"."""
    if len(lines) < 2 or "|" not in lines[0]:
        return None
    header, delimiter = cells_of(lines[0]), cells_of(lines[1])
    if len(delimiter) != len(header) or not all(_DELIMITER_CELL.match(c) for c in delimiter):
        return None
    aligns = [
        "center" if c.startswith(":") and c.endswith(":") else "right" if c.endswith(":") else "left"
        for c in delimiter
    ]
    width = len(header)
    body = [(cells_of(line) + [""] * width)[:width] for line in lines[2:]]
    return header, aligns, body


def fit(natural: list[int], room: int) -> list[int] | None:
    """Column widths within `room` cells: the natural ones when they fit,
    else the widest columns shrunk first; None when even MIN_COLUMN each
    does not fit."""
    floor = [min(w, MIN_COLUMN) for w in natural]
    if sum(floor) > room:
        return None
    widths = list(natural)
    excess = sum(widths) - room
    while excess > 0:
        widest = max(widths)
        next_widest = max((w for w in widths if w < widest), default=0)
        at_widest = [i for i, w in enumerate(widths) if w == widest]
        # Lower every widest column toward the next width down, or by what is left.
        step = min(widest - max(next_widest, MIN_COLUMN), -(-excess // len(at_widest)))
        if step <= 0:
            return None
        for i in at_widest:
            cut = min(step, excess)
            widths[i] -= cut
            excess -= cut
    return widths


def render_table(lines: list[str], width: int, inline: Inline) -> list[Line] | None:
    """The table in `lines` as bordered rows within `width` cells, or None
    when it is not a table or cannot fit. `inline(text, role)` renders a
    cell's inline markdown."""
    parsed = parse(lines)
    if parsed is None:
        return None
    header, aligns, body = parsed
    rows = [[inline(cell, "bold") for cell in header], *[[inline(c, "") for c in r] for r in body]]
    natural = [max(max(line_width(row[i]) for row in rows), 1) for i in range(len(header))]
    widths = fit(natural, width - SIDES - BETWEEN * (len(header) - 1))
    if widths is None:
        return None
    out: list[Line] = [_border("┌", "┬", "┐", widths)]
    for number, row in enumerate(rows):
        out.extend(_row(row, widths, aligns))
        if number == 0:
            out.append(_border("├", "┼", "┤", widths))
    out.append(_border("└", "┴", "┘", widths))
    return out


def _border(left: str, cross: str, right: str, widths: list[int]) -> Line:
    return [(left + cross.join("─" * (w + 2) for w in widths) + right, "dim")]


def _row(cells: list[Line], widths: list[int], aligns: list[str]) -> list[Line]:
    """One table row: each cell wrapped to its column, as many lines as the
    tallest cell needs."""
    wrapped: list[list[Line]] = [
        wrap(cell, w, floor=1) if cell else [[]] for cell, w in zip(cells, widths, strict=True)
    ]
    height = max(len(lines) for lines in wrapped)
    out: list[Line] = []
    for n in range(height):
        line: Line = [("│ ", "dim")]
        for column, (lines, w, align) in enumerate(zip(wrapped, widths, aligns, strict=True)):
            piece = lines[n] if n < len(lines) else []
            gap = max(w - line_width(piece), 0)
            before = gap if align == "right" else gap // 2 if align == "center" else 0
            if column:
                line.append((" │ ", "dim"))
            line.extend([(" " * before, ""), *piece, (" " * (gap - before), "")])
        line.append((" │", "dim"))
        out.append([span for span in line if span[0]])
    return out


def spoken_rows(lines: list[str], inline: Inline) -> list[str] | None:
    """Plain mode's reading of a table: one line per body row, each cell
    named by its column (`name: alpha; value: 1`); None when not a table."""
    parsed = parse(lines)
    if parsed is None:
        return None
    header, _, body = parsed
    names = [plain_text(inline(h, "")) for h in header]
    spoken = [
        "; ".join(f"{name}: {plain_text(inline(cell, ''))}" for name, cell in zip(names, row, strict=True))
        for row in body
    ]
    return [f"table: {', '.join(names)}", *spoken]
