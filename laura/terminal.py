"""One PTY child and the emulator its output feeds.

`open_terminal` starts the child in its own session (so it has the PTY as its
controlling terminal and its own process group) and owns it: on exit of the
block (normal or cancelled) the group gets SIGHUP+SIGTERM, a short grace,
then SIGKILL, and the child is always reaped. `Terminal.run` is the reader
task: bytes -> emulator -> `on_output`, fed in small slices with checkpoints
so a flood never starves keys, requests or the renderer.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import math
import os
import signal
import struct
import termios
import time
from collections.abc import AsyncIterator, Callable, Mapping

import trio
import trio.lowlevel

from laura.emulator import Emulator
from process_group import terminate_group

# laura.vt parses 2-80 MB/s depending on the output (random bytes are the
# slowest): 4 KiB slices, with a checkpoint once FEED_SECONDS went by, keep
# keys answered under any flood while plain text still costs few trips
# through the loop.
FEED_SLICE = 4096
# The most time spent feeding between two checkpoints (about).
FEED_SECONDS = 0.002
READ_SIZE = 65536
DRAIN_LIMIT = 256 * 1024
# A hosted program may lead processes of its own in other sessions, out of
# our reach once it is gone (Luxe's tools: each ends its group with a grace
# of 0.5 s, then SIGKILL): it gets time to end them before we SIGKILL it.
# Only a program that outlives SIGHUP and SIGTERM makes a close wait this long.
KILL_GRACE = 3.0
# How long a child's synchronized update (DECSET 2026) may hold its screen:
# a child that sets the mode and never resets it still gets drawn.
SYNC_LIMIT = 0.2


class SpawnError(Exception):
    """The child could not be started; the message says which and why."""


def set_winsize(fd: int, lines: int, columns: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))


class Terminal:
    """A running child on a PTY plus the emulator showing its screen."""

    def __init__(
        self,
        process: trio.Process,
        master: int,
        emulator_factory: Callable[[int, int, Callable[[bytes], None]], Emulator],
        lines: int,
        columns: int,
    ) -> None:
        self.process = process
        self._master = master
        self._stream = trio.lowlevel.FdStream(master)
        self._outgoing_send, self._outgoing = trio.open_memory_channel[bytes](math.inf)
        self.emulator = emulator_factory(lines, columns, self.write)
        self.on_output: Callable[[], None] = lambda: None
        self.exited = trio.Event()
        # When the child's current synchronized update began (None: none).
        self.sync_limit = SYNC_LIMIT
        self._sync_since: float | None = None
        self._sync_started = trio.Event()

    @property
    def pid(self) -> int:
        return self.process.pid

    def write(self, data: bytes) -> None:
        """Queue bytes for the child (never blocks; the writer task sends them)."""
        if data:
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                self._outgoing_send.send_nowait(data)

    def foreground_group(self) -> int | None:
        """The process group in the foreground of the child's terminal (the
        one keys and pastes reach), or None when the PTY is gone."""
        try:
            return os.tcgetpgrp(self._master)
        except OSError:
            return None

    def resize(self, lines: int, columns: int) -> None:
        """Resize the emulator and the PTY (the child gets SIGWINCH)."""
        lines, columns = max(1, lines), max(2, columns)
        if (lines, columns) == (self.emulator.lines, self.emulator.columns):
            return
        self.emulator.resize(lines, columns)
        with contextlib.suppress(OSError):
            set_winsize(self._master, lines, columns)

    def holding(self) -> bool:
        """Whether the child is inside a synchronized update whose safety
        limit has not passed: its screen is half-drawn and must not be shown."""
        since = self._sync_since
        return since is not None and trio.current_time() - since < self.sync_limit

    def _track_sync(self) -> None:
        if not self.emulator.synchronized:
            self._sync_since = None
        elif self._sync_since is None:
            self._sync_since = trio.current_time()
            self._sync_started.set()

    async def _release_stale_sync(self) -> None:
        """Redraw once a synchronized update outlives SYNC_LIMIT, so a child
        that never ends one cannot freeze its pane. Runs until cancelled."""
        while True:
            await self._sync_started.wait()
            self._sync_started = trio.Event()
            since = self._sync_since
            if since is not None:
                await trio.sleep_until(since + self.sync_limit)
                if self._sync_since == since:
                    self.on_output()

    async def run(self) -> None:
        """Read, feed and write until the child has exited and its output is
        drained. Returns then; cancelled, it just stops."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._write_loop)
            nursery.start_soon(self._wait_child)
            nursery.start_soon(self._release_stale_sync)
            await self._read_loop()
            nursery.cancel_scope.cancel()

    async def _wait_child(self) -> None:
        await self.process.wait()
        self.exited.set()

    async def _read_loop(self) -> None:
        while True:
            if self.exited.is_set():
                # The child is gone: take what is left, but don't wait for a
                # grandchild that still holds the PTY open.
                with trio.move_on_after(0.05) as scope:
                    data = await self._receive()
                if scope.cancelled_caught:
                    return
            else:
                data = await self._receive()
            if not data:
                if not self.exited.is_set():
                    await self.exited.wait()
                return
            data += self._drain()
            # Fed in slices, with a checkpoint whenever a couple of
            # milliseconds went by: plain text parses fast and goes in big
            # batches, while output that parses slowly (random bytes, a TUI's
            # redraws) still lets a key through every FEED_SECONDS.
            budget = time.perf_counter() + FEED_SECONDS
            for start in range(0, len(data), FEED_SLICE):
                self.emulator.feed(data[start : start + FEED_SLICE])
                if time.perf_counter() >= budget or start + FEED_SLICE >= len(data):
                    self._track_sync()
                    self.on_output()
                    await trio.lowlevel.checkpoint()
                    budget = time.perf_counter() + FEED_SECONDS

    def _drain(self) -> bytes:
        """What else the PTY holds right now, without waiting (up to
        DRAIN_LIMIT): a flood arrives in 4 KiB reads, and one trip through
        the event loop per read would cost more than parsing it."""
        chunks: list[bytes] = []
        total = 0
        while total < DRAIN_LIMIT:
            try:
                chunk = os.read(self._master, READ_SIZE)
            except OSError:  # EAGAIN: nothing more now; EIO: the reader sees it next
                break
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)

    async def _receive(self) -> bytes:
        try:
            return await self._stream.receive_some(READ_SIZE)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return b""  # EIO: the slave side is closed
        except OSError as exc:
            if exc.errno == errno.EIO:
                return b""
            raise

    async def _write_loop(self) -> None:
        async for data in self._outgoing:
            try:
                await self._stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return


