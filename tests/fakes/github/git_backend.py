"""git's smart HTTP for the fake GitHub: each request is handed to
`git http-backend` as a CGI over the bare repositories under one root, so
clone, fetch, push, non-fast-forward refusal and --force-with-lease behave as
they do on GitHub. Pushes are enabled (http.receivepack)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from tests.fakes.github.transport import Request, Response


def is_git_request(path: str) -> bool:
    route = urlsplit(path).path
    return ".git/" in route and (
        route.endswith(("/info/refs", "/git-upload-pack", "/git-receive-pack"))
    )


def serve(root: Path, request: Request) -> Response:
    url = urlsplit(request.path)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_PROJECT_ROOT": str(root),
        "GIT_HTTP_EXPORT_ALL": "1",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.receivepack",
        "GIT_CONFIG_VALUE_0": "true",
        "REQUEST_METHOD": request.method,
        "PATH_INFO": url.path,
        "QUERY_STRING": url.query,
        "CONTENT_TYPE": request.headers.get("content-type", ""),
        "CONTENT_LENGTH": str(len(request.body)),
        "REMOTE_USER": "fake",
        "REMOTE_ADDR": "127.0.0.1",
        "GIT_HTTP_MAX_REQUEST_BUFFER": "100M",
    }
    if "content-encoding" in request.headers:
        env["HTTP_CONTENT_ENCODING"] = request.headers["content-encoding"]
    if "git-protocol" in request.headers:
        env["GIT_PROTOCOL"] = request.headers["git-protocol"]
    done = subprocess.run(
        ["git", "http-backend"], input=request.body, env=env, capture_output=True, check=False
    )
    head, _, body = done.stdout.partition(b"\r\n\r\n")
    if not _:
        head, _, body = done.stdout.partition(b"\n\n")
    status, headers = 200, {}
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            headers[name.strip()] = value.strip()
    return Response(status, body, headers)
