"""The user's terminal: the only module that touches it (and imports blessed).

`open_console()` puts the terminal into the state a full-screen program needs
— alternate screen, raw mode, bracketed paste, SGR mouse reporting, hidden
cursor — and restores every part of it when the block exits, whether by a
return, an exception or cancellation (the host turns SIGTERM/SIGHUP into
cancellation). Frames go out through a private non-blocking descriptor, so a
slow terminal never blocks the event loop and stdin keeps its own flags.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable

import blessed
import trio

from laura.keys import Event, InputDecoder

# How long a lone ESC waits for the rest of a sequence before it is the Esc key.
ESC_WAIT = 0.03

MODES_ON = "\x1b[?2004h\x1b[?1000h\x1b[?1002h\x1b[?1006h"
MODES_OFF = "\x1b[?1006l\x1b[?1002l\x1b[?1000l\x1b[?2004l"


class Console:
    """Frames out, events in, and the terminal's size."""

    def __init__(
        self, term: blessed.Terminal, output: trio.lowlevel.FdStream, input_fd: int
    ) -> None:
        self.term = term
        self._output = output
        self._input_fd = input_fd

    def size(self) -> tuple[int, int]:
        """(width, height) in cells."""
        try:
            size = os.get_terminal_size(self._input_fd)
            return size.columns, size.lines
        except OSError:
            return self.term.width, self.term.height

    async def write(self, text: str) -> None:
        await self._output.send_all(text.encode("utf-8", "replace"))

    async def read_events(self, deliver: Callable[[list[Event]], None]) -> None:
        """Read the user's keys, pastes and mouse until cancelled (or EOF on
        input, after which it returns); each batch goes to `deliver`."""
        decoder = InputDecoder()
        fd = self._input_fd
        while True:
            if decoder.pending:
                with trio.move_on_after(ESC_WAIT) as scope:
                    await trio.lowlevel.wait_readable(fd)
                if scope.cancelled_caught:
                    deliver(decoder.flush())
                    continue
            else:
                await trio.lowlevel.wait_readable(fd)
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                return
            if not data:
                return
            events = decoder.feed(data)
            if events:
                deliver(events)


@contextlib.asynccontextmanager
async def open_console() -> AsyncIterator[Console]:
    """Take over the terminal on stdin/stdout; restore it on any exit."""
    term = blessed.Terminal()
    input_fd = sys.stdin.fileno()
    # A separate open file description: O_NONBLOCK on it leaves stdin/stdout alone.
    output_fd = os.open(os.ttyname(sys.stdout.fileno()), os.O_WRONLY | os.O_NOCTTY)
    output = trio.lowlevel.FdStream(output_fd)
    enter = term.enter_fullscreen + term.hide_cursor + MODES_ON
    leave = "\x1b[0m" + MODES_OFF + term.normal_cursor + term.exit_fullscreen
    try:
        with term.raw():
            try:
                await output.send_all(enter.encode())
                yield Console(term, output, input_fd)
            finally:
                with (
                    trio.CancelScope(shield=True),
                    trio.move_on_after(1),
                    contextlib.suppress(
                        OSError, trio.BrokenResourceError, trio.ClosedResourceError
                    ),
                ):
                    await output.send_all(leave.encode())
    finally:
        with contextlib.suppress(OSError):
            await output.aclose()
