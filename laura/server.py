"""Per-tab socket: one abstract-namespace Unix socket, one request and one
response per connection.

Each connection gets its own task (many clients are answered at once). The
request line is read with a size cap and a deadline, so a silent client, a
half line or a line of megabytes only ever costs that one connection an
`error` (or nothing, if the client has gone). `answer` applies the line to
the live tab state synchronously — the trio loop is single-threaded, so
requests apply in the order their lines complete, between UI events.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import trio

from laura.protocol import MAX_FRAME, Error, encode_response

# How long a client may take to send its one line.
READ_TIMEOUT = 10.0
BACKLOG = 128
# How long a connection is drained after its answer.
DRAIN_TIMEOUT = 2.0

Answer = Callable[[bytes], bytes]


async def _read_line(stream: trio.SocketStream) -> bytes | Error:
    buffer = bytearray()
    while True:
        newline = buffer.find(b"\n")
        if newline >= 0:
            return bytes(buffer[:newline])
        if len(buffer) > MAX_FRAME:
            return Error(f"malformed request: line longer than {MAX_FRAME} bytes")
        data = await stream.receive_some(65536)
        if not data:
            # The client closed its side: a frame without its newline still counts.
            return bytes(buffer)
        buffer += data


async def handle_connection(stream: trio.SocketStream, answer: Answer) -> None:
    """Read one line, answer it, close. Owns `stream`; on cancel it closes."""
    async with stream:
        try:
            with trio.move_on_after(READ_TIMEOUT) as scope:
                line = await _read_line(stream)
            if scope.cancelled_caught:
                line = Error(f"no request line received within {READ_TIMEOUT:g} s")
            if isinstance(line, Error):
                reply = encode_response(line)
            elif not line.strip():
                reply = encode_response(Error("malformed request: empty line"))
            else:
                reply = answer(line)
            await stream.send_all(reply)
            await stream.send_eof()
            # Read what the client still sends (the rest of an oversized line)
            # before closing: closing with unread bytes resets the connection
            # and the client would lose the answer.
            with trio.move_on_after(DRAIN_TIMEOUT):
                while await stream.receive_some(65536):
                    pass
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # the client left; nothing to answer


async def serve_tab(
    name: str, answer: Answer, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    """Serve `name` until cancelled; reports started once bound, so a client
    told the name can connect at once. Every connection task is owned here."""
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with sock:
        await sock.bind("\0" + name)
        sock.listen(BACKLOG)
        listener = trio.SocketListener(sock)
        task_status.started()
        async with trio.open_nursery() as nursery:
            while True:
                try:
                    stream = await listener.accept()
                except OSError:
                    # e.g. EMFILE under a connection storm: back off, don't die.
                    await trio.sleep(0.05)
                    continue
                nursery.start_soon(handle_connection, stream, answer)
