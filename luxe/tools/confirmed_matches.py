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
far as its last reported line, and never past the cap it is given.
"""

from __future__ import annotations

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
        if nul and colon and number.isdigit():
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
        read = _lines_read_by_luxe(
            os.path.join(cwd, os.fsdecode(raw_name)), lines[-1][1], is_secret_opened, cap
        )
        for _, number, text in lines:
            if read is not None and number <= len(read) and read[number - 1] == text:
                yield name, number, _shown_text(text)


def _lines_read_by_luxe(
    path: str, upto: int, is_secret_opened: Callable[[int], bool], cap: int
) -> list[bytes] | None:
    """The lines of the regular file `path` (split at `\\n`, as ripgrep
    numbers them) as far as line `upto` and at most `cap` bytes, read
    through the one descriptor judged; None when that descriptor is a
    secret file, or the file is missing, unreadable or not a regular file."""
    try:
        with open_regular(path) as f:
            if is_secret_opened(f.fileno()):
                return None
            return _read_through_line(f, upto, cap).split(b"\n")
    except (OSError, ValueError):
        return None


def _read_through_line(f: BinaryIO, upto: int, cap: int) -> bytes:
    """`f` read until it holds `upto` whole lines, its end or `cap` bytes."""
    chunks: list[bytes] = []
    size = newlines = 0
    while newlines < upto and size < cap:
        chunk = f.read(min(_CHUNK, cap - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        newlines += chunk.count(b"\n")
    return b"".join(chunks)


def _shown_text(text: bytes) -> str:
    """A line's text as the model reads it: decoded, a CRLF file's `\\r`
    dropped (as Luxe's own search drops it)."""
    return text.removesuffix(b"\r").decode("utf-8", "replace")
