"""An endpoint that streams without end: one line of hundreds of megabytes,
or one event of as many data lines. Luxe keeps at most a bounded part of an
event, says what the endpoint did, and the session goes on. Through the real
`luxe --rpc` and the loopback model server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.procs import peak_rss_kb
from tests.luxe.rpc_driver import LuxeProcess, make_env, make_repo, provider_env

# Luxe's peak resident memory in an ordinary session is some 40 MB; the
# flood below took it to 450 MB (the event kept whole) or to hours of
# copying (a line without end, joined again at each chunk).
PEAK_LIMIT_KB = 160 << 10



@pytest.mark.parametrize(
    ("provider", "flood"),
    [
        ("anthropic", {"mb": 400}),
        ("anthropic", {"mb": 400, "lines": True}),
        # The other stream shape, its data lines ended by CR alone (the
        # decoder's other way of cutting lines).
        ("openai", {"mb": 400, "lines": True, "line_end": "\r"}),
    ],
)
def test_an_event_without_end_is_refused_and_the_session_goes_on(
    provider: str, flood: dict[str, object], tmp_path: Path
) -> None:
    env = make_env(tmp_path)
    repo = make_repo(tmp_path / "repo")
    with FakeLLMServer([{"flood": flood}, {"text": "still here"}]) as server:
        full = {**env, **provider_env(server, provider), "LUXE_RETRY_BASE_DELAY_S": "0.01"}
        with LuxeProcess.start([], cwd=repo, env=full) as luxe:
            luxe.handshake()
            luxe.send("submit_user_message", {"text": "go"})
            ended = luxe.expect("turn_ended", timeout=60)
            assert ended["reason"] == "error", ended
            assert "over 16 MiB" in ended["error"], ended
            assert peak_rss_kb(luxe.pid) < PEAK_LIMIT_KB
            luxe.send("submit_user_message", {"text": "again"})
            ended = luxe.expect("turn_ended")
            assert (ended["reason"], ended["text"]) == ("end_turn", "still here")
            assert luxe.close() == 0


def _nested(kind: str, depth: int) -> object:
    value: object = "x"
    for level in range(depth):
        as_list = kind == "list" or (kind == "mixed" and level % 2)
        value = [value] if as_list else {"a": value}
    return value


@pytest.mark.parametrize(("kind", "depth"), [("list", 600), ("dict", 700), ("mixed", 650)])
def test_tool_arguments_nested_too_deep_get_a_clear_answer(
    kind: str, depth: int, tmp_path: Path
) -> None:
    """Arguments JSON can parse but Luxe's own walk of them could not: the
    turn ended with `internal error: RecursionError` and the answer was
    lost. Now the call is refused as malformed and the turn goes on."""
    env = make_env(tmp_path)
    repo = make_repo(tmp_path / "repo")
    steps = [
        {"tool_calls": [{"name": "read", "args": {"path": _nested(kind, depth)}}]},
        {"text": "went on"},
    ]
    with FakeLLMServer(steps) as server:
        full = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test-key"}
        args = ["--model", "anthropic/claude-sonnet-4-5"]
        with LuxeProcess.start(args, cwd=repo, env=full) as luxe:
            luxe.handshake()
            luxe.send("submit_user_message", {"text": "go"})
            frames = luxe.collect_until("turn_ended")
            ended = frames[-1]["content"]
            assert (ended["reason"], ended["text"]) == ("end_turn", "went on"), ended
            [finished] = [f["content"] for f in frames if f["kind"] == "tool_finished"]
            assert finished["is_error"] and "nested" in finished["summary"], finished
            assert luxe.close() == 0
