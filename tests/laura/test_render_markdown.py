"""Markdown panes: what a person sees, and which source lines each row is."""

from __future__ import annotations

import random
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laura.render import markdown as markdown_module
from laura.render import theme
from laura.render.document import Document, render_document
from tests.laura.render_helpers import SNIPPETS, picture, sources, text


def md(source: str) -> str:
    return textwrap.dedent(source).lstrip("\n")


def render(source: str, width: int = 60) -> list[str]:
    return picture(render_document("doc.md", md(source), width))


def test_hand_wrapped_paragraph_folds_to_one_row_covering_its_lines() -> None:
    rows = render_document("doc.md", "# Title\n\npara line one\npara line two\n\n## Next\n", 60)
    assert picture(rows) == [
        "  1 |# Title",
        "  2 |",
        "  3 |para line one para line two",
        "  5 |",
        "  6 |## Next",
    ]
    assert rows[2].source == (3, 4)
    view = Document("doc.md", "# Title\n\npara line one\npara line two\n\n## Next\n").view(60)
    assert view.rows_meeting(3) == view.rows_meeting(4) == range(2, 3)
    assert view.rows_meeting(1) == range(0, 1)


def test_folded_paragraph_wraps_at_the_width_and_every_row_keeps_the_range() -> None:
    source = md(
        """
        alpha beta gamma delta
        epsilon zeta eta theta
        iota kappa
        """
    )
    rows = render_document("doc.md", source, 20)
    assert picture(rows) == [
        "  1 |alpha beta gamma",
        "    |delta epsilon zeta",
        "    |eta theta iota kappa",
    ]
    assert sources(rows) == [(1, 3)] * 3
    view = Document("doc.md", source).view(20)
    assert view.rows_meeting(2) == range(0, 3)
    assert view.content_rows() == 3


def test_paragraph_with_hard_breaks_on_every_line_keeps_one_number_per_line() -> None:
    rows = render_document("doc.md", "one\\\ntwo\\\nthree\n", 40)
    assert picture(rows) == ["  1 |one", "  2 |two", "  3 |three"]


def test_fenced_block_is_boxed_and_its_code_rows_map_to_its_code_lines() -> None:
    source = md(
        """
        # Code

        ```rust
        let a = 1;
        let b = 2;
        let c = 3;
        ```
        """
    )
    rows = render_document("doc.md", source, 60)
    assert picture(rows) == [
        "  1 |# Code",
        "  2 |",
        "  3 |╭─ rust ─────╮",
        "  4 |│ let a = 1; │",
        "  5 |│ let b = 2; │",
        "  6 |│ let c = 3; │",
        "  7 |╰────────────╯",
    ]
    assert "```" not in "".join(text(row) for row in rows)
    let_spans = rows[3].spans
    assert any(span.style == theme.KEYWORD and span.text == "let" for span in let_spans)


def test_highlight_11_12_lands_exactly_on_two_code_lines_below_a_reflowed_paragraph() -> None:
    source = md(
        """
        # Doc

        one two three
        four five six
        seven eight
        nine ten
        eleven twelve
        thirteen

        ```python
        x = 1
        y = 2
        ```
        """
    )
    assert source.splitlines()[10] == "x = 1"
    view = Document("doc.md", source).view(60)
    lit = view.rows_meeting(11, 12)
    assert [text(row) for row in view[lit.start : lit.stop]] == ["│ x = 1     │", "│ y = 2     │"]
    assert [row.source for row in view[lit.start : lit.stop]] == [(11, 11), (12, 12)]
    assert view[2].source == (3, 8)


def test_list_items_keep_one_number_per_line_and_a_blank_row_separates_the_next_heading() -> None:
    rows = render_document("doc.md", "- a\n- b\n\n## H\n", 40)
    assert picture(rows) == ["  1 |• a", "  2 |• b", "  3 |", "  4 |## H"]


def test_nested_ordered_and_task_lists() -> None:
    assert render(
        """
        1. first
           continued
        2. second
           - nested
             - deeper
        - [ ] todo
        - [x] done
        """
    ) == [
        "  1 |1. first continued",
        "  3 |2. second",
        "  4 |   ◦ nested",
        "  5 |     ▪ deeper",
        "  6 |☐ todo",
        "  7 |☑ done",
    ]


def test_a_hand_wrapped_list_item_reflows_as_one_block_carrying_its_range() -> None:
    # README-style bullets wrapped by hand at ~40 columns.
    source = (
        "- The watcher polls every file pane's file\n"
        "  four times a second and reloads it when\n"
        "  it changed.\n"
        "- Short item.\n"
    )
    rows = render_document("doc.md", source, 60)
    assert picture(rows) == [
        "  1 |• The watcher polls every file pane's file four times a",
        "    |  second and reloads it when it changed.",
        "  4 |• Short item.",
    ]
    assert sources(rows) == [(1, 3), (1, 3), (4, 4)]
    # any line of the item addresses the whole item, as a folded paragraph does
    view = Document("doc.md", source).view(60)
    assert view.rows_meeting(2) == view.rows_meeting(3) == range(0, 2)