@contextlib.asynccontextmanager
async def open_terminal(
    argv: list[str],
    env: Mapping[str, str],
    lines: int,
    columns: int,
    emulator_factory: Callable[[int, int, Callable[[bytes], None]], Emulator],
    cwd: str | None = None,
) -> AsyncIterator[Terminal]:
    """Spawn `argv` on a fresh PTY of the given size; yield its Terminal.

    Owns the child: leaving the block hangs up and terminates its process
    group (SIGHUP+SIGTERM, KILL_GRACE, SIGKILL) and reaps it, shielded from
    cancellation so nothing survives."""
    lines, columns = max(1, lines), max(2, columns)
    master, slave = os.openpty()
    try:
        set_winsize(master, lines, columns)
        process = await trio.lowlevel.open_process(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            env=dict(env),
            cwd=cwd,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
    except BaseException as exc:
        os.close(master)
        os.close(slave)
        if isinstance(exc, OSError):
            raise SpawnError(f"cannot start {argv[0]}: {exc.strerror or exc}") from exc
        raise
    os.close(slave)
    terminal = Terminal(process, master, emulator_factory, lines, columns)
    try:
        yield terminal
    finally:
        with trio.CancelScope(shield=True):
            await terminate_group(
                process, (signal.SIGHUP, signal.SIGCONT, signal.SIGTERM), KILL_GRACE
            )
            with contextlib.suppress(OSError):
                await terminal._stream.aclose()
