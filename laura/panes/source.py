"""Loading a file pane's content, and running big loads off the UI loop.

`load_source(path, cap)` loads at once: refuse what is not a regular file
(naming its type), read at most `cap` bytes (cut back to the last whole
line), decode, clean for display and split into lines. `Loader.load` does
the same without holding the loop: the read in a worker thread (the disk
wait frees the interpreter), then `prepare`'s steps — a 32 KiB piece each,
about a millisecond — on the loop between keys and frames (threads would
contend for the interpreter and make every key wait), and markdown's
first parse pass in a thread. A file past its `parse_limit` is shown as plain
text: no parser or lexer runs over it. A reload of a plain-text file that
still begins with the bytes a load covered (`Cover`: a log that grew)
decodes only the rest (`Loaded.joined` puts the lines together).

`Loader` is what a tab hands its panes. With a nursery attached (the host)
it runs a pane's jobs as tasks in the tab's nursery and calls `on_change`
when one lands; without one (a `Tab` driven directly by tests)
`in_background` is False and panes do the work inline. Files up to
INLINE_LIMIT (markdown: MARKDOWN_INLINE_LIMIT) always load inline: a few
milliseconds, and a request right after an edit sees the new content.

Cancellation: a job is cancelled with the tab's nursery; a worker thread is
abandoned (it finishes on its own, its result dropped), so a signal or a
closed tab never waits for a read.
"""

from __future__ import annotations

import codecs
import hashlib
import itertools
import os
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import attrs
import trio
import trio.lowlevel

from laura import memory
from laura.filecheck import (
    DEFAULT_MAX_FILE_BYTES,
    Capped,
    NotRegularFile,
    human_size,
    read_capped,
)
from laura.panes.read_budget import ReadBudget
from laura.realpath import real_path
from laura.render.diff import looks_binary, os_error_text
from laura.render.document import MARKDOWN, PLAIN_TEXT, Document, displayable, kind_of
from laura.render.line_store import LineStore
from laura.steps import Steps, drive, run_steps

# How long after a pane closes its freed memory is given back (its jobs
# stop at their next step, a few milliseconds; a burst of closes waits once).
GIVE_BACK_DELAY = 0.5
# Files up to this many bytes load inline on the UI loop.
INLINE_LIMIT = 1 << 20
# Markdown's parser sets out the whole text before its first block (120 ms
# a megabyte), and parses all of it first when links may use definitions
# at its end (120 KB of list items: 0.34-0.44 s): a bigger markdown file
# loads in the background (16 KiB of list items with a definition, 50 ms).
MARKDOWN_INLINE_LIMIT = 16 << 10
# Bigger files are shown as plain text (no markdown parser or lexer over them).
PARSE_LIMIT = 8 << 20
# ... and bigger markdown files: a megabyte of one-line paragraphs is
# 700,000 lines, 9 s of steps to lay out to its end (and as long again at
# each other width the pane takes).
MARKDOWN_PARSE_LIMIT = 1 << 20
# Bytes decoded, cleaned and split per step of a background load.
PIECE = 32 << 10
# Lines compared per step when a reload asks whether a file only grew.
GREW_STEP_LINES = 20_000
LOADING = "loading…"
CLOSED = "closed"
# Bytes that `displayable` leaves alone (TAB, LF, printable ASCII, and all
# of UTF-8's multi-byte range); a piece of only these skips it (8x faster).
_CLEAN = bytes([0x09, 0x0A, *range(0x20, 0x7F), *range(0x80, 0x100)])
_SNIFF = 8192
NEWLINE = 0x0A
_MOSTLY_NOT_TEXT = 0.3

T = TypeVar("T")


class Loaded:
    """A pane's content: a `document` ready to lay out (its `lines` are the
    decoded, cleaned source lines), or `error` (why it cannot be shown);
    `size` is the file's real size. A big file's text is held once: its
    lines are a `LineStore` of the pieces it was decoded in. `cover`: the bytes a
    plain-text load was made of, which a reload of a file that only grew
    (a log) need not decode again. `continues`: the document of the load
    such a reload continues; `document` then holds only the lines added,
    and `joined` makes the whole."""

    def __init__(
        self,
        error: str | None,
        document: Document,
        size: int,
        cover: Cover | None = None,
        *,
        continues: Document | None = None,
    ) -> None:
        self.error = error
        self.document = document
        self.size = size
        self.cover = cover
        self.continues = continues

    @property
    def grown(self) -> bool:
        """Whether this load continues another (a file that only grew)."""
        return self.continues is not None

    def joined(self) -> Loaded:
        """This load made whole: the lines it continues, then the lines it
        added (the pieces are shared, not copied: a store of a million lines
        joins in microseconds, and the document it continues keeps its own)."""
        if self.continues is None:
            return self
        lines = self.continues.lines.joined(self.document.lines)
        document = Document(self.document.name, "", lines=lines, kind=PLAIN_TEXT)
        return Loaded(None, document, self.size, self.cover)


