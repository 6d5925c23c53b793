"""Helpers for the hostile-repository tests (issue 17): a real `luxe --rpc`
on the loopback model server in any permission mode, and what it leaked."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.rpc_driver import LuxeProcess

from .e2e import MODEL

MODES = ("ask", "accept-edits", "read-only", "yolo")
# A provider key long enough to be a redaction value.
PROVIDER_KEY = "sk-ant-test-5e1f0c9a7b3d2e4f6a8c"


@contextmanager
def hostile_luxe(
    steps: list[dict[str, Any]],
    mode: str,
    *flags: str,
    cwd: Path,
    env: dict[str, str],
    path_extra: str | None = None,
) -> Iterator[tuple[LuxeProcess, FakeLLMServer]]:
    """`luxe --rpc --permission-mode MODE FLAGS` talking to the fake model
    server with PROVIDER_KEY as its API key; handshake done."""
    with FakeLLMServer(steps) as server:
        full = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": PROVIDER_KEY}
        if path_extra:
            full["PATH"] = f"{path_extra}:{full.get('PATH', '')}"
        args = ["--model", MODEL, "--permission-mode", mode, *flags]
        with LuxeProcess.start(args, cwd=cwd, env=full) as luxe:
            luxe.handshake()
            yield luxe, server


def run_turn(luxe: LuxeProcess, text: str = "go") -> list[dict[str, Any]]:
    """Submit a prompt and return the frames up to its turn_ended."""
    luxe.send("submit_user_message", {"text": text})
    return luxe.collect_until("turn_ended")


def everything_written(env: dict[str, str]) -> str:
    """The session files and the log of the luxe run under `env`."""
    out = []
    for var in ("XDG_DATA_HOME", "XDG_STATE_HOME"):
        for path in Path(env[var]).rglob("*"):
            if path.is_file():
                out.append(path.read_text(errors="replace"))
    return "\n".join(out)


def leaked(value: str, luxe: LuxeProcess, server: FakeLLMServer) -> list[str]:
    """Where `value` (or its first 8 characters) showed up: the requests to
    the model, or frames other than the model's own tool-call arguments."""
    where = []
    shown = [f for f in luxe.frames if f["kind"] != "tool_started"]
    for piece in {value, value[:8]}:
        if piece in str(server.bodies):
            where.append(f"{piece!r} in a model request")
        if piece in str(shown):
            where.append(f"{piece!r} in a frame")
    return where


def ripgrep_dir() -> str | None:
    """A directory holding `rg` (installed by .ci/run), or None."""
    found = shutil.which("rg") or os.environ.get("LUXE_TEST_RG")
    return os.path.dirname(found) if found else None
