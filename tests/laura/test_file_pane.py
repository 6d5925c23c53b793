"""File panes inside a tab: highlight, reload, follow, git marks, diff view,
tail spools. Real files and real git repositories; the tab is driven through
its protocol entry point and drawn into a canvas, as the host does."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from laura import gitmarks
from laura.panes.file import FilePane
from laura.protocol import Rect
from laura.render import theme
from laura.render.canvas import Canvas
from laura.render.diff import plain_blocks
from laura.render.lines import KeptBlocks
from laura.render.view import DocumentView
from laura.render.wrapped_view import WrappedView
from laura.tab import inner
from tests.laura.git_helpers import committed, isolate_environment
from tests.laura.tab_driver import HEIGHT, WIDTH, ask, draw, make_tab, open_pane, visible


@pytest.fixture(autouse=True)
def private_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_environment(tmp_path, monkeypatch)


def paint(pane: FilePane, canvas: Canvas, area: Rect, focused: bool) -> None:
    """A frame of one pane as the host makes it: settle the view, then draw."""
    pane.fit(area)
    pane.draw(canvas, area, focused)


REFLOWED = (
    "# Doc\n\none two three\nfour five six\nseven eight\nnine ten\neleven twelve\nthirteen\n\n"
    "```python\nx = 1\ny = 2\n```\n"
)


def test_highlight_lights_the_two_code_lines_and_dims_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_text(REFLOWED)
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path)
    assert ask(tab, {"type": "highlight", "pane": pane, "start": 11, "end": 12}) == {"type": "ok"}
    canvas, area = draw(tab, pane)
    rows = visible(tab, pane)
    lit = [i for i, text in enumerate(rows) if "x = 1" in text or "y = 2" in text]
    assert len(lit) == 2
    for offset, y in enumerate(range(area.y, area.y + area.height)):
        cells = canvas.rows[y][area.x + 6 : area.x + area.width]
        styled = [style for text, style in cells if text.strip()]
        if not styled:
            continue
        if offset in lit:
            assert not any(style.dim for style in styled), rows[offset]
        else:
            assert all(style.dim for style in styled), rows[offset]
    assert rows[lit[0]].lstrip().startswith("11")


def test_highlight_scrolls_once_centred_and_clamps(tmp_path: Path) -> None:
    path = tmp_path / "long.py"
    path.write_text("".join(f"value_{n} = {n}\n" for n in range(1, 201)))
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path)
    file_pane = tab.panes[pane]
    ask(tab, {"type": "highlight", "pane": pane, "range": [100, 101]})
    height = inner(tab.rects()[pane]).height
    assert file_pane.scroll == 99 - (height - 2) // 2
    assert file_pane.cursor == 99
    rows = visible(tab, pane)
    assert any("value_100 = 100" in row for row in rows)
    file_pane.move_cursor(5, inner(tab.rects()[pane]))
    assert file_pane.highlight == (100, 101)  # the cursor does not clear it
    ask(tab, {"type": "highlight", "pane": pane, "range": [500, 900]})
    assert file_pane.highlight == (200, 200)
    assert "value_200 = 200" in visible(tab, pane)[-1]
    ask(tab, {"type": "highlight", "pane": pane, "range": None})
    assert file_pane.highlight is None


def test_open_with_highlight_applies_on_first_paint(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text("".join(f"line {n}\n" for n in range(1, 301)))
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path, highlight=[250, 250])
    rows = visible(tab, pane)
    assert any(row.endswith("line 250") for row in rows)
    assert tab.panes[pane].lit_rows(inner(tab.rects()[pane]).width) == range(249, 250)


def test_a_request_right_after_an_edit_sees_the_new_content(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("one\ntwo\nthree\n")
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path)
    path.write_text("ONE\nTWO\nTHREE\n")  # same size
    report = ask(tab, {"type": "layout"})
    assert report["type"] == "report"
    assert tab.panes[pane].source_lines() == ["ONE", "TWO", "THREE"]
    path.write_text("1\n2\n3\n4\n5\n")
    report = ask(tab, {"type": "layout"})
    panes = report["panes"]
    assert isinstance(panes, list)
    assert panes[1]["content_rows"] == 5


def test_reload_keeps_the_cursor_line_and_clamps_the_highlight(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_text("".join(f"x{n} = {n}\n" for n in range(1, 101)))
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path)
    file_pane = tab.panes[pane]
    ask(tab, {"type": "highlight", "pane": pane, "range": [60, 70]})
    draw(tab, pane)
    path.write_text("# header\n" + "".join(f"x{n} = {n}\n" for n in range(1, 101)))
    assert tab.poll_files()
    draw(tab, pane)
    assert file_pane.rows(inner(tab.rects()[pane]).width).line_at(file_pane.cursor) == 60
    path.write_text("".join(f"x{n} = {n}\n" for n in range(1, 11)))
    assert tab.poll_files()
    assert file_pane.highlight == (10, 10)
    assert not tab.poll_files()


def test_follow_pins_to_the_end_as_the_file_grows(tmp_path: Path) -> None:
    path = tmp_path / "app.log"
    path.write_text("".join(f"event {n}\n" for n in range(1, 51)))
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path, follow=True)
    assert visible(tab, pane)[-1].endswith("event 50")
    with path.open("a") as log:
        log.write("".join(f"event {n}\n" for n in range(51, 81)))
    assert tab.poll_files()
    assert visible(tab, pane)[-1].endswith("event 80")


def test_git_markers_stats_and_gap_rows_after_an_edit(tmp_path: Path) -> None:
    path = committed(tmp_path, "ten.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path)
    assert "+" not in tab.panes[pane].title(tab.cwd)
    lines = [f"line {n}" for n in range(1, 11)]
    lines[1] = "line 2 changed"
    del lines[4]
    path.write_text("\n".join(lines) + "\n")
    assert tab.poll_files()
    file_pane = tab.panes[pane]
    assert file_pane.title(tab.cwd).endswith("+1 -2")
    rows = visible(tab, pane)
    assert rows[1] == "2 ▌ line 2 changed"
    assert rows[4].startswith("    ── 1 line removed ───")
    assert rows[5] == "5 ▌ line 6"
    canvas, area = draw(tab, pane)
    assert canvas.rows[area.y + 1][area.x + 2] == ("▌", theme.MARK_MODIFIED)


def test_diff_view_toggles_and_refuses_when_there_is_nothing_to_diff(tmp_path: Path) -> None:
    path = committed(tmp_path, "six.txt", "".join(f"line {n}\n" for n in range(1, 7)))
    untracked = path.parent / "new.txt"
    untracked.write_text("fresh\n")
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path)
    assert ask(tab, {"type": "diffview", "pane": pane, "on": True}) == {
        "type": "error",
        "message": "no changes vs HEAD — nothing to diff",
    }
    assert not tab.panes[pane].diff_view
    path.write_text("line 1\nline 2 CHANGED\nline 3\nline 5\nline 6\n")
    assert ask(tab, {"type": "diffview", "pane": pane}) == {"type": "ok"}
    rows = visible(tab, pane)
    assert rows[:7] == [
        "1    line 1",
        "    -line 2",
        "2   +line 2 CHANGED",
        "3    line 3",
        "    -line 4",
        "4    line 5",
        "5    line 6",
    ]
    ask(tab, {"type": "highlight", "pane": pane, "range": [2, 2]})
    assert tab.panes[pane].lit_rows(inner(tab.rects()[pane]).width) == range(2, 3)
    assert ask(tab, {"type": "diffview", "pane": pane, "on": False}) == {"type": "ok"}
    assert not tab.panes[pane].diff_view
    reply = ask(tab, {"type": "open", "path": str(untracked), "diff": True})
    assert reply["type"] == "opened"
    assert "no changes vs HEAD — nothing to diff" in reply["warnings"]  # type: ignore[operator]


def test_missing_git_warns_once_and_refuses_the_diff_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    first = tmp_path / "a.txt"
    first.write_text("a\n")
    second = tmp_path / "b.txt"
    second.write_text("b\n")
    tab = make_tab(tmp_path)
    reply = ask(tab, {"type": "open", "path": str(first), "diff": True})
    warnings = reply["warnings"]
    assert isinstance(warnings, list)
    assert warnings[:2] == [gitmarks.MISSING_GIT_WARNING, gitmarks.DIFF_VIEW_NEEDS_GIT]
    reply = ask(tab, {"type": "open", "path": str(second)})
    assert gitmarks.MISSING_GIT_WARNING not in reply["warnings"]  # type: ignore[operator]
    assert ask(tab, {"type": "diffview"})["message"] == gitmarks.DIFF_VIEW_NEEDS_GIT


def test_unreadable_and_binary_files_warn_and_show_why(tmp_path: Path) -> None:
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01\x02")
    tab = make_tab(tmp_path)
    reply = ask(tab, {"type": "open", "path": str(blob)})
    assert f"cannot read {blob}: binary file" in reply["warnings"]  # type: ignore[operator]
    shown = " ".join(row.strip() for row in visible(tab, int(reply["pane"])))  # type: ignore[call-overload]
    assert "Couldn't read this file — binary file. Check the path." in shown


def test_horizontal_scroll_moves_code_but_not_past_its_end(tmp_path: Path) -> None:
    path = tmp_path / "wide.py"
    path.write_text("x = '" + "abcdefghij" * 12 + "'\n")
    tab = make_tab(tmp_path)
    pane = open_pane(tab, path)
    file_pane = tab.panes[pane]
    area = inner(tab.rects()[pane])
    assert visible(tab, pane)[0].endswith("›")
    for _ in range(50):
        file_pane.scroll_sideways(1, area)
    assert 0 < file_pane.hscroll <= 130
    row = visible(tab, pane)[0]
    assert row.endswith("j'") and "‹" in row
    for _ in range(50):
        file_pane.scroll_sideways(-1, area)
    assert file_pane.hscroll == 0


def test_spools_are_deleted_with_their_pane_and_nothing_else_is(tmp_path: Path) -> None:
    runtime = Path(os.environ["LAURA_RUNTIME"])
    runtime.mkdir(parents=True)
    spool = runtime / "tail-1.txt"
    spool.write_text("log\n")
    mine = tmp_path / "mine.txt"
    mine.write_text("keep\n")
    tab = make_tab(tmp_path)
    tab.runtime = str(runtime)
    spool_pane = open_pane(tab, spool, spool=True)
    mine_pane = open_pane(tab, mine)
    ask(tab, {"type": "close", "pane": mine_pane})
    assert mine.exists()
    ask(tab, {"type": "close", "pane": spool_pane})
    assert not spool.exists()
    again = runtime / "tail-2.txt"
    again.write_text("x\n")
    open_pane(tab, again, spool=True)
    ask(tab, {"type": "close", "all": True})
    assert not again.exists()


def test_a_file_the_person_keeps_in_the_runtime_dir_survives_close(tmp_path: Path) -> None:
    # Sitting in the runtime directory does not make a file a spool: only
    # `laura tail` (which says `spool: true`) created files are deleted.
    runtime = Path(os.environ["LAURA_RUNTIME"])
    runtime.mkdir(parents=True)
    mine = runtime / "mine.txt"
    mine.write_text("keep\n")
    also_mine = runtime / "tail-9.txt"
    also_mine.write_text("keep too\n")
    tab = make_tab(tmp_path)
    tab.runtime = str(runtime)
    first = open_pane(tab, mine)
    open_pane(tab, also_mine)
    ask(tab, {"type": "close", "pane": first})
    assert mine.exists()
    open_pane(tab, mine)
    ask(tab, {"type": "close", "all": True})
    assert mine.read_text() == "keep\n"
    assert also_mine.read_text() == "keep too\n"
    # A spool claim for a file outside the runtime directory is not honoured.
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("keep\n")
    open_pane(tab, outside, spool=True)
    ask(tab, {"type": "close", "all": True})
    assert outside.exists()


def test_a_lazily_laid_out_markdown_pane_paints_without_laying_out_everything(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.md"
    path.write_text("".join(f"## Part {n}\n\nText of part {n}.\n\n" for n in range(3000)))
    pane_obj = FilePane(1, str(path), "big.md")
    canvas = Canvas(WIDTH, HEIGHT)
    paint(pane_obj, canvas, Rect(1, 1, 60, 20), focused=True)
    assert len(pane_obj.document._made) < 40
    assert "## Part 0" in "".join(cell[0] for cell in canvas.rows[1])


def test_opening_a_long_markdown_file_lays_out_only_what_the_reply_needs(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_text("".join(f"## Part {n}\n\nText of part {n}.\n\n" for n in range(3000)))
    tab = make_tab(tmp_path)
    reply = ask(tab, {"type": "open", "path": str(path), "dir": "horizontal"})
    assert reply["type"] == "opened", reply
    pane = int(reply["pane"])  # type: ignore[call-overload]
    _canvas, area = draw(tab, pane)
    rows = tab.panes[pane].source_rows(area.width)
    # The open and its first paint laid out a screenful and a bit, not 12,000 rows.
    assert not rows.complete()
    assert rows.rows_so_far() < 400
    warning = next(w for w in reply["warnings"] if "overflows" in w)  # type: ignore[attr-defined]
    assert re.search(rf"pane #{pane} overflows: \d+\+ row\(s\) below the fold", warning)
    # `layout` still counts every row exactly.
    report = ask(tab, {"type": "layout"})
    entry = next(p for p in report["panes"] if p["id"] == pane)  # type: ignore[attr-defined]
    assert entry["content_rows"] == len(rows) == 12000
    assert entry["overflow_rows"] == 12000 - entry["visible_rows"]


def test_a_growing_log_followed_makes_only_the_rows_it_shows(tmp_path: Path) -> None:
    path = tmp_path / "tail-7.txt"
    path.write_text("".join(f"entry {n} " + "word " * (n % 30) + "\n" for n in range(300)))
    area = Rect(1, 1, 60, 20)
    pane = FilePane(1, str(path), "tail-7.txt")
    pane.set_follow(True, area)
    paint(pane, Canvas(62, 22), area, True)
    with path.open("a") as log:
        log.write("".join(f"late {n} " + "word " * n + "\n" for n in range(40)))
    assert pane.reload_if_changed()
    canvas = Canvas(62, 22)
    paint(pane, canvas, area, True)
    after = pane.rows(area.width)
    assert isinstance(after, WrappedView)
    assert len(after._kept) < 2 * area.height  # rows made: the screen's, not the file's
    fresh = DocumentView(KeptBlocks(plain_blocks(path.read_text())), 340, pane.text_width(area.width))
    assert list(after) == list(fresh)
    assert any("late 39" in row for row in canvas.text())  # followed to the end


def test_a_rewritten_log_is_laid_out_afresh(tmp_path: Path) -> None:
    path = tmp_path / "tail-8.txt"
    path.write_text("".join(f"entry {n}\n" for n in range(200)))
    area = Rect(1, 1, 60, 20)
    pane = FilePane(1, str(path), "tail-8.txt")
    paint(pane, Canvas(62, 22), area, True)
    list(pane.rows(area.width))
    path.write_text("".join(f"ENTRY {n}\n" for n in range(250)))
    assert pane.reload_if_changed()
    rows = list(pane.rows(area.width))
    assert [row.spans[0].text for row in rows[:2]] == ["ENTRY 0", "ENTRY 1"]
    assert len(rows) == 250


def test_a_resize_keeps_the_cursor_on_its_source_line(tmp_path: Path) -> None:
    path = tmp_path / "prose.txt"
    path.write_text("".join(f"line {n} " + "filler words " * 8 + "\n" for n in range(1, 80)))
    pane = FilePane(1, str(path), "prose.txt")
    wide = Rect(1, 1, 120, 20)
    paint(pane, Canvas(122, 22), wide, True)
    pane.set_highlight((40, 40), wide)
    paint(pane, Canvas(122, 22), wide, True)
    narrow = Rect(1, 1, 40, 20)
    canvas = Canvas(42, 22)
    paint(pane, canvas, narrow, True)
    assert pane.rows(narrow.width).line_at(pane.cursor) == 40
    assert any("line 40 " in row for row in canvas.text())


def test_lit_rows_are_reverse_video_across_and_the_rest_dimmed(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("first line\nsecond line\nthird line\n")
    pane = FilePane(1, str(path), "notes.txt")
    area = Rect(1, 1, 30, 5)
    pane.set_highlight((2, 2), area)
    canvas = Canvas(32, 7)
    paint(pane, canvas, area, False)
    lit = canvas.rows[2]
    assert "second line" in canvas.text()[2]
    # every cell of the lit row, gutter, text and trailing blanks, is reversed
    assert all(style.reverse for _, style in lit[area.x : area.x + area.width])
    for y in (1, 3):
        text_cells = [
            style for char, style in canvas.rows[y][area.x : area.x + area.width] if char.strip()
        ]
        assert all(not style.reverse for style in text_cells)
        assert any(style.dim for style in text_cells)


def test_dimmed_rows_blank_colour_emoji_but_keep_symbols(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("- [x] shipped 🎉\n- [ ] next ✓\n- lit row\n")
    pane = FilePane(1, str(path), "notes.md")
    area = Rect(1, 1, 40, 6)
    pane.set_highlight((3, 3), area)
    canvas = Canvas(42, 8)
    paint(pane, canvas, area, False)
    rows = canvas.text()
    assert "🎉" not in rows[1] and "shipped" in rows[1]
    assert "☐ next ✓" in rows[2]


def view_state(pane: FilePane) -> tuple[object, ...]:
    return (pane.cursor, pane.scroll, pane.hscroll, pane.highlight, pane.follow, pane.diff_view)


def test_drawing_reads_only_and_fit_settles_after_a_change(tmp_path: Path) -> None:
    path = tmp_path / "prose.txt"
    path.write_text("".join(f"line {n} " + "filler words " * 8 + "\n" for n in range(1, 80)))
    pane = FilePane(1, str(path), "prose.txt")
    wide, narrow = Rect(1, 1, 120, 20), Rect(1, 1, 40, 20)
    paint(pane, Canvas(122, 22), wide, True)
    pane.set_highlight((40, 40), wide)
    pane.move_cursor(10**6, wide)  # past the end: the move clamps
    before = view_state(pane)
    # A narrower rect re-wraps every row, but drawing into it moves nothing ...
    for _ in range(2):
        pane.draw(Canvas(42, 22), narrow, True)
        pane.title(str(tmp_path), narrow)
        assert view_state(pane) == before
    # ... the settle does: the cursor stays on its source line.
    line = pane.rows(wide.width).line_at(pane.cursor)
    pane.fit(narrow)
    assert view_state(pane) != before
    assert pane.rows(narrow.width).line_at(pane.cursor) == line
