"""The fake model server speaks both streaming APIs as scripted, over real HTTP."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from luxe.providers.sse import ServerSentEvent, SSEDecoder
from tests.fakes.llm_server import FakeLLMServer

REPO = Path(__file__).resolve().parents[2]


def post(
    server: FakeLLMServer, path: str, body: dict[str, Any]
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(
            "POST", path, json.dumps(body), {"content-type": "application/json", "x-api-key": "k"}
        )
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def events(raw: bytes) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    return decoder.feed(raw) + decoder.finish()


def test_anthropic_text_thinking_and_tool_calls_follow_the_documented_order() -> None:
    step = {
        "thinking": "hmm",
        "text": "héllo wörld",
        "chunk_size": 4,
        "tool_calls": [{"name": "read", "args": {"path": "a.txt"}}, {"name": "ls", "args": {}}],
        "usage": {"input_tokens": 7, "output_tokens": 3, "cache_read_tokens": 2},
    }
    with FakeLLMServer([step]) as server:
        status, headers, raw = post(server, "/v1/messages", {"model": "m", "stream": True})
        assert status == 200
        assert headers["content-type"].startswith("text/event-stream")
        evs = events(raw)
        names = [e.event for e in evs]
        assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
        datas = [json.loads(e.data) for e in evs]
        assert all(d["type"] == e.event for d, e in zip(datas, evs, strict=True))
        deltas = [d["delta"] for d in datas if d["type"] == "content_block_delta"]
        assert "".join(d.get("text", "") for d in deltas) == "héllo wörld"
        assert [d["signature"] for d in deltas if d["type"] == "signature_delta"]
        starts = [d["content_block"] for d in datas if d["type"] == "content_block_start"]
        assert [b["type"] for b in starts] == ["thinking", "text", "tool_use", "tool_use"]
        args = "".join(
            d["delta"]["partial_json"]
            for d in datas
            if d["type"] == "content_block_delta" and d["index"] == 2
        )
        assert json.loads(args) == {"path": "a.txt"}
        assert datas[-2]["delta"]["stop_reason"] == "tool_use"
        assert datas[0]["message"]["usage"]["cache_read_input_tokens"] == 2
        assert server.requests[0].body == {"model": "m", "stream": True}
        assert server.requests[0].headers["x-api-key"] == "k"
        server.wait_until(lambda: server.outcome(0) == "completed")


def test_openai_tool_calls_are_keyed_by_index_and_usage_comes_last() -> None:
    step = {
        "text": "ok",
        "tool_calls": [{"name": "a", "args": {"x": 1}}, {"name": "b", "args": {"y": "zz"}}],
    }
    with FakeLLMServer([step]) as server:
        body = {"model": "m", "stream": True, "stream_options": {"include_usage": True}}
        status, _headers, raw = post(server, "/v1/chat/completions", body)
        assert status == 200
        evs = events(raw)
        assert evs[-1].data == "[DONE]"
        chunks = [json.loads(e.data) for e in evs[:-1]]
        args: dict[int, str] = {}
        for c in chunks:
            for choice in c["choices"]:
                for call in choice["delta"].get("tool_calls") or []:
                    args[call["index"]] = args.get(call["index"], "") + call["function"].get(
                        "arguments", ""
                    )
        assert {i: json.loads(a) for i, a in args.items()} == {0: {"x": 1}, 1: {"y": "zz"}}
        assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 5
        assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"


def test_http_error_carries_retry_after_and_a_provider_shaped_body() -> None:
    with FakeLLMServer(
        [{"http_error": {"status": 429, "retry_after": 0.2, "message": "slow down"}}]
    ) as server:
        status, headers, raw = post(server, "/v1/messages", {})
        assert status == 429
        assert headers["retry-after"] == "0.2"
        assert json.loads(raw)["error"] == {"type": "rate_limit_error", "message": "slow down"}


def test_an_exhausted_script_answers_a_clear_error() -> None:
    with FakeLLMServer([]) as server:
        status, _headers, raw = post(server, "/v1/chat/completions", {})
        assert status == 400
        assert "script exhausted" in json.loads(raw)["error"]["message"]


def test_a_client_leaving_a_stalled_stream_is_recorded_not_fatal() -> None:
    with FakeLLMServer([{"stall": True}, {"text": "after"}]) as server:
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        sock.close()
        server.wait_until(lambda: server.outcome(0) == "disconnected", timeout=5)
        status, _h, raw = post(server, "/v1/messages", {})
        assert status == 200 and b"after" in raw


def test_cut_stream_ends_without_message_stop() -> None:
    with FakeLLMServer([{"cut": True, "text": "partial"}]) as server:
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        sock.close()
        assert b"partial" in received
        assert b"message_stop" not in received
        assert not received.endswith(b"0\r\n\r\n")


def test_subprocess_mode_prints_its_url_and_serves_the_script(tmp_path: Path) -> None:
    script = tmp_path / "steps.jsonl"
    script.write_text(json.dumps({"text": "from a file"}) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.llm_server", "--script", str(script)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        port = int(url.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/v1/messages", "{}")
        assert b"from a file" in conn.getresponse().read()
        conn.request("GET", "/_fake/requests")
        recorded = json.loads(conn.getresponse().read())
        assert recorded[0]["path"] == "/v1/messages"
        conn.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=5)
