"""Where laura's CPU goes while a flood of output scrolls through its shell
pane, in instructions (cachegrind): deterministic where wall and CPU times
on this shared machine swing by half.

For each input of bench/laura_throughput.py (plain, colour, random; seed 1)
it counts, in fresh processes, each minus the same process stopped before
the work:
- the emulator: the input (`\\n` -> `\\r\\n`, as a PTY's onlcr delivers it)
  fed in 4 KiB reads into a `VirtualTerminal` of the pane's size in the
  throughput bench (laura at 120x40: 118x36 inside the shell pane's border);
- one frame as the host draws it during a flood: every row of the pane read
  with `row()` (after a scroll every row is dirty), put on a fresh 120x40
  `Canvas`, `frame_diff` against the frame before (each frame of a flood
  shows new rows), and encoded. The tab bar, borders and footer are left
  out (the same for every input, and small).

Printed per input: emulator instructions per MB, instructions per frame, and
what a second of frames (60, as a flood draws them) costs in MB of that
input parsed: at a parse rate of R MB/s the frames take F / (R + F) of
laura's CPU.

    python bench/laura_flood_cost.py [--mb 0.5]
    PYTHONPATH=/tmp/other-checkout python bench/laura_flood_cost.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
LINES, COLUMNS = 36, 118
FRAMES = 25  # frames counted per input (after one to start from)

_CHILD = r"""
import gc, sys
from pathlib import Path
from laura.vt import VirtualTerminal
from laura.vt.narrow import not_narrow
from laura.render.canvas import Canvas, frame_diff
gc.set_threshold(50_000, 20, 100)  # as laura.app.run_host sets it
not_narrow()  # compiled once, at the first read that is not ASCII
what, path, lines, columns, count = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
data = Path(path).read_bytes().replace(b"\n", b"\r\n")
vt = VirtualTerminal(lines, columns)
vt.feed("warm \u20ac \u0301\r\n".encode())
if what == "feed":
    for at in range(0, len(data) * count, 4096):
        vt.feed(data[at : at + 4096])
elif what == "frames":
    screens = []
    for at in range(0, len(data), 80 * 1024):  # a frame's worth of a flood apart
        vt.feed(data[at : at + 80 * 1024])
        screens.append([vt.row(y) for y in range(lines)])
    previous = None
    for rows in screens[: count + 1]:
        canvas = Canvas(columns + 2, lines + 4)
        for y, spans in enumerate(rows):
            canvas.put_spans(1, 2 + y, spans, columns + 1)
        frame_diff(previous, canvas).encode("utf-8", "replace")
        previous = canvas
"""


def instructions(*args: str) -> int:
    """Instructions the child executes with `args` (cachegrind)."""
    result = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-c", _CHILD, *args],
        # One hash seed: set and dict orders, and so the counts, stay the same.
        capture_output=True, text=True, check=True, env=dict(os.environ, PYTHONHASHSEED="0"),
    )
    for line in result.stderr.splitlines():
        if "I refs:" in line or "I   refs:" in line:
            return int(line.rsplit(":", 1)[1].replace(",", "").strip())
    raise RuntimeError("cachegrind printed no instruction count")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=0.5, help="MB fed per input (default 0.5)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    sys.path.insert(0, str(BENCH))
    from laura_throughput import generate

    size = int(args.mb * 1024 * 1024)
    print(f"{LINES}x{COLUMNS}, {args.mb} MB per input; M = 10^6 instructions")
    print(f"{'input':8s} {'emulator M/MB':>14s} {'M per frame':>12s} {'60 frames, MB':>15s}")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("plain", "colour", "random"):
            path = Path(tmp) / kind
            # Frames need a few MB to pass by; the emulator's count reads the
            # first `size` bytes of the same file.
            generate(path, kind, max(size, (FRAMES + 2) * 80 * 1024))
            small = Path(tmp) / f"{kind}.small"
            small.write_bytes(path.read_bytes()[:size])
            shape = (str(LINES), str(COLUMNS))
            feed = (instructions("feed", str(small), *shape, "1")
                    - instructions("feed", str(small), *shape, "0"))
            frame = (instructions("frames", str(path), *shape, str(FRAMES))
                     - instructions("frames", str(path), *shape, "0")) / FRAMES
            per_mb = feed / args.mb
            print(f"{kind:8s} {per_mb / 1e6:14.0f} {frame / 1e6:12.2f} {60 * frame / per_mb:15.2f}")


if __name__ == "__main__":
    main()
