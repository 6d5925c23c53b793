"""The input stage of laura.vt (core.py) gives exactly what its plain
equivalents give: bytes decoded with the controls that have no effect marked
before decoding, against decoding first and dropping them after; the split
regex, against the plain alternation of the token kinds; a held tail keeps
the controls as they were read."""

from __future__ import annotations

import codecs
import random
import re
from itertools import pairwise

import pytest

from laura.vt import VirtualTerminal
from laura.vt import core as vt_core
from tests.laura.vt.state import vt_state

_INERT = re.compile("[\x00-\x06\x10-\x17\x19\x1c-\x1f\x7f-\x9f]")
_IGNORED_BYTES = [bytes((code,)) for code in (*range(0x07), *range(0x10, 0x18), 0x19,
                                              *range(0x1C, 0x20), 0x7F)]
# The plain alternation: what the split must cut, token for token.
_PLAIN_SPLIT = re.compile(
    "(\r\n"
    "|\x1b\\[(?![0-9;:]*m)[0-?]*+[ -/]*+(?:[@-~]|(?=[\x18\x1a\x1b]|\\Z))"
    "|\x1b\\][^\x07\x18\x1a\x1b]*(?:\x07|\x1b\\\\|(?=[\x18\x1a\x1b])|\\Z)"
    "|\x1b[P_^X][^\x18\x1a\x1b]*(?:\x1b\\\\|(?=[\x18\x1a\x1b])|\\Z)"
    "|\x1b(?:[ -/]*+[0-Z\\\\-~]|[ -/]++(?=[\x18\x1a\x1b]|\\Z))"
    "|[\x00-\x1a\x1c-\x1f\x7f-\x9f]"
    "|\x1b(?!\\[[0-9;:]*m))"
)


def _reads(data: bytes, cuts: list[int]) -> list[bytes]:
    edges = [0, *cuts, len(data)]
    return [data[a:b] for a, b in pairwise(edges)]


def _check_decode(reads: list[bytes]) -> None:
    """Read by read: the marked decode has one character for each character
    of the plain incremental decode, the same one or NUL for an inert one."""
    plain = codecs.getincrementaldecoder("utf-8")("replace")
    left = b""
    for data in reads:
        expected = plain.decode(data)
        text, left, marked = vt_core._decode(left + data)
        if not marked:  # ASCII: as it came
            assert text == expected
            continue
        assert len(text) == len(expected), (reads, text, expected)
        assert text.replace("\0", "") == _INERT.sub("", expected), (reads, text, expected)
        for got, want in zip(text, expected, strict=True):
            assert got == want or (got == "\0" and _INERT.fullmatch(want)), (reads, got, want)
    assert left == plain.getstate()[0]


def _edge_cases() -> list[bytes]:
    """Inert bytes inside and around broken and whole UTF-8 sequences."""
    sequences = [b"\xc2\x85", b"\xc2\x9f", b"\xc2\xa0", b"\xcc\x81", b"\xe6\xbc\xa2", b"\xe0\xa0\x80",
                 b"\xed\x9f\xbf", b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf", b"\xef\xbf\xbd"]
    out = []
    for sequence in sequences:
        for at in range(1, len(sequence)):
            for ignored in (b"\x00", b"\x05", b"\x19", b"\x7f", b"\xc2\x80", b"\xc2\x9b"):
                out.append(b"a" + sequence[:at] + ignored + sequence[at:] + b"b")
                out.append(sequence[:at] + ignored + ignored + sequence[at:])
        out.append(b"\xc2" + sequence + b"\xe6" + sequence[:1] + b"\x18" + sequence)
    out += [b"\xc2\xc2\x85", b"\xe0\xc2\x85", b"\xc2\x85\x85", b"\xc3\x85\x85", b"\xc0\x85",
            b"\xe2\x80\x85\x00\xe2\x80", b"\x1b\xc2\x9b1m", b"\xc2\x1b\x85"]
    return out


def test_the_marked_decode_matches_decoding_then_dropping_at_every_read_boundary() -> None:
    for data in _edge_cases():
        _check_decode([data])
        for cut in range(1, len(data)):
            _check_decode(_reads(data, [cut]))
        _check_decode([data[at : at + 1] for at in range(len(data))])


def test_the_marked_decode_matches_on_every_character_and_random_bytes() -> None:
    every = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)
    data = every.encode()
    _check_decode([data])
    rnd = random.Random(7)
    _check_decode(_reads(data, sorted(rnd.sample(range(len(data)), 2000))))
    noise = rnd.randbytes(256 * 1024)
    _check_decode([noise])
    _check_decode(_reads(noise, sorted(rnd.sample(range(len(noise)), 5000))))
    # Inert bytes next to every lead and continuation byte.
    dense = b"".join(rnd.choice((*_IGNORED_BYTES, b"\xc2", b"\xe6", b"\xf0", b"\xbc", b"\x85",
                                 b"\xa0", b"\x9f", b"a")) for _ in range(200_000))
    _check_decode([dense])
    _check_decode(_reads(dense, sorted(rnd.sample(range(len(dense)), 20_000))))