@attrs.frozen
class Cover:
    """How many bytes a load's lines were made of, ending a line, and their
    digest."""

    length: int
    digest: bytes

    @staticmethod
    def of(data: memoryview, digest: bytes | None) -> Cover | None:
        """`data`'s cover, or None when its last line is unfinished (more
        bytes could continue it) or there is no digest."""
        if digest is None or (len(data) and data[-1] != NEWLINE):
            return None
        return Cover(len(data), digest)


def digest_and_continued(data: memoryview, cover: Cover | None) -> tuple[bytes, bool]:
    """`data`'s digest, and whether it begins with the bytes `cover` covers,
    in one pass (hashlib lets go of the interpreter while it hashes: run it
    in a worker thread). SHA-256 is the fastest of hashlib's here (CPUs
    hash it natively: 1 GB/s, BLAKE2b 0.4)."""
    digest = hashlib.sha256()
    continued = False
    if cover is not None and len(data) >= cover.length:
        digest.update(data[: cover.length])
        continued = digest.copy().digest() == cover.digest
        data = data[cover.length :]
    digest.update(data)
    return digest.digest(), continued


def file_size(path: str) -> int:
    """The size `stat` reports (0 when it cannot be stat'ed)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def cap_warning(shown: str, size: int, cap: int, file_cap: int, open_total: int) -> str | None:
    """The warning for a file over the pane's `cap`, or None; says which
    limit it is: the one file's (`file_cap`) or what the open panes share
    (`open_total`)."""
    if size <= cap:
        return None
    why = (
        "max_file_bytes in laura/settings.json"
        if cap >= file_cap
        else f"the open panes share max_open_bytes, {human_size(open_total)}, in laura/settings.json"
    )
    return f"{shown} is {human_size(size)}: showing its first {human_size(cap)} ({why})"


def parse_limit(path: str) -> int:
    """The size past which the file at `path` is shown as plain text."""
    return _parse_limit_of(kind_of(path))


def _parse_limit_of(kind: str) -> int:
    return MARKDOWN_PARSE_LIMIT if kind == MARKDOWN else PARSE_LIMIT


def shown_plain(path: str, size: int, cap: int) -> bool:
    """Whether a markdown, code or diff file is shown as plain text because
    what is read of it is past its `parse_limit` (see `prepare`)."""
    kind = kind_of(path)
    return kind != PLAIN_TEXT and min(size, cap) > _parse_limit_of(kind)


def plain_warning(path: str, shown: str, size: int, cap: int) -> str | None:
    """The warning for a file `shown_plain`, or None."""
    if not shown_plain(path, size, cap):
        return None
    kind = kind_of(path)
    return (
        f"{shown} is {human_size(size)}: shown as plain text"
        f" (no {'markdown layout' if kind == MARKDOWN else 'colours'}"
        f" past {human_size(_parse_limit_of(kind))})"
    )


def _pieces(data: memoryview) -> Iterator[tuple[memoryview, bool]]:
    """`data` in pieces of about PIECE bytes, and whether each ends a line.
    A piece ends after a newline when one is near (a newline byte is never
    inside a UTF-8 sequence, and cleaning for display and splitting into
    lines are line-local, so such a piece is done alone). A line longer than
    a piece (a minified bundle, a log of one line) is cut inside, at the
    start of a character, into pieces that do not end it."""
    start = 0
    while start < len(data):
        stop = start + PIECE
        if stop >= len(data):
            yield data[start:], True
            return
        ahead = bytes(data[stop : stop + PIECE]).find(b"\n")
        if ahead >= 0:
            stop += ahead + 1
            whole = True
        elif (behind := bytes(data[start:stop]).rfind(b"\n")) >= 0:
            stop = start + behind + 1
            whole = True
        else:
            for _ in range(3):  # back to the first byte of a UTF-8 sequence
                if data[stop] & 0xC0 != 0x80:
                    break
                stop -= 1
            whole = False
        yield data[start:stop], whole
        start = stop


def _is_binary(data: memoryview) -> bool:
    """`read_text`'s rule: a NUL in the head, or a head mostly not UTF-8."""
    head = bytes(data[:_SNIFF])
    if looks_binary(head):
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 4:  # not just a sequence cut at the sniff's end
            text = head.decode("utf-8", errors="replace")
            return text.count("\ufffd") > len(text) * _MOSTLY_NOT_TEXT
    return False


