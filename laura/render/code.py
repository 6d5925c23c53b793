"""Which Pygments lexer colours a file or a fence, and in which styles.

The lexer is chosen by file name; files Pygments cannot name (or names it
calls plain text) return None and are shown as wrapped plain text. The
lexing itself is `laura.render.colouring`'s: bounded, in steps.

Two first times are slow, and neither may hold the UI loop: a process's
first lookup by file name compiles Pygments' 900-odd file-name patterns
(100-200 ms), and a lexer class's first instance compiles its own patterns
(up to 60 ms). Before an `open` applies, `ready_lexer_for` does both in a
worker thread (laura/prefetch.py); `compiled` says whether a class is ready
(a file pane has it compiled in a worker thread if not).
"""

from __future__ import annotations

from functools import cache, lru_cache

from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class_for_filename, get_lexer_by_name
from pygments.lexers.special import TextLexer
from pygments.token import Token, _TokenType
from pygments.util import ClassNotFound

from laura.render import theme
from laura.render.style import PLAIN, Style

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
def lexer_class_for_filename(name: str) -> type[Lexer] | None:
    """The lexer class for a file called `name`, or None for plain text."""
    try:
        found = find_lexer_class_for_filename(name)
    except ClassNotFound:
        return None
    if found is None or issubclass(found, TextLexer):
        return None
    return found


# One instance per lexer class: instances keep no state between
# `get_tokens` calls, so they are shared.
_INSTANCES: dict[type[Lexer], Lexer] = {}


def lexer_of(lexer_class: type[Lexer]) -> Lexer:
    """The shared instance of `lexer_class` (the first compiles its patterns)."""
    lexer = _INSTANCES.get(lexer_class)
    if lexer is None:
        lexer = _INSTANCES[lexer_class] = lexer_class(stripnl=False)
    return lexer


def compiled(lexer_class: type[Lexer]) -> bool:
    """Whether `lexer_of(lexer_class)` is ready without compiling."""
    return lexer_class in _INSTANCES


def ready_lexer_for(name: str) -> None:
    """Find and compile the lexer for a file called `name` (blocking: the
    first call compiles the file-name patterns too; run it in a thread)."""
    found = lexer_class_for_filename(name)
    if found is not None:
        lexer_of(found)


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


def source_lines(text: str) -> list[str]:
    """The file's lines as an editor counts them (a final newline ends the
    last line; it does not start another)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
