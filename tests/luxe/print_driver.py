"""Run the real `luxe -p` for tests, against the fake model server.

    with FakeLLMServer([{"text": "hi"}]) as server:
        done = run_print(["hello"], cwd=repo, env={**env, **model_env(server)})
        assert (done.returncode, done.stdout) == (0, b"hi\\n")

`start_print` gives the running process (its own process group) for tests
that signal it; stdin is /dev/null unless bytes are given.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.rpc_driver import EXIT_TIMEOUT_S

LUXE_P = [sys.executable, "-m", "luxe", "-p"]
MODEL = "anthropic/claude-sonnet-4-5"


def model_env(server: FakeLLMServer) -> dict[str, str]:
    """The environment that points luxe's Anthropic provider at `server`."""
    return {
        "ANTHROPIC_BASE_URL": server.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "LUXE_MODEL": MODEL,
    }


@attrs.frozen
class PrintRun:
    returncode: int
    stdout: bytes
    stderr: str

    def result(self) -> dict[str, Any]:
        """The object `--output-format json` printed (its only line)."""
        (line,) = self.stdout.splitlines()
        data: dict[str, Any] = json.loads(line)
        return data

    def frames(self) -> list[dict[str, Any]]:
        """Every line of `--output-format stream-json`, parsed."""
        return [json.loads(line) for line in self.stdout.splitlines()]


def run_print(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes | None = None,
) -> PrintRun:
    done = subprocess.run(
        [*LUXE_P, *args],
        cwd=cwd,
        env=dict(env),
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        timeout=EXIT_TIMEOUT_S * 2,
    )
    return PrintRun(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))


def start_print(
    args: Sequence[str], *, cwd: Path, env: Mapping[str, str]
) -> subprocess.Popen[bytes]:
    """A running `luxe -p` in its own process group, stdin /dev/null."""
    return subprocess.Popen(
        [*LUXE_P, *args],
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
