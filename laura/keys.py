"""Input bytes -> events, and keys -> the bytes xterm would send a child. Pure.

`InputDecoder` turns what the user's terminal sends (in raw mode, with
bracketed paste and SGR mouse reporting on) into `Key`, `Paste` and `Mouse`
events, keeping incomplete sequences for the next read. A lone ESC stays
pending until `flush()` (called after a short quiet period), because it may be
the start of a sequence. `encode_key` and `encode_mouse` go the other way,
for the child in the shell pane.
"""

from __future__ import annotations

import codecs
from typing import NamedTuple


class Key(NamedTuple):
    """`name` is the character itself for text ("a", "é") or a key name:
    up down left right home end insert delete pageup pagedown f1..f12 enter
    tab backspace escape space."""

    name: str
    ctrl: bool = False
    alt: bool = False
    shift: bool = False


class Paste(NamedTuple):
    text: str


class Mouse(NamedTuple):
    """An SGR mouse report: `code` is xterm's button code (low bits the
    button, +4 shift, +8 alt, +16 ctrl, +32 motion, 64/65 wheel up/down);
    x, y are 0-based screen cells; `pressed` is False on release."""

    code: int
    x: int
    y: int
    pressed: bool

    @property
    def wheel(self) -> int:
        """-1 wheel up, +1 wheel down, 0 otherwise."""
        if self.code & 64 and not self.code & 32:
            return -1 if self.code & 1 == 0 else 1
        return 0


class Focus(NamedTuple):
    """The user's terminal gained (`CSI I`) or lost (`CSI O`) focus; sent
    once focus reporting (DECSET 1004) is on."""

    gained: bool


Event = Key | Paste | Mouse | Focus

_CSI_TILDE = {
    1: "home",
    2: "insert",
    3: "delete",
    4: "end",
    5: "pageup",
    6: "pagedown",
    7: "home",
    8: "end",
    11: "f1",
    12: "f2",
    13: "f3",
    14: "f4",
    15: "f5",
    17: "f6",
    18: "f7",
    19: "f8",
    20: "f9",
    21: "f10",
    23: "f11",
    24: "f12",
}
_CSI_LETTER = {
    "A": "up",
    "B": "down",
    "C": "right",
    "D": "left",
    "H": "home",
    "F": "end",
    "P": "f1",
    "Q": "f2",
    "R": "f3",
    "S": "f4",
}
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"


def _with_modifiers(name: str, param: int) -> Key:
    bits = max(param - 1, 0)
    return Key(name, ctrl=bool(bits & 4), alt=bool(bits & 2), shift=bool(bits & 1))


def _control(char: str) -> Key:
    code = ord(char)
    # A terminal in raw mode sends \r for Enter; \n is Ctrl+J (crossterm
    # reads it so in raw mode too), which a hosted program may bind (a new
    # line in an agent's draft): it must reach the program as \n.
    if char == "\r":
        return Key("enter")
    if char == "\t":
        return Key("tab")
    if char == "\x7f":
        return Key("backspace")
    if char == "\x1b":
        return Key("escape")
    if code == 0:
        return Key("space", ctrl=True)
    if 1 <= code <= 26:
        return Key(chr(code + 96), ctrl=True)
    if 28 <= code <= 31:
        return Key(str(code - 24), ctrl=True)
    return Key(char)


