"""Helpers for the hostile-repository tests (issue 17): a real `luxe --rpc`
on the loopback model server in any permission mode, and what it leaked;
`grep_while_swapping`, the grep tool searching while a name swaps for a
secret file."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.swap import ENV, swapping_names
from tests.luxe.rpc_driver import LuxeProcess, call

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


def one_turn_leaks_nothing(
    calls: list[dict[str, Any]],
    mode: str,
    values: Iterable[str],
    *,
    cwd: Path,
    env: dict[str, str],
    flags: tuple[str, ...] = ("--auto-approve",),
) -> tuple[list[dict[str, Any]], Any]:
    """One turn making `calls` at once; asserts none of `values` leaked and
    luxe closed cleanly. Returns the tool_finished contents and the last
    request body (the one carrying the results)."""
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], mode, *flags, cwd=cwd, env=env
    ) as (luxe, server):
        frames = run_turn(luxe)
        for value in values:
            assert not leaked(value, luxe, server), value
        assert luxe.close() == 0
        done = [f["content"] for f in frames if f["kind"] == "tool_finished"]
        return done, server.bodies[-1]


def grep_while_swapping(
    plant: Callable[[Path], None],
    repo: Path,
    env: dict[str, str],
    *,
    path: str = ".",
    searches: int = 300,
) -> str:
    """Every frame but the model's own calls, and every request to the
    model, of one turn making `searches` grep calls under `path` at once while
    `swap/racy.md` (TEXT) and what `plant` plants trade places; the
    repository's `.env` holds ENV. The pattern never spells what it finds,
    so the model's own call arguments (in every later request) cannot
    count as a leak."""
    (repo / ".env").write_text(ENV)
    greps = [call("grep", pattern="M.RKER|API.KEY|TEXT", path=path)] * searches
    steps = [{"tool_calls": greps}, {"text": "done"}]
    with swapping_names(repo, plant), hostile_luxe(steps, "yolo", cwd=repo, env=env) as (luxe, server):
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended", timeout=60.0)
        assert frames[-1]["content"]["text"] == "done", frames[-1]
        assert luxe.close() == 0
    return str([f for f in luxe.frames if f["kind"] != "tool_started"]) + str(server.bodies)
