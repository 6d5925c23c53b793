"""Diagnostics on edit: after every write or edit by a tool, the language
servers of the file's extension re-check it, and their errors and warnings
(merged, errors first, capped: luxe.lsp.report) are appended to the tool
result the model sees.

`serve_edit_diagnostics` runs for the session and owns every server (a
nursery; cancelling it ends each server's process group). Servers start on
the first edit of one of their files and stay warm, one per server and
project root (luxe.lsp.servers.project_root). `after_edit(path)` asks every
server of the file at once and waits at most `timeout_s`: a server slower
than that is skipped for this call (and logged), one that failed too often is
left out with one line in the result. `LUXE_LSP_ON_EDIT=0` or settings.json
`"lsp": false` turns it all off. Each change of a server's state is reported
as a `diagnostics_servers` frame.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from luxe.lsp.client import LspError
from luxe.lsp.report import format_report
from luxe.lsp.servers import (
    AFTER_EDIT_TIMEOUT_S,
    ServerSpec,
    project_root,
    server_env,
    servers_for,
    timeout_from,
)
from luxe.lsp.warm import ServerNotTrusted, ServerStopped, WarmServer
from luxe.protocol import events as ev
from luxe.regular_file import read_capped

log = logging.getLogger("luxe.lsp")

MAX_FILE_BYTES = 4 << 20


class EditDiagnostics:
    """What the engine calls after an edit (the `EditDiagnostics` port).
    Servers run in `nursery`, owned by serve_edit_diagnostics."""

    def __init__(
        self,
        nursery: trio.Nursery,
        root: Path,
        env: Mapping[str, str],
        servers: Sequence[ServerSpec],
        emit: Callable[[ev.Event], Awaitable[None]],
        timeout_s: float = AFTER_EDIT_TIMEOUT_S,
        trust_project: bool = False,
        redact: Callable[[str], str] = str,
    ) -> None:
        self._nursery = nursery
        # For what a server says of its failure (the gate's redaction).
        self._redact = redact
        self._root = root.resolve()
        self._env = server_env(env)
        self._servers = list(servers)
        self._emit = emit
        self.timeout_s = timeout_s
        self._trust_project = trust_project
        self._running: dict[tuple[str, Path], WarmServer] = {}
        self._told_stopped: set[tuple[str, Path]] = set()

    async def after_edit(self, path: str) -> str | None:
        """Diagnostics text for the file just written, or None (clean, no
        server for it)."""
        specs = servers_for(self._servers, path)
        if not specs:
            return None
        # The path as the tool wrote it (a symlink stays itself: its name
        # chose the servers and its place the project root).
        file = self._root / path  # (an absolute `path` stays as it is)
        try:
            # Only a regular file, never waited on: the repository may have
            # put a FIFO or a link to /dev/zero there since the write.
            raw, more = await trio.to_thread.run_sync(read_capped, file, MAX_FILE_BYTES)
        except (OSError, ValueError) as exc:
            log.info("diagnostics for %s: cannot read it: %s", path, exc)
            return None
        if more:
            return None
        text = raw.decode("utf-8", errors="replace")
        found: dict[str, list[dict[str, Any]]] = {}
        notes: dict[str, str] = {}  # by server, so their order is the table's
        async with trio.open_nursery() as nursery:
            for spec in specs:
                nursery.start_soon(self._ask, spec, file, text, found, notes)
        try:
            shown = str(file.relative_to(self._root))
        except ValueError:
            shown = str(file)
        # Report servers in table order, whichever answered first.
        ordered = {spec.name: found[spec.name] for spec in specs if spec.name in found}
        return format_report(shown, ordered, [notes[s.name] for s in specs if s.name in notes])

    async def _ask(
        self,
        spec: ServerSpec,
        file: Path,
        text: str,
        found: dict[str, list[dict[str, Any]]],
        notes: dict[str, str],
    ) -> None:
        server = self._server(spec, file)
        key = (spec.name, server.root)
        if key in self._told_stopped:
            return
        with trio.move_on_after(self.timeout_s):
            try:
                found[spec.name] = await server.diagnose(file, text)
            except ServerNotTrusted as refused:
                self._told_stopped.add(key)
                notes[spec.name] = f"{spec.name} {refused}"
            except ServerStopped:
                self._told_stopped.add(key)
                others = [s for s in servers_for(self._servers, str(file)) if s is not spec]
                what = "its diagnostics are" if others else "diagnostics"
                notes[spec.name] = f"{spec.name} stopped; {what} off for {file.suffix}"
            except LspError as exc:
                log.warning("diagnostics for %s from %s failed: %s", file, spec.name, exc)
                notes[spec.name] = f"({spec.name} failed on this file: {exc})"
            except Exception as exc:  # never a traceback into the turn
                log.exception("diagnostics for %s from %s failed", file, spec.name)
                notes[spec.name] = f"({spec.name} failed on this file: {type(exc).__name__})"
            return
        log.warning(
            "diagnostics for %s: %s took over %ss, skipped", file, spec.name, self.timeout_s
        )
        if server.state == "starting":
            notes[spec.name] = f"({spec.name} is still starting; skipped this time)"
        else:
            notes[spec.name] = (
                f"({spec.name} did not answer within {self.timeout_s:g}s; skipped this time)"
            )

    def _server(self, spec: ServerSpec, file: Path) -> WarmServer:
        root = project_root(file, spec.markers, self._root)
        key = (spec.name, root)
        server = self._running.get(key)
        if server is None:
            server = WarmServer(
                spec,
                root,
                self._env,
                self._nursery,
                self._report_states,
                self._trust_project,
                redact=self._redact,
            )
            self._running[key] = server
        return server

    async def _report_states(self) -> None:
        states = [
            ev.DiagnosticsServerState(name, str(root), server.state, server.detail)
            for (name, root), server in self._running.items()
        ]
        try:
            await self._emit(ev.DiagnosticsServers(states))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass  # the session is closing


async def serve_edit_diagnostics(
    root: Path,
    env: Mapping[str, str],
    servers: Sequence[ServerSpec] | None,
    emit: Callable[[ev.Event], Awaitable[None]],
    *,
    trust_project: bool = False,
    redact: Callable[[str], str] = str,
    task_status: trio.TaskStatus[EditDiagnostics | None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run the session's language servers (`servers`, as find_servers gave
    them) until cancelled. Reports None (and returns) when diagnostics on
    edit are off (`servers` is None). `trust_project` (--trust-project) lets
    servers run the project's own code (luxe.lsp.trust)."""
    if servers is None:
        task_status.started(None)
        return
    async with trio.open_nursery() as nursery:
        task_status.started(
            EditDiagnostics(
                nursery,
                root,
                env,
                servers,
                emit,
                timeout_from(env),
                trust_project=trust_project,
                redact=redact,
            )
        )
        await trio.sleep_forever()
