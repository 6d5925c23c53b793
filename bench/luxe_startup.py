"""How fast `luxe --rpc` is ready, and how fast a prompt reaches the model.

Measures, against the fake model server on loopback:
  start -> `ready` frame                          (target <= 150 ms)
  start -> first model request for a prompt sent at once on stdin
                                                  (target <= 200 ms)
beside `python -c pass` with the same (venv) interpreter, in the same run.
Peers on this machine, same fake server, start -> first model request:
Claude Code 313 ms, pi 864 ms, OpenCode 2.5 s.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import (
    Luxe,
    check_interpreter,
    isolated_env,
    project_dir,
    python_pass_ms,
    summary,
    workspace,
)

from tests.fakes.llm_server import FakeLLMServer

RUNS = 20


def main() -> None:
    check_interpreter()
    baseline = python_pass_ms(RUNS)
    ready_ms: list[float] = []
    request_ms: list[float] = []
    with workspace() as tmp, FakeLLMServer([{"text": "ok"}] * RUNS) as server:
        root = Path(tmp)
        project = project_dir(root)
        env = isolated_env(
            root, {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "bench"}
        )
        args = ["--model", "anthropic/claude-sonnet-4-5"]
        # start -> ready
        for _ in range(RUNS):
            luxe = Luxe(args, cwd=project, env=env)
            at, _ready = luxe.until("ready")
            ready_ms.append((at - luxe.started_at) * 1000)
            luxe.close()
        # start -> first model request: the prompt is written before ready,
        # as a one-shot client would.
        for i in range(RUNS):
            luxe = Luxe(args, cwd=project, env=env)
            luxe.send("submit_user_message", {"text": "hello"})
            luxe.until("turn_ended")
            request = server.requests[i]
            request_ms.append((request.received_at - luxe.started_at) * 1000)
            luxe.close()
    base = statistics.median(baseline)
    print(f"python -c pass                 {summary(baseline)}")
    print(f"luxe --rpc: start -> ready     {summary(ready_ms)}   target <= 150 ms")
    print(f"luxe --rpc: start -> request   {summary(request_ms)}   target <= 200 ms")
    print(
        f"medians over the baseline: ready +{statistics.median(ready_ms) - base:.1f} ms, "
        f"request +{statistics.median(request_ms) - base:.1f} ms "
        "(peers to first request: Claude Code 313 ms, pi 864 ms, OpenCode 2500 ms)"
    )


if __name__ == "__main__":
    main()
