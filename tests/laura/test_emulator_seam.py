"""The emulator behind the seam (laura.vt; pyte's adapter stood here first):
scrollback, alternate screen, mode flags and replies to terminal queries."""

from __future__ import annotations

from laura.emulator import Emulator
from laura.vt import VirtualTerminal


def text(emulator: Emulator, y: int, scroll: int = 0) -> str:
    return "".join(span.text for span in emulator.row(y, scroll)).rstrip()


def test_scrollback_keeps_lines_that_scroll_off() -> None:
    emulator = VirtualTerminal(5, 20, lambda data: None)
    emulator.feed(b"".join(b"line %d\r\n" % n for n in range(1, 13)))
    assert emulator.history_size == 8
    assert [text(emulator, y) for y in range(4)] == ["line 9", "line 10", "line 11", "line 12"]
    assert [text(emulator, y, scroll=8) for y in range(3)] == ["line 1", "line 2", "line 3"]
    assert text(emulator, 4, scroll=1) == "line 12"


def test_alternate_screen_hides_history_and_restores_the_main_screen() -> None:
    emulator = VirtualTerminal(3, 20, lambda data: None)
    emulator.feed(b"main\r\n" * 5 + b"prompt")
    emulator.feed(b"\x1b[?1049h\x1b[Hfull screen app")
    assert emulator.alt_screen and emulator.history_size == 0
    assert text(emulator, 0) == "full screen app"
    emulator.feed(b"\x1b[?1049l")
    assert not emulator.alt_screen
    assert text(emulator, 2) == "prompt" and emulator.history_size == 3


def test_mode_flags_and_replies() -> None:
    replies: list[bytes] = []
    emulator = VirtualTerminal(10, 40, replies.append)
    emulator.feed(b"\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[?1h\x1b]2;my title\x07ab\x1b[6n\x1b[c")
    assert (emulator.mouse_tracking, emulator.sgr_mouse, emulator.bracketed_paste, emulator.app_cursor_keys) == (1002, True, True, True)
    assert emulator.title == "my title"
    assert replies == [b"\x1b[1;3R", b"\x1b[?1;2c"]
    emulator.feed(b"\x1b[?1002l\x1b[?2004l\x1b[?25l")
    assert (emulator.mouse_tracking, emulator.bracketed_paste, emulator.cursor_visible) == (0, False, False)


def test_resize_and_colours() -> None:
    emulator = VirtualTerminal(4, 10, lambda data: None)
    emulator.feed(b"\x1b[31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m \x1b[38;5;208mx")
    spans = emulator.row(0)
    assert [(s.text, s.style.fg) for s in spans] == [("red", 1), (" ", None), ("rgb", (1, 2, 3)), (" ", None), ("x", 208)]
    emulator.resize(2, 30)
    assert (emulator.lines, emulator.columns) == (2, 30)
    assert emulator.take_dirty() >= {0, 1}
