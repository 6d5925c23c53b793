"""What luxe adds to a turn, inside one running `luxe --rpc`.

  submit_user_message -> the request reaching the fake server   (target <= 5 ms)
  the response's last byte -> turn_ended                        (target <= 5 ms)
  a tool turn (model asks for `read`, then answers) end to end  (target <= 15 ms)
  peak RSS after 100 turns                                      (target <= 80 MiB)

Measured two ways in one run, each labelled:

- hot: prompts back to back, the server keeping one connection alive (what
  luxe itself adds when nothing else is in the way);
- the peers' way: an idle gap before each prompt and a server that closes
  the connection after every answer (`"close": true` steps), so each
  request opens a connection as the peers were measured.

Baselines in the same run: a line's round trip through a trivial Python
echo process (the pipe floor any agent pays), and the peak RSS of an idle
interpreter that imported trio and httpx. Peers (not installed here; their
figures are quoted, measured the peers' way): pi 4.7 ms submit -> request
and 14.0 ms a tool turn; peak memory Claude Code 199 MiB, pi 170 MiB,
OpenCode 605 MiB.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import (
    Luxe,
    check_interpreter,
    isolated_env,
    project_dir,
    summary,
    workspace,
)

from tests.fakes.llm_server import FakeLLMServer

TURNS = 100
TOOL_TURNS = 30
# The peers' way: fewer prompts, each after an idle gap.
PEER_TURNS = 20
PEER_TOOL_TURNS = 12
PEER_GAP_S = 1.0
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line); sys.stdout.flush()\n"
IDLE = "import sys, trio, httpx\nsys.stdin.readline()\n"


def echo_round_trip_ms(runs: int) -> list[float]:
    proc = subprocess.Popen(
        [sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    times = []
    for _ in range(runs):
        start = time.monotonic()
        proc.stdin.write(b'{"kind":"ping"}\n')
        proc.stdin.flush()
        proc.stdout.readline()
        times.append((time.monotonic() - start) * 1000)
    proc.stdin.close()
    proc.wait()
    return times


def idle_peak_rss_mib() -> float:
    proc = subprocess.Popen([sys.executable, "-c", IDLE], stdin=subprocess.PIPE)
    time.sleep(1.0)  # let the imports finish; only a measurement, not synchronisation
    rss = float("nan")
    for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            rss = int(line.split()[1]) / 1024
    assert proc.stdin is not None
    proc.stdin.write(b"\n")
    proc.stdin.close()
    proc.wait()
    return rss


def measure(
    turns: int, tool_turns: int, *, gap_s: float, close: bool
) -> tuple[list[float], list[float], list[float], float]:
    """One luxe on its own fake server: (submit -> request, last byte ->
    turn_ended, tool turn end to end, peak RSS after the text turns)."""
    extra = {"close": True} if close else {}
    text_steps = [
        {"text": f"answer {i}", "usage": {"input_tokens": 100, "output_tokens": 5}, **extra}
        for i in range(turns)
    ]
    tool_steps = []
    for _ in range(tool_turns):
        tool_steps.append({"tool_calls": [{"name": "read", "args": {"path": "README.md"}}], **extra})
        tool_steps.append({"text": "done", **extra})
    to_request: list[float] = []
    to_end: list[float] = []
    tool_turn: list[float] = []
    with workspace() as tmp, FakeLLMServer(text_steps + tool_steps) as server:
        root = Path(tmp)
        env = isolated_env(
            root, {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "bench"}
        )
        luxe = Luxe(["--model", "anthropic/claude-sonnet-4-5"], cwd=project_dir(root), env=env)
        luxe.until("ready")
        for i in range(turns):
            time.sleep(gap_s)  # the idle gap being measured, not synchronisation
            sent = time.monotonic()
            luxe.send("submit_user_message", {"text": f"question {i}"})
            ended, content = luxe.until("turn_ended")
            assert content.get("reason") == "end_turn", content
            request = server.requests[i]
            assert request.finished_at is not None
            to_request.append((request.received_at - sent) * 1000)
            to_end.append((ended - request.finished_at) * 1000)
        rss = luxe.peak_rss_mib()
        for i in range(tool_turns):
            time.sleep(gap_s)
            sent = time.monotonic()
            luxe.send("submit_user_message", {"text": f"read it {i}"})
            ended, content = luxe.until("turn_ended")
            assert content.get("reason") == "end_turn", content
            tool_turn.append((ended - sent) * 1000)
        luxe.close()
        if close:
            assert server.connections_opened >= turns + 2 * tool_turns
    return to_request, to_end, tool_turn, rss


def main() -> None:
    check_interpreter()
    echo = echo_round_trip_ms(200)
    idle_rss = idle_peak_rss_mib()
    to_request, to_end, tool_turn, rss = measure(TURNS, TOOL_TURNS, gap_s=0.0, close=False)
    peers = measure(PEER_TURNS, PEER_TOOL_TURNS, gap_s=PEER_GAP_S, close=True)
    # The first turns pay for lazy imports and the first connection; report
    # the steady state (later turns) and the first one apart.
    print(f"pipe round trip (echo process)        {summary(echo)}")
    print("-- hot: prompts back to back, one keep-alive connection")
    print(f"first turn: submit -> request         {to_request[0]:8.2f} ms")
    print(f"submit -> request reaches the server  {summary(to_request[5:])}   target <= 5 ms")
    print(f"last byte -> turn_ended               {summary(to_end[5:])}   target <= 5 ms")
    print(f"tool turn end to end (read + answer)  {summary(tool_turn[2:])}   target <= 15 ms")
    print(f"peak RSS after {TURNS} turns             {rss:8.1f} MiB   target <= 80 MiB")
    print(f"idle python with trio+httpx imported  {idle_rss:8.1f} MiB")
    print(f"-- the peers' way: {PEER_GAP_S:.1f} s idle before each prompt, a new connection per request")
    print(f"submit -> request reaches the server  {summary(peers[0][2:])}")
    print(f"last byte -> turn_ended               {summary(peers[1][2:])}")
    print(f"tool turn end to end (read + answer)  {summary(peers[2][1:])}")
    print(
        "peers, quoted (measured the peers' way, not here): pi 4.7 ms submit -> request, "
        "14.0 ms tool turn; peak RSS Claude Code 199 MiB, pi 170 MiB"
    )


if __name__ == "__main__":
    main()
