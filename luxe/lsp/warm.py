"""One language server for one project root, kept warm for the session.

A `WarmServer` starts its process on first use (in the session's LSP
nursery, so a slow start outlives the edit that asked for it and the next
edit finds it ready), keeps the documents it was shown open, and answers
`diagnose(path, text)` with the server's settled diagnostics for that text:
pulled (`textDocument/diagnostic`) when the server supports it, else the
`publishDiagnostics` of that version, plus a quiet period for servers that
publish in waves.

What the server may run of the project's own code: luxe.lsp.trust.

Failure: a server that exits (on start or later) is started again on the
next use, at most `MAX_RESTARTS` times in the session; then it is `stopped`
and `diagnose` raises `ServerStopped`. A server that never answers is not
restarted: callers bound their wait. Cancellation: the nursery that owns the
server (the session's) ends its process group when it is cancelled.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import trio

from luxe.lsp.client import SERVER_CANCELLED, LspClient, LspError, open_lsp_client
from luxe.lsp.servers import ServerSpec, language_id
from luxe.lsp.trust import NeedsTrust, configuration, initialization_options

log = logging.getLogger("luxe.lsp")

MAX_RESTARTS = 2
PULL_RETRIES = 3
# How long a server that ended is given to have its last words read.
ENDED_READ_S = 1.0


class ServerStopped(Exception):
    """The server failed more often than it is restarted; it is left out."""


class ServerNotTrusted(ServerStopped):
    """The server is never started in this project without --trust-project;
    the message says why (trust.NeedsTrust)."""


class WarmServer:
    """`spec` running with `root` as its workspace. `state` is starting,
    running, failed or stopped; `on_change` is awaited after each change."""

    def __init__(
        self,
        spec: ServerSpec,
        root: Path,
        env: Mapping[str, str],
        nursery: trio.Nursery,
        on_change: Callable[[], Awaitable[None]],
        trust_project: bool = False,
        *,
        redact: Callable[[str], str] = str,
    ) -> None:
        self.spec = spec
        # What a server says when it fails (its last stderr line may print
        # an environment variable or a value from a `.env` it read) goes to
        # `diagnostics_servers.detail` and the log: redacted first.
        self._redact = redact
        self.root = root
        self._env = env
        self._trust_project = trust_project
        self._nursery = nursery
        self._on_change = on_change
        self.state = "starting"
        self.detail: str | None = None
        self.starts = 0
        self.not_trusted = False  # trust.NeedsTrust refused it: `detail` says why
        self._client: LspClient | None = None
        self._pull = False
        # The current run's (started, ended) events.
        self._run: tuple[trio.Event, trio.Event] | None = None
        self._lock = trio.Lock()  # one document change and its settling at a time
        self._versions: dict[str, int] = {}
        # Per document: the text the server last settled on.
        self._settled: dict[str, str] = {}

    async def diagnose(self, path: Path, text: str) -> list[dict[str, Any]]:
        """The server's diagnostics for `path` holding `text`. Raises
        ServerStopped once the server is left out; waits as long as the
        server takes (the caller bounds it)."""
        while True:
            client = await self._running()
            try:
                async with self._lock:
                    return await self._settle(client, path, text)
            except LspError:
                if not client.closed:
                    raise
                # It died under us: _running restarts it, or gives up.

    async def _running(self) -> LspClient:
        while True:
            if self._client is not None and not self._client.closed:
                return self._client
            run = self._run
            if run is not None and not run[0].is_set():
                await run[0].wait()  # started, or failed to
            elif run is not None and not run[1].is_set():
                await run[1].wait()  # the last run is still ending
            elif self.not_trusted:
                raise ServerNotTrusted(self.detail or "")
            elif self.starts > MAX_RESTARTS:
                raise ServerStopped(self.detail or "")
            else:
                self.starts += 1
                self._run = (trio.Event(), trio.Event())
                self._nursery.start_soon(self._serve, *self._run)

    async def _serve(self, started: trio.Event, ended: trio.Event) -> None:
        """Run the server once: start, initialize, then stay until it exits
        (a failure) or the session's nursery is cancelled."""
        client: LspClient | None = None
        why = ""
        try:
            await self._set_state("starting", None)
            options = initialization_options(self.spec, self.root, self._env, self._trust_project)
            settings = await configuration(self.spec, self.root, self._env, self._trust_project)
            async with open_lsp_client(
                self.spec.command,
                cwd=str(self.root),
                env=self._env,
                name=self.spec.name,
                configuration=settings,
            ) as client:
                result = await client.request("initialize", self._initialize_params(options))
                await client.notify("initialized", {})
                capabilities = result.get("capabilities") if isinstance(result, dict) else None
                self._pull = isinstance(capabilities, dict) and bool(
                    capabilities.get("diagnosticProvider")
                )
                self._versions, self._settled = {}, {}
                self._client = client
                await self._set_state("running", None)
                started.set()
                await client.exited.wait()
        except NeedsTrust as exc:
            self.starts = MAX_RESTARTS + 1  # starting it again would not help
            self.not_trusted = True
            why = str(exc)
        except OSError as exc:
            why = f"cannot start: {exc.strerror or exc}"
        except LspError as exc:
            if exc.code is not None:  # it answered, with an error: say which
                why = str(exc)
        except Exception as exc:  # a bug here must cost this server, not the session
            log.exception("%s: unexpected failure", self.spec.name)
            why = f"{type(exc).__name__}: {exc}"
        finally:
            self._client = None
            started.set()
        try:
            if client is not None:
                why = why or client.broken or f"exited with status {client.proc.returncode}"
                if client.last_stderr_line():
                    why = f"{why}: {client.last_stderr_line()}"
            await self._failed(why)
        finally:
            ended.set()

    async def _failed(self, why: str) -> None:
        why = self._redact(why)
        if self.starts > MAX_RESTARTS:
            log.warning(
                "%s (root %s) %s; failed %d times, diagnostics from it are off",
                self.spec.name,
                self.root,
                why,
                self.starts,
            )
            await self._set_state("stopped", why)
        else:
            log.warning(
                "%s (root %s) %s; restarted on the next edit", self.spec.name, self.root, why
            )
            await self._set_state("failed", why)

    async def _set_state(self, state: str, detail: str | None) -> None:
        self.state, self.detail = state, detail
        await self._on_change()

    def _initialize_params(self, options: dict[str, Any] | None) -> dict[str, Any]:
        root_uri = self.root.as_uri()
        params: dict[str, Any] = {
            "processId": os.getpid(),
            "clientInfo": {"name": "luxe"},
            "rootUri": root_uri,
            "rootPath": str(self.root),
            "workspaceFolders": [{"uri": root_uri, "name": self.root.name or "/"}],
            "capabilities": {
                "workspace": {"configuration": True, "workspaceFolders": True},
                "textDocument": {
                    "diagnostic": {"dynamicRegistration": False},
                    "publishDiagnostics": {"versionSupport": True},
                    "synchronization": {"didSave": True, "dynamicRegistration": False},
                },
                "window": {"workDoneProgress": False},
            },
        }
        if options is not None:
            params["initializationOptions"] = options
        return params

    async def _settle(self, client: LspClient, path: Path, text: str) -> list[dict[str, Any]]:
        uri = path.as_uri()
        if not self._pull and self._settled.get(uri) == text and uri in client.published:
            # Unchanged since the server settled on it: a server need not
            # publish again for the same text, and what it published last
            # (after a change elsewhere, too) is about this text.
            return client.published[uri].items
        self._settled.pop(uri, None)
        version = self._versions.get(uri, 0) + 1
        self._versions[uri] = version
        published_before = client.publishes
        if version == 1:
            document = {"uri": uri, "languageId": language_id(str(path)), "version": version}
            await client.notify(
                "textDocument/didOpen", {"textDocument": {**document, "text": text}}
            )
        else:
            await client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
        # The tool saved the file: servers that check on save (rust-analyzer's
        # cargo check) start now.
        try:
            await client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        except LspError:
            # A server may answer the change, then end before the save
            # reaches it: what it published for this version stands.
            await client.read_to_end(ENDED_READ_S)
            if self._pull or not client.is_current(uri, version, published_before):
                raise
        if self._pull:
            items = await self._pull_diagnostics(client, uri)
        else:
            items = await client.wait_published(uri, version, published_before, self.spec.quiet_s)
        self._settled[uri] = text
        return items

    async def _pull_diagnostics(self, client: LspClient, uri: str) -> list[dict[str, Any]]:
        for attempt in range(PULL_RETRIES):
            try:
                report = await client.request(
                    "textDocument/diagnostic", {"textDocument": {"uri": uri}}
                )
            except LspError as exc:
                if exc.code != SERVER_CANCELLED or attempt == PULL_RETRIES - 1:
                    raise
                continue
            items = report.get("items") if isinstance(report, dict) else None
            return [d for d in items if isinstance(d, dict)] if isinstance(items, list) else []
        return []
