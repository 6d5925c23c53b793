"""A line far down a big markdown file or a long wrapped log is reached by
laying the file out (or counting its rows) in steps between keys: a
highlight there, an agent's comment there, and the person's jump to a
thread there keep keys echoing in the real `laura`, and land when the rows
are ready. Before, each laid out (or counted) every row above the line on
the UI loop: seconds for a 1 MB markdown file, 7-9 s for 7 MB."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio

from laura.panes.file import FilePane
from laura.panes.source import Loader
from laura.protocol import Rect
from laura.render.document import row_text
from tests.helpers.wait import wait_until_async
from tests.laura.echo_probe import EchoProbe, assert_keys_echoed, keys_while_cli
from tests.laura.tmux import LauraSession, wait_until

Make = Callable[..., LauraSession]

PARAGRAPH = "A paragraph of prose, long enough to wrap at least once " * 2 + "\n\n"


def markdown(path: Path, size: int = 1_000_000) -> int:
    """`size` bytes of paragraphs, the last saying FAR_AWAY; its line."""
    count = size // len(PARAGRAPH)
    path.write_text(PARAGRAPH * count + "FAR_AWAY is here.\n")
    return 2 * count + 1


def wrapped_log(path: Path) -> int:
    """80,000 lines that each wrap, the last saying FAR_AWAY; its line."""
    count = 80_000
    with path.open("w") as out:
        for start in range(0, count, 40_000):
            out.write("".join(f"request {n} " + "x" * 150 + "\n" for n in range(start, start + 40_000)))
        out.write("FAR_AWAY is here.\n")
    return count + 1


FILES = {"notes.md": markdown, "server.log": wrapped_log}


def opened(session: LauraSession, path: Path, *args: str) -> str:
    """Open `path` without focus and wait for its first rows; the pane id."""
    opening = session.cli("open", str(path), "--no-focus", *args)
    assert opening.returncode == 0, opening.stderr
    session.wait_for("A paragraph" if path.suffix == ".md" else "request 0 ", timeout=60)
    return opening.stdout.strip()


def with_landed_pane(path: Path, inner: Rect, body: Callable[[FilePane], Awaitable[None]]) -> None:
    """Run `body` on a pane of `path` fitted to `inner` once its load
    landed, with background jobs as in the host (a minute at most)."""

    async def main() -> None:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                loader = Loader()
                loader.attach(nursery, lambda: None)
                pane = FilePane(1, str(path), path.name, loader)
                await pane.reach(1, inner.width)
                pane.fit(inner)
                await body(pane)
                nursery.cancel_scope.cancel()

    trio.run(main)


@pytest.mark.parametrize("moved_meanwhile", [False, True])
def test_end_in_a_big_markdown_file_waits_for_its_rows_and_a_move_meanwhile_cancels_it(
    tmp_path: Path, moved_meanwhile: bool
) -> None:
    """End far down a file whose rows are laid out in the background: the
    cursor goes to the last row once they are (never laid out on the spot),
    unless the person moved meanwhile (the view must not jump from under
    them seconds later)."""
    path = tmp_path / "notes.md"
    last = markdown(path)
    inner = Rect(0, 0, 100, 30)

    async def body(pane: FilePane) -> None:
        pane.move_to_edge(1, inner)
        view = pane.source_rows(inner.width)
        assert view.laid_through() < last, "laid out at once: nothing to wait for"
        title = lambda: pane.title("", inner)  # noqa: E731
        assert re.search(r"\[reaching the end… \d+%\]", title()), title()
        if moved_meanwhile:
            pane.move_cursor(-1, inner)
        else:  # the title tells how far it got
            await wait_until_async(lambda: "… 5" in title(), what="half way")
        await wait_until_async(lambda: view.laid_through() >= last, what="the rows laid out")
        pane.fit(inner)  # as the host does after every change
        total = pane.content_rows(inner.width)
        assert total is not None
        assert "reaching the end" not in title()
        if moved_meanwhile:  # a screen or so down (what was laid out), not at the end
            assert pane.viewport.cursor < total // 10
        else:
            assert pane.viewport.cursor == total - 1
            assert pane.cursor_line(inner.width) == last
            pane.move_to_edge(-1, inner)
            pane.fit(inner)
            assert (pane.viewport.cursor, pane.viewport.scroll) == (0, 0)

    with_landed_pane(path, inner, body)


def test_a_far_highlight_says_in_the_title_how_far_its_rows_are(tmp_path: Path) -> None:
    """An agent lights a line far down a big markdown file: until its rows
    are laid out the pane still shows the top, and its title says why."""
    path = tmp_path / "notes.md"
    last = markdown(path)
    inner = Rect(0, 0, 100, 30)

    async def body(pane: FilePane) -> None:
        title = lambda: pane.title("", inner)  # noqa: E731
        assert "reaching" not in title()
        pane.set_highlight((last, last), inner)
        assert re.search(rf"\[reaching line {last}… \d+%\]", title()), title()
        await wait_until_async(lambda: "reaching" not in title(), what="the rows laid out")
        pane.fit(inner)
        assert pane.cursor_line(inner.width) == last

    with_landed_pane(path, inner, body)


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("name", list(FILES))
def test_a_highlight_far_down_keeps_keys_echoing(laura_session: Make, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    last = FILES[name](path)
    session = laura_session(command=["cat"])
    pane = opened(session, path)
    idle, busy = keys_while_cli(session, "highlight", "--pane", pane, str(last))
    session.wait_for("FAR_AWAY is here.", timeout=60)
    assert_keys_echoed(idle, busy, f"while a highlight went to the end of {name}")


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("name", list(FILES))
def test_an_agents_comment_far_down_keeps_keys_echoing(laura_session: Make, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    last = FILES[name](path)
    session = laura_session(command=["cat"])
    assert session.cli("ready", "--agent", "bot").returncode == 0
    pane = opened(session, path)
    idle, busy = keys_while_cli(session, "comment", str(last), "FAR_CARD", "--pane", pane)
    session.wait_for("[review: 1 ↑0 ↓1]")
    assert_keys_echoed(idle, busy, f"while an agent commented at the end of {name}")
    # The card is where the line is: a highlight there shows both.
    assert session.cli("highlight", "--pane", pane, str(last)).returncode == 0
    session.wait_for(lambda text: "FAR_AWAY is here." in text and "bot · FAR_CARD" in text, timeout=60)


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("name", list(FILES))
def test_the_persons_jump_to_a_thread_far_down_keeps_keys_answered(
    laura_session: Make, tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    last = FILES[name](path)
    session = laura_session(command=["cat"])
    assert session.cli("ready", "--agent", "bot").returncode == 0
    pane = opened(session, path)
    assert session.cli("focus", pane).returncode == 0
    assert session.cli("comment", str(last), "FAR_CARD", "--pane", pane).returncode == 0
    session.wait_for("[review: 1 ↑0 ↓1]")
    # A new width: the rows far down are laid out (counted) afresh.
    session.tmux("resize-window", "-x", "100", "-y", "40")
    session.wait_for(lambda text: len(session.screen()[0]) <= 100 and "[review: 1 ↑0 ↓1]" in text)
    probe = EchoProbe(session)
    try:
        idle = [probe.press("C-p", shows="type a pane id")]
        session.send_keys("Escape")
        session.wait_for(lambda text: "type a pane id" not in text)
        session.send_keys("n")
        busy = [probe.press("C-p", shows="type a pane id")]
        session.send_keys("Escape")
    finally:
        probe.close()
    assert_keys_echoed(idle, busy, f"after a jump to a thread at the end of {name}")
    session.wait_for(lambda text: "FAR_AWAY is here." in text and "bot · FAR_CARD" in text, timeout=60)


@pytest.mark.tmux
def test_an_agents_comment_right_after_the_open_waits_for_the_load(laura_session: Make, tmp_path: Path) -> None:
    """An agent that opens a big file and comments at once is not told the
    file has no lines while it loads: the comment applies once it has."""
    path = tmp_path / "server.log"
    last = wrapped_log(path)
    session = laura_session(command=["cat"])
    assert session.cli("ready", "--agent", "bot").returncode == 0
    opening = session.cli("open", str(path), "--no-focus")
    assert opening.returncode == 0, opening.stderr
    commented = session.cli("comment", str(last), "FAR_CARD", "--pane", opening.stdout.strip())
    assert commented.returncode == 0, commented.stderr
    session.wait_for("[review: 1 ↑0 ↓1]")
    past = session.cli("comment", str(last + 1), "nowhere", "--pane", opening.stdout.strip())
    assert past.stderr.strip() == f"Error: line {last + 1} is past the file's {last} lines"


def test_a_reach_lays_out_the_rows_a_reload_brings_while_it_runs(tmp_path: Path) -> None:
    """What an agent's comment waits for: the load, then the rows through
    its line; when the file is reloaded meanwhile, the new rows."""
    path = tmp_path / "notes.md"
    last = markdown(path)  # over MARKDOWN_INLINE_LIMIT: loaded in the background

    async def main() -> None:
        with trio.fail_after(60):
            await run()

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            loader = Loader()
            loader.attach(nursery, lambda: None)
            pane = FilePane(1, str(path), "notes.md", loader)
            assert pane.loading
            await pane.reach(last, 100)
            assert not pane.loading and pane.source_rows(100).laid_through() >= last

            # At another width (rows not laid out yet), reloaded midway: the
            # file lost its first paragraph, so FAR_AWAY is two lines up.
            reached: list[str] = []

            async def reach() -> None:
                await pane.reach(last - 2, 90)
                # As a comment applies: right after, with nothing in between.
                view = pane.source_rows(90)
                assert view.laid_through() >= last - 2
                reached.append(row_text(view.window(view.rows_for_line(last - 2).start, 1)[0]))

            old = pane.source_rows(90)
            async with trio.open_nursery() as reaching:
                reaching.start_soon(reach)
                while old.laid_through() < 100:  # no event tells a view's progress
                    await trio.lowlevel.checkpoint()  # the reach is under way
                path.write_text(path.read_text().split("\n", 2)[2])
                pane.reload()
            assert not old.complete()
            assert reached == ["FAR_AWAY is here."]
            nursery.cancel_scope.cancel()

    trio.run(main)


@pytest.mark.timing
@pytest.mark.tmux
@pytest.mark.parametrize("verb", [["layout"], ["ready"], ["open", "--dry-run"]])
def test_counting_every_row_of_a_long_markdown_file_keeps_keys_echoing(
    laura_session: Make, tmp_path: Path, verb: list[str]
) -> None:
    """`layout`, `ready` and a dry run report each pane's rows in all: for
    a markdown file that takes longer to lay out than a key may wait, the
    count is made between keys and reported once known."""
    path = tmp_path / "notes.md"
    markdown(path)  # 1 MB: loaded at once, laid out only as far as shown
    session = laura_session(command=["cat"])
    pane = opened(session, path)
    args = [*verb, str(path)] if verb[0] == "open" else verb
    idle, busy = keys_while_cli(session, *args)
    assert_keys_echoed(idle, busy, f"while `laura {' '.join(verb)}` counted a long markdown file")

    def content_rows() -> object:
        panes = json.loads(session.cli("layout").stdout)["panes"]
        return next(entry["content_rows"] for entry in panes if str(entry["id"]) == pane)

    assert isinstance(wait_until(content_rows, timeout=60), int)


@pytest.mark.timing
@pytest.mark.tmux
def test_counting_a_big_markdown_files_rows_at_a_new_width_keeps_keys_echoing(
    laura_session: Make, tmp_path: Path
) -> None:
    # `layout` after a resize counts every row at the new width; the
    # markdown parser's first pass over the whole file ran on the UI loop
    # first (110-210 ms in one step for 8 MB, when files that big were laid
    # out as markdown; 1 MiB is the most now).
    path = tmp_path / "notes.md"
    markdown(path)
    session = laura_session(command=["cat"])
    opened(session, path)
    idle: list[float] = []
    busy: list[float] = []
    for width in (120, 100, 90):
        session.tmux("resize-window", "-x", str(width), "-y", "40")
        session.wait_for(lambda text, width=width: len(session.screen()[0]) <= width)
        before, during = keys_while_cli(session, "layout", keys=30)
        idle += before
        busy += during
    assert_keys_echoed(idle, busy, "while the rows of 8 MB of markdown were counted at three widths")
