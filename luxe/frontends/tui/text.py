"""Styled text: spans of (text, role), cell widths, word wrap, and SGR output.

A line is a list of spans; a role names what the text is ("dim", "tool",
"add"...), and a `Palette` decides how a role looks on this terminal: full
colour, 16 colours, NO_COLOR (attributes only) or plain (no escapes at all).
Nothing here does I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, tzinfo

from luxe.controls import CONTROL, shown
from luxe.record import record

Span = tuple[str, str]
Line = list[Span]

TAB = "    "


def clean(text: str) -> str:
    """Text safe to draw: tabs expanded, control characters (escape codes an
    attacker put in a file name or tool output) shown as visible `�`.
    `Palette.render` cleans every span; callers clean before they measure,
    cut or split text (a newline stays, for them to split on)."""
    return shown(text.replace("\t", TAB))


# Printable ASCII and the glyphs the interface draws itself: one cell each
# (a test checks every one against wcwidth). Text made of nothing else is
# measured without wcwidth, which then loads with the first other character
# (its import is some 10 ms, which the first frame does not pay).
NARROW = frozenset(chr(c) for c in range(0x20, 0x7F)) | frozenset(
    "›⎇…◆✓✗⊘⏹│─·←→↑↓⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏┌┬┐├┼┤└┴┘"
)
_measure: tuple[Callable[[str], int], Callable[[str], int]] | None = None


def _wcwidth() -> tuple[Callable[[str], int], Callable[[str], int]]:
    """wcwidth's (wcwidth, wcswidth), imported on first use."""
    global _measure
    if _measure is None:
        from wcwidth import wcswidth, wcwidth

        _measure = (wcwidth, wcswidth)
    return _measure


def char_width(ch: str) -> int:
    """The cells one character takes as `clean` draws it: 4 for a tab, 1 for
    another control (its `�`), 0 for a newline or a combining mark."""
    if ch in NARROW:
        return 1
    if CONTROL.match(ch):
        return 1
    if ch == "\t":
        return len(TAB)
    return max(_wcwidth()[0](ch), 0)


def cell_width(text: str) -> int:
    if NARROW.issuperset(text):
        return len(text)
    if "\t" not in text and CONTROL.search(text) is None:
        width = _wcwidth()[1](text)
        if width >= 0:
            return width
    return sum(char_width(ch) for ch in text)


def line_width(line: Line) -> int:
    return sum(cell_width(text) for text, _ in line)


def truncate(line: Line, width: int) -> Line:
    """The line cut to at most `width` cells (an ellipsis marks a cut)."""
    if line_width(line) <= width:
        return line
    out: Line = []
    room = max(width - 1, 0)
    for text, role in line:
        if room <= 0:
            break
        kept = ""
        for ch in text:
            w = char_width(ch)
            if w > room:
                room = 0
                break
            kept += ch
            room -= w
        if kept:
            out.append((kept, role))
    out.append(("…", "dim"))
    return out


def with_cursor(line: Line, col: int) -> Line:
    """The line with the cell at `col` drawn as the cursor (reverse video).
    The terminal's own cursor stays hidden at the region's last row, so a
    terminal that deletes rows below its cursor on resize (tmux) never eats
    ours."""
    out: Line = []
    used = 0
    placed = False
    for text, role in line:
        if placed:
            out.append((text, role))
            continue
        w = cell_width(text)
        if used + w <= col:
            out.append((text, role))
            used += w
            continue
        before = ""
        for i, ch in enumerate(text):
            if used >= col:
                if before:
                    out.append((before, role))
                out.append((ch, "cursor"))
                if text[i + 1 :]:
                    out.append((text[i + 1 :], role))
                placed = True
                break
            before += ch
            used += char_width(ch)
        if not placed:
            out.append((text, role))
    if not placed:
        out.append((" ", "cursor"))
    return out


def _words(line: Line) -> Iterable[tuple[str, str]]:
    """Split spans into words, single spaces and newlines, each keeping its role."""
    for text, role in line:
        for piece in re.split(r"([ \n])", text):
            if piece:
                yield piece, role


