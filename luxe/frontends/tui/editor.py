"""The input editor: a multi-line buffer with a cursor and readline keys. Pure.

`Editor` holds the draft text and the cursor (an index into the text); each
method is one editing command and changes nothing else. Large pastes are kept
as chips: the buffer shows `[pasted 240 lines #1]` and `expanded()` gives the
text with every chip replaced by what was pasted, byte for byte.
"""

from __future__ import annotations

import re

import attrs

from luxe.record import state
from luxe.wording import counted

# A paste longer than this (in lines or characters) becomes a chip.
CHIP_LINES = 10
CHIP_CHARS = 2000

_WORD = re.compile(r"\w")


@state
class Editor:
    text: str = ""
    cursor: int = 0
    chips: dict[str, str] = attrs.Factory(dict)
    kill_ring: str = ""
    _chip_ids: int = 0

    # -- whole buffer -----------------------------------------------------------

    def set(self, text: str) -> None:
        self.text = text
        self.cursor = len(text)

    def clear(self) -> None:
        self.text, self.cursor = "", 0
        self.chips = {}

    def expanded(self) -> str:
        """The draft with every paste chip replaced by its text."""
        text = self.text
        for label, pasted in self.chips.items():
            text = text.replace(label, pasted)
        return text

    def take(self) -> str:
        """The expanded draft; the buffer is emptied."""
        text = self.expanded()
        self.clear()
        return text

    # -- inserting --------------------------------------------------------------

    def insert(self, text: str) -> None:
        self.text = self.text[: self.cursor] + text + self.text[self.cursor :]
        self.cursor += len(text)

    def paste(self, text: str) -> None:
        """A paste: inserted as is, or as a chip when it is large."""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.count("\n") + 1
        if lines > CHIP_LINES or len(text) > CHIP_CHARS:
            self._chip_ids += 1
            label = f"[pasted {counted(lines, 'line')} #{self._chip_ids}]"
            self.chips[label] = text
            self.insert(label)
        else:
            self.insert(text)

    def newline(self) -> None:
        self.insert("\n")

    # -- deleting ---------------------------------------------------------------

    def backspace(self) -> None:
        if self.cursor == 0:
            return
        chip = self._chip_ending_at(self.cursor)
        start = self.cursor - len(chip) if chip else self.cursor - 1
        if chip:
            del self.chips[chip]
        self.text = self.text[:start] + self.text[self.cursor :]
        self.cursor = start

    def delete(self) -> None:
        if self.cursor < len(self.text):
            self.text = self.text[: self.cursor] + self.text[self.cursor + 1 :]

    def kill_to_end(self) -> None:
        """Ctrl+K: delete to the end of the line (or the newline, at its end)."""
        end = self.text.find("\n", self.cursor)
        end = len(self.text) if end < 0 else end
        if end == self.cursor and end < len(self.text):
            end += 1
        self.kill_ring = self.text[self.cursor : end]
        self.text = self.text[: self.cursor] + self.text[end:]

    def kill_to_start(self) -> None:
        """Ctrl+U: delete to the start of the line."""
        start = self.text.rfind("\n", 0, self.cursor) + 1
        self.kill_ring = self.text[start : self.cursor]
        self.text = self.text[:start] + self.text[self.cursor :]
        self.cursor = start

    def kill_word(self) -> None:
        """Ctrl+W: delete the word before the cursor."""
        start = self._word_start(self.cursor)
        self.kill_ring = self.text[start : self.cursor]
        self.text = self.text[:start] + self.text[self.cursor :]
        self.cursor = start

    def yank(self) -> None:
        self.insert(self.kill_ring)

    # -- moving -----------------------------------------------------------------

    def left(self) -> None:
        self.cursor = max(self.cursor - 1, 0)

    def right(self) -> None:
        self.cursor = min(self.cursor + 1, len(self.text))

    def home(self) -> None:
        self.cursor = self.text.rfind("\n", 0, self.cursor) + 1

    def end(self) -> None:
        end = self.text.find("\n", self.cursor)
        self.cursor = len(self.text) if end < 0 else end

    def word_left(self) -> None:
        self.cursor = self._word_start(self.cursor)

    def word_right(self) -> None:
        i = self.cursor
        while i < len(self.text) and not _WORD.match(self.text[i]):
            i += 1
        while i < len(self.text) and _WORD.match(self.text[i]):
            i += 1
        self.cursor = i

    def up(self) -> bool:
        """Move up a line; False when already on the first line."""
        start = self.text.rfind("\n", 0, self.cursor) + 1
        if start == 0:
            return False
        column = self.cursor - start
        prev_start = self.text.rfind("\n", 0, start - 1) + 1
        self.cursor = min(prev_start + column, start - 1)
        return True

    def down(self) -> bool:
        """Move down a line; False when already on the last line."""
        end = self.text.find("\n", self.cursor)
        if end < 0:
            return False
        column = self.cursor - (self.text.rfind("\n", 0, self.cursor) + 1)
        next_end = self.text.find("\n", end + 1)
        next_end = len(self.text) if next_end < 0 else next_end
        self.cursor = min(end + 1 + column, next_end)
        return True

    # -- questions --------------------------------------------------------------

    @property
    def on_first_line(self) -> bool:
        return "\n" not in self.text[: self.cursor]

    @property
    def on_last_line(self) -> bool:
        return "\n" not in self.text[self.cursor :]

    def token_at_cursor(self) -> tuple[int, str]:
        """The whitespace-delimited token ending at the cursor: (start, token)."""
        start = self.cursor
        while start > 0 and not self.text[start - 1].isspace():
            start -= 1
        return start, self.text[start : self.cursor]

    def replace_token(self, start: int, replacement: str) -> None:
        self.text = self.text[:start] + replacement + self.text[self.cursor :]
        self.cursor = start + len(replacement)

    def _word_start(self, i: int) -> int:
        while i > 0 and not _WORD.match(self.text[i - 1]):
            i -= 1
        while i > 0 and _WORD.match(self.text[i - 1]):
            i -= 1
        return i

    def _chip_ending_at(self, i: int) -> str | None:
        for label in self.chips:
            if self.text.endswith(label, 0, i):
                return label
        return None
