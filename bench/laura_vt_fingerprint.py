"""A digest of laura.vt's whole state after generated input: run it on two
commits and compare, to show that a speed change of the emulator changes
nothing it computes.

The inputs (seeded, so the same on every commit): random bytes with
`\\n` -> `\\r\\n` (what a PTY's onlcr delivers) and without; random bytes
drawn from an alphabet of control bytes, sequence pieces and wide,
combining and Latin characters (so sequences and modes happen often); and a
control-heavy stream of text, CR, BS, HT, LF, SGR, cursor moves, insert
mode, DECAWM, origin mode, margins, tab stops, DEC line drawing, REP,
ICH/DCH/ECH, erasing, the alternate screen, saved cursors and resizes. Each
is fed in random read sizes at several screen sizes.

The digest covers every line of the scrollback, both screens (text, style
runs normalised, wrap flag, combining marks), the cursor, the style, the
margins, every mode, the tab stops, the charsets, saved cursors, the last
character (for REP), the title, the alerts, the held tail and the error
count, taken every few reads. Separately it checks that every row whose
content changed between two reads was reported dirty (the host draws only
those), and prints how many were not.

    python bench/laura_vt_fingerprint.py [--mb 1.0]
    PYTHONPATH=/tmp/other-commit python bench/laura_vt_fingerprint.py
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time
from pathlib import Path

from laura.vt import VirtualTerminal
from laura.vt import core as vt_core
from laura.vt.line import Line

SIZES = ((50, 200), (24, 80), (40, 120), (7, 33), (3, 5), (1, 1), (2, 9))
_ALPHABET = [
    b"\x1b", b"\x1b[", b"[", b"\x08", b"\t", b"\r", b"\n", b"\r\n", b"\x0b", b"\x0c",
    b"\x07", b"\x0e", b"\x0f", b"\x18", b"\x1a", b"\x00", b"\x7f", b";", b"?", b"0", b"1",
    b"4", b"6", b"7", b"8", b"m", b"h", b"l", b"H", b"r", b"g", b"b", b"@", b"P", b"X",
    b"M", b"D", b"E", b"c", b"(0", b"(B", b")0", b"q", b"x", b"abc", b"hello ",
    "漢".encode(), "ｗ".encode(), "é".encode(), "\u0301".encode(), "\ufffd".encode(),
    "ж".encode(), b"\xe6", b"\xbc", b"\xff", b"\xc2\x9b",
]


def _random(rnd: random.Random, size: int, onlcr: bool) -> bytes:
    data = rnd.randbytes(size)
    return data.replace(b"\n", b"\r\n") if onlcr else data


def _alphabet(rnd: random.Random, size: int) -> bytes:
    out, total = [], 0
    while total < size:
        piece = rnd.choice(_ALPHABET) if rnd.random() < 0.8 else rnd.randbytes(rnd.randint(1, 6))
        out.append(piece)
        total += len(piece)
    return b"".join(out)


def _controls(rnd: random.Random, size: int) -> bytes:
    words = ["alpha", "beta gamma", "x", "0123456789" * 3, "漢字", "ｗｉｄｅ", "e\u0301",
             "a\u0301\u0302", "\ufffd\ufffd", "жжж", "lqqk", "tab", " " * 7]
    modes = ["\x1b[4h", "\x1b[4l", "\x1b[?7l", "\x1b[?7h", "\x1b[?6h", "\x1b[?6l",
             "\x1b[20h", "\x1b[20l", "\x1b[?1049h", "\x1b[?1049l", "\x1b(0", "\x1b(B",
             "\x1b)0", "\x0e", "\x0f", "\x1b7", "\x1b8", "\x1b[s", "\x1b[u", "\x1b[!p"]
    out: list[str] = []
    total = 0
    while total < size:
        kind = rnd.randrange(100)
        if kind < 35:
            piece = rnd.choice(words) * rnd.randint(1, 4)
        elif kind < 45:
            piece = "\r"
        elif kind < 53:
            piece = "\x08" * rnd.randint(1, 3)
        elif kind < 60:
            piece = "\t"
        elif kind < 68:
            piece = rnd.choice(["\r\n", "\n", "\x0b", "\x0c"])
        elif kind < 74:
            piece = f"\x1b[{rnd.choice(['0', '1', '31', '1;34', '38;5;208', '7', ''])}m"
        elif kind < 80:
            piece = rnd.choice(modes)
        elif kind < 84:
            piece = f"\x1b[{rnd.randint(0, 60)};{rnd.randint(0, 210)}H"
        elif kind < 88:
            piece = f"\x1b[{rnd.randint(0, 9)}{rnd.choice('ABCDEFGd`aeIZ')}"
        elif kind < 90:
            top = rnd.randint(0, 20)
            piece = f"\x1b[{top};{top + rnd.randint(0, 30)}r" if rnd.random() < 0.7 else "\x1b[r"
        elif kind < 92:
            piece = rnd.choice(["\x1bH", "\x1b[g", "\x1b[3g", "\x1b[0g"])
        elif kind < 95:
            piece = f"\x1b[{rnd.randint(0, 9)}{rnd.choice('@PXbKJLMST')}"
        elif kind < 97:
            piece = rnd.choice(["\x1bM", "\x1bD", "\x1bE", "\x07", "\x1b]0;title\x07", "\x18"])
        else:
            piece = rnd.choice(["\x1b[?7l", "\x1b[4h"]) + rnd.choice(words) * 5
        out.append(piece)
        total += len(piece)
    return "".join(out).encode()


def _style_key(style: object, cache: dict[int, str]) -> str:
    key = cache.get(id(style))
    if key is None:
        key = cache[id(style)] = repr(style)
    return key


def _line(line: Line, cache: dict[int, str]) -> tuple:
    runs = line.runs
    n = len(line.text)
    merged: list = []
    for i in range(0, len(runs), 2):
        start, style = runs[i], _style_key(runs[i + 1], cache)
        end = runs[i + 2] if i + 2 < len(runs) else n
        if start >= n or end <= start:
            continue
        if merged and merged[-1] == style:
            continue
        merged += (start, style)
    marks = tuple(sorted(line.marks.items())) if line.marks else ()
    return line.text, tuple(merged), line.wrapped, marks


def _saved(saved: object) -> tuple:
    if saved is None:
        return ()
    return tuple(repr(getattr(saved, name)) for name in type(saved).__slots__)  # type: ignore[attr-defined]


def state(vt: VirtualTerminal, cache: dict[int, str]) -> bytes:
    parts = [
        [_line(line, cache) for line in vt.history],
        [_line(line, cache) for line in vt.main_buffer],
        [_line(line, cache) for line in vt.alt_buffer],
        vt.buffer is vt.alt_buffer,
        (vt.x, vt.y, _style_key(vt.style, cache), vt.top, vt.bottom, vt.lines, vt.columns),
        (vt.autowrap, vt.origin, vt.insert_mode, vt.newline_mode, vt.cursor_visible,
         vt.alt_screen, vt.bracketed_paste, vt.app_cursor_keys, vt.mouse_tracking,
         vt.sgr_mouse, vt.focus_reporting, vt.synchronized),
        (tuple(vt.charsets), vt.shift, vt._translate, vt._last_char),
        tuple(sorted(vt.tabstops)),
        (_saved(vt._saved_main), _saved(vt._saved_alt)),
        (vt.title, tuple(repr(a) for a in vt.alerts), vt.errors, vt._held, vt._in_string),
    ]
    return repr(parts).encode()


def _rows(vt: VirtualTerminal, cache: dict[int, str]) -> list:
    """What each row shows (the wrap flag is not drawn)."""
    return [(text, runs, marks) for text, runs, _, marks in (_line(line, cache) for line in vt.buffer)]


def run(name: str, data: bytes, size: tuple[int, int], seed: int) -> tuple[str, int]:
    """Feed `data` in random reads; the digest and the count of changed rows
    that were not reported dirty."""
    rnd = random.Random(seed)
    replies: list[bytes] = []
    vt = VirtualTerminal(*size, replies.append)
    digest = hashlib.sha256(name.encode())
    cache: dict[int, str] = {}
    missed = 0
    before = _rows(vt, cache)
    vt.take_dirty()
    pos = reads = 0
    while pos < len(data):
        step = rnd.choice((1, 2, 7, 64, 1000, 4096, 4096, 16384, rnd.randint(1, 65536)))
        vt.feed(data[pos : pos + step])
        pos += step
        reads += 1
        alt = vt.alt_screen
        dirty = vt.take_dirty()
        after = _rows(vt, cache)
        if vt.alt_screen == alt and len(after) == len(before):
            missed += sum(1 for y, row in enumerate(after) if row != before[y] and y not in dirty)
        before = after
        if reads % 16 == 0:
            digest.update(state(vt, cache))
            if rnd.random() < 0.1 and name == "controls":
                vt.resize(max(1, size[0] + rnd.randint(-2, 2)), max(1, size[1] + rnd.randint(-3, 3)))
                vt.take_dirty()
                before = _rows(vt, cache)
    digest.update(state(vt, cache))
    digest.update(repr(replies).encode())
    return digest.hexdigest()[:16], missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=1.0, help="size of each input, MB")
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    rnd = random.Random(18)
    inputs = {
        "random-onlcr": _random(rnd, size, True),
        "random": _random(rnd, size // 2, False),
        "alphabet": _alphabet(rnd, size // 2),
        "controls": _controls(rnd, size),
    }
    print(f"laura.vt from {Path(vt_core.__file__).parent}")
    total = hashlib.sha256()
    start = time.perf_counter()
    for name, data in inputs.items():
        for index, screen in enumerate(SIZES):
            if screen[1] < 9 and len(data) > size // 4:
                data = data[: size // 4]  # tiny screens are slow per byte; a share is enough
            digest, missed = run(name, data, screen, index)
            total.update(digest.encode())
            print(f"{name:13} {screen[0]:>3}x{screen[1]:<4} {digest}  dirty missed: {missed}")
    print(f"all {total.hexdigest()[:16]}  ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
