"""A loopback HTTP server that speaks the Anthropic and OpenAI streaming APIs.

The only double for a model in this project. It answers `POST /v1/messages`
(Anthropic Messages, `event:`/`data:` SSE) and `POST /v1/chat/completions`
(OpenAI Chat Completions, `data:` chunks ending in `[DONE]`) from a script of
steps, one step per request whichever endpoint is asked, and records every
request so tests can check what the agent sent.

Step format (shared with luxe's offline `--model scripted:PATH` provider):

    {"text": "...", "thinking"?: "...", "tool_calls"?: [{"name", "args", "id"?}],
     "usage"?: {"input_tokens", "output_tokens", "cache_read_tokens"?, "cache_write_tokens"?},
     "stop_reason"?: "end_turn" | "max_tokens"}

Server-only extras:

    "http_error": {"status": 429, "retry_after": 0.2, "message": "..."}  answer an HTTP error
    "json_body": {...}     answer 200 with this JSON, not a stream (a server ignoring `stream`)
    "cut": true            close the connection before the stream ends (after the text)
    "cut_after_end": true  drop the connection after the last event, before the body's end
    "close": true          answer with `connection: close` and close the connection after
                           the body (a server that does not keep connections alive)
    "stall": true          send headers (and the text, if any), then silence
    "stream_error": {"type"?, "message"?}   a mid-stream `error` event after the text
    "flood": {"mb": N, "lines"?: true, "line_end"?: "\r"}   after the first event, N MB
                           of one line without an end (or, with lines, of data lines
                           of one event without an end, each ended by line_end), then
                           a cut
    "endless": {"kind", "piece"?, "blocks"?, "mb"?}   valid deltas without end: `kind`
                           text, thinking, args (of a write call) or (Anthropic)
                           signature, in pieces of `piece` characters (4096), each in
                           a block of its own with `blocks` (OpenAI: args only); a
                           cut after `mb` MB of events (24)
    "chunk_size": N        split text/thinking into deltas of N characters
    "signature": "..."     the thinking block's signature (default derived from the text)
    "redacted_thinking": "opaque"   a redacted_thinking block before the rest
    "delay_s": S           wait before answering; "chunk_delay_s": S between deltas
    "noise": true          add what clients must ignore: SSE comments, an unknown
                           event type, unknown fields
    "openai_variants": [..]  quirks of OpenAI-compatible servers: "whole_args" (a call's
                           id, name and arguments in one chunk), "null_choices" (the
                           usage chunk has `choices: null`), "empty_tool_calls" (text
                           chunks carry `tool_calls: []`)

Use it in-process (`with FakeLLMServer(steps) as server: server.base_url`),
from trio tests (`await server.wait_for_requests_async(1)`), or as a
subprocess: `python -m tests.fakes.llm_server --script steps.jsonl` prints the
base URL as its first stdout line and serves until killed. Control endpoints
for subprocess users: `GET /_fake/requests` (recorded requests as JSON) and
`POST /_fake/steps` (a JSON list of steps to append).

Only the standard library: one thread per connection (ThreadingHTTPServer),
HTTP/1.1 keep-alive with chunked SSE bodies. A client that goes away
mid-stream is recorded in `disconnects`, never a crash.
"""

from __future__ import annotations

import argparse
import json
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fakes.llm_streams import CUT, STALL, Step, anthropic_events, openai_events

ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"


@dataclass
class RecordedRequest:
    """One request as the server received it."""

    index: int
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or the raw text when it was not JSON
    received_at: float  # time.monotonic() when the body was read
    finished_at: float | None = None  # when the last response byte was written
    outcome: str = "pending"  # completed | disconnected | cut | stalled | error | exhausted

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "method": self.method,
            "path": self.path,
            "headers": self.headers,
            "body": self.body,
            "received_at": self.received_at,
            "finished_at": self.finished_at,
            "outcome": self.outcome,
        }


class _ClientGone(Exception):
    """The client closed the connection while we were writing or stalling."""


@dataclass
class _State:
    steps: list[Step]
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    on_request: Callable[[RecordedRequest], None] | None = None
    record_file: Any = None
    next_step: int = 0

    def take_step(self) -> tuple[int, Step | None]:
        with self.lock:
            index = self.next_step
            if index >= len(self.steps):
                return index, None
            self.next_step += 1
            return index, self.steps[index]


