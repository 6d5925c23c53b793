"""What a file pane holds of its file is bounded and let go: in the real
`laura`, a log of short lines costs a few times its size (its lines were a
list of strings: 27 times, 1.7 GB for 64 MiB), and opening and closing a
file again and again, as an agent does, keeps laura's memory flat (each open
of an 8 MB log kept over 200 MB until the collector's rare full pass).
In-process, with the collector off: a reloaded or closed file's document is
freed at once by reference counting (a code or diff document referred to
itself, and each reload of a generated file kept its old text)."""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from laura.commands import answer
from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.tab import Tab, inner
from tests.laura.git_helpers import committed, isolate_environment
from tests.laura.other_names import SPELLINGS, reached_by
from tests.laura.tmux import LauraSession, wait_until

Make = Callable[..., LauraSession]

MB = 1 << 20


def open_and_wait(session: LauraSession, path: Path, shows: str) -> str:
    """Open `path` focused, wait for `shows` on screen; the pane id."""
    opened = session.cli("open", str(path))
    assert opened.returncode == 0, opened.stderr
    pane = opened.stdout.strip()
    session.wait_for(lambda screen: shows in screen and "loading" not in screen, timeout=60)
    return pane


@pytest.mark.tmux
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_big_log_of_short_lines_costs_a_few_times_its_size(
    laura_session: Make, tmp_path: Path, spelling: str
) -> None:
    """16 MB of two-letter lines, opened and followed to its last line (so
    every line's rows are counted), by any name a checkout gives it."""
    target = tmp_path / "target.log"
    target.write_bytes(b"ab\n" * (16 * MB // 3 - 1) + b"LAST\n")
    path = reached_by(target, spelling, "--lines=1.log" if spelling == "option-looking name" else "short.log")
    session = laura_session(command=["cat"])
    before = session.resident_bytes()
    open_and_wait(session, path, "ab")
    session.send_keys("End")
    session.wait_for("LAST", timeout=60)
    grown = session.resident_bytes() - before
    assert grown < 5 * path.stat().st_size, f"{grown / MB:.0f} MB for a {path.stat().st_size / MB:.0f} MB log"


KINDS = {
    "a log of short lines": ("app.log", b"ab\n" * (8 * MB // 3) + b"LAST\n", "ab"),
    "a code file": ("generated.py", b"v = 1\n" * (6 * MB // 6) + b"LAST = 2\n", "v = 1"),
    "a diff": ("big.diff", b"--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n" * (6 * MB // 30) + b"+LAST\n", "@@ -1 +1 @@"),
}


@pytest.mark.tmux
@pytest.mark.parametrize("kind", list(KINDS))
def test_opening_and_closing_a_file_again_and_again_keeps_memory_flat(
    laura_session: Make, tmp_path: Path, kind: str
) -> None:
    """Five opens and closes cost what one does: after the second (the
    allocator settles), the rest add less than one open's cost in all."""
    name, data, shows = KINDS[kind]
    path = tmp_path / name
    path.write_bytes(data)
    session = laura_session(command=["cat"])
    start = session.resident_bytes()
    after_close = []
    one_open = 0
    for _ in range(5):
        pane = open_and_wait(session, path, shows)
        session.send_keys("End")  # lay out or count to the end, as a reader would
        session.wait_for("LAST", timeout=60)
        if not after_close:
            one_open = session.resident_bytes() - start
        assert session.cli("close", pane).returncode == 0
        session.wait_for(lambda screen, pane=pane: f"#{pane} " not in screen)
        after_close.append(session.resident_bytes())
    added = after_close[-1] - after_close[1]
    assert added < one_open, (
        f"{kind}: three more opens and closes kept {added / MB:.0f} MB (one open: {one_open / MB:.0f} MB;"
        f" after each close: {[round(size / MB) for size in after_close]} MB)"
    )


@pytest.mark.tmux
def test_resizing_a_followed_log_again_and_again_keeps_memory_flat(laura_session: Make, tmp_path: Path) -> None:
    """A followed log's rows are counted at each width the pane takes (a
    terminal dragged wider and narrower): only the views of the last few
    widths are kept: eight more widths of 5.6 million lines took 43 MB
    more than the first; kept all, 171 MB."""
    path = tmp_path / "app.log"
    path.write_bytes(b"ab\n" * (16 * MB // 3 - 2) + b"LAST\n")
    session = laura_session(command=["cat"], width=200)
    opened = session.cli("open", "--follow", "--no-focus", str(path))
    assert opened.returncode == 0, opened.stderr

    def counted_at(width: int) -> Callable[[str], bool]:
        def check(screen: str) -> bool:
            report = json.loads(session.cli("layout").stdout)
            pane = next(pane for pane in report["panes"] if pane["id"] != 0)
            return report["area"]["width"] == width and pane["content_rows"] is not None and "LAST" in screen
        return check

    session.wait_for(counted_at(200), timeout=60)
    first = session.resident_bytes()
    for width in (150, 110, 180, 100, 130, 90, 170, 120):
        session.tmux("resize-window", "-x", str(width))
        session.wait_for(counted_at(width), timeout=60)
    grown = session.resident_bytes() - first
    assert grown < 90 * MB, f"eight more widths kept {grown / MB:.0f} MB"


def tracked_and_rewritten(tmp_path: Path) -> Path:
    """8 MB of short lines, committed, then every line changed."""
    lines = [f"{n:06x}\n" for n in range(8 * MB // 7)]
    path = committed(tmp_path, "tracked.txt", "".join(lines) + "LAST\n")
    path.write_text("".join("x" + line for line in lines) + "LAST\n")
    return path


@pytest.mark.tmux
@pytest.mark.parametrize("shown", ["a log followed to its end", "a diff view shown to its end"])
def test_what_a_closed_pane_held_is_given_back_to_the_system(
    laura_session: Make, tmp_path: Path, shown: str
) -> None:
    """Closing a pane frees what it held at once, and laura's resident size
    comes back down: the allocator kept the freed pages (a 32 MB log of
    short lines, shown and closed, left laura 65 MB above idle; a diff view
    of an 8 MB file, 40 MB) until the next big allocation reused them."""
    session = laura_session(command=["cat"])
    idle = session.resident_bytes()
    if shown == "a log followed to its end":
        path = tmp_path / "app.log"
        path.write_bytes(b"ab\n" * (32 * MB // 3 - 2) + b"LAST\n")
        pane = open_and_wait(session, path, "ab")
    else:
        path = tracked_and_rewritten(tmp_path)
        pane = open_and_wait(session, path, "0000")
        session.wait_for(lambda screen: "d diff" in session.footer(), timeout=60)
        session.send_keys("d")
        session.wait_for("[diff]", timeout=60)
    session.send_keys("End")
    session.wait_for(lambda screen: "LAST" in screen and "reaching" not in screen, timeout=60)
    held = session.resident_bytes() - idle
    assert held > 30 * MB  # the pane held its file (or the case tests nothing)
    assert session.cli("close", pane).returncode == 0
    session.wait_for(lambda screen: f"#{pane} " not in screen)
    wait_until(
        lambda: session.resident_bytes() - idle < held // 5,
        timeout=10,
        what=f"laura's memory back near idle after closing a pane that held {held / MB:.0f} MB",
    )


# --- freed at once, in-process ---------------------------------------------------


@pytest.fixture
def collector_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    isolate_environment(tmp_path, monkeypatch)
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


FILES = {
    "app.log": "ab\tc\n" * 3000,
    "main.py": "x = 1\n" * 3000,
    "notes.md": "# T\n\npara *x*\n\n```py\nx = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" * 300,
    "fix.diff": "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n" * 600,
}


@pytest.mark.parametrize("name", list(FILES))
def test_a_reloaded_or_closed_files_document_is_freed_at_once(
    tmp_path: Path, collector_off: None, name: str
) -> None:
    """Shown, commented on, in the diff view, laid out to its end and lit
    there: then rewritten and reloaded, the old document and its views are
    freed; then closed, the pane lets go of the new one."""
    path = committed(tmp_path, name, FILES[name])
    path.write_text("changed\n" + FILES[name])
    tab = Tab(0, "memory", str(path.parent), session="s")
    tab.area = Rect(0, 1, 100, 24)
    tab.ready = True

    def ask(**frame: object) -> dict[str, object]:
        reply: dict[str, object] = json.loads(answer(tab, json.dumps(frame).encode()))
        assert reply["type"] != "error", reply
        return reply

    pane_id = int(ask(type="open", path=str(path))["pane"])  # type: ignore[call-overload]
    canvas = Canvas(100, 26)

    def draw() -> None:
        tab.panes[pane_id].draw(canvas, inner(tab.rects()[pane_id]), True, tab.cwd)

    draw()
    ask(type="comment", pane=pane_id, line=2, body="why?")
    ask(type="diffview", pane=pane_id, on=True)
    draw()
    tab.panes[pane_id].move_to_edge(1, inner(tab.rects()[pane_id]))
    draw()
    ask(type="highlight", pane=pane_id, start=1500, end=1501)
    draw()
    document = tab.panes[pane_id].document
    parts = [document, *tab.panes[pane_id].layout.views().values()]
    if document.colouring is not None:  # coloured in steps: not done yet
        assert not document.colouring.done
        parts.append(document.colouring)
    old = [weakref.ref(part) for part in parts]
    del document, parts
    ask(type="diffview", pane=pane_id, on=False)
    path.write_text("changed again\n" + FILES[name])
    tab.panes[pane_id].reload()
    draw()
    assert "changed again" in tab.panes[pane_id].source_lines()[0]
    assert [type(ref()).__name__ for ref in old if ref() is not None] == []
    tab.panes[pane_id].refresh()  # Ctrl+R: the comment is dropped, so the pane may close
    draw()
    shown = weakref.ref(tab.panes[pane_id].document)
    ask(type="close", pane=pane_id)
    assert shown() is None
