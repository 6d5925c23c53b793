"""A file pane's lines are a `LineStore`: the text they were split from and
where each line starts. It reads exactly as the list of lines would (any
index, slice or iteration, over pieces added any way, and joined), and a
file of short lines costs a few bytes a line, not the 60-70 a list of
strings took (a 64 MiB log of two-letter lines held 1.6 GB in a pane)."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import pytest

from laura.panes.source import load_source
from laura.render.line_store import LineStore
from laura.render.wrapped_view import WrappedView

PIECES = ["a", "bc", "", "界", "😀", "\ufffd", "x" * 70_000, " "]


def random_texts(rng: random.Random) -> list[str]:
    """Texts as a loader adds them: whole lines, with or without a final
    newline, some empty lines, some long (past the two-byte starts)."""
    texts = []
    for _ in range(rng.randrange(1, 6)):
        lines = [
            "".join(rng.choice(PIECES) for _ in range(rng.randrange(3)))
            for _ in range(rng.randrange(1, 12))
        ]
        texts.append("\n".join(lines) + rng.choice(["\n", ""]))
    return texts


def expected_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def test_a_store_reads_as_the_list_of_its_lines() -> None:
    rng = random.Random(11)
    for _ in range(300):
        store, reference = LineStore(), []
        for text in random_texts(rng):
            if text and rng.random() < 0.2 and "\n" not in text:
                store.add_line(text)
                reference.append(text)
            else:
                store.add_text(text)
                reference.extend(expected_lines(text) if text else [])
        assert len(store) == len(reference)
        assert list(store) == reference
        assert store == reference and store == tuple(reference)
        assert [store[at] for at in range(len(reference))] == reference
        assert [store[-at] for at in range(1, len(reference) + 1)] == reference[::-1]
        for _ in range(10):
            start = rng.randrange(-3, len(reference) + 3)
            stop = rng.randrange(-3, len(reference) + 3)
            step = rng.choice([None, None, 1, 2, -1, 3])
            assert store[start:stop:step] == reference[start:stop:step], (start, stop, step)
        assert store[:] == reference
        with pytest.raises(IndexError):
            store[len(reference)]
        with pytest.raises(IndexError):
            store[-len(reference) - 1]


def test_joined_stores_read_as_both_lists_and_leave_each_as_it_was() -> None:
    rng = random.Random(12)
    for _ in range(100):
        first = LineStore.of_text("".join(random_texts(rng)))
        second = LineStore.of_text("".join(random_texts(rng)))
        before = (list(first), list(second))
        joined = first.joined(second)
        assert joined == before[0] + before[1]
        assert (list(first), list(second)) == before
        assert joined.joined(LineStore()) == joined
        assert LineStore().joined(joined) == joined


def test_a_store_is_not_equal_to_other_lines() -> None:
    store = LineStore.of_text("one\ntwo\n")
    assert store != ["one", "two", ""]
    assert store != ["one", "tw"]
    assert store != "one\ntwo"
    assert LineStore() == []
    assert LineStore.of_text("\n") == [""]


@pytest.mark.parametrize(
    ("line", "most"),
    [
        ("ab", 6),  # two-letter lines: 1 B text + 2 B start each, per 3 B of file
        ("", 4),  # empty lines: the newline and a start
        ("界", 5),  # a wide character: two bytes of text (UCS-2) and a start
        ("a\r", 4),  # CRLF: the line is "a"
        ("a\x07", 8),  # a control character: shown as U+FFFD, so two bytes a character
    ],
)
def test_a_file_of_short_lines_costs_a_few_bytes_a_line(tmp_path: Path, line: str, most: int) -> None:
    """Loaded as a pane loads it (32 KiB pieces) and counted at a width, as
    a pane does: measured by what stays allocated (tracemalloc). A list of
    lines took 60-84 bytes a line here."""
    count = 300_000
    path = tmp_path / "short.log"
    path.write_text((line + "\n") * count, encoding="utf-8")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        loaded = load_source(str(path))
        view = loaded.document.view(80)
        assert isinstance(view, WrappedView)
        for _ in view.count_steps():
            pass
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    shown = {"a\r": "a", "a\x07": "a\ufffd"}.get(line, line)  # what `displayable` makes of it
    assert loaded.document.line_count == count
    assert loaded.document.lines[count - 1] == shown
    assert view.rows_so_far() == count
    # The row counts take a byte a line (four before); the lines themselves `most`.
    assert kept < count * (most + 1) + (1 << 20), kept / count
