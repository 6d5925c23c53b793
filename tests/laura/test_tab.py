"""A tab's request handling without a terminal: `Tab.answer` is the seam the
socket calls, so the state a pane keeps can be checked directly."""

from __future__ import annotations

from pathlib import Path

from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.tab import Tab
from tests.laura.tab_driver import ask


def make_tab(tmp_path: Path) -> Tab:
    tab = Tab(0, "laura-test", str(tmp_path), session="laura-test-0")
    tab.area = Rect(0, 1, 120, 38)
    return tab


def test_highlight_clamps_centres_and_clears(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 201)))
    tab = make_tab(tmp_path)
    assert ask(tab, {"type": "open", "path": "a.txt", "highlight": [100, 104]})["pane"] == 1
    file_pane = tab.panes[1]
    assert file_pane.highlight == (100, 104)
    inner = tab.pane_inner(file_pane)
    assert file_pane.scroll == 99 - (inner.height - 5) // 2
    canvas = Canvas(120, 40)
    file_pane.draw(canvas, inner, focused=True)
    shown = "\n".join(canvas.text())
    assert "100   line 100" in shown and "  1   line 1\n" not in shown
    assert ask(tab, {"type": "highlight", "pane": 1, "start": 500, "end": 900}) == {"type": "ok"}
    assert file_pane.highlight == (200, 200)
    assert ask(tab, {"type": "highlight", "range": None}) == {"type": "ok"}
    assert file_pane.highlight is None


def test_comments_are_stored_on_the_pane_with_their_author(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    tab = make_tab(tmp_path)
    ask(tab, {"type": "open", "path": "a.txt"})
    assert ask(tab, {"type": "comment", "line": 2, "body": "why?"}) == {"type": "ok"}
    ask(tab, {"type": "ready", "agent": "claude"})
    assert ask(tab, {"type": "comment", "pane": 1, "line": 1, "body": "ok", "author": None}) == {"type": "ok"}
    threads = tab.panes[1].review.book.threads()
    assert [(t.line, [(n.body, n.agent) for n in t.notes]) for t in threads] == [
        (1, [("ok", "claude")]),
        (2, [("why?", "agent")]),
    ]


def test_follow_pins_the_cursor_to_the_last_row(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("".join(f"{n}\n" for n in range(100)))
    tab = make_tab(tmp_path)
    ask(tab, {"type": "open", "path": "log.txt", "follow": True})
    file_pane = tab.panes[1]
    assert file_pane.follow and file_pane.cursor == 99
    assert file_pane.scroll == 100 - tab.pane_inner(file_pane).height


def test_an_unreadable_file_opens_with_a_warning_and_says_so(tmp_path: Path) -> None:
    tab = make_tab(tmp_path)
    opened = ask(tab, {"type": "open", "path": "missing.txt"})
    assert opened["pane"] == 1
    assert any(w.startswith("cannot read missing.txt: No such file or directory") for w in opened["warnings"])
    canvas = Canvas(120, 40)
    tab.panes[1].draw(canvas, tab.pane_inner(tab.panes[1]), focused=False)
    assert "Couldn't read this file" in "\n".join(canvas.text())
