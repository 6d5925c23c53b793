"""Diff files, plain text, and files that cannot be shown as text.

Pure. `.diff`/`.patch` lines are coloured by their prefix and pre-formatted;
plain text is word-wrapped. `read_text` decides whether a file's bytes can be
shown and, if not, gives the reason the pane and the open warning use.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from laura.filecheck import DEFAULT_MAX_FILE_BYTES, NotRegularFile, read_capped
from laura.render import theme
from laura.render.code import CHUNK, TAB, source_lines
from laura.render.lines import Block, Line
from laura.render.style import PLAIN, Span, Style

SNIFF = 8192  # bytes looked at for NULs when deciding "binary"
MOSTLY_NOT_TEXT = 0.3  # share of undecodable characters in the head that means binary


def diff_style(line: str) -> Style:
    """The colour of one line of a unified diff, by its prefix."""
    if line.startswith(("+++", "---", "diff ", "index ")):
        return theme.DIFF_META
    if line.startswith("@@"):
        return theme.DIFF_HUNK
    if line.startswith("+"):
        return theme.DIFF_ADDED
    if line.startswith("-"):
        return theme.DIFF_REMOVED
    return PLAIN


def diff_line(raw: str, number: int) -> Line:
    """Line `number` of a `.diff`/`.patch` file: pre-formatted, coloured by prefix."""
    shown = raw.expandtabs(TAB)
    return Line((Span(shown, diff_style(raw)),) if shown else (), (number, number), pre=True)


def plain_blocks(text: str) -> Iterator[Block]:
    """Plain text: each source line word-wraps; leading indentation stays
    on its first row."""
    return plain_line_blocks(source_lines(text))


def plain_line_blocks(source: Sequence[str]) -> Iterator[Block]:
    """`plain_blocks` over lines already split."""
    for start, chunk in _line_chunks(source):
        lines = [plain_line(raw, start + i) for i, raw in enumerate(chunk)]
        yield Block(tuple(lines), start, start + len(chunk) - 1)


def plain_line(raw: str, number: int) -> Line:
    """Line `number` of plain text: it word-wraps, tabs expanded."""
    return Line((Span(raw.expandtabs(TAB) if "\t" in raw else raw),) if raw else (), (number, number))


# The most characters of plain text in one block (one step of layout on
# the UI loop), whatever its line count: 64 lines of 64 KiB laid out at once
# held keys for half a second.
BLOCK_CHARS = 64 << 10


def _line_chunks(lines: Sequence[str]) -> Iterator[tuple[int, Sequence[str]]]:
    """CHUNK lines at a time, or fewer when they hold over BLOCK_CHARS."""
    at = 0
    while at < len(lines):
        stop, chars = at, 0
        while stop < len(lines) and stop - at < CHUNK and (chars <= BLOCK_CHARS or stop == at):
            chars += len(lines[stop])
            stop += 1
        yield at + 1, lines[at:stop]
        at = stop


def os_error_text(error: OSError) -> str:
    """`No such file or directory (os error 2)`: the OS's words and number."""
    if error.errno is None:
        return str(error)
    return f"{error.strerror or error} (os error {error.errno})"


def looks_binary(data: bytes) -> bool:
    """NUL bytes near the start, as git and grep decide."""
    return b"\0" in data[:SNIFF]


def read_text(path: str | Path, cap: int = DEFAULT_MAX_FILE_BYTES) -> tuple[str | None, str | None]:
    """(text, None) for a file that can be shown, else (None, reason).

    Only a regular file is read (anything else is refused naming its type,
    `is a FIFO`), and at most `cap` bytes of it.

    The reason completes "cannot read PATH: REASON" (the open warning) and
    the pane's message: the OS error's text with its number, or "binary
    file" (a NUL in the first 8 KiB, or a head that is mostly not UTF-8).
    Text in another 8-bit encoding is shown, its stray bytes as U+FFFD.
    """
    try:
        data = read_capped(str(path), cap).data
    except NotRegularFile as refused:
        return None, str(refused)
    except OSError as error:
        return None, os_error_text(error)
    return decode_text(data)


def decode_text(data: bytes) -> tuple[str | None, str | None]:
    """`read_text`'s decision on bytes already read."""
    if looks_binary(data):
        return None, "binary file"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    head = data[:SNIFF].decode("utf-8", errors="replace")
    if head.count("\ufffd") > len(head) * MOSTLY_NOT_TEXT:
        return None, "binary file"
    return data.decode("utf-8", errors="replace"), None


def cannot_read_warning(path: str, reason: str) -> str:
    return f"cannot read {path}: {reason}"


def notice_blocks(message: str) -> Iterator[Block]:
    """One dim message row standing for no source line ("loading…")."""
    yield Block((Line((Span(message, theme.NOTICE),), None),), 1, 0)


def cannot_read_blocks(path: str, reason: str) -> Iterator[Block]:
    """What the pane shows instead of an unreadable file (no source lines)."""
    message = f"Couldn't read this file — {reason}. Check the path."
    yield Block((Line((Span(message, theme.ERROR),), None),), 1, 0)
