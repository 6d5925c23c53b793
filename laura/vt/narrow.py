"""Which BMP characters do not take exactly one cell, as one regex class.

Generated from `laura.vt.width.char_width` (the stdlib's Unicode database,
version UNIDATA_VERSION) by `python -m laura.vt.narrow > laura/vt/narrow_new.py`
(then moved over this file); a test checks that it agrees with
`char_width` for every BMP character. It only lets the emulator skip per-character work for text that
is all one-cell characters; on another Unicode version the table is not
used (see `not_narrow`).
"""

from __future__ import annotations

import functools
import re
import unicodedata

UNIDATA_VERSION = "14.0.0"

_RANGES = (
    "\u0080-\u009f\u00ad\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1-\u05c2"
    "\u05c4-\u05c5\u05c7\u0600-\u0605\u0610-\u061a\u061c\u064b-\u065f\u0670\u06d6-\u06dd"
    "\u06df-\u06e4\u06e7-\u06e8\u06ea-\u06ed\u070f\u0711\u0730-\u074a\u07a6-\u07b0"
    "\u07eb-\u07f3\u07fd\u0816-\u0819\u081b-\u0823\u0825-\u0827\u0829-\u082d\u0859-\u085b"
    "\u0890-\u0891\u0898-\u089f\u08ca-\u0902\u093a\u093c\u0941-\u0948\u094d\u0951-\u0957"
    "\u0962-\u0963\u0981\u09bc\u09c1-\u09c4\u09cd\u09e2-\u09e3\u09fe\u0a01-\u0a02\u0a3c"
    "\u0a41-\u0a42\u0a47-\u0a48\u0a4b-\u0a4d\u0a51\u0a70-\u0a71\u0a75\u0a81-\u0a82\u0abc"
    "\u0ac1-\u0ac5\u0ac7-\u0ac8\u0acd\u0ae2-\u0ae3\u0afa-\u0aff\u0b01\u0b3c\u0b3f"
    "\u0b41-\u0b44\u0b4d\u0b55-\u0b56\u0b62-\u0b63\u0b82\u0bc0\u0bcd\u0c00\u0c04\u0c3c"
    "\u0c3e-\u0c40\u0c46-\u0c48\u0c4a-\u0c4d\u0c55-\u0c56\u0c62-\u0c63\u0c81\u0cbc\u0cbf"
    "\u0cc6\u0ccc-\u0ccd\u0ce2-\u0ce3\u0d00-\u0d01\u0d3b-\u0d3c\u0d41-\u0d44\u0d4d"
    "\u0d62-\u0d63\u0d81\u0dca\u0dd2-\u0dd4\u0dd6\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1"
    "\u0eb4-\u0ebc\u0ec8-\u0ecd\u0f18-\u0f19\u0f35\u0f37\u0f39\u0f71-\u0f7e\u0f80-\u0f84"
    "\u0f86-\u0f87\u0f8d-\u0f97\u0f99-\u0fbc\u0fc6\u102d-\u1030\u1032-\u1037\u1039-\u103a"
    "\u103d-\u103e\u1058-\u1059\u105e-\u1060\u1071-\u1074\u1082\u1085-\u1086\u108d\u109d"
    "\u1100-\u11ff\u135d-\u135f\u1712-\u1715\u1732-\u1734\u1752-\u1753\u1772-\u1773"
    "\u17b4-\u17b5\u17b7-\u17bd\u17c6\u17c9-\u17d3\u17dd\u180b-\u180f\u1885-\u1886\u18a9"
    "\u1920-\u1922\u1927-\u1928\u1932\u1939-\u193b\u1a17-\u1a18\u1a1b\u1a56\u1a58-\u1a5e"
    "\u1a60\u1a62\u1a65-\u1a6c\u1a73-\u1a7c\u1a7f\u1ab0-\u1ace\u1b00-\u1b03\u1b34"
    "\u1b36-\u1b3a\u1b3c\u1b42\u1b44\u1b6b-\u1b73\u1b80-\u1b81\u1ba2-\u1ba5\u1ba8-\u1bad"
    "\u1be6\u1be8-\u1be9\u1bed\u1bef-\u1bf3\u1c2c-\u1c33\u1c36-\u1c37\u1cd0-\u1cd2"
    "\u1cd4-\u1ce0\u1ce2-\u1ce8\u1ced\u1cf4\u1cf8-\u1cf9\u1dc0-\u1dff\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\u20d0-\u20f0\u231a-\u231b\u2329-\u232a"
    "\u23e9-\u23ec\u23f0\u23f3\u25fd-\u25fe\u2614-\u2615\u2648-\u2653\u267f\u2693\u26a1"
    "\u26aa-\u26ab\u26bd-\u26be\u26c4-\u26c5\u26ce\u26d4\u26ea\u26f2-\u26f3\u26f5\u26fa"
    "\u26fd\u2705\u270a-\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0"
    "\u27bf\u2b1b-\u2b1c\u2b50\u2b55\u2cef-\u2cf1\u2d7f\u2de0-\u2dff\u2e80-\u2e99"
    "\u2e9b-\u2ef3\u2f00-\u2fd5\u2ff0-\u2ffb\u3000-\u303e\u3041-\u3096\u3099-\u30ff"
    "\u3105-\u312f\u3131-\u318e\u3190-\u31e3\u31f0-\u321e\u3220-\u3247\u3250-\u4dbf"
    "\u4e00-\ua48c\ua490-\ua4c6\ua66f-\ua672\ua674-\ua67d\ua69e-\ua69f\ua6f0-\ua6f1\ua802"
    "\ua806\ua80b\ua825-\ua826\ua82c\ua8c4-\ua8c5\ua8e0-\ua8f1\ua8ff\ua926-\ua92d"
    "\ua947-\ua951\ua953\ua960-\ua97c\ua980-\ua982\ua9b3\ua9b6-\ua9b9\ua9bc-\ua9bd\ua9c0"
    "\ua9e5\uaa29-\uaa2e\uaa31-\uaa32\uaa35-\uaa36\uaa43\uaa4c\uaa7c\uaab0\uaab2-\uaab4"
    "\uaab7-\uaab8\uaabe-\uaabf\uaac1\uaaec-\uaaed\uaaf6\uabe5\uabe8\uabed\uac00-\ud7a3"
    "\uf900-\ufaff\ufb1e\ufe00-\ufe19\ufe20-\ufe52\ufe54-\ufe66\ufe68-\ufe6b\ufeff"
    "\uff01-\uff60\uffe0-\uffe6\ufff9-\ufffb"
)


