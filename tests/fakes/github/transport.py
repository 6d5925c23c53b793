"""The fake GitHub's transport: an HTTPS proxy on loopback that only tunnels
to its own made-up host, TLS inside the tunnel, and HTTP/1.1 requests handed
to an application callable.

gh (Go) and git (curl) reach `https://ghe.test/...` through
`HTTPS_PROXY=http://127.0.0.1:PORT`: they send `CONNECT ghe.test:443`, we
answer 200, wrap the socket in TLS with a throwaway certificate and serve
HTTP inside the tunnel (see /work/shared/reference/github-testing.md). A
CONNECT to any other host is refused with 403 and recorded in
`refused_connects`, so a test can assert nothing tried to leave loopback.

Ownership: `ProxyServer.start` runs the accept loop in a daemon thread and
one thread per connection; `stop` closes the listener and every open
connection. Nothing here outlives `stop`.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from socketserver import ThreadingTCPServer
from typing import Any

import attrs


@attrs.define
class Request:
    method: str
    path: str  # path and query, as sent
    headers: dict[str, str]  # lower-case names
    body: bytes


@attrs.define
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = attrs.Factory(dict)
    # Close the connection without answering (a cut in the middle).
    cut: bool = False


App = Callable[[Request], Response]


def make_certificate(directory: Path, host: str) -> tuple[Path, Path]:
    """A throwaway self-signed CA certificate for `host`, api.`host`,
    localhost and 127.0.0.1; returns (cert, key)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    if cert.exists() and key.exists():
        return cert, key
    directory.mkdir(parents=True, exist_ok=True)
    sans = f"subjectAltName=DNS:{host},DNS:api.{host},DNS:localhost,IP:127.0.0.1"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key), "-out", str(cert),
            "-days", "30", "-subj", "/CN=fake-github", "-addext", sans,
            "-addext", "basicConstraints=critical,CA:TRUE",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


class _Server(ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: ProxyServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _ProxyHandler)


class ProxyServer:
    """The listener. `hosts` are the names a CONNECT may reach; `app`
    answers every request inside a tunnel."""

    def __init__(self, *, hosts: set[str], cert: Path, key: Path, app: App) -> None:
        self.hosts = hosts
        self.app = app
        self.refused_connects: list[str] = []
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(str(cert), str(key))
        self._server = _Server(self)
        self._thread: threading.Thread | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> None:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            for sock in list(self._open):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def track(self, sock: socket.socket, opened: bool) -> None:
        with self._lock:
            (self._open.add if opened else self._open.discard)(sock)


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_CONNECT(self) -> None:
        owner = self.server.owner
        host, _, port = self.path.rpartition(":")
        if host not in owner.hosts or port != "443":
            owner.refused_connects.append(self.path)
            self.send_response(403, "only the fake GitHub is reachable")
            self.send_header("Content-Length", "0")
            self.end_headers()
            self.close_connection = True
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        try:
            tls = owner.context.wrap_socket(self.connection, server_side=True)
        except (ssl.SSLError, OSError):
            self.close_connection = True
            return
        owner.track(tls, True)
        try:
            _TunnelHandler(tls, self.client_address, self.server)
        except (OSError, ssl.SSLError):
            pass
        finally:
            owner.track(tls, False)
            try:
                tls.close()
            except OSError:
                pass
        self.close_connection = True

    def _refuse_plain(self) -> None:
        self.send_response(400, "use HTTPS through this proxy")
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _refuse_plain


class _TunnelHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 inside the TLS tunnel; every request goes to the app."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        request = Request(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self._body(),
        )
        response = self.server.owner.app(request)
        if response.cut:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body)
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle
