"""Diagnostics on edit: after every write or edit by a tool, the file's
language server re-analyses it and its errors and warnings (errors first,
capped) are appended to the tool result the model sees.

`serve_edit_diagnostics` runs for the session: servers start on the first
edit of a file of their language and stay warm (no spawn per call); it
answers `after_edit(path)` by sending the file's new text and *asking* for
diagnostics (pull model, so they are never stale), or, for a server that
only pushes them, by waiting for the ones published for that version.
Bounded by a timeout: a slow or broken server costs at most that and is
then left out. `LUXE_LSP_ON_EDIT=0` turns it off.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from luxe.lsp.client import LspClient, LspError, open_lsp_client

log = logging.getLogger("luxe.lsp")

# Extension -> (language id, server command). Ruff's server lints Python.
SERVERS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    ".py": ("python", ("ruff", "server")),
    ".pyi": ("python", ("ruff", "server")),
}
AFTER_EDIT_TIMEOUT_S = 5.0
MAX_DIAGNOSTICS = 20
SEVERITY = {1: "error", 2: "warning"}  # information and hints are left out


def _find(program: str, env: Mapping[str, str]) -> str | None:
    # Also look beside our interpreter: tools installed in Luxe's own venv.
    path = os.pathsep.join(p for p in (env.get("PATH"), os.path.dirname(sys.executable)) if p)
    return shutil.which(program, path=path)


def format_diagnostics(path: str, items: list[dict[str, Any]], server: str) -> str | None:
    """One line per error or warning, errors first, capped. None when clean."""
    kept = [d for d in items if d.get("severity", 1) in SEVERITY]
    if not kept:
        return None
    kept.sort(key=lambda d: (d.get("severity", 1), d["range"]["start"]["line"]))
    errors = sum(1 for d in kept if d.get("severity", 1) == 1)
    lines = [
        f"Diagnostics for {path} ({server}): {errors} error(s), {len(kept) - errors} warning(s)"
    ]
    for d in kept[:MAX_DIAGNOSTICS]:
        start = d["range"]["start"]
        code = f" {d['code']}" if d.get("code") else ""
        message = str(d.get("message", "")).splitlines()[0] if d.get("message") else ""
        lines.append(
            f"{path}:{start['line'] + 1}:{start['character'] + 1}: "
            f"{SEVERITY[d.get('severity', 1)]}{code} {message}"
        )
    if len(kept) > MAX_DIAGNOSTICS:
        lines.append(f"(and {len(kept) - MAX_DIAGNOSTICS} more)")
    return "\n".join(lines)


@attrs.define
class _Server:
    client: LspClient
    pull: bool
    versions: dict[str, int] = attrs.Factory(dict)


class EditDiagnostics:
    """What the engine calls after an edit (the `EditDiagnostics` port)."""

    def __init__(self, nursery: trio.Nursery, root: Path, env: Mapping[str, str]) -> None:
        self._nursery = nursery
        self._root = root
        self._env = dict(env)
        self._servers: dict[tuple[str, ...], _Server | None] = {}
        self._starting: dict[tuple[str, ...], trio.Event] = {}

    async def after_edit(self, path: str) -> str | None:
        """Diagnostics text for the file just written, or None (clean, no
        server for it, or the server too slow or broken)."""
        spec = SERVERS.get(Path(path).suffix)
        if spec is None:
            return None
        language, command = spec
        with trio.move_on_after(AFTER_EDIT_TIMEOUT_S):
            try:
                server = await self._server(command)
                if server is None:
                    return None
                return await self._diagnose(server, language, path, command[0])
            except (LspError, OSError, trio.BrokenResourceError, ValueError, KeyError) as exc:
                log.warning("diagnostics for %s failed: %s", path, exc)
                return None
        log.warning("diagnostics for %s: %s took over %ss", path, command[0], AFTER_EDIT_TIMEOUT_S)
        return None

    async def _server(self, command: tuple[str, ...]) -> _Server | None:
        if command in self._servers:
            return self._servers[command]
        if command in self._starting:  # another edit is starting it
            await self._starting[command].wait()
            return self._servers.get(command)
        self._starting[command] = trio.Event()
        try:
            program = _find(command[0], self._env)
            server = None
            if program is not None:
                server = await self._nursery.start(self._serve, (program, *command[1:]))
            else:
                log.info("no %s on PATH: no diagnostics on edit for its files", command[0])
            self._servers[command] = server
            return server
        finally:
            self._starting.pop(command).set()

    async def _serve(
        self, command: tuple[str, ...], *, task_status: trio.TaskStatus[_Server | None]
    ) -> None:
        """Own one server for the session: start, initialize, then stay
        until the session ends (cancel), when its process group is ended."""
        started = False
        try:
            async with open_lsp_client(command, cwd=str(self._root), env=self._env) as client:
                result = await client.request(
                    "initialize",
                    {
                        "processId": os.getpid(),
                        "rootUri": self._root.as_uri(),
                        "capabilities": {
                            "textDocument": {
                                "diagnostic": {"dynamicRegistration": False},
                                "publishDiagnostics": {"versionSupport": True},
                                "synchronization": {"didSave": False},
                            }
                        },
                    },
                )
                await client.notify("initialized", {})
                pull = bool((result or {}).get("capabilities", {}).get("diagnosticProvider"))
                task_status.started(_Server(client, pull))
                started = True
                await trio.sleep_forever()
        except (OSError, LspError) as exc:
            log.warning("language server %s failed: %s", command[0], exc)
            if not started:
                task_status.started(None)

    async def _diagnose(self, server: _Server, language: str, path: str, name: str) -> str | None:
        text = await trio.Path(path).read_text(encoding="utf-8", errors="replace")
        uri = Path(path).as_uri()
        version = server.versions.get(uri, 0) + 1
        server.versions[uri] = version
        if version == 1:
            document = {"uri": uri, "languageId": language, "version": version, "text": text}
            await server.client.notify("textDocument/didOpen", {"textDocument": document})
        else:
            await server.client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
        if server.pull:
            report = await server.client.request(
                "textDocument/diagnostic", {"textDocument": {"uri": uri}}
            )
            items = (report or {}).get("items", [])
        else:
            items = await server.client.wait_published(uri, version)
        try:
            shown = str(Path(path).relative_to(self._root))
        except ValueError:
            shown = path
        return format_diagnostics(shown, items, name)


async def serve_edit_diagnostics(
    root: Path,
    env: Mapping[str, str],
    *,
    task_status: trio.TaskStatus[EditDiagnostics | None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run the session's language servers until cancelled. Reports None
    (and returns) when `LUXE_LSP_ON_EDIT=0`."""
    if env.get("LUXE_LSP_ON_EDIT", "1").strip() in ("0", "false", "no", "off"):
        task_status.started(None)
        return
    async with trio.open_nursery() as nursery:
        task_status.started(EditDiagnostics(nursery, root, env))
        await trio.sleep_forever()
