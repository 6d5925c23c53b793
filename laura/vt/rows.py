"""Row-local batches: the feed loop's fast path for text mixed with controls
that only move the cursor (random or binary output, progress bars).

`RowBatch._batch` takes the (chunk, token) pairs cut by `core.py` while the
screen is in its plain state (style PLAIN, no insert mode, no DEC line
drawing, DECAWM on) and keeps the cursor's row as a local string: text
(wide and combining characters included), CR, BS, HT, line feeds, BEL,
SO/SI and the controls that do nothing are applied to it with string slices
and no method call per token (the text on either side of a token that does
nothing goes down in one write), and the `Line` gets its text back once, when
the cursor leaves the row or before anything else reads the state. It stops
before a chunk with SGR in it and after any other control (which it hands
to `Controls._control`), and the per-token path in `core.py` takes over.

It must leave exactly the state that the per-token path leaves:
`tests/laura/vt/test_rows.py` compares the two over random and
control-heavy input, and `bench/laura_vt_fingerprint.py` a digest of the
whole state between two commits. Rows whose style runs are not the one
PLAIN run are written with `Line.splice`, as the per-token path writes them.
Pure computation on the emulator's state: no I/O, nothing to cancel.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from laura.emulator import Alert
from laura.render.style import PLAIN
from laura.vt.controls import Controls
from laura.vt.line import FILL, Line, fitting
from laura.vt.narrow import not_narrow
from laura.vt.screen import ALERT_LIMIT
from laura.vt.width import MARK, cells_of

BULK = 256  # most lines laid down by one `_bulk_lines`
_BELL = Alert("bell")
_LINE_FEEDS = frozenset(("\r\n", "\n", "\x0b", "\x0c"))
# Tokens that change nothing: CAN and SUB, a cancelled ESC, and every
# two-character escape sequence but DECSC, DECRC, IND, NEL, RI, HTS and RIS
# (`Controls._control` ignores them). Random bytes are full of them.
_NOTHING = frozenset(("\x18", "\x1a", "\x1b", *(
    "\x1b" + chr(code) for code in range(0x30, 0x7F) if chr(code) not in "[78DEMHc")))
# While neither G0 nor G1 is DEC line drawing, SO and SI only choose which
# one is active: a batch skips them and sets `shift` from the last one.
_SHIFTS = frozenset(("\x0e", "\x0f"))
_QUIET = _NOTHING | _SHIFTS
_QUIET_OR_BELL = _QUIET | {"\x07"}
_NOTHING_OR_BELL = _NOTHING | {"\x07"}
_NON_ASCII = re.compile("[^\x00-\x7f]")


def _overwrite(row: str, a: int, b: int, cells: str) -> str:
    """`row` with cells [a, b) replaced by `cells` (a < len(row)), as
    `Line.splice` leaves its text: the other half of a wide character cut by
    either edge becomes a blank."""
    if a and row[a] == FILL:
        row = row[: a - 1] + " " + row[a:]
    if b < len(row) and row[b] == FILL:
        row = row[:b] + " " + row[b + 1 :]
    return row[:a] + cells + row[b:]


def _unmark(marks: dict[int, str], a: int, b: int) -> dict[int, str] | None:
    """`marks` without the ones on cells [a, b), as `Line.splice` leaves
    them (the same dict when none is there)."""
    for k in marks:
        if a <= k < b:
            return {k: v for k, v in marks.items() if not a <= k < b} or None
    return marks


def _splice(line: Line, row: str, x: int, cells: str) -> tuple[str, dict[int, str] | None]:
    """PLAIN `cells` written at `x` into a row whose style runs are not the
    one PLAIN run (the rare case, so `Line.splice` does it), from the batch's
    local copy `row` of its text; the row's text and marks after."""
    line.text = row
    line.splice(x, cells, [x, PLAIN])
    return line.text, line.marks


