"""The review payload, byte for byte: the contract with the agent reading it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from laura.panes.source import load_source
from laura.review.payload import (
    FROZEN_BANNER,
    assemble_review,
    bracketed_paste,
    defuse_controls,
    review_bytes,
)
from laura.review.threads import Note, Thread, ThreadBook

PATH = "/repo/src/app.py"
SOURCE = ["line 0", "line 1", "line 2", "    return total  # sum", ""]


def thread(line: int, *notes: str | tuple[str, str], end: int | None = None) -> Thread:
    """A thread from bare strings (the person) and (agent, body) pairs."""
    made = [Note(n) if isinstance(n, str) else Note(n[1], agent=n[0]) for n in notes]
    return Thread((line, line if end is None else end), made)


def test_the_originals_example_with_an_overall_body() -> None:
    threads = [thread(1, "first line note"), thread(3, "tighten this", "and this")]
    assert assemble_review("P", threads, "overall body", SOURCE) == (
        "[laura review · P]\n"
        "\n"
        "overall body\n"
        "\n"
        "L1  line 0\n"
        "      > first line note\n"
        "\n"
        "L3  line 2\n"
        "      > tighten this\n"
        "      > and this\n"
    )


def test_an_empty_body_omits_its_line_and_its_blank() -> None:
    assert assemble_review(PATH, [thread(1, "x")], "", SOURCE) == (
        "[laura review · /repo/src/app.py]\n\nL1  line 0\n      > x\n"
    )


def test_a_whitespace_only_body_counts_as_empty() -> None:
    assert assemble_review(PATH, [thread(1, "x")], "  \n ", SOURCE) == (
        "[laura review · /repo/src/app.py]\n\nL1  line 0\n      > x\n"
    )


def test_several_comments_on_one_line_group_under_one_header() -> None:
    block = assemble_review(PATH, [thread(4, "a", "b", "c")], "", SOURCE)
    assert block == (
        "[laura review · /repo/src/app.py]\n"
        "\n"
        "L4      return total  # sum\n"
        "      > a\n"
        "      > b\n"
        "      > c\n"
    )


def test_agent_comments_carry_their_label_and_the_persons_do_not() -> None:
    threads = [thread(2, ("claude", "why not a set?"), "order matters", ("agent", "ok"))]
    assert assemble_review(PATH, threads, "", SOURCE) == (
        "[laura review · /repo/src/app.py]\n"
        "\n"
        "L2  line 1\n"
        "      > [claude] why not a set?\n"
        "      > order matters\n"
        "      > [agent] ok\n"
    )


def test_a_folded_block_is_headed_by_its_range_with_its_first_lines_text() -> None:
    assert assemble_review(PATH, [thread(2, "reflow", end=4)], "", SOURCE) == (
        "[laura review · /repo/src/app.py]\n\nL2-4  line 1\n      > reflow\n"
    )


def test_a_line_past_the_end_of_a_shrunk_file_gets_a_bare_header() -> None:
    threads = [thread(3, "kept"), thread(9, "gone"), thread(8, "gone too", end=12)]
    assert assemble_review(PATH, threads, "", ["only", "two"]) == (
        "[laura review · /repo/src/app.py]\n"
        "\n"
        "L3\n"
        "      > kept\n"
        "\n"
        "L8-12\n"
        "      > gone too\n"
        "\n"
        "L9\n"
        "      > gone\n"
    )


def test_an_empty_source_line_keeps_the_two_space_separator() -> None:
    # The header is `L<n>`, two spaces, then the line exactly as it is.
    assert assemble_review(PATH, [thread(5, "blank?")], "", SOURCE) == (
        "[laura review · /repo/src/app.py]\n\nL5  \n      > blank?\n"
    )


def test_the_frozen_banner_follows_the_first_line() -> None:
    assert assemble_review(PATH, [thread(1, "x")], "body", SOURCE, frozen=True) == (
        "[laura review · /repo/src/app.py]\n"
        "⚠ file changed on disk since this inline review — line numbers are against the snapshot\n"
        "\n"
        "body\n"
        "\n"
        "L1  line 0\n"
        "      > x\n"
    )
    assert FROZEN_BANNER.endswith("line numbers are against the snapshot")


def test_multi_line_comments_and_bodies_keep_their_later_lines_raw() -> None:
    threads = [thread(1, "first\nsecond"), thread(2, ("claude", "a\n  b"))]
    assert assemble_review(PATH, threads, "overall\nmore", SOURCE) == (
        "[laura review · /repo/src/app.py]\n"
        "\n"
        "overall\n"
        "more\n"
        "\n"
        "L1  line 0\n"
        "      > first\n"
        "second\n"
        "\n"
        "L2  line 1\n"
        "      > [claude] a\n"
        "  b\n"
    )


def test_threads_are_emitted_in_line_order_whatever_order_they_come_in() -> None:
    threads = [thread(3, "c"), thread(1, "a"), thread(2, "b", end=3)]
    block = assemble_review(PATH, threads, "", SOURCE)
    headers = [line.split("  ")[0] for line in block.split("\n") if line.startswith("L")]
    assert headers == ["L1", "L2-3", "L3"]


def test_no_context_lines_around_the_commented_line() -> None:
    block = assemble_review(PATH, [thread(2, "x")], "", SOURCE)
    assert "line 0" not in block
    assert "line 2" not in block


def test_a_thread_book_feeds_the_payload() -> None:
    book = ThreadBook()
    book.commit_comment(book.begin_comment((3, 3)), "mine")
    book.comment_from_agent(1, "theirs", line_count=5, sources=[], ready_agent="claude")
    assert assemble_review(PATH, book.threads(), "", SOURCE) == (
        "[laura review · /repo/src/app.py]\n"
        "\n"
        "L1  line 0\n"
        "      > [claude] theirs\n"
        "\n"
        "L3  line 2\n"
        "      > mine\n"
    )


# -- the bytes written to the PTY ----------------------------------------------------------


def test_the_block_is_wrapped_in_bracketed_paste_with_one_cr_outside() -> None:
    assert bracketed_paste("[laura review · P]\n\nL1  a\n      > b\n") == (
        b"\x1b[200~" + "[laura review · P]\n\nL1  a\n      > b\n".encode() + b"\x1b[201~" + b"\r"
    )


def test_a_plain_paste_has_no_cr() -> None:
    assert bracketed_paste("x\ny", submit=False) == b"\x1b[200~x\ny\x1b[201~"


def test_review_bytes_is_the_whole_submission() -> None:
    data = review_bytes(PATH, [thread(1, "x")], "ok", SOURCE)
    assert data == (
        b"\x1b[200~[laura review \xc2\xb7 /repo/src/app.py]\n\nok\n\nL1  line 0\n      > x\n"
        b"\x1b[201~\r"
    )
    assert data.count(b"\r") == 1
    assert data.endswith(b"\x1b[201~\r")


def test_nothing_in_a_comment_or_a_file_line_can_close_the_paste_early() -> None:
    evil_line = "x = 1\x1b[201~rm -rf ~\r"
    threads = [thread(1, "\x1b[201~echo pwned\r", ("bot\x1b[201~", "hi\x07"))]
    data = review_bytes("/p\x1b[201~", threads, "\x1b[201~\r", [evil_line])
    assert data.count(b"\x1b") == 2  # only the two markers
    assert data.count(b"\r") == 1  # only the submitting CR
    assert data.index(b"\x1b[201~") == len(data) - len(b"\x1b[201~\r")
    assert "␛[201~rm -rf ~␍".encode() in data


def test_defuse_controls_keeps_text_tabs_and_newlines() -> None:
    assert defuse_controls("a\tb\nc é 漢 ⚠") == "a\tb\nc é 漢 ⚠"
    assert defuse_controls("\x00\x1b\x7f\x9b") == "\u2400\u241b\u2421\ufffd"


@settings(max_examples=80, deadline=None)
@given(
    bodies=st.lists(st.text(max_size=20), min_size=1, max_size=4),
    overall=st.text(max_size=20),
    line_text=st.text(max_size=20),
)
def test_any_review_is_one_paste_submitted_once(
    bodies: list[str], overall: str, line_text: str
) -> None:
    data = review_bytes(PATH, [thread(1, *bodies)], overall, [line_text])
    inner = data[len(b"\x1b[200~") : -len(b"\x1b[201~\r")]
    assert data.startswith(b"\x1b[200~")
    assert data.endswith(b"\x1b[201~\r")
    assert b"\x1b" not in inner
    assert b"\r" not in inner
    assert inner.decode().startswith("[laura review · /repo/src/app.py]\n")
    assert inner.endswith(b"\n")


# -- source lines as the gutter counts them --------------------------------------------------


def test_source_lines_split_on_newline_only(tmp_path: Path) -> None:
    # What a review quotes: the pane's loaded lines (cleaned for display).
    def lines(text: str) -> list[str]:
        path = tmp_path / "f.txt"
        path.write_text(text, newline="")
        return load_source(str(path)).document.lines

    assert lines("") == []
    assert lines("a") == ["a"]
    assert lines("a\n") == ["a"]
    assert lines("a\n\n") == ["a", ""]
    assert lines("a\r\nb\r\n") == ["a", "b"]
    # A form feed (shown as U+FFFD) or a Unicode line separator is text on its line.
    assert lines("a\x0cb\nc\u2028d\n") == ["a\ufffdb", "c\u2028d"]
