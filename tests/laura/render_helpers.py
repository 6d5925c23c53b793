"""Readable pictures of rendered rows for golden tests."""

from __future__ import annotations

from collections.abc import Sequence

from laura.render.style import Row
from tests.helpers.wait import wait_until_async

# The trio form of the one wait_until (tests/helpers/wait.py), by the name
# the render tests use.
wait_until = wait_until_async


def text(row: Row) -> str:
    return "".join(span.text for span in row.spans)


def picture(rows: Sequence[Row]) -> list[str]:
    """One string per row: the gutter number (first row of a range only),
    the change marker, a bar, then the row's text (trailing spaces cut)."""
    out = []
    for row in rows:
        number = str(row.source[0]) if row.source is not None and row.first else ""
        out.append(f"{number:>3}{row.marker}|{text(row)}".rstrip())
    return out


def sources(rows: Sequence[Row]) -> list[tuple[int, int] | None]:
    return [row.source for row in rows]
