"""File text -> rendered rows, chosen by the file's kind.

The entry points file panes call. `Document` holds one file's text and its
renderer's blocks (width-independent, made as they are asked for; a
markdown document keeps the last few screens of them and makes a dropped
one again); `Document.view(width)` lays them out lazily at a width, so a
pane's first paint renders one screen. `render_document` is the eager form:
every row, clipped to the width.

Kinds, by the last `.`-segment of the name (case-insensitive): `.md` and
`.markdown` are markdown; `.diff` and `.patch` are diffs; anything Pygments
names (other than plain text) is code; the rest is wrapped plain text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePath

import attrs

from laura.render.code import CHUNK, lexer_class_for_filename
from laura.render.colouring import Colouring, plain
from laura.render.diff import (
    cannot_read_blocks,
    diff_line,
    notice_blocks,
    plain_blocks,
    plain_line,
    plain_line_blocks,
)
from laura.render.kept import Kept
from laura.render.line_store import LineStore
from laura.render.line_view import LineView
from laura.render.lines import Block, Line
from laura.render.markdown import markdown_blocks
from laura.render.marks import NO_MARKS, Marks
from laura.render.style import Row, Span
from laura.render.view import DocumentView
from laura.render.wrapped_view import WrappedView

MARKDOWN = "markdown"
DIFF = "diff"
CODE = "code"
PLAIN_TEXT = "plain"
UNREADABLE = "unreadable"

# How long `render_document` (everything at once) may spend colouring.
EAGER_COLOUR_SECONDS = 1.0
# Lines of blocks that can be made again a document holds (a few screens at
# each of a few widths); those read longest ago are dropped and made again
# when read.
# Holding every block cost some 300 bytes a line (a `Line`, its spans and
# its source): a megabyte of one-word headings, 110 MB.
KEPT_LINES = 8192


_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def displayable(text: str) -> str:
    """Text safe to draw, with the same lines: CRLF ends a line like LF;
    terminal escapes (colour codes in a piped log) are removed; text a
    carriage return overwrote is dropped, as a terminal would show it;
    other control characters become U+FFFD."""
    text = text.replace("\r\n", "\n")
    if "\x1b" in text:
        text = _ESCAPES.sub("", text)
    if "\r" in text:
        text = "\n".join(map(_overwritten, text.split("\n")))
    return _CONTROLS.sub("\ufffd", text)


def _overwritten(line: str) -> str:
    """`line` as a terminal leaves it: what comes before its last carriage
    return that has more of the line after it is overwritten, so dropped (a
    carriage return ending the line stays, and is shown as a control). Found
    with one `rfind`: the regular expression this replaces backtracked over
    every character after the last carriage return, from every position (a
    line of `a\\r` and a megabyte took minutes)."""
    last = line.rfind("\r", 0, len(line) - 1)
    return line if last < 0 else line[last + 1 :]


def kind_of(name: str) -> str:
    suffix = PurePath(name).suffix.lower()
    if suffix in (".md", ".markdown"):
        return MARKDOWN
    if suffix in (".diff", ".patch"):
        return DIFF
    if suffix == ".txt" or lexer_class_for_filename(PurePath(name).name) is None:
        return PLAIN_TEXT
    return CODE


class Document:
    """One file's text and its rendered blocks, produced on demand.

    `unreadable` (a reason) makes a document with no source lines that shows
    "Couldn't read this file — REASON. Check the path."
    """

    def __init__(
        self,
        name: str,
        text: str,
        *,
        unreadable: str | None = None,
        notice: str | None = None,
        lines: LineStore | None = None,
        kind: str | None = None,
    ) -> None:
        """`notice` makes a document of one message row and no lines ("loading…").
        `lines` says `text` was already cleaned (`displayable`) and split into
        these lines (a loader did it off the UI loop); `kind` overrides the
        kind the name implies (a huge file is shown as plain text)."""
        self.name = name
        self.text = text if lines is not None else displayable(text)
        self.unreadable = unreadable
        self.notice = notice
        shows_text = unreadable is None and notice is None
        self.kind = (kind or kind_of(name)) if shows_text else UNREADABLE
        if not shows_text:
            self.lines = LineStore()
        else:
            self.lines = lines if lines is not None else LineStore.of_text(self.text)
        # A code file's colours, made in steps by whoever owns the document
        # (a file pane drives them between keys); shown as they are ready.
        self.colouring: Colouring | None = None
        if (
            self.kind == CODE
            and (lexer := lexer_class_for_filename(PurePath(name).name)) is not None
        ):
            self.colouring = Colouring(lexer, self.lines)
        self._line = SourceLine(self.lines, self.kind, self.colouring)
        # Blocks made so far, in order. One that can be made again is here
        # as its place (its start, end and `again`, no lines), and held in
        # `_kept` while it is among the KEPT_LINES lines read last.
        self._made: list[Block] = []
        self._kept: Kept[Block] = Kept(KEPT_LINES)
        self._source: Iterator[Block] | None = self._make()

    @property
    def line_count(self) -> int:
        return len(self.lines)

    def _make(self) -> Iterator[Block]:
        if self.notice is not None:
            return notice_blocks(self.notice)
        if self.unreadable is not None:
            return cannot_read_blocks(self.name, self.unreadable)
        if self.kind == MARKDOWN:
            return markdown_blocks(self.text, self.lines)
        if self.kind in (CODE, DIFF):
            return _line_blocks(self.line_count, self._line)
        return plain_line_blocks(self.lines)

    def colour(self, through: int, seconds: float) -> None:
        """Colour a code file through line `through`, for at most `seconds`
        (the rest is coloured by steps later, or stays plain)."""
        if self.colouring is not None:
            self.colouring.advance(through, seconds)

    def fresh_blocks(self) -> Iterator[Block]:
        """Every block made anew and cached nowhere (safe to run in another
        thread than the one laying the document out)."""
        return self._make()

    def blocks(self) -> Iterator[Block]:
        """Every block, in order."""
        index = 0
        while (block := self.block(index)) is not None:
            yield block
            index += 1

    def block(self, index: int) -> Block | None:
        """Block `index` (0-based): made if need be, or made again if it was
        dropped; None past the last."""
        while index >= len(self._made):
            if not self._make_next():
                return None
        place = self._made[index]
        if place.again is None:
            return place
        block = self._kept.get(index)
        if block is None:
            block = self._made_again(place)
            self._kept.put(index, block, len(block.lines))
        return block

    def _make_next(self) -> bool:
        if self._source is None:
            return False
        try:
            block = next(self._source, None)
        except Exception:  # a renderer bug degrades to plain text, never a crash
            self._source = _plain_after(self.lines, self._made[-1].end if self._made else 0)
            return True
        if block is None:
            self._source = None
            return False
        if block.again is None:
            self._made.append(block)
        else:
            self._made.append(attrs.evolve(block, lines=()))
            self._kept.put(len(self._made) - 1, block, len(block.lines))
        return True

    def _made_again(self, place: Block) -> Block:
        assert place.again is not None
        try:
            return place.again()
        except Exception:  # a renderer bug degrades to plain text, never a crash
            return _plain_block(self.lines, place.start, place.end)

    def _final(self, number: int) -> bool:
        return self.colouring is None or self.colouring.final(number)

    def view(self, width: int, marks: Marks = NO_MARKS) -> DocumentView | LineView | WrappedView:
        """Rows at text width `width`: markdown laid out as they are asked
        for; code and diffs (one row per line) and plain text (each line
        wraps on its own) made as they are read, any row at once."""
        if self.kind in (CODE, DIFF):
            return LineView(self.line_count, width, marks, self._line, self._final)
        if self.kind == PLAIN_TEXT:
            return WrappedView(self.lines, width, marks, self._line)
        return DocumentView(self, self.line_count, width, marks)


@attrs.frozen(eq=False)
class SourceLine:
    """Makes source line n of a code, diff or plain file, as shown now.

    An object of its own rather than a method of the `Document`: the
    document's block generator and its views hold it, and a bound method
    would make the document a reference cycle, freed only by the
    collector's rare full pass (each reload of a code file kept its old text
    and colours; see docs/laura.md, "File panes: limits"). A document refers
    to nothing that refers back to it."""

    lines: LineStore
    kind: str
    colouring: Colouring | None

    def __call__(self, number: int) -> Line:
        raw = self.lines[number - 1]
        if self.kind == DIFF:
            return diff_line(raw, number)
        if self.kind == PLAIN_TEXT:
            return plain_line(raw, number)
        spans = plain(raw) if self.colouring is None else self.colouring.spans(number)
        return Line(spans, (number, number), pre=True)


def _plain_after(lines: LineStore, done: int) -> Iterator[Block]:
    """Plain-text blocks for the lines after line `done` (what a document
    shows after its renderer failed)."""
    for block in plain_blocks("\n".join(lines[done:]) + "\n"):
        shifted = tuple(
            attrs.evolve(line, source=(line.source[0] + done, line.source[1] + done))
            if line.source is not None
            else line
            for line in block.lines
        )
        yield Block(shifted, block.start + done, block.end + done)


def _plain_block(lines: LineStore, start: int, end: int) -> Block:
    """Lines `start`..`end` as plain text (a block that failed to be made again)."""
    return Block(tuple(plain_line(lines[n - 1], n) for n in range(start, end + 1)), start, end)


def _line_blocks(count: int, line: Callable[[int], Line]) -> Iterator[Block]:
    """Lines 1..count made by `line`, CHUNK at a time."""
    for start in range(1, count + 1, CHUNK):
        stop = min(start + CHUNK, count + 1)
        yield Block(tuple(line(number) for number in range(start, stop)), start, stop - 1)


def render_document(
    name: str, text: str, width: int, *, hscroll: int = 0, marks: Marks = NO_MARKS
) -> list[Row]:
    """Every row for the file called `name` (its path, used to pick a
    renderer) at text width `width`. Pre-formatted rows (code, diffs, fenced
    blocks, tables) are clipped to the width, scrolled right by `hscroll`
    cells, with a dim `›`/`‹` where text continues."""
    document = Document(name, text)
    document.colour(document.line_count, EAGER_COLOUR_SECONDS)
    view = document.view(width, marks)
    return view.window(0, len(view), hscroll)


def row_text(row: Row) -> str:
    return "".join(span.text for span in row.spans)


__all__ = ["Document", "DocumentView", "Marks", "Row", "Span", "render_document", "row_text"]