def test_the_split_cuts_what_the_plain_alternation_cuts() -> None:
    pieces = ["\x1b", "\x1b[", "[", "]", "\x1b]", "\x1bP", "P", "_", "^", "X", "\\", "\x1b\\",
              "\x07", "\x08", "\t", "\r", "\n", "\r\n", "\x0b", "\x0e", "\x18", "\x1a", "\x00",
              "\x7f", "\x85", "\x9b", ";", ":", "?", "0", "1", "m", "(", " ", "/", "Z", "@", "~",
              "a", "\ufffd", "漢", "\u0301"]
    rnd = random.Random(3)
    for _ in range(50_000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 12)))
        assert vt_core._SPLIT.split(text) == _PLAIN_SPLIT.split(text), repr(text)
    noise = rnd.randbytes(200_000).decode("utf-8", "replace")
    assert vt_core._SPLIT.split(noise) == _PLAIN_SPLIT.split(noise)
    for code in range(0x100):
        text = f"\x1b{chr(code)}x\x1b[{chr(code)}x\x1b[1{chr(code)}\x1b]{chr(code)}\x1b({chr(code)}"
        assert vt_core._SPLIT.split(text) == _PLAIN_SPLIT.split(text), repr(text)


def test_a_held_tail_keeps_the_controls_as_they_were_read() -> None:
    vt = VirtualTerminal(5, 20)
    vt.feed(b"ok\x1b]0;a\x05b\xc2")
    vt.feed(b"\x85c\x7f\xe6\x00\xbc")
    assert vt._held == "\x1b]0;a\x05b\x85c\x7f\ufffd\x00\ufffd"
    vt.feed(b"d\x07")
    assert (vt.title, vt._held, vt.errors) == ("abc\ufffd\ufffdd", "", 0)
    assert vt.main_buffer[0].text == "ok"


def test_ascii_reads_unmarked_leave_the_state_marked_reads_leave(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """ASCII reads skip the marks (`_decode`): the same input with every
    read marked leaves the same state, held tails included."""
    rnd = random.Random(11)
    ascii = [b"\x00", b"\x05", b"\x7f", b"\x1b", b"\x1b[", b"\x1b]0;", b"\x1bP", b"\x1b\\", b"\x07",
             b"\x18", b"\r\n", b"\x08", b"\x0e", b"\x1b(0", b"1", b";", b"m", b"H", b"q", b"ab"]
    other = [b"\xc2", b"\x85", b"\xe6\xbc", b"\xa2", "\u0301".encode()]
    data = b"".join(rnd.choice(other if rnd.random() < 0.01 else ascii) for _ in range(40_000))

    def fed() -> tuple:
        reads = random.Random(5)
        vt = VirtualTerminal(8, 30)
        at = 0
        while at < len(data):
            step = reads.choice((1, 3, 7, 64, 256))
            vt.feed(data[at : at + step])
            at += step
        return (vt_state(vt), vt._held, vt._in_string)

    unmarked = fed()
    monkeypatch.setattr(vt_core, "_decode", lambda data: (*vt_core._decode_marked(data), True))
    assert fed() == unmarked
