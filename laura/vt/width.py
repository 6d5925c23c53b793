"""How many cells a character takes: 0 (combining), 1, or 2 (East Asian wide),
and a chunk of text as the cells it fills.

Decided from the stdlib's Unicode database, memoised per character; no native
dependency. ASCII never gets here: the emulator checks `str.isascii()` first.
"""

from __future__ import annotations

import re
import unicodedata

from laura.vt.line import FILL

_CACHE: dict[str, int] = {}
# Put before each combining character in a chunk's cells, to split them at:
# a control the split never leaves in text (\x01 is dropped before it).
MARK = "\x01"
# Blocks whose unassigned code points are wide (EastAsianWidth.txt): CJK
# Extension A, CJK Unified Ideographs, CJK Compatibility Ideographs, planes 2 and 3.
_WIDE_UNASSIGNED = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF),
                    (0x20000, 0x2FFFD), (0x30000, 0x3FFFD))


def char_width(char: str) -> int:
    found = _CACHE.get(char)
    if found is None:
        found = _compute(char)
        if len(_CACHE) > 100_000:
            _CACHE.clear()
        _CACHE[char] = found
    return found


def _compute(char: str) -> int:
    code = ord(char)
    if code < 0x20 or 0x7F <= code < 0xA0:
        return 0
    if code == 0x200D or 0x200B <= code <= 0x200F or 0xFE00 <= code <= 0xFE0F:
        return 0  # zero-width joiners/spaces and variation selectors
    category = unicodedata.category(char)
    if category in ("Mn", "Me", "Cf") or unicodedata.combining(char):
        return 0
    if 0x1160 <= code <= 0x11FF:
        return 0  # Hangul medial vowels and final consonants join the syllable
    if category == "Cn":
        # Unassigned: one cell (as xterm has it), but in the blocks where
        # Unicode's EastAsianWidth.txt makes them wide by default (this
        # Python's unicodedata calls every unassigned code point wide).
        return 2 if any(a <= code <= b for a, b in _WIDE_UNASSIGNED) else 1
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    return 1


def cells_of(chunk: str, special: re.Pattern[str], start: int = 0) -> str:
    """`chunk` as cells, without a loop over its characters: one
    str.replace per distinct character `special` finds (from `start`, when
    the caller knows there is none before) gives a wide one its FILL cell and
    puts `MARK` before a combining one."""
    cells = chunk
    widths = _CACHE
    for char in set(special.findall(chunk, start)):
        width = widths.get(char)
        if width is None:
            width = char_width(char)
        if width == 2:
            cells = cells.replace(char, char + FILL)
        elif width == 0:
            cells = cells.replace(char, MARK + char)
    return cells
