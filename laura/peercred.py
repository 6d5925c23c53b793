"""Who is at the other end of a tab's socket (SO_PEERCRED), and whether
Laura trusts them: its own user, or root acting for it.

The one check both sides make: the server of every client it accepts
(laura.server), and a client of the server it reached (laura.client), since
a tab's name is public and free for anyone to bind once its Laura exits.
Standard library only: the client verbs import it.
"""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple, Protocol


class Peer(NamedTuple):
    pid: int
    uid: int
    gid: int


class _Socket(Protocol):
    def getsockopt(self, level: int, option: int, buflen: int) -> bytes: ...


def peer_of(sock: _Socket) -> Peer | None:
    """The other end's credentials, None if unknown (a blocking socket or a
    trio one alike)."""
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return None
    return Peer(*struct.unpack("3i", raw))


def admits(peer: Peer | None, own_uid: int) -> bool:
    """Laura's own uid, or root acting for it; nobody unknown."""
    return peer is not None and peer.uid in (own_uid, 0)
