"""The inline diff view makes its rows as they are read: a `DiffView`
answers exactly what laying every row of the view out answered (rows,
counts, highlights, lines, sideways scrolling), however far its hunks are
indexed, and makes only the rows asked for."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest

from laura.git_hunks import Hunk, Hunks, parse_hunks
from laura.render import theme
from laura.render.code import TAB
from laura.render.diff_view import DiffView
from laura.render.lines import Block, KeptBlocks, Line
from laura.render.style import Span
from laura.render.view import DocumentView
from tests.laura.render_helpers import assert_answers_as_laid_out


def laid_out(lines: Sequence[str], hunks: Sequence[Hunk], width: int) -> DocumentView:
    """The diff view as it was laid out before `DiffView`: a document of one
    pre-formatted line per row, walking the hunks beside the lines."""

    def blocks() -> Iterator[Block]:
        out: list[Line] = []
        last = len(lines)
        ahead = iter(hunks)
        hunk = next(ahead, None)
        changed = range(0)
        for number in range(1, last + 2):
            while hunk is not None and min(hunk.new_start + (hunk.new_count == 0), last + 1) <= number:
                out.extend(
                    Line((Span("-" + old.expandtabs(TAB), theme.DIFF_REMOVED),), None, pre=True)
                    for old in hunk.removed
                )
                if hunk.new_count:
                    changed = range(hunk.new_start, hunk.new_start + hunk.new_count)
                hunk = next(ahead, None)
            if number <= last:
                text = lines[number - 1].expandtabs(TAB)
                spans = (Span("+" + text, theme.DIFF_ADDED),) if number in changed else (Span(" " + text),)
                out.append(Line(spans, (number, number), pre=True))
        yield Block(tuple(out), 1, last)

    return DocumentView(KeptBlocks(blocks()), len(lines), width)


def random_hunks(rng: random.Random, count: int) -> list[Hunk]:
    """Hunks as git orders them: changes, insertions and deletions (at the
    start and the end too), some next to each other."""
    hunks: list[Hunk] = []
    line = rng.randrange(0, 3)
    while line <= count:
        kind = rng.choice(["change", "insert", "delete"])
        removed = tuple(f"old\t{rng.random():.4f}" for _ in range(rng.randrange(1, 4)))
        if kind == "delete" or count - line < 1:
            hunks.append(Hunk(line, 0, removed))
            line += rng.randrange(2, 7)  # git joins a deletion and a change next to it
            continue
        new = rng.randrange(1, min(4, count - line + 1) + 1)
        start = max(line, 1)
        if start + new - 1 > count:
            break
        hunks.append(Hunk(start, new, removed if kind == "change" else ()))
        line = start + new + rng.randrange(0, 6)
    return hunks


def random_lines(rng: random.Random, count: int) -> list[str]:
    return [rng.choice(["value = 1", "\tindented", "", "y" * 130, "ünïcode ✓"]) for _ in range(count)]


def test_a_diff_view_answers_as_laying_every_row_out_would() -> None:
    rng = random.Random(3)
    for _ in range(150):
        count = rng.randrange(0, 120)
        lines = random_lines(rng, count)
        hunks = random_hunks(rng, count) if rng.random() < 0.9 else []
        kept = Hunks.of(hunks)
        assert kept.in_order
        width = rng.randrange(8, 100)
        view = DiffView(lines, kept, width)
        assert_answers_as_laid_out(view, laid_out(lines, hunks, width), rng)


def test_hunks_past_the_end_of_a_file_that_shrank_come_last() -> None:
    # Git looked at the file before it lost its last lines: what git placed
    # past the end is shown below the last line, as it was.
    rng = random.Random(7)
    for _ in range(40):
        count = rng.randrange(1, 60)
        hunks = random_hunks(rng, count)
        lines = random_lines(rng, rng.randrange(0, count + 1))
        view = DiffView(lines, Hunks.of(hunks), 30)
        assert_answers_as_laid_out(view, laid_out(lines, hunks, 30), rng)


def test_hunks_out_of_git_order_are_not_shown() -> None:
    hunks = Hunks.of([Hunk(5, 1, ("five",)), Hunk(2, 1, ("two",))])
    assert not hunks.in_order
    with pytest.raises(ValueError, match="git's order"):
        DiffView(["x"] * 6, hunks, 40)


def test_a_diff_view_makes_only_the_rows_read() -> None:
    lines = [f"value_{n} = {n}" for n in range(400_000)]
    hunks = Hunks.of(Hunk(n, 1, (f"old_{n}",)) for n in range(1, 400_001, 4))
    view = DiffView(lines, hunks, 60)
    top = view.window(0, 4)
    assert [row.spans[0].text for row in top] == ["-old_1", "+value_0 = 0", " value_1 = 1", " value_2 = 2"]
    assert view.rows_meeting(200_001) == range(250_001, 250_002)  # below 50,001 removed lines
    end = view.window(len(view) - 2, 2)
    assert [row.spans[0].text for row in end] == [" value_399998 = 399998", " value_399999 = 399999"]
    assert len(view) == 500_000 and len(view._kept) <= 6  # made only the rows read


def test_removed_lines_of_a_real_diff_sit_above_the_line_they_preceded() -> None:
    hunks = parse_hunks("@@ -1 +0,0 @@\n-gone first\n@@ -4,2 +3 @@\n-four\n-five\n+FOUR\n@@ -9 +6,0 @@\n-nine\n")
    lines = ["two", "three", "FOUR", "six", "seven", "eight"]
    view = DiffView(lines, hunks, 40)
    shown = [(row.spans[0].text, row.source) for row in view]
    assert shown == [
        ("-gone first", None), (" two", (1, 1)), (" three", (2, 2)), ("-four", None),
        ("-five", None), ("+FOUR", (3, 3)), (" six", (4, 4)), (" seven", (5, 5)),
        (" eight", (6, 6)), ("-nine", None),
    ]  # fmt: skip
    assert view.line_at(0) is None and view.line_at(3) == 2 and view.line_at(9) == 6
    assert view.rows_meeting(2, 3) == range(2, 6)
