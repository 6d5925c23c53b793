"""The review's write into a real PTY: a Tab whose shell pane is a real
terminal (no host, no tmux) with the recorder child, driven through the
real `ReviewUI` and its real `shell_writer`.

Why not in tmux: the only way a write fails is a shell pane whose child has
exited, and in the host such a tab is torn down (taking the prompt with it)
within ~50 ms of the child's exit, unless something the child left behind
keeps writing to the terminal. Reaching the retry footer through the host
would be a race against that grace period; here the same real pieces meet
without it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from laura.commands import apply
from laura.keys import Key
from laura.panes.shell import ShellPane
from laura.protocol import Comment, Open, Opened, Ready, Rect
from laura.review.prompt import SUBMIT_FAILED
from laura.review_ui import ReviewUI
from laura.tab import Tab
from laura.terminal import open_terminal
from laura.vt import VirtualTerminal
from tests.laura.tmux import RECORDER, alive

from .keyhost import press

WAIT_S = 30.0


async def until(predicate: Callable[[], object]) -> None:
    """Poll `predicate` (without blocking trio) until it holds."""
    with trio.fail_after(WAIT_S):
        while not predicate():  # noqa: ASYNC110 - a file another process writes
            await trio.sleep(0.02)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A private environment for the child and the journal."""
    env = dict(os.environ)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        directory = tmp_path / name.lower()
        directory.mkdir()
        env[name] = str(directory)
    monkeypatch.setenv("XDG_STATE_HOME", env["XDG_STATE_HOME"])
    return env


async def test_a_review_reaches_a_live_child_and_waits_for_a_retry_once_it_is_gone(
    tmp_path: Path, home: dict[str, str]
) -> None:
    (tmp_path / "f.txt").write_text("alpha\nbeta\n")
    out = tmp_path / "received.bin"
    tab = Tab(0, "laura-test-0", str(tmp_path), "laura-1-0")
    tab.area = Rect(0, 1, 120, 38)
    assert isinstance(apply(tab, Open(path="f.txt")), Opened)
    apply(tab, Ready(session="pty"))
    file_pane = tab.panes[1]
    ui = ReviewUI()  # the real writer: the tab's shell pane
    toasts: list[str] = []

    def submit(body: str) -> None:
        press(ui, tab, file_pane, Key("S"), toasts.append)
        ui.paste(body)
        ui.key(Key("enter"), toasts.append)

    argv = [sys.executable, RECORDER, str(out)]
    async with (
        open_terminal(argv, home, 20, 80, VirtualTerminal, str(tmp_path)) as terminal,
        trio.open_nursery() as nursery,
    ):
        nursery.start_soon(terminal.run)
        tab.shell = ShellPane(terminal)
        await until(out.exists)

        # A live child: the review arrives, byte for byte.
        apply(tab, Comment(line=2, body="why?", pane=1))
        submit("first")
        review = (
            f"\x1b[200~[laura review · {file_pane.path}]\n\nfirst\n\n"
            "L2  beta\n      > [agent] why?\n\x1b[201~\r"
        ).encode()
        await until(lambda: out.read_bytes() == review)
        assert toasts == []
        assert file_pane.review.book.is_empty

        # The child ends (the recorder stops at Ctrl+D Ctrl+D).
        tab.shell.send(b"\x04\x04")
        with trio.fail_after(WAIT_S):
            await terminal.exited.wait()
        apply(tab, Comment(line=1, body="still here?", pane=1))
        submit("second")
        assert toasts == [SUBMIT_FAILED]
        assert ui.hint(tab, 120) == "  " + SUBMIT_FAILED
        assert file_pane.review.book.count == 1
        assert file_pane.review.failed_body == "second"
        ui.key(Key("enter"), toasts.append)  # a retry fails the same way
        assert toasts == [SUBMIT_FAILED, SUBMIT_FAILED]
        assert file_pane.review.book.count == 1
        nursery.cancel_scope.cancel()

    assert not alive(terminal.pid)
    assert out.read_bytes() == review + b"\x04\x04"
    journal = Path(home["XDG_STATE_HOME"]) / "laura" / "sessions" / "pty.ndjson"
    reviews = [
        e for e in map(json.loads, journal.read_text().splitlines()) if e["type"] == "review"
    ]
    assert [(e["body"], "error" in e) for e in reviews] == [
        ("first", False),
        ("second", True),
        ("second", True),
    ]