def prepare(
    path: str, capped: Capped, digest: bytes | None = None, previous: Loaded | None = None
) -> Steps[Loaded]:
    """Decode, clean and split `capped` into a Loaded, a piece (PIECE bytes,
    a few milliseconds) per step: the caller drives it to the end at once
    (`load_source`) or between other work (`laura.steps.drive`). `digest`
    (of `usable(capped)`) lets a later load continue this one. With
    `previous`, whose bytes `capped` begins with (`digest_and_continued`),
    only the bytes after them are decoded: a Loaded that continues it."""
    data = usable(capped)
    if previous is not None and previous.cover is not None:
        added = yield from _decoded_lines(data[previous.cover.length :])
        document = Document(path, "", lines=added, kind=PLAIN_TEXT)
        cover = Cover.of(data, digest)
        return Loaded(None, document, capped.size, cover, continues=previous.document)
    if _is_binary(data):
        return unreadable(path, "binary file", capped.size)
    yield
    # A big file is shown as plain text: running a parser (markdown, a
    # lexer) over it would hold the UI, and joining it would too. Only
    # markdown's parser reads the whole text; other kinds keep just lines.
    big = len(data) > parse_limit(path)
    parts: list[str] | None = [] if kind_of(path) == MARKDOWN and not big else None
    lines = yield from _decoded_lines(data, parts)
    document = Document(path, "".join(parts or ()), lines=lines, kind=PLAIN_TEXT if big else None)
    cover = Cover.of(data, digest) if document.kind == PLAIN_TEXT else None
    return Loaded(None, document, capped.size, cover)


def usable(capped: Capped) -> memoryview:
    """What a load shows of `capped`: all of it, or when the file was cut at
    the cap, up to its last whole line."""
    end = capped.length
    if capped.truncated:
        end = capped.buffer.rfind(b"\n", 0, capped.length) + 1 or end
    return capped.view()[:end]


def _decoded_lines(data: memoryview, parts: list[str] | None = None) -> Steps[LineStore]:
    """`data` decoded (UTF-8, else with U+FFFD for what is not), cleaned for
    display and split into lines, a piece per step; the text in `parts`."""
    for errors in ("strict", "replace"):  # text in another 8-bit encoding: U+FFFD
        texts: list[str] | None = None if parts is None else []
        lines = LineStore()
        # The pieces of a line longer than a piece, decoded, until its end:
        # cleaning is per line (a CR drops what came before it in the line).
        pending: list[str] = []
        dirty = False
        try:
            for piece, ends_line in _pieces(data):
                raw = bytes(piece)
                pending.append(codecs.decode(raw, "utf-8", errors))
                dirty = dirty or bool(raw.translate(None, _CLEAN))  # a control, CR or ESC
                if not ends_line:
                    yield
                    continue
                if len(pending) > 1 and not dirty:
                    # The end of a long line: joined once, and the rest of
                    # the piece split on its own (splitting the whole would
                    # copy the long line again).
                    head, _, rest = pending[-1].partition("\n")
                    long_line = "".join([*pending[:-1], head])
                    if texts is not None:
                        texts.extend((long_line, "\n", rest))
                    lines.add_line(long_line)
                    lines.add_text(rest)
                else:
                    part = "".join(pending)
                    if dirty:
                        part = displayable(part)
                    if texts is not None:
                        texts.append(part)
                    lines.add_text(part)
                pending, dirty = [], False
                yield
        except UnicodeDecodeError:
            continue
        if parts is not None and texts is not None:
            parts.extend(texts)
        return lines
    raise AssertionError("decoding with errors='replace' cannot fail")


def lines_grew(old: Document, new: Document) -> Steps[bool]:
    """Whether `new` is plain text whose lines begin with all of `old`'s
    (a log that grew), compared in steps: a million lines took 80 ms."""
    kept = len(old.lines)
    if not kept or new.kind != PLAIN_TEXT or new.notice is not None or len(new.lines) < kept:
        return False
    for start in range(0, kept, GREW_STEP_LINES):
        end = min(kept, start + GREW_STEP_LINES)
        if new.lines[start:end] != old.lines[start:end]:
            return False
        yield
    return True


def _read(path: str, cap: int) -> Capped | Loaded:
    try:
        return read_capped(path, cap)
    except NotRegularFile as refused:
        return unreadable(path, str(refused))
    except OSError as error:
        return unreadable(path, os_error_text(error))


def _read_covered(
    path: str, cap: int, previous: Loaded | None
) -> Loaded | tuple[Capped, bytes | None, bool]:
    """In a worker thread: `_read`, the digest of what a plain-text load
    would show of it, and whether it begins with `previous`'s bytes."""
    capped = _read(path, cap)
    if isinstance(capped, Loaded):
        return capped
    data = usable(capped)
    if kind_of(path) != PLAIN_TEXT and len(data) <= parse_limit(path):
        return capped, None, False
    return capped, *digest_and_continued(data, None if previous is None else previous.cover)


