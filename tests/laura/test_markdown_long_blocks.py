"""Markdown blocks that run on (a list of thousands of items, a paragraph of
thousands of lines, a line of a megabyte of inline markup) are made in
pieces a step of the UI loop can take, and still read as they are written.
Before, such a block was parsed, rendered and laid out in one step: eleven
seconds for a megabyte of list items."""

from __future__ import annotations

import gc
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laura.render import markdown as markdown_module
from laura.render.document import Document, render_document
from laura.render.markdown import BLOCK_LINES, KEEP_PARSED_LIMIT, LONG_BLOCK_LINES, markdown_blocks
from tests.laura.render_helpers import SNIPPETS, text


def shown(source: str, width: int = 60) -> list[str]:
    return [text(row).rstrip() for row in render_document("doc.md", source, width)]


def block_lengths(source: str) -> list[int]:
    return [block.end - block.start + 1 for block in markdown_blocks(source)]


@pytest.mark.parametrize(
    ("shape", "unit"),
    [
        ("a list", "- item\n"),
        ("a nested list", "- item\n  - inner\n"),
        ("an ordered list", "1. item\n"),
        ("a paragraph", "words and words\n"),
        ("a quote", "> quoted\n"),
    ],
)
def test_a_block_that_runs_on_is_made_in_pieces_and_shows_every_line(shape: str, unit: str) -> None:
    source = "# Title\n\n" + unit * 3000
    lengths = block_lengths(source)
    assert max(lengths) <= 2 * BLOCK_LINES, shape
    rows = shown(source, 200)
    assert rows[0] == "# Title"
    body = "\n".join(rows[2:])
    word = unit.split()[1]
    assert body.count(word) == 3000 * unit.count(word), shape


def test_a_nested_list_is_cut_only_before_a_top_level_item() -> None:
    source = "- item\n  - inner\n  - inner\n" * 500
    for block in markdown_blocks(source):
        first = source.split("\n")[block.start - 1]
        assert first == "- item", block.start
    rows = shown(source)
    assert rows.count("• item") == 500
    assert rows.count("  ◦ inner") == 1000


def test_ordered_items_keep_their_written_numbers_across_pieces() -> None:
    source = "".join(f"{n}. item\n" for n in range(1, 1001))
    rows = shown(source)
    assert rows == [f"{n}. item" for n in range(1, 1001)]


