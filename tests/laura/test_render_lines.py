"""The row <-> source-line map: highlight ranges, clamping, laziness, marks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from laura.render.document import Document
from laura.render.lines import (
    Block,
    KeptBlocks,
    Line,
    clamp_range,
    line_of_row,
    rows_for_line,
    rows_meeting,
)
from laura.render.marks import ADDED, MODIFIED, Marks
from laura.render.style import Span
from laura.render.view import DocumentView
from tests.laura.render_helpers import picture, text


def test_clamp_range_keeps_requests_inside_the_file() -> None:
    assert clamp_range(3, None, 10) == (3, 3)
    assert clamp_range(0, 2, 10) == (1, 2)
    assert clamp_range(8, 50, 10) == (8, 10)
    assert clamp_range(40, 50, 10) == (10, 10)
    assert clamp_range(5, 2, 10) == (2, 5)
    assert clamp_range(-3, -1, 0) == (1, 1)


def test_code_rows_are_identity_mapped_and_highlight_clamps() -> None:
    source = "".join(f"line{n} = {n}\n" for n in range(1, 21))
    view = Document("x.py", source).view(40)
    assert view.rows_meeting(4) == range(3, 4)
    assert view.rows_meeting(18, 99) == range(17, 20)
    assert view.rows_meeting(500) == range(19, 20)
    assert view.rows_meeting(0) == range(0, 1)
    assert view.content_rows() == 20


def test_wrapped_plain_line_is_one_range_of_rows() -> None:
    rows = Document("a.txt", "short\nword " * 1 + "w " * 30 + "\nend\n").view(10)
    found = rows.rows_for_line(2)
    assert len(found) > 1
    assert all(rows[i].source == (2, 2) for i in found)
    assert [rows[i].first for i in found] == [True] + [False] * (len(found) - 1)
    assert rows.rows_for_line(3) == range(found.stop, found.stop + 1)


def test_pure_helpers_on_a_list_of_rows() -> None:
    rows = list(Document("d.md", "# T\n\na\nb\n\nc\n").view(40))
    assert rows_meeting(rows, 3, 3) == range(2, 3)
    assert rows_for_line(rows, 6) == range(4, 5)
    assert rows_meeting(rows, 9, 9) == range(0)
    assert line_of_row(rows, 2) == 3


def _counted_blocks(count: int, pulled: list[int]) -> Iterator[Block]:
    for n in range(1, count + 1):
        pulled.append(n)
        yield Block((Line((Span(f"row {n}"),), (n, n)),), n, n)


def test_a_view_lays_out_only_what_is_asked_for() -> None:
    pulled: list[int] = []
    view = DocumentView(KeptBlocks(_counted_blocks(1000, pulled)), 1000, 40)
    assert [text(row) for row in view.window(0, 3)] == ["row 1", "row 2", "row 3"]
    assert len(pulled) <= 4
    view.window(10, 5)
    assert len(pulled) <= 16
    assert view.rows_meeting(100) == range(99, 100)
    assert len(pulled) <= 102
    assert len(view) == 1000
    assert len(pulled) == 1000


def test_first_paint_of_a_long_markdown_file_parses_only_its_start() -> None:
    source = "".join(f"## Heading {n}\n\nSome text for section {n}.\n\n" for n in range(5000))
    document = Document("big.md", source)
    view = document.view(80)
    view.window(0, 40)
    assert len(document._made) < 50  # of 10,000 blocks
    assert view.rows_meeting(19998) == range(19997, 19998)


def test_marks_colour_rows_and_a_gap_row_stands_for_removed_lines() -> None:
    source = "".join(f"line {n}\n" for n in range(1, 8))
    marks = Marks(changed={2: MODIFIED, 6: ADDED}, removed={4: 2, 8: 1}, added=2, deleted=3)
    view = Document("notes.txt", source).view(30, marks)
    assert picture(view.window(0, 20)) == [
        "  1 |line 1",
        "  2~|line 2",
        "  3 |line 3",
        "    |── 2 lines removed ───────────",
        "  4-|line 4",
        "  5 |line 5",
        "  6+|line 6",
        "  7 |line 7",
        "    |── 1 line removed ────────────",
    ]
    assert view.rows_meeting(4) == range(4, 5)
    assert view.window(0, 20)[3].source is None


def test_gap_rows_shift_the_identity_map_of_code() -> None:
    source = "".join(f"x{n} = {n}\n" for n in range(1, 11))
    marks = Marks(removed={3: 1, 11: 2})
    view = Document("x.py", source).view(30, marks)
    assert view.content_rows() == 12
    assert view.rows_meeting(3) == range(3, 4)
    assert text(view[3]) == "x3 = 3"
    assert view.rows_meeting(10) == range(10, 11)
    assert len(view) == 12


def test_a_folded_paragraph_takes_the_strongest_mark_of_its_lines() -> None:
    view = Document("d.md", "alpha\nbeta\ngamma\n").view(40, Marks(changed={2: MODIFIED}))
    rows = view.window(0, 5)
    assert picture(rows) == ["  1~|alpha beta gamma"]


def test_a_renderer_that_fails_midway_degrades_to_plain_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from laura.render import document as document_module

    def broken(text: str, lines: object = None) -> Iterator[Block]:
        yield Block((Line((Span("first"),), (1, 1)),), 1, 1)
        raise RuntimeError("parser bug")

    monkeypatch.setattr(document_module, "markdown_blocks", broken)
    view = Document("x.md", "first\n\nsecond\n\nthird\n").view(40)
    assert picture(view.window(0, 5)) == ["  1 |first", "  2 |", "  3 |second", "  4 |", "  5 |third"]
