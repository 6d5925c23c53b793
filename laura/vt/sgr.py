"""SGR (`CSI ... m`) parameters -> `Style`, memoised.

Programs repeat a handful of SGR strings millions of times, so the answer is
cached on (current style, parameter string): after the first sight of a pair,
an SGR costs one dict lookup. Styles come out interned, so the emulator can
compare them with `is`.
"""

from __future__ import annotations

import attrs

from laura.render.style import PLAIN, Color, Style

# (id(style), params) -> style. Keyed by id because hashing an attrs class
# runs Python code; an id stays unique while its style is alive, and every
# style named here is kept alive by `_INTERN` (both are cleared together).
# Bounded so a program emitting endless distinct true colours cannot grow it
# without limit.
_CACHE: dict[tuple[int, str], Style] = {}
_CACHE_LIMIT = 50_000
_INTERN: dict[Style, Style] = {PLAIN: PLAIN}


def intern(style: Style) -> Style:
    """One shared object per distinct style."""
    found = _INTERN.get(style)
    if found is None:
        if len(_INTERN) > _CACHE_LIMIT:
            _INTERN.clear()
            _INTERN[PLAIN] = PLAIN
            _CACHE.clear()
        _INTERN[style] = found = style
    return found


def apply_sgr(style: Style, params: str) -> Style:
    """The style after `CSI params m`, starting from `style`."""
    key = (id(style), params)
    found = _CACHE.get(key)
    if found is None:
        found = intern(_compute(style, params))
        if len(_CACHE) > _CACHE_LIMIT:
            _CACHE.clear()
        # Only interned styles may name a key (see above).
        if _INTERN.get(style) is style:
            _CACHE[key] = found
    return found


def _ints(text: str) -> list[int]:
    """Numbers of a parameter list; empty fields count as 0, junk too."""
    out = []
    for field in text.split(";"):
        try:
            out.append(int(field) if field else 0)
        except ValueError:
            out.append(0)
    return out


def _extended(fields: list[str], i: int) -> tuple[Color, int, bool]:
    """Parse a 38/48/58 colour starting at fields[i] (the 38 itself).

    Returns (colour, index after it, valid). Handles `38;5;n`, `38;2;r;g;b`
    and the colon forms `38:5:n`, `38:2::r:g:b`, `38:2:r:g:b`.
    """
    head = fields[i]
    if ":" in head:
        sub = head.split(":")
        try:
            if len(sub) >= 3 and sub[1] == "5":
                n = int(sub[2] or 0)
                return (n if 0 <= n <= 255 else None), i + 1, 0 <= n <= 255
            if len(sub) >= 5 and sub[1] == "2":
                rgb = sub[-3:]
                r, g, b = (int(v or 0) for v in rgb)
                if all(0 <= v <= 255 for v in (r, g, b)):
                    return (r, g, b), i + 1, True
        except ValueError:
            pass
        return None, i + 1, False
    try:
        kind = int(fields[i + 1]) if i + 1 < len(fields) else -1
        if kind == 5 and i + 2 < len(fields):
            n = int(fields[i + 2] or 0)
            return (n if 0 <= n <= 255 else None), i + 3, 0 <= n <= 255
        if kind == 2 and i + 4 < len(fields):
            r, g, b = (int(fields[i + k] or 0) for k in (2, 3, 4))
            if all(0 <= v <= 255 for v in (r, g, b)):
                return (r, g, b), i + 5, True
            return None, i + 5, False
    except ValueError:
        pass
    return None, len(fields), False


# SGR codes that set or clear attributes (4, underline with sub-styles, is
# handled apart).
_ATTRIBUTE_CODES: dict[int, dict[str, bool]] = {
    1: {"bold": True},
    2: {"dim": True},
    3: {"italic": True},
    5: {"blink": True},
    6: {"blink": True},
    7: {"reverse": True},
    9: {"strike": True},
    21: {"underline": True},
    22: {"bold": False, "dim": False},
    23: {"italic": False},
    24: {"underline": False},
    25: {"blink": False},
    27: {"reverse": False},
    29: {"strike": False},
}


def _compute(style: Style, params: str) -> Style:
    fields = params.split(";") if params else [""]
    changes: dict[str, object] = {}
    current = style
    i = 0
    while i < len(fields):
        field = fields[i]
        if field.startswith(("38", "48", "58")) and (field[2:3] in ("", ":")):
            colour, i, valid = _extended(fields, i)
            if valid and field[0] != "5":
                changes["fg" if field[0] == "3" else "bg"] = colour
            continue
        i += 1
        head = field.split(":", 1)[0]
        try:
            code = int(head) if head else 0
        except ValueError:
            continue
        if code == 0:
            changes.clear()
            # A hyperlink is not an SGR attribute (xterm): only OSC 8 ends it.
            current = PLAIN if style.link is None else Style(link=style.link)
        elif code in _ATTRIBUTE_CODES:
            changes.update(_ATTRIBUTE_CODES[code])
        elif code == 4:
            # `4:0` is "no underline"; `4:n` other styles still underline.
            changes["underline"] = not field.startswith("4:0")
        elif 30 <= code <= 37:
            changes["fg"] = code - 30
        elif code == 39:
            changes["fg"] = None
        elif 40 <= code <= 47:
            changes["bg"] = code - 40
        elif code == 49:
            changes["bg"] = None
        elif 90 <= code <= 97:
            changes["fg"] = code - 90 + 8
        elif 100 <= code <= 107:
            changes["bg"] = code - 100 + 8
    if not changes:
        return current
    return attrs.evolve(current, **changes)  # type: ignore[arg-type]


# id(style) -> (style, its blank style); the style is kept in the value so
# its id cannot be reused while the entry exists.
_BLANK: dict[int, tuple[Style, Style]] = {}


def blank_style(style: Style) -> Style:
    """The style erased cells take: only the background survives (xterm's BCE)."""
    found = _BLANK.get(id(style))
    if found is None:
        blank = PLAIN if style.bg is None else intern(Style(bg=style.bg))
        if len(_BLANK) > _CACHE_LIMIT:
            _BLANK.clear()
        _BLANK[id(style)] = (style, blank)
        return blank
    return found[1]
