"""Thread cards as rows, and the comment prompt's editor and texts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from laura.render.style import Row
from laura.review.cards import card_rows, cell_width, display_name, wrap_cells
from laura.review.prompt import (
    DraftEditor,
    comment_hint,
    frozen_notice,
    frozen_refusal,
    unsubmitted_refusal,
)
from laura.review.threads import Intent, Note, Thread


def text_of(row: Row) -> str:
    return "".join(span.text for span in row.spans)


def test_a_card_boxes_the_root_and_its_replies() -> None:
    thread = Thread((4, 4), [Note("rename this"), Note("why not a set?", agent="claude")])
    rows = card_rows(thread, 60, indent=2)
    assert [text_of(r) for r in rows] == [
        "  ╭────────────────────────────╮",
        "  │ You · rename this          │",
        "  │ └─ claude · why not a set? │",
        "  ╰────────────────────────────╯",
    ]
    assert all(r.source is None and not r.first for r in rows)


def test_the_fallback_agent_is_shown_as_agent_capitalised() -> None:
    assert display_name(Note("x", agent="agent")) == "Agent"
    assert display_name(Note("x", agent="claude")) == "claude"
    assert display_name(Note("x")) == "You"


def test_long_and_multi_line_notes_wrap_inside_the_card() -> None:
    thread = Thread((1, 1), [Note("one two three four five six\nseven")])
    rows = [text_of(r) for r in card_rows(thread, 24)]
    assert rows == [
        "╭─────────────────────╮",
        "│ You · one two three │",
        "│       four five six │",
        "│       seven         │",
        "╰─────────────────────╯",
    ]


def test_a_collapsed_card_is_one_row() -> None:
    thread = Thread((1, 1), [Note("a"), Note("b", agent="x")], collapsed=True)
    assert [text_of(r) for r in card_rows(thread, 40, indent=1)] == [" ▸ 2 comments · r expands"]
    single = Thread((1, 1), [Note("a")], collapsed=True)
    assert [text_of(r) for r in card_rows(single, 40)] == ["▸ 1 comment · r expands"]


@settings(max_examples=60, deadline=None)
@given(
    bodies=st.lists(st.text(alphabet="ab 漢\n", max_size=40), min_size=1, max_size=3),
    width=st.integers(20, 80),
)
def test_cards_fit_the_pane(bodies: list[str], width: int) -> None:
    thread = Thread((1, 1), [Note(b) for b in bodies])
    rows = card_rows(thread, width, indent=3)
    widths = {cell_width(text_of(r)) for r in rows}
    assert len(widths) == 1  # a clean rectangle
    assert widths.pop() <= width


def test_wrap_cells_counts_wide_characters_twice() -> None:
    assert wrap_cells("漢字漢字", 4) == ["漢字", "漢字"]
    assert wrap_cells("", 4) == [""]
    assert wrap_cells("abcdef", 4) == ["abcd", "ef"]
    assert wrap_cells("ab cd ef", 5) == ["ab", "cd ef"]


# -- the prompt ---------------------------------------------------------------------------


def test_typing_and_backslash_enter_make_a_newline() -> None:
    editor = DraftEditor()
    editor.insert("first\\")
    assert editor.enter() is False
    editor.insert("second")
    assert editor.text == "first\nsecond"
    assert editor.cursor_position() == (1, 6)
    assert editor.enter() is True
    assert editor.text == "first\nsecond"


def test_editing_keys_move_within_the_text() -> None:
    editor = DraftEditor("ab\ncd")
    assert editor.cursor == 5
    editor.home()
    assert editor.cursor_position() == (1, 0)
    editor.backspace()
    assert editor.text == "abcd"
    editor.left()
    editor.delete()
    assert editor.text == "acd"
    editor.end()
    editor.right()
    assert editor.cursor == 3
    editor.home()
    editor.left()
    editor.left()
    assert editor.cursor == 0
    editor.backspace()
    assert editor.text == "acd"
    editor.insert("x")
    assert editor.text == "xacd"


def test_a_prefilled_draft_starts_at_its_end() -> None:
    assert DraftEditor("rename this").cursor == len("rename this")


def test_hints_name_the_line_and_what_enter_does() -> None:
    assert comment_hint((12, 12), Intent.NEW) == (
        "  comment L12 · \\+Enter newline · Enter add · Esc cancel"
    )
    assert comment_hint((3, 6), Intent.REPLY) == (
        "  comment L3-6 · \\+Enter newline · Enter add · Esc cancel"
    )
    assert comment_hint((3, 3), Intent.EDIT) == (
        "  comment L3 · \\+Enter newline · Enter save (empty deletes) · Esc cancel"
    )


def test_the_frozen_notice_shortens_to_fit() -> None:
    wide = frozen_notice("spec.md", 120)
    assert wide == (
        "⚠ spec.md changed on disk — S submit · Ctrl+R refresh (discards the inline review) "
    )
    assert frozen_notice("spec.md", 40) == "⚠ S submit · Ctrl+R discards the inline review "


def test_refusals_name_the_pane_and_the_way_out() -> None:
    assert frozen_refusal(3).startswith("pane #3 is frozen — its file changed on disk")
    assert "Ctrl+R" in unsubmitted_refusal(2)
    assert unsubmitted_refusal(2).startswith("pane #2 has an unsubmitted inline review")


def test_control_characters_in_a_comment_never_reach_the_terminal() -> None:
    thread = Thread((1, 1), [Note("clear\x1b[2J\tme\x07", agent="bot\x1b]0;x\x07")])
    text = "".join(text_of(r) for r in card_rows(thread, 80))
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "\t" not in text
    assert "bot␛]0;x␇ · clear␛[2J    me␇" in text
