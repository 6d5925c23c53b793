"""Control characters shown, not obeyed: the one pattern for every face.

C0 controls but tab and newline, DEL and C1 (U+0080-U+009F, which some
terminals read as 8-bit escapes). The interface draws each as U+FFFD
(luxe.frontends.tui.text), print mode writes it so (print_render.plain),
and so does the log (luxe.app).
"""

from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str) -> str:
    """`text` with each control character (as CONTROL) a U+FFFD."""
    return CONTROL.sub("\ufffd", text)
