"""The user's terminal: the only module that touches it (and imports blessed).

`open_console()` puts the terminal into the state a full-screen program needs
— alternate screen, raw mode, bracketed paste, SGR mouse reporting, hidden
cursor — and restores every part of it when the block exits, whether by a
return, an exception or cancellation (the host turns SIGTERM/SIGHUP into
cancellation). blessed supplies the terminal's capability strings; raw mode
is set with termios directly so that restoring it can tolerate a terminal
that has already hung up. Frames go out through a private non-blocking descriptor, so a
slow terminal never blocks the event loop and stdin keeps its own flags.
"""

from __future__ import annotations

import contextlib
import os
import sys
import termios
import tty
from collections.abc import AsyncIterator, Callable, Iterator

import blessed
import trio

from laura.keys import Event, InputDecoder

# How long a lone ESC waits for the rest of a sequence before it is the Esc key.
ESC_WAIT = 0.05

# Bracketed paste, SGR mouse reporting, and focus reporting (so a hosted
# child that asks for focus events learns when the person looks away).
MODES_ON = "\x1b[?2004h\x1b[?1000h\x1b[?1002h\x1b[?1006h\x1b[?1004h"
MODES_OFF = "\x1b[?1004l\x1b[?1006l\x1b[?1002l\x1b[?1000l\x1b[?2004l"


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


def _private_output(stdout_fd: int) -> tuple[int, bool]:
    """A descriptor for frames, and whether it shares stdout's description.

    A fresh open of the tty is its own file description, so O_NONBLOCK on it
    leaves stdin/stdout (and the shell that ran laura) alone. If the tty
    can't be reopened, a dup is used and its blocking mode restored at exit."""
    try:
        return os.open(os.ttyname(stdout_fd), os.O_WRONLY | os.O_NOCTTY), False
    except OSError:
        return os.dup(stdout_fd), True


@contextlib.contextmanager
def _raw_mode(fd: int) -> Iterator[None]:
    """Raw input/output on `fd`, restored on exit. Restoring may fail when the
    terminal has hung up (SIGHUP): then there is nothing left to restore."""
    saved = termios.tcgetattr(fd)
    tty.setraw(fd, termios.TCSANOW)
    try:
        yield
    finally:
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


@contextlib.asynccontextmanager
async def open_console() -> AsyncIterator[Console]:
    """Take over the terminal on stdin/stdout; restore it on any exit
    (return, exception, cancellation)."""
    term = blessed.Terminal()
    input_fd = sys.stdin.fileno()
    output_fd, shared = _private_output(sys.stdout.fileno())
    output = trio.lowlevel.FdStream(output_fd)
    enter = term.enter_fullscreen + term.hide_cursor + MODES_ON
    leave = "\x1b[0m" + MODES_OFF + term.normal_cursor + term.exit_fullscreen
    try:
        with _raw_mode(input_fd):
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
        if shared:
            with contextlib.suppress(OSError):
                os.set_blocking(output_fd, True)
        with contextlib.suppress(OSError):
            await output.aclose()
