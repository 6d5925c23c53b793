"""Git's `-U0` hunks of one file: parsed a run of lines at a time, kept as columns.

Kept as a tuple of hunk objects, each with a tuple of its removed lines and
one of its added lines, a diff cost some 130 bytes a line (with the marks
made from it, a 16 MB file of short lines, every line changed, took 1.2 GB
in a pane). `Hunks` keeps, per hunk, where it is placed (its first new
line; for a pure deletion, the line after the gap), how many lines it
added, and the lines removed through it: three numbers in arrays. Every
removed line is kept in one `LineStore` (the text as git wrote it, two to
four bytes a line more); added lines are only counted (the file holds
them). Parsing goes by runs: the removed lines of a hunk are cut out of
git's output in one search and one replace, so a diff of a million lines
costs a few Python steps a hunk, not a dozen a line. Pure: no I/O.
"""

from __future__ import annotations

import codecs
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

import attrs

from laura.render.line_store import LineStore
from laura.steps import Steps, run_steps

_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# The first line (at or after a position) not starting with "-", or "+".
_NOT_REMOVED = re.compile(r"^[^-]", re.M)
_NOT_ADDED = re.compile(r"^[^+]", re.M)
# Removed lines are kept in pieces of about this many characters.
_PIECE = 32 * 1024


@attrs.frozen
class Hunk:
    """One `-U0` hunk: `new_start` is git's `+c` (for a pure deletion, the
    line after which lines were removed; 0 = before the first line)."""

    new_start: int
    new_count: int  # -U0: the lines it added, every one
    removed: tuple[str, ...]


