"""Screen furniture drawn around and over the panes: tab bar, borders, hint
footer, the panes popup, help, toasts. Pure drawing into a `Canvas`."""

from __future__ import annotations

from collections.abc import Sequence

from laura.protocol import Rect
from laura.render.canvas import Canvas, text_width
from laura.render.style import PLAIN, Style

BORDER = Style(fg=(90, 90, 90))
BORDER_FOCUSED = Style(fg=(136, 192, 208), bold=True)
TAB_ACTIVE = Style(reverse=True, bold=True)
TAB_IDLE = Style(fg=(160, 160, 160))
FOOTER = Style(fg=(170, 170, 170))
TOAST = Style(fg=(235, 203, 139), bold=True)
POPUP = Style(fg=(216, 222, 233))
DIMMED = Style(fg=(100, 100, 100))

HINT_SHELL = "  Ctrl+P panes · Ctrl+T tabs · Ctrl+H help · Ctrl+Q quit · F12 lock"
HINT_FILE = "  ↑/↓ move · ←/→ scroll · d diff · h clear · x close · Esc leave pane"
HINT_LOCKED = "  🔒 locked — every key goes to the shell · F12 unlock"
HINT_QUIT = "  quit? press y to confirm · any other key cancels"
HINT_PANES = "  type a pane id · Enter pick · Esc dismiss"
HINT_TABS = "  ←/→ tabs · n new tab · x close tab · r rename tab · Esc dismiss"
HINT_RENAME = "  rename tab · Enter save · Esc cancel"
HINT_HELP = "  any key closes help"

HELP_LINES = (
    "Global",
    "  Ctrl+P   panes popup: type a pane id to focus it",
    "  Ctrl+T   tabs: n new · ←/→ switch · x close · r rename",
    "  Ctrl+Q   quit (confirm with y)",
    "  F12      lock: every key goes to the shell",
    "  Ctrl+H   this help",
    "Shell pane",
    "  PgUp/PgDn, wheel   scroll back; any key returns to live",
    "Focused file pane",
    "  ↑/↓ move · PgUp/PgDn scroll · Home/End (g/G) first/last line",
    "  ←/→ scroll code sideways",
    "  h clear highlight · d diff vs HEAD · Ctrl+R reload",
    "  x close pane · Esc back to the shell",
)


def draw_tab_bar(canvas: Canvas, labels: Sequence[str], active: int, locked: bool) -> None:
    x = 0
    for index, label in enumerate(labels):
        x = canvas.put(x, 0, f" {label} ", TAB_ACTIVE if index == active else TAB_IDLE)
        x = canvas.put(x, 0, " ")
    if locked:
        badge = " 🔒 locked "
        canvas.put(max(canvas.width - text_width(badge), x), 0, badge, TOAST)


def draw_border(canvas: Canvas, rect: Rect, focused: bool, title: str = "") -> None:
    if rect.width < 2 or rect.height < 2:
        canvas.fill(rect, "·", BORDER)
        return
    style = BORDER_FOCUSED if focused else BORDER
    right = rect.x + rect.width - 1
    bottom = rect.y + rect.height - 1
    horizontal = "─" * (rect.width - 2)
    canvas.put(rect.x, rect.y, "┌" + horizontal + "┐", style)
    canvas.put(rect.x, bottom, "└" + horizontal + "┘", style)
    for y in range(rect.y + 1, bottom):
        canvas.put(rect.x, y, "│", style)
        canvas.put(right, y, "│", style)
    if title and rect.width > 4:
        canvas.put(rect.x + 1, rect.y, f" {fit_title(title, rect.width - 4)} ", style, right)


def fit_title(title: str, room: int) -> str:
    """`title` within `room` cells: a long path loses its middle, so the
    pane id and the file name stay readable."""
    if len(title) <= room:
        return title
    head, _, tail = title.partition(" ")
    keep = room - len(head) - 2
    return f"{head} …{tail[-keep:]}" if keep > 0 else title[:room]


def draw_footer(canvas: Canvas, hint: str) -> None:
    canvas.put(0, canvas.height - 1, hint, FOOTER)


def draw_toast(canvas: Canvas, text: str) -> None:
    width = text_width(text) + 2
    canvas.put(max(canvas.width - width, 0), canvas.height - 2, f" {text} ", TOAST)


def draw_box(canvas: Canvas, title: str, lines: Sequence[tuple[str, Style]], width: int) -> None:
    """A centred bordered box holding `lines`."""
    width = min(width, canvas.width)
    height = min(len(lines) + 2, canvas.height)
    rect = Rect(
        max((canvas.width - width) // 2, 0), max((canvas.height - height) // 2, 0), width, height
    )
    canvas.fill(rect, " ", PLAIN)
    draw_border(canvas, rect, True, title)
    for offset, (text, style) in enumerate(lines[: height - 2]):
        canvas.put(rect.x + 1, rect.y + 1 + offset, text, style, rect.x + rect.width - 1)


def draw_panes_popup(canvas: Canvas, entries: Sequence[tuple[int, str]], typed: str) -> None:
    lines = [
        (f"  {pane_id}  {name}", POPUP if str(pane_id).startswith(typed) else DIMMED)
        for pane_id, name in entries
    ]
    lines.append(("", PLAIN))
    lines.append(
        (f"  typed: {typed}" if typed else "  type a pane id  Enter pick · Esc dismiss", FOOTER)
    )
    draw_box(canvas, "Panes", lines, 40)


def draw_help(canvas: Canvas) -> None:
    lines = [(line, POPUP if line.startswith(" ") else TOAST) for line in HELP_LINES]
    draw_box(canvas, "Help", lines, max(text_width(line) for line in HELP_LINES) + 4)