def test_a_wrapped_ordered_item_with_a_nested_list_folds_only_its_text() -> None:
    source = "1. one two\n   three four\n   - nested a\n     nested b\n2. last\n"
    rows = render_document("doc.md", source, 80)
    assert picture(rows) == [
        "  1 |1. one two three four",
        "  3 |   ◦ nested a nested b",
        "  5 |2. last",
    ]
    assert sources(rows) == [(1, 2), (3, 4), (5, 5)]


def test_loose_list_blank_lines_keep_their_rows() -> None:
    assert render("- a\n\n- b\n\n  more b\n") == [
        "  1 |• a",
        "  2 |",
        "  3 |• b",
        "  4 |",
        "  5 |  more b",
    ]


def test_long_list_item_wraps_under_its_text() -> None:
    rows = render_document("doc.md", "- one two three four five six\n", 14)
    assert picture(rows) == ["  1 |• one two", "    |  three four", "    |  five six"]
    assert sources(rows) == [(1, 1)] * 3


def test_block_quote_lines_keep_their_numbers() -> None:
    assert render(
        """
        > first line
        > second line
        >
        > new paragraph
        """
    ) == ["  1 |│ first line", "  2 |│ second line", "  3 |│", "  4 |│ new paragraph"]


def test_github_alerts_show_a_titled_coloured_bar() -> None:
    rows = render_document("doc.md", "> [!WARNING]\n> mind the gap\n", 40)
    assert picture(rows) == ["  1 |▎ ⚠ Warning", "  2 |▎ mind the gap"]
    assert rows[0].spans[-1].style == theme.ALERTS["WARNING"][2]


def test_table_is_box_drawn_with_a_bold_header_and_one_number_per_line() -> None:
    source = md(
        """
        Intro

        | a | b |
        |---|--:|
        | 1 | 2 |
        | 30 | 4 |
        """
    )
    rows = render_document("doc.md", source, 40)
    assert picture(rows) == [
        "  1 |Intro",
        "  2 |",
        "    |┌────┬───┐",
        "  3 |│ a  │ b │",
        "  4 |├────┼───┤",
        "  5 |│ 1  │ 2 │",
        "  6 |│ 30 │ 4 │",
        "    |└────┴───┘",
    ]
    assert sources(rows)[2:] == [(3, 3), (3, 3), (4, 4), (5, 5), (6, 6), (6, 6)]
    assert any(span.style.bold and span.text == "a" for span in rows[3].spans)
    view = Document("doc.md", source).view(40)
    assert view.rows_meeting(5) == range(5, 6)
    assert view.rows_meeting(3) == range(2, 4)


def test_html_blocks_are_shown_as_source_line_for_line() -> None:
    assert render("Text\n\n<div>\n<span>x</span>\n</div>\n") == [
        "  1 |Text",
        "  2 |",
        "  3 |<div>",
        "  4 |<span>x</span>",
        "  5 |</div>",
    ]


def test_thematic_break_is_a_full_width_rule() -> None:
    assert render("a\n\n---\n\nb\n", 12) == [
        "  1 |a",
        "  2 |",
        "  3 |────────────",
        "  4 |",
        "  5 |b",
    ]


def test_inline_styles_are_kept_and_markup_is_hidden() -> None:
    rows = render_document(
        "doc.md", "Some **bold**, *em*, ~~gone~~, `code` and [a link](http://x).\n", 80
    )
    assert picture(rows) == ["  1 |Some bold, em, gone, code and a link."]
    by_text = {span.text: span.style for span in rows[0].spans}
    assert by_text["bold"].bold
    assert by_text["em"].italic
    assert by_text["gone"].strike
    assert by_text["code"] == theme.INLINE_CODE
    assert by_text["a link"] == theme.LINK


def test_headings_are_coloured_by_level_and_keep_their_markers() -> None:
    rows = render_document("doc.md", "# One\n\n### Three\n", 40)
    assert rows[0].spans[0].style == theme.HEADINGS[0]
    assert text(rows[2]) == "### Three"
    assert rows[2].spans[0].style == theme.HEADINGS[2]


def test_setext_heading_folds_its_two_lines() -> None:
    rows = render_document("doc.md", "Title\n=====\n\ntext\n", 40)
    assert picture(rows) == ["  1 |# Title", "  3 |", "  4 |text"]
    assert rows[0].source == (1, 2)


