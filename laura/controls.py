"""Control characters shown, not obeyed: the one stand-in for each.

C0 controls and DEL become their Unicode control pictures (ESC -> ␛); C1
controls, which some terminals read as 8-bit escapes, and lone surrogates
(a file name that is not UTF-8), which no UTF-8 can carry, become U+FFFD.
What a review types into the agent (laura.review.payload, which keeps tab
and newline) and what the client prints (laura.cli) both go through this.
"""

from __future__ import annotations


def pictured(text: str, keep: str = "") -> str:
    """`text` with every control character but those in `keep` replaced by
    a visible stand-in."""
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in keep:
            out.append(char)
        elif code < 0x20:
            out.append(chr(0x2400 + code))
        elif code == 0x7F:
            out.append("\u2421")
        elif 0x80 <= code <= 0x9F or 0xD800 <= code <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(char)
    return "".join(out)
