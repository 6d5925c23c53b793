"""Frames: only changed cells are written; wide characters and styles survive."""

from __future__ import annotations

import random

import pytest

from laura.render import canvas as module
from laura.render.canvas import Canvas, frame_diff
from laura.render.style import Style


def test_an_unchanged_frame_writes_no_cells() -> None:
    old, new = Canvas(20, 3), Canvas(20, 3)
    old.put(0, 1, "hello world")
    new.put(0, 1, "hello world")
    output = frame_diff(old, new)
    assert "hello" not in output and "\x1b[2;" not in output


def test_only_the_changed_run_is_written() -> None:
    old, new = Canvas(20, 3), Canvas(20, 3)
    old.put(0, 1, "hello world")
    new.put(0, 1, "hello WOrld")
    output = frame_diff(old, new)
    assert "\x1b[2;7H" in output  # row 2, column 7 (1-based)
    assert "WO" in output and "hello" not in output and "rld" not in output


def test_first_frame_clears_and_draws_everything_with_styles() -> None:
    frame = Canvas(10, 2)
    frame.put(0, 0, "漢x", Style(fg=(1, 2, 3), bold=True))
    frame.cursor = (4, 1)
    output = frame_diff(None, frame)
    assert output.startswith("\x1b[?25l") and "\x1b[2J" in output
    assert "\x1b[0;1;38;2;1;2;3m漢x" in output
    assert output.endswith("\x1b[2;5H\x1b[?25h")
    assert frame.text()[0] == "漢x       "


def test_clipping_at_the_right_edge_and_wide_characters() -> None:
    canvas = Canvas(6, 1)
    assert canvas.put(0, 0, "abcdefgh", right=4) == 4
    assert canvas.text() == ["abcd  "]
    canvas.put(3, 0, "漢字")  # the second wide character does not fit in the last cell
    assert canvas.rows[0][3:5] == [("漢", canvas.rows[0][3][1]), ("", canvas.rows[0][3][1])]
    assert canvas.rows[0][5][0] == " "


def test_control_characters_are_drawn_as_symbols_never_sent_raw() -> None:
    # A file name or an agent's comment could carry escape sequences; the
    # terminal must only ever see them as visible symbols.
    canvas = Canvas(20, 1)
    canvas.put(0, 0, "a\x1b]0;x\x07b\x7f\x9bc")
    assert canvas.text()[0].rstrip() == "a␛]0;x␇b␡\ufffdc"
    output = frame_diff(None, canvas)
    assert "\x1b]" not in output and "\x07" not in output and "\x9b" not in output


def test_text_laid_down_in_one_go_matches_the_cell_by_cell_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Wide characters, combining marks (also first, joining the cell
    # before), controls and clipping, at random places: `put`'s one-go path
    # must leave the cells and return the column its per-character loop does.
    alphabet = ["a", " ", "漢", "\u0301", "é", "\ufffd", "\x1b", "\x9b", "ｗ", "\u200b", "😀", "ж"]
    rnd = random.Random(7)
    cases = []
    for _ in range(3000):
        width = rnd.randint(1, 12)
        puts = [("".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 10))),
                 rnd.randint(-2, width + 2), rnd.choice([None, rnd.randint(0, width + 2)]),
                 rnd.choice([Style(), Style(bold=True)])) for _ in range(rnd.randint(1, 4))]
        cases.append((width, puts))

    def draw() -> list[tuple[list[int], list]]:
        out = []
        for width, puts in cases:
            canvas = Canvas(width, 1)
            ends = [canvas.put(x, 0, text, style, right) for text, x, right, style in puts]
            out.append((ends, canvas.rows))
        return out

    one_go = draw()
    monkeypatch.setattr(module, "_widths", lambda text: None)
    assert draw() == one_go
