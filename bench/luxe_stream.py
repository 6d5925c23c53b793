"""How many token_delta frames per second `luxe --rpc` forwards.

The fake model server (a separate process, so it does not share our GIL)
streams one long answer of one-character deltas; we count token_delta frames
from the first to `turn_ended`. Baseline in the same run: the rate at which
the server alone produces those events, read straight off the socket.
Target: >= 50,000 frames/s, so luxe is never the bottleneck of a stream.
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
            for _ in range(2):
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
            luxe.close()
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait()
    print(f"fake server alone, events/s read off the socket   {baseline:10,.0f}")
    print(
        f"luxe --rpc token_delta frames/s forwarded          {max(rates):10,.0f}   target >= 50,000"
    )
    print(f"luxe / server                                       {max(rates) / baseline:10.2f}")


if __name__ == "__main__":
    main()
