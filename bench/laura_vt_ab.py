"""laura.vt's CPU rate on one input, this checkout against another,
alternating in fresh processes (the machine is shared: read the ratios of
pairs run back to back, not the absolute figures).

The other checkout is a directory holding a `laura` package, e.g.

    git archive main laura | tar -x -C /tmp/vt-main
    python bench/laura_vt_ab.py /tmp/vt-main [--input random] [--mb 2] [--pairs 6]

Inputs: `random` (random bytes, `\\n` -> `\\r\\n` as a PTY's onlcr delivers),
`plain`, `colour`, `tui` as in bench/laura_emulator.py, and `tui-plain`
(every row redrawn with CUP, text and EL, no colour: the cursor-addressed
output of a program without colours). Each process
feeds the input in 4 KiB reads (as laura's PTY reader does) and reports
the best of three runs in CPU time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

_CHILD = r"""
import importlib.util, random, sys, time
kind, size, lines, columns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if kind == "random":
    data = random.Random(1).randbytes(size)
elif kind == "tui-plain":
    rnd, words, frames, total = random.Random(1), ["alpha", "beta", "src/main.py", "  "], [], 0
    while total < size:
        rows = "".join(f"\x1b[{y + 1};1H{rnd.choice(words) * rnd.randint(1, 8)}\x1b[K"
                       for y in range(lines))
        frames.append("\x1b[H" + rows)
        total += len(frames[-1])
    data = "".join(frames).encode()[:size]
else:
    spec = importlib.util.spec_from_file_location("emulator_bench", sys.argv[5])
    bench = importlib.util.module_from_spec(spec)
    sys.argv = sys.argv[:1]
    spec.loader.exec_module(bench)
    data = bench.generate(size)[kind]
data = data.replace(b"\n", b"\r\n")
from laura.vt import VirtualTerminal
best = float("inf")
for _ in range(3):
    vt = VirtualTerminal(lines, columns)
    start = time.process_time()
    for at in range(0, len(data), 4096):
        vt.feed(data[at : at + 4096])
    best = min(best, time.process_time() - start)
import laura.vt.core as core
print(len(data) / best / 1e6, core.__file__)
"""


def rate(pythonpath: str, kind: str, size: int, lines: int, columns: int) -> float:
    # Run from / so the checkout in the working directory does not come first.
    env = dict(os.environ, PYTHONPATH=pythonpath)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, str(size), str(lines), str(columns),
         str(BENCH / "laura_emulator.py")],
        env=env, capture_output=True, text=True, check=True, cwd="/",
    )
    value, path = out.stdout.split()
    assert path.startswith(pythonpath), (path, pythonpath)
    return float(value)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("other", help="directory holding the other checkout's laura package")
    parser.add_argument(
        "--input", default="random", choices=["random", "plain", "colour", "tui", "tui-plain"]
    )
    parser.add_argument("--mb", type=float, default=2.0)
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--size", default="50x200", help="LINESxCOLUMNS (default 50x200)")
    args = parser.parse_args()
    lines, columns = (int(n) for n in args.size.split("x"))
    size = int(args.mb * 1e6)
    print(f"{args.input}, {args.mb} MB, {lines}x{columns}, load {os.getloadavg()[0]:.1f}")
    print(f"{'pair':>4s} {'other MB/s':>11s} {'this MB/s':>10s} {'this/other':>11s}")
    ratios = []
    for pair in range(args.pairs):
        other = rate(args.other, args.input, size, lines, columns)
        this = rate(str(ROOT), args.input, size, lines, columns)
        ratios.append(this / other)
        print(f"{pair + 1:4d} {other:11.2f} {this:10.2f} {this / other:11.2f}")
    ratios.sort()
    print(f"this/other: {ratios[0]:.2f}-{ratios[-1]:.2f}, median {ratios[len(ratios) // 2]:.2f}")


if __name__ == "__main__":
    main()