class InputDecoder:
    """Incremental decoder of the user's terminal input."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._buffer = ""

    @property
    def pending(self) -> bool:
        return bool(self._buffer)

    def feed(self, data: bytes) -> list[Event]:
        self._buffer += self._utf8.decode(data)
        return self._drain(final=False)

    def flush(self) -> list[Event]:
        """Resolve what is pending as if no more bytes will come (a lone ESC
        becomes the Escape key)."""
        return self._drain(final=True)

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
        char = text[0]
        if char != "\x1b":
            return (_control(char) if ord(char) < 32 or char == "\x7f" else Key(char)), 1
        if len(text) == 1:
            return (Key("escape"), 1) if final else (None, 0)
        second = text[1]
        if second == "[":
            return self._csi(text, final)
        if second == "O":
            if len(text) < 3:
                return (Key("o", alt=True, shift=True), 2) if final else (None, 0)
            name = _CSI_LETTER.get(text[2])
            return (Key(name) if name else None), 3
        if second == "\x1b":
            return Key("escape"), 1
        inner = _control(second) if ord(second) < 32 or second == "\x7f" else Key(second)
        return inner._replace(alt=True), 2

    def _csi(self, text: str, final: bool) -> tuple[Event | None, int]:
        if text.startswith(PASTE_START):
            end = text.find(PASTE_END)
            if end < 0:
                return (Paste(text[len(PASTE_START) :]), len(text)) if final else (None, 0)
            return Paste(text[len(PASTE_START) : end]), end + len(PASTE_END)
        for index in range(2, len(text)):
            if 0x40 <= ord(text[index]) <= 0x7E:
                return self._csi_event(text[2:index], text[index]), index + 1
        # Incomplete; when final, drop the fragment rather than guess.
        return (None, len(text)) if final else (None, 0)

    def _csi_event(self, params: str, final_char: str) -> Event | None:
        if params.startswith("<") and final_char in "Mm":
            try:
                code, x, y = (int(part) for part in params[1:].split(";"))
            except ValueError:
                return None
            return Mouse(code, x - 1, y - 1, final_char == "M")
        if final_char == "Z":
            return Key("tab", shift=True)
        if final_char in "IO" and not params:
            return Focus(final_char == "I")
        try:
            numbers = [int(part) if part else 1 for part in params.split(";")] if params else []
        except ValueError:
            return None
        modifiers = numbers[1] if len(numbers) > 1 else 1
        if final_char == "~" and numbers:
            name = _CSI_TILDE.get(numbers[0])
            return _with_modifiers(name, modifiers) if name else None
        name = _CSI_LETTER.get(final_char)
        return _with_modifiers(name, modifiers) if name else None


# --- keys -> child bytes (xterm) -------------------------------------------

_TILDE_CODES = {"insert": 2, "delete": 3, "pageup": 5, "pagedown": 6}
_TILDE_CODES.update(
    {f"f{n}": code for n, code in zip(range(5, 13), (15, 17, 18, 19, 20, 21, 23, 24), strict=True)}
)
_LETTER_CODES = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_SS3_F = {"f1": "P", "f2": "Q", "f3": "R", "f4": "S"}


def encode_key(key: Key, app_cursor: bool = False) -> bytes:
    """The bytes xterm sends for `key`: modifier parameter m = 1 + shift +
    2*alt + 4*ctrl; Ctrl+letter is the control byte, Alt prefixes ESC."""
    m = 1 + key.shift + 2 * key.alt + 4 * key.ctrl
    name = key.name
    if name in _LETTER_CODES:
        letter = _LETTER_CODES[name]
        if m > 1:
            return f"\x1b[1;{m}{letter}".encode()
        return f"\x1bO{letter}".encode() if app_cursor else f"\x1b[{letter}".encode()
    if name in _TILDE_CODES:
        code = _TILDE_CODES[name]
        return (f"\x1b[{code};{m}~" if m > 1 else f"\x1b[{code}~").encode()
    if name in _SS3_F:
        letter = _SS3_F[name]
        return (f"\x1b[1;{m}{letter}" if m > 1 else f"\x1bO{letter}").encode()
    if name == "tab" and key.shift:
        return b"\x1b[Z"
    prefix = b"\x1b" if key.alt else b""
    simple = {"enter": b"\r", "tab": b"\t", "backspace": b"\x7f", "escape": b"\x1b"}
    if name in simple:
        return prefix + simple[name]
    if name == "space":
        return prefix + (b"\x00" if key.ctrl else b" ")
    if len(name) != 1:
        return b""  # an unknown key name: nothing to send
    if key.ctrl:
        lower = name.lower()
        if "a" <= lower <= "z":
            return prefix + bytes([ord(lower) & 0x1F])
        if name in "34567":
            return prefix + bytes([ord(name) - ord("3") + 0x1B])
    return prefix + name.encode()


def encode_mouse(code: int, x: int, y: int, pressed: bool) -> bytes:
    """An SGR mouse report for a child; x, y 0-based inside its pane."""
    return f"\x1b[<{code};{x + 1};{y + 1}{'M' if pressed else 'm'}".encode()


def bracketed(text: str) -> bytes:
    """A paste as the child receives it when it enabled bracketed paste."""
    return (PASTE_START + text + PASTE_END).encode()
