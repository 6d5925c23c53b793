"""Where pyte (the reference emulator of the differential tests) is wrong.

Each test shows pyte's behaviour next to ours on the same bytes; ours is what
xterm and tmux do. If a pyte release fixes one, its assertion on pyte fails
and the entry can go.
"""

from __future__ import annotations

import pytest

from tests.laura.vt.oracle import ours, pyte_grid, pyte_screen, text_of


def _pyte_text(data: bytes, lines: int = 3, columns: int = 10) -> list[str]:
    return text_of(pyte_grid(pyte_screen(data, lines, columns)))


def test_alternate_screen() -> None:
    data = b"main\x1b[?1049halt\x1b[?1049l"
    assert ours(data, 3, 10).display()[0] == "main"
    assert _pyte_text(data)[0] == "mainalt"  # pyte has no alternate screen


def test_scroll_up_and_down() -> None:
    data = b"a\r\nb\r\nc\x1b[S"
    assert ours(data, 3, 10).display() == ["b", "c", ""]
    assert _pyte_text(data) == ["a", "b", "c"]  # pyte ignores SU/SD


def test_private_sgr_does_not_crash() -> None:
    data = b"\x1b[?4mvim"  # a private-marked `m`, sent by vim at startup
    assert ours(data, 3, 10).display()[0] == "vim"
    with pytest.raises(TypeError):
        pyte_screen(data, 3, 10)


def test_vpa_in_origin_mode_without_margins() -> None:
    data = b"\x1b[?6h\x1b[2dx"
    assert ours(data, 3, 10).display()[1] == "x"
    with pytest.raises(AssertionError):
        pyte_screen(data, 3, 10)


def test_tab_from_a_pending_wrap() -> None:
    data = b"x" * 10 + b"\ty"
    assert ours(data, 3, 10).display()[:2] == ["x" * 10, "y"]
    assert _pyte_text(data)[:2] == ["x" * 9 + "y", ""]


def test_erase_takes_only_the_background() -> None:
    vt = ours(b"\x1b[1;31;44m\x1b[K", 3, 10)
    assert vt.row(0)[0].style.fg is None and vt.row(0)[0].style.bg == 4
    cell = pyte_screen(b"\x1b[1;31;44m\x1b[K", 3, 10).buffer[0][0]
    assert (cell.fg, cell.bold) == ("red", True)  # pyte paints every attribute


def test_overwriting_half_a_wide_character() -> None:
    data = "ｗｉ\x1b[1;2Hx".encode()
    assert ours(data, 3, 10).display()[0] == " xｉ"
    assert _pyte_text(data)[0] == "ｗxｉ"  # pyte keeps the orphaned left half


def test_combining_character_at_a_pending_wrap() -> None:
    data = "123456789e\u0301".encode()
    vt = ours(data, 3, 10)
    assert vt.cursor == (9, 0)  # the mark joins the last cell; no wrap
    screen = pyte_screen(data, 3, 10)
    assert (screen.cursor.x, screen.cursor.y) == (0, 1)  # pyte wraps on it
