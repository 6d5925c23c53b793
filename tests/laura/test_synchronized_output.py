"""Synchronized output (DECSET 2026) through a real PTY child: the shell pane
keeps showing the last complete frame while the child draws the next one,
and shows the new one when the child ends the update or the safety limit
passes. A frame never shows half-drawn."""

from __future__ import annotations

import sys
from collections.abc import Callable

import trio

from laura.panes.shell import ShellPane
from laura.protocol import Rect
from laura.render.canvas import Canvas
from laura.terminal import open_terminal
from laura.vt import VirtualTerminal

WAIT_S = 30.0

# Prints FRAME-1, then for each line it reads draws one more step of the next
# frame: "go" begins a synchronized update and writes half of FRAME-2, "end"
# writes the rest and ends the update.
CHILD = r"""
import sys
out = sys.stdout
out.write("FRAME-1\r\n"); out.flush()
for line in sys.stdin:
    word = line.strip()
    if word == "go":
        out.write("\x1b[?2026h\x1b[H\x1b[2JFRAME-2 top\r\n")
    elif word == "end":
        out.write("FRAME-2 bottom\r\n\x1b[?2026l")
    out.flush()
"""


async def until(predicate: Callable[[], object]) -> None:
    with trio.fail_after(WAIT_S):
        while not predicate():  # noqa: ASYNC110 - another process's output
            await trio.sleep(0.01)


def drawn(pane: ShellPane) -> str:
    """A frame as the host makes one: take the emulator's view, then draw."""
    canvas = Canvas(40, 6)
    pane.take_view()
    pane.draw(canvas, Rect(0, 0, 40, 6), focused=True)
    return "\n".join(canvas.text())


async def run_child(limit: float, steps: Callable[[ShellPane, Callable[[str], object]], object]) -> None:
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    async with open_terminal(
        [sys.executable, "-c", CHILD], env, 6, 40, VirtualTerminal
    ) as terminal:
        terminal.sync_limit = limit
        pane = ShellPane(terminal)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(terminal.run)
            await until(lambda: "FRAME-1" in "\n".join(terminal.emulator.display()))
            assert "FRAME-1" in drawn(pane)
            await steps(pane, terminal.write)  # type: ignore[misc]
            nursery.cancel_scope.cancel()


async def test_a_synchronized_frame_shows_whole_when_the_child_ends_it() -> None:
    async def steps(pane: ShellPane, write: Callable[[bytes], None]) -> None:
        emulator = pane.emulator
        write(b"go\n")
        await until(lambda: "FRAME-2 top" in "\n".join(emulator.display()))
        # Half of frame 2 is in the emulator; the pane still shows frame 1.
        screen = drawn(pane)
        assert "FRAME-1" in screen and "FRAME-2" not in screen
        write(b"end\n")
        await until(lambda: not emulator.synchronized)
        screen = drawn(pane)
        assert "FRAME-2 top" in screen and "FRAME-2 bottom" in screen
        assert "FRAME-1" not in screen

    await run_child(60.0, steps)  # type: ignore[arg-type]


async def test_an_update_never_ended_is_shown_after_the_safety_limit() -> None:
    async def steps(pane: ShellPane, write: Callable[[bytes], None]) -> None:
        emulator = pane.emulator
        write(b"go\n")
        await until(lambda: "FRAME-2 top" in "\n".join(emulator.display()))
        assert emulator.synchronized
        # Within the limit the half frame is held; after it, it is drawn.
        await until(lambda: "FRAME-2 top" in drawn(pane))
        assert emulator.synchronized

    await run_child(0.3, steps)  # type: ignore[arg-type]