class Hunks(Sequence[Hunk]):
    """The hunks of one file's diff, in git's order (see the module
    docstring). Hunk k's lines (or, for a pure deletion, the gap before the
    line after it) begin at `places[k]`; `new_counts[k]` lines were added
    there; `removed_through[k]` lines were removed by hunks 0..k, their text
    in `removed_lines`. The columns take four bytes a number while they fit.

    `in_order` says whether the hunks are as git writes them: each placed
    below the one before and past its lines. Everything that places rows
    by a binary search over `places` (the marks, the inline diff view)
    relies on it; a diff out of order is not shown."""

    __slots__ = ("in_order", "new_counts", "places", "removed_lines", "removed_through")

    def __init__(self) -> None:
        self.places = array("I")
        self.new_counts = array("I")
        self.removed_through = array("I")
        self.removed_lines = LineStore()
        self.in_order = True

    @classmethod
    def of(cls, hunks: Iterable[Hunk]) -> Hunks:
        made = _Builder()
        for hunk in hunks:
            made.start(hunk.new_start, hunk.new_count)
            made.remove("".join(line + "\n" for line in hunk.removed), len(hunk.removed))
        return made.done()

    def _widen(self) -> None:
        """Eight bytes a number (past four billion lines)."""
        self.places, self.new_counts, self.removed_through = (
            array("q", column) for column in (self.places, self.new_counts, self.removed_through)
        )

    @property
    def added(self) -> int:
        return sum(self.new_counts)

    @property
    def deleted(self) -> int:
        return self.removed_through[-1] if self.removed_through else 0

    def removed_of(self, index: int) -> range:
        """Where hunk `index`'s removed lines are in `removed_lines`."""
        return range(self.removed_through[index - 1] if index else 0, self.removed_through[index])

    def __len__(self) -> int:
        return len(self.places)

    @overload
    def __getitem__(self, index: int) -> Hunk: ...
    @overload
    def __getitem__(self, index: slice) -> list[Hunk]: ...
    def __getitem__(self, index: int | slice) -> Hunk | list[Hunk]:
        if isinstance(index, slice):
            return [self[at] for at in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("hunk index out of range")
        removed = self.removed_of(index)
        lines = tuple(self.removed_lines[removed.start : removed.stop])
        count = self.new_counts[index]
        return Hunk(self.places[index] - (count == 0), count, lines)

    def __iter__(self) -> Iterator[Hunk]:
        return (self[at] for at in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Hunks | list | tuple):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Hunks({len(self)} hunks, +{self.added} -{self.deleted})"


# The most a four-byte column holds; numbers past this one are not lines.
_FOUR_BYTES = 0xFFFF_FFFF
_NOT_A_LINE = 1 << 62


class _Builder:
    """Hunks as their parts are read."""

    def __init__(self) -> None:
        self.hunks = Hunks()
        self._removed = 0
        self._below = 1  # the first place the next hunk may take
        self._pending: list[str] = []  # removed lines not yet in the store, newline-ended
        self._pending_size = 0

    def start(self, new_start: int, new_count: int) -> None:
        hunks = self.hunks
        new_start, new_count = min(new_start, _NOT_A_LINE), min(new_count, _NOT_A_LINE)
        # A pure deletion's `new_start` is the line after which lines went.
        place = new_start + (new_count == 0)
        if place < self._below:
            hunks.in_order = False
        self._below = max(self._below, place + max(new_count, 1))
        if max(place, new_count) > _FOUR_BYTES and hunks.places.typecode == "I":
            hunks._widen()
        hunks.places.append(place)
        hunks.new_counts.append(new_count)
        hunks.removed_through.append(self._removed)

    def remove(self, lines: str, count: int) -> None:
        """Removed lines of the last hunk started (newline-ended, no `-`)."""
        if not count:
            return
        self._removed += count
        if self._removed > _FOUR_BYTES and self.hunks.places.typecode == "I":
            self.hunks._widen()
        self.hunks.removed_through[-1] = self._removed
        self._pending.append(lines)
        self._pending_size += len(lines)
        if self._pending_size >= _PIECE:
            self._flush()

    def _flush(self) -> None:
        self.hunks.removed_lines.add_text("".join(self._pending))
        self._pending, self._pending_size = [], 0

    def done(self) -> Hunks:
        self._flush()
        return self.hunks


def parse_hunks(text: str) -> Hunks:
    """The hunks of `git diff -U0` output for one file."""
    return run_steps(hunk_steps(text[at : at + _PIECE] for at in range(0, len(text), _PIECE)))


def decoded(chunks: Iterable[bytes | bytearray]) -> Iterator[str]:
    """Git's output read in `chunks`, decoded a chunk at a time (U+FFFD for
    what is not UTF-8): decoding a big diff at once held the loop 40 ms."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for chunk in chunks:
        yield decoder.decode(chunk)
    yield decoder.decode(b"", final=True)


def hunk_steps(pieces: Iterable[str]) -> Steps[Hunks]:
    """`parse_hunks` of git's output read in `pieces` (a step per piece):
    headers and lines before the first hunk, `\\ No newline` notes and any
    line that is neither a hunk's header nor a removed or added line are
    passed over."""
    made = _Builder()
    in_hunk = False
    for text in _whole_lines(pieces):
        yield
        position, end = 0, len(text)
        while position < end:
            first = text[position]
            if first == "-" and in_hunk:
                found = _NOT_REMOVED.search(text, position)
                stop = found.start() if found else end
                run = text[position + 1 : stop]  # "a\n-b\n": the lines without their "-"
                made.remove(run.replace("\n-", "\n"), run.count("\n"))
                position = stop
            elif first == "+" and in_hunk:
                found = _NOT_ADDED.search(text, position)
                position = found.start() if found else end
            else:
                line_end = text.find("\n", position) + 1
                header = _HEADER.match(text, position, line_end) if first == "@" else None
                if header is not None:
                    count = header.group(4)
                    made.start(int(header.group(3)), 1 if count is None else int(count))
                    in_hunk = True
                position = line_end
    return made.done()


def _whole_lines(pieces: Iterable[str]) -> Iterator[str]:
    """`pieces` cut at their last newlines: runs of whole lines, each ending
    with a newline (a last line without one is given one). A line longer
    than a piece is gathered in parts, never copied again per piece."""
    parts: list[str] = []
    for piece in pieces:
        cut = piece.rfind("\n") + 1
        if not cut:
            parts.append(piece)
            continue
        parts.append(piece[:cut])
        yield "".join(parts)
        parts = [piece[cut:]] if cut < len(piece) else []
    rest = "".join(parts)
    if rest:
        yield rest + "\n"
