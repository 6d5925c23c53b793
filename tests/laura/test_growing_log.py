"""A long log that keeps growing, followed in a pane: a reload decodes only
the bytes after those it already showed (when the file still begins with
them) and keeps the rows already counted, and the real `laura` keeps
showing the log and echoing keys through the reloads (before, a log
appended faster than it loaded showed "loading…" for good, and deciding
that the old lines were unchanged compared a million lines on the UI
loop). A comment made on the old lines while a reload reads the file keeps
them."""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from laura.panes import source
from laura.panes.file import FilePane
from laura.panes.source import Loaded, Loader, load_source
from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]

PIECES = [b"a", b"bc ", "é".encode(), "界".encode(), b"\n", b"\r\n", b"\r", b"\x1b[31m",
          b"\x07", b"\xff", b"\t", b"x" * 40]  # fmt: skip


def reload(path: Path, previous: Loaded) -> Loaded:
    return trio.run(Loader().load, str(path), previous)


def text(rng: random.Random, lines: int) -> bytes:
    return b"".join(rng.choice(PIECES) for _ in range(lines * 4)).replace(b"\r\n", b"\n") + b"\n"


@pytest.mark.parametrize("name, big", [("app.log", False), ("bundle.js", True)])
def test_a_reload_of_a_file_that_only_grew_decodes_only_what_was_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, big: bool
) -> None:
    monkeypatch.setattr(source, "PIECE", 16)
    monkeypatch.setattr(source, "PARSE_LIMIT", 64 if big else source.PARSE_LIMIT)
    rng = random.Random(7)
    path = tmp_path / name
    for _ in range(60):
        path.write_bytes(text(rng, 30))
        shown = trio.run(Loader().load, str(path))
        with path.open("ab") as log:
            log.write(text(rng, rng.randrange(1, 20)))
        grown = reload(path, shown)
        assert grown.grown
        whole = load_source(str(path)).document.lines
        shown_lines = list(shown.document.lines)
        joined = grown.joined()
        assert joined.document.lines == whole
        assert shown.document.lines == shown_lines  # the document it continues keeps its own


def test_a_reload_decodes_everything_again_unless_the_file_begins_as_before(tmp_path: Path) -> None:
    path = tmp_path / "app.log"
    path.write_bytes(b"one\ntwo\n")
    shown = trio.run(Loader().load, str(path))
    changes = {
        "a changed line, longer": b"ONE\ntwo\nthree\n",
        "the same length, another byte": b"one\ntwO\nthree\n",
        "shorter": b"one\n",
        "a line break taken out": b"one two\nthree\n",
    }
    for change, data in changes.items():
        path.write_bytes(data)
        loaded = reload(path, shown)
        assert not loaded.grown, change
        assert loaded.document.lines == data.decode().splitlines(), change


def test_an_unfinished_last_line_is_decoded_again_when_it_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "app.log"
    path.write_bytes(b"one\ntw")
    shown = trio.run(Loader().load, str(path))
    with path.open("ab") as log:
        log.write("o \u00e9\nthree\n".encode())
    loaded = reload(path, shown)
    assert not loaded.grown
    assert loaded.document.lines == ["one", "two é", "three"]
    with path.open("ab") as log:
        log.write(b"four\n")
    grown = reload(path, loaded)
    assert grown.grown
    assert grown.joined().document.lines == ["one", "two é", "three", "four"]


def test_markdown_and_code_under_the_parse_limit_are_loaded_whole(tmp_path: Path) -> None:
    for name in ("notes.md", "main.py"):
        path = tmp_path / name
        path.write_text("# one\n")
        shown = trio.run(Loader().load, str(path))
        with path.open("a") as file:
            file.write("two\n")
        loaded = reload(path, shown)
        assert not loaded.grown, name
        assert loaded.document.lines == ["# one", "two"], name


class Appender:
    """Appends a numbered line to `path` every `every` seconds until stopped."""

    def __init__(self, path: Path, every: float) -> None:
        self.path = path
        self.every = every
        self.written = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Appender:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.written += 1
            with self.path.open("a") as log:
                log.write(f"APPENDED {self.written}\n")


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("every", [0.3, 2.0], ids=["faster than it loads", "slower than it loads"])
def test_keys_keep_echoing_while_a_long_followed_log_grows(
    laura_session: Make, tmp_path: Path, every: float
) -> None:
    path = tmp_path / "server.log"
    path.write_text("".join(f"GET /index.html 200 {n} {'x' * 16}\n" for n in range(1_000_000)))
    session = laura_session(command=["cat"])
    opened = session.cli("open", str(path), "--no-focus", "--follow")
    assert opened.returncode == 0, opened.stderr
    session.wait_for("1000000 ")
    probe = EchoProbe(session)
    busy: list[float] = []
    try:
        idle = [probe.key("Z") for _ in range(20)]
        with Appender(path, every) as appender:
            # Keys until a second appended line shows, each line a reload.
            deadline = time.monotonic() + 60
            while not re.search(r"APPENDED [2-9]", session.text()):
                assert time.monotonic() < deadline, f"{appender.written} lines appended, none shown"
                busy += [probe.key("Z") for _ in range(10)]
    finally:
        probe.close()
    assert_keys_echoed(idle, busy, "while a followed log of a million lines grew")


class Changes:
    """A loader's `on_change`: wakes whoever waits for the pane to change."""

    def __init__(self) -> None:
        self._changed = trio.Event()

    def __call__(self) -> None:
        self._changed.set()

    async def until(self, condition: Callable[[], bool]) -> None:
        while not condition():
            await self._changed.wait()
            self._changed = trio.Event()


def two_megabytes(path: Path) -> None:
    path.write_text("".join(f"line {n}\n" for n in range(1, 250_001)))  # over INLINE_LIMIT


@pytest.mark.parametrize("begun", ["an agent's comment", "the person's comment prompt"])
def test_a_comment_begun_while_a_reload_reads_keeps_the_lines_it_was_made_on(
    tmp_path: Path, begun: str
) -> None:
    """A reload in the background keeps the old lines on screen, so a
    comment can be made on them meanwhile: the reload must not land under
    it (the comment would point at other lines). The pane keeps its lines,
    and the change is seen again as any change under a review is: a thread
    freezes the pane, a prompt holds the change until it closes."""
    path = tmp_path / "table.txt"
    two_megabytes(path)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            loader = Loader()
            changes = Changes()
            loader.attach(nursery, changes)
            pane = FilePane(1, str(path), "table.txt", loader)
            await changes.until(lambda: not pane.loading)
            path.write_text("INSERTED\n" + path.read_text())
            assert pane.reload_if_changed() and pane.reloading
            if begun == "an agent's comment":
                pane.review.book.comment_from_agent(
                    5, "why five?", line_count=pane.line_count, sources=pane.sources_of_line(5, 80)
                )
            else:
                pane.review.held = True
            await changes.until(lambda: not pane.reloading)
            assert pane.source_lines()[4] == "line 5"  # still the lines the comment was made on
            if begun == "an agent's comment":
                assert pane.reload_if_changed()
                assert pane.review.frozen and not pane.reloading
                assert pane.source_lines()[4] == "line 5"
                pane.review.book.clear()  # the review submitted: it thaws and reloads
            else:
                assert not pane.reload_if_changed()  # held under the prompt
                pane.review.held = False
            assert pane.reload_if_changed()
            await changes.until(lambda: not (pane.reloading or pane.loading))
            assert pane.source_lines()[:2] == ["INSERTED", "line 1"]
            nursery.cancel_scope.cancel()

    async def main() -> None:
        with trio.fail_after(30):
            await run()

    trio.run(main)
