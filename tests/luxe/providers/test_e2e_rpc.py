"""The real `luxe --rpc` talking to the fake model server over loopback.

Each test spawns luxe with ANTHROPIC_BASE_URL / OPENAI_BASE_URL pointing at a
FakeLLMServer and checks both ends: the frames a client sees and the request
bodies the model would have received.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.rpc_driver import LuxeProcess, make_env

MODELS = {"anthropic": "anthropic/claude-sonnet-4-5", "openai": "openai/gpt-4o"}
FAST = {"LUXE_RETRY_BASE_DELAY_S": "0.01", "LUXE_STREAM_IDLE_TIMEOUT_S": "10"}


def provider_env(server: FakeLLMServer, provider: str) -> dict[str, str]:
    if provider == "anthropic":
        return {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test-key"}
    return {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Widget\nA widget that frobs.\n")
    return root


@pytest.fixture
def spawn(tmp_path: Path, project: Path) -> Iterator[Any]:
    """spawn(server, provider, *flags, **env) -> luxe --rpc on that provider,
    pointed at the fake server; killed (group) and reaped at teardown."""
    started: list[LuxeProcess] = []

    def start(server: FakeLLMServer, provider: str, *flags: str, **extra: str) -> LuxeProcess:
        env = make_env(tmp_path, **{**FAST, **provider_env(server, provider), **extra})
        luxe = LuxeProcess.start(["--model", MODELS[provider], *flags], cwd=project, env=env)
        started.append(luxe)
        return luxe

    yield start
    for luxe in started:
        luxe.__exit__(None, None, None)


def content_of(luxe: LuxeProcess, kind: str) -> list[dict[str, Any]]:
    return [f.get("content", {}) for f in luxe.frames if f["kind"] == kind]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_streamed_answer(spawn: Any, provider: str) -> None:
    usage = {"input_tokens": 50, "output_tokens": 7, "cache_read_tokens": 20}
    with FakeLLMServer([{"text": "It frobs widgets.", "chunk_size": 4, "usage": usage}]) as server:
        luxe = spawn(server, provider)
        luxe.expect("ready")
        luxe.send("submit_user_message", {"text": "What does this do?"})
        ended = luxe.expect("turn_ended")
        assert ended["reason"] == "end_turn", ended
        deltas = [c["delta"] for c in content_of(luxe, "token_delta")]
        assert "".join(deltas) == "It frobs widgets." and len(deltas) > 2
        [turn_usage] = content_of(luxe, "turn_usage")
        assert turn_usage["completion_tokens"] == 7
        assert turn_usage["cache_read_tokens"] == 20
        assert turn_usage["cost_usd"] is not None and turn_usage["cost_usd"] > 0
        body = server.requests[0].body
        assert body["model"] == MODELS[provider].split("/", 1)[1]
        assert "What does this do?" in json.dumps(body["messages"])


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_tool_turn_sends_the_result_back(spawn: Any, provider: str) -> None:
    steps = [
        {"text": "Looking.", "tool_calls": [{"name": "read", "args": {"path": "README.md"}}]},
        {"text": "It is a widget."},
    ]
    with FakeLLMServer(steps) as server:
        luxe = spawn(server, provider)
        luxe.expect("ready")
        luxe.send("submit_user_message", {"text": "Read the readme"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        [started] = content_of(luxe, "tool_started")
        assert started["name"] == "read" and started["args"] == {"path": "README.md"}
        [finished] = content_of(luxe, "tool_finished")
        assert finished["is_error"] is False
        second = json.dumps(server.requests[1].body["messages"])
        assert "A widget that frobs." in second
        assert started["call_id"] in second


def test_thinking_signatures_travel_in_the_history(spawn: Any) -> None:
    steps = [
        {"thinking": "Let me consider.", "signature": "sig-XYZ", "text": "One."},
        {"text": "Two."},
    ]
    with FakeLLMServer(steps) as server:
        luxe = spawn(server, "anthropic")
        luxe.expect("ready")
        luxe.send("submit_user_message", {"text": "first"})
        luxe.expect("turn_ended")
        assert "".join(c["delta"] for c in content_of(luxe, "thinking_delta")) == "Let me consider."
        luxe.send("submit_user_message", {"text": "second"})
        luxe.expect("turn_ended")
        assistant = server.requests[1].body["messages"][1]
        assert assistant["role"] == "assistant"
        assert {
            "type": "thinking",
            "thinking": "Let me consider.",
            "signature": "sig-XYZ",
        } in assistant["content"]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_retries_are_announced_as_error_frames(spawn: Any, provider: str) -> None:
    steps = [
        {"http_error": {"status": 429, "retry_after": 0.1, "message": "slow down"}},
        {"http_error": {"status": 529, "retry_after": 0.1, "message": "overloaded"}},
        {"text": "made it"},
    ]
    with FakeLLMServer(steps) as server:
        luxe = spawn(server, provider)
        luxe.expect("ready")
        luxe.send("submit_user_message", {"text": "hi"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        errors = content_of(luxe, "error")
        assert [e["retryable"] for e in errors] == [True, True]
        assert [e["retry_in_s"] for e in errors] == [pytest.approx(0.1), pytest.approx(0.1)]
        assert "HTTP 429" in errors[0]["message"] and "HTTP 529" in errors[1]["message"]
        assert len(server.requests) == 3


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_exhausted_retries_end_the_turn_with_a_useful_error(spawn: Any, provider: str) -> None:
    steps = [{"http_error": {"status": 500, "message": "kaput"}}] * 3
    with FakeLLMServer(steps) as server:
        luxe = spawn(server, provider, LUXE_MAX_RETRIES="2")
        luxe.expect("ready")
        luxe.send("submit_user_message", {"text": "hi"})
        ended = luxe.expect("turn_ended")
        assert ended["reason"] == "error"
        assert "HTTP 500" in ended["error"] and "kaput" in ended["error"]
        assert server.base_url in ended["error"]
        # The session survives: the next prompt is answered.
        server.add_steps([{"text": "back"}])
        luxe.send("submit_user_message", {"text": "again"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"


def test_a_missing_key_names_the_variable(spawn: Any) -> None:
    with FakeLLMServer([]) as server:
        luxe = spawn(server, "anthropic", ANTHROPIC_API_KEY="")
        luxe.expect("ready")
        luxe.send("submit_user_message", {"text": "hi"})
        ended = luxe.expect("turn_ended")
        assert ended["reason"] == "error" and "ANTHROPIC_API_KEY" in ended["error"]
        assert server.requests == []


# The spec's example client, verbatim (one copy for every test that runs it).
SPEC_CLIENT = Path(__file__).parents[3] / "examples" / "spec_client.py"


def test_the_spec_example_client_against_the_fake_anthropic_server(
    tmp_path: Path, project: Path
) -> None:
    steps = [
        {"text": "Let me look.", "tool_calls": [{"name": "read", "args": {"path": "README.md"}}]},
        {"text": "It is a widget that frobs."},
    ]
    client = SPEC_CLIENT
    with FakeLLMServer(steps) as server:
        env = make_env(tmp_path, **FAST, **provider_env(server, "anthropic"))
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
        done = subprocess.run(
            [sys.executable, str(client)],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Let me look.\n[read]\nIt is a widget that frobs.\n"
        assert len(server.requests) == 2


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_cancel_mid_stream_closes_the_model_connection(spawn: Any, provider: str) -> None:
    with FakeLLMServer([{"stall": True, "text": "I was saying"}, {"text": "fresh"}]) as server:
        luxe = spawn(server, provider)
        luxe.expect("ready")
        luxe.send("submit_user_message", {"text": "talk"})
        assert luxe.expect("token_delta")["delta"] == "I was saying"
        luxe.send("cancel_turn")
        assert luxe.expect("turn_ended")["reason"] == "cancelled"
        server.wait_until(lambda: server.outcome(0) == "disconnected", timeout=5)
        luxe.send("submit_user_message", {"text": "again"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        assert "fresh" in "".join(c["delta"] for c in content_of(luxe, "token_delta"))


def test_a_stalled_stream_is_retried_and_announced(spawn: Any) -> None:
    with FakeLLMServer([{"stall": True}, {"text": "woke up"}]) as server:
        luxe = spawn(server, "anthropic", LUXE_STREAM_IDLE_TIMEOUT_S="0.3")
        luxe.expect("ready")
        luxe.send("submit_user_message", {"text": "hi"})
        error = luxe.expect("error")
        assert error["retryable"] is True and "stalled" in error["message"]
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
