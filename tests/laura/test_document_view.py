"""A markdown view keeps a few screens of rows, not every row it laid out,
and its document a few screens of blocks, not every block it made: a
block's rows are laid out again from the block, and a block made again
from a window of the file, when they are read. The answers are the same
however little either keeps, and a big document costs almost nothing to
keep."""

from __future__ import annotations

import gc
import random
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laura.render import document as document_module
from laura.render import markdown as markdown_module
from laura.render import view as view_module
from laura.render.document import Document, row_text
from laura.render.lines import Block
from laura.render.markdown import markdown_blocks
from laura.render.marks import Marks
from laura.render.view import DocumentView
from tests.laura.render_helpers import SNIPPETS, random_marks


def answers(view: DocumentView, rng: random.Random, count: int) -> list[object]:
    """What a pane asks, in a random order (each question may lay out more)."""
    said: list[object] = []
    for _ in range(40):
        question = rng.randrange(5)
        if question == 0:
            top = rng.randrange(0, 3 * count + 5)
            said.append(view.window(top, rng.randrange(1, 9), rng.randrange(0, 6)))
        elif question == 1:
            said.append(view.rows_meeting(rng.randrange(-2, count + 3), rng.randrange(-2, count + 3)))
        elif question == 2:
            index = rng.randrange(-2, 3 * count + 5)
            said.append((view.line_at(index), view.anchor_at(index)))
        elif question == 3:
            said.append(view.max_pre_cells(rng.randrange(0, 3 * count + 5), 7))
        else:
            said.append((view.available(rng.randrange(0, 3 * count + 5)), view.laid_through()))
    said.append((len(view), view.window(0, len(view)), view.laid_sources(), view.mismatches))
    return said


@settings(max_examples=60, deadline=None)
@given(
    parts=st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=10),
    separators=st.lists(st.sampled_from(["\n", "\n\n", "\n\n\n"]), min_size=10, max_size=10),
    width=st.integers(min_value=4, max_value=60),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_keeping_one_row_and_one_line_answers_as_keeping_them_all(
    parts: list[str], separators: list[str], width: int, seed: int
) -> None:
    source = "".join(part + separators[i] for i, part in enumerate(parts))
    document = Document("doc.md", source)
    marks = random_marks(random.Random(seed), document.line_count) if seed % 2 else Marks()
    keeping_all = answers(document.view(width, marks), random.Random(seed), document.line_count)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(view_module, "KEPT_ROWS", 1)
        patch.setattr(document_module, "KEPT_LINES", 1)
        keeping_one = answers(Document("doc.md", source).view(width, marks), random.Random(seed), document.line_count)
    assert keeping_one == keeping_all, source


def test_a_fence_read_again_is_styled_again() -> None:
    """A fence is counted from unstyled stand-ins; its rows, laid out again
    after others took their place, are styled as the first time."""
    source = "```python\ndef f():\n    return 1\n```\n\n" + "".join(f"para {n}\n\n" for n in range(3000))
    view = Document("doc.md", source).view(60)
    first = view.window(0, 4)
    assert len({span.style for row in first for span in row.spans}) > 2  # highlighted
    view.window(5000, 10)  # far away: other rows are kept now
    assert view.window(0, 4) == first


def test_a_second_width_of_a_big_document_keeps_a_few_screens() -> None:
    """Each view kept every row it laid out: a megabyte of one-word headings
    at a second width, 60 MB more."""
    document = Document("doc.md", "# h\n" * 30_000)
    assert len(document.view(80)) == 30_000
    gc.collect()
    before = sys.getallocatedblocks()
    second = document.view(100)
    assert len(second) == 30_000
    assert second.window(29_990, 10)[-1].source == (30_000, 30_000)
    gc.collect()
    kept = sys.getallocatedblocks() - before
    assert kept < 20_000, f"{kept:,} objects kept by a second view of 30,000 rows"  # before: 90,000


# --- a document drops blocks and makes them again --------------------------------

# Blocks that run past the small pieces below: a list, a paragraph, a fence,
# blank lines, a table, an HTML block, a comment.
LONGER = [
    "- a\n" * 12,
    "para\n" * 13,
    "```\n" + "x\n" * 14,
    "\n" * 15,
    "| a |\n|---|\n" + "| 1 |\n" * 9,
    "<div>\n" + "x\n" * 12,
    "<!--\n" + "c\n" * 20,
]


def small_pieces(patch: pytest.MonkeyPatch, block_lines: int, blank_run: int, long_block: int) -> None:
    """Markdown cut into pieces of `block_lines`, runs of blank lines of
    `blank_run`, and a fence, table or HTML block at most `long_block` long."""
    patch.setattr(markdown_module, "BLOCK_LINES", block_lines)
    patch.setattr(markdown_module, "BLANK_RUN_LINES", blank_run)
    patch.setattr(markdown_module, "LONG_BLOCK_LINES", long_block)


