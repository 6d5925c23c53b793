"""A minimal Language Server Protocol client over stdio (JSON-RPC 2.0 with
`Content-Length` framing), enough for diagnostics.

`open_lsp_client` owns the server process (its own process group, so the
children a server spawns, such as tsserver under typescript-language-server,
go with it) and a reader task; leaving the context (or cancelling it) ends
the whole group through the shared `terminate_group` (SIGTERM, a short
grace, SIGKILL, the leader reaped). Requests the server sends us
(`workspace/configuration`, `window/workDoneProgress/create`, ...) are
answered at once so it never waits on us.

The server's command line is fixed when it starts and never carries a file
path: documents travel as `file://` URIs inside messages, so no file name,
however it is spelled, can reach a server as an option.
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

from luxe import children
from luxe.record import state
from process_group import terminate_group

log = logging.getLogger("luxe.lsp")

GRACE_S = 0.2
MAX_MESSAGE = 64 << 20
# How long the stderr of a server that ended is given to reach its end.
STDERR_DRAIN_S = 1.0
STDERR_TAIL = 2048
# JSON-RPC error the LSP uses when a server dropped a request it may be asked
# again (pyright does so for a pull overtaken by an edit).
SERVER_CANCELLED = -32802


class LspError(Exception):
    """The server answered with an error (`code` is its code, 0 when it gave
    none), or exited (`code` is None)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


@state
class Published:
    """The latest `publishDiagnostics` for one document."""

    version: int | None
    items: list[dict[str, Any]]
    seq: int  # the client's count of publishes when this one came
    at: float  # trio.current_time() when it came


class LspClient:
    """One server's connection. Not shared between tasks except through
    its methods; `closed` is set once the server's stdout has ended."""

    def __init__(
        self, proc: trio.Process, name: str, configuration: Mapping[str, Any] | None = None
    ) -> None:
        self.proc = proc
        self.name = name
        # What `workspace/configuration` is answered, by section.
        self.configuration = dict(configuration or {})
        self._ids = 0
        self._pending: dict[int, tuple[trio.Event, list[Any]]] = {}
        self._send_lock = trio.Lock()
        self.published: dict[str, Published] = {}
        self.publishes = 0
        self._published = trio.Event()
        self.exited = trio.Event()
        self.stderr_tail = b""
        self.stderr_ended = trio.Event()
        self.broken: str | None = None  # why we stopped reading it, when it was our choice

    @property
    def closed(self) -> bool:
        return self.exited.is_set()

    async def _write(self, message: Mapping[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        try:
            async with self._send_lock:
                await self.proc.stdin.send_all(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise LspError(f"{self.name} has exited") from exc

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
        error = message.get("error")
        if error is not None:
            text = error.get("message", error) if isinstance(error, dict) else error
            code = error.get("code") if isinstance(error, dict) else None
            raise LspError(f"{method}: {text}", code if isinstance(code, int) else 0)
        return message.get("result")

    async def wait_published(
        self, uri: str, version: int, after: int, quiet_s: float = 0.0
    ) -> list[dict[str, Any]]:
        """The diagnostics pushed for `uri` at `version` (or, from a server
        that sends no version, the first pushed after publish number
        `after`). With `quiet_s`, keep waiting until the server has sent
        nothing more for `uri` for that long: servers that publish in waves
        (syntax first, then types) send the full list last."""
        while not self.is_current(uri, version, after):
            await self._next_publish()
        if quiet_s > 0:
            while True:
                seen = self.published[uri].seq
                with trio.move_on_after(quiet_s):
                    while self.published[uri].seq == seen:
                        await self._next_publish()
                if self.published[uri].seq == seen:
                    break
        return self.published[uri].items

    def is_current(self, uri: str, version: int, after: int) -> bool:
        """Whether what was pushed for `uri` answers `version` (see
        wait_published)."""
        known = self.published.get(uri)
        if known is None or known.seq <= after:
            return False
        return known.version is None or known.version >= version

    async def read_to_end(self, wait_s: float) -> None:
        """Wait (at most `wait_s`) until everything the server wrote before
        it ended has been read: a write that failed because it exited may
        have crossed its last answer."""
        with trio.move_on_after(wait_s):
            await self.exited.wait()

    async def _next_publish(self) -> None:
        if self.closed:
            raise LspError(f"{self.name} has exited")
        await self._published.wait()  # the reader swaps in a new event as it sets this one

    async def serve_reader(self) -> None:
        """Read messages until the server's stdout ends."""
        assert self.proc.stdout is not None
        buf = bytearray()
        try:
            while True:
                message = await _read_message(self.proc.stdout, buf)
                if message is None:
                    return
                if isinstance(message, dict):
                    await self._dispatch(message)
        except (LspError, ValueError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            log.warning("%s: unreadable output, giving up on it: %s", self.name, exc)
            self.broken = f"unreadable output: {exc}"[:200]
        finally:
            self.exited.set()
            for done, _ in self._pending.values():
                done.set()  # waiters then find no answer: see request
            self._wake_waiters()

    async def serve_stderr(self) -> None:
        """Keep the last bytes of the server's stderr (for the log when it
        fails); never let a full pipe block the server."""
        stream = self.proc.stderr
        if stream is None:
            return
        try:
            while chunk := await stream.receive_some(65536):
                self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self.stderr_ended.set()

    def last_stderr_line(self) -> str:
        lines = self.stderr_tail.decode("utf-8", "replace").strip().splitlines()
        return lines[-1].strip()[:200] if lines else ""

    async def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" not in message:
            rid = message.get("id")
            pending = self._pending.get(rid) if isinstance(rid, int) else None
            if pending is not None:
                pending[1].append(message)
                pending[0].set()
            return
        if "id" in message:  # a request from the server: answer, never block it
            await self._write({"id": message["id"], "result": _answer(message, self.configuration)})
            return
        if message["method"] == "textDocument/publishDiagnostics":
            params = message.get("params")
            if not isinstance(params, dict) or not isinstance(params.get("uri"), str):
                return
            items = params.get("diagnostics")
            version = params.get("version")
            self.publishes += 1
            self.published[params["uri"]] = Published(
                version if isinstance(version, int) else None,
                [d for d in items if isinstance(d, dict)] if isinstance(items, list) else [],
                self.publishes,
                trio.current_time(),
            )
            self._wake_waiters()

    def _wake_waiters(self) -> None:
        woken, self._published = self._published, trio.Event()
        woken.set()


def _answer(request: dict[str, Any], configuration: Mapping[str, Any]) -> Any:
    """Our reply to a request from the server: for each configuration item,
    the section `configuration` holds (else null), and yes to anything it
    wants to register."""
    if request["method"] == "workspace/configuration":
        params = request.get("params")
        items = params.get("items") if isinstance(params, dict) else None
        if not isinstance(items, list):
            return []
        return [
            configuration.get(str(item.get("section"))) if isinstance(item, dict) else None
            for item in items
        ]
    return None


async def _read_message(stream: trio.abc.ReceiveStream, buf: bytearray) -> Any:
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
        if len(buf) > MAX_MESSAGE:
            raise LspError("bad LSP header")
        chunk = await stream.receive_some(65536)
        if not chunk:
            return None
        buf += chunk


@asynccontextmanager
async def open_lsp_client(
    command: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str] | None = None,
    name: str = "",
    configuration: Mapping[str, Any] | None = None,
) -> AsyncIterator[LspClient]:
    """Start a server and its reader; on exit end its process group.
    `configuration`: the settings it is given when it asks, by section.
    Raises OSError when the program cannot be started."""
    proc = await children.open_process(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        cwd=cwd,
        env=dict(env) if env is not None else None,
    )
    client = LspClient(proc, name or os.path.basename(command[0]), configuration)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.serve_reader)
            nursery.start_soon(client.serve_stderr)
            try:
                yield client
            finally:
                if client.exited.is_set():
                    # It ended: its last words on stderr (why it failed) are
                    # read before the reader stops, not lost to a race.
                    with trio.CancelScope(shield=True), trio.move_on_after(STDERR_DRAIN_S):
                        await client.stderr_ended.wait()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The reader tasks never raise: the one error is the caller's own,
        # with at most the cancellation of a session that closed while the
        # server's end was handled (the stderr read above) beside it. That
        # error is raised alone (the scope stays cancelled: the caller's
        # next checkpoint raises Cancelled), as when no close came: what
        # handles a dead server's LspError must not miss it in a group.
        errors = [e for e in group.exceptions if not isinstance(e, trio.Cancelled)]
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        if len(errors) == 1:
            raise errors[0] from None
        raise
    finally:
        with trio.CancelScope(shield=True):
            await terminate_group(proc, grace=GRACE_S)
            children.forget(proc.pid)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    await stream.aclose()
