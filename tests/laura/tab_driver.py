"""A Tab without a terminal, asked as laura's socket asks it and drawn into
a canvas as the host draws it.

    tab = make_tab(tmp_path)             # 100x24 and marked ready (an agent said so)
    pane = open_pane(tab, path)          # `open` beside, its pane id
    ask(tab, {"type": "layout"})         # any request, through laura.commands.answer
    visible(tab, pane) -> list[str]      # the pane's rows as drawn
    tab = tab_at(tmp_path)               # 240x30, not ready
    shown(tab, pane) -> str              # the pane fitted, then drawn
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from laura.commands import answer
from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.tab import Tab, inner

WIDTH, HEIGHT = 100, 24


def make_tab(cwd: Path) -> Tab:
    tab = Tab(0, "test-tab", str(cwd), session="s")
    tab.area = Rect(0, 1, WIDTH, HEIGHT)
    tab.ready = True
    return tab


def tab_at(tmp_path: Path) -> Tab:
    tab = Tab(0, "t", str(tmp_path), session="s")
    tab.area = Rect(0, 1, 240, 30)
    return tab


def ask(tab: Tab, frame: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(answer(tab, json.dumps(frame).encode()))
    return reply


def open_pane(tab: Tab, path: Path, **fields: object) -> int:
    reply = ask(tab, {"type": "open", "path": str(path), "dir": "horizontal", **fields})
    assert reply["type"] == "opened", reply
    return int(reply["pane"])


def draw(tab: Tab, pane: int, focused: bool = False) -> tuple[Canvas, Rect]:
    canvas = Canvas(WIDTH, HEIGHT + 2)
    rect = tab.rects()[pane]
    file_pane = tab.panes[pane]
    area = inner(rect)
    file_pane.draw(canvas, area, focused, tab.cwd)
    return canvas, area


def visible(tab: Tab, pane: int) -> list[str]:
    canvas, area = draw(tab, pane)
    return [
        "".join(cell[0] for cell in canvas.rows[y][area.x : area.x + area.width]).rstrip()
        for y in range(area.y, area.y + area.height)
    ]


def shown(tab: Tab, pane: int) -> str:
    area = tab.pane_inner(tab.panes[pane])
    canvas = Canvas(area.x + area.width + 1, area.y + area.height + 1)
    tab.panes[pane].fit(area)
    tab.panes[pane].draw(canvas, area, False)
    return "\n".join(canvas.text())
