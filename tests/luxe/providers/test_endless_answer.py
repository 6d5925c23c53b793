"""An endpoint that streams valid deltas without end: text, thinking, a
thinking block's signature, a tool call's arguments, or a block of its own
for each piece. Luxe keeps at most MAX_MESSAGE_CHARS of one answer (and
MAX_MESSAGE_BLOCKS blocks), sends on the deltas that fit, closes the stream,
ends the turn with an error naming the bound, and the session goes on.
Through the real `luxe --rpc` and the loopback model server, in both the
Anthropic and the OpenAI stream shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from luxe.providers.bounds import MAX_MESSAGE_BLOCKS, MAX_MESSAGE_CHARS
from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.procs import peak_rss_kb
from tests.luxe.rpc_driver import LuxeProcess, make_env, make_repo, provider_env

# Luxe's peak resident memory in an ordinary session is some 40 MB; the
# bounded answer adds some MB to it. (Without the bound it kept all the fake
# sent before its own cut, which only the error and the closed stream tell.)
PEAK_LIMIT_KB = 100 << 10
OVER_CHARS = f"over {MAX_MESSAGE_CHARS >> 20} MiB"
OVER_BLOCKS = f"over {MAX_MESSAGE_BLOCKS} content blocks"



SPELLINGS = [
    ("anthropic", {"kind": "text"}, "token_delta", OVER_CHARS),
    ("anthropic", {"kind": "thinking"}, "thinking_delta", OVER_CHARS),
    ("anthropic", {"kind": "signature"}, None, OVER_CHARS),
    ("anthropic", {"kind": "args"}, None, OVER_CHARS),
    ("anthropic", {"kind": "text", "blocks": True, "piece": 8192}, "token_delta", OVER_CHARS),
    ("anthropic", {"kind": "args", "blocks": True, "piece": 8192}, None, OVER_CHARS),
    ("anthropic", {"kind": "text", "blocks": True, "piece": 1}, "token_delta", OVER_BLOCKS),
    ("openai", {"kind": "text"}, "token_delta", OVER_CHARS),
    ("openai", {"kind": "thinking"}, "thinking_delta", OVER_CHARS),
    ("openai", {"kind": "args"}, None, OVER_CHARS),
    ("openai", {"kind": "args", "blocks": True, "piece": 8192}, None, OVER_CHARS),
    ("openai", {"kind": "args", "blocks": True, "piece": 1}, None, OVER_BLOCKS),
]


@pytest.mark.parametrize(
    ("provider", "endless", "delta_kind", "said"),
    SPELLINGS,
    ids=[
        f"{p}-{e['kind']}{'-blocks' if e.get('blocks') else ''}-{e.get('piece', 4096)}"
        for p, e, _, _ in SPELLINGS
    ],
)
def test_an_answer_without_end_is_cut_at_the_bound_and_the_session_goes_on(
    provider: str, endless: dict[str, Any], delta_kind: str | None, said: str, tmp_path: Path
) -> None:
    env = make_env(tmp_path, LUXE_RETRY_BASE_DELAY_S="0.01")
    repo = make_repo(tmp_path / "repo")
    steps = [{"endless": endless}, {"text": "still here"}]
    with (
        FakeLLMServer(steps) as server,
        LuxeProcess.start([], cwd=repo, env={**env, **provider_env(server, provider)}) as luxe,
    ):
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "go"})
        frames = luxe.collect_until("turn_ended")
        ended = frames[-1]["content"]
        assert ended["reason"] == "error", ended
        assert said in ended["error"], ended
        # What fit of the answer was sent on, up to the bound exactly;
        # no tool call of a cut answer runs.
        kinds = [f["kind"] for f in frames]
        assert "tool_started" not in kinds
        if delta_kind is not None:
            sent = sum(len(f["content"]["delta"]) for f in frames if f["kind"] == delta_kind)
            # (a block of one character each past the bound on blocks)
            assert sent == (MAX_MESSAGE_CHARS if said == OVER_CHARS else MAX_MESSAGE_BLOCKS)
        # Luxe left the stream at the bound: it did not read on to the cut.
        server.wait_until(lambda: server.outcome(0) == "disconnected")
        assert peak_rss_kb(luxe.pid) < PEAK_LIMIT_KB
        luxe.send("submit_user_message", {"text": "again"})
        ended = luxe.expect("turn_ended")
        assert (ended["reason"], ended["text"]) == ("end_turn", "still here"), ended
        # The cut answer is not history: the next request is small.
        assert len(json.dumps(server.bodies[1])) < MAX_MESSAGE_CHARS // 16
        assert luxe.close() == 0
