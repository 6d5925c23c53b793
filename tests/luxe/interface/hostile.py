"""Terminal-control attacks in several spellings, and what the interface may show and write.

`SPELLINGS` (`ESCAPES` and `OVERWRITES`) maps what an attacker puts in a
file name, a tool's output, the model's words or GitHub's data to what a
person must see instead: every control drawn as a visible `�`.
`foreign_controls(written)` takes the bytes the interface wrote to its
terminal (LUXE_TUI_WRITE_LOG) and returns every control character left once
the interface's own escapes (styles, cursor moves, erases, its modes) are
taken out: it must be empty.
"""

from __future__ import annotations

import re

ESCAPES: dict[str, str] = {
    "\x1b]0;pwn-bel\x07": "�]0;pwn-bel�",  # OSC title, ended by BEL
    "\x1b]2;pwn-st\x1b\\": "�]2;pwn-st�\\",  # OSC title, ended by ST
    "\x1b]52;c;cHduZWQ=\x07": "�]52;c;cHduZWQ=�",  # OSC 52: write the clipboard
    "\x9d0;pwn-c1\x9c": "�0;pwn-c1�",  # C1 OSC, ended by C1 ST
    "\x9b2J": "�2J",  # C1 CSI: clear the screen
}
# Controls that move the cursor over what is shown. These pass through gh
# too (JSON's short escapes), which writes ESC, BEL and C1 in caret notation.
OVERWRITES: dict[str, str] = {
    "kept\rGONE": "kept�GONE",  # a carriage return writes over the line
    "kept\x08\x08XY": "kept��XY",  # backspaces write over its end
    "kept\x0cDOWN": "kept�DOWN",  # a form feed moves down a row
}
SPELLINGS = {**ESCAPES, **OVERWRITES}

# The interface's own escapes: SGR styles, cursor up/down/right, erase in
# line, private modes (synchronized output, paste, focus, cursor),
# modifyOtherKeys, and saving and restoring the cursor (DECSC, DECRC). An
# attack's CSI (`ESC[2J`) is none of them.
_OURS = re.compile(r"\x1b\[[0-9;]*m|\x1b\[[0-9]*[ABCK]|\x1b\[\?[0-9]+[hl]|\x1b\[>4;[01]m|\x1b[78]")
# Carriage returns and newlines are the interface's own too (cursor moves).
_CONTROL = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def foreign_controls(written: bytes) -> list[str]:
    """Control characters in `written` that are not the interface's own escapes."""
    return _CONTROL.findall(_OURS.sub("", written.decode("utf-8", "replace")))
