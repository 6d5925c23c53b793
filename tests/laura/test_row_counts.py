"""A plain view's row counts, a byte a line: the rows through any line, a
line's own rows and a log's kept prefix are what summing every count says,
across strides and for lines of hundreds of rows; a view that counted a
million one-row lines keeps about a megabyte (four bytes a line before)."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from laura.render.document import Document
from laura.render.row_counts import STRIDE, RowCounts
from laura.render.wrapped_view import WrappedView


@pytest.mark.parametrize("seed", range(6))
def test_row_counts_answer_as_summing_every_count(seed: int) -> None:
    rng = random.Random(seed)
    counts = RowCounts()
    written: list[int] = []
    for _ in range(rng.randrange(1, 40)):  # counted a run at a time, as a view counts
        run = [rng.choice([1, 1, 1, 1, 2, 3, 254, 255, 256, 1000, 70_000]) for _ in range(rng.randrange(0, 3 * STRIDE))]
        counts.extend(run)
        written += run
        assert len(counts) == len(written)
    for line in {0, 1, STRIDE - 1, STRIDE, STRIDE + 1, len(written), *rng.sample(range(len(written) + 1), min(60, len(written)))}:
        if line > len(written):
            continue
        assert counts.through(line) == sum(written[:line]), line
        if line:
            assert counts.rows_of(line) == written[line - 1], line
    for lines in {0, STRIDE, len(written) // 2, len(written)}:
        kept = counts.prefix(lines)
        assert len(kept) == lines
        assert kept.through(lines) == sum(written[:lines])
        kept.extend([300, 1])  # a log that grew goes on counting
        assert kept.through(lines + 2) == sum(written[:lines]) + 301


@pytest.mark.parametrize("line", ["ok", "", "界界", "a\tb"])
def test_a_million_one_row_lines_keep_about_a_megabyte_of_counts(line: str) -> None:
    document = Document("app.log", (line + "\n") * 1_000_000)
    view = document.view(80)
    assert isinstance(view, WrappedView)
    tracemalloc.start()
    try:
        assert len(view) == 1_000_000
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 1_500_000, f"{held:,} bytes of counts for a million lines"  # before: 4 MB
    assert view.line_at(999_999) == 1_000_000
    assert view.rows_meeting(500_000) == range(499_999, 500_000)
