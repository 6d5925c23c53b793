"""Streaming markdown: deltas in, complete blocks out, each rendered to lines.

`BlockStream.feed(delta)` returns the blocks (paragraph, list, heading,
quote, fenced code, table) that the delta completed: a block is complete when a
blank line, a heading or a fence follows it, or its fence closes. What is
not complete yet is `tail`, drawn in the live region until it completes.
`render_block` turns a block's source into wrapped lines of spans; fenced
code is highlighted with pygments, tables are laid out in columns
(luxe.frontends.tui.table). Pure: no I/O.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from luxe.frontends.tui.table import render_table
from luxe.frontends.tui.text import LINK, Line, clean, hard_wrap, wrap

if TYPE_CHECKING:
    from pygments.lexer import Lexer

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*)$")
_RULE = re.compile(r"^ {0,3}([-*_])(?: *\1){2,} *$")  # ---, ***, _ _ _
_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+) *$")  # a setext heading's second line
RULE_WIDTH = 40
# The longest a code block's colouring may take; the rest is shown plain.
# Some Pygments patterns rescan to the end of the block from every line (an
# unclosed `/*` in JavaScript or CSS, `<!--` in HTML), which costs time
# quadratic in its length: 20,000 such lines took seconds.
CODE_COLOUR_SECONDS = 0.05
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_INLINE = re.compile(
    r"(?P<code>`[^`\n]+`)|(?P<bold>\*\*[^*\n]+\*\*|__[^_\n]+__)"
    r"|(?P<italic>\*[^*\s][^*\n]*\*|_[^_\s][^_\n]*_)|(?P<link>\[[^\]\n]+\]\([^)\s]+\))"
)


class BlockStream:
    """Splits streamed markdown into complete blocks (their source text)."""

    def __init__(self) -> None:
        self._partial = ""  # the line being streamed (no newline yet)
        self._lines: list[str] = []  # complete lines of the open block
        self._fence: str | None = None

    def feed(self, delta: str) -> list[str]:
        done: list[str] = []
        text = self._partial + delta
        *complete, self._partial = text.split("\n")
        for line in complete:
            self._line(line, done)
        return done

    def finish(self) -> list[str]:
        """Everything left, as complete blocks (the message ended)."""
        done: list[str] = []
        if self._partial:
            self._line(self._partial, done)
            self._partial = ""
        if self._lines:
            done.append("\n".join(self._lines))
        self._lines, self._fence = [], None
        return done

    @property
    def tail(self) -> str:
        """The open block's source, including the line being streamed."""
        lines = [*self._lines, self._partial] if self._partial else self._lines
        return "\n".join(lines)

    def _line(self, line: str, done: list[str]) -> None:
        if self._fence is not None:
            self._lines.append(line)
            if line.strip().startswith(self._fence) and line.strip().strip(self._fence[0]) == "":
                done.append("\n".join(self._lines))
                self._lines, self._fence = [], None
            return
        fence = _FENCE.match(line)
        if fence:
            self._close(done)
            self._fence = fence.group(1)
            self._lines = [line]
            return
        if not line.strip():
            self._close(done)
            return
        if _HEADING.match(line):
            self._close(done)
            done.append(line)
            return
        self._lines.append(line)

    def _close(self, done: list[str]) -> None:
        if self._lines:
            done.append("\n".join(self._lines))
            self._lines = []


def inline(text: str, role: str = "") -> Line:
    """Inline markdown (code, bold, italic, links) -> spans."""
    spans: Line = []
    pos = 0
    for m in _INLINE.finditer(text):
        if m.start() > pos:
            spans.append((text[pos : m.start()], role))
        token = m.group()
        if m.group("code"):
            spans.append((token[1:-1], "code"))
        elif m.group("bold"):
            spans.append((token[2:-2], "bold"))
        elif m.group("italic"):
            spans.append((token[1:-1], "italic"))
        else:
            label, url = token[1:].split("](", 1)
            spans.append((label, LINK + url[:-1]))
            if url[:-1] != label:
                spans.append((f" ({url[:-1]})", "dim"))
        pos = m.end()
    if pos < len(text):
        spans.append((text[pos:], role))
    return spans


