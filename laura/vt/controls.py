"""Control functions: C0 controls, ESC, CSI and OSC sequences.

`Controls` turns one complete control token (as cut out of the input by
`core.py`) into state changes on `ScreenState`. Anything it does not know is
consumed and ignored.
"""

from __future__ import annotations

import re

import attrs

from laura.emulator import Alert
from laura.render.style import PLAIN
from laura.vt.screen import ScreenState
from laura.vt.sgr import apply_sgr, intern

_INTERMEDIATES = " !\"#$%&'()*+,-./"
_TITLE_LIMIT = 1024
_NOTIFY_LIMIT = 512
# An OSC 8 target goes back out to the person's terminal: printable ASCII
# only (no ESC, BEL or C1 that could end the sequence early), bounded.
_LINK = re.compile("[!-~]{1,2048}")


def _printable(text: str) -> str:
    return "".join(c for c in text if c.isprintable())


def _params(text: str) -> list[int]:
    """`1;;3:4` -> [1, 0, 3]: empty fields are 0, sub-parameters dropped."""
    if not text:
        return []
    out = []
    for field in text.split(";"):
        head = field.split(":", 1)[0]
        out.append(int(head) if head.isdigit() else 0)
    return out


# A full-screen program sends the same few sequences (CUP to each row, EL)
# over and over: their parse is memoised by the token's text.
_PARSED: dict[str, tuple[str, str, list[int] | None, str, str]] = {}
_PARSED_LIMIT = 20_000


def _parse_csi(token: str) -> tuple[str, str, list[int] | None, str, str]:
    """(private marker, parameter text, parameters or None if unreadable,
    final byte, intermediates) of `ESC [ ...`. Callers must not mutate the
    parameter list: it is shared through _PARSED."""
    final = token[-1]
    body = token[2:-1]
    private = ""
    if body and body[0] in "<=>?":
        private, body = body[0], body[1:]
    params_text = body.rstrip(_INTERMEDIATES)
    intermediates = body[len(params_text):]
    try:
        params: list[int] | None = _params(params_text)
    except ValueError:
        params = None
    return private, params_text, params, final, intermediates


