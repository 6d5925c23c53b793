"""The user's terminal for the interface: the only module that changes its modes.

`Tty.enter()` sets the input side to raw-ish mode (no echo, no line
buffering, no signals from Ctrl+C/Ctrl+Z, no CR->NL translation; output
processing stays on) and turns on bracketed paste, focus reports and
xterm's modifyOtherKeys (Shift+Enter where the terminal reports it);
`leave()` puts every one of them back. The front end calls leave() on every
exit path (return, exception, cancellation, Ctrl+Z), and leave() is safe to
call twice and on a terminal that has hung up. Output goes through a private
non-blocking descriptor, so a slow terminal never blocks the event loop and
the shell's own descriptor keeps its flags. No alternate screen, ever.
"""

from __future__ import annotations

import contextlib
import os
import termios
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import trio

# The terminal's cursor is hidden while the interface runs: the editor draws
# its own (see luxe.frontends.tui.text.with_cursor).
MODES_ON = "\x1b[?2004h\x1b[?1004h\x1b[>4;1m\x1b[?25l"
MODES_OFF = "\x1b[>4;0m\x1b[?1004l\x1b[?2004l\x1b[0m\x1b[?25h"


class Tty:
    """Owns the terminal's modes between enter() and leave()."""

    def __init__(self, input_fd: int, output_fd: int, write_log: str | None = None) -> None:
        self.input_fd = input_fd
        # LUXE_TUI_WRITE_LOG: every byte written is appended there too (the
        # benchmark counts bytes per token with it; tests replay it).
        self._log = open(write_log, "ab") if write_log else None  # noqa: SIM115
        self._saved: list[Any] | None = None
        try:
            self.out_fd = os.open(os.ttyname(output_fd), os.O_WRONLY | os.O_NOCTTY)
        except OSError:
            self.out_fd = os.dup(output_fd)
        self.stream: trio.lowlevel.FdStream | None = None

    def open_stream(self) -> None:
        """The non-blocking stream for frames, once the event loop runs."""
        import trio

        os.set_blocking(self.out_fd, False)
        self.stream = trio.lowlevel.FdStream(self.out_fd)

    def size(self) -> tuple[int, int]:
        """(columns, rows)."""
        for fd in (self.out_fd, self.input_fd):
            try:
                size = os.get_terminal_size(fd)
                return max(size.columns, 1), max(size.lines, 4)
            except OSError:
                continue
        return 80, 24

    def enter(self) -> str:
        """Set the input mode; returns the bytes that turn our modes on."""
        saved = termios.tcgetattr(self.input_fd)
        if self._saved is None:
            self._saved = saved
        mode = termios.tcgetattr(self.input_fd)
        mode[0] &= ~(termios.ICRNL | termios.IXON | termios.INLCR | termios.IGNCR)
        mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG | termios.IEXTEN)
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(self.input_fd, termios.TCSANOW, mode)
        return MODES_ON

    def leave_modes(self) -> None:
        """Restore the input mode (tolerates a terminal that has hung up)."""
        if self._saved is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.input_fd, termios.TCSADRAIN, self._saved)

    async def write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        if self._log is not None:
            self._log.write(data)
            self._log.flush()
        assert self.stream is not None, "open_stream first"
        await self.stream.send_all(data)

    def write_blocking(self, text: str) -> None:
        """For the last bytes on exit and before a suspend (loop may be gone)."""
        data = text.encode("utf-8", "replace")
        if self._log is not None:
            self._log.write(data)
            self._log.flush()
        with contextlib.suppress(OSError):
            was_blocking = os.get_blocking(self.out_fd)
            os.set_blocking(self.out_fd, True)
            while data:
                data = data[os.write(self.out_fd, data):]
            os.set_blocking(self.out_fd, was_blocking)

    async def aclose(self) -> None:
        if self._log is not None:
            self._log.close()
        import trio

        with contextlib.suppress(OSError):
            os.set_blocking(self.out_fd, True)
        if self.stream is None:
            with contextlib.suppress(OSError):
                os.close(self.out_fd)
            return
        with contextlib.suppress(OSError, trio.ClosedResourceError):
            await self.stream.aclose()
