"""How many token_delta frames per second `luxe --rpc` forwards.

The fake model server (a separate process, so it does not share our GIL)
streams one long answer of one-character deltas; we count token_delta frames
from the first to `turn_ended`. Baseline in the same run: the rate at which
the server alone produces those events, read straight off the socket.
Target: >= 50,000 frames/s, so luxe is never the bottleneck of a stream.

Also the CPU time (user + system, from /proc) luxe spends per frame over the
same turns, beside the fake server's per event: on a loaded machine the rate
follows how much of a core luxe gets, its CPU time far less, so two versions
of luxe compare better by it (run each with PYTHONPATH at its tree, in
interleaved runs).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import REPO, Luxe, check_interpreter, isolated_env, project_dir, workspace

DELTAS = 200_000


def start_server(script: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.llm_server", "--script", str(script)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raw_rate(url: str) -> float:
    """Events per second the server alone delivers to a reader that only counts."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port))
    start = time.monotonic()
    conn.request("POST", "/v1/messages", json.dumps({"stream": True}))
    response = conn.getresponse()
    count = 0
    while chunk := response.read1(65536):
        count += chunk.count(b"text_delta")
    elapsed = time.monotonic() - start
    conn.close()
    return count / elapsed


def main() -> None:
    check_interpreter()
    step = {"text": "x" * DELTAS, "chunk_size": 1}
    with workspace() as tmp:
        root = Path(tmp)
        script = root / "steps.jsonl"
        script.write_text((json.dumps(step) + "\n") * 3)
        server, url = start_server(script)
        try:
            baseline = raw_rate(url)
            env = isolated_env(root, {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "bench"})
            luxe = Luxe(["--model", "anthropic/claude-sonnet-4-5"], cwd=project_dir(root), env=env)
            luxe.until("ready")
            rates = []
            cpu_us = []  # (luxe, server) CPU µs per frame, each turn
            for _ in range(2):
                cpu_before = cpu_s(luxe.proc.pid), cpu_s(server.pid)
                luxe.send("submit_user_message", {"text": "stream"})
                count = 0
                first = None
                while True:
                    line = luxe.stdout.readline()
                    if not line:
                        raise EOFError("luxe exited mid-stream")
                    if b'"token_delta"' in line:
                        count += 1
                        if first is None:
                            first = time.monotonic()
                    elif b'"turn_ended"' in line:
                        end = time.monotonic()
                        break
                assert first is not None, "no token_delta frames"
                if count != DELTAS:
                    # Frames may carry several deltas if luxe ever coalesces;
                    # then the rate below counts frames, not model deltas.
                    print(f"note: {count} token_delta frames for {DELTAS} model deltas")
                rates.append(count / (end - first))
                luxe_cpu = cpu_s(luxe.proc.pid) - cpu_before[0]
                server_cpu = cpu_s(server.pid) - cpu_before[1]
                cpu_us.append((luxe_cpu / count * 1e6, server_cpu / count * 1e6))
            luxe.close()
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait()
    print(f"fake server alone, events/s read off the socket   {baseline:10,.0f}")
    print(
        f"luxe --rpc token_delta frames/s forwarded          {max(rates):10,.0f}   target >= 50,000"
    )
    print(f"luxe / server                                       {max(rates) / baseline:10.2f}")
    luxe_us, server_us = min(cpu_us)
    print(f"luxe CPU µs per token_delta frame (user + system)   {luxe_us:10.2f}")
    print(f"fake server CPU µs per event, the same turn         {server_us:10.2f}")
    print(f"luxe / server CPU                                   {luxe_us / server_us:10.2f}")


if __name__ == "__main__":
    main()
