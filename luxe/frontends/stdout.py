"""The one owner of stdout for the whole process.

The handshake (`ready`, `state_changed`, `session_info`) is written by
`write_now` before the event loop exists, so a client gets `ready` without
waiting for trio to load; from then on `serve`, the writer task, writes every
frame. Nothing else writes stdout, so frames never interleave and leave in
the order they were produced. What a frame becomes is the front end's
`Renderer`: `--rpc` writes each as a JSON line, `luxe -p` its own output
(luxe.frontends.print_render). This module imports trio only inside `serve`.

A client that stops reading cannot hold the process open: once shutdown
begins (`begin_shutdown`), a write that stays blocked on a full pipe for
SHUTDOWN_WRITE_S drops it and every frame after it (the session file has
them all), so the exit goes on.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

from luxe.protocol import events as ev
from luxe.protocol.plain import encode_plain_event

if TYPE_CHECKING:
    import trio

log = logging.getLogger("luxe.rpc")

WRITE_BATCH = 1024
# During shutdown, how long one write may wait for a client that is not reading.
SHUTDOWN_WRITE_S = 3.0


class StdoutOwner:
    """Owns a duplicate of fd 1 from construction until `serve` returns."""

    def __init__(self, fd: int = 1) -> None:
        self.fd = os.dup(fd)
        self.broken = False
        self._shutting_down = False
        self._write_scope: trio.CancelScope | None = None

    def begin_shutdown(self) -> None:
        """From now on a write blocked longer than SHUTDOWN_WRITE_S drops the
        rest of the frames. Call from the event loop."""
        import trio

        self._shutting_down = True
        if self._write_scope is not None:
            self._write_scope.deadline = trio.current_time() + SHUTDOWN_WRITE_S

    def write_now(self, events: Iterable[ev.Event]) -> None:
        """Write frames at once, blocking (only before the event loop runs)."""
        try:
            # Without cattrs: it loads after the handshake (see luxe.protocol.plain).
            _write_all(self.fd, b"".join(encode_plain_event(e) for e in events))
        except OSError as exc:
            log.info("stdout closed (%s) during the handshake", exc)
            self.broken = True

    async def serve(
        self,
        events: trio.MemoryReceiveChannel[ev.Event],
        on_broken: Callable[[], None],
        render: Renderer | None = None,
    ) -> None:
        """The writer task: every event from `events` until the channel closes,
        as `render` turns it into bytes (default: one frame per line, `--rpc`).

        Each batch of frames already waiting is written at once (frames never
        wait for more to arrive). If stdout breaks, the channel is still
        drained so the engine never blocks, and `on_broken` is called once.
        """
        import trio

        if render is None:
            render = WireRenderer()
        mode = os.fstat(self.fd).st_mode
        pollable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)
        stream = trio.lowlevel.FdStream(self.fd) if pollable else None
        if self.broken:
            on_broken()
        try:
            async with events:
                async for first in events:
                    chunks = [render.frame(first)]
                    for _ in range(WRITE_BATCH):
                        try:
                            chunks.append(render.frame(events.receive_nowait()))
                        except (trio.WouldBlock, trio.EndOfChannel):
                            break
                    await self._send(b"".join(chunks), stream, on_broken)
            await self._send(render.end(), stream, on_broken)
        finally:
            if stream is not None:
                with trio.CancelScope(shield=True):
                    await stream.aclose()
            else:
                os.close(self.fd)

    async def _send(
        self, data: bytes, stream: trio.lowlevel.FdStream | None, on_broken: Callable[[], None]
    ) -> None:
        import trio

        if self.broken or not data:
            return
        try:
            if stream is not None:
                with trio.CancelScope() as scope:
                    self._write_scope = scope
                    if self._shutting_down:
                        scope.deadline = trio.current_time() + SHUTDOWN_WRITE_S
                    await stream.send_all(data)
                self._write_scope = None
                if scope.cancelled_caught:
                    log.warning(
                        "the client has not read stdout for %ss during shutdown; "
                        "dropping the remaining frames", SHUTDOWN_WRITE_S,
                    )
                    self.broken = True
            else:
                _write_all(self.fd, data)
        except (OSError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            log.info("stdout closed (%s); ending the session", exc)
            self.broken = True
            on_broken()


class Renderer(Protocol):
    """What a front end writes to stdout for each event, and at the end."""

    def frame(self, event: ev.Event) -> bytes: ...

    def end(self) -> bytes:
        """Bytes to write once the event channel has closed."""
        ...


class WireRenderer:
    """`--rpc`: every event as one JSON line, nothing at the end."""

    def __init__(self) -> None:
        from luxe.protocol.wire import encode_event

        self.frame = encode_event

    def end(self) -> bytes:
        return b""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
