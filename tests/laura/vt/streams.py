"""Random byte streams built from the controls both emulators model."""

from __future__ import annotations

import random

_WORDS = ["alpha", "beta", "x", "hello world", "0123456789", "tab\there", "end"]
_SGRS = ["0", "1", "3", "4", "7", "9", "22", "23", "24", "27", "31", "42", "1;34", "38;5;208",
         "48;5;17", "38;2;1;2;3", "39", "49", "92", "103", ""]


def random_stream(seed: int, steps: int = 60, lines: int = 10, columns: int = 20,
                  wide: bool = False, simple: bool = False) -> bytes:
    """Text, cursor movement, erasing, insert/delete, margins and SGR.

    `simple` keeps to text, C0 controls, CUP, erasing and SGR: pyte goes its
    own way on most of the rest (see test_pyte_gaps.py)."""
    rnd = random.Random(seed)
    out: list[str] = []
    margins = False
    words = [*_WORDS, "漢字", "ｗｉｄｅ", "e\u0301"] if wide else _WORDS
    for _ in range(steps):
        kind = rnd.randrange(16)
        if simple and (kind in (7, 9, 10) or kind >= 12):
            kind = rnd.choice([0, 5, 6, 8, 11])
        n = rnd.randint(0, 5)
        if kind <= 4:
            word = rnd.choice(words) * rnd.randint(1, 3)
            # (pyte moves a TAB off a pending wrap; tmux and we keep it.)
            out.append(word.replace("\t", " ") if simple else word)
        elif kind == 5:
            # (BS after CHA: from a pending wrap tmux steps back from the
            # column past the edge, xterm and we from the last column; at
            # column 0 after a wrap tmux may move back over the wrap.)
            backspace = f"\x1b[{rnd.randint(2, columns)}G\x08"
            out.append(rnd.choice(["\r\n", "\n", "\r", backspace, " " if simple else "\t"]))
        elif kind == 6:
            out.append(f"\x1b[{rnd.randint(0, lines + 2)};{rnd.randint(0, columns + 2)}H")
        elif kind == 7:
            # (CUB after CHA: from a pending wrap tmux counts from the column
            # past the edge, xterm and we from the last column.)
            move = rnd.choice("ABCDEFGd`")
            prefix = f"\x1b[{rnd.randint(1, columns)}G" if move == "D" else ""
            out.append(f"{prefix}\x1b[{n}{move}")
        elif kind == 8:
            out.append(f"\x1b[{rnd.choice(['', '0', '1', '2'])}{rnd.choice('JK')}")
        elif kind == 9:
            out.append(f"\x1b[{n}{rnd.choice('XP@')}")
        elif kind == 10 and not margins:
            # (Only without margins: outside the margins tmux inserts and
            # deletes over the whole screen, xterm and we do nothing.)
            out.append(f"\x1b[{n}{rnd.choice('LM')}")
        elif kind == 11:
            out.append(f"\x1b[{rnd.choice(_SGRS)}m")
        elif kind == 12:
            top = rnd.randint(1, lines)
            bottom = rnd.randint(top, lines)
            out.append(f"\x1b[{top};{bottom}r")
            margins = margins or (top < bottom and (top, bottom) != (1, lines))
        elif kind == 13:
            out.append(rnd.choice(["\x1bD", "\x1bM", "\x1bE", "\x1b7", "\x1b8", "\x1b[r"]))
            margins = margins and out[-1] != "\x1b[r"
        elif kind == 14:
            # No origin mode (tmux homes DECSTBM to the absolute top-left even
            # in origin mode, where xterm and we use the margin), no insert
            # mode (tmux wraps *after* making room, xterm and we before), no
            # DECAWM reset (tmux drops text while a wrap is pending, xterm
            # and we write the last column): unit tests pin those.
            out.append(rnd.choice(["\x1b[?25l", "\x1b[?25h"]))
        else:
            # (No CHT, `CSI I`: tmux 3.3 does not implement it.)
            out.append(rnd.choice(["\x1bH", "\x1b[g", "\x1b[3g", "\x1b[Z"]))
    return "".join(out).encode()


def random_wide_stream(seed: int, steps: int = 50) -> bytes:
    """Wide and combining characters moved around by CUP, LF/RI and margins
    (no erase/insert/delete: tmux keeps halves of wide characters there,
    see docs/laura-vt.md)."""
    rnd = random.Random(seed)
    words = ["alpha", "漢字", "ｗｉｄｅ", "e\u0301", "x", "βeta", "日本語テキスト"]
    out: list[str] = []
    for _ in range(steps):
        kind = rnd.randrange(8)
        if kind <= 3:
            out.append(rnd.choice(words) * rnd.randint(1, 3))
        elif kind == 4:
            out.append(rnd.choice(["\r\n", "\n", "\r"]))
        elif kind == 5:
            out.append(f"\x1b[{rnd.randint(1, 10)};{rnd.randint(1, 20)}H")
        elif kind == 6:
            out.append(f"\x1b[{rnd.choice(['31', '1;44', '0', '7'])}m")
        else:
            out.append(rnd.choice(["\x1bD", "\x1bM", "\x1b[2;8r", "\x1b[r"]))
    return "".join(out).encode()
