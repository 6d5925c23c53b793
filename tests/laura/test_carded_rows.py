"""`CardedRows` puts the review's cards among a file pane's rows as they are
made: it answers exactly what merging the cards into every row of the file
answered (rows, windows at any horizontal scroll, highlights, lines and
anchors), in whatever order it is asked, for markdown, plain text and code,
with git's marks; it places a card far down a long file without making the
rows above it; and a cursor on a card or a file row stays put when cards
come, change or fold."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

import pytest

from laura.panes.carded_rows import CardedRows, carried
from laura.render.document import Document, row_text
from laura.render.lines import clamp_range, rows_meeting
from laura.render.marks import ADDED, MODIFIED, Marks
from laura.render.style import Row
from laura.review.cards import card_rows
from laura.review.threads import Note, Thread


def merged(rows: Sequence[Row], threads: Sequence[Thread], width: int) -> list[Row]:
    """The cards merged into every row, as panes did before `CardedRows`:
    each card after the last row of its thread's first line, a card whose
    line no row shows after the last row, in source order."""
    last_row: dict[int, int] = {}
    for index, row in enumerate(rows):
        if row.source is not None:
            for line in range(row.source[0], row.source[1] + 1):
                last_row[line] = index
    cards_after: dict[int, list[Row]] = {}
    for thread in threads:
        at = last_row.get(thread.line, len(rows) - 1)
        cards_after.setdefault(at, []).extend(card_rows(thread, width, 1))
    out: list[Row] = []
    for index, row in enumerate(rows):
        out.append(row)
        out.extend(cards_after.get(index, ()))
    out.extend(cards_after.get(-1, ()))
    return out


def anchor_in(rows: Sequence[Row], index: int) -> tuple[int, int] | None:
    if index < 0:
        return None
    for row in reversed(rows[: min(index, len(rows) - 1) + 1]):
        if row.source is not None:
            return row.source
    return None


MARKDOWN = [
    "# Title\n", "\n", "A paragraph that runs on\nover two source lines.\n", "\n", "- item one\n",
    "- item two, long enough to wrap at a narrow width for sure\n", "\n", "```\ncode line\n```\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n", "\n", "> quoted\n", "---\n", "plain\n",
]  # fmt: skip
PROSE = ["word " * 30 + "\n", "short\n", "\n", "\twith a tab\n", "界" * 40 + "\n", "x" * 200 + "\n"]
CODE = ["def f(x):\n", "    return x\n", "\n", "value = " + "1 + " * 40 + "1\n", "# comment\n"]
KINDS = {"notes.md": MARKDOWN, "server.log": PROSE, "module.py": CODE}


def random_document(rng: random.Random, name: str) -> Document:
    return Document(name, "".join(rng.choice(KINDS[name]) for _ in range(rng.randrange(0, 60))))


def random_marks(rng: random.Random, count: int) -> Marks:
    if not count or rng.random() < 0.4:
        return Marks()
    changed = {n: rng.choice([ADDED, MODIFIED]) for n in rng.sample(range(1, count + 1), k=count // 5)}
    removed = {n: rng.randrange(1, 9) for n in rng.sample(range(1, count + 2), k=count // 6 + 1)}
    return Marks(changed=changed, removed=removed)


def random_threads(rng: random.Random, rows: Sequence[Row], line_count: int) -> list[Thread]:
    anchors = {source for row in rows if (source := row.source) is not None}
    picks = set(rng.sample(sorted(anchors), k=min(len(anchors), rng.randrange(1, 6))))
    for _ in range(rng.randrange(0, 3)):  # a line alone (a blank line, one past the end)
        line = rng.randrange(1, line_count + 3)
        picks.add((line, line))
    threads = [
        Thread(anchor, [Note(rng.choice(["ok", "why " * 20]), agent=rng.choice([None, "bot"]))],
               collapsed=rng.random() < 0.3)
        for anchor in picks
    ]  # fmt: skip
    return sorted(threads, key=lambda thread: thread.anchor)


def carded(document: Document, width: int, marks: Marks, threads: list[Thread]) -> CardedRows:
    """Cards over a view nothing was asked of yet."""
    return CardedRows(document.view(width, marks), threads)


@pytest.mark.parametrize("name", list(KINDS))
def test_carded_rows_answer_as_merging_the_cards_into_every_row_would(name: str) -> None:
    rng = random.Random(name)
    for _ in range(40):
        document = random_document(rng, name)
        document.colour(document.line_count, 5.0)
        width = rng.randrange(12, 90)
        marks = random_marks(rng, document.line_count)
        every = list(document.view(width, marks))
        threads = random_threads(rng, every, document.line_count)
        expected = merged(every, threads, width)
        fresh = functools.partial(carded, document, width, marks, threads)
        assert list(fresh()) == expected
        assert len(fresh()) == len(expected) == fresh().content_rows()
        for _ in range(8):  # each question first, on rows nothing was asked of yet
            hscroll = rng.choice([0, 0, 5, 30])
            top, height = rng.randrange(0, len(expected) + 3), rng.randrange(1, 30)
            clipped = merged(document.view(width, marks).window(0, len(every), hscroll), threads, width)
            assert fresh().window(top, height, hscroll) == clipped[top : top + height]
            start, end = rng.randrange(-2, document.line_count + 4), rng.randrange(-2, document.line_count + 4)
            lit = rows_meeting(expected, *clamp_range(start, end, document.line_count))
            assert fresh().rows_meeting(start, end) == (lit if document.line_count else range(0))
            index = rng.randrange(-2, len(expected) + 3)
            assert fresh().anchor_at(index) == anchor_in(expected, index)
            line = anchor_in(expected, index)
            assert fresh().line_at(index) == (line[0] if line else None)
            wanted = rng.randrange(0, len(expected) + 5)
            rows = fresh()
            assert rows.available(wanted) >= min(wanted, len(expected))
            assert rows.complete() == (rows.available(wanted) == len(expected) and rows.base.complete())


def test_a_card_far_down_a_long_log_is_placed_without_the_rows_above() -> None:
    document = Document("server.log", "".join(f"request {n} " + "x" * 150 + "\n" for n in range(300_000)))
    view = document.view(100, Marks())
    rows = CardedRows(view, [Thread((299_990, 299_990), [Note("slow here", agent="bot")])])
    top = rows.window(0, 40)
    assert [row.source for row in top[:2]] == [(1, 1), (1, 1)]
    assert view.laid_through() < 100  # the first screen counted only its lines
    assert not rows.complete()
    found = rows.rows_for_line(299_990)  # a jump to the thread counts that far
    card = rows.window(found.stop, 3)
    assert "slow here" in "".join(map(row_text, card))
    assert rows.line_at(found.stop) == 299_990  # a comment on the card is about its line


def test_cards_go_under_their_line_and_under_a_whole_folded_block() -> None:
    text = "one\n\nA paragraph folded\nover three\nsource lines.\n\n---\n\nsix\n"
    document = Document("notes.md", text)
    threads = [
        Thread((3, 5), [Note("on the block")], collapsed=True),
        Thread((9, 9), [Note("on six")], collapsed=True),
        Thread((12, 12), [Note("past the end")], collapsed=True),
    ]
    rows = CardedRows(document.view(40, Marks()), threads)
    assert [row_text(row).rstrip() for row in rows] == [
        "one",
        "",
        "A paragraph folded over three source",
        "lines.",
        " ▸ 1 comment · r expands",
        "",
        "─" * 40,
        "",
        "six",
        " ▸ 1 comment · r expands",
        " ▸ 1 comment · r expands",
    ]
    assert rows.anchor_at(4) == (3, 5)  # a comment on the card joins the block's thread


def test_the_cursor_stays_on_its_row_when_cards_come_change_and_fold() -> None:
    document = Document("module.py", "".join(f"line_{n} = {n}\n" for n in range(1, 41)))
    view = document.view(60, Marks())
    open_card = [Thread((10, 10), [Note("first"), Note("second")])]
    folded = [Thread((10, 10), [Note("first"), Note("second")], collapsed=True)]
    above = CardedRows(view, open_card)
    assert carried(view, above, 20) == 20 + len(card_rows(open_card[0], 60, 1))  # a row below moves down
    assert carried(view, above, 5) == 5
    assert carried(above, view, 20 + len(card_rows(open_card[0], 60, 1))) == 20
    on_card = 10 + 2  # the card's second row, under row 9 (line 10)
    assert row_text(above[on_card]).strip().startswith("│")
    assert carried(above, view, on_card) == 9  # the card went: its line
    assert carried(above, CardedRows(view, folded), on_card) == 9  # folded to one row: its line
    assert carried(above, CardedRows(view, open_card), on_card) == on_card  # unchanged: the same row
