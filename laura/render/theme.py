"""The colours of file panes, in one place.

Mid-tone true colours chosen to read on both dark and light terminal
backgrounds: nothing close to white or black is used as a foreground on the
terminal's own background. Pure data.
"""

from __future__ import annotations

from laura.render.style import Style

# Syntax (code files and fenced blocks), foreground only.
KEYWORD = Style(fg=(168, 98, 196))
STRING = Style(fg=(90, 158, 88))
NUMBER = Style(fg=(206, 128, 56))
COMMENT = Style(fg=(128, 132, 140), italic=True)
FUNCTION = Style(fg=(64, 132, 214))
CLASS = Style(fg=(32, 150, 160), bold=True)
BUILTIN = Style(fg=(32, 150, 160))
DECORATOR = Style(fg=(196, 150, 40))
OPERATOR = Style(fg=(140, 140, 150))
ERROR = Style(fg=(214, 80, 80))

# Markdown.
HEADINGS = (
    Style(fg=(96, 130, 246), bold=True),
    Style(fg=(82, 111, 209), bold=True),
    Style(fg=(69, 94, 177), bold=True),
    Style(fg=(60, 81, 153), bold=True),
)
INLINE_CODE = Style(fg=(214, 120, 90))
LINK = Style(fg=(64, 132, 214), underline=True)
QUOTE_BAR = Style(fg=(128, 132, 140))
QUOTE_TEXT = Style(italic=True)
RULE = Style(fg=(128, 132, 140))
FRAME = Style(fg=(110, 114, 122))
HTML = Style(fg=(128, 132, 140))
BULLET = Style(fg=(128, 132, 140))
TASK_DONE = Style(fg=(90, 158, 88))
ALERTS = {
    "NOTE": ("ℹ", "Note", Style(fg=(64, 132, 214), bold=True)),
    "TIP": ("✱", "Tip", Style(fg=(90, 158, 88), bold=True)),
    "IMPORTANT": ("!", "Important", Style(fg=(168, 98, 196), bold=True)),
    "WARNING": ("⚠", "Warning", Style(fg=(206, 150, 40), bold=True)),
    "CAUTION": ("✖", "Caution", Style(fg=(214, 80, 80), bold=True)),
}

# Diffs (diff files, the inline diff view) and git markers.
DIFF_META = Style(fg=(120, 120, 120))
DIFF_HUNK = Style(fg=(129, 161, 193))
DIFF_ADDED = Style(fg=(90, 158, 88))
DIFF_REMOVED = Style(fg=(214, 96, 108))
MARK_ADDED = Style(fg=(56, 166, 96))
MARK_MODIFIED = Style(fg=(56, 150, 217))
MARK_REMOVED = Style(fg=(179, 89, 107))
GAP = Style(fg=(191, 97, 106))
# A pane's notice in place of content ("loading…").
NOTICE = Style(fg=(128, 132, 140), italic=True)

# Clip marker for pre-formatted lines that continue past the right edge.
CLIP = Style(dim=True)
CLIP_MARK = "›"