class FakeLLMServer:
    """A running fake model server on 127.0.0.1 at a random port.

    Owns one listening socket and one serving thread; `stop()` (or leaving the
    `with` block) wakes stalled streams, closes the socket and joins the thread.
    """

    def __init__(self, steps: Iterable[Step] = (), *, host: str = "127.0.0.1") -> None:
        self._state = _State(steps=[dict(s) for s in steps])
        self._httpd = _Server((host, 0), _Handler)
        self._httpd.state = self._state
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------

    def start(self) -> FakeLLMServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-llm-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._state.stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.close_all_connections()
        self._httpd.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what tests use --------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The URL to put in ANTHROPIC_BASE_URL (no `/v1`)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """The URL to put in OPENAI_BASE_URL (OpenAI clients expect the `/v1`)."""
        return f"{self.base_url}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Model requests received so far (control requests excluded)."""
        with self._state.lock:
            return list(self._state.requests)

    @property
    def connections_opened(self) -> int:
        """TCP connections accepted so far (keep-alive reuse keeps this low)."""
        return self._httpd.connections_opened

    @property
    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    @property
    def steps_left(self) -> int:
        with self._state.lock:
            return len(self._state.steps) - self._state.next_step

    def add_steps(self, steps: Iterable[Step]) -> None:
        with self._state.lock:
            self._state.steps.extend(dict(s) for s in steps)

    def set_on_request(self, callback: Callable[[RecordedRequest], None] | None) -> None:
        """Call `callback` (in the server thread) as each model request arrives."""
        self._state.on_request = callback

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        """Block (a plain thread) until `predicate()` holds; TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"condition not met within {timeout}s; requests: {self.requests}"
                )
            time.sleep(0.002)

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> list[RecordedRequest]:
        self.wait_until(lambda: len(self.requests) >= count, timeout)
        return self.requests

    async def wait_until_async(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        """Like `wait_until`, for trio tests: polls with trio.sleep so the loop runs."""
        import trio

        with trio.fail_after(timeout):
            # The condition lives in the server's threads, so there is no trio.Event to wait on.
            while not predicate():  # noqa: ASYNC110
                await trio.sleep(0.002)

    async def wait_for_requests_async(
        self, count: int, timeout: float = 10.0
    ) -> list[RecordedRequest]:
        await self.wait_until_async(lambda: len(self.requests) >= count, timeout)
        return self.requests

    def outcome(self, index: int) -> str:
        return self.requests[index].outcome


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    state: _State

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._connections: set[socket.socket] = set()
        self.connections_opened = 0
        self._connections_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        # Stream events must leave at once, as a real API server sends them.
        request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._connections_lock:
            self._connections.add(request)
            self.connections_opened += 1
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_all_connections(self) -> None:
        with self._connections_lock:
            conns = list(self._connections)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that vanished is a normal event for this server, not a traceback.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, _ClientGone, OSError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- HTTP entry points -------------------------------------------------------

    def do_GET(self) -> None:
        if self.path == "/_fake/requests":
            with self.server.state.lock:
                data = [r.to_json() for r in self.server.state.requests]
            self._send_json(200, data)
        else:
            self._send_json(404, {"error": {"message": f"fake llm server: no GET {self.path}"}})

    def do_POST(self) -> None:
        body_bytes = self._read_body()
        if self.path == "/_fake/steps":
            steps = json.loads(body_bytes or b"[]")
            with self.server.state.lock:
                self.server.state.steps.extend(steps)
            self._send_json(200, {"added": len(steps)})
            return
        state = self.server.state
        try:
            body: Any = json.loads(body_bytes) if body_bytes else None
        except ValueError:
            body = body_bytes.decode("utf-8", "replace")
        with state.lock:
            record = RecordedRequest(
                index=len(state.requests),
                method="POST",
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                received_at=time.monotonic(),
            )
            state.requests.append(record)
        if state.record_file is not None:
            state.record_file.write(json.dumps(record.to_json()) + "\n")
            state.record_file.flush()
        if state.on_request is not None:
            state.on_request(record)
        flavour = _flavour(self.path)
        if flavour is None:
            record.outcome = "error"
            self._send_json(
                404,
                {
                    "error": {
                        "type": "not_found_error",
                        "message": f"fake llm server: no POST {self.path}",
                    }
                },
            )
            return
        step_index, step = state.take_step()
        if step is None:
            record.outcome = "exhausted"
            message = (
                f"fake llm server: script exhausted: request #{record.index + 1} "
                f"arrived but the script has only {step_index} step(s)"
            )
            self._send_error_body(flavour, 400, message, "invalid_request_error")
            return
        try:
            self._answer(flavour, step, record, step_index)
        except (_ClientGone, ConnectionError, OSError):
            record.outcome = "disconnected"
            self.close_connection = True

    # -- answering --------------------------------------------------------------

    def _answer(self, flavour: str, step: Step, record: RecordedRequest, step_index: int) -> None:
        if step.get("delay_s"):
            self._sleep(float(step["delay_s"]))
        if "json_body" in step:
            self._send_json(200, step["json_body"])
            record.outcome = "completed"
            record.finished_at = time.monotonic()
            return
        if "http_error" in step:
            err = step["http_error"]
            status = int(err.get("status", 500))
            headers = {}
            if err.get("retry_after") is not None:
                headers["retry-after"] = str(err["retry_after"])
            etype = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
            message = err.get("message") or f"fake llm server: scripted HTTP {status}"
            self._send_error_body(flavour, status, message, etype, headers)
            record.outcome = "error"
            record.finished_at = time.monotonic()
            return
        events = (
            anthropic_events(step, step_index)
            if flavour == "anthropic"
            else openai_events(step, step_index, record.body)
        )
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        if step.get("close"):
            self.send_header("connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.flush()
        delay = float(step.get("chunk_delay_s") or 0)
        out = _ChunkWriter(self.wfile)
        for event in events:
            if event is STALL:
                # Record before flushing: the client may act on the flushed text
                # (and ask for the outcome) before this thread runs again.
                record.outcome = "stalled"
                out.flush()
                self._stall()
                return
            if event is CUT:
                out.flush()
                record.outcome = "cut"
                record.finished_at = time.monotonic()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            assert isinstance(event, bytes)
            out.write(event)
            if delay:
                out.flush()
                self._sleep(delay)
        out.finish()
        record.finished_at = time.monotonic()
        record.outcome = "completed"

    def _stall(self) -> None:
        """Hold the stream open, sending nothing, until the client leaves or we stop."""
        sock = self.connection
        while not self.server.state.stopping.is_set():
            readable, _, _ = select.select([sock], [], [], 0.02)
            if readable:
                try:
                    data = sock.recv(4096, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    raise _ClientGone()
                sock.recv(len(data))  # a client may not pipeline during a stream; drop
        self.close_connection = True

    def _sleep(self, seconds: float) -> None:
        if self.server.state.stopping.wait(seconds):
            raise _ClientGone()

    def _read_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _send_json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _send_error_body(
        self,
        flavour: str,
        status: int,
        message: str,
        etype: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        if flavour == "anthropic":
            data: dict[str, Any] = {"type": "error", "error": {"type": etype, "message": message}}
        else:
            data = {"error": {"message": message, "type": etype, "code": None}}
        self._send_json(status, data, headers)


class _ChunkWriter:
    """Coalesces SSE events into HTTP chunks (one write per ~16 KiB or flush)."""

    def __init__(self, wfile: Any) -> None:
        self._wfile = wfile
        self._buf: list[bytes] = []
        self._size = 0

    def write(self, data: bytes) -> None:
        self._buf.append(data)
        self._size += len(data)
        if self._size >= 16384:
            self.flush()

    def flush(self) -> None:
        if not self._buf:
            return
        data = b"".join(self._buf)
        self._buf.clear()
        self._size = 0
        self._wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self._wfile.flush()

    def finish(self) -> None:
        # The last chunk and the terminator go out in one write: two small
        # writes would meet Nagle's algorithm and the client's delayed ACK.
        data = b"".join(self._buf)
        self._buf.clear()
        self._size = 0
        last = b"%x\r\n%s\r\n" % (len(data), data) if data else b""
        self._wfile.write(last + b"0\r\n\r\n")
        self._wfile.flush()


def _flavour(path: str) -> str | None:
    path = path.split("?", 1)[0].rstrip("/")
    if path.endswith(ANTHROPIC_PATH):
        return "anthropic"
    if path.endswith("/chat/completions"):
        return "openai"
    return None


# -- subprocess entry point -------------------------------------------------------


def load_script(path: str | Path) -> list[Step]:
    """Steps from a JSONL file (blank lines and `#` comments skipped)."""
    steps = []
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            steps.append(json.loads(line))
    return steps


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", help="JSONL file of steps, one per request")
    parser.add_argument("--record", help="append each request as a JSON line to this file")
    args = parser.parse_args(argv)
    steps = load_script(args.script) if args.script else []
    server = FakeLLMServer(steps)
    record_file = open(args.record, "a") if args.record else None  # noqa: SIM115
    server._state.record_file = record_file
    with server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    if record_file is not None:
        record_file.close()


if __name__ == "__main__":
    main()
