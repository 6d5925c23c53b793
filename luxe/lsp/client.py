"""A minimal Language Server Protocol client over stdio (JSON-RPC 2.0 with
`Content-Length` framing), enough for diagnostics.

`open_lsp_client` owns the server process (its own process group) and a
reader task; leaving the context (or cancelling it) ends the server: SIGTERM
to the group, a short grace, SIGKILL, always reaped. Requests the server
sends us (`workspace/configuration`, `window/workDoneProgress/create`, ...)
are answered with `null` so it never waits on us.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import trio

from luxe.tools.process import terminate_group

log = logging.getLogger("luxe.lsp")

GRACE_S = 0.2
MAX_MESSAGE = 64 << 20


class LspError(Exception):
    pass


class LspClient:
    def __init__(self, proc: trio.Process, name: str) -> None:
        self.proc = proc
        self.name = name
        self._ids = 0
        self._pending: dict[int, tuple[trio.Event, list[Any]]] = {}
        self._send_lock = trio.Lock()
        self.diagnostics: dict[str, tuple[int | None, list[dict[str, Any]]]] = {}
        self._published = trio.Event()
        self.closed = False

    async def _write(self, message: Mapping[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        async with self._send_lock:
            await self.proc.stdin.send_all(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def notify(self, method: str, params: Any) -> None:
        await self._write({"method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and wait for its answer. Cancelling the caller
        abandons the answer (it is dropped when it comes)."""
        if self.closed:
            raise LspError(f"{self.name} has exited")
        self._ids += 1
        rid = self._ids
        done, box = trio.Event(), list[Any]()
        self._pending[rid] = (done, box)
        try:
            await self._write({"id": rid, "method": method, "params": params})
            await done.wait()
        finally:
            self._pending.pop(rid, None)
        if not box:
            raise LspError(f"{self.name} exited before answering {method}")
        message = box[0]
        if "error" in message:
            raise LspError(f"{method}: {message['error'].get('message', message['error'])}")
        return message.get("result")

    async def wait_published(self, uri: str, version: int) -> list[dict[str, Any]]:
        """Diagnostics pushed for `uri` at `version` or later (push-model servers)."""
        while True:
            known = self.diagnostics.get(uri)
            if known is not None and (known[0] is None or known[0] >= version):
                return known[1]
            if self.closed:
                raise LspError(f"{self.name} has exited")
            self._published = trio.Event()
            await self._published.wait()

    async def serve_reader(self) -> None:
        """Read messages until the server's stdout ends."""
        assert self.proc.stdout is not None
        buf = bytearray()
        try:
            while True:
                message = await _read_message(self.proc.stdout, buf)
                if message is None:
                    return
                await self._dispatch(message)
        finally:
            self.closed = True
            for done, _ in self._pending.values():
                done.set()  # waiters then find no answer: see request
            self._published.set()

    async def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" not in message:
            pending = self._pending.get(message.get("id"))  # type: ignore[arg-type]
            if pending is not None:
                pending[1].append(message)
                pending[0].set()
            return
        if "id" in message:  # a request from the server: answer, never block it
            await self._write({"id": message["id"], "result": None})
            return
        if message["method"] == "textDocument/publishDiagnostics":
            params = message.get("params") or {}
            self.diagnostics[params.get("uri", "")] = (
                params.get("version"),
                params.get("diagnostics") or [],
            )
            self._published.set()


async def _read_message(stream: trio.abc.ReceiveStream, buf: bytearray) -> dict[str, Any] | None:
    while True:
        end = buf.find(b"\r\n\r\n")
        if end >= 0:
            length = None
            for line in bytes(buf[:end]).split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if length is None or length > MAX_MESSAGE:
                raise LspError("bad LSP header")
            while len(buf) < end + 4 + length:
                chunk = await stream.receive_some(65536)
                if not chunk:
                    return None
                buf += chunk
            body = bytes(buf[end + 4 : end + 4 + length])
            del buf[: end + 4 + length]
            return json.loads(body)
        chunk = await stream.receive_some(65536)
        if not chunk:
            return None
        buf += chunk


async def _drain(stream: trio.abc.ReceiveStream | None) -> None:
    if stream is not None:
        while await stream.receive_some(65536):
            pass


@asynccontextmanager
async def open_lsp_client(
    command: Sequence[str], *, cwd: str, env: Mapping[str, str] | None = None
) -> AsyncIterator[LspClient]:
    """Start a server and its reader; on exit end its process group."""
    proc = await trio.lowlevel.open_process(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        cwd=cwd,
        env=dict(env) if env is not None else None,
    )
    client = LspClient(proc, os.path.basename(command[0]))
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.serve_reader)
            nursery.start_soon(_drain, proc.stderr)
            try:
                yield client
            finally:
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await terminate_group(proc, grace_s=GRACE_S)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    await stream.aclose()
