"""Throughput of laura's shell pane against tmux, in one run.

Generates three files of the same size (default 20 MB): plain printable
lines, colour-heavy lines (`ls --color`-like SGR runs: basic, 256-colour and
true colour), and random bytes (`cat` of a binary file: controls, broken
escape sequences, invalid UTF-8). Each is `cat` inside a fresh private tmux server, 120x40:

  tmux    tmux new-session "cat FILE; tmux wait -S done"
  laura   tmux new-session "laura -- cat FILE; tmux wait -S done"
          (laura parses everything into its emulator, draws at most 60
          frames/s, and exits when the child has exited and its output is
          drained; the outer tmux only sees laura's frames)

Startup is measured with an empty file and subtracted. Prints MB/s and the
ratio laura/tmux.

    python bench/laura_throughput.py [--mb 20]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

LAURA = str(Path(sys.executable).parent / "laura")
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "src",
    "main.py",
    "README.md",
    "tests",
    "build",
    "node_modules",
    "venv",
    "Makefile",
    "x",
    "config.toml",
    "lib",
    "data.csv",
    "a.out",
]
SGRS = [
    "01;34",
    "01;32",
    "01;36",
    "00",
    "01;31",
    "38;5;208",
    "38;2;200;100;50",
    "1",
    "4",
    "7",
    "33",
]


def generate(path: Path, kind: str, size: int) -> None:
    rnd = random.Random(1)
    if kind == "random":  # what `cat` of a binary file throws at a terminal
        path.write_bytes(rnd.randbytes(size))
        return
    colour = kind == "colour"
    lines: list[str] = []
    total = 0
    while total < size:
        if colour:
            parts = [
                f"\x1b[{rnd.choice(SGRS)}m{rnd.choice(WORDS)}\x1b[0m"
                for _ in range(rnd.randint(1, 8))
            ]
            line = "  ".join(parts) + "\n"
        else:
            n = rnd.randint(0, 110)
            line = " ".join(rnd.choice(WORDS) for _ in range(n // 7))[:n] + "\n"
        lines.append(line)
        total += len(line)
    path.write_bytes("".join(lines).encode()[:size])


def run_in_tmux(command: str, home: Path) -> float:
    """Seconds from starting a private tmux server running `command` to its end."""
    server = f"bench-{uuid.uuid4().hex[:10]}"
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "TMUX_TMPDIR": str(home),
    }
    if os.environ.get("PYTHONPATH"):  # to measure another checkout's laura package
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    tmux = ["tmux", "-L", server, "-f", "/dev/null"]
    start = time.perf_counter()
    try:
        subprocess.run(
            [
                *tmux,
                "new-session",
                "-d",
                "-x",
                "120",
                "-y",
                "40",
                f"{command}; tmux -L {server} wait -S done; exec sleep 3600",
            ],
            env=env,
            check=True,
        )
        subprocess.run([*tmux, "wait", "done"], env=env, check=True, timeout=3600)
        return time.perf_counter() - start
    finally:
        subprocess.run([*tmux, "kill-server"], env=env, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--mb", type=float, default=20.0, help="size of each file in MB (default 20)"
    )
    args = parser.parse_args()
    size = int(args.mb * 1024 * 1024)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        empty = root / "empty.txt"
        empty.touch()
        files = {name: root / f"{name}.txt" for name in ("plain", "colour", "random")}
        for name, path in files.items():
            generate(path, name, size)
        base_tmux = min(run_in_tmux(f"cat {empty}", home) for _ in range(3))
        base_laura = min(run_in_tmux(f"{LAURA} -- cat {empty}", home) for _ in range(3))
        print(
            f"startup (empty file): tmux {base_tmux * 1000:.0f} ms, laura {base_laura * 1000:.0f} ms"
        )
        print(f"{'file':8s} {'MB':>6s} {'tmux MB/s':>10s} {'laura MB/s':>11s} {'laura/tmux':>11s}")
        for name, path in files.items():
            megabytes = os.path.getsize(path) / 1e6
            tmux_s = max(run_in_tmux(f"cat {path}", home) - base_tmux, 1e-3)
            laura_s = max(run_in_tmux(f"{LAURA} -- cat {path}", home) - base_laura, 1e-3)
            tmux_rate, laura_rate = megabytes / tmux_s, megabytes / laura_s
            print(
                f"{name:8s} {megabytes:6.1f} {tmux_rate:10.1f} {laura_rate:11.2f} {laura_rate / tmux_rate:11.3f}"
            )


if __name__ == "__main__":
    main()
