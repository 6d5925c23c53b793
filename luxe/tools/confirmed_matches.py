"""ripgrep's matching lines, kept only when Luxe's own read of the file has them.

ripgrep opens the files it searches, so no descriptor of Luxe's says what
it read: a repository can swap a name for a link to a secret file while
ripgrep reads it, and back before any look of Luxe's at the name. So every
file a reported line comes from is opened once more by Luxe
(`open_regular`: non-blocking, a regular file only), that descriptor is
judged (`is_secret_opened`), and a line is kept only when what Luxe read
through it holds the same text at the same line number. A line ripgrep
read from a secret file is then either in the file Luxe refuses, or not in
the file Luxe read, and is dropped either way. Luxe reads a file only as
far as its furthest reported line, and never past the cap it is given.
"""

from __future__ import annotations

import bisect
import itertools
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

from luxe.regular_file import open_regular

# One line ripgrep reported: the file's name as rg wrote it, the line's number, its text.
Reported = tuple[bytes, int, bytes]
# One line kept: the name as the model sees it (no `./`), the number, the text.
Confirmed = tuple[str, int, str]

_CHUNK = 64 * 1024


def reported_lines(output: bytes) -> Iterator[Reported]:
    """The `NAME\\0NUMBER:TEXT` records of `rg --null --line-number
    --with-filename` output, in its order; anything else (a line cut by an
    output cap, a message) is passed over."""
    for record in output.split(b"\n"):
        name, nul, rest = record.partition(b"\0")
        number, colon, text = rest.partition(b":")
        if nul and colon and number.isdigit() and int(number) > 0:
            yield name, int(number), text


def confirmed_lines(
    reported: Iterable[Reported],
    cwd: str,
    refused_name: Callable[[str], bool],
    is_secret_opened: Callable[[int], bool],
    stop: threading.Event,
    cap: int,
) -> Iterator[Confirmed]:
    """The reported lines Luxe's own read of their file confirms, in their
    order. A file whose shown name `refused_name` refuses is not opened;
    one whose descriptor is a secret file, or that is missing, unreadable
    or not a regular file, keeps no line. Stops at the next file once
    `stop` is set."""
    for raw_name, group in itertools.groupby(reported, key=lambda line: line[0]):
        if stop.is_set():
            return
        # The root is named `.` (never an option-looking word): rg then
        # prefixes every name with `./`, which the model need not see.
        name = raw_name.decode("utf-8", "replace").removeprefix("./")
        if refused_name(name):
            continue
        lines = list(group)
        path = os.path.join(cwd, os.fsdecode(raw_name))
        data = _read_by_luxe(path, max(number for _, number, _ in lines), is_secret_opened, cap)
        if data is None:
            continue  # a secret by its descriptor, or not a file to read
        found = data.lines_at(number for _, number, _ in lines)
        for (_, number, text), held in zip(lines, found, strict=True):
            if held == text:
                yield name, number, _shown_text(text)


class _Read:
    """What Luxe read of a file, and for each chunk read, where it starts
    and how many newlines come before it: a line is then found from its
    chunk or from the line found before it, never by counting from the
    file's start again."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.starts: list[int] = []
        self.newlines_before: list[int] = []
        self.size = self.newlines = 0

    def add(self, chunk: bytes) -> None:
        self.chunks.append(chunk)
        self.starts.append(self.size)
        self.newlines_before.append(self.newlines)
        self.size += len(chunk)
        self.newlines += chunk.count(b"\n")

    def lines_at(self, numbers: Iterable[int]) -> Iterator[bytes | None]:
        """The text of each line that `numbers` (from 1, ascending as
        ripgrep reports them) name, lines ending at `\\n` as ripgrep numbers
        them; None past what was read. Each is found from the line before
        it or from its chunk, whichever is nearer."""
        data = b"".join(self.chunks)
        previous = (0, 0)  # the last line found: newlines before it, its start
        for number in numbers:
            here = self._chunk_before(number - 1)
            if here[1] < previous[1] and previous[0] <= number - 1:
                here = previous
            start = _skip_lines(data, here[1], number - 1 - here[0])
            if start is None:
                yield None
                continue
            previous = (number - 1, start)
            end = data.find(b"\n", start)
            yield data[start : len(data) if end < 0 else end]

    def _chunk_before(self, newlines: int) -> tuple[int, int]:
        """The last chunk with fewer than `newlines` newlines before it, as
        (those newlines, its start); (0, 0), the file's start, when none."""
        index = bisect.bisect_left(self.newlines_before, newlines) - 1
        return (self.newlines_before[index], self.starts[index]) if index >= 0 else (0, 0)


def _read_by_luxe(
    path: str, upto: int, is_secret_opened: Callable[[int], bool], cap: int
) -> _Read | None:
    """The regular file `path` as far as line `upto` and at most `cap`
    bytes, read through the one descriptor judged; None when that
    descriptor is a secret file, or the file is missing, unreadable or not
    a regular file."""
    try:
        with open_regular(path) as f:
            if is_secret_opened(f.fileno()):
                return None
            return _read_through_line(f, upto, cap)
    except (OSError, ValueError):
        return None


def _read_through_line(f: BinaryIO, upto: int, cap: int) -> _Read:
    """`f` read until it holds `upto` whole lines, its end or `cap` bytes."""
    read = _Read()
    while read.newlines < upto and read.size < cap:
        chunk = f.read(min(_CHUNK, cap - read.size))
        if not chunk:
            break
        read.add(chunk)
    return read


def _skip_lines(data: bytes, offset: int, count: int) -> int | None:
    """Where `data` goes on after the `count`th newline from `offset` (at
    `offset` for none), or None when it ends first."""
    for _ in range(count):
        end = data.find(b"\n", offset)
        if end < 0:
            return None
        offset = end + 1
    return offset


def _shown_text(text: bytes) -> str:
    """A line's text as the model reads it: decoded, a CRLF file's `\\r`
    dropped (as Luxe's own search drops it)."""
    return text.removesuffix(b"\r").decode("utf-8", "replace")
