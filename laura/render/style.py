"""Styled text shared by every drawer: the emulator, file panes and the canvas.

Pure data: no terminal, no trio. A `Color` is None (the terminal's default),
an int 0-255 (the xterm palette; 0-15 are the named colours) or an (r, g, b)
true-colour triple.
"""

from __future__ import annotations

import attrs

Color = int | tuple[int, int, int] | None


@attrs.frozen
class Style:
    fg: Color = None
    bg: Color = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    blink: bool = False
    reverse: bool = False
    strike: bool = False
    # An OSC 8 hyperlink's target; the outer terminal gets it back for the
    # cells that carry it. Not an SGR attribute: SGR 0 keeps it.
    link: str | None = None


PLAIN = Style()


@attrs.frozen
class Span:
    """A run of text in one style. Wide (East Asian) characters take two cells."""

    text: str
    style: Style = PLAIN


@attrs.frozen
class Row:
    """One rendered row of a file pane.

    `source` is the 1-based, inclusive range of source lines the row came from
    (None for rows that stand for no source line, e.g. a table's border or a
    removed-lines marker); `first` is True on the first row of a wrapped source
    line, where the gutter shows the number. `marker` is the one-cell git change
    marker ("+", "~", "-" or " ").
    """

    spans: tuple[Span, ...]
    source: tuple[int, int] | None = None
    first: bool = True
    marker: str = " "
