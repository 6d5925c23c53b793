"""Comment threads of a file pane: authors, replies, edits, cards, navigation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laura.review.threads import (
    Change,
    CommentError,
    Intent,
    Note,
    ReviewCounts,
    ThreadBook,
    agent_label,
    anchor_for_line,
    validate_agent_comment,
)


def person_says(book: ThreadBook, line: int, text: str) -> Change:
    return book.commit_comment(book.begin_comment((line, line)), text)


# -- the person's comments ------------------------------------------------------


def test_first_comment_on_a_line_starts_a_thread() -> None:
    book = ThreadBook()
    draft = book.begin_comment((4, 4))
    assert draft.intent is Intent.NEW
    assert draft.prefill == ""
    assert book.commit_comment(draft, "rename this") is Change.ADDED
    [thread] = book.threads()
    assert thread.anchor == (4, 4)
    assert thread.notes == [Note("rename this")]
    assert thread.header == "L4"


def test_c_on_the_persons_own_newest_comment_edits_it() -> None:
    book = ThreadBook()
    person_says(book, 4, "rename this")
    draft = book.begin_comment((4, 4))
    assert draft.intent is Intent.EDIT
    assert draft.prefill == "rename this"
    assert book.commit_comment(draft, "rename this to `total`") is Change.EDITED
    assert book.thread_at((4, 4)).notes == [Note("rename this to `total`")]


def test_editing_to_the_same_text_changes_nothing() -> None:
    book = ThreadBook()
    person_says(book, 4, "same")
    assert person_says(book, 4, "same") is Change.UNCHANGED
    assert book.thread_at((4, 4)).notes == [Note("same")]


def test_an_empty_edit_deletes_the_comment_and_its_now_empty_thread() -> None:
    book = ThreadBook()
    person_says(book, 4, "rename this")
    assert person_says(book, 4, "   ") is Change.DELETED
    assert book.is_empty
    assert book.count == 0


def test_deleting_a_reply_keeps_the_rest_of_the_thread() -> None:
    book = ThreadBook()
    book.add_agent_comment((9, 9), "is this right?", "claude")
    person_says(book, 9, "yes")
    assert person_says(book, 9, "") is Change.DELETED
    assert book.thread_at((9, 9)).notes == [Note("is this right?", agent="claude")]


def test_c_on_a_thread_whose_newest_note_is_the_agents_replies() -> None:
    book = ThreadBook()
    book.add_agent_comment((2, 2), "why a list here?", "claude")
    draft = book.begin_comment((2, 2))
    assert draft.intent is Intent.REPLY
    assert draft.prefill == ""
    assert book.commit_comment(draft, "order matters") is Change.REPLIED
    assert book.thread_at((2, 2)).notes == [
        Note("why a list here?", agent="claude"),
        Note("order matters"),
    ]


def test_a_blank_comment_creates_nothing() -> None:
    book = ThreadBook()
    assert person_says(book, 1, "") is Change.UNCHANGED
    assert person_says(book, 1, " \n\t") is Change.UNCHANGED
    book.add_agent_comment((3, 3), "hm", "agent")
    assert person_says(book, 3, "  ") is Change.UNCHANGED
    assert book.count == 1
    assert len(book.thread_at((3, 3)).notes) == 1


def test_an_edit_overtaken_by_an_agent_reply_becomes_a_reply() -> None:
    # The agent answered while the person was rewriting their note: the
    # person's Enter must not overwrite the agent's words.
    book = ThreadBook()
    person_says(book, 5, "first")
    draft = book.begin_comment((5, 5))
    book.add_agent_comment((5, 5), "noted", "claude")
    assert book.commit_comment(draft, "first, revised") is Change.REPLIED
    assert [n.body for n in book.thread_at((5, 5)).notes] == [
        "first",
        "noted",
        "first, revised",
    ]


def test_an_edit_whose_thread_vanished_starts_a_new_one() -> None:
    book = ThreadBook()
    person_says(book, 5, "first")
    draft = book.begin_comment((5, 5))
    book.clear()
    assert book.commit_comment(draft, "again") is Change.ADDED
    assert book.thread_at((5, 5)).notes == [Note("again")]


def test_multi_line_comments_are_kept_as_typed() -> None:
    book = ThreadBook()
    person_says(book, 1, "first line\nsecond line")
    assert book.thread_at((1, 1)).notes[0].body == "first line\nsecond line"


# -- folded blocks ----------------------------------------------------------------


SOURCES = [(1, 1), (2, 2), (3, 6), (3, 6), (7, 7), None, (8, 8)]


def test_any_line_of_a_folded_block_addresses_the_block() -> None:
    for line in (3, 4, 5, 6):
        assert anchor_for_line(line, SOURCES) == (3, 6)
    assert anchor_for_line(7, SOURCES) == (7, 7)
    # A line no row claims (e.g. past what was rendered) stands alone.
    assert anchor_for_line(20, SOURCES) == (20, 20)


def test_comments_on_every_row_of_a_folded_block_join_one_thread() -> None:
    book = ThreadBook()
    book.commit_comment(book.begin_comment((3, 6)), "too long")
    book.comment_from_agent(5, "agreed", line_count=8, sources=SOURCES)
    [thread] = book.threads()
    assert thread.anchor == (3, 6)
    assert thread.header == "L3-6"
    assert [n.body for n in thread.notes] == ["too long", "agreed"]
    assert book.thread_covering(4) is thread
    assert book.thread_covering(7) is None


# -- the agent's comments -----------------------------------------------------------


def test_agent_label_prefers_the_request_then_ready_then_agent() -> None:
    assert agent_label("reviewer", "claude") == "reviewer"
    assert agent_label(None, "claude") == "claude"
    assert agent_label("  ", "claude") == "claude"
    assert agent_label(None, None) == "agent"
    assert agent_label("", "") == "agent"


def test_agent_comment_starts_then_extends_a_thread() -> None:
    book = ThreadBook()
    first = book.comment_from_agent(2, "one", line_count=3, sources=[], ready_agent="claude")
    second = book.comment_from_agent(2, "two", line_count=3, sources=[], author="bot")
    assert first is second
    assert first.notes == [Note("one", agent="claude"), Note("two", agent="bot")]


@pytest.mark.parametrize(
    ("line", "body", "message"),
    [
        (1, None, "comment needs a body"),
        (1, "", "comment needs a body"),
        (1, "  \n ", "comment needs a body"),
        (999, "x", "line 999 is past the file's 2 lines"),
        (3, "x", "line 3 is past the file's 2 lines"),
        (0, "x", "line 0 is not a line: lines count from 1"),
        (-4, "x", "line -4 is not a line: lines count from 1"),
    ],
)
def test_bad_agent_comments_are_refused_with_a_reason(
    line: int, body: str | None, message: str
) -> None:
    book = ThreadBook()
    with pytest.raises(CommentError) as caught:
        book.comment_from_agent(line, body, line_count=2, sources=[])
    assert str(caught.value) == message
    assert book.is_empty


def test_past_the_end_of_a_one_line_file_is_worded_in_the_singular() -> None:
    with pytest.raises(CommentError, match=r"^line 2 is past the file's 1 line$"):
        validate_agent_comment(2, "x", 1)
    with pytest.raises(CommentError, match=r"^line 1 is past the file's 0 lines$"):
        validate_agent_comment(1, "x", 0)


def test_the_last_line_is_inside_the_file() -> None:
    assert validate_agent_comment(2, "ok", 2) == "ok"


# -- collapse -------------------------------------------------------------------------


def test_r_on_a_thread_toggles_that_card_only() -> None:
    book = ThreadBook()
    person_says(book, 1, "a")
    person_says(book, 5, "b")
    book.toggle((1, 1))
    assert [t.collapsed for t in book.threads()] == [True, False]
    book.toggle((1, 1))
    assert [t.collapsed for t in book.threads()] == [False, False]


def test_r_off_a_thread_collapses_all_if_any_is_open_else_expands_all() -> None:
    book = ThreadBook()
    person_says(book, 1, "a")
    person_says(book, 5, "b")
    book.toggle((1, 1))  # one collapsed, one open
    book.toggle((3, 3))
    assert [t.collapsed for t in book.threads()] == [True, True]
    book.toggle(None)
    assert [t.collapsed for t in book.threads()] == [False, False]


def test_r_with_no_threads_does_nothing() -> None:
    book = ThreadBook()
    book.toggle(None)
    book.toggle((1, 1))
    assert book.is_empty


# -- navigation -------------------------------------------------------------------------


def test_n_and_shift_n_jump_between_threads_and_wrap() -> None:
    book = ThreadBook()
    for line in (3, 10, 20):
        person_says(book, line, "x")
    assert book.next_thread(1).line == 3
    assert book.next_thread(3).line == 10
    assert book.next_thread(15).line == 20
    assert book.next_thread(20).line == 3
    assert book.previous_thread(20).line == 10
    assert book.previous_thread(11).line == 10
    assert book.previous_thread(3).line == 20
    assert book.previous_thread(1).line == 20


def test_navigation_without_threads_goes_nowhere() -> None:
    book = ThreadBook()
    assert book.next_thread(1) is None
    assert book.previous_thread(1) is None


def test_a_single_thread_is_its_own_next_and_previous() -> None:
    book = ThreadBook()
    person_says(book, 7, "x")
    assert book.next_thread(7).line == 7
    assert book.previous_thread(7).line == 7


# -- the border count -------------------------------------------------------------------


def test_border_counts_threads_above_and_below_the_visible_lines() -> None:
    book = ThreadBook()
    for line in (2, 5, 30, 41):
        person_says(book, line, "x")
    book.commit_comment(book.begin_comment((8, 12)), "block")
    counts = book.counts(10, 30)
    # (8, 12) overlaps the window: neither above nor below.
    assert counts == ReviewCounts(total=5, above=2, below=1)
    assert counts.label() == "[review: 5 ↑2 ↓1]"


def test_no_threads_means_no_border_label() -> None:
    assert ThreadBook().counts(1, 10).label() == ""


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.integers(1, 60), max_size=15),
    first=st.integers(1, 60),
    height=st.integers(0, 30),
)
def test_counts_never_exceed_the_total(lines: list[int], first: int, height: int) -> None:
    book = ThreadBook()
    for line in lines:
        book.add_agent_comment((line, line), "x", "agent")
    counts = book.counts(first, first + height)
    visible = sum(1 for t in book.threads() if first <= t.line <= first + height)
    assert counts.total == len(set(lines))
    assert counts.above + counts.below + visible == counts.total


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.integers(1, 40), min_size=1, max_size=10), start=st.integers(0, 41))
def test_n_visits_every_thread_once_per_lap(lines: list[int], start: int) -> None:
    book = ThreadBook()
    for line in lines:
        book.add_agent_comment((line, line), "x", "agent")
    seen = []
    at = start
    for _ in range(book.count):
        thread = book.next_thread(at)
        assert thread is not None
        seen.append(thread.line)
        at = thread.line
    assert sorted(seen) == sorted(set(lines))


def test_threads_come_out_in_line_order() -> None:
    book = ThreadBook()
    for line in (9, 2, 30, 4):
        person_says(book, line, str(line))
    assert [t.line for t in book] == [2, 4, 9, 30]


def test_clear_drops_every_thread() -> None:
    book = ThreadBook()
    person_says(book, 1, "x")
    book.add_agent_comment((2, 2), "y", "agent")
    book.clear()
    assert book.is_empty
    assert book.threads() == []