def wrap(
    line: Line, width: int, indent: Line | None = None, hang: Line | None = None, floor: int = 8
) -> list[Line]:
    """Wrap at word boundaries to `width` cells (at least `floor`). `indent`
    starts the first row, `hang` every following one. A word longer than a
    row is split; a newline starts a row (a question or a reason of several
    lines)."""
    first = list(indent or [])
    rest = list(hang or [])
    width = max(width, floor, line_width(first) + 1, line_width(rest) + 1)
    rows: list[Line] = []
    row: Line = list(first)
    used = line_width(row)
    prefix_width = used
    for word, role in _words(line):
        if word == "\n":
            while row and row[-1][0] == " ":
                row.pop()
            rows.append(row)
            row = list(rest)
            used = prefix_width = line_width(row)
            continue
        w = cell_width(word)
        if word == " ":
            if used > prefix_width and used + 1 <= width:
                row.append((" ", role))
                used += 1
            continue
        if used + w > width and used > prefix_width:
            while row and row[-1][0] == " ":
                row.pop()
            rows.append(row)
            row = list(rest)
            used = prefix_width = line_width(row)
        if used + w > width:
            # A word longer than the row: split it by cells, walking it once
            # (copying the rest of it per row made a 400 KB word take 10 s).
            at = 0
            while used + w > width:
                room = width - used
                end, head_w = at, 0
                while end < len(word):
                    cw = char_width(word[end])
                    if head_w + cw > room:
                        break
                    head_w += cw
                    end += 1
                if end == at:  # wider than the room: place it anyway
                    end, head_w = at + 1, char_width(word[at])
                row.append((word[at:end], role))
                rows.append(row)
                row = list(rest)
                used = prefix_width = line_width(row)
                at, w = end, w - head_w
            word = word[at:]
        if word:
            row.append((word, role))
            used += w
    rows.append(row)
    return rows


def hard_wrap(line: Line, width: int, prefix: Line | None = None) -> list[Line]:
    """Wrap by cells, keeping every space (code): each row starts with `prefix`."""
    lead = list(prefix or [])
    width = max(width, line_width(lead) + 4)
    rows: list[Line] = []
    row, used = list(lead), line_width(lead)
    for text, role in line:
        chunk = ""
        for ch in text:
            w = char_width(ch)
            if used + w > width:
                if chunk:
                    row.append((chunk, role))
                rows.append(row)
                row, used, chunk = list(lead), line_width(lead), ""
            chunk += ch
            used += w
        if chunk:
            row.append((chunk, role))
    rows.append(row)
    return rows


# Roles -> SGR parameters, for 256 colours and for 16.
_ROLES_256 = {
    "dim": "2",
    "bold": "1",
    "italic": "3",
    "user": "1;38;5;117",
    "prompt": "38;5;117",
    "tool": "38;5;180",
    "ok": "38;5;114",
    "err": "38;5;203",
    "warn": "38;5;221",
    "add": "38;5;114",
    "del": "38;5;203",
    "hunk": "38;5;110",
    "code": "38;5;223",
    "heading": "1;38;5;117",
    "link": "4;38;5;110",
    "thinking": "2;3",
    "status": "38;5;245",
    "mode": "1;38;5;221",
    "key": "1;38;5;117",
    "select": "7",
    "chip": "7;38;5;117",
    "cursor": "7",
    "kw": "38;5;176",
    "str": "38;5;150",
    "com": "2;38;5;246",
    "num": "38;5;215",
    "fn": "38;5;111",
}
_ROLES_16 = {
    "dim": "2",
    "bold": "1",
    "italic": "3",
    "user": "1;36",
    "prompt": "36",
    "tool": "33",
    "ok": "32",
    "err": "31",
    "warn": "33",
    "add": "32",
    "del": "31",
    "hunk": "36",
    "code": "33",
    "heading": "1;36",
    "link": "4;34",
    "thinking": "2;3",
    "status": "2",
    "mode": "1;33",
    "key": "1;36",
    "select": "7",
    "chip": "7",
    "cursor": "7",
    "kw": "35",
    "str": "32",
    "com": "2",
    "num": "33",
    "fn": "34",
}
# NO_COLOR: attributes only (bold, dim, underline, reverse), never a colour.
_ROLES_MONO = {
    "dim": "2",
    "bold": "1",
    "italic": "3",
    "user": "1",
    "heading": "1",
    "link": "4",
    "thinking": "2",
    "status": "2",
    "mode": "1",
    "key": "1",
    "select": "7",
    "chip": "7",
    "cursor": "7",
    "del": "2",
}