@functools.cache
def not_narrow() -> re.Pattern[str] | None:
    """A pattern matching any character that is not one cell wide (anything
    outside the BMP counts as such); None when this Python's Unicode data is
    another version. Compiled on first use (it takes a while: 469 ranges)."""
    if unicodedata.unidata_version != UNIDATA_VERSION:
        return None
    return re.compile("[" + _RANGES + "\\U00010000-\\U0010ffff]")


def _generate() -> str:
    """This module's source, from this Python's Unicode data."""
    from laura.vt.width import char_width

    ranges: list[tuple[int, int]] = []
    start: int | None = None
    for code in range(0x80, 0x10000):
        odd = not 0xD800 <= code <= 0xDFFF and char_width(chr(code)) != 1
        if odd and start is None:
            start = code
        elif not odd and start is not None:
            ranges.append((start, code - 1))
            start = None
    if start is not None:
        ranges.append((start, 0xFFFF))
    items = [f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges]
    rows, row = [], ""
    for item in items:
        if len(row) + len(item) > 84:
            rows.append(row)
            row = ""
        row += item
    rows.append(row)
    with open(__file__, encoding="utf-8") as own:
        text = own.read()
    head, rest = text.split("_RANGES = (\n", 1)
    tail = rest.split("\n)\n", 1)[1]
    version = f'UNIDATA_VERSION = "{unicodedata.unidata_version}"'
    head = re.sub(r'UNIDATA_VERSION = "[^"]*"', version, head)
    body = "\n".join(f'    "{r}"' for r in rows)
    return f"{head}_RANGES = (\n{body}\n)\n{tail}"


if __name__ == "__main__":
    print(_generate(), end="")