@settings(max_examples=80, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from([*SNIPPETS, *LONGER]),
        min_size=1,
        max_size=12,
    ),
    separators=st.lists(st.sampled_from(["\n", "\n\n", "\n\n\n", "\n" * 9]), min_size=12, max_size=12),
    ending=st.sampled_from(["", "\n", "\n\n"]),
    front_matter=st.booleans(),
    sizes=st.tuples(st.integers(2, 8), st.integers(3, 12), st.integers(4, 20)),
)
def test_a_block_made_again_is_the_block_it_was(
    parts: list[str], separators: list[str], ending: str, front_matter: bool, sizes: tuple[int, int, int]
) -> None:
    """Each block a document drops is made again from a window of its lines:
    the same lines, the same sources, the same styled fences and tables, with
    small pieces so that cuts, long blocks and runs of blank lines fall
    near a block's end."""
    source = "".join(part + separators[i] for i, part in enumerate(parts)).rstrip("\n") + ending
    if front_matter:
        source = "---\ntitle: x\n---\n" + source
    with pytest.MonkeyPatch.context() as patch:
        small_pieces(patch, *sizes)
        for block in markdown_blocks(source):
            if block.again is None:
                continue
            again = block.again()
            assert (again.lines, again.start, again.end) == (block.lines, block.start, block.end), source
            if block.deferred is not None:
                assert again.deferred is not None and again.deferred() == block.deferred(), source


# The cheapest lines to write and the dearest to hold, as a hostile
# repository would pick them: what the first screen shows of each.
SHORT_LINES = {
    "one-word headings": ("# h\n", "# h"),
    "one-line paragraphs": ("a\n\n", "a"),
    "list items": ("- a\n", "• a"),
    "quoted lines": ("> a\n", "│ a"),
}


@pytest.mark.parametrize("shape", list(SHORT_LINES))
def test_a_big_document_holds_a_few_screens_of_its_lines(shape: str) -> None:
    """A markdown document kept every block it made: a megabyte of one-word
    headings, 110 MB (a `Line`, its spans and its source for each)."""
    unit, first = SHORT_LINES[shape]
    gc.collect()
    before = sys.getallocatedblocks()
    document = Document("doc.md", unit * 60_000)
    view = document.view(80)
    assert len(view) >= 60_000
    assert row_text(view.window(0, 1)[0]).strip() == first  # made again
    assert view.rows_meeting(30_000)
    gc.collect()
    kept = sys.getallocatedblocks() - before
    assert kept < 150_000, f"{kept:,} objects held for 60,000 {shape}"  # before: 500,000


def test_a_block_that_fails_to_be_made_again_shows_its_lines_as_plain_text() -> None:
    document = Document("doc.md", "".join(f"# Part {n}\n" for n in range(20_000)))
    view = document.view(80)
    assert len(view) == 20_000
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(markdown_module, "_assembled", broken_assembly)
        rows = view.window(0, 3)
        assert [row_text(row) for row in rows] == ["# Part 0", "# Part 1", "# Part 2"]
        assert [row.source for row in rows] == [(1, 1), (2, 2), (3, 3)]
        assert view.window(10_000, 1)[0].source == (10_001, 10_001)


def broken_assembly(*args: object) -> Iterator[Block]:
    raise RuntimeError("a renderer bug")
    yield


@settings(max_examples=80, deadline=None)
@given(
    parts=st.lists(st.sampled_from([*SNIPPETS, *LONGER]), min_size=1, max_size=16),
    separators=st.lists(st.sampled_from(["\n", "\n\n", "\n" * 9]), min_size=16, max_size=16),
    window=st.integers(1, 30),
)
def test_parsing_a_window_at_a_time_makes_the_blocks_of_the_whole_file(
    parts: list[str], separators: list[str], window: int
) -> None:
    """The parser reads a window of lines at a time, not the whole file
    (its arrays for a megabyte of newlines took 100 MB, held until the
    layout reached the end); a group near a window's end is parsed again in
    the next. Small pieces and windows put every kind of block across one."""
    source = "".join(part + separators[i] for i, part in enumerate(parts))
    with pytest.MonkeyPatch.context() as patch:
        small_pieces(patch, 3, 5, 8)
        patch.setattr(markdown_module, "WINDOW_LINES", 10**9)
        whole = list(markdown_blocks(source))
        patch.setattr(markdown_module, "WINDOW_LINES", markdown_module._longest_lookahead() + window)
        windowed = list(markdown_blocks(source))
    assert [(block.lines, block.start, block.end) for block in windowed] == [
        (block.lines, block.start, block.end) for block in whole
    ], source
    assert [block.deferred() for block in windowed if block.deferred] == [
        block.deferred() for block in whole if block.deferred
    ]
