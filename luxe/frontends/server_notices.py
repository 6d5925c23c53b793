"""Which language-server changes a person is told about, once each: the
print mode, the interface and its plain mode all say the same thing when a
server fails, stops or is refused (`diagnostics_servers` carries the whole
list every time, so each face must tell what is new).

Pure: no I/O; the faces decide how a notice looks.
"""

from __future__ import annotations

from luxe.protocol import events as ev

TOLD_STATES = ("failed", "stopped")


class ServerNotices:
    """Remembers each server's last state, per project root."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, str], str] = {}

    def news(self, event: ev.DiagnosticsServers) -> list[str]:
        """`name state: detail` for each server that has just failed or
        stopped (a server that fails again after a restart is told again)."""
        told = []
        for server in event.servers:
            key = (server.name, server.root)
            if server.state in TOLD_STATES and self._last.get(key) != server.state:
                why = f": {server.detail}" if server.detail else ""
                told.append(f"{server.name} {server.state}{why}")
            self._last[key] = server.state
        return told
