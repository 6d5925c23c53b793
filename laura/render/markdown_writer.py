"""Rendering one markdown block's tokens into `Line`s with true sources.

`Writer` walks markdown-it-py block tokens (inline tokens are parsed here,
when a block is rendered) and emits one `Line` per logical line, each with
the 1-based source range it stands for; `laura.render.markdown` drives it
block by block. The rules (what folds, what maps 1:1) are described there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

import attrs
from markdown_it import MarkdownIt
from markdown_it.rules_block import table as table_rule
from markdown_it.token import Token

from laura.render import theme
from laura.render.big_tables import bounded
from laura.render.cells import spans_cells, text_cells
from laura.render.code import TAB, lexer_for_language, source_lines
from laura.render.colouring import coloured_now
from laura.render.lines import Line
from laura.render.markdown_inline import inline_lines, merge
from laura.render.style import PLAIN, Span, Style

PARSER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
PARSER.block.ruler.at("table", bounded(table_rule), {"alt": ["paragraph", "reference"]})
_ALERT = re.compile(r"\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(?:\n|$)", re.I)
_TASK = re.compile(r"\[([ xX])\] ")
_BULLETS = ("•", "◦", "▪")
# Inline markup in more text than this is not parsed (a megabyte of `*a* `
# on one line took 4 s to parse): no more of a line is shown anyway (see
# `laura.render.view.LINE_SHOWN_LIMIT`).
INLINE_PARSE_LIMIT = 64 * 1024


def closing(tokens: Sequence[Token], index: int) -> int:
    """Index of the token closing the block opened at `index`."""
    opener = tokens[index]
    if opener.nesting != 1:
        return index
    for at in range(index + 1, len(tokens)):
        token = tokens[at]
        if token.nesting == -1 and token.level == opener.level:
            return at
    return len(tokens) - 1


# A list's markers and hanging indents are shared, not made per item: a
# laid-out list keeps every line, and each object more is one more for the
# garbage collector to walk.
@functools.lru_cache(maxsize=1024)
def _marker(marker: str, style: Style) -> tuple[Span, ...]:
    return (Span(marker, style),)


@functools.lru_cache(maxsize=64)
def _indent(cells: int) -> tuple[Span, ...]:
    return (Span(" " * cells),)


@attrs.define
class _Frame:
    """A container's prefix: `first` on its first line, `rest` after."""

    first: tuple[Span, ...]
    rest: tuple[Span, ...]
    used: bool = False


