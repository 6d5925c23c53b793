"""Code and diff files are shown one row per line, so any row is made at
once: a `LineView` answers exactly what laying every row out answered (rows,
counts, highlights, lines, with git's marks and gap rows), and the real
`laura` opens a file of hundreds of thousands of lines at its end while keys
keep echoing."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from laura.render.document import Document
from laura.render.line_view import LineView
from laura.render.lines import KeptBlocks
from laura.render.marks import Marks
from laura.render.view import DocumentView
from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.render_helpers import assert_answers_as_laid_out, random_marks
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]


@pytest.mark.parametrize("name", ["module.py", "change.diff"])
def test_a_line_view_answers_as_laying_every_row_out_would(name: str) -> None:
    rng = random.Random(name)
    for _ in range(30):
        count = rng.randrange(0, 300)
        text = "".join(rng.choice(["+add\n", "-del\n", "@@ -1 +1 @@\n", "\tx = 1\n", "\n", "y" * 150 + "\n"])
                       for _ in range(count))  # fmt: skip
        marks = random_marks(rng, count) if count and rng.random() < 0.8 else Marks()
        document = Document(name, text)
        document.colour(document.line_count, 5.0)
        width = rng.randrange(10, 120)
        view = document.view(width, marks)
        assert isinstance(view, LineView)
        laid = DocumentView(KeptBlocks(document.blocks()), document.line_count, width, marks)
        assert_answers_as_laid_out(view, laid, rng)


def test_rows_at_the_end_of_a_long_file_are_made_without_the_rows_before() -> None:
    text = "".join(f"value_{n} = {n}\n" for n in range(300_000))
    document = Document("big.py", text)
    view = document.view(100, Marks(removed={299_990: 2}))
    rows = view.window(len(view) - 5, 5)
    assert [row.spans[0].text if row.source is None else row.source[0] for row in rows][-3:] == [
        299_998, 299_999, 300_000,
    ]  # fmt: skip
    assert isinstance(view, LineView) and len(view._kept) <= 5
    assert view.rows_meeting(299_995) == range(299_995, 299_996)  # one gap row above


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize(
    ("name", "line", "count"),
    [("generated.py", "total = total + 1\n", 400_000), ("blank.js", "\n", 8_000_000)],
)
def test_keys_keep_echoing_while_a_long_code_file_opens_at_its_end(
    laura_session: Make, tmp_path: Path, name: str, line: str, count: int
) -> None:
    path = tmp_path / name
    path.write_text(line * (count - 1) + "LAST_LINE = 1\n")
    session = laura_session(command=["cat"])
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        opened = session.cli("open", str(path), "--no-focus", "--highlight", str(count))
        assert opened.returncode == 0, opened.stderr
        busy = [probe.key("Z") for _ in range(60)]
    finally:
        probe.close()
    session.wait_for(lambda text: f"{count} " in text and "LAST_LINE" in text)
    assert_keys_echoed(idle, busy, f"while {name} opened at its end")
