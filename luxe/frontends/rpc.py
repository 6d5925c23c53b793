"""`luxe --rpc`: NDJSON over stdin/stdout.

The reader task owns stdin: it turns lines into actions and hands them to
`dispatch`; a bad line of any length or bytes is answered with
`action_rejected` and the session goes on. Stdout belongs to
`luxe.frontends.stdout.StdoutOwner` (the handshake, then the writer task).
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Awaitable, Callable
from typing import Protocol

import trio

from luxe.protocol import Action, Rejection, decode_action

log = logging.getLogger("luxe.rpc")

MAX_LINE_BYTES = 16 * 1024 * 1024
READ_SIZE = 65536


class _ByteSource(Protocol):
    async def receive_some(self, max_bytes: int) -> bytes | bytearray: ...


class _FileSource:
    """Reads a regular file (stdin redirected from disk) in a worker thread."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def receive_some(self, max_bytes: int) -> bytes:
        return await trio.to_thread.run_sync(os.read, self.fd, max_bytes, abandon_on_cancel=True)


def _pollable(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


async def serve_reader(
    dispatch: Callable[[Action | Rejection], Awaitable[bool]], fd: int = 0
) -> None:
    """Read stdin until EOF or until `dispatch` returns False (close).

    Owns a duplicate of the stdin fd; on cancel it closes it and returns.
    """
    own = os.dup(fd)
    source: _ByteSource
    stream: trio.lowlevel.FdStream | None = None
    if _pollable(own):
        stream = trio.lowlevel.FdStream(own)
        source = stream
    else:
        source = _FileSource(own)
    try:
        buffer = bytearray()
        scanned = 0
        overlong = False
        while True:
            try:
                data = await source.receive_some(READ_SIZE)
            except (OSError, trio.BrokenResourceError):
                return
            if not data:
                break
            buffer += data
            while True:
                newline = buffer.find(b"\n", scanned)
                if newline < 0:
                    scanned = len(buffer)
                    if len(buffer) > MAX_LINE_BYTES:
                        # Keep answering, never keep the bytes: drop to the next newline.
                        overlong = True
                        buffer.clear()
                        scanned = 0
                    break
                line = bytes(buffer[:newline])
                del buffer[: newline + 1]
                scanned = 0
                if overlong:
                    overlong = False
                    action: Action | Rejection = Rejection(
                        None, f"line longer than {MAX_LINE_BYTES} bytes"
                    )
                else:
                    action = _decode(line)
                if not await dispatch(action):
                    return
        if buffer or overlong:
            await dispatch(_decode(bytes(buffer)) if not overlong else Rejection(
                None, f"line longer than {MAX_LINE_BYTES} bytes"))
    finally:
        if stream is not None:
            await stream.aclose()
        else:
            os.close(own)


def _decode(line: bytes) -> Action | Rejection:
    if line.endswith(b"\r"):
        line = line[:-1]
    if not line.strip():
        return Rejection(None, "empty line: a frame is one JSON object per line")
    return decode_action(line)
