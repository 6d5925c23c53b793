"""A file whose lines are longer than anything a pane shows at once (a
minified bundle, a log of one line) neither freezes Laura nor eats its
memory: it loads in bounded pieces, wraps in time linear in its length, and
a line past 256 KiB shows its first part and a row saying how much is not
shown. And the real `laura` in tmux keeps echoing keys while it opens."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from laura.panes import source
from laura.panes.source import load_source
from laura.render.cells import wrap_spans
from laura.render.document import displayable
from laura.render.lines import Block, KeptBlocks, Line
from laura.render.style import Span
from laura.render.view import LINE_SHOWN_LIMIT, DocumentView, count_rows
from laura.render.wrapped_view import WrappedView
from tests.helpers.timing import best_times
from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.tab_driver import ask, shown, tab_at
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]


def reference_lines(data: bytes) -> list[str]:
    """What loading must give: the whole text decoded, cleaned, split."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
    lines = displayable(text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


PIECES = [b"a", b"bc ", "é".encode(), "界".encode(), "😀".encode(), b"\n", b"\r\n", b"\r",
          b"\x1b[31m", b"\x1b[0m", b"\x07", b"\xff", b"\t", b"x" * 40]  # fmt: skip


def test_loading_in_pieces_cut_inside_lines_gives_the_whole_files_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source, "PIECE", 16)
    rng = random.Random(5)
    path = tmp_path / "f.log"
    for _ in range(400):
        data = b"".join(rng.choice(PIECES) for _ in range(rng.randrange(120)))
        path.write_bytes(data)
        loaded = load_source(str(path))
        if loaded.error is not None:  # binary by the sniffing rule: not this test's concern
            continue
        assert loaded.document.lines == reference_lines(data), data


