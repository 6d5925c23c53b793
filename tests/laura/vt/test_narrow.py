"""The one-cell table the emulator's fast path trusts agrees with
`char_width`, and random bytes (what `cat` of a binary prints) land on the
same cells through the fast and the per-character paths."""

from __future__ import annotations

import random

import pytest

from laura.vt import VirtualTerminal
from laura.vt import core as vt_core
from laura.vt.narrow import not_narrow
from laura.vt.rows import RowBatch
from laura.vt.width import char_width


def test_the_table_agrees_with_char_width_for_every_bmp_character() -> None:
    pattern = not_narrow()
    if pattern is None:
        pytest.skip("this Python's Unicode data is another version: the table is not used")
    wrong = [
        hex(code)
        for code in range(0x80, 0x10000)
        if not 0xD800 <= code <= 0xDFFF
        and (pattern.search(chr(code)) is None) != (char_width(chr(code)) == 1)
    ]
    assert wrong == []


@pytest.mark.parametrize("seed", [1, 18])
def test_random_bytes_draw_the_same_screen_with_and_without_the_narrow_path(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = random.Random(seed).randbytes(256 * 1024)
    fast = VirtualTerminal(24, 80)
    for at in range(0, len(data), 4096):
        fast.feed(data[at : at + 4096])
    # The per-token path, one character at a time for anything not ASCII.
    monkeypatch.setattr(RowBatch, "_batch", lambda self, parts, i, count, bulk: (i, bulk))
    monkeypatch.setattr(vt_core, "_narrow", lambda chunk: False)
    slow = VirtualTerminal(24, 80)
    for at in range(0, len(data), 4096):
        slow.feed(data[at : at + 4096])
    assert fast.display() == slow.display()
    assert (fast.x, fast.y) == (slow.x, slow.y)
    assert fast.errors == slow.errors == 0


def test_controls_that_do_nothing_are_skipped_even_inside_a_sequence() -> None:
    # As xterm and tmux do: NUL, DEL and the other inert C0 controls inside a
    # CSI neither end it nor print.
    vt = VirtualTerminal(3, 20)
    vt.feed(b"\x1b[3\x001\x7fmX\x02Y")
    assert vt.display()[0].rstrip() == "XY"
    assert vt.buffer[0].runs[1].fg is not None  # X is red
