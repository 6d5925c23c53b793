"""Helpers for policy tests that drive the real `luxe --rpc`."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.rpc_driver import LuxeProcess
from tests.luxe.rpc_driver import call as call

MODEL = "anthropic/claude-sonnet-4-5"


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def executable(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def global_config(env: dict[str, str]) -> Path:
    return Path(env["XDG_CONFIG_HOME"]) / "luxe"


@contextmanager
def luxe_on_fake_model(
    steps: list[dict[str, Any]], *flags: str, cwd: Path, env: dict[str, str]
) -> Iterator[tuple[LuxeProcess, FakeLLMServer]]:
    """A real `luxe --rpc` talking to the loopback model server."""
    with FakeLLMServer(steps) as server:
        full_env = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test-key"}
        with LuxeProcess.start(["--model", MODEL, *flags], cwd=cwd, env=full_env) as luxe:
            luxe.expect("ready")
            yield luxe, server


def request_text(body: Any) -> str:
    """Everything a request carried to the model, as one string."""
    return json.dumps(body, ensure_ascii=False)


def tool_results(body: Any) -> list[str]:
    """The text of every tool_result block in an Anthropic request body."""
    out = []
    for message in body.get("messages", []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = "".join(b.get("text", "") for b in inner)
                out.append(str(inner))
    return out


def finished_frames(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["content"] for f in frames if f["kind"] == "tool_finished"]
