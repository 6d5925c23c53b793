"""The blocking client side of a tab's socket.

Standard library only: `laura open ...` runs this and nothing heavier.
The tab's name is public (/proc/net/unix lists it) and, once its Laura has
exited, free for anyone to bind: before sending, the client checks that
the process listening is its own user's (or root's), as the server checks
its clients, and sends nothing to a stranger.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from laura.peercred import admits, peer_of
from laura.protocol import MAX_FRAME, Request, decode_response, encode_request

TIMEOUT = 30.0


class ClientError(Exception):
    """The tab could not be reached or answered nonsense; the message says why."""


def tab_name(environ: dict[str, str] | os._Environ[str] | None = None) -> str:
    name = (environ if environ is not None else os.environ).get("LAURA_TAB", "")
    if not name:
        raise ClientError("not inside a Laura tab (LAURA_TAB unset)")
    return name


def stranger_listening(sock: socket.socket) -> str | None:
    """Why the process at the other end of `sock` is not to be trusted (it
    runs as another user, or cannot be told), or None when it is this
    user's or root's (laura.peercred, the check the server makes too)."""
    peer = peer_of(sock)
    if admits(peer, os.geteuid()):
        return None
    if peer is None:
        return "belongs to a process whose user cannot be told"
    return f"belongs to uid {peer.uid}, not to you (uid {os.geteuid()})"


def request_raw(name: str, frame: bytes, timeout: float = TIMEOUT) -> bytes:
    """Send one frame to tab `name`; return its response line (b"" on a
    clean EOF with no response)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect("\0" + name)
        except OSError as exc:
            raise ClientError(
                f"cannot reach the Laura tab {name!r} ({exc.strerror or exc}); "
                "is LAURA_TAB stale (its tab or laura has exited)?"
            ) from None
        stranger = stranger_listening(sock)
        if stranger is not None:
            raise ClientError(f"the socket LAURA_TAB names ({name!r}) {stranger}; nothing was sent")
        try:
            try:
                sock.sendall(frame)
            except BrokenPipeError:
                pass  # the tab refused early (an oversized frame): its answer is waiting
            chunks: list[bytes] = []
            size = 0
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                chunks.append(data)
                size += len(data)
                if b"\n" in data or size > MAX_FRAME:
                    break
        except OSError as exc:
            raise ClientError(f"the Laura tab {name!r} did not answer ({exc})") from None
    return b"".join(chunks).split(b"\n", 1)[0]


def request(name: str, message: Request) -> dict[str, Any]:
    """One request, one response (a dict with `type`); an EOF counts as ok."""
    line = request_raw(name, encode_request(message))
    if not line.strip():
        return {"type": "ok"}
    return decode_response(line)
