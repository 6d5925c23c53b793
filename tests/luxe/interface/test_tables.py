"""Markdown tables in answers: aligned columns within the terminal's width
(cells wrap, the widest column shrinks first), GitHub's rules for what is a
table, plain mode reading rows with their column names; and in the real
interface."""

from __future__ import annotations

from luxe.frontends.tui.markdown import inline, render_block
from luxe.frontends.tui.table import fit, parse, render_table, spoken_rows
from luxe.frontends.tui.text import cell_width, plain_text
from tests.luxe.interface.conftest import StartUi

TABLE = (
    "| name | kind | size |\n"
    "|:-----|:----:|-----:|\n"
    "| alpha | file | 1 |\n"
    "| beta, whose description runs on for a good while | folder | 22,000 |\n"
    "| x \\| y | `code` | **9** |"
)


def shown(source: str, width: int) -> list[str]:
    return [plain_text(line) for line in render_block(source, width)]


def test_a_table_is_laid_out_in_aligned_columns() -> None:
    assert shown(TABLE, 100) == [
        "┌──────────────────────────────────────────────────┬────────┬────────┐",
        "│ name                                             │  kind  │   size │",
        "├──────────────────────────────────────────────────┼────────┼────────┤",
        "│ alpha                                            │  file  │      1 │",
        "│ beta, whose description runs on for a good while │ folder │ 22,000 │",
        "│ x | y                                            │  code  │      9 │",
        "└──────────────────────────────────────────────────┴────────┴────────┘",
    ]


def test_a_wide_table_shrinks_its_widest_column_and_wraps_its_cells() -> None:
    rows = shown(TABLE, 40)
    assert rows == [
        "┌────────────────────┬────────┬────────┐",
        "│ name               │  kind  │   size │",
        "├────────────────────┼────────┼────────┤",
        "│ alpha              │  file  │      1 │",
        "│ beta, whose        │ folder │ 22,000 │",
        "│ description runs   │        │        │",
        "│ on for a good      │        │        │",
        "│ while              │        │        │",
        "│ x | y              │  code  │      9 │",
        "└────────────────────┴────────┴────────┘",
    ]
    for width in range(14, 120):
        for row in shown(TABLE, width):
            assert cell_width(row) <= width, (width, row)


def test_too_narrow_for_the_columns_shows_the_source_lines() -> None:
    rows = shown(TABLE, 12)
    assert "┌" not in "".join(rows)
    assert all(cell_width(row) <= 12 for row in rows)
    assert "".join(rows).startswith("| name | kind")


def test_what_github_takes_for_a_table() -> None:
    assert parse(["a | b", "--|--", "1 | 2 | 3", "4"]) == (
        ["a", "b"], ["left", "left"], [["1", "2"], ["4", ""]]
    )  # fmt: skip
    assert parse(["| a | b |", "|---|"]) is None  # the delimiter row has too few cells
    assert parse(["| a | b |", "| x | y |"]) is None  # no delimiter row
    assert parse(["just text", "---"]) is None  # a setext heading, not a table
    assert shown("| a |\n| b |", 40) == ["| a |", "| b |"]  # pipes, but no table


def test_fit_keeps_natural_widths_and_shrinks_the_widest_first() -> None:
    assert fit([5, 10, 3], 30) == [5, 10, 3]
    assert fit([5, 30, 20], 40) == [5, 17, 18]
    assert fit([50, 50], 40) == [20, 20]
    assert fit([10, 10, 10], 11) is None


def test_cells_keep_their_inline_markdown() -> None:
    lines = render_table(TABLE.split("\n"), 100, inline)
    assert lines is not None
    assert ("name", "bold") in lines[1] and ("code", "code") in lines[5] and ("9", "bold") in lines[5]


def test_plain_mode_reads_each_row_with_its_column_names() -> None:
    assert spoken_rows(TABLE.split("\n"), inline) == [
        "table: name, kind, size",
        "name: alpha; kind: file; size: 1",
        "name: beta, whose description runs on for a good while; kind: folder; size: 22,000",
        "name: x | y; kind: code; size: 9",
    ]


def test_the_interface_shows_a_table_and_plain_mode_reads_it(ui: StartUi) -> None:
    answer = f"Here:\n\n{TABLE}\n\nThat is all."
    session = ui([{"text": answer}])
    session.type("list them")
    session.send_keys("Enter")
    screen = session.wait_for("That is all.")
    assert "│ alpha" in screen and "│  file  │      1 │" in screen
    assert "|:-----|" not in screen

    plain = ui([{"text": answer}], "--plain", wait="Type a prompt")
    plain.type("list them")
    plain.send_keys("Enter")
    screen = plain.wait_for("luxe: done.")
    assert "luxe: table: name, kind, size\n      name: alpha; kind: file; size: 1\n" in screen
    assert "┌" not in screen
