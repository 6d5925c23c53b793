"""One Laura tab's socket, from Luxe's side: one JSON request, one JSON reply.

Laura answers every request on its UI loop, so a call costs a round trip of
a few milliseconds; each is still bounded by `timeout`, so a wedged or gone
Laura costs Luxe at most that. A tab that cannot be reached is logged once
and then treated as gone: Luxe carries on without panes. So is a socket
held by another user: a tab's name is public and, once its Laura exits,
anyone may bind it, so nothing is sent before the listener's credentials
(SO_PEERCRED) show it is this user's or root's.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import struct
from typing import Any

import trio

log = logging.getLogger("luxe.hosting")

TIMEOUT_S = 1.0
MAX_REPLY = 1 << 20


class LauraLink:
    """Requests to the tab named `tab` (the value of LAURA_TAB)."""

    def __init__(self, tab: str, timeout: float = TIMEOUT_S) -> None:
        self.tab = tab
        self.timeout = timeout
        self.gone = False

    async def request(self, frame: dict[str, Any]) -> dict[str, Any] | None:
        """Send `frame`; its reply (`{"type": "ok"}` for a bare EOF), or None
        when the tab is unreachable, too slow or answered nonsense. Never
        raises for the tab's sake; cancellation still propagates."""
        if self.gone:
            return None
        try:
            with trio.fail_after(self.timeout):
                line = await self._exchange(json.dumps(frame).encode() + b"\n")
        except trio.TooSlowError:
            log.info("laura tab %s did not answer %s within %.1f s", self.tab, frame.get("type"), self.timeout)
            return None
        except OSError as exc:
            self.gone = True
            log.info("laura tab %s unreachable (%s); panes off for this session", self.tab, exc)
            return None
        if not line.strip():
            return {"type": "ok"}
        try:
            reply = json.loads(line)
        except ValueError:
            log.info("laura tab %s answered nonsense: %r", self.tab, line[:200])
            return None
        return reply if isinstance(reply, dict) else None

    async def _exchange(self, data: bytes) -> bytes:
        with trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            await sock.connect("\0" + self.tab)
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _, uid, _ = struct.unpack("3i", raw)
            if uid not in (os.geteuid(), 0):
                raise PermissionError(f"the tab's socket belongs to uid {uid}, not to this user")
            while data:
                sent = await sock.send(data)
                data = data[sent:]
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_REPLY:
                chunk = await sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if b"\n" in chunk:
                    break
        return b"".join(chunks).split(b"\n", 1)[0]
