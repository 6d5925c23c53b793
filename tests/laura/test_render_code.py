"""Code, diff files, plain text and unreadable files in a file pane."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from laura.render import theme
from laura.render.cells import text_cells, wrap_spans
from laura.render.diff import cannot_read_warning, read_text
from laura.render.document import (
    CODE,
    DIFF,
    MARKDOWN,
    PLAIN_TEXT,
    Document,
    kind_of,
    render_document,
)
from laura.render.style import PLAIN, Span, Style
from tests.laura.render_helpers import picture, text

BOLD = Style(bold=True)
PYTHON = 'def greet(name):\n    """Say hello."""\n    return f"hi {name}"  # friendly\n'


def test_kinds_follow_the_file_name() -> None:
    assert kind_of("README.MD") == MARKDOWN
    assert kind_of("notes.markdown") == MARKDOWN
    assert kind_of("fix.patch") == DIFF
    assert kind_of("a/b/c.diff") == DIFF
    assert kind_of("main.py") == CODE
    assert kind_of("Makefile") == CODE
    assert kind_of("notes.txt") == PLAIN_TEXT
    assert kind_of("LICENSE") == PLAIN_TEXT
    assert kind_of("data.unknownext") == PLAIN_TEXT


def test_python_is_highlighted_line_for_line() -> None:
    rows = render_document("hello.py", PYTHON, 60)
    assert picture(rows) == [
        "  1 |def greet(name):",
        '  2 |    """Say hello."""',
        '  3 |    return f"hi {name}"  # friendly',
    ]
    styles = {span.text.strip(): span.style for row in rows for span in row.spans}
    assert styles["def"] == theme.KEYWORD
    assert styles["greet"] == theme.FUNCTION
    assert styles["# friendly"] == theme.COMMENT
    assert styles['"""Say hello."""'] == theme.STRING


def test_long_code_lines_clip_with_a_marker_instead_of_wrapping() -> None:
    source = "x = 'abcdefghijklmnopqrstuvwxyz'\n"
    rows = render_document("long.py", source, 12)
    assert picture(rows) == ["  1 |x = 'abcdef›"]
    assert rows[0].spans[-1].style == theme.CLIP
    right = render_document("long.py", source, 12, hscroll=14)
    assert picture(right) == ["  1 |‹klmnopqrst›"]
    end = render_document("long.py", source, 12, hscroll=20)
    assert picture(end) == ["  1 |‹qrstuvwxyz'"]


def test_tabs_expand_and_the_first_line_is_not_swallowed() -> None:
    rows = render_document("t.py", "\n\nif x:\n\tpass\n", 40)
    assert picture(rows) == ["  1 |", "  2 |", "  3 |if x:", "  4 |    pass"]


def test_unknown_files_are_plain_text_wrapped_on_words() -> None:
    rows = render_document("notes.txt", "  indented words that wrap around\nsecond\n", 14)
    assert picture(rows) == [
        "  1 |  indented",
        "    |words that",
        "    |wrap around",
        "  2 |second",
    ]


def test_diff_files_are_coloured_by_prefix() -> None:
    patch = (
        "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n"
        "@@ -1,2 +1,2 @@\n context\n-old\n+new\n"
    )
    rows = render_document("fix.diff", patch, 80)
    colours = [row.spans[0].style for row in rows]
    assert colours == [theme.DIFF_META] * 4 + [
        theme.DIFF_HUNK,
        theme.PLAIN if hasattr(theme, "PLAIN") else colours[5],
        theme.DIFF_REMOVED,
        theme.DIFF_ADDED,
    ]
    assert [row.source for row in rows] == [(n, n) for n in range(1, 9)]


def test_binary_and_unreadable_files_give_a_reason(tmp_path: Path) -> None:
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"PK\x03\x04\x00\x00junk")
    assert read_text(binary) == (None, "binary file")
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café au lait\n".encode("latin-1"))
    assert read_text(latin) == ("caf\ufffd au lait\n", None)  # shown, the stray byte marked
    noise = tmp_path / "noise.dat"
    noise.write_bytes(bytes(range(128, 256)) * 8)
    assert read_text(noise) == (None, "binary file")
    missing = tmp_path / "nope.md"
    text_or_none, reason = read_text(missing)
    assert text_or_none is None and reason == "No such file or directory (os error 2)"
    assert (
        cannot_read_warning("nope.md", reason)
        == "cannot read nope.md: No such file or directory (os error 2)"
    )
    assert read_text(tmp_path) == (None, "is a directory")
    good = tmp_path / "ok.md"
    good.write_text("# hi\n")
    assert read_text(good) == ("# hi\n", None)


def test_an_unreadable_document_shows_the_message_and_no_lines() -> None:
    document = Document("nope.md", "", unreadable="No such file or directory")
    view = document.view(80)
    rows = view.window(0, 5)
    assert [text(row) for row in rows] == [
        "Couldn't read this file — No such file or directory. Check the path."
    ]
    assert rows[0].source is None
    assert document.line_count == 0
    assert view.rows_meeting(1) == range(0)


def test_wide_characters_count_two_cells_when_wrapping() -> None:
    rows = render_document("wide.txt", "漢字 漢字 漢字\n", 9)
    assert [text(row) for row in rows] == ["漢字 漢字", "漢字"]
    assert all(text_cells(text(row)) <= 9 for row in rows)


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(st.text(alphabet="ab漢 ", min_size=0, max_size=12), max_size=12),
    width=st.integers(min_value=1, max_value=30),
)
def test_wrapping_never_overflows_and_keeps_all_text(words: list[str], width: int) -> None:
    source = " ".join(words)
    rows = wrap_spans((Span(source),), width, (), (Span("  "),) if width > 2 else ())
    for row in rows:
        assert text_cells("".join(span.text for span in row)) <= max(width, 2)
    joined = "".join("".join(s.text for s in row) for row in rows).replace(" ", "")
    assert joined == source.replace(" ", "")


def test_piped_logs_lose_escapes_and_overwritten_progress_but_keep_their_lines() -> None:
    log = "\x1b[32mok\x1b[0m\r\nprogress 1%\rprogress 100%\nbell\x07 here\n"
    rows = render_document("tail-1.txt", log, 40)
    assert picture(rows) == ["  1 |ok", "  2 |progress 100%", "  3 |bell\ufffd here"]


def test_code_in_a_list_item_is_boxed_under_the_bullet_and_maps_1_to_1() -> None:
    source = "- step:\n\n  ```sh\n  make test\n  ```\n- next\n"
    rows = render_document("doc.md", source, 40)
    assert picture(rows) == [
        "  1 |• step:",
        "  2 |",
        "  3 |  ╭─ sh ──────╮",
        "  4 |  │ make test │",
        "  5 |  ╰───────────╯",
        "  6 |• next",
    ]


@settings(max_examples=150, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(st.text(alphabet="xy漢 ", min_size=1, max_size=8), st.booleans()), max_size=8
    ),
    width=st.integers(min_value=3, max_value=24),
)
def test_wrapping_keeps_each_characters_style(pieces: list[tuple[str, bool]], width: int) -> None:
    spans = tuple(Span(piece, BOLD if bold else PLAIN) for piece, bold in pieces)
    rows = wrap_spans(spans, width, (Span("> "),), (Span("  "),))
    expected = [(ch, bold) for piece, bold in pieces for ch in piece if ch != " "]
    seen = [
        (ch, span.style.bold)
        for row in rows
        for span in row
        for ch in span.text
        if ch not in " >"
    ]
    assert seen == expected
    assert all(text_cells("".join(span.text for span in row)) <= width for row in rows)
