"""Terminal input bytes -> `Key`, `Paste` and `Focus` events. Pure.

blessed resolves the terminal's key sequences (arrows, Home/End, Alt+letter,
Ctrl+letter, Shift+Tab, the kitty and xterm modified forms) by the
terminal's own capabilities. Three things it cannot know without the
terminal's mode state are decoded here first: a bracketed paste (one event,
however many reads it spans), focus in/out reports, and Enter (`\\r`) apart
from Ctrl+J (`\\n`). An incomplete escape sequence waits for the next read;
`flush()` resolves it after a short quiet period (a lone ESC is Escape).
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

import blessed
from blessed.keyboard import (
    get_keyboard_codes,
    get_keyboard_sequences,
    get_leading_prefixes,
    resolve_sequence,
)

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
_INCOMPLETE_CSI = re.compile(r"\x1b(\[[0-9;:<=>?]*)?\Z")
# xterm modifyOtherKeys: CSI 27 ; modifiers ; code ~
_MODIFY_OTHER = re.compile(r"\x1b\[27;(\d+);(\d+)~")


class Key(NamedTuple):
    """`name` is blessed's key name ("KEY_UP", "KEY_CTRL_A", "KEY_ALT_B",
    "KEY_SHIFT_ENTER", "KEY_BTAB"...) plus "KEY_NEWLINE" for Ctrl+J; None for
    a printable character, which is `text`."""

    name: str | None
    text: str = ""


class Paste(NamedTuple):
    text: str


class Focus(NamedTuple):
    focused: bool


Event = Key | Paste | Focus


class KeyDecoder:
    """Incremental decoder; `term` supplies the capability sequences."""

    def __init__(self, term: blessed.Terminal) -> None:
        self._mapper = get_keyboard_sequences(term)
        self._codes = get_keyboard_codes()
        self._prefixes = get_leading_prefixes(self._mapper)
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._buffer = ""
        # Inside a bracketed paste: its pieces so far, and the last few
        # characters (the close marker may span two reads). A paste of any
        # size costs one pass over its bytes.
        self._paste: list[str] | None = None
        self._paste_tail = ""

    @property
    def pending(self) -> bool:
        return bool(self._buffer) and self._paste is None

    def feed(self, data: bytes) -> list[Event]:
        text = self._utf8.decode(data)
        events: list[Event] = []
        if self._paste is not None:
            text = self._continue_paste(text, events)
            if self._paste is not None:
                return events
        self._buffer += text
        return events + self._drain(final=False)

    def flush(self) -> list[Event]:
        """Resolve what is pending as if no more input will come."""
        if self._paste is not None:
            pasted = Paste("".join(self._paste))
            self._paste, self._paste_tail = None, ""
            return [pasted, *self._drain(final=True)]
        return self._drain(final=True)

    def _continue_paste(self, text: str, events: list[Event]) -> str:
        """Add `text` to the open paste; returns what follows its close marker."""
        assert self._paste is not None
        carry = self._paste_tail
        end = (carry + text).find(PASTE_END)
        if end < 0:
            self._paste.append(text)
            self._paste_tail = (carry + text)[-(len(PASTE_END) - 1):]
            return ""
        cut = end - len(carry)  # where the marker starts in `text` (< 0: in the last piece)
        if cut >= 0:
            self._paste.append(text[:cut])
        else:
            whole = "".join(self._paste)
            self._paste = [whole[:cut]]
        events.append(Paste("".join(self._paste)))
        self._paste, self._paste_tail = None, ""
        return text[cut + len(PASTE_END):]

    def _drain(self, final: bool) -> list[Event]:
        events: list[Event] = []
        while self._buffer:
            event, used = self._next(self._buffer, final)
            if used == 0:
                break
            self._buffer = self._buffer[used:]
            if event is not None:
                events.append(event)
        return events

    def _next(self, text: str, final: bool) -> tuple[Event | None, int]:
        first = text[0]
        if first == "\r":
            return Key("KEY_ENTER"), 1
        if first == "\n":
            return Key("KEY_NEWLINE"), 1
        if first != "\x1b":
            if first >= " " and first != "\x7f":
                # A run of printable characters at once (typing bursts).
                end = 1
                while end < len(text) and text[end] >= " " and text[end] != "\x7f":
                    end += 1
                return Key(None, text[:end]), end
            return self._blessed(text, final)
        if text.startswith("\x1b\x1b"):
            return Key("KEY_ESCAPE", "\x1b"), 1
        if text.startswith(PASTE_START):
            end = text.find(PASTE_END)
            if end < 0:
                if final:
                    return Paste(text[len(PASTE_START):]), len(text)
                # An open paste: the rest arrives in later reads.
                self._paste = [text[len(PASTE_START):]]
                self._paste_tail = text[-(len(PASTE_END) - 1):]
                return None, len(text)
            return Paste(text[len(PASTE_START):end]), end + len(PASTE_END)
        if PASTE_START.startswith(text) and not final:
            return None, 0
        if text.startswith(("\x1b[I", "\x1b[O")):
            return Focus(text[2] == "I"), 3
        other = _MODIFY_OTHER.match(text)
        if other:
            modifiers, code = int(other.group(1)) - 1, int(other.group(2))
            if code == 13:
                name = "KEY_SHIFT_ENTER" if modifiers & 1 else "KEY_ALT_ENTER" if modifiers & 2 else "KEY_ENTER"
                return Key(name), other.end()
            return Key(None, chr(code)) if code >= 32 else None, other.end()
        if not final and (_INCOMPLETE_CSI.match(text) or text in self._prefixes):
            return None, 0
        return self._blessed(text, final)

    def _blessed(self, text: str, final: bool) -> tuple[Event | None, int]:
        ks = resolve_sequence(text, self._mapper, self._codes, self._prefixes, final=True)
        used = len(ks) or 1
        if ks.name:
            return Key(ks.name, str(ks)), used
        return Key(None, str(ks) or text[0]), used