LINK = "link:"  # a span whose role is "link:URL" is a hyperlink to URL


@record
class Palette:
    """How roles look: `kind` is "256", "16", "mono" (NO_COLOR) or "plain";
    `links`: the terminal shows OSC 8 hyperlinks."""

    kind: str = "256"
    links: bool = False

    @property
    def styled(self) -> bool:
        return self.kind != "plain"

    @property
    def colour(self) -> bool:
        return self.kind in ("256", "16")

    def sgr(self, role: str) -> str:
        table = {"256": _ROLES_256, "16": _ROLES_16, "mono": _ROLES_MONO}.get(self.kind, {})
        return table.get(role, "")

    def render(self, line: Line) -> str:
        """The line as terminal text: every styled span opens with its SGR and
        closes with a reset, so any prefix of the output ends unstyled.

        Every span is cleaned here, whoever built it: the interface's text
        reaches the terminal only through this, so a control character (a
        file name's, a tool's, the model's, GitHub's) is drawn as `�`, and
        the only escapes written are our own. A row holds no newline: one
        left in a span is dropped (measured as nothing), never let move the
        cursor under the region's count of its rows."""
        out = []
        for raw, role in line:
            # (isprintable: no control, no newline; the fast path)
            text = raw if raw.isprintable() else clean(raw).replace("\n", "")
            url = ""
            if role.startswith(LINK):
                url, role = clean(role[len(LINK):]), "link"
            sgr = self.sgr(role) if role and self.styled else ""
            shown = f"\x1b[{sgr}m{text}\x1b[0m" if sgr else text
            if url and self.links and self.styled:
                shown = f"\x1b]8;;{url}\x1b\\{shown}\x1b]8;;\x1b\\"
            out.append(shown)
        return "".join(out)


def palette_for(env: Mapping[str, str] | None, plain: bool, colours: int) -> Palette:
    """The palette for this terminal: plain, NO_COLOR, or by colour count."""
    if plain:
        return Palette("plain")
    links = hyperlinks(env or {})
    if env is not None and env.get("NO_COLOR", "") != "":
        return Palette("mono", links)
    if colours >= 256:
        return Palette("256", links)
    if colours >= 8:
        return Palette("16", links)
    return Palette("mono", links)


def hyperlinks(env: Mapping[str, str]) -> bool:
    """Whether the terminal shows OSC 8 links: the terminals known to, and
    never inside tmux or screen (which drop them unless configured)."""
    if env.get("TMUX") or env.get("STY") or env.get("TERM", "").startswith(("screen", "tmux")):
        return False
    if env.get("TERM_PROGRAM") in ("iTerm.app", "WezTerm", "vscode", "ghostty"):
        return True
    if "kitty" in env.get("TERM", "") or env.get("TERM") == "xterm-ghostty":
        return True
    vte = env.get("VTE_VERSION", "")
    return vte.isdigit() and int(vte) >= 5000


def local_time(iso: str, zone: tzinfo | None = None) -> str:
    """An ISO 8601 time (a session's `updated_at`, in UTC) as this
    terminal's person reads it: `2026-12-02 09:14` in the local time zone
    (or `zone`); the text itself when it is not such a time."""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso[:16]
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")


def plain_text(line: Line) -> str:
    return "".join(text for text, _ in line)
