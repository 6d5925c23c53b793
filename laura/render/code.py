"""Source code -> highlighted lines, lazily, with Pygments.

The lexer is chosen by file name; files Pygments cannot name (or names it
calls plain text) return None and are shown as wrapped plain text. Tokens are
consumed from Pygments' generator only as far as the lines asked for, so the
first screen of a 10,000-line file costs a screenful of lexing, not the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache, lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.token import Token, _TokenType
from pygments.util import ClassNotFound

from laura.render import theme
from laura.render.lines import Block, Line
from laura.render.style import PLAIN, Span, Style

TAB = 4
CHUNK = 64  # lines per block: the unit a view pulls and caches

_ORDER: tuple[tuple[_TokenType, Style], ...] = (
    (Token.Comment, theme.COMMENT),
    (Token.Literal.String, theme.STRING),
    (Token.Literal.Number, theme.NUMBER),
    (Token.Keyword, theme.KEYWORD),
    (Token.Name.Decorator, theme.DECORATOR),
    (Token.Name.Function, theme.FUNCTION),
    (Token.Name.Class, theme.CLASS),
    (Token.Name.Builtin, theme.BUILTIN),
    (Token.Name.Exception, theme.CLASS),
    (Token.Name.Tag, theme.KEYWORD),
    (Token.Name.Attribute, theme.FUNCTION),
    (Token.Operator.Word, theme.KEYWORD),
    (Token.Operator, theme.OPERATOR),
    (Token.Generic.Inserted, theme.DIFF_ADDED),
    (Token.Generic.Deleted, theme.DIFF_REMOVED),
    (Token.Generic.Heading, theme.HEADINGS[0]),
    (Token.Generic.Subheading, theme.HEADINGS[1]),
    (Token.Error, theme.ERROR),
)


@cache
def style_for(ttype: _TokenType) -> Style:
    """The calm palette's style for a Pygments token type (PLAIN if none)."""
    for parent, style in _ORDER:
        if ttype in parent:
            return style
    return PLAIN


def _usable(lexer: Lexer) -> Lexer | None:
    return None if isinstance(lexer, TextLexer) else lexer


@lru_cache(maxsize=256)
def lexer_for_filename(name: str) -> Lexer | None:
    """A lexer for a file called `name`, or None for plain text. Lexer
    instances keep no state between `get_tokens` calls, so they are shared."""
    try:
        lexer = get_lexer_for_filename(name, stripnl=False)
    except ClassNotFound:
        return None
    return _usable(lexer)


@lru_cache(maxsize=256)
def lexer_for_language(language: str) -> Lexer | None:
    """A lexer for a fenced block's info string (`python`, `rs`, ...)."""
    language = language.strip().split(maxsplit=1)[0] if language.strip() else ""
    if not language:
        return None
    try:
        lexer = get_lexer_by_name(language, stripnl=False)
    except ClassNotFound:
        return None
    return _usable(lexer)


def highlight_lines(lexer: Lexer | None, text: str) -> Iterator[tuple[Span, ...]]:
    """Styled spans per source line of `text` (tabs expanded), produced as
    the caller iterates. Without a lexer every line is one plain span."""
    text = text.expandtabs(TAB)
    if lexer is None:
        for line in text.split("\n"):
            yield (Span(line),) if line else ()
        return
    current: list[Span] = []
    for ttype, value in lexer.get_tokens(text):
        style = style_for(ttype)
        parts = value.split("\n")
        for index, part in enumerate(parts):
            if index:
                yield tuple(current)
                current = []
            if part:
                if current and current[-1].style == style:
                    current[-1] = Span(current[-1].text + part, style)
                else:
                    current.append(Span(part, style))
    yield tuple(current)


def source_lines(text: str) -> list[str]:
    """The file's lines as an editor counts them (a final newline ends the
    last line; it does not start another)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def code_blocks(lexer: Lexer | None, text: str, count: int | None = None) -> Iterator[Block]:
    """Highlighted, pre-formatted lines mapped 1:1 to source lines, in
    blocks of CHUNK lines (`count`: the text's line count, when known)."""
    if count is None:
        count = len(source_lines(text))
    spans = highlight_lines(lexer, text)
    number = 0
    while number < count:
        lines: list[Line] = []
        start = number + 1
        for spans_of_line in spans:
            number += 1
            lines.append(Line(spans_of_line, (number, number), pre=True))
            if number >= count or len(lines) >= CHUNK:
                break
        else:
            number = count
        if not lines:
            return
        yield Block(tuple(lines), start, number)
