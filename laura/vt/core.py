"""The feed loop and text drawing: bytes in, lines out, at bulk speed.

Input is decoded incrementally (UTF-8 split across reads is fine) and cut by
one compiled regex into alternating *chunks* (printable text, possibly with
SGR sequences inside) and *control tokens* (everything else). A chunk is
written into the cursor's line with a few string slices; SGR sequences in it
only change the style runs being built. Per character work happens only for
non-ASCII text (widths) and DEC line drawing.
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_left, bisect_right
from itertools import islice, takewhile

from laura.emulator import ReplyFn
from laura.render.style import PLAIN, Style
from laura.vt.line import FILL, Line, fitting
from laura.vt.narrow import not_narrow
from laura.vt.rows import BULK, RowBatch
from laura.vt.sgr import _CACHE as _SGR_CACHE
from laura.vt.sgr import apply_sgr
from laura.vt.width import _CACHE as _WIDTHS
from laura.vt.width import MARK, cells_of, char_width

# Control tokens, cut out of the text. SGR sequences are *not* matched here
# (the negative lookaheads), so they stay inside text chunks. Every token
# begins with one character of the class in front (the rest is told apart by
# lookbehind), so the regex engine skips from control to control instead of
# trying the alternatives at every character: twice as fast on text full of
# controls as the plain alternation it is equivalent to.
_SGR_AHEAD = "(?![0-9;:]*m)"
_SPLIT = re.compile(
    "([\x00-\x1f\x7f-\x9f]"
    "(?:(?<=\r)\n"
    # A sequence cancelled by CAN, SUB or ESC before its final byte (the ESC
    # maybe held back for the next read: hence the \Z) is cut out too and
    # draws nothing, as in xterm and tmux.
    f"|(?<=\x1b)(?:\\[{_SGR_AHEAD}[0-?]*+[ -/]*+(?:[@-~]|(?=[\x18\x1a\x1b]|\\Z))"
    # Strings end at BEL/ST, or are cut short by CAN, SUB or any other ESC
    # (which may be one _hold_tail kept back for the next read: hence the \Z).
    "|\\][^\x07\x18\x1a\x1b]*(?:\x07|\x1b\\\\|(?=[\x18\x1a\x1b])|\\Z)"
    "|[P_^X][^\x18\x1a\x1b]*(?:\x1b\\\\|(?=[\x18\x1a\x1b])|\\Z)"
    "|[ -/]*+[0-Z\\\\-~]|[ -/]++(?=[\x18\x1a\x1b]|\\Z)"
    "|(?!\\[[0-9;:]*m))"  # a lone ESC (not the start of SGR)
    "|(?<!\x1b)))"  # any other control, alone
)
_SGR = re.compile("\x1b\\[([0-9;:]*)m")
# A sequence cut off by the end of the input: held until more arrives. The
# controls that do not cancel a sequence may sit inside it (see _SEQUENCE).
_TAIL = re.compile(
    # Possessive (*+): the classes overlap (controls may sit anywhere), and
    # backtracking over a long run of them would be quadratic; taking each
    # class's longest run first matches exactly the same texts.
    "\x1b[\x00-\x17\x19\x1c-\x1f\x7f-\x9f]*+(?:\\[[0-?\x00-\x17\x19\x1c-\x1f\x7f-\x9f]*+"
    "[ -/\x00-\x17\x19\x1c-\x1f\x7f-\x9f]*+|[ -/\x00-\x17\x19\x1c-\x1f\x7f-\x9f]*+"
    "|\\][^\x07\x18\x1a\x1b]*+|[P_^X][^\x18\x1a\x1b]*+)\\Z"
)
# An escape or control sequence with a control inside it (BEL, BS, HT,
# LF/VT/FF, CR, SO/SI: the ones left after _without_ignored), or ended by a
# character that is not ASCII. As in xterm and tmux, the controls take effect
# where they stand and the sequence goes on (so they are moved out in front
# of it); as in xterm, a character that is not ASCII abandons the sequence
# and is not drawn (it becomes a CAN, which draws nothing and cancels an ESC
# before it).
_SEQUENCE = re.compile(
    "\x1b(?=(?:\\[[0-?]*+[ -/]*+|[ -/]*+)[\x07-\x0f\x80-\U0010ffff])"
    "(?:[\x07-\x0f]*\\[[\x07-\x0f0-?]*[\x07-\x0f -/]*|[\x07-\x0f -/]*)"
    "([^\x00-\x7f])?"
)
_INSIDE = re.compile("[\x07-\x0f]")
_CANCEL = re.compile("[\x18\x1a]")
_HELD_LIMIT = 1 << 16  # longer unterminated strings (OSC/DCS) are discarded
# Pairs taken token by token after a row-local batch could not start, or
# stopped within _SHORT pairs (a full-screen program's cursor moves: the
# per-token path costs less than a batch per pair).
_RETRY = 8
_SHORT = 2
# When a read holds no control but CR LF pairs and SGR sequences (`cat` of a
# file, `ls --color`), str.split cuts it ten times faster than _SPLIT can.
_ODD_CONTROL = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_HARD_ESCAPE = re.compile("\x1b(?!\\[[0-9;:]*m)")
# C0 controls, DEL and C1 controls that have no effect (not BEL, BS, HT,
# LF/VT/FF, CR, SO/SI, CAN/SUB, which cancel a sequence, or ESC). They are
# dropped (as xterm and tmux ignore them, even inside a sequence) after the
# tail is held, but marked before decoding: each becomes one NUL byte (C1,
# U+0080-U+009F, is two bytes in UTF-8), one character for one character,
# and as ASCII breaks a UTF-8 sequence just as it did, so the decoder groups
# every other byte as before. Then one str.replace drops them all, where a
# round trip through bytes (what ASCII reads still take: `_decode`) would
# cost several times more.
_IGNORED_BYTES = bytes((*range(0x00, 0x07), *range(0x10, 0x18), 0x19, *range(0x1C, 0x20), 0x7F))
_TO_NUL = bytes.maketrans(_IGNORED_BYTES, bytes(len(_IGNORED_BYTES)))
_C1_BYTES = re.compile(b"\xc2[\x80-\x9f]")
_IGNORED = re.compile("[\x00-\x06\x10-\x17\x19\x1c-\x1f\x7f-\x9f]")
# Lone controls with no effect that the split still cuts out: CAN and SUB
# (they cancel a sequence, so they are not dropped before it) and an ESC
# that what followed cancelled. Random bytes are full of them.
_INERT = frozenset(("\x18", "\x1a", "\x1b"))
_LINE_FEEDS = frozenset(("\n", "\x0b", "\x0c"))

_DEC_GRAPHICS = str.maketrans({
    "_": " ", "`": "◆", "a": "▒", "b": "␉", "c": "␌", "d": "␍", "e": "␊", "f": "°",
    "g": "±", "h": "␤", "i": "␋", "j": "┘", "k": "┐", "l": "┌", "m": "└", "n": "┼",
    "o": "⎺", "p": "⎻", "q": "─", "r": "⎼", "s": "⎽", "t": "├", "u": "┤", "v": "┴",
    "w": "┬", "x": "│", "y": "≤", "z": "≥", "{": "π", "|": "≠", "}": "£", "~": "·",
})


_NON_ASCII = re.compile("[^\x00-\x7f]")


def _narrow(chunk: str) -> bool:
    """True when every character of `chunk` takes exactly one cell, so it
    can be laid down like ASCII (one cell per character). Random or binary
    output is mostly U+FFFD between controls: this keeps it off the
    per-character path."""
    pattern = not_narrow()
    if pattern is not None:
        return pattern.search(chunk) is None
    if chunk.replace("\ufffd", "").isascii():
        return True
    widths = _WIDTHS
    for char in set(_NON_ASCII.findall(chunk)):
        width = widths.get(char)
        if width is None:
            width = char_width(char)
        if width != 1:
            return False
    return True


def _decode(data: bytes) -> tuple[str, bytes, bool]:
    """`data` (starting with the bytes left from the last read) decoded,
    the incomplete UTF-8 sequence at its end (left for the next read), and
    whether the controls that have no effect are marked, each as one NUL
    (see `_TO_NUL`; a C1 control split across two reads is found too). ASCII
    is not marked (there is no sequence to keep whole): its inert controls
    stay as they came, for `_without_ignored`, and output without any (most
    ASCII output) costs no pass over the bytes."""
    if data.isascii():
        return data.decode("ascii"), b"", False
    return (*_decode_marked(data), True)


def _decode_marked(data: bytes) -> tuple[str, bytes]:
    """`_decode` with the inert controls marked."""
    marked = data.translate(_TO_NUL)
    if b"\xc2" in marked:
        marked = _C1_BYTES.sub(b"\0", marked)
    text, used = codecs.utf_8_decode(marked, "replace", False)
    return text, marked[used:]


def _without_ignored(text: str) -> str:
    """`text` without the controls that have no effect (`_IGNORED_BYTES`
    and C1)."""
    data = text.encode("utf-8", "surrogatepass").translate(None, _IGNORED_BYTES)
    if b"\xc2" in data:
        data = _C1_BYTES.sub(b"", data)
    return data.decode("utf-8", "surrogatepass")


def _untangled(text: str) -> str:
    """`text` with the sequences `_SEQUENCE` finds rewritten: their controls
    in front of them, and an abandoned one as a CAN."""

    def untangle(match: re.Match[str]) -> str:
        sequence = match.group()
        controls = "".join(_INSIDE.findall(sequence))
        if match.group(1) is not None:
            return controls + "\x18"
        return controls + _INSIDE.sub("", sequence)

    return _SEQUENCE.sub(untangle, text)


def _runs_between(starts: list[int], styles: list, a: int, b: int, base: int) -> list:
    """Runs (given as parallel starts/styles) restricted to cells [a, b) and
    moved so that a lands on base; flat, first start == base."""
    low = bisect_right(starts, a) - 1
    high = bisect_left(starts, b, low + 1)
    out: list = [base, styles[max(low, 0)]]
    for i in range(low + 1, high):
        out += (starts[i] - a + base, styles[i])
    return out


class VirtualTerminal(RowBatch):
    """A VT/xterm emulator implementing `laura.emulator.Emulator`."""

    def __init__(self, lines: int, columns: int, reply: ReplyFn | None = None) -> None:
        super().__init__(lines, columns, reply)
        self._undecoded = b""  # an incomplete UTF-8 sequence at the end of a read
        self._held = ""
        self._in_string = False

    # -- input ----------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Parse `data`; never raises (a bug in a rare path costs a redraw,
        not the pane: it is counted in `errors`)."""
        try:
            self._feed(data)
        except Exception:
            self.errors += 1
            self._held = ""
            self._all_dirty = True
            self.x = min(self.x, self.columns)
            self.y = min(max(self.y, 0), self.lines - 1)

    def _feed(self, data: bytes) -> None:
        data = self._undecoded + data
        text, self._undecoded, marked = _decode(data)
        held = self._held
        if held:
            text = (_IGNORED.sub("\0", held) if marked else held) + text
            self._held = ""
        if self._in_string:
            end = re.search("[\x07\x18\x1a\x1b]", text)
            if end is None:
                return
            self._in_string = False
            text = text[end.start() + (text[end.start()] == "\x07"):]
        last_esc = text.rfind("\x1b")
        if last_esc >= 0:
            text = self._hold_tail(text, last_esc)
            if marked and "\0" in self._held:
                # The held tail as it came (the state keeps what was read).
                came = held + codecs.utf_8_decode(data, "replace", False)[0]
                self._held = came[len(came) - len(self._held):]
        odd = _ODD_CONTROL.search(text)
        if (odd is None and _HARD_ESCAPE.search(text) is None
                and text.count("\r") == text.count("\n") == text.count("\r\n")):
            lines = text.split("\r\n")
            parts = ["\r\n"] * (2 * len(lines) - 1)
            parts[0::2] = lines
        else:
            # Controls that do nothing are dropped before the split (as
            # xterm and tmux ignore them, even inside a sequence): random or
            # binary output is full of them, and each would cost a token.
            if not marked:
                text = _without_ignored(text)
            elif "\0" in text:
                text = text.replace("\0", "")
            if "\x1b" in text and (odd is not None or not text.isascii()
                                   or "\r" in text or "\n" in text):
                text = _untangled(text)  # only those can be inside a sequence
            parts = _SPLIT.split(text)
        draw = self._draw
        control = self._control
        count = len(parts) - 1
        bulk_from = 0  # no bulk attempt before this index (after a failed one)
        batch_from = 0  # no batch attempt before this index (after a short one)
        i = 0
        while i < count:
            if i >= batch_from:
                done, bulk_from = self._batch(parts, i, count, bulk_from)
                if done - i <= 2 * _SHORT:
                    batch_from = done + 2 * _RETRY
                if done > i:
                    i = done
                    continue
            chunk = parts[i]
            token = parts[i + 1]
            i += 2
            if chunk:
                draw(chunk)
            if token == "\r\n" or token in _LINE_FEEDS:  # LF, VT, FF: an index
                if token == "\r\n" or self.newline_mode:
                    self.x = 0
            else:
                if token == "\r":  # the commonest lone controls, inline
                    self.x = 0
                elif token == "\x08":
                    self._backspace()
                elif token == "\t":
                    self._tab(1)
                elif token not in _INERT:
                    control(token)
                continue
            y = self.y
            if y != self.bottom:
                if y < self.lines - 1:
                    self.y = y + 1
            elif self.top == 0 and y == self.lines - 1 and self.buffer is self.main_buffer:
                # The commonest scroll, inline: the top line to history.
                buffer = self.buffer
                self.history.append(buffer.pop(0))
                buffer.append(Line())
                self._all_dirty = True
            else:
                self._scroll_up(1)
            if (i >= bulk_from and i + 1 < count and parts[i + 1] == "\r\n"
                    and token == "\r\n"):
                done = self._bulk_lines(parts, i, count)
                if done == i:
                    bulk_from = i + 2 * BULK
                i = done
        if parts[-1]:
            draw(parts[-1])

    def _bulk_lines(self, parts: list[str], i: int, count: int) -> int:
        """Lay down a run of plain lines, each ended by CR LF, in one go.

        Applies when the cursor is at column 0 of a blank bottom line of the
        main screen with no margins, and every line is ASCII text without
        escapes that fits the width: then each line simply scrolls into the
        history, so they are built as `Line`s and moved with list operations.
        Returns the index after the run (`i` itself when it does not apply).
        """
        lines = self.lines
        buffer = self.buffer
        if (self.y != lines - 1 or self.top != 0 or self.bottom != lines - 1
                or buffer is not self.main_buffer or self.insert_mode or self._translate
                or buffer[-1].text or buffer[-1].marks):
            return i
        run = len(list(takewhile("\r\n".__eq__, islice(parts, i + 1, min(count, i + 2 * BULK), 2))))
        if run < 2:
            return i
        chunks = parts[i : i + 2 * run : 2]
        joined = "".join(chunks)
        if not joined.isascii():
            return i
        style = self.style
        if "\x1b" in joined:
            built = self._styled_lines(chunks)
            if built is None:
                return i
            new, style = built
        elif max(map(len, chunks)) > self.columns:
            return i
        elif style is PLAIN:
            new = [Line(chunk) for chunk in chunks]
        else:
            new = [Line(chunk, [0, style]) if chunk else Line() for chunk in chunks]
        buffer.pop()
        buffer += new
        buffer.append(Line())
        self.history.extend(buffer[:run])
        del buffer[:run]
        self.style = style
        self._all_dirty = True
        for line in reversed(new):
            if line.text:
                self._last_char = line.text[-1]
                break
        return i + 2 * run

    def _styled_lines(self, chunks: list[str]) -> tuple[list[Line], Style] | None:
        """Lines for chunks with SGR sequences, each drawn from column 0 of a
        blank line, and the style after them; None if one is too wide."""
        style = self.style
        columns = self.columns
        cache = _SGR_CACHE
        new = []
        for chunk in chunks:
            pieces = _SGR.split(chunk)
            texts = []
            runs: list = []
            offset = 0
            first = pieces[0]
            if first:
                texts.append(first)
                runs += (0, style)
                offset = len(first)
            for params, text in zip(islice(pieces, 1, None, 2), islice(pieces, 2, None, 2),
                                    strict=True):
                found = cache.get((id(style), params))
                style = apply_sgr(style, params) if found is None else found
                if text:
                    if not runs or runs[-1] is not style:
                        runs += (offset, style)
                    texts.append(text)
                    offset += len(text)
            if offset > columns:
                return None
            new.append(Line("".join(texts), runs) if texts else Line())
        return new, style

    def _hold_tail(self, text: str, last_esc: int) -> str:
        """Keep an incomplete trailing sequence for the next feed."""
        cut = len(text)
        if _TAIL.match(text, last_esc):
            cut = last_esc
        if cut == len(text) - 1 and cut > 0:
            # A final lone ESC may begin the ST of a string sequence.
            start = text.rfind("\x1b", 0, cut)
            kind = text[start + 1 : start + 2] if start >= 0 else ""
            ended = _CANCEL.search(text, start, cut) is not None
            if not ended and (kind in ("P", "_", "^", "X")
                              or (kind == "]" and text.find("\x07", start, cut) < 0)):
                cut = start
        if cut == len(text):
            return text
        held = text[cut:]
        if len(held) > _HELD_LIMIT:
            self._in_string = True  # drop it, and the rest up to its end
        else:
            self._held = held
        return text[:cut]

    # -- drawing --------------------------------------------------------------

    def _draw(self, chunk: str) -> None:
        """Draw printable text that may carry SGR sequences."""
        if "\x1b" in chunk:
            self._draw_styled(chunk)
            return
        if self._translate:
            chunk = chunk.translate(_DEC_GRAPHICS)
        if not chunk.isascii() and not _narrow(chunk):
            self._draw_unicode(chunk, self.style)
            return
        x = self.x
        end = x + len(chunk)
        if end <= self.columns and not self.insert_mode:
            line = self.buffer[self.y]
            text = line.text
            style = self.style
            if x == len(text):
                line.text = text + chunk
                runs = line.runs
                if runs[-1] is not style:
                    if runs[-2] == x:
                        runs[-1] = style
                    else:
                        runs += (x, style)
            else:
                line.splice(x, chunk, [x, style])
            # x == columns means "wrap pending"; without DECAWM the cursor
            # just stays on the last column.
            self.x = end if end < self.columns or self.autowrap else end - 1
            self._dirty.add(self.y)
        else:
            self._write(chunk, [0, self.style])
        self._last_char = chunk[-1]

    def _draw_styled(self, chunk: str) -> None:
        pieces = _SGR.split(chunk)
        if self._translate or self.insert_mode or not chunk.isascii():
            self._replay(pieces)
            return
        style = self.style
        x = self.x
        offset = x
        texts = []
        runs: list = []
        first = pieces[0]
        if first:
            texts.append(first)
            runs += (x, style)
            offset += len(first)
        cache = _SGR_CACHE
        for params, text in zip(islice(pieces, 1, None, 2), islice(pieces, 2, None, 2), strict=True):
            new = cache.get((id(style), params))
            style = apply_sgr(style, params) if new is None else new
            if text:
                if not runs or runs[-1] is not style:
                    runs += (offset, style)
                texts.append(text)
                offset += len(text)
        self.style = style
        if not texts:
            return
        cells = "".join(texts)
        self._last_char = cells[-1]
        if offset > self.columns:
            self._write(cells, [r - x if i % 2 == 0 else r for i, r in enumerate(runs)])
            return
        line = self.buffer[self.y]
        text = line.text
        if x == len(text):
            own = line.runs
            if own[-1] is runs[1]:
                del runs[:2]
            elif own[-2] == x:
                del own[-2:]
            own += runs
            line.text = text + cells
        else:
            line.splice(x, cells, runs)
        self.x = offset if offset < self.columns or self.autowrap else offset - 1
        self._dirty.add(self.y)

    def _replay(self, pieces: list[str]) -> None:
        """Slow path of a styled chunk: piece by piece."""
        if pieces[0]:
            self._draw(pieces[0])
        for params, text in zip(islice(pieces, 1, None, 2), islice(pieces, 2, None, 2), strict=True):
            self.style = apply_sgr(self.style, params)
            if text:
                self._draw(text)

    def _draw_unicode(self, chunk: str, style: Style) -> None:
        """Text with wide or combining characters, without a loop over each
        (`cells_of`): the cells between marks go down in one write each
        (without the width table, every distinct non-ASCII character is
        looked up)."""
        cells = cells_of(chunk, not_narrow() or _NON_ASCII)
        if MARK not in cells:
            self._write(cells, [0, style])
        else:
            pieces = cells.split(MARK)
            if pieces[0]:
                self._write(pieces[0], [0, style])
            for piece in islice(pieces, 1, None):
                self._add_mark(piece[0])
                if len(piece) > 1:
                    self._write(piece[1:], [0, style])
        self._last_char = chunk[-1]

    def _add_mark(self, mark: str) -> None:
        """Attach a combining character to the cell before the cursor."""
        x = self.x
        if x == 0:
            return
        line = self.buffer[self.y]
        x = min(x, self.columns) - 1
        if x < len(line.text) and line.text[x] == FILL and x > 0:
            x -= 1
        if x >= len(line.text):
            # A cell never written is a blank, and takes the mark as a
            # written blank does (as in xterm and tmux).
            line.splice(x, " ", [x, PLAIN])
        line.add_mark(x, mark)
        self._dirty.add(self.y)

    def _write(self, cells: str, runs: list) -> None:
        """Write cells (runs relative to cells[0]) at the cursor, wrapping and
        honouring insert mode and DECAWM. Each row's share of the runs is
        found by bisection, so a long line with many styles stays linear."""
        columns = self.columns
        starts = runs[0::2]
        styles = runs[1::2]
        pos, end = 0, len(cells)
        while pos < end:
            x = self.x
            if x >= columns:
                if self.autowrap:
                    self.buffer[self.y].wrapped = True
                    self._index()
                    x = self.x = 0
                else:
                    keep = 2 if cells[-1] == FILL and end - pos > 1 else 1
                    if keep > columns:
                        return
                    pos = end - keep
                    x = self.x = columns - keep
            cut = fitting(cells, pos, end, columns - x, x == 0)
            if cut < 0:
                pos += 2
                continue
            if cut:
                line = self.buffer[self.y]
                if self.insert_mode:
                    line.insert_blanks(x, cut, PLAIN, columns)
                if len(styles) == 1:
                    share = [x, styles[0]]
                else:
                    share = _runs_between(starts, styles, pos, pos + cut, x)
                line.splice(x, cells[pos : pos + cut], share)
                self._dirty.add(self.y)
            pos += cut
            self.x = x + cut
            if pos < end:
                self.x = columns
            elif self.x == columns and not self.autowrap:
                self.x = columns - 1

    def _repeat(self, count: int) -> None:
        """REP: the last printed character again."""
        if self._last_char:
            self._draw(self._last_char * count)


__all__ = ["Line", "VirtualTerminal"]
