"""Git change marks by source line, kept as runs: the gutter's `+`/`~`, the
"N lines removed" gaps, and `+a -d`.

A file with every line changed had a dictionary entry per line (some 70
bytes each: 16 MB of short lines took 400 MB for its marks alone). Git
gives changes as runs of lines, one a hunk, so `ChangedLines` reads the
hunks' own columns (where each starts, how many lines it added, whether it
removed any; nothing copied) and `RemovedCounts` keeps each gap's line and
count in arrays; both answer a line by a binary search. Both read as the
mappings they replace, and `Marks` makes them from plain mappings when
given those. Pure: no I/O.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from abc import abstractmethod
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TypeVar, overload

import attrs

ADDED = "+"
MODIFIED = "~"
REMOVED = "-"

T = TypeVar("T")
V = TypeVar("V")


class _ByLine(Mapping[int, V]):
    """A mapping by line whose lookups are a search (`_find`): a line not
    in it is answered without raising and catching a KeyError, as
    Mapping.get would (most lines asked about have no mark)."""

    __slots__ = ()

    @abstractmethod
    def _find(self, line: int) -> V | None: ...

    @overload
    def get(self, line: int) -> V | None: ...
    @overload
    def get(self, line: int, default: V | T) -> V | T: ...
    def get(self, line: int, default: object = None) -> object:
        found = self._find(line)
        return default if found is None else found

    def __getitem__(self, line: int) -> V:
        found = self._find(line)
        if found is None:
            raise KeyError(line)
        return found

    def __contains__(self, line: object) -> bool:
        return isinstance(line, int) and self._find(line) is not None


class ChangedLines(_ByLine[str]):
    """Lines git says were added (ADDED) or changed (MODIFIED), as runs:
    run k is counts[k] lines from places[k], changed when it removed lines
    too (`removed_through`, the lines removed by runs 0..k, grew); a run of
    no lines (a pure deletion) marks none. Each run starts past the lines
    of the one before, as a diff's hunks do (so the columns of
    laura.git_hunks.Hunks are taken as they are, not copied)."""

    __slots__ = ("_count", "_counts", "_places", "_removed_through")

    def __init__(
        self, places: Sequence[int] = (), counts: Sequence[int] = (), removed_through: Sequence[int] = ()
    ) -> None:
        self._places = places
        self._counts = counts
        self._removed_through = removed_through
        self._count = sum(counts)

    def _find(self, line: int) -> str | None:
        run = bisect.bisect_right(self._places, line) - 1
        if run < 0 or line >= self._places[run] + self._counts[run]:
            return None
        before = self._removed_through[run - 1] if run else 0
        return MODIFIED if self._removed_through[run] > before else ADDED

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[int]:
        return itertools.chain.from_iterable(map(range, self._places, map(operator.add, self._places, self._counts)))


class RemovedCounts(_ByLine[int]):
    """How many lines were removed above each line (the line after a
    deletion; line_count + 1 for deletions at the end), in line order."""

    __slots__ = ("_counts", "_lines")

    def __init__(self, lines: Iterable[int] = (), counts: Iterable[int] = ()) -> None:
        self._lines = array("q", lines)
        self._counts = array("q", counts)
        if not all(map(operator.lt, self._lines, itertools.islice(self._lines, 1, None))):
            # Two deletions at one line (past the end of a file that shrank since): one gap.
            summed: dict[int, int] = {}
            for line, count in zip(self._lines, self._counts, strict=True):
                summed[line] = summed.get(line, 0) + count
            lines = sorted(summed)
            self._lines, self._counts = array("q", lines), array("q", map(summed.__getitem__, lines))

    def _find(self, line: int) -> int | None:
        at = bisect.bisect_left(self._lines, line)
        if at < len(self._lines) and self._lines[at] == line:
            return self._counts[at]
        return None

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self) -> Iterator[int]:
        return iter(self._lines)

    def lines_within(self, first: int, last: int) -> Sequence[int]:
        """The lines first..last with a gap above them, in order."""
        lines = self._lines
        return lines[bisect.bisect_left(lines, first) : bisect.bisect_right(lines, last)]


def changed_lines(marks: Mapping[int, str]) -> ChangedLines:
    """A mapping of lines to ADDED or MODIFIED as runs (a line each)."""
    if isinstance(marks, ChangedLines):
        return marks
    lines = sorted(marks)
    modified = itertools.accumulate(marks[line] == MODIFIED for line in lines)
    return ChangedLines(array("q", lines), array("q", [1] * len(lines)), array("q", modified))


def removed_counts(counts: Mapping[int, int]) -> RemovedCounts:
    """A mapping of lines to the lines removed above them, in line order."""
    if isinstance(counts, RemovedCounts):
        return counts
    lines = sorted(counts)
    return RemovedCounts(lines, (counts[line] for line in lines))


@attrs.frozen
class Marks:
    """Git change marks by 1-based source line: `changed` maps a line to
    ADDED or MODIFIED; `removed` maps the line below a deletion to how many
    lines were removed there (line_count + 1 for deletions at the end)."""

    changed: ChangedLines = attrs.field(factory=ChangedLines, converter=changed_lines)
    removed: RemovedCounts = attrs.field(factory=RemovedCounts, converter=removed_counts)
    added: int = 0
    deleted: int = 0

    @property
    def empty(self) -> bool:
        return not self.changed and not self.removed

    def line_marker(self, line: int) -> str:
        """The marker of a row standing for source line `line` alone."""
        mark = self.changed.get(line)
        if mark is None and line in self.removed:
            mark = REMOVED
        return mark or " "

    def gap_lines(self, line_count: int) -> Sequence[int]:
        """The lines of a file of `line_count` lines with a gap row above
        them (line_count + 1: below the last), in order."""
        return self.removed.lines_within(1, line_count + 1)


NO_MARKS = Marks()