@pytest.mark.parametrize(
    ("shape", "source", "inside"),
    [
        ("a fence", "```python\n" + "x = 1\n" * 800 + "```\n", "x = 1"),
        ("a table", "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 800, "1 │ 2"),
        ("an HTML block", "<!--\n" + "note\n" * 800 + "-->\n", "note"),
    ],
)
def test_a_fence_a_table_or_an_html_block_is_never_cut(shape: str, source: str, inside: str) -> None:
    after = source + "\nAFTER *it*\n"
    rows = shown(after, 200)
    assert sum(inside in row for row in rows) == 800, shape
    assert rows[-1] == "AFTER it", shape  # the text after it is markdown again
    if shape != "an HTML block":
        assert sum(row.startswith(("╭", "┌")) for row in rows) == 1, shape  # one box


@pytest.mark.parametrize(
    ("container", "prefix"), [("a quote", "> "), ("an alert", "> "), ("a list item", "  ")]
)
def test_a_long_container_is_never_cut_inside_its_fence(container: str, prefix: str) -> None:
    """A quote longer than a piece, with a fence across the line a piece
    would end at: cut there, the rest of the fence was read as markdown and
    the text after it as code. The piece now ends before the fence. (A
    list is cut only before a top-level item, so never inside its fences.)"""
    head = "> [!NOTE]\n" if container == "an alert" else "- item\n" if prefix == "  " else ""
    lines = [f"{prefix}intro {n}" for n in range(BLOCK_LINES - 5)]
    lines += [f"{prefix}```", *(f"{prefix}code line" for _ in range(20)), f"{prefix}```"]
    lines += [f"{prefix}after *this*"] * 3
    rows = shown(head + "\n".join(lines) + "\n\nEND *here*\n", 80)
    assert sum("│ code line │" in row for row in rows) == 20, container
    assert " ".join(rows).count("after this") == 3, container  # as text, not code
    assert rows[-1] == "END here"


@pytest.mark.timing
@pytest.mark.parametrize(
    ("shape", "opener", "unit"),
    [
        ("an unclosed fence", "```\n", "code\n"),
        ("a table", "| a | b |\n|---|---|\n", "| 1 | 2 |\n"),
        ("an HTML comment", "<!--\n", "note\n"),
    ],
)
def test_past_the_longest_block_the_rest_of_the_file_is_shown_as_source(
    shape: str, opener: str, unit: str
) -> None:
    source = "# Title\n\n" + opener + unit * (LONG_BLOCK_LINES + 500) + "\n**LAST**\n"
    started = time.perf_counter()
    document = Document("doc.md", source)
    view = document.view(200)
    rows = [text(row).rstrip() for row in view.window(0, view.content_rows())]
    assert time.perf_counter() - started < 10
    assert rows[0] == "# Title"
    notices = [row for row in rows if "the rest of this file is shown as its source" in row]
    assert notices == [
        f"── line 3 begins a block of more than {LONG_BLOCK_LINES:,} lines:"
        " the rest of this file is shown as its source ──"
    ], shape
    assert rows[-1] == "**LAST**", shape  # as written: no markdown past the notice
    # Every source line still has its row, in order.
    for line in (3, 3 + LONG_BLOCK_LINES, document.line_count):
        assert view.rows_meeting(line), (shape, line)


@pytest.mark.timing
def test_inline_markup_on_a_line_of_a_megabyte_is_shown_as_written() -> None:
    line = "*a* **b** `c` [d](e) " * 50_000
    started = time.perf_counter()
    rows = shown("# Title\n\n" + line + "\n\nAFTER *it*\n", 100)
    assert time.perf_counter() - started < 2  # parsing its markup took 4 s
    assert rows[2].startswith("*a* **b** `c` [d](e) *a*")
    assert "the rest of this line" in rows[-3]
    assert rows[-1] == "AFTER it"


def test_links_defined_at_the_end_of_a_big_document_resolve() -> None:
    filler = "- item\n" * (KEEP_PARSED_LIMIT // 7 + 1000)
    source = "See [the docs][d].\n\n" + filler + "\n[d]: http://example.invalid\n"
    assert len(source) > KEEP_PARSED_LIMIT
    view = Document("doc.md", source).view(60)
    assert text(view[0]) == "See the docs."


@pytest.mark.parametrize("block_lines", [1, 2, 3])
@settings(max_examples=40, deadline=None)
@given(
    parts=st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=8),
    separators=st.lists(st.sampled_from(["\n", "\n\n"]), min_size=8, max_size=8),
)
def test_cut_anywhere_every_line_keeps_its_row_in_order(
    block_lines: int, parts: list[str], separators: list[str]
) -> None:
    source = "".join(part + separators[i] for i, part in enumerate(parts))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(markdown_module, "BLOCK_LINES", block_lines)
        patch.setattr(markdown_module, "LONG_BLOCK_LINES", 2 * block_lines)
        view = Document("doc.md", source).view(30)
        rows = view.window(0, view.content_rows())
    assert view.mismatches == 0
    count = len(source.splitlines())
    starts = [row.source[0] for row in rows if row.source is not None]
    assert starts == sorted(starts), source
    for line in range(1, count + 1):
        assert view.rows_meeting(line), (line, source)


BLANK_RUNS = {
    "newlines only": lambda n: "\n" * n,
    "a line, then newlines": lambda n: "# Top\n" + "\n" * n,
    "newlines between two paragraphs": lambda n: "first\n" + "\n" * n + "last\n",
    "lines of spaces and tabs": lambda n: "first\n" + "  \n\t\n" * (n // 2) + "last\n",
    "CRLF line ends": lambda n: "first\r\n" + "\r\n" * n + "last\r\n",
}


@pytest.mark.parametrize("spelling", list(BLANK_RUNS))
def test_a_long_run_of_blank_lines_is_laid_out_a_bounded_piece_at_a_time(spelling: str) -> None:
    """A megabyte of newlines was one block of a million lines, made and
    laid out whole before its first screen showed (4.5 s, 460 MB)."""
    source = BLANK_RUNS[spelling](50_000)
    view = Document("doc.md", source).view(40)
    view.ensure_rows(30)  # the first screen
    assert 30 <= view.rows_so_far() <= markdown_module.BLANK_RUN_LINES + 30
    assert max(map(len, (block.lines for block in markdown_blocks(source)))) <= markdown_module.BLANK_RUN_LINES
    # Shown as before, when the run was made line by line.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(markdown_module, "BLANK_RUN_LINES", 10**9)
        before = Document("doc.md", source).view(40)
        rows_before = before.window(0, len(before))
    assert view.window(0, len(view)) == rows_before
    count = len(source.splitlines())
    for line in (1, 2, 999, 1000, 1001, 1002, count // 2, count - 1, count):
        assert view.rows_meeting(line) == before.rows_meeting(line), line


@pytest.mark.parametrize("spelling", ["newlines only", "newlines between two paragraphs"])
def test_a_long_run_of_blank_lines_costs_almost_nothing_to_keep(spelling: str) -> None:
    """Each blank line was a line object kept with the document: 190 bytes
    a line, 200 MB for a megabyte of newlines."""
    gc.collect()
    before = sys.getallocatedblocks()
    document = Document("doc.md", BLANK_RUNS[spelling](200_000))
    view = document.view(80)
    assert len(view) >= 200_000
    gc.collect()
    kept = sys.getallocatedblocks() - before
    assert kept < 40_000, f"{kept:,} objects kept for 200,000 blank lines"  # before: a million


def _table(columns: int, rows: int, lead: str = "") -> str:
    def line(cell: str) -> str:
        return lead + "|" + "|".join(cell for _ in range(columns)) + "|\n"

    return line("h") + line("-") + line("c") * (rows - 1)


@pytest.mark.timing
@pytest.mark.parametrize(
    ("shape", "source"),
    [
        ("one row of 100,000 columns", _table(100_000, 2)),
        ("100 columns by 900 rows", _table(100, 900)),
        ("in a quote", _table(100, 100, "> ")),
        ("in a list item", "- item\n\n" + _table(100, 100, "  ")),
    ],
)
def test_a_table_of_too_many_cells_is_shown_as_written(shape: str, source: str) -> None:
    # A table is laid out in one step and never cut: 100 columns by 1,000
    # rows held the loop 2.7 s, a row of 100,000 columns 6 s.
    started = time.perf_counter()
    rows = shown("# Title\n\n" + source + "\nAFTER *it*\n", 60)
    assert time.perf_counter() - started < 2, shape
    assert not any("┬" in row or "┼" in row for row in rows), shape
    assert sum("|h|h|" in row for row in rows) == 1, shape  # as written, clipped
    written = sum("|c|c|" in line for line in source.splitlines())
    assert sum("|c|c|" in row for row in rows) == written, shape  # a row a line
    assert rows[-1] == "AFTER it", shape


def test_a_table_up_to_its_bound_is_drawn_as_a_table() -> None:
    rows = shown("# Title\n\n" + _table(64, 64) + "\nAFTER *it*\n", 400)
    assert rows[2].startswith("┌───┬───┬"), rows[2]
    assert rows[-1] == "AFTER it"
