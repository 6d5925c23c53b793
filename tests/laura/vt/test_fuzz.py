"""Property tests: arbitrary input never breaks the emulator, and how the
input is cut into reads never changes the screen."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from laura.vt import VirtualTerminal
from tests.laura.vt.oracle import grid

# Fragments that make random bytes hit the parser's interesting states.
_FRAGMENTS = [
    b"\x1b", b"\x1b[", b"\x1b]", b"\x1bP", b"\x1b\\", b"\x07", b"\r\n", b"\n", b"\r", b"\t",
    b"\x08", b"[", b"m", b";", b"?", b"0", b"1", b"38;5;", b"2;", b"H", b"J", b"K", b"r",
    b"h", b"l", b"@", b"P", b"L", b"M", b"S", b"T", b"X", b"b", b"n", b"c", b"s", b"u",
    b"1049", b"6", b"7", b"8", b"(0", b"#8", b"abc", "漢".encode(), "é".encode(),
    "\u0301".encode(), b"\xe6", b"\xbc", b"\xff", b"\x0e", b"\x0f", b"\x9b",
]
streams = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.binary(max_size=8)),
                   max_size=60).map(b"".join)
sizes = st.tuples(st.integers(1, 8), st.integers(1, 12))


@settings(max_examples=300, deadline=None)
@given(data=streams, size=sizes)
def test_arbitrary_bytes_never_raise_and_keep_the_cursor_inside(
        data: bytes, size: tuple[int, int]) -> None:
    replies: list[bytes] = []
    vt = VirtualTerminal(*size, replies.append)
    vt.feed(data)
    assert vt.errors == 0
    x, y = vt.cursor
    assert 0 <= x < vt.columns and 0 <= y < vt.lines
    assert all(vt.row(row) is not None for row in range(vt.lines))
    vt.resize(size[1], size[0])
    x, y = vt.cursor
    assert 0 <= x < vt.columns and 0 <= y < vt.lines
    assert vt.errors == 0


@settings(max_examples=200, deadline=None)
@given(data=streams, cuts=st.lists(st.integers(0, 500), max_size=8), size=sizes)
def test_any_chunking_gives_the_same_screen(
        data: bytes, cuts: list[int], size: tuple[int, int]) -> None:
    whole = VirtualTerminal(*size)
    whole.feed(data)
    pieces = VirtualTerminal(*size)
    start = 0
    for cut in sorted(c % (len(data) + 1) for c in cuts):
        pieces.feed(data[start:cut])
        start = cut
    pieces.feed(data[start:])
    assert grid(pieces) == grid(whole)
    assert pieces.cursor == whole.cursor
    assert (pieces.title, pieces.alt_screen, pieces.history_size) == (
        whole.title, whole.alt_screen, whole.history_size)


def _cells(text: str) -> int:
    from laura.vt.width import char_width

    return sum(1 if c.isascii() else char_width(c) for c in text)


@settings(max_examples=150, deadline=None)
@given(data=streams, seed=st.integers(0, 10_000),
       sizes_after=st.lists(st.tuples(st.integers(1, 8), st.integers(1, 30)), min_size=1,
                            max_size=4))
def test_resizes_never_break_the_screen(data: bytes, seed: int,
                                        sizes_after: list[tuple[int, int]]) -> None:
    from tests.laura.vt.streams import random_stream

    vt = VirtualTerminal(6, 20)
    vt.feed(random_stream(seed, steps=30, lines=6, wide=True) + data)
    for lines, columns in sizes_after:
        vt.resize(lines, columns)
        assert vt.errors == 0
        x, y = vt.cursor
        assert 0 <= x < columns and 0 <= y < lines
        for scroll in (0, vt.history_size):
            for row in range(lines):
                assert _cells("".join(s.text for s in vt.row(row, scroll))) <= columns
        vt.feed(b"after resize\r\n")
        assert vt.errors == 0
