"""Wall time of a client verb (`laura layout`) against starting Python.

Starts a real laura host in a private tmux server, then times, interleaved,
N runs each of:
  python -c pass                     the floor any Python CLI pays
  python stdlib round trip           socket + json, one request/response to the tab
  laura layout                       the real console script (argparse + protocol + client)
and prints medians and the ratio to `python -c pass` (target: within 2x).

    python bench/laura_cli.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.laura.tmux import LAURA, LauraSession

ROUND_TRIP = (
    "import json, socket, os\n"
    "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "s.connect('\\0' + os.environ['LAURA_TAB'])\n"
    's.sendall(b\'{"type":"layout"}\\n\')\n'
    "json.loads(s.makefile('rb').readline())\n"
)


def time_once(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        session = LauraSession(Path(tmp))
        try:
            session.start()
            env = session.client_env(None)
            commands = {
                "python -c pass": [sys.executable, "-c", "pass"],
                "stdlib socket round trip": [sys.executable, "-c", ROUND_TRIP],
                "laura layout": [LAURA, "layout"],
            }
            times: dict[str, list[float]] = {name: [] for name in commands}
            for argv in commands.values():  # warm the page cache
                time_once(argv, env)
            for _ in range(args.runs):
                for name, argv in commands.items():
                    times[name].append(time_once(argv, env))
        finally:
            session.close()
    base = statistics.median(times["python -c pass"])
    print(
        f"{'command':28s} {'median ms':>10s} {'min ms':>8s} {'x pass':>7s}   ({args.runs} runs each)"
    )
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:28s} {median * 1000:10.1f} {min(samples) * 1000:8.1f} {median / base:7.2f}")


if __name__ == "__main__":
    main()