class Writer:
    """Renders the tokens of one top-level block into `Line`s."""

    def __init__(self, src_lines: Sequence[str], env: dict[str, Any], out: list[Line] | None = None) -> None:
        """`out`: the lines to append to (a new list when None)."""
        self.src = src_lines
        self.env = env
        self.out: list[Line] = [] if out is None else out
        self.stack: list[_Frame] = []
        self.keep_breaks = 0
        self.base: Style = PLAIN
        self.lists = 0

    # -- emitting ---------------------------------------------------------

    def _prefix(self) -> tuple[Span, ...]:
        if len(self.stack) == 1:  # the common case: the frame's own tuple, no new one
            frame = self.stack[0]
            spans = frame.rest if frame.used else frame.first
            frame.used = True
            return spans
        joined: list[Span] = []
        for frame in self.stack:
            joined.extend(frame.rest if frame.used else frame.first)
            frame.used = True
        return tuple(joined)

    def _hang(self) -> tuple[Span, ...]:
        if len(self.stack) <= 1:
            return self.stack[0].rest if self.stack else ()
        return tuple(span for frame in self.stack for span in frame.rest)

    def emit(
        self,
        spans: tuple[Span, ...],
        source: tuple[int, int] | None,
        *,
        pre: bool = False,
        first: bool = True,
        fill: bool = False,
    ) -> None:
        self.out.append(Line(self._prefix() + spans, source, pre, self._hang(), first, fill))

    def filler(self, index: int) -> None:
        """A source line inside a block that no token stands for: blank
        (or a lone `>`) -> a blank line with the container's marks; anything
        else is shown as source."""
        text = self.src[index] if index < len(self.src) else ""
        prefix = list(self._prefix())
        if prefix:
            prefix[-1] = Span(prefix[-1].text.rstrip(" "), prefix[-1].style)
        if text.strip(" \t>"):
            shown = (Span(text.expandtabs(TAB), theme.HTML),)
            self.out.append(Line((*prefix, *shown), (index + 1, index + 1), pre=True))
        else:
            self.out.append(Line(tuple(s for s in prefix if s.text), (index + 1, index + 1)))

    # -- walking ----------------------------------------------------------

    def walk(self, tokens: Sequence[Token], lo: int, hi: int) -> None:
        """Render sibling blocks filling the lines between them (0-based, [lo, hi))."""
        cursor = lo
        index = 0
        while index < len(tokens):
            close = closing(tokens, index)
            token = tokens[index]
            if token.map:
                for n in range(cursor, token.map[0]):
                    self.filler(n)
            self.block(tokens[index : close + 1])
            if token.map:
                cursor = max(cursor, token.map[1])
            index = close + 1
        for n in range(cursor, hi):
            self.filler(n)

    def block(self, tokens: Sequence[Token]) -> None:
        token = tokens[0]
        kind = token.type
        if kind == "paragraph_open":
            self.paragraph(tokens[1], token.map or [0, 1])
        elif kind == "heading_open":
            self.heading(token, tokens[1])
        elif kind in ("bullet_list_open", "ordered_list_open"):
            self.list(tokens)
        elif kind == "blockquote_open":
            self.quote(tokens)
        elif kind == "fence":
            self.fence(token)
        elif kind == "table_open":
            self.table(tokens)
        elif kind == "hr":
            lo = (token.map or [0])[0] + 1
            self.emit((Span("─", theme.RULE),), (lo, lo), fill=True)
        else:  # html_block, code_block, a table too big (big_tables), anything new: shown as source
            lo, hi = token.map or [0, 0]
            style = theme.HTML if kind == "html_block" else PLAIN
            for n in range(lo, hi):
                text = self.src[n].expandtabs(TAB) if n < len(self.src) else ""
                self.emit((Span(text, style),) if text else (), (n + 1, n + 1), pre=True)

    def inline(self, token: Token) -> list[Token]:
        """Inline children, parsed now (the block parse left them out); text
        longer than INLINE_PARSE_LIMIT is shown as it is written."""
        if not token.children and token.content:  # the block parser leaves []
            children: list[Token] = []
            if len(token.content) > INLINE_PARSE_LIMIT:
                for index, part in enumerate(token.content.split("\n")):
                    if index:
                        children.append(Token("softbreak", "br", 0))
                    children.append(Token("text", "", 0, content=part))
            else:
                PARSER.inline.parse(token.content, PARSER, self.env, children)
            token.children = children
        return token.children or []

    # -- blocks -----------------------------------------------------------

    def paragraph(self, inline: Token, span: list[int], skip_first: bool = False) -> None:
        children = self.inline(inline)
        lo, hi = span[0], span[1]
        if skip_first:  # an alert's `[!NOTE]` line, already shown as its title
            breaks = [i for i, t in enumerate(children) if t.type in ("softbreak", "hardbreak")]
            if not breaks:
                return
            children = children[breaks[0] + 1 :]
            lo += 1
        lines = inline_lines(children, self.base, self.keep_breaks > 0)
        if len(lines) == hi - lo:
            for offset, spans in enumerate(lines):
                self.emit(spans, (lo + offset + 1, lo + offset + 1))
            return
        for offset, spans in enumerate(lines):  # reflowed: fold onto the whole range
            self.emit(spans, (lo + 1, hi), first=offset == 0)

    def heading(self, opener: Token, inline: Token) -> None:
        level = int(opener.tag[1:]) if opener.tag[1:].isdigit() else 1
        style = theme.HEADINGS[min(level, len(theme.HEADINGS)) - 1]
        lo, hi = opener.map or [0, 1]
        lines = inline_lines(self.inline(inline), style, False)
        marker = (Span("#" * level + " ", style),)
        for offset, spans in enumerate(lines):
            self.emit((marker if offset == 0 else ()) + spans, (lo + 1, hi), first=offset == 0)

    def list(self, tokens: Sequence[Token]) -> None:
        opener = tokens[0]
        ordered = opener.type == "ordered_list_open"
        number = int(opener.attrGet("start") or 1) if ordered else 0
        bullet = _BULLETS[self.lists % len(_BULLETS)]
        self.lists += 1
        # An item's text reflows like a paragraph (a hand-wrapped item is one
        # block whose rows all carry its range); only quotes keep breaks.
        breaks_kept, self.keep_breaks = self.keep_breaks, 0
        index = 1
        while index < len(tokens) - 1:
            close = closing(tokens, index)
            item = tokens[index]
            inner = list(tokens[index + 1 : close])
            marker = f"{item.info or number}{item.markup} " if ordered else f"{bullet} "
            style = theme.BULLET
            if len(inner) > 1 and inner[0].type == "paragraph_open":
                task = _TASK.match(inner[1].content)
                children = self.inline(inner[1])
                if task and children and children[0].type == "text":
                    done = task.group(1) != " "
                    marker = ("☑ " if done else "☐ ") if not ordered else marker + "☐☑"[done] + " "
                    style = theme.TASK_DONE if done else theme.BULLET
                    inner[1] = inner[1].copy(
                        children=[children[0].copy(content=children[0].content[4:]), *children[1:]]
                    )
            self.stack.append(_Frame(_marker(marker, style), _indent(text_cells(marker))))
            lo, hi = item.map or [0, 0]
            self.walk(inner, lo, hi)
            self.stack.pop()
            number += 1
            index = close + 1
        self.keep_breaks = breaks_kept
        self.lists -= 1

    def quote(self, tokens: Sequence[Token]) -> None:
        opener = tokens[0]
        inner = list(tokens[1:-1])
        lo, hi = opener.map or [0, 0]
        alert = None
        if len(inner) > 1 and inner[0].type == "paragraph_open":
            alert = _ALERT.match(inner[1].content)
        saved = self.base
        self.keep_breaks += 1
        if alert:
            icon, label, style = theme.ALERTS[alert.group(1).upper()]
            bar = (Span("▎ ", Style(fg=style.fg)),)
            self.stack.append(_Frame(bar, bar))
            title_line = (inner[0].map or [lo])[0] + 1
            self.emit((Span(f"{icon} {label}", style),), (title_line, title_line))
            paragraph_map = inner[0].map or [lo, lo + 1]
            self.paragraph(inner[1], paragraph_map, skip_first=True)
            self.walk(inner[3:], paragraph_map[1], hi)
        else:
            bar = (Span("│ ", theme.QUOTE_BAR),)
            self.stack.append(_Frame(bar, bar))
            self.base = merge(saved, theme.QUOTE_TEXT)
            self.walk(inner, lo, hi)
        self.stack.pop()
        self.base = saved
        self.keep_breaks -= 1

    def fence(self, token: Token) -> None:
        lo, hi = token.map or [0, 0]
        code = source_lines(token.content)
        styled = coloured_now(lexer_for_language(token.info), code)
        label = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
        inner = max([spans_cells(s) for s in styled] + [text_cells(label) + 3, 1])
        frame = theme.FRAME
        top = f"╭─ {label} " if label else "╭"
        top += "─" * (inner + 3 - text_cells(top)) + "╮"
        self.emit((Span(top, frame),), (lo + 1, lo + 1), pre=True)
        for offset, spans in enumerate(styled):
            pad = " " * (inner - spans_cells(spans))
            row = (Span("│ ", frame), *spans, Span(pad + " │", frame))
            self.emit(row, (lo + offset + 2, lo + offset + 2), pre=True)
        closed = lo + len(code) + 1 < hi
        bottom = (Span("╰" + "─" * (inner + 2) + "╯", frame),)
        self.emit(bottom, (hi, hi) if closed else None, pre=True)

    def table(self, tokens: Sequence[Token]) -> None:
        rows: list[tuple[int, list[tuple[Span, ...]], bool]] = []
        aligns: list[str] = []
        header = True
        for token in tokens:
            if token.type == "tbody_open":
                header = False
            elif token.type == "tr_open":
                rows.append(((token.map or [0])[0], [], header))
            elif token.type in ("th_open", "td_open") and header:
                style_attr = str(token.attrGet("style") or "")
                aligns.append(style_attr.removeprefix("text-align:"))
            elif token.type == "inline" and rows:
                base = merge(self.base, Style(bold=True)) if rows[-1][2] else self.base
                lines = inline_lines(self.inline(token), base, False)
                rows[-1][1].append(tuple(span for line in lines for span in line))
        columns = max(len(cells) for _, cells, _ in rows)
        aligns += [""] * (columns - len(aligns))
        widths = [1] * columns
        for _, cells, _ in rows:
            for col, cell in enumerate(cells):
                widths[col] = max(widths[col], spans_cells(cell))
        frame = theme.FRAME

        def border(left: str, mid: str, right: str) -> tuple[Span, ...]:
            return (Span(left + mid.join("─" * (w + 2) for w in widths) + right, frame),)

        def cells_row(cells: list[tuple[Span, ...]]) -> tuple[Span, ...]:
            out: list[Span] = [Span("│", frame)]
            for col, width in enumerate(widths):
                cell = cells[col] if col < len(cells) else ()
                room = width - spans_cells(cell)
                left = (
                    room if aligns[col] == "right" else room // 2 if aligns[col] == "center" else 0
                )
                out += [
                    Span(" " * (left + 1)),
                    *cell,
                    Span(" " * (room - left + 1)),
                    Span("│", frame),
                ]
            return tuple(s for s in out if s.text)

        head_line = rows[0][0] + 1
        self.emit(border("┌", "┬", "┐"), (head_line, head_line), pre=True, first=False)
        self.emit(cells_row(rows[0][1]), (head_line, head_line), pre=True)
        self.emit(border("├", "┼", "┤"), (head_line + 1, head_line + 1), pre=True)
        for line, cells, _ in rows[1:]:
            self.emit(cells_row(cells), (line + 1, line + 1), pre=True)
        last = rows[-1][0] + 1 if len(rows) > 1 else head_line + 1
        self.emit(border("└", "┴", "┘"), (last, last), pre=True, first=False)
