"""File text -> rendered rows, chosen by the file's kind.

The one entry point file panes call. Plain text is wrapped at the pane width;
richer kinds (markdown, code, diffs) plug in here.
"""

from __future__ import annotations

from laura.render.style import Row, Span


def render_plain(text: str, width: int) -> list[Row]:
    """Wrap each source line at `width` cells; continuation rows keep the
    line's number with `first=False`."""
    width = max(1, width)
    rows: list[Row] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.expandtabs(4)
        chunks = [line[i : i + width] for i in range(0, len(line), width)] or [""]
        for index, chunk in enumerate(chunks):
            rows.append(Row((Span(chunk),), source=(number, number), first=index == 0))
    return rows


def render_document(name: str, text: str, width: int) -> list[Row]:
    """Rows for the file called `name` (its path, used to pick a renderer)."""
    return render_plain(text, width)
