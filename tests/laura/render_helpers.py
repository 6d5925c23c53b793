"""Readable pictures of rendered rows for golden tests, the check that a
view answers as laying every row out would, and the markdown blocks the
property tests mix into documents (SNIPPETS)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from laura.render.diff_view import DiffView
from laura.render.line_view import LineView
from laura.render.marks import ADDED, MODIFIED, Marks
from laura.render.style import Row
from laura.render.view import DocumentView
from tests.helpers.wait import wait_until_async

# The trio form of the one wait_until (tests/helpers/wait.py), by the name
# the render tests use.
wait_until = wait_until_async

# Markdown blocks of each kind, nested and wide ones, and the empty one: the
# property tests join a random choice of them into a document.
SNIPPETS = [
    "# Heading",
    "Setext\n===",
    "plain words here",
    "hand wrapped\nparagraph lines\nthree of them",
    "- item\n- item two\n  - nested",
    "1. one\n2. two",
    "- [ ] task\n- [x] done",
    "> quote\n> more",
    "> [!TIP]\n> advice",
    "```py\nx = 1\n\ny = 2\n```",
    "```\nunclosed fence",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "<div>\nhtml\n</div>",
    "    indented code",
    "---",
    "[ref]: http://example.invalid",
    "text with `code` and **bold** and [ref]",
    "- a\n\n  > quote in list\n\n  ```\n  code in list\n  ```",
    "漢字 wide text 漢字",
    "",
]


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


def random_marks(rng: random.Random, count: int) -> Marks:
    """Git marks on a fifth of `count` lines, and gaps above a sixth."""
    changed = {n: rng.choice([ADDED, MODIFIED]) for n in rng.sample(range(1, count + 1), k=count // 5)}
    removed = {n: rng.randrange(1, 9) for n in rng.sample(range(1, count + 2), k=count // 6 + 1)}
    return Marks(changed=changed, removed=removed)


def assert_answers_as_laid_out(view: LineView | DiffView, laid: DocumentView, rng: random.Random) -> None:
    """`view` (which knows every row at once) answers what `laid` (the same
    rows laid out block by block) answers, asked in a random order first."""
    count = view.line_count
    # Asked in a random order first: what is known so far is right.
    for _ in range(5):
        index = rng.randrange(0, len(laid) + 3)
        assert view.line_at(index) == laid.line_at(index), index
        top = rng.randrange(0, len(laid) + 1)
        assert view.window(top, 7, 3) == laid.window(top, 7, 3), top
        line = rng.randrange(-2, count + 3)
        assert view.rows_meeting(line) == laid.rows_meeting(line), line
    assert len(view) == len(laid) == view.content_rows() == view.rows_so_far()
    assert view.complete() and view.laid_through() == count
    assert list(view) == list(laid)
    hscroll = rng.randrange(0, 40)
    assert view.window(0, len(view) + 3, hscroll) == laid.window(0, len(laid) + 3, hscroll)
    for index in range(-2, len(view) + 2):
        assert view.line_at(index) == laid.line_at(index), index
        assert view.anchor_at(index) == laid.anchor_at(index), index
    for _ in range(10):
        start, end = rng.randrange(-3, count + 4), rng.randrange(-3, count + 4)
        assert view.rows_meeting(start, end) == laid.rows_meeting(start, end)
    top = rng.randrange(0, len(view) + 1)
    assert view.max_pre_cells(top, 20) == laid.max_pre_cells(top, 20)
