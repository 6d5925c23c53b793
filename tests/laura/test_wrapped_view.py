"""Plain text is shown through a `WrappedView`: each line wraps on its own, so
rows are made only for the lines read and a count per line is all that is
kept. It answers exactly what laying every row out answered (rows, counts,
highlights, lines, with git's marks and gap rows, long and wide lines), and
the real `laura` follows a 1,000,000-line log to its end, or lights a line
near it, while keys keep echoing."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from laura.panes.file import FilePane
from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.render.cells import wrap_count, wrap_spans
from laura.render.diff import plain_blocks
from laura.render.document import Document
from laura.render.lines import KeptBlocks
from laura.render.marks import ADDED, MODIFIED, Marks
from laura.render.style import Span
from laura.render.view import LINE_SHOWN_LIMIT, DocumentView
from laura.render.wrapped_view import WrappedView
from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]

PIECES = ["word ", "x" * 30, "\t", "界", "é", " ", "a-b-c ", "y" * 90, "\ufffd"]


def million_line_log(path: Path, line: str) -> None:
    """A log of 1,000,000 lines, line n being `line.format(n)`."""
    with path.open("w") as out:
        for start in range(0, 1_000_000, 50_000):
            out.write("".join(line.format(n) + "\n" for n in range(start, start + 50_000)))


def random_marks(rng: random.Random, count: int) -> Marks:
    changed = {n: rng.choice([ADDED, MODIFIED]) for n in rng.sample(range(1, count + 1), k=count // 5)}
    removed = {n: rng.randrange(1, 9) for n in rng.sample(range(1, count + 2), k=count // 6 + 1)}
    return Marks(changed=changed, removed=removed)


def test_a_wrapped_view_answers_as_laying_every_row_out_would() -> None:
    rng = random.Random(7)
    for _ in range(60):
        count = rng.randrange(0, 200)
        lines = ["".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 12))) for _ in range(count)]
        if count and rng.random() < 0.2:
            lines[rng.randrange(count)] = "z" * (LINE_SHOWN_LIMIT + 500)  # a cut line
        text = "".join(line + "\n" for line in lines)
        marks = random_marks(rng, count) if count and rng.random() < 0.7 else Marks()
        width = rng.randrange(5, 100)
        view = Document("notes.txt", text).view(width, marks)
        assert isinstance(view, WrappedView)
        laid = DocumentView(KeptBlocks(plain_blocks(text)), count, width, marks)
        # asked in a random order, as a pane asks: a window, a line, the count
        for _ in range(5):
            top = rng.randrange(0, 60)
            assert view.window(top, 20) == laid.window(top, 20)
            assert min(view.available(top), top) == min(laid.available(top), top)
            start, end = rng.randrange(-3, count + 4), rng.randrange(-3, count + 4)
            assert view.rows_meeting(start, end) == laid.rows_meeting(start, end)
        assert len(view) == len(laid) == view.content_rows()
        assert list(view) == list(laid)
        for index in range(-2, len(view) + 2):
            assert view.line_at(index) == laid.line_at(index), index
            assert view.anchor_at(index) == laid.anchor_at(index), index


def test_a_million_lines_are_counted_quickly_and_their_rows_are_not_kept() -> None:
    """Measured against laying the same rows out (what a jump cost before)."""
    text = "".join(f"line {n} of a long log, some words\n" for n in range(300_000))
    document = Document("big.log", text)
    view = document.view(100)
    assert isinstance(view, WrappedView)
    started = time.thread_time()
    end = view.window(len(view) - 3, 3)
    counted = time.thread_time() - started
    assert [row.spans[0].text for row in end] == [f"line {n} of a long log, some words" for n in range(299_997, 300_000)]
    assert len(view._kept) == 3
    laid = DocumentView(KeptBlocks(plain_blocks(text[: len(text) // 10])), 30_000, 100)
    started = time.thread_time()
    len(laid)  # a tenth of the file
    tenth = time.thread_time() - started
    assert counted < tenth, (counted, tenth)


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("how", [["--follow"], ["--highlight", "999990"]])
def test_keys_keep_echoing_while_a_million_line_log_is_followed_or_lit_near_its_end(
    laura_session: Make, tmp_path: Path, how: list[str]
) -> None:
    path = tmp_path / "big.log"
    million_line_log(path, "entry {:07d} of the log")
    session = laura_session(command=["cat"])
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        opened = session.cli("open", str(path), "--no-focus", *how)
        assert opened.returncode == 0, opened.stderr
        wanted = "entry 0999999" if how == ["--follow"] else "entry 0999989"
        busy: list[float] = []
        while len(busy) < 40 or wanted not in session.text():
            busy.append(probe.key("Z"))
            assert len(busy) < 3000, "the end was never shown"
    finally:
        probe.close()
    assert_keys_echoed(idle, busy, f"while the log opened with {how}")


def _painted(pane: FilePane, area: Rect) -> list[str]:
    canvas = Canvas(area.x + area.width + 1, area.y + area.height + 1)
    pane.fit(area)
    pane.draw(canvas, area, True)
    return canvas.text()


@pytest.mark.parametrize("grown", [True, False])
def test_a_log_that_only_grew_keeps_its_counts_and_a_rewritten_one_does_not(
    tmp_path: Path, grown: bool
) -> None:
    path = tmp_path / "service.log"
    path.write_text("".join(f"entry {n} " + "word " * (n % 25) + "\n" for n in range(20_000)))
    area = Rect(1, 1, 60, 20)
    pane = FilePane(1, str(path), "service.log")
    pane.set_follow(True, area)
    _painted(pane, area)
    old = pane.source_rows(area.width)
    assert isinstance(old, WrappedView) and old.complete()
    if grown:
        with path.open("a") as log:
            log.write("".join(f"late {n}\n" for n in range(10)))
    else:
        path.write_text("".join(f"ENTRY {n}\n" for n in range(20_010)))
    assert pane.reload_if_changed()
    new = pane.source_rows(area.width)
    assert isinstance(new, WrappedView) and new is not old
    assert new.counted_lines == (20_000 if grown else 0)
    shown = _painted(pane, area)
    assert any(("late 9" if grown else "ENTRY 20009") in row for row in shown)
    fresh = DocumentView(KeptBlocks(plain_blocks(path.read_text())), 20_010, pane.text_width(area.width))
    assert new.window(len(new) - 40, 40) == fresh.window(len(fresh) - 40, 40)


@pytest.mark.timing
@pytest.mark.tmux
def test_a_resize_far_down_a_million_line_log_keeps_keys_echoing_and_its_place(
    laura_session: Make, tmp_path: Path
) -> None:
    path = tmp_path / "big.log"
    million_line_log(path, "e{:07d}")
    session = laura_session(command=["cat"])
    opened = session.cli("open", str(path), "--no-focus", "--highlight", "999990")
    assert opened.returncode == 0, opened.stderr
    session.wait_for("e0999989")
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        # a pane split beside it: the log's pane narrows, its rows are counted anew
        other = tmp_path / "other.txt"
        other.write_text("beside\n")
        split = session.cli("open", str(other), "--no-focus", "--split", opened.stdout.strip(), "--dir", "h")
        assert split.returncode == 0, split.stderr
        busy: list[float] = []
        while len(busy) < 40 or "e0999989" not in session.text():
            busy.append(probe.key("Z"))
            assert len(busy) < 3000, "the highlighted line never came back into view"
    finally:
        probe.close()
    assert_keys_echoed(idle, busy, "while the log's pane narrowed")


def test_counting_a_lines_rows_gives_what_wrapping_it_makes() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        text = "".join(rng.choice([*PIECES, "  ", "   x"]) for _ in range(rng.randrange(0, 16)))
        width = rng.randrange(1, 70)
        assert wrap_count(text, width) == len(wrap_spans((Span(text),) if text else (), width)), (text, width)
