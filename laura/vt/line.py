"""One screen or history line: a string of cells plus style runs.

A `Line` owns:
- `text`: one character per cell; the right half of a wide character holds
  `FILL`. Cells past the end of `text` are blank in the default style.
- `runs`: flat list `[start0, style0, start1, style1, ...]`, starts ascending,
  `runs[0] == 0`; run k covers `[start_k, start_{k+1})` (the last to the end).
- `wrapped`: the line was continued on the next one by auto-wrap.
- `marks`: combining characters keyed by cell, None while there are none.

Writing is string slicing and list splicing, never a loop over cells.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from laura.render.style import PLAIN, Span, Style

FILL = "\x00"  # right half of a wide character; never printable input


def fitting(cells: str, pos: int, end: int, room: int, line_start: bool) -> int:
    """How many of cells[pos:end] are written into the `room` cells left on
    a line: all when they fit; else `room`, one fewer when that would cut a
    wide character in half (it never straddles the edge). -1 when the wide
    character at `pos` cannot fit even at the start of a line (it is
    dropped: skip its two cells)."""
    if end - pos <= room:
        return end - pos
    if cells[pos + room] != FILL:
        return room
    if room == 1 and line_start:
        return -1
    return room - 1
MARKS_LIMIT = 8  # combining characters kept per cell


class Line:
    __slots__ = ("marks", "runs", "text", "wrapped")

    def __init__(self, text: str = "", runs: list | None = None) -> None:
        self.text = text
        self.runs: list = [0, PLAIN] if runs is None else runs
        self.wrapped = False
        self.marks: dict[int, str] | None = None

    def copy(self) -> Line:
        line = Line(self.text, list(self.runs))
        line.wrapped = self.wrapped
        line.marks = dict(self.marks) if self.marks else None
        return line

    def splice(self, a: int, text: str, new_runs: list) -> None:
        """Overwrite cells [a, a+len(text)) with `text` styled by `new_runs`
        (flat, absolute starts, first start == a, no empty runs)."""
        old = self.text
        b = a + len(text)
        n = len(old)
        if a > n:
            # Pad the gap with default blanks.
            old = old + " " * (a - n)
            if self.runs[-1] is not PLAIN:
                self.runs += (n, PLAIN)
            n = a
        if a < n and old[a] == FILL and a > 0:
            old = old[: a - 1] + " " + old[a:]
        if b < n and old[b] == FILL:
            old = old[:b] + " " + old[b + 1 :]
        if self.marks:
            self.marks = {k: v for k, v in self.marks.items() if not a <= k < b} or None
        self.text = old[:a] + text + old[b:]
        runs = self.runs
        if len(runs) == 2 and len(new_runs) == 2 and runs[1] is new_runs[1]:
            # One style before and after (random or binary output overwriting
            # itself): the runs stay as they are.
            return
        if a >= n or (len(runs) == 2 and b >= n):
            # Appending, or replacing the whole tail of a one-run line.
            if a == 0:
                self.runs = list(new_runs)
                return
            if runs[-2] >= a:
                del runs[bisect_left(runs[0::2], a) * 2 :]
            runs += new_runs
            return
        starts = runs[0::2]
        lo = bisect_left(starts, a)
        hi = bisect_right(starts, b)
        out = runs[: 2 * lo]
        out += new_runs
        if b < len(self.text):
            out += (b, runs[2 * hi - 1])
            out += runs[2 * hi :]
        self.runs = out

    def put(self, a: int, text: str, style: Style) -> None:
        self.splice(a, text, [a, style])

    def erase(self, a: int, b: int, style: Style) -> None:
        """Blank cells [a, b) in `style` (a background-only erase style)."""
        n = len(self.text)
        if a >= b:
            return
        if b >= n and style is PLAIN:
            if a < n:
                self._truncate(a)
            return
        self.splice(a, " " * (b - a), [a, style])

    def _truncate(self, a: int) -> None:
        text = self.text
        if 0 < a < len(text) and text[a] == FILL:
            a -= 1
        self.text = text[:a]
        if self.marks:
            self.marks = {k: v for k, v in self.marks.items() if k < a} or None
        runs = self.runs
        if a == 0:
            self.runs = [0, PLAIN]
        elif runs[-2] >= a:
            del runs[bisect_left(runs[0::2], a) * 2 :]

    def insert_blanks(self, x: int, count: int, style: Style, columns: int) -> None:
        """ICH: shift cells from x right by `count`; cells pushed past the
        right edge are lost."""
        if x >= len(self.text) and style is PLAIN:
            return
        tail = self.slice(x, columns - count)
        self.erase(x, columns, PLAIN)
        self.splice(x, " " * count, [x, style])
        if tail[0]:
            self.splice(x + count, tail[0], [r + x + count if i % 2 == 0 else r for i, r in enumerate(tail[1])])
        self._clip(columns)

    def delete(self, x: int, count: int, style: Style, columns: int) -> None:
        """DCH: remove `count` cells at x; blanks in `style` fill in at the right."""
        tail = self.slice(x + count, columns)
        self.erase(x, columns, PLAIN)
        if tail[0]:
            self.splice(x, tail[0], [r + x if i % 2 == 0 else r for i, r in enumerate(tail[1])])
        if style is not PLAIN:
            self.erase(max(x, columns - count), columns, style)

    def slice(self, a: int, b: int) -> tuple[str, list]:
        """Cells [a, b) clipped to the text, with runs relative to a."""
        text = self.text
        b = min(b, len(text))
        if a >= b:
            return "", []
        piece = text[a:b]
        if piece[0] == FILL:
            piece = " " + piece[1:]
        if b < len(text) and text[b] == FILL:
            piece = piece[:-1] + " "
        runs = self.runs
        starts = runs[0::2]
        lo = bisect_right(starts, a) - 1
        hi = bisect_left(starts, b)
        out: list = [0, runs[2 * lo + 1]]
        for i in range(lo + 1, hi):
            out += (runs[2 * i] - a, runs[2 * i + 1])
        return piece, out

    def _clip(self, columns: int) -> None:
        if len(self.text) > columns:
            self._truncate(columns)
            if len(self.text) < columns:  # a wide char straddled the edge
                self.text += " "

    def add_mark(self, x: int, mark: str) -> None:
        if self.marks is None:
            self.marks = {}
        # Bounded, as in tmux: a stream of combining marks must not grow a
        # cell without limit.
        self.marks[x] = (self.marks.get(x, "") + mark)[:MARKS_LIMIT]

    def spans(self, columns: int) -> tuple[Span, ...]:
        text = self.text
        if len(text) > columns:
            text = text[:columns]
        n = len(text)
        runs = self.runs
        marks = self.marks
        out: list[Span] = []
        last = len(runs) - 2
        for i in range(0, len(runs), 2):
            start = runs[i]
            if start >= n:
                break
            end = runs[i + 2] if i < last else n
            if end <= start:
                continue
            if marks:
                seg = "".join(text[k] + marks.get(k, "") for k in range(start, min(end, n)))
            else:
                seg = text[start:end]
            seg = seg.replace(FILL, "")
            if seg:
                style = runs[i + 1]
                if out and out[-1].style == style:
                    out[-1] = Span(out[-1].text + seg, style)
                else:
                    out.append(Span(seg, style))
        return tuple(out)

    def plain(self, columns: int) -> str:
        """The row's text (for tests and tools), trailing blanks stripped."""
        return "".join(s.text for s in self.spans(columns)).rstrip()
