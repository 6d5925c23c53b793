"""Odd characters never make a session unusable: a lone surrogate from a
client, a tool, a file name or the model becomes U+FFFD, every later turn
works, and a session file that already holds one still resumes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.rpc_driver import provider_env

BAD_LINE = b'{"kind":"submit_user_message","content":{"text":"bad \\ud800 surrogate"}}\n'


def _session_file(env: dict[str, str]) -> Path:
    (path,) = (Path(env["XDG_DATA_HOME"]) / "luxe" / "sessions").glob("*.jsonl")
    return path


def test_lone_surrogates_from_client_model_and_tools_never_break_a_session(
    spawn: SpawnLuxe, env: dict[str, str], repo: Path
) -> None:
    # A file name that is not UTF-8 reaches Python as a surrogate escape.
    (repo / os.fsdecode(b"legacy-\xff.txt")).write_text("x")
    steps = [
        {"text": "first"},
        {"text": "model \ud800 said"},
        {"tool_calls": [{"name": "ls", "args": {}}, {"name": "glob", "args": {"pattern": "*.txt"}}]},
        {"text": "listed"},
        {"text": "still fine"},
        {"text": "resumed fine"},
    ]
    with FakeLLMServer(steps) as server:
        luxe = spawn(None, "--yolo", env_extra=provider_env(server, "anthropic"))
        ready = luxe.handshake()
        luxe.send_raw(BAD_LINE)
        started = luxe.expect("turn_started")
        assert started["text"] == "bad \ufffd surrogate"
        ended = luxe.expect("turn_ended")
        assert ended == {"turn_id": started["turn_id"], "reason": "end_turn", "error": None, "text": "first"}
        assert "bad \ufffd surrogate" in json.dumps(server.bodies[0], ensure_ascii=False)

        luxe.send("submit_user_message", {"text": "model"})
        frames = luxe.collect_until("turn_ended")
        assert frames[-1]["content"]["reason"] == "end_turn", frames[-1]
        said = "".join(f["content"]["delta"] for f in frames if f["kind"] == "token_delta")
        assert said == "model \ufffd said"

        luxe.send("submit_user_message", {"text": "list"})
        frames = luxe.collect_until("turn_ended")
        assert frames[-1]["content"]["reason"] == "end_turn", frames[-1]
        sent = json.dumps(server.bodies[3], ensure_ascii=False)
        assert "legacy-\ufffd.txt" in sent

        luxe.send("submit_user_message", {"text": "later"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        assert luxe.close() == 0

        saved = _session_file(env).read_text(encoding="utf-8")
        assert "\\ud8" not in saved.lower() and "\\udc" not in saved.lower()
        assert "bad \ufffd surrogate" in saved and "model \ufffd said" in saved

        again = spawn(None, "--resume", ready["session_id"], env_extra=provider_env(server, "anthropic"))
        again.handshake()
        again.send("submit_user_message", {"text": "after resume"})
        assert again.expect("turn_ended")["reason"] == "end_turn"
        assert again.close() == 0


def test_a_session_file_holding_a_lone_surrogate_still_resumes(
    spawn: SpawnLuxe, env: dict[str, str]
) -> None:
    with FakeLLMServer([{"text": "one"}, {"text": "two"}]) as server:
        luxe = spawn(None, env_extra=provider_env(server, "anthropic"))
        ready = luxe.handshake()
        luxe.send("submit_user_message", {"text": "hello"})
        assert luxe.expect("turn_ended")["reason"] == "end_turn"
        assert luxe.close() == 0
        # What an older luxe wrote: the surrogate as a JSON escape.
        path = _session_file(env)
        poisoned = {"type": "message", "message": {"role": "user", "content": [
            {"type": "text", "text": "old \\ud800 line"}]}}
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(poisoned).replace("\\\\ud800", "\\ud800") + "\n")
        assert "\\ud800" in path.read_text()

        again = spawn(None, "--resume", ready["session_id"], env_extra=provider_env(server, "anthropic"))
        again.handshake()
        again.send("submit_user_message", {"text": "go on"})
        assert again.expect("turn_ended") ["reason"] == "end_turn"
        assert "old \ufffd line" in json.dumps(server.bodies[1], ensure_ascii=False)
        assert again.close() == 0