def render_block(source: str, width: int, last: int | None = None) -> list[Line]:
    """One block's source -> wrapped lines. `last`: only about the last
    rows are wanted (the live region, drawn every frame): of a code block
    being streamed, only its last `last` lines are rendered."""
    source = clean(source)
    lines = source.split("\n")
    fence = _FENCE.match(lines[0]) if lines else None
    if fence:
        return _code(lines, fence.group(2), width, last)
    heading = _HEADING.match(lines[0])
    if heading and len(lines) == 1:
        return wrap(inline(heading.group(2), "heading"), width)
    if len(lines) == 1 and _RULE.match(lines[0]):
        return [[("─" * min(width, RULE_WIDTH), "dim")]]
    if len(lines) == 2 and _UNDERLINE.match(lines[1]) and not _ITEM.match(lines[0]):
        return wrap(inline(lines[0].strip(), "heading"), width)
    if all(line.lstrip().startswith(">") for line in lines):
        body = " ".join(line.lstrip()[1:].strip() for line in lines)
        return wrap(inline(body, "italic"), width, [("│ ", "dim")], [("│ ", "dim")])
    table = render_table(lines, width, inline)
    if table is not None:
        return table
    if lines[0].lstrip().startswith("|"):  # a table that cannot fit, or a broken one
        return [row for line in lines for row in hard_wrap([(line, "")], width)]
    if _ITEM.match(lines[0]):
        return _list(lines, width)
    return wrap(inline(" ".join(line.strip() for line in lines)), width)


def _list(lines: list[str], width: int) -> list[Line]:
    items: list[tuple[str, str, str]] = []  # (indent, marker, text)
    for line in lines:
        m = _ITEM.match(line)
        if m:
            items.append((m.group(1), m.group(2), m.group(3).strip()))
        elif items:
            indent, marker, text = items[-1]
            items[-1] = (indent, marker, f"{text} {line.strip()}")
        else:
            items.append(("", "", line.strip()))
    out: list[Line] = []
    for indent, marker, text in items:
        bullet = "•" if marker in ("-", "*", "+") else marker
        lead = " " * len(indent) + bullet + " "
        out.extend(wrap(inline(text), width, [(lead, "dim")], [(" " * len(lead), "")]))
    return out


_TOKEN_ROLES = (
    ("Comment", "com"),
    ("Literal.String", "str"),
    ("Literal.Number", "num"),
    ("Keyword", "kw"),
    ("Name.Function", "fn"),
    ("Name.Class", "fn"),
    ("Name.Builtin", "fn"),
    ("Operator.Word", "kw"),
)


def _tokens_within(lexer: Lexer, text: str) -> Iterator[tuple[object, str]]:
    """`lexer`'s tokens of `text` (which ends with a newline) for at most
    CODE_COLOUR_SECONDS, then the rest of the text as one plain token."""
    deadline = time.perf_counter() + CODE_COLOUR_SECONDS
    consumed = 0
    for token_type, value in lexer.get_tokens(text):
        yield token_type, value
        consumed += len(value)
        if time.perf_counter() > deadline:
            yield "", text[consumed:]
            return


def _role(token_type: object) -> str:
    name = str(token_type).removeprefix("Token.")
    for prefix, role in _TOKEN_ROLES:
        if name.startswith(prefix):
            return role
    return ""


def _code(lines: list[str], language: str, width: int, last: int | None = None) -> list[Line]:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    closed = len(lines) > 1 and _FENCE.match(lines[-1]) is not None and not lines[-1].strip()[3:].strip("`~")
    body = lines[1:-1] if closed else lines[1:]
    if last is not None:
        body = body[-last:]
    header: Line = [("  " + (language or "code"), "dim")]
    out: list[Line] = [header]
    try:
        lexer = get_lexer_by_name(language, stripnl=False) if language else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        for line in body:
            out.extend(hard_wrap([(line, "code")], width, [("  ", "")]))
        return out
    row: Line = []
    for token_type, value in _tokens_within(lexer, "\n".join(body).removeprefix("\ufeff") + "\n"):
        role = _role(token_type) or "code"
        parts = value.split("\n")
        for i, part in enumerate(parts):
            if i:
                out.extend(hard_wrap(row, width, [("  ", "")]))
                row = []
            if part:
                row.append((part, role))
    if row:
        out.extend(hard_wrap(row, width, [("  ", "")]))
    return out