def test_reference_links_defined_below_resolve() -> None:
    rows = render_document("doc.md", "See [docs][d].\n\n[d]: http://example.invalid\n", 40)
    assert text(rows[0]) == "See docs."
    assert [row.source for row in rows] == [(1, 1), (2, 2), (3, 3)]


def test_wrapping_at_several_widths_keeps_every_word_and_the_range() -> None:
    words = [
        "lorem",
        "ipsum",
        "dolor",
        "sit",
        "amet",
        "consectetur",
        "adipiscing",
        "elit",
        "sed",
        "do",
    ]
    source = "\n".join(" ".join(words[i : i + 3]) for i in range(0, len(words), 3)) + "\n"
    for width in (12, 13, 21, 34, 200):
        rows = render_document("doc.md", source, width)
        assert all(len(text(row)) <= width for row in rows)
        assert " ".join(text(row) for row in rows).split() == words
        assert {row.source for row in rows} == {(1, 4)}
        assert [row.first for row in rows] == [True] + [False] * (len(rows) - 1)


def test_fence_and_table_lines_clip_with_a_marker_and_scroll_right() -> None:
    source = "```\n0123456789abcdef\n```\n"
    narrow = render_document("doc.md", source, 10)
    assert text(narrow[1]) == "│ 0123456›"
    scrolled = render_document("doc.md", source, 10, hscroll=6)
    assert text(scrolled[1]) == "‹56789abc›"


def test_every_source_line_is_addressable_in_a_mixed_document() -> None:
    source = md(
        """
        # Title

        Para one
        continues.

        - item
          - nested

        > quote

        | a |
        |---|
        | 1 |

        ```
        code
        ```

        <!-- note -->
        """
    )
    view = Document("doc.md", source).view(30)
    count = len(source.splitlines())
    for line in range(1, count + 1):
        assert view.rows_meeting(line), line
    starts = [row.source[0] for row in view if row.source]
    assert starts == sorted(starts)


def test_empty_and_blank_documents() -> None:
    assert render_document("doc.md", "", 20) == []
    assert picture(render_document("doc.md", "\n\n", 20)) == ["  1 |", "  2 |"]


def test_yaml_front_matter_is_shown_as_source_line_for_line() -> None:
    assert render("---\ntitle: Notes\ntags: [a, b]\n---\n\n# Notes\n") == [
        "  1 |---",
        "  2 |title: Notes",
        "  3 |tags: [a, b]",
        "  4 |---",
        "  5 |",
        "  6 |# Notes",
    ]
    assert render("---\n\ntext\n") == ["  1 |" + "─" * 60, "  2 |", "  3 |text"]


@settings(max_examples=60, deadline=None)
@given(
    parts=st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=8),
    separators=st.lists(st.sampled_from(["\n", "\n\n", "\n\n\n"]), min_size=8, max_size=8),
    width=st.integers(min_value=4, max_value=60),
)
def test_any_mix_of_blocks_maps_every_line_in_order(
    parts: list[str], separators: list[str], width: int
) -> None:
    source = "".join(part + separators[i] for i, part in enumerate(parts))

    fallbacks: list[object] = []

    def no_fallback(*args: object, **kwargs: object) -> list[object]:
        fallbacks.append(args)  # a renderer bug would hide behind the fallback
        return []

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(markdown_module, "_raw", no_fallback)
        view = Document("doc.md", source).view(width)
        counted = view.content_rows()
        stand_ins = view.laid_sources()  # tables and fences not styled yet
        rows = view.window(0, counted)
    assert not fallbacks, source
    assert view.mismatches == 0
    assert [(row.source, row.first) for row in rows] == stand_ins
    assert view.laid_sources() == stand_ins
    count = len(source.splitlines())
    starts = [row.source[0] for row in rows if row.source is not None]
    assert starts == sorted(starts)
    for line in range(1, count + 1):
        assert view.rows_meeting(line), (line, source)
    assert all(row.source is None or 1 <= row.source[0] <= row.source[1] <= count for row in rows)


def test_link_definitions_are_found_piece_by_piece_as_in_one_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """A big document is searched for `[label]: target` in pieces (so a
    parse in a worker thread lets the UI loop in): the answer is the one
    search's, wherever the pieces end."""
    rng = random.Random(7)
    pieces = ["text\n", "[a]: x\n", "  [b]:y\n", "    [c]: code\n", "x[d]: no\n", "\n", "]:\n", "[e\n]: f\n"]
    for _ in range(2000):
        src = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30)))
        monkeypatch.setattr(markdown_module, "_SEARCH_PIECE", rng.randrange(1, 20))
        assert markdown_module._has_references(src) == bool(markdown_module._REFERENCE.search(src)), src