def loads_inline(path: str, size: int) -> bool:
    """Whether a file of `size` bytes at `path` is loaded at once (see
    INLINE_LIMIT and MARKDOWN_INLINE_LIMIT)."""
    return size <= (MARKDOWN_INLINE_LIMIT if kind_of(path) == MARKDOWN else INLINE_LIMIT)


def load_source(path: str, cap: int = DEFAULT_MAX_FILE_BYTES) -> Loaded:
    """Read and prepare `path` at once (blocking; for small files)."""
    capped = _read(path, cap)
    if isinstance(capped, Loaded):
        return capped
    return run_steps(prepare(path, capped))


def _prime(document: Document) -> None:
    next(iter(document.blocks()), None)


def unreadable(path: str, reason: str, size: int = 0) -> Loaded:
    return Loaded(reason, Document(path, "", unreadable=reason), size)


def loading(path: str) -> Loaded:
    """What a pane holds until its load lands: one "loading…" row."""
    return Loaded(None, Document(path, "", notice=LOADING), 0)


def closed(path: str) -> Loaded:
    """What a closed pane holds: nothing of its file."""
    return Loaded(None, Document(path, "", notice=CLOSED), 0)


class Loader:
    """Runs panes' jobs for one tab (see the module docstring)."""

    def __init__(self, cap: int = DEFAULT_MAX_FILE_BYTES, budget: ReadBudget | None = None) -> None:
        self.cap = cap  # the most one pane reads of a file
        # What all panes read together: the host shares one across its tabs.
        self.budget = ReadBudget() if budget is None else budget
        self.on_change: Callable[[], None] = lambda: None
        self._nursery: trio.Nursery | None = None
        self._offered: dict[str, Any] = {}
        self._giving_back = False

    def attach(self, nursery: trio.Nursery, on_change: Callable[[], None]) -> None:
        """From now on jobs run as tasks in `nursery` (the tab's)."""
        self._nursery = nursery
        self.on_change = on_change

    def detach(self) -> None:
        """The tab's nursery has closed: no more jobs (a pane closed now
        leaves its memory to the tab's own give-back)."""
        self._nursery = None

    @property
    def in_background(self) -> bool:
        return self._nursery is not None

    def start(self, job: Callable[[], Awaitable[None]]) -> None:
        assert self._nursery is not None, "start() needs an attached nursery"
        self._nursery.start_soon(job)

    def give_back_soon(self) -> None:
        """A pane closed: once its jobs have stopped (they do at their next
        step) and what they held is freed, give the freed memory back to
        the system (laura.memory). Closes meanwhile share the one call."""
        if self._nursery is None or self._giving_back:
            return
        self._giving_back = True
        self._nursery.start_soon(self._give_back)

    async def _give_back(self) -> None:
        try:
            await trio.sleep(GIVE_BACK_DELAY)
            memory.give_back()
        finally:
            self._giving_back = False

    async def load(self, path: str, previous: Loaded | None = None, cap: int | None = None) -> Loaded:
        """`load_source` without holding the loop: the read (and the digest
        of what it read) in a worker thread (the interpreter is free while
        it waits on the disk or hashes), the decoding and splitting here in
        steps of a few milliseconds. When the file begins with the bytes of
        `previous` (a log that grew), only the rest is decoded. At most
        `cap` bytes are read (default: the loader's per-file cap)."""
        read = await self.in_thread(_read_covered, path, self.cap if cap is None else cap, previous)
        if isinstance(read, Loaded):
            return read
        capped, digest, continued = read
        loaded = await drive(prepare(path, capped, digest, previous if continued else None))
        if loaded.document.kind == MARKDOWN:  # the parser's first pass is over the whole text
            await self.in_thread(_prime, loaded.document)
        return loaded

    async def started(self, items: Iterator[T]) -> Iterator[T]:
        """`items`, its first one made in a worker thread (a markdown parse
        sets out the whole text before its first block), the rest as the
        caller iterates."""
        first = await self.in_thread(next, items, None)
        return items if first is None else itertools.chain((first,), items)

    async def in_thread(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` in a worker thread; abandoned if cancelled."""
        return await trio.to_thread.run_sync(work, *args, abandon_on_cancel=True)

    def offer(self, path: str, value: Any) -> None:
        """A result fetched ahead of a request (git's answer for a path about
        to be opened), for the pane of that file that asks for it next."""
        self._offered[real_path(path)] = value

    def take(self, path: str) -> Any:
        return self._offered.pop(real_path(path), None) if self._offered else None

    def forget_offers(self) -> None:
        """The request has applied: what it did not take is stale."""
        self._offered.clear()
