"""Thread cards: the rows a file pane draws under a commented line.

Pure: a thread and a width in, `Row`s out. Card rows stand for no source
line (`source=None`), so the pane's line cursor and gutter pass over them.

    ╭───────────────────────────╮
    │ You · rename this         │
    │ └─ claude · why not a set? │
    ╰───────────────────────────╯

A collapsed card is one row: `▸ 2 comments · r expands`.
"""

from __future__ import annotations

import unicodedata

from laura.render.style import Row, Span, Style
from laura.review.payload import defuse_controls
from laura.review.threads import DEFAULT_AGENT, Note, Thread

BORDER = Style(fg=(110, 118, 134))
PERSON_NAME = Style(fg=(216, 222, 233), bg=(59, 66, 82), bold=True)
AGENT_NAME = Style(fg=(136, 192, 208), bold=True)
TEXT = Style(fg=(216, 222, 233))
REPLY_MARK = "└─ "
SEPARATOR = " · "


def cell_width(text: str) -> int:
    """Terminal cells `text` takes: wide East Asian characters two, combining
    marks none."""
    total = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def wrap_cells(text: str, width: int) -> list[str]:
    """`text` cut into pieces of at most `width` cells, preferring to break
    after a space; every piece non-empty except for empty text."""
    width = max(1, width)
    pieces: list[str] = []
    while cell_width(text) > width:
        cut, used = 0, 0
        for index, char in enumerate(text):
            used += cell_width(char)
            if used > width:
                break
            cut = index + 1
        cut = max(cut, 1)
        space = text.rfind(" ", 0, cut)
        if space > 0:
            cut = space + 1
        pieces.append(text[:cut].rstrip(" ") or text[:cut])
        text = text[cut:]
    pieces.append(text)
    return pieces


def visible(text: str) -> str:
    """`text` safe to draw on one row: control characters (an agent's
    comment may hold any) shown as control pictures instead of reaching the
    terminal, tabs as four spaces, a newline as ␊."""
    return defuse_controls(text.replace("\t", "    ")).replace("\n", "\u240a")


def display_name(note: Note) -> str:
    """`You` for the person; the fallback agent label title-cased; real
    agent names as given."""
    if note.by_person:
        return "You"
    assert note.agent is not None
    return note.agent.title() if note.agent == DEFAULT_AGENT else visible(note.agent)


def _note_lines(note: Note, reply: bool, inner: int) -> list[list[Span]]:
    """The content rows of one note inside a card of `inner` cells."""
    name = display_name(note)
    lead = (REPLY_MARK if reply else "") + name + SEPARATOR
    hang = " " * cell_width(lead)
    room = max(1, inner - cell_width(lead))
    rows: list[list[Span]] = []
    for paragraph_index, paragraph in enumerate(visible(line) for line in note.body.split("\n")):
        for piece_index, piece in enumerate(wrap_cells(paragraph, room)):
            if paragraph_index == 0 and piece_index == 0:
                style = PERSON_NAME if note.by_person else AGENT_NAME
                prefix = [Span(REPLY_MARK, BORDER)] if reply else []
                rows.append(
                    [*prefix, Span(name, style), Span(SEPARATOR, BORDER), Span(piece, TEXT)]
                )
            else:
                rows.append([Span(hang), Span(piece, TEXT)])
    return rows


def card_rows(thread: Thread, width: int, indent: int = 0) -> list[Row]:
    """The card for `thread` in a pane `width` cells wide, starting `indent`
    cells in (under the text, past the gutter)."""
    pad = Span(" " * indent) if indent > 0 else None
    available = max(1, width - indent)

    def row(spans: list[Span]) -> Row:
        return Row(tuple([pad, *spans] if pad else spans), source=None, first=False)

    if thread.collapsed:
        count = len(thread.notes)
        noun = "comment" if count == 1 else "comments"
        text = wrap_cells(f"▸ {count} {noun} · r expands", available)[0]
        return [row([Span(text, BORDER)])]
    # Border and one space each side take four cells.
    inner_limit = max(1, available - 4)
    content: list[list[Span]] = []
    for index, note in enumerate(thread.notes):
        content.extend(_note_lines(note, index > 0, inner_limit))
    inner = min(inner_limit, max(cell_width("".join(s.text for s in line)) for line in content))
    rows = [row([Span("╭" + "─" * (inner + 2) + "╮", BORDER)])]
    for line in content:
        used = cell_width("".join(s.text for s in line))
        fill = Span(" " * max(0, inner - used))
        rows.append(row([Span("│ ", BORDER), *line, fill, Span(" │", BORDER)]))
    rows.append(row([Span("╰" + "─" * (inner + 2) + "╯", BORDER)]))
    return rows

