"""Per-tab socket: one abstract-namespace Unix socket, one request and one
response per connection, only for Laura's own user.

The abstract socket has no file permissions and its name is public in
/proc/net/unix, so every accepted connection's peer is checked with
SO_PEERCRED first: only Laura's own uid (or root, acting for it) is served;
anyone else gets one `error` line, is closed and is logged (uid and pid) in
the host log. Past MAX_CONNECTIONS open connections a new one is refused
with an `error` line, and one file descriptor is held in reserve so that
running out of descriptors (EMFILE) refuses the pending client instead of
spinning on a listener that stays readable.

Each served connection gets its own task (many clients are answered at
once). The request line is read with a size cap and a deadline, and the
answer is written with a deadline, so a silent client, a half line, a line
of megabytes or a client that never reads its answer only ever costs that
one connection an `error` (or nothing, if the client has gone). `answer`
applies the line to the live tab state — the trio loop is single-threaded,
so requests apply in the order their lines complete, between UI events.
"""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Awaitable, Callable

import trio

from laura.hostlog import log_event
from laura.peercred import Peer, admits, peer_of
from laura.protocol import MAX_FRAME, Error, encode_response

# How long a client may take to send its one line, and to take its answer.
READ_TIMEOUT = 5.0
WRITE_TIMEOUT = 5.0
BACKLOG = 128
# How long a connection is drained after its answer.
DRAIN_TIMEOUT = 2.0
# Connections one tab serves at once; more are refused with an error line.
MAX_CONNECTIONS = 256
# After running out of descriptors, how long before accepting again.
EMFILE_PAUSE = 0.05

Answer = Callable[[bytes], Awaitable[bytes]]


def refusal_text(peer: Peer | None, own_uid: int) -> str:
    who = "an unknown peer" if peer is None else f"uid {peer.uid}"
    return f"connection refused: {who} may not use this tab (it belongs to uid {own_uid})"


def _refuse_now(sock: trio.socket.SocketType, message: str) -> None:
    """One error line without waiting (a fresh socket's buffer takes it), then close."""
    with socket.socket(fileno=sock.detach()) as raw:
        try:
            raw.send(encode_response(Error(message)), socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL)
            raw.shutdown(socket.SHUT_WR)
        except OSError:
            pass


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
                reply = await answer(line)
            # A client that never reads would hold its slot (and its answer)
            # for ever: past the deadline the answer is dropped.
            with trio.move_on_after(WRITE_TIMEOUT) as sending:
                await stream.send_all(reply)
                await stream.send_eof()
            if sending.cancelled_caught:
                return
            # Read what the client still sends (the rest of an oversized line)
            # before closing: closing with unread bytes resets the connection
            # and the client would lose the answer.
            with trio.move_on_after(DRAIN_TIMEOUT):
                while await stream.receive_some(65536):
                    pass
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # the client left; nothing to answer


class _Reserve:
    """One descriptor held back, released to accept-and-refuse under EMFILE."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.take()

    def take(self) -> None:
        if self.fd is None:
            try:
                self.fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self.fd = None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


async def _shed_one(sock: trio.socket.SocketType, reserve: _Reserve) -> None:
    """Out of descriptors: free the reserve, accept the waiting client, tell
    it why, close it, take the reserve back. Pauses briefly if even that fails."""
    reserve.release()
    try:
        with trio.move_on_after(EMFILE_PAUSE):
            client, _ = await sock.accept()
            _refuse_now(client, "laura is out of file descriptors; try again")
            log_event("connection_refused", reason="out of file descriptors")
    except OSError:
        await trio.sleep(EMFILE_PAUSE)
    finally:
        reserve.take()


async def serve_tab(
    name: str, answer: Answer, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    """Serve `name` until cancelled; reports started once bound, so a client
    told the name can connect at once. Every connection task is owned here."""
    own_uid = os.getuid()
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    reserve = _Reserve()
    open_count = 0

    async def serve_one(stream: trio.SocketStream) -> None:
        nonlocal open_count
        try:
            await handle_connection(stream, answer)
        finally:
            open_count -= 1

    try:
        with sock:
            await sock.bind("\0" + name)
            sock.listen(BACKLOG)
            task_status.started()
            async with trio.open_nursery() as nursery:
                while True:
                    try:
                        client, _ = await sock.accept()
                    except OSError as exc:
                        if exc.errno in (errno.EMFILE, errno.ENFILE):
                            await _shed_one(sock, reserve)
                        else:
                            await trio.sleep(EMFILE_PAUSE)
                        continue
                    peer = peer_of(client)
                    if not admits(peer, own_uid):
                        _refuse_now(client, refusal_text(peer, own_uid))
                        log_event(
                            "connection_refused",
                            reason="foreign user",
                            tab=name,
                            peer_uid=None if peer is None else peer.uid,
                            peer_pid=None if peer is None else peer.pid,
                        )
                        continue
                    if open_count >= MAX_CONNECTIONS:
                        _refuse_now(
                            client,
                            f"too many connections to this tab ({MAX_CONNECTIONS} open); try again",
                        )
                        continue
                    open_count += 1
                    nursery.start_soon(serve_one, trio.SocketStream(client))
    finally:
        reserve.release()