class RowBatch(Controls):
    """The row-local fast path of the feed loop; see the module docstring."""

    def _bulk_lines(self, parts: list[str], i: int, count: int) -> int:
        raise NotImplementedError  # core.py lays down whole lines

    def _batch(self, parts: list[str], i: int, count: int, bulk_from: int) -> tuple[int, int]:
        """Apply the pairs parts[i], parts[i + 1], ... (chunk, token) from
        index `i` on; returns the index of the first pair not applied (`i`
        when the state does not allow a batch) and `bulk_from` (as in
        `VirtualTerminal._feed`, for `_bulk_lines` after CR LF)."""
        if self.style is not PLAIN or self.insert_mode or self._translate or not self.autowrap:
            return i, bulk_from
        start = i
        # The one-cell table, fetched at the first chunk that is not ASCII
        # (compiling it takes a while); without it such a chunk stops the batch.
        pattern = special = None
        columns = self.columns
        last_column = columns - 1
        lines = self.lines
        buffer = self.buffer
        top, bottom = self.top, self.bottom
        # The commonest scroll, inline: the top line to history.
        inline_scroll = top == 0 and bottom == lines - 1 and buffer is self.main_buffer
        history = self.history
        newline = self.newline_mode
        # The tab stops in order (only a control that returns changes them).
        stops = sorted(self.tabstops)
        stop_count = len(stops)
        charsets = self.charsets
        quiet = _QUIET if "0" not in charsets else _NOTHING
        joinable = _QUIET_OR_BELL if quiet is _QUIET else _NOTHING_OR_BELL
        dirty = self._dirty
        x, y = self.x, self.y
        line = buffer[y]
        row = line.text
        marks = line.marks
        runs = line.runs
        simple = len(runs) == 2 and runs[1] is PLAIN
        touched = False
        last = self._last_char
        drawn = ""  # the last chunk drawn: `last` is its last character
        bells = 0  # rung at the end (nothing in between reads the alerts)
        # Chunks before tokens that do nothing (or ring, counted) go down
        # joined to the next chunk: one write instead of several (nearly
        # half the tokens on random bytes).
        joined = ""
        joined_from = joined_bells = 0  # the pair `joined` begins at; `bells` then
        for i in range(start, count, 2):
            chunk = parts[i]
            token = parts[i + 1]
            if token in joinable:
                if chunk:
                    if not joined:
                        joined_from, joined_bells = i, bells
                    joined += chunk
                if token == "\x07":
                    bells += 1
                continue
            if joined:
                chunk = joined + chunk
                joined = ""
                back = joined_from
            else:
                back = i
            if chunk:
                if "\x1b" in chunk:
                    stop = back
                    if back != i:  # the pairs from `back` on are taken again
                        bells = joined_bells
                    break
                if chunk.isascii():
                    cells = chunk
                    narrow = True
                else:
                    if special is None:
                        pattern = not_narrow()
                        special = pattern or _NON_ASCII
                    found = special.search(chunk)
                    if found is None:
                        cells = chunk
                        narrow = True
                    elif pattern is None:
                        stop = back
                        if back != i:
                            bells = joined_bells
                        break
                    else:
                        cells = cells_of(chunk, pattern, found.start())
                        narrow = False
                end = x + len(cells)
                if end <= columns and (narrow or MARK not in cells):
                    # Fits: as `VirtualTerminal._draw` lays down a one-cell
                    # chunk, and `_write` any other.
                    n = len(row)
                    if simple:
                        # As `Line.splice`, whose one PLAIN run stays as it is.
                        if x >= n:
                            row = row + " " * (x - n) + cells if x > n else row + cells
                        else:  # as `_overwrite`, inline
                            if x and row[x] == FILL:
                                row = row[: x - 1] + " " + row[x:]
                            if end < n and row[end] == FILL:
                                row = row[:end] + " " + row[end + 1 :]
                            row = row[:x] + cells + row[end:]
                        if marks and (x != n or not narrow):
                            line.marks = marks = _unmark(marks, x, end)
                    elif narrow and x == n:
                        line.text = row = row + cells
                        runs = line.runs
                        if runs[-1] is not PLAIN:
                            if runs[-2] == x:
                                runs[-1] = PLAIN
                            else:
                                runs += (x, PLAIN)
                    else:
                        row, marks = _splice(line, row, x, cells)
                    x = end
                    touched = True
                    drawn = chunk
                else:
                    # As `VirtualTerminal._draw_unicode` and `_write` lay it
                    # down: the cells between combining marks, wrapping.
                    first = True
                    for piece in cells.split(MARK):
                        if first:
                            first = False
                        else:
                            mark, piece = piece[0], piece[1:]
                            if x:
                                at = min(x, columns) - 1
                                if at < len(row) and row[at] == FILL and at > 0:
                                    at -= 1
                                if at >= len(row):  # as `_add_mark`: a blank takes it
                                    line.text = row
                                    line.splice(at, " ", [at, PLAIN])
                                    row = line.text
                                line.add_mark(at, mark)
                                marks = line.marks
                                touched = True
                        pos, end = 0, len(piece)
                        while pos < end:
                            if x >= columns:
                                line.wrapped = True
                                line.text = row
                                if touched:
                                    dirty.add(y)
                                    touched = False
                                if y == bottom:
                                    if inline_scroll:
                                        history.append(buffer.pop(0))
                                        buffer.append(Line())
                                        self._all_dirty = True
                                    else:
                                        self._scroll_up(1)
                                elif y < lines - 1:
                                    y += 1
                                line = buffer[y]
                                row = line.text
                                marks = line.marks
                                runs = line.runs
                                simple = len(runs) == 2 and runs[1] is PLAIN
                                x = 0
                            cut = fitting(piece, pos, end, columns - x, x == 0)
                            if cut < 0:
                                pos += 2
                                continue
                            if cut:
                                part = piece[pos : pos + cut]
                                b = x + cut
                                if simple:
                                    n = len(row)
                                    if x >= n:
                                        row = row + " " * (x - n) + part if x > n else row + part
                                    else:
                                        row = _overwrite(row, x, b, part)
                                    if marks:
                                        line.marks = marks = _unmark(marks, x, b)
                                else:
                                    row, marks = _splice(line, row, x, part)
                                touched = True
                            pos += cut
                            x += cut
                            if pos < end:
                                x = columns
                    drawn = chunk
            if token in _LINE_FEEDS:
                if token == "\r\n" or newline:
                    x = 0
                line.text = row
                if touched:
                    dirty.add(y)
                    touched = False
                if y != bottom:
                    if y < lines - 1:
                        y += 1
                elif inline_scroll:
                    history.append(buffer.pop(0))
                    line = Line()
                    buffer.append(line)
                    self._all_dirty = True
                    if token != "\r\n" or i + 2 < bulk_from or i + 3 >= count or parts[i + 3] != "\r\n":
                        row, marks, simple = "", None, True  # the new line's, as `Line()` is
                        continue
                else:
                    self._scroll_up(1)
                if (token == "\r\n" and i + 2 >= bulk_from and i + 3 < count
                        and parts[i + 3] == "\r\n"):
                    self.x, self.y, self._last_char = x, y, drawn[-1] if drawn else last
                    done = self._bulk_lines(parts, i + 2, count)
                    if done == i + 2:
                        bulk_from = done + 2 * BULK
                    else:
                        self._settle(parts, start, i + 2, quiet, bells)
                        return done, bulk_from
                line = buffer[y]
                row = line.text
                marks = line.marks
                runs = line.runs
                simple = len(runs) == 2 and runs[1] is PLAIN
            elif token == "\r":
                x = 0
            elif token == "\x08":
                x = max(0, min(x, last_column) - 1)
            elif token == "\t":
                if x < last_column:  # as `Controls._tab`: to the next stop
                    k = bisect_right(stops, x)
                    x = min(stops[k], last_column) if k < stop_count else last_column
            elif token in _SHIFTS:  # one of G0 and G1 is line drawing
                shift = self.shift = 1 if token == "\x0e" else 0
                if charsets[shift] == "0":  # as `_update_translate`
                    self._translate = True
                    stop = i + 2
                    break
            else:
                line.text = row
                if touched:
                    dirty.add(y)
                self.x, self.y, self._last_char = x, y, drawn[-1] if drawn else last
                self._settle(parts, start, i, quiet, bells)
                self._control(token)
                return i + 2, bulk_from
        else:
            stop = count
            if joined:
                stop, bells = joined_from, joined_bells
        line.text = row
        if touched:
            dirty.add(y)
        self.x, self.y, self._last_char = x, y, drawn[-1] if drawn else last
        self._settle(parts, start, stop, quiet, bells)
        return stop, bulk_from

    def _settle(self, parts: list[str], start: int, stop: int, quiet: frozenset[str],
                bells: int) -> None:
        """What a batch leaves for its end: the `bells` it counted are rung
        (the alerts keep the last `ALERT_LIMIT`: more ring as that many), and
        `shift` is set from the last SO or SI among the tokens of pairs
        [start, stop) when it skipped them (`_QUIET`)."""
        for _ in range(min(bells, ALERT_LIMIT)):
            self._alert(_BELL)
        if quiet is not _QUIET:
            return
        for k in range(stop - 1, start, -2):
            token = parts[k]
            if token in _SHIFTS:
                self.shift = 1 if token == "\x0e" else 0
                return
