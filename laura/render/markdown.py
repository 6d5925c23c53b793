"""Markdown -> logical lines that know their true source lines.

markdown-it-py's block parser is driven one top-level block at a time (its
own loop, re-stated here so it can stop), so a view pulls only the blocks it
shows; inline parsing happens when a block is rendered. Every line carries
the 1-based source range it came from:

- blank source lines between blocks get their own blank lines;
- a top-level paragraph is reflowed: a hand-wrapped one becomes one logical
  line carrying its whole range (it "folds"); hard breaks that line up with
  source lines keep one number per line;
- in lists and quotes the author's line breaks are kept, one number a line;
- fenced code is boxed, the box's top and bottom edges stand for the fence
  lines, code lines map 1:1; HTML blocks, indented code and reference
  definitions are shown as source, 1:1;
- tables are box-drawn: top border and header -> header line, rule ->
  delimiter line, each data row -> its line, bottom border -> last line.

A block is parsed, rendered and laid out in one step of the UI loop, so no
block may run on: one that would (a list of 250,000 items, a paragraph of
50,000 lines: 11 s for one megabyte) is cut into pieces of about
BLOCK_LINES lines, each cut at a line that starts at column 0 (the next
top-level item). Cutting a fence, an HTML block or a table would read its
rest as markdown, so a cut never falls inside one: it moves to the line
before it (a fence in a long quote), or, when it begins the block, past it,
up to LONG_BLOCK_LINES; one longer still ends the layout, and the rest of
the file is shown as its source, under a row that says so.

The parser reads the file WINDOW_LINES lines at a time (a block near a
window's end is parsed again in the next), and each block carries how to
make it again (`Block.again`: the same steps over a window from its first
line), so a document need not keep the blocks it made.

If rendering a block fails, that block falls back to its raw source lines.
The rendering itself is `laura.render.markdown_writer`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any

import attrs
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.token import Token

from laura.render import big_tables, theme
from laura.render.code import TAB, source_lines
from laura.render.lines import BlankLines, Block, Line
from laura.render.markdown_writer import PARSER, Writer, closing
from laura.render.style import PLAIN, Span, Style

# Lines a top-level block is parsed to before it is cut (at the next line
# at column 0, at most twice as far): fifty list items with links and code
# take some 4 ms to parse, render and lay out (a list's cut does not show).
BLOCK_LINES = 50
# Lines a fence, an HTML block or a table may take: cut, its rest would be
# read as markdown. A thousand table rows take some 10 ms to parse.
LONG_BLOCK_LINES = 1000
_UNCUT = frozenset({"fence", "html_block", "table_open", big_tables.SOURCE})
# Blank lines between or after blocks are one block with what is near them
# up to this many; a longer run is blocks of its own, this many lines each,
# held as numbers (`BlankLines`; a thousand blank rows lay out in a few
# milliseconds). A megabyte of newlines was one block of a million lines:
# 4.5 s before its first screen showed, and 460 MB held.
BLANK_RUN_LINES = 1000
# Lines the parser reads at a time (its per-line arrays cost some 100 bytes
# a line: held for the whole file until its layout reached the end, a
# megabyte of newlines kept 100 MB, one of one-line paragraphs 70).
WINDOW_LINES = 16 * 1024
# Up to this size a document with link definitions keeps the parsed blocks
# of the pass that finds them; a bigger one is parsed twice instead (the
# tokens of a megabyte of list items took 500 MB; of 64 KiB, some 30).
KEEP_PARSED_LIMIT = 64 * 1024

_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.M)
# A big document is searched for link definitions this much at a time, so
# the parse in a worker thread lets the UI loop in between (one search over
# 7 MB held the interpreter for 66 ms).
_SEARCH_PIECE = 256 * 1024


def _cut_lookahead() -> int:
    """Lines past a block's end that its cuts read (a cut looks up to
    2 * BLOCK_LINES on): what making a block again parses first."""
    return 2 * BLOCK_LINES + 2


def _longest_lookahead() -> int:
    """Lines past a block's start that any decision shaping it reads (a
    fence, an HTML block or a table that begins a piece runs up to
    LONG_BLOCK_LINES; a run of blank lines after it is measured up to
    BLANK_RUN_LINES)."""
    return LONG_BLOCK_LINES + BLANK_RUN_LINES + _cut_lookahead()


def _has_references(src: str) -> bool:
    """Whether `src` defines a link reference (`[label]: target`)."""
    if "]:" not in src:
        return False
    start = 0
    while start < len(src):  # pieces end at a newline: a definition never spans one
        end = src.find("\n", start + _SEARCH_PIECE)
        end = len(src) if end < 0 else end + 1
        if _REFERENCE.search(src, start, end):
            return True
        start = end
    return False


def top_level_blocks(
    src: str, env: dict[str, Any], offset: int = 0
) -> Iterator[tuple[int, int, list[Token] | None]]:
    """(first line, end line, tokens) per top-level block, 0-based and
    end-exclusive, parsed only as the caller iterates (markdown-it's block
    loop, stopped after each block), a long block in pieces (see the module
    docstring). Inline tokens are left unparsed. Tokens None: a fence, HTML
    block or table at the first line runs past LONG_BLOCK_LINES; nothing
    follows it. A cut never falls inside one of those: it moves to the line
    before it, or past it when it begins the block. `src` begins at line
    `offset` of the document: lines (and the tokens' maps) are counted
    from the document's start."""
    for line, end, tokens in _top_level_blocks(src, env):
        if offset and tokens is not None:
            for token in tokens:
                if token.map is not None:
                    token.map = [token.map[0] + offset, token.map[1] + offset]
        yield line + offset, end + offset, tokens


def _top_level_blocks(src: str, env: dict[str, Any]) -> Iterator[tuple[int, int, list[Token] | None]]:
    if not src:
        return
    state = StateBlock(src, PARSER, env, [])
    rules = PARSER.block.ruler.getRules("")
    line, end = state.line, state.lineMax
    while line < end:
        line = state.skipEmptyLines(line)
        if line >= end:
            return
        stop = _cut(state, line, end)
        tokens = _parse_block(state, rules, line, stop)
        for _ in range(2):  # a cut inside a fence, an HTML block or a table moves
            inside = _cut_inside(tokens, stop) if stop < end and state.line >= stop else None
            if inside is None:
                break
            if inside > line:  # to just before it (a fence in a long quote)
                stop = inside
            elif stop < min(end, line + LONG_BLOCK_LINES):  # it begins the block: past it
                stop = min(end, line + LONG_BLOCK_LINES)
            else:  # longer than any may be
                yield line, end, None
                return
            tokens = _parse_block(state, rules, line, stop)
        yield line, state.line, tokens
        line = state.line


def _cut(state: StateBlock, line: int, end: int) -> int:
    """Where a block starting at `line` is cut: the first line at column 0
    at least BLOCK_LINES on, at most twice that far (or `end`)."""
    if line + BLOCK_LINES >= end:
        return end
    hard = min(end, line + 2 * BLOCK_LINES)
    for at in range(line + BLOCK_LINES, hard):
        if state.sCount[at] == 0 and not state.isEmpty(at):
            return at
    return hard


def _cut_inside(tokens: list[Token], stop: int) -> int | None:
    """The first line of the fence, HTML block or table (at any depth: a
    fence in a long quote) that a block cut at line `stop` was cut inside,
    or None. Cut there, its rest would be read as markdown, and what
    follows it as code."""
    for token in tokens:
        if token.map is None or token.map[1] < stop or token.type not in _UNCUT:
            continue
        first, after = token.map
        if token.type != "fence" or after - first == token.content.count("\n") + 1:
            return first  # (a fence with no closing line runs on)
    return None


def _parse_block(state: StateBlock, rules: list[Any], line: int, stop: int) -> list[Token]:
    """The tokens of the block at `line`, parsed as if the text ended at
    `stop` (the paragraph rule reads the end from `lineMax`); `state.line`
    is left after it."""
    state.tokens = []
    state.line = line
    saved, state.lineMax = state.lineMax, stop
    try:
        for rule in rules:
            if rule(state, line, stop, False):
                break
        else:  # the paragraph rule always matches; guard against a loop anyway
            state.line = line + 1
    finally:
        state.lineMax = saved
    return state.tokens


def _stand_ins(tokens: Sequence[Token], lo: int, hi: int) -> tuple[Line, ...] | None:
    """For a top-level fence or table: unstyled lines with the sources and
    `first` flags `_Writer` will give it (see `fence` and `table`), without
    highlighting code or parsing cells. None for any other block."""
    if not tokens or closing(tokens, 0) != len(tokens) - 1:
        return None
    opener = tokens[0]
    sources: list[tuple[tuple[int, int] | None, bool]]
    if opener.type == "fence":
        count = len(source_lines(opener.content))
        sources = [((lo + 1, lo + 1), True)]
        sources += [((lo + k + 2, lo + k + 2), True) for k in range(count)]
        sources.append(((hi, hi), True) if lo + count + 1 < hi else (None, True))
    elif opener.type == "table_open":
        rows = [(t.map or [0])[0] + 1 for t in tokens if t.type == "tr_open"]
        if not rows:
            return None
        head = rows[0]
        last = rows[-1] if len(rows) > 1 else head + 1
        sources = [((head, head), False), ((head, head), True), ((head + 1, head + 1), True)]
        sources += [((line, line), True) for line in rows[1:]]
        sources.append(((last, last), False))
    else:
        return None
    return tuple(Line((), source, pre=True, first=first) for source, first in sources)


def _render_block(
    src_lines: Sequence[str], env: dict[str, Any], tokens: Sequence[Token], lo: int, hi: int
) -> tuple[Line, ...]:
    writer = Writer(src_lines, env)
    try:
        writer.walk(tokens, lo, hi)
    except Exception:  # a renderer bug must not lose the file: show source
        return tuple(_raw(src_lines, lo, hi))
    return tuple(writer.out)


def _raw(src_lines: Sequence[str], lo: int, hi: int) -> list[Line]:
    """A block that failed to render, shown as its source."""
    return _as_source(src_lines, lo, hi, PLAIN)


def _as_source(src_lines: Sequence[str], lo: int, hi: int, style: Style) -> list[Line]:
    return [
        Line(
            (Span(src_lines[n].expandtabs(TAB), style),) if src_lines[n] else (),
            (n + 1, n + 1),
            pre=True,
        )
        for n in range(lo, min(hi, len(src_lines)))
    ]


def _rest_as_source(src_lines: Sequence[str], cursor: int, lo: int) -> Iterator[Block]:
    """Lines `cursor`.. to the end as source, BLOCK_LINES a block, under a
    row saying why: the block at line `lo` is longer than a fence, an HTML
    block or a table may be."""
    for start in range(cursor, len(src_lines), BLOCK_LINES):
        yield _source_block(src_lines, start, min(start + BLOCK_LINES, len(src_lines)), lo if start == cursor else None)


def _source_block(src_lines: Sequence[str], start: int, stop: int, long_block: int | None) -> Block:
    """Lines `start`..`stop - 1` as source, under the notice that the block
    at line `long_block` is too long (when given)."""
    head: tuple[Line, ...] = ()
    if long_block is not None:
        said = (
            f"── line {long_block + 1} begins a block of more than {LONG_BLOCK_LINES:,} lines:"
            " the rest of this file is shown as its source ──"
        )
        head = (Line((Span(said, theme.GAP),), None),)
    again = functools.partial(_source_block, src_lines, start, stop, long_block)
    return Block((*head, *_as_source(src_lines, start, stop, PLAIN)), start + 1, stop, again=again)


FRONT_MATTER_LIMIT = 200  # lines a YAML front matter block may take


def _front_matter_end(src_lines: Sequence[str]) -> int:
    """Lines taken by a YAML front matter block (`---` ... `---` or `...`
    opening the file), or 0. Without this markdown would read it as a rule
    and a setext heading."""
    if not src_lines or src_lines[0].rstrip() != "---":
        return 0
    for index in range(1, min(len(src_lines), FRONT_MATTER_LIMIT)):
        if src_lines[index].rstrip() in ("---", "..."):
            return index + 1 if index > 1 else 0
    return 0


def markdown_blocks(text: str, lines: Sequence[str] | None = None) -> Iterator[Block]:
    """The document's blocks, rendered as the caller iterates. `lines`, when
    given, are `text`'s lines as `source_lines` splits them (a document
    keeps them already); blocks made again read them."""
    src = text.replace("\r\n", "\n").replace("\0", "\ufffd")
    src_lines: Sequence[str] = source_lines(src) if lines is None else lines
    env: dict[str, Any] = {}
    cursor = _front_matter_end(src_lines)
    if cursor:  # shown as source; the parser sees blank lines in its place
        yield Block(tuple(_as_source(src_lines, 0, cursor, theme.HTML)), 1, cursor)
        src = "\n" * cursor + "\n".join(src_lines[cursor:]) + "\n"
    source = _Source(src_lines, env, src.endswith("\n"))
    groups = _windowed(source, cursor)
    if _has_references(src):  # links may use definitions further down
        if len(src) <= KEEP_PARSED_LIMIT:
            groups = iter(list(groups))
        else:  # a pass that keeps only the definitions (in `env`), then the real one
            for _ in groups:
                pass
            groups = _windowed(source, cursor)
    yield from _assembled(source, groups, cursor, len(src_lines))


def _windowed(source: _Source, cursor: int) -> Iterator[tuple[int, int, list[Token] | None]]:
    """`top_level_blocks` of the document's lines from `cursor` on, parsed a
    window of WINDOW_LINES lines at a time: a group whose decisions could
    read past a window (its first line within `_longest_lookahead()` of the
    window's end) is parsed again, from its first line, in the next."""
    lines = source.lines
    start, size = cursor, WINDOW_LINES
    while start < len(lines):
        stop = min(len(lines), start + size)
        after = stop  # where the next window starts: past blank lines, or at a group it did not take
        for lo, hi, tokens in source.groups(start, stop):
            if stop < len(lines) and lo + _longest_lookahead() > stop:
                after = lo
                break
            yield lo, hi, tokens
            if tokens is None:
                return
        if after == start:  # its first group may read past it: a wider window
            size *= 2
            continue
        start, size = after, WINDOW_LINES


@attrs.frozen(eq=False)
class _Source:
    """What making a block again needs: the document's lines, the link
    definitions found in all of it, and whether its text ends a line."""

    lines: Sequence[str]
    env: dict[str, Any]
    final_newline: bool

    def groups(self, start: int, stop: int) -> Iterator[tuple[int, int, list[Token] | None]]:
        """`top_level_blocks` of lines `start`..`stop - 1` (0-based), counted
        from the document's start: the parser reads only those lines."""
        src = "\n".join(self.lines[start:stop])
        if stop < len(self.lines) or self.final_newline:
            src += "\n"
        return top_level_blocks(src, self.env, offset=start)


def _made_again(source: _Source, first: int, end: int) -> Block:
    """The block of lines `first`..`end - 1` (0-based) made again: the same
    steps over a window of the document from its first line (a parse of
    the block's own lines and what decided its end, not of the whole file)."""
    for lookahead in (_cut_lookahead(), _longest_lookahead()):
        stop = min(len(source.lines), end + lookahead)
        block = next(_assembled(source, source.groups(first, stop), first, stop), None)
        if block is not None and (block.start, block.end) == (first + 1, end):
            return block
    raise ValueError(f"lines {first + 1}..{end} made again as another block")


def _assembled(
    source: _Source, groups: Iterator[tuple[int, int, list[Token] | None]], cursor: int, stop: int
) -> Iterator[Block]:
    """Blocks of the top-level `groups` after line `cursor` (0-based), lines
    up to `stop` read: a block each for a fence or a table (styled when
    shown), runs of blank lines and what follows a block too long to lay
    out; small ones together, BLOCK_LINES lines or so at a time (a block
    each for a file of one-line paragraphs cost 140 bytes a line)."""
    src_lines, env = source.lines, source.env
    pending: list[Line] = []
    start = cursor

    def gathered(end: int) -> Block:
        again = functools.partial(_made_again, source, start, end)
        return Block(tuple(pending), start + 1, end, again=again)

    for lo, hi, tokens in groups:
        if tokens is None:  # a block too long to lay out: the rest is shown as source
            if pending:
                yield gathered(cursor)
            yield from _rest_as_source(src_lines, cursor, lo)
            return
        if lo - cursor > BLANK_RUN_LINES:
            if pending:
                yield gathered(cursor)
                pending = []
            yield from _blank_blocks(cursor, lo)
            cursor = lo
        if not pending:
            start = cursor
        writer = Writer(src_lines, env, pending)
        for n in range(cursor, lo):
            writer.filler(n)
        stand_ins = _stand_ins(tokens, lo, hi)
        if stand_ins is not None:  # counted now, styled when shown
            if pending:
                yield gathered(lo)
                pending = []
            render = functools.partial(_render_block, src_lines, env, tokens, lo, hi)
            again = functools.partial(_made_again, source, lo, hi)
            yield Block(stand_ins, lo + 1, hi, deferred=render, again=again)
            cursor = hi
            continue
        kept = len(pending)
        try:
            writer.walk(tokens, lo, hi)
        except Exception:  # a renderer bug must not lose the file: show source
            del pending[kept:]
            pending += _raw(src_lines, lo, hi)
        cursor = hi
        if hi - start >= BLOCK_LINES or len(pending) >= BLOCK_LINES:
            yield gathered(hi)
            pending = []
    if stop - cursor > BLANK_RUN_LINES:
        if pending:
            yield gathered(cursor)
        yield from _blank_blocks(cursor, stop)
        return
    if cursor < stop:
        if not pending:
            start = cursor
        pending += [Line((), (n + 1, n + 1)) for n in range(cursor, stop)]
        cursor = stop
    if pending:
        yield gathered(cursor)


def _blank_blocks(first: int, stop: int) -> Iterator[Block]:
    """Lines `first`..`stop - 1` (0-based), all blank, BLANK_RUN_LINES a block."""
    for at in range(first, stop, BLANK_RUN_LINES):
        end = min(at + BLANK_RUN_LINES, stop)
        yield Block(BlankLines(at + 1, end - at), at + 1, end)
