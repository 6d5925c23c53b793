"""A markdown view keeps a few screens of rows, not every row it laid out:
a block's rows are laid out again from the block when they are read. Its
answers are the same however little it keeps, and a second width of a big
document costs almost nothing to keep."""

from __future__ import annotations

import gc
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laura.render import view as view_module
from laura.render.document import Document
from laura.render.marks import Marks
from laura.render.view import DocumentView
from tests.laura.render_helpers import random_marks
from tests.laura.test_render_markdown import SNIPPETS


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
def test_a_view_keeping_one_row_answers_as_one_keeping_them_all(
    parts: list[str], separators: list[str], width: int, seed: int
) -> None:
    source = "".join(part + separators[i] for i, part in enumerate(parts))
    document = Document("doc.md", source)
    marks = random_marks(random.Random(seed), document.line_count) if seed % 2 else Marks()
    keeping_all = answers(document.view(width, marks), random.Random(seed), document.line_count)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(view_module, "KEPT_ROWS", 1)
        keeping_one = answers(document.view(width, marks), random.Random(seed), document.line_count)
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
