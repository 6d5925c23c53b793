"""Control characters shown, not obeyed: the one pattern for every face,
and the one rule for text written as labelled lines.

C0 controls but tab and newline, DEL, C1 (U+0080-U+009F, which some
terminals read as 8-bit escapes, NEL among them) and Unicode's line and
paragraph separators (U+2028, U+2029: a line-based reader, Python's
`splitlines` among them, ends a line there). The interface draws each as
U+FFFD (luxe.frontends.tui.text), print mode writes it so
(print_render.plain), and so does the log (luxe.app). So once shown, a
text's only line break is the newline, and `record` makes each of its
lines after the first a continuation line, which a label line never is.
"""

from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def shown(text: str) -> str:
    """`text` with each control character (as CONTROL) a U+FFFD."""
    return CONTROL.sub("\ufffd", text)


def record(text: str, indent: str) -> str:
    """`text` as one record of labelled lines (`--plain`, print mode's
    stderr): shown (a CRLF taken as one newline), its first line as it is,
    every other line behind `indent` (spaces), so no line of the text can
    start where a label starts. No newline at the end."""
    first, *rest = shown(text.replace("\r\n", "\n")).split("\n")
    return "\n".join([first, *(indent + line for line in rest)])