class Controls(ScreenState):
    """Dispatch of control tokens; see the module docstring."""

    def _control(self, token: str) -> None:
        head = token[0]
        if head != "\x1b":
            self._c0(head)
            return
        if len(token) == 1:
            return  # a lone ESC cancelled by what followed
        kind = token[1]
        if kind == "[":
            self._csi(token)
        elif kind == "]":
            self._osc(token)
        elif kind in "P_^X":
            return  # DCS, APC, PM, SOS: consumed
        else:
            self._esc(token[1:])

    def _c0(self, char: str) -> None:
        if char == "\r":
            self.x = 0
        elif char in "\n\x0b\x0c":
            self._index()
            if self.newline_mode:
                self.x = 0
        elif char == "\x08":
            self._backspace()
        elif char == "\t":
            self._tab(1)
        elif char == "\x0e":
            self.shift = 1
            self._update_translate()
        elif char == "\x0f":
            self.shift = 0
            self._update_translate()
        elif char == "\x07":
            self._alert(Alert("bell"))
        # NUL, DEL, C1 and the rest: nothing to draw.

    def _backspace(self) -> None:
        # From a pending wrap, xterm (and pyte) step back from the last
        # column; tmux from the column past it.
        self.x = max(0, min(self.x, self.columns - 1) - 1)

    def _tab(self, count: int) -> None:
        x, last = self.x, self.columns - 1
        if x >= last:
            return
        stops = self.tabstops
        for _ in range(count):
            # The next stop is nearly always within 8 columns: look there
            # first, nearest first, before going over every stop.
            for near in range(x + 1, min(x + 9, last)):
                if near in stops:
                    x = near
                    break
            else:
                x = min((t for t in stops if t > x), default=last)
            if x >= last:
                x = last
                break
        self.x = x

    def _back_tab(self, count: int) -> None:
        x = min(self.x, self.columns - 1)
        for _ in range(count):
            x = max((t for t in self.tabstops if t < x), default=0)
            if x == 0:
                break
        self.x = x

    def _esc(self, body: str) -> None:
        final = body[-1]
        if final < "0":
            return  # cancelled before its final byte (core._SPLIT)
        if len(body) == 1:
            if final == "7":
                self._save_cursor()
            elif final == "8":
                self._restore_cursor()
            elif final == "D":
                self._index()
            elif final == "E":
                self._index()
                self.x = 0
            elif final == "M":
                self._reverse_index()
            elif final == "H":
                self.tabstops.add(min(self.x, self.columns - 1))
            elif final == "c":
                self._full_reset()
            return
        lead = body[0]
        if lead in "()" and len(body) == 2:
            self.charsets[0 if lead == "(" else 1] = final
            self._update_translate()
        elif body == "#8":
            self._alignment_test()

    def _full_reset(self) -> None:
        self.main_buffer[:] = [type(self.main_buffer[0])() for _ in range(self.lines)]
        self.buffer = self.main_buffer
        self.title = ""
        self._reset_modes()
        self._all_dirty = True

    def _osc(self, token: str) -> None:
        body = token[2:]
        terminated = True
        if body.endswith("\x07"):
            body = body[:-1]
        elif body.endswith("\x1b\\"):
            body = body[:-2]
        else:
            terminated = False  # cut short by another ESC
        kind, _, text = body.partition(";")
        if kind in ("0", "2"):
            self.title = _printable(text)[:_TITLE_LIMIT]
        elif not terminated:
            return  # a link or notification cut short is not trusted
        elif kind == "8":
            self._hyperlink(text)
        elif kind == "9" and not text[:2].rstrip(";").isdigit():
            # OSC 9 is a notification; ConEmu's `9;4;...` progress reports are not.
            self._notify(text)
        elif kind == "777" and text.startswith("notify;"):
            title, _, message = text[len("notify;"):].partition(";")
            self._notify(f"{title}: {message}" if message else title)
        # OSC 1 (icon), 52, colours...: ignored.

    def _hyperlink(self, text: str) -> None:
        """OSC 8 ; params ; URI: cells written from now on carry the link
        (an empty or unusable URI ends it)."""
        _params, _, uri = text.partition(";")
        link = uri if _LINK.fullmatch(uri) else None
        if self.style.link != link:
            self.style = intern(attrs.evolve(self.style, link=link))

    def _notify(self, text: str) -> None:
        text = _printable(text)[:_NOTIFY_LIMIT].strip()
        if text:
            self._alert(Alert("notify", text))

    def _csi(self, token: str) -> None:
        parsed = _PARSED.get(token)
        if parsed is None:
            parsed = _parse_csi(token)
            if len(_PARSED) > _PARSED_LIMIT:
                _PARSED.clear()
            _PARSED[token] = parsed
        private, params_text, params, final, intermediates = parsed
        if intermediates:
            if intermediates == "!" and final == "p" and not private:
                self._soft_reset()
            elif intermediates == "$" and final == "p" and private == "?" and params:
                self._report_mode(params[0])
            return  # DECSCUSR and other intermediate forms: ignored
        if params is None:
            return
        if private:
            if private == "?" and final in "hl":
                self._dec_modes(params, final == "h")
            elif private == ">" and final == "c" and self._reply:
                self._reply(b"\x1b[>1;10;0c")
            return
        first = params[0] if params else 0
        count = first or 1
        columns, lines = self.columns, self.lines
        if final == "m":
            self.style = apply_sgr(self.style, params_text)
        elif final in "Hf":
            self._move_to(params[1] - 1 if len(params) > 1 and params[1] else 0, count - 1)
        elif final == "A":
            y = self.y
            floor = self.top if y >= self.top else 0
            self.y = max(floor, y - count)
            self.x = min(self.x, columns - 1)
        elif final in "Be":
            y = self.y
            ceiling = self.bottom if y <= self.bottom else lines - 1
            self.y = min(ceiling, y + count)
            self.x = min(self.x, columns - 1)
        elif final in "Ca":
            self.x = min(min(self.x, columns - 1) + count, columns - 1)
        elif final == "D":
            self.x = max(min(self.x, columns - 1) - count, 0)
        elif final == "E":
            self.y = min(self.bottom if self.y <= self.bottom else lines - 1, self.y + count)
            self.x = 0
        elif final == "F":
            self.y = max(self.top if self.y >= self.top else 0, self.y - count)
            self.x = 0
        elif final in "G`":
            self.x = min(count - 1, columns - 1)
        elif final == "d":
            x = self.x  # VPA keeps a pending wrap, as tmux and pyte do
            self._move_to(0, count - 1)
            self.x = x
        elif final == "J":
            self._erase_in_display(first)
        elif final == "K":
            self._erase_in_line(first)
        elif final == "X":
            self._erase_chars(count)
        elif final == "@":
            self._insert_chars(count)
        elif final == "P":
            self._delete_chars(count)
        elif final == "L":
            self._insert_lines(count)
        elif final == "M":
            self._delete_lines(count)
        elif final == "S":
            self._scroll_up(count)
        elif final == "T":
            if len(params) <= 1:  # with 5 params it is mouse highlight tracking
                self._scroll_down(count)
        elif final == "I":
            self._tab(count)
        elif final == "Z":
            self._back_tab(count)
        elif final == "b":
            self._repeat(min(count, columns * lines))
        elif final == "g":
            if first == 0:
                self.tabstops.discard(min(self.x, columns - 1))
            elif first == 3:
                self.tabstops.clear()
        elif final == "r":
            self._set_margins(params)
        elif final == "s":
            if not params:
                self._save_cursor()
        elif final == "u":
            if not params:
                self._restore_cursor()
        elif final in "hl":
            on = final == "h"
            for mode in params:
                if mode == 4:
                    self.insert_mode = on
                elif mode == 20:
                    self.newline_mode = on
        elif final == "n":
            self._report(first)
        elif final == "c" and first == 0 and self._reply:
            self._reply(b"\x1b[?1;2c")

    def _move_to(self, x: int, y: int) -> None:
        """CUP with origin mode: y counts from the top margin and stays inside."""
        if self.origin:
            y = min(self.top + y, self.bottom)
        self.y = max(0, min(y, self.lines - 1))
        self.x = max(0, min(x, self.columns - 1))

    def _set_margins(self, params: list[int]) -> None:
        top = (params[0] if params and params[0] else 1) - 1
        bottom = (params[1] if len(params) > 1 and params[1] else self.lines) - 1
        bottom = min(bottom, self.lines - 1)
        if top >= bottom:
            return
        self.top, self.bottom = top, bottom
        self.x = 0
        self.y = top if self.origin else 0

    def _report(self, kind: int) -> None:
        if not self._reply:
            return
        if kind == 5:
            self._reply(b"\x1b[0n")
        elif kind == 6:
            y = self.y - self.top if self.origin else self.y
            x = min(self.x, self.columns - 1)
            self._reply(f"\x1b[{y + 1};{x + 1}R".encode())

    def _report_mode(self, mode: int) -> None:
        """DECRQM (`CSI ? mode $ p`): 1 set, 2 reset, 0 not recognised. Programs
        ask before relying on a mode such as 2026."""
        if not self._reply:
            return
        state = {
            1: self.app_cursor_keys,
            6: self.origin,
            7: self.autowrap,
            25: self.cursor_visible,
            1004: self.focus_reporting,
            1006: self.sgr_mouse,
            1049: self.alt_screen,
            2004: self.bracketed_paste,
            2026: self.synchronized,
        }.get(mode)
        value = 0 if state is None else 1 if state else 2
        self._reply(f"\x1b[?{mode};{value}$y".encode())

    def _repeat(self, count: int) -> None:
        raise NotImplementedError  # core.py draws

    def _soft_reset(self) -> None:
        self.insert_mode = self.origin = self.app_cursor_keys = False
        self.autowrap = self.cursor_visible = True
        self.style = PLAIN
        self.top, self.bottom = 0, self.lines - 1
        self.charsets, self.shift = ["B", "B"], 0
        self._update_translate()
        self._saved_main = self._saved_alt = None

    def _dec_modes(self, modes: list[int], on: bool) -> None:
        for mode in modes:
            if mode == 1:
                self.app_cursor_keys = on
            elif mode == 6:
                self.origin = on
                self.x = 0
                self.y = self.top if on else 0
            elif mode == 7:
                self.autowrap = on
            elif mode == 25:
                self.cursor_visible = on
            elif mode in (47, 1047):
                if on:
                    self._enter_alt(False)
                else:
                    self._leave_alt(False)
            elif mode == 1049:
                if on:
                    self._enter_alt(True)
                else:
                    self._leave_alt(True)
            elif mode == 1048:
                if on:
                    self._save_cursor()
                else:
                    self._restore_cursor()
            elif mode in (9, 1000, 1002, 1003):
                # Like xterm and tmux, turning any of them off stops tracking.
                self.mouse_tracking = (1000 if mode == 9 else mode) if on else 0
            elif mode == 1006:
                self.sgr_mouse = on
            elif mode == 2004:
                self.bracketed_paste = on
            elif mode == 1004:
                self.focus_reporting = on
            elif mode == 2026:
                self.synchronized = on
