"""The fake GitHub that the project's tests own: one loopback port that is
an HTTPS proxy to the made-up host `ghe.test`, serving the GraphQL and REST
API as gh calls it (api.py) and git's smart HTTP over bare repositories
(git_backend.py). See /work/shared/reference/github-testing.md.

    with FakeGitHub(tmp_path / "github") as github:
        repo = github.world.create_repo("o/r")
        env = github.env()              # for gh and git: proxy, CA, token
        ...
        assert github.refused_connects == []

Ownership: entering the `with` runs the server threads; leaving it ends
them, a request held by `api.delay_s` included. `python -m tests.fakes.github.server DIR` runs one in the
foreground for benchmarks, printing its environment as JSON.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from tests.fakes.github import git_backend
from tests.fakes.github.api import Api, Failure
from tests.fakes.github.model import World
from tests.fakes.github.transport import ProxyServer, Request, Response, make_certificate

HOST = "ghe.test"
GH = shutil.which("gh")

__all__ = ["GH", "HOST", "Failure", "FakeGitHub"]


class FakeGitHub:
    def __init__(self, root: Path, host: str = HOST) -> None:
        self.root = root
        self.host = host
        root.mkdir(parents=True, exist_ok=True)
        self.cert, key = make_certificate(root / "tls", host)
        self.world = World(host, root / "git")
        self.api = Api(self.world)
        self.proxy = ProxyServer(hosts={host, f"api.{host}"}, cert=self.cert, key=key, app=self._app)
        # Cut the connection in the middle of every push while set (curl
        # retries a request cut on a reused connection, so one cut is not enough).
        self.cut_pushes = False
        # Exceptions the fake raised while answering (a test may assert none).
        self.errors: list[str] = []

    @property
    def refused_connects(self) -> list[str]:
        return self.proxy.refused_connects

    @property
    def port(self) -> int:
        return self.proxy.port

    def __enter__(self) -> FakeGitHub:
        self.proxy.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.api.stop()  # a stalled answer must not hold a thread past the fake
        self.proxy.stop()

    def remote_url(self, full: str) -> str:
        return f"https://{self.host}/{full}.git"

    def env(self, *, authenticated: bool = True) -> dict[str, str]:
        """What gh and git need to reach this fake and nothing else."""
        config = self.root / "gh-config"
        config.mkdir(exist_ok=True)
        tmp = self.root / "tmp"
        tmp.mkdir(exist_ok=True)
        env = {
            "HTTPS_PROXY": f"http://127.0.0.1:{self.port}",
            "https_proxy": f"http://127.0.0.1:{self.port}",
            "NO_PROXY": "",
            "no_proxy": "",
            "GH_HOST": self.host,
            "GH_CONFIG_DIR": str(config),
            "GH_TOKEN": "",
            "GITHUB_TOKEN": "",
            "GH_ENTERPRISE_TOKEN": "fake-token" if authenticated else "",
            "GITHUB_ENTERPRISE_TOKEN": "",
            "GH_REPO": "",
            "GH_PROMPT_DISABLED": "1",
            "GH_NO_UPDATE_NOTIFIER": "1",
            "GH_PAGER": "cat",
            "NO_COLOR": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "TMPDIR": str(tmp),
            "SSL_CERT_FILE": str(self.cert),
            "GIT_SSL_CAINFO": str(self.cert),
        }
        return env

    def _app(self, request: Request) -> Response:
        if git_backend.is_git_request(request.path):
            if request.path.endswith("/git-receive-pack") and self.cut_pushes:
                return Response(0, cut=True)
            with self.world.lock:
                return git_backend.serve(self.world.git_root, request)
        try:
            return self.api.handle(request)
        except Exception as exc:  # a bug in the fake: answer it, do not hang gh
            self.errors.append(repr(exc))
            return Response(500, json.dumps({"message": repr(exc)}).encode())


def main(argv: list[str]) -> int:
    root = Path(argv[0])
    with FakeGitHub(root) as github:
        for full in argv[1:]:
            github.world.create_repo(full)
        info: dict[str, Any] = {"env": github.env(), "port": github.port}
        print(json.dumps(info), flush=True)
        try:
            sys.stdin.read()  # runs until stdin closes
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
