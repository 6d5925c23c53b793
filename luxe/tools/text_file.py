"""Reading a text file for the file tools: a whole file (edit, which writes
it back) or a window of its lines (read), never more than a cap in memory;
and writing one (write, edit), the file opened judged before it changes.
Edit opens its file once, for reading and writing, and writes back through
the descriptor it read: a name swapped in between cannot make it write a
text computed from one file into another.

A path the model names may be a FIFO, a device or a symlink to one: it is
opened only if it is a regular file (luxe.regular_file), and, when the
caller gives `is_secret` (the gate's `is_secret_opened`), the file opened
is judged a secret or not by its descriptor before a byte of it is read:
the gate judged the path, and the path may name another file by now. Binary or text is the rule Laura's file panes use
(laura/render/diff.py): a NUL in the head, or a head mostly not UTF-8, is
binary; any other file is text, its stray bytes (Latin-1 and other 8-bit
encodings) shown as U+FFFD and counted. Lines are cut at `\\n` (a `\\r`
before it is dropped), as grep and editors number them. Pure I/O,
synchronous: the callers' caps bound what is kept, and `line_window`,
whose skip to an offset reads as far as the file goes, stops when its
`stop` event is set (read runs it in a worker thread).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from luxe.engine.tooling import ToolError, secret_opened
from luxe.record import record
from luxe.regular_file import (
    NotRegularFile,
    open_regular,
    open_regular_to_edit,
    open_regular_to_write,
)

SNIFF_BYTES = 8192
MOSTLY_NOT_TEXT = 0.3
REPLACEMENT = "\ufffd"
# Counting the lines after a window reads on this far at most.
COUNT_MAX_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 16


# Whether the file open on a descriptor is a secret (the gate's is_secret_opened).
SecretCheck = Callable[[int], bool]


def open_text_file(
    path: Path, name: str, is_secret: SecretCheck | None = None, *, to_edit: bool = False
) -> BinaryIO:
    """`path` open for reading (luxe.regular_file), or with `to_edit` for
    reading and writing (an existing file only); a ToolError for a
    directory, a missing or unreadable (with `to_edit`, unwritable) file,
    anything that is not a regular file, and a file `is_secret` says is a
    secret."""
    if path.is_dir():
        raise ToolError(f"{name} is a directory; use ls to list it")
    try:
        f = open_regular_to_edit(path) if to_edit else open_regular(path)
    except NotRegularFile:
        raise ToolError(f"{name} is not a regular file (a pipe, socket or device)") from None
    except FileNotFoundError:
        raise ToolError(f"{name} does not exist") from None
    except OSError as exc:
        raise ToolError(f"cannot {'write' if to_edit else 'read'} {name}: {exc.strerror}") from None
    if is_secret is not None and is_secret(f.fileno()):
        f.close()
        raise ToolError(secret_opened(name))
    return f


def write_text_file(path: Path, name: str, text: str, is_secret: SecretCheck) -> None:
    """`text` as the whole of the file `path` (created if missing); a
    ToolError, with the file unchanged, when what is open there by then is
    not a regular file (a FIFO's open waited for a reader for good, on the
    event loop) or is a secret file (a name swapped after the gate's check)."""
    try:
        with open_regular_to_write(path) as f:
            if is_secret(f.fileno()):
                raise ToolError(secret_opened(name))
            rewrite(f, name, text)
    except NotRegularFile:
        raise ToolError(f"{name} is not a regular file (a pipe, socket or device)") from None
    except OSError as exc:
        raise ToolError(f"cannot write {name}: {exc.strerror}") from None


def rewrite(f: BinaryIO, name: str, text: str) -> None:
    """`text` as the whole of the file open (for writing) on `f`, flushed."""
    try:
        f.seek(0)
        f.truncate(0)
        f.write(text.encode("utf-8"))
        f.flush()
    except OSError as exc:
        raise ToolError(f"cannot write {name}: {exc.strerror}") from None


def _refuse_binary(head: bytes, name: str) -> None:
    if b"\0" in head:
        raise ToolError(f"{name} is a binary file; read only shows text")
    text = head.decode("utf-8", "replace")
    if text.count(REPLACEMENT) > len(text) * MOSTLY_NOT_TEXT:
        raise ToolError(f"{name} is a binary file (mostly not UTF-8 text); read only shows text")


def _decode(data: bytes, cut: bool) -> tuple[str, int]:
    """`data` as text and how many of its bytes were not UTF-8; a character
    split by a cut at its end is dropped, not counted."""
    text = data.decode("utf-8", "replace")
    if cut:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start >= len(data) - 4 and exc.reason == "unexpected end of data":
                data = data[: exc.start]
                text = data.decode("utf-8", "replace")
    return text, text.count(REPLACEMENT) - data.count(REPLACEMENT.encode("utf-8"))


def read_whole(f: BinaryIO, name: str, cap: int) -> tuple[str, int, bool]:
    """The text of the file open (and judged) on `f`, at most `cap` bytes of
    it, how many of its bytes were not UTF-8, and whether there was more."""
    data = f.read(cap + 1)
    _refuse_binary(data[:SNIFF_BYTES], name)
    cut = len(data) > cap
    text, replaced = _decode(data[:cap], cut)
    return text, replaced, cut


@record
class Window:
    """Lines `first`.. of a file, as read."""

    text: str  # the lines taken, each ended by "\n" but maybe the last
    first: int  # 1-based number of the first line taken
    count: int  # lines taken (a line cut by the byte cap counts)
    replaced: int  # bytes of them that were not UTF-8
    cut: bool  # the byte cap ended the window inside the file
    partial: bool  # ...inside its last line, which is shown in part
    lines_before: int  # lines of the file before `first` (all of them past the end)
    lines_after: int | None  # lines after the window (None: not counted, too far)


def line_window(
    path: Path, name: str, first: int, limit: int, cap: int,
    stop: threading.Event | None = None, is_secret: SecretCheck | None = None,
) -> Window:  # fmt: skip
    """Up to `limit` lines from line `first` on, at most `cap` bytes of them
    (a window ended by the cap says `cut`); the lines after are counted up
    to COUNT_MAX_BYTES further. Once `stop` is set the skip to `first` ends
    (the window is then meaningless: its caller has gone)."""
    stop = stop or threading.Event()
    taken: list[bytes] = []
    size = 0
    number = 0  # whole lines passed
    cut = partial = False
    with open_text_file(path, name, is_secret) as f:
        _refuse_binary(f.read(SNIFF_BYTES), name)
        f.seek(0)
        while number < first - 1 and _skip_line(f, stop):
            number += 1
        while len(taken) < limit and not cut:
            line = f.readline(cap - size + 1)
            if not line:
                break
            if len(line) > cap - size:
                line, cut = line[: cap - size], True
                if not line:
                    break
                partial = True
            taken.append(line)
            size += len(line)
        after = None if cut else _count_lines(f)
    text, replaced = _decode(b"".join(taken), cut)
    return Window(text, first, len(taken), replaced, cut, partial, number, after)


def _skip_line(f: BinaryIO, stop: threading.Event) -> bool:
    """Past one line, however long (a sparse file may hold a line of a
    terabyte); False at the end of the file or once `stop` is set."""
    part = f.readline(_CHUNK)
    if not part:
        return False
    while not part.endswith(b"\n") and (part := f.readline(_CHUNK)):
        if stop.is_set():
            return False
    return not stop.is_set()


def _count_lines(f: BinaryIO) -> int | None:
    """Lines from here to the end (a last line without `\\n` counts), or
    None past COUNT_MAX_BYTES."""
    count = 0
    read = 0
    last = b"\n"
    while read <= COUNT_MAX_BYTES:
        chunk = f.read(_CHUNK)
        if not chunk:
            return count + (last != b"\n")
        count += chunk.count(b"\n")
        read += len(chunk)
        last = chunk[-1:]
    return None