@pytest.mark.timing
@pytest.mark.parametrize("char", ["x", "é", "界"])  # ASCII, two-byte, two cells wide
def test_a_long_word_wraps_in_time_linear_in_its_length(char: str) -> None:
    """Measured against the same length of ordinary words, in the same run
    (wrapping one 2 MB word took seconds: each row copied the rest)."""
    size = 2 << 20 if char.isascii() else 1 << 20
    word = char * size
    words = ((char * 9 + " ") * (size // 10 + 1))[:size]

    long_s, words_s = best_times(
        lambda: wrap_spans((Span(word),), 80), lambda: wrap_spans((Span(words),), 80), runs=3
    )
    per_row = 80 // (2 if char == "界" else 1)
    assert len(wrap_spans((Span(word),), 80)) == -(-len(word) // per_row)
    assert long_s < 3 * words_s + 0.05, (long_s, words_s)


@pytest.mark.timing
@pytest.mark.parametrize(
    "text",
    [
        "a\r" + "x" * 300_000,  # one carriage return, then a long rest
        "\r".join(["y" * 300_000, "z" * 300_000]),  # two long runs
        ("ab\r" * 1000) + "w" * 300_000,  # many, then a long rest
    ],
)
def test_carriage_returns_are_cleaned_in_time_linear_in_the_line(text: str) -> None:
    """A log whose progress bar redraws with carriage returns, then runs on:
    what a CR overwrote is dropped in one pass (the pattern this replaced
    backtracked over the rest of the line from every position: minutes),
    measured against cleaning colour codes out of the same length."""
    coloured = "\x1b[1m" + "x" * len(text)
    cr_s, escape_s = best_times(lambda: displayable(text), lambda: displayable(coloured))
    assert displayable(text) == text.rsplit("\r", 1)[1]
    assert cr_s < 5 * escape_s + 0.05, (cr_s, escape_s)


def test_a_line_past_the_limit_shows_its_first_part_and_says_how_much_is_not() -> None:
    for text in ("y" * (LINE_SHOWN_LIMIT + 12_345), "word " * (LINE_SHOWN_LIMIT // 5 + 999)):
        blocks = [Block((Line((Span("before"),), (1, 1)), Line((Span(text),), (2, 2))), 1, 2)]
        view = DocumentView(KeptBlocks(blocks), 2, 100)
        rows = list(view)
        rest = len(text) - LINE_SHOWN_LIMIT
        assert rows[-1].spans[0].text == f"… the rest of this line ({rest:,} more characters) is not shown"
        assert rows[-1].source == (2, 2) and not rows[-1].first
        shown_text = "".join(s.text for row in rows[1:-1] for s in row.spans)
        # the first LINE_SHOWN_LIMIT characters, wrapped (spaces at a break dropped)
        assert shown_text.replace(" ", "") == text[:LINE_SHOWN_LIMIT].replace(" ", "")
        # the background row count agrees with the layout
        steps = count_rows(iter(blocks), 2, 100)
        try:
            while True:
                next(steps)
        except StopIteration as done:
            assert done.value == len(rows)


def test_a_one_line_file_opens_at_once_in_a_pane(tmp_path: Path) -> None:
    path = tmp_path / "bundle.min.js.txt"
    path.write_text("q" * (6 << 20))
    tab = tab_at(tmp_path)
    reply = ask(tab, {"type": "open", "path": str(path), "focus": False})
    assert "qqqqqqqq" in shown(tab, reply["pane"])
    pane = tab.panes[reply["pane"]]
    view = pane.rows(100)
    assert isinstance(view, WrappedView)
    width = pane.text_width(100)
    assert len(view) == -(-LINE_SHOWN_LIMIT // width) + 1  # the shown part, and the cut row


@pytest.mark.parametrize(
    ("name", "content", "seen"),
    [
        # two-byte characters, cut into pieces at a character's start
        ("accents.txt", "é" * (3 << 20) + "\n", "éééééééé"),
        # colour codes and carriage returns: cleaned over the whole line
        ("colours.log", "\x1b[31mred\x1b[0m" * 300_000 + "\rAFTER" + "z" * (1 << 20) + "\n", "AFTERzzz"),
        # an option-looking name, and the long line last without a newline
        ("--output=x.txt", "short\n" + "w" * (3 << 20), "wwwwwwww"),
    ],
)
def test_other_long_lines_open_and_say_what_is_cut(
    tmp_path: Path, name: str, content: str, seen: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    tab = tab_at(tmp_path)
    reply = ask(tab, {"type": "open", "path": str(path), "focus": False})
    assert seen in shown(tab, reply["pane"])
    pane = tab.panes[reply["pane"]]
    longest = max(len(line) for line in pane.document.lines)
    rows = list(pane.rows(100))
    cut = [row for row in rows if row.spans and row.spans[0].text.startswith("… the rest of")]
    assert len(cut) == 1
    assert cut[0].spans[0].text == (
        f"… the rest of this line ({longest - LINE_SHOWN_LIMIT:,} more characters) is not shown"
    )
    assert not (tmp_path / "x.txt").exists()


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("shape", ["one line of 40 MB", "600 lines of 64 KiB"])
def test_keys_keep_echoing_while_a_file_of_long_lines_opens(
    laura_session: Make, tmp_path: Path, shape: str
) -> None:
    path = tmp_path / "long.txt"
    with path.open("w") as out:
        if shape.startswith("one"):
            out.write("x" * (40 << 20))
        else:
            for _ in range(600):
                out.write("z" * (64 << 10) + "\n")
    session = laura_session(command=["cat"])
    probe = EchoProbe(session)
    try:
        idle = [probe.key("Z") for _ in range(20)]
        opened = session.cli("open", str(path), "--no-focus")
        assert opened.returncode == 0, opened.stderr
        busy = [probe.key("Z") for _ in range(60)]
        session.wait_for("xxxxxxxx" if shape.startswith("one") else "zzzzzzzz")
    finally:
        probe.close()
    assert_keys_echoed(idle, busy, "while the file opened")
