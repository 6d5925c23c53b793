"""Markdown inline tokens -> styled spans, split into logical lines.

Pure. Takes markdown-it-py inline children (text, emphasis, code, links,
breaks, inline HTML) and a base style; returns one tuple of spans per
logical line. Soft breaks either join lines with a space (reflowed prose) or
end the line (lists and quotes keep the author's lines).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from markdown_it.token import Token

from laura.render import theme
from laura.render.style import Span, Style


def merge(base: Style, over: Style) -> Style:
    """`over` laid on `base`: set colours win, flags add up."""
    return Style(
        fg=over.fg if over.fg is not None else base.fg,
        bg=over.bg if over.bg is not None else base.bg,
        bold=base.bold or over.bold,
        dim=base.dim or over.dim,
        italic=base.italic or over.italic,
        underline=base.underline or over.underline,
        strike=base.strike or over.strike,
    )


_FLAGS = {
    "strong_open": Style(bold=True),
    "em_open": Style(italic=True),
    "s_open": Style(strike=True),
    "link_open": theme.LINK,
}
_CLOSERS = {"strong_close", "em_close", "s_close", "link_close"}


def inline_lines(
    children: Sequence[Token], base: Style, keep_breaks: bool
) -> list[tuple[Span, ...]]:
    """Spans per logical line. Hard breaks always end a line; soft breaks
    end one only when `keep_breaks`, else they become a space."""
    lines: list[list[Span]] = [[]]
    stack: list[Style] = [base]

    def put(text: str, style: Style) -> None:
        if not text:
            return
        text = text.replace("\t", "    ")
        line = lines[-1]
        if line and line[-1].style == style:
            line[-1] = Span(line[-1].text + text, style)
        else:
            line.append(Span(text, style))

    for token in children:
        kind = token.type
        if kind in ("text", "text_special"):
            put(token.content, stack[-1])
        elif kind in _FLAGS:
            stack.append(merge(stack[-1], _FLAGS[kind]))
        elif kind in _CLOSERS:
            if len(stack) > 1:
                stack.pop()
        elif kind == "code_inline":
            put(token.content, merge(stack[-1], theme.INLINE_CODE))
        elif kind == "hardbreak" or (kind == "softbreak" and keep_breaks):
            lines.append([])
        elif kind == "softbreak":
            put(" ", stack[-1])
        elif kind == "image":
            alt = "".join(child.content for child in token.children or ()) or token.content
            put(f"[image: {alt}]", merge(stack[-1], theme.LINK))
        elif kind == "html_inline":
            put(token.content, merge(stack[-1], theme.HTML))
        else:
            put(token.content, stack[-1])
    return [tuple(line) for line in lines]


def plain_text(children: Sequence[Token]) -> str:
    """The visible text of inline children (for measuring and matching)."""
    return "".join(
        " " if t.type in ("softbreak", "hardbreak") else t.content
        for t in children
        if t.type not in ("link_open", "link_close")
    )


def restyle(spans: tuple[Span, ...], over: Style) -> tuple[Span, ...]:
    return tuple(attrs.evolve(span, style=merge(span.style, over)) for span in spans)
