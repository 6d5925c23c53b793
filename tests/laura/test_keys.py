"""Input decoding (what the user's terminal sends) and xterm key encoding (what the child gets)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from laura.keys import InputDecoder, Key, Mouse, Paste, encode_key


def decode(data: bytes) -> list[object]:
    decoder = InputDecoder()
    return [*decoder.feed(data), *decoder.flush()]


def test_control_bytes_follow_crossterm() -> None:
    assert decode(b"\x08\x7f\t\r\x01\x00\n") == [
        Key("h", ctrl=True), Key("backspace"), Key("tab"), Key("enter"), Key("a", ctrl=True), Key("space", ctrl=True),
        Key("j", ctrl=True),
    ]
    # What a hosted program is sent is the byte the person's terminal sent.
    assert [encode_key(key) for key in decode(b"\r\n")] == [b"\r", b"\n"]  # type: ignore[arg-type]


def test_sequences_with_modifiers() -> None:
    assert decode(b"\x1b[A\x1b[1;5D\x1b[3~\x1b[5;3~\x1b[Z\x1bx\x1bOP\x1b[24~") == [
        Key("up"), Key("left", ctrl=True), Key("delete"), Key("pageup", alt=True), Key("tab", shift=True),
        Key("x", alt=True), Key("f1"), Key("f12"),
    ]


def test_a_lone_escape_waits_for_flush() -> None:
    decoder = InputDecoder()
    assert decoder.feed(b"\x1b") == []
    assert decoder.feed(b"[B") == [Key("down")]
    assert decoder.feed(b"\x1b") == []
    assert decoder.flush() == [Key("escape")]


def test_paste_and_mouse() -> None:
    assert decode(b"\x1b[200~line 1\nline \x1b[A2\x1b[201~z") == [Paste("line 1\nline \x1b[A2"), Key("z")]
    assert decode(b"\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<64;1;1M") == [
        Mouse(0, 9, 4, True), Mouse(0, 9, 4, False), Mouse(64, 0, 0, True),
    ]
    assert Mouse(64, 0, 0, True).wheel == -1 and Mouse(65, 0, 0, True).wheel == 1


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=60), st.integers(1, 8))
def test_any_chunking_decodes_the_same(data: bytes, step: int) -> None:
    whole = decode(data)
    decoder = InputDecoder()
    parts = []
    for start in range(0, len(data), step):
        parts.extend(decoder.feed(data[start : start + step]))
    parts.extend(decoder.flush())
    # A lone ESC may resolve differently only at a chunk edge; everything else is identical.
    if b"\x1b" not in data:
        assert parts == whole


def test_xterm_encoding() -> None:
    assert encode_key(Key("up")) == b"\x1b[A"
    assert encode_key(Key("up"), app_cursor=True) == b"\x1bOA"
    assert encode_key(Key("right", ctrl=True, shift=True)) == b"\x1b[1;6C"
    assert encode_key(Key("home", alt=True)) == b"\x1b[1;3H"
    assert encode_key(Key("tab", shift=True)) == b"\x1b[Z"
    assert encode_key(Key("c", ctrl=True)) == b"\x03"
    assert encode_key(Key("c", ctrl=True, alt=True)) == b"\x1b\x03"
    assert encode_key(Key("é", alt=True)) == "\x1bé".encode()
    assert encode_key(Key("delete")) == b"\x1b[3~"
    assert encode_key(Key("pagedown", ctrl=True)) == b"\x1b[6;5~"
    assert encode_key(Key("f5")) == b"\x1b[15~"
    assert encode_key(Key("backspace")) == b"\x7f"
