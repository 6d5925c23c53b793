"""`luxe --rpc` against the fake Anthropic/OpenAI server: the real providers
end to end, what the agent sends, retries, and coherent history after cancel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import processes_with_marker, provider_env, unique_duration, wait_until

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _tool_results(body: Any, provider: str) -> list[str]:
    """The tool results a request body carries, in the provider's format."""
    out = []
    for message in body["messages"]:
        if provider == "openai":
            if message.get("role") == "tool":
                out.append(message["content"])
        elif isinstance(message.get("content"), list):
            out += [
                b["content"] if isinstance(b["content"], str) else b["content"][0]["text"]
                for b in message["content"]
                if b.get("type") == "tool_result"
            ]
    return out


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_spec_client_verbatim_against_the_fake_server(
    provider: str, env: dict[str, str], repo: Path
) -> None:
    steps = [
        {"text": "Reading.", "tool_calls": [{"name": "read", "args": {"path": "README.md"}}]},
        {"text": "A demo project."},
    ]
    with FakeLLMServer(steps) as server:
        run_env = {**env, **provider_env(server, provider), "PATH": f"{BIN}:{env['PATH']}"}
        done = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "spec_client.py")],
            cwd=repo, env=run_env, capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Reading.\n[read]\nA demo project.\n"
        bodies = server.bodies
        assert len(bodies) == 2
        assert "# demo" in _tool_results(bodies[1], provider)[0]
        assert {t["name"] if "name" in t else t["function"]["name"] for t in bodies[0]["tools"]} == {
            "read", "write", "edit", "bash", "grep", "glob", "ls", "question"
        }


def test_a_retry_is_announced_then_the_turn_goes_on(spawn: SpawnLuxe) -> None:
    steps = [
        {"http_error": {"status": 429, "retry_after": 0.05, "message": "slow down"}},
        {"text": "made it", "usage": {"input_tokens": 1000, "output_tokens": 10}},
    ]
    with FakeLLMServer(steps) as server:
        luxe = spawn(None, env_extra=provider_env(server, "anthropic"))
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "hi"})
        error = luxe.expect("error")
        assert error["retryable"] is True and error["retry_in_s"] == pytest.approx(0.05)
        assert "429" in error["message"]
        usage = luxe.expect("turn_usage")
        assert usage["prompt_tokens"] == 1000 and usage["completion_tokens"] == 10
        # claude-sonnet-4-5: $3 in, $15 out per million tokens.
        assert usage["cost_usd"] == pytest.approx(0.00315)
        assert usage["session_cost_usd"] == pytest.approx(0.00315)
        assert usage["context_window"] == 200_000
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        assert luxe.close() == 0


def test_missing_key_names_the_variable(spawn: SpawnLuxe) -> None:
    luxe = spawn(None, env_extra={"LUXE_MODEL": "anthropic/claude-sonnet-4-5"})
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "hi"})
    ended = luxe.expect("turn_ended")
    assert ended["reason"] == "error" and "ANTHROPIC_API_KEY" in ended["error"]
    assert luxe.close() == 0


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_after_cancel_the_next_request_is_coherent(
    spawn: SpawnLuxe, env: dict[str, str], provider: str
) -> None:
    marker = unique_duration()
    steps = [
        {"tool_calls": [
            {"name": "bash", "args": {"command": f"sleep {marker}"}, "id": "call_a"},
            {"name": "ls", "args": {}, "id": "call_b"},
        ]},
        {"text": "fresh start"},
    ]
    with FakeLLMServer(steps) as server:
        luxe = spawn(None, "--yolo", env_extra=provider_env(server, provider))
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "run"})
        luxe.expect("tool_finished", where=lambda c: c["name"] == "ls")
        wait_until(lambda: len(processes_with_marker(marker, scope=env)) >= 1, what="the sleep")
        luxe.send("cancel_turn")
        assert luxe.expect("turn_ended")["reason"] == "cancelled"
        assert processes_with_marker(marker, scope=env) == []
        luxe.send("submit_user_message", {"text": "again"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        second = server.bodies[1]
        results = _tool_results(second, provider)
        assert len(results) == 2
        assert any("cancelled by the user" in r for r in results)
        assert any("README.md" in r for r in results)  # the ls that finished keeps its result
        assert luxe.close() == 0


def test_the_system_prompt_says_where_the_model_is(spawn: SpawnLuxe, repo: Path) -> None:
    (repo / "AGENTS.md").write_text("Always run the tests with make test.\n")
    (repo / "dirty.txt").write_text("x")
    with FakeLLMServer([{"text": "ok"}]) as server:
        luxe = spawn(None, env_extra=provider_env(server, "anthropic"))
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "hi"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        body = server.bodies[0]
        system = body["system"] if isinstance(body["system"], str) else " ".join(b["text"] for b in body["system"])
        assert f"Working directory: {repo}" in system
        assert "Platform: Linux" in system
        assert "Date: 20" in system
        assert "dirty.txt" in system and "AGENTS.md" in system  # git status summary
        assert "Always run the tests with make test." in system
        for tool in ("read", "write", "edit", "bash", "grep", "glob", "ls", "question"):
            assert f"- {tool}:" in system
        assert luxe.close() == 0


def test_ollama_model_talks_to_ollama_host(spawn: SpawnLuxe) -> None:
    steps = [
        {"tool_calls": [{"name": "ls", "args": {}, "id": "call_ls"}]},
        {"text": "local answer"},
    ]
    with FakeLLMServer(steps) as server:
        # OLLAMA_HOST as Ollama itself takes it: host:port, no scheme, no /v1.
        host = f"127.0.0.1:{server.port}"
        luxe = spawn(None, "--model", "ollama/qwen3:8b", env_extra={"OLLAMA_HOST": host})
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "hi"})
        frames = luxe.collect_until("turn_ended")
        assert frames[-1]["content"]["reason"] == "end_turn", frames[-1]
        said = "".join(f["content"]["delta"] for f in frames if f["kind"] == "token_delta")
        assert said == "local answer"
        requests = server.requests
        assert [r.path for r in requests] == ["/v1/chat/completions"] * 2
        assert requests[0].body["model"] == "qwen3:8b"
        assert "authorization" not in requests[0].headers  # Ollama needs no key
        assert "README.md" in _tool_results(requests[1].body, "openai")[0]
        assert luxe.close() == 0
