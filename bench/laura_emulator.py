"""Laura's VT emulator against pyte and tmux, on the same generated inputs.

Inputs (20 MB each, seed 1, as in the stack measurements): `plain` is
printable ASCII lines, `colour` is `ls --color`-like lines full of SGR
(16/256/true colour, bold/underline/inverse); `tui` (an extra, no target)
is full-screen redraws of all 50 rows in place, as an agent's UI does; `random` (issue 18,
target: the colour ratio or better) is random bytes, `cat` of a binary file. For the in-process emulators
`\\n` becomes `\\r\\n` (what a PTY's onlcr delivers) and data is fed in 64 KiB
reads at 200x50. Printed per input:
- laura.vt MB/s over the whole 20 MB;
- pyte MB/s (`pyte.Screen`) over the first PYTE_MB only (the whole file
  would take about half a minute per input);
- tmux MB/s: `tmux new-session -d -x 200 -y 50 'cat F; tmux wait -S done'`
  + `wait-for`, best of 3, through a real PTY;
- laura.vt / tmux, and whether laura.vt's final screen equals tmux's. Where
  tmux 3.3a legitimately differs from xterm (which laura.vt follows: invalid
  UTF-8, DCS, ESC k, glibc's character widths, line drawing in a capture),
  tmux gets the equivalent input and its capture is read as bench/_vt_tmux.py
  says; everything else must match.
Then end to end: `cat` of the 20 MB file in laura's shell pane (laura in
tmux) against the same `cat` in a tmux pane, until a marker echoed after it
shows. Targets (not asserted): plain >= 40% of tmux, colour >= 25%, the end
to end cat within 3x of tmux.
Run: .venv/bin/python bench/laura_emulator.py [MB]
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from laura.vt import VirtualTerminal

SIZE_MB = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
PYTE_MB = 1.0
LINES, COLUMNS = 50, 200
CHUNK = 65536

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
    "setup.cfg",
    "__init__.py",
    "docs",
    "index.html",
    "style.css",
    "LICENSE",
    "CHANGELOG",
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
    "35;1",
    "0",
]


def generate(size: int) -> dict[str, bytes]:
    rnd = random.Random(1)

    def plain_line() -> str:
        n = rnd.randint(0, 140)
        return " ".join(rnd.choice(WORDS) for _ in range(n // 7))[:n]

    def colour_line() -> str:
        parts = [
            f"\x1b[{rnd.choice(SGRS)}m{rnd.choice(WORDS)}\x1b[0m" for _ in range(rnd.randint(1, 8))
        ]
        return "  ".join(parts)

    def tui_frame() -> str:
        # An agent UI redrawing all 50 rows in place: CUP, colours, EL.
        rows = [
            f"\x1b[{y + 1};1H\x1b[38;5;{rnd.randint(0, 255)}m{y:>3} "
            f"\x1b[1m{rnd.choice(WORDS) * rnd.randint(1, 12)}\x1b[0m\x1b[K"
            for y in range(LINES)
        ]
        return "\x1b[H" + "".join(rows)

    out = {}
    for name, make in (("plain", plain_line), ("colour", colour_line), ("tui", tui_frame)):
        lines, total = [], 0
        while total < size:
            line = make() + ("" if name == "tui" else "\n")
            lines.append(line)
            total += len(line)
        out[name] = "".join(lines).encode()[:size]
    # `cat` of a binary file: controls, broken escapes, invalid UTF-8.
    out["random"] = rnd.randbytes(size)
    return out


def timed(run: Callable[[], None]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def feed_all(emulator_feed: Callable[[bytes], None], data: bytes) -> None:
    for start in range(0, len(data), CHUNK):
        emulator_feed(data[start : start + CHUNK])


def bench_vt(data: bytes) -> tuple[float, list[str]]:
    vt = VirtualTerminal(LINES, COLUMNS)
    seconds = timed(lambda: feed_all(vt.feed, data))
    return len(data) / 1e6 / seconds, vt.display()


def bench_pyte(data: bytes) -> float | None:
    try:
        import pyte
    except ImportError:
        return None
    screen = pyte.Screen(COLUMNS, LINES)
    stream = pyte.ByteStream(screen)
    sample = data[: int(PYTE_MB * 1e6)]
    return len(sample) / 1e6 / timed(lambda: feed_all(stream.feed, sample))


class Tmux:
    """A private tmux server (`tmux -L <unique>`), killed by close()."""

    def __init__(self, home: Path) -> None:
        self.name = f"bench-{uuid.uuid4().hex[:8]}"
        self.env = dict(os.environ, TMUX="", HOME=str(home))

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            env=self.env,
        ).stdout

    def close(self) -> None:
        self("kill-server")


def wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def settled_screen(tmux: Tmux) -> list[str]:
    """The pane's rows once two captures in a row agree."""
    from _vt_tmux import plain_capture  # bench/ is on the path when run as a script

    previous: list[str] = []
    for _ in range(100):
        now = [row.rstrip() for row in plain_capture(tmux("capture-pane", "-p", "-e"))[:LINES]]
        if now == previous:
            break
        previous = now
        time.sleep(0.05)
    return previous


def bench_tmux(path: Path, work: Path, runs: int = 3) -> tuple[float, list[str]]:
    best, screen = float("inf"), []
    for _ in range(runs):
        tmux = Tmux(work)
        try:
            start = time.perf_counter()
            tmux(
                "new-session",
                "-d",
                "-x",
                str(COLUMNS),
                "-y",
                str(LINES),
                f"cat {path}; tmux wait -S done; exec sleep 600",
            )
            tmux("wait-for", "done")
            best = min(best, time.perf_counter() - start)
            screen = settled_screen(tmux)
        finally:
            tmux.close()
    return path.stat().st_size / 1e6 / best, screen


def end_to_end(path: Path, work: Path, laura: str | None) -> tuple[float, float | None]:
    """Seconds until a marker echoed after `cat path` shows: in a tmux pane,
    and in laura's shell pane with laura itself in a tmux pane."""
    marker = "CAT-FINISHED-" + uuid.uuid4().hex[:6]
    inner = f"cat {path}; echo {marker}; exec sleep 600"
    home = work / "home"
    for sub in ("config", "data", "state", "run"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    env = {
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_RUNTIME_DIR": str(home / "run"),
        "LAURA_RUNTIME": str(home / "run"),
        "HOME": str(home),
        "TERM": "tmux-256color",
    }
    results: list[float | None] = []
    commands = [["sh", "-c", inner]]
    if laura:
        commands.append([laura, "--", "sh", "-c", inner])
    for argv in commands:
        tmux = Tmux(home)
        tmux.env.update(env)
        try:
            start = time.perf_counter()
            tmux("new-session", "-d", "-x", str(COLUMNS + 2), "-y", str(LINES + 4), *argv)
            shown = wait_for(lambda t=tmux: marker in t("capture-pane", "-p"), 300)
            results.append(time.perf_counter() - start if shown else None)
        finally:
            tmux.close()
    return results[0] or float("nan"), results[1] if laura else None


def main() -> None:
    # Imported here: bench/laura_vt_ab.py loads this file for generate() alone,
    # without bench/ on the path.
    from _vt_tmux import laura_view, tmux_equivalent

    size = int(SIZE_MB * 1024 * 1024)
    has_tmux = shutil.which("tmux") is not None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        inputs = generate(size)
        print(
            f"inputs: {SIZE_MB:g} MB each; screen {COLUMNS}x{LINES}; pyte on the first "
            f"{PYTE_MB:g} MB only"
        )
        print(
            f"{'input':8} {'pyte MB/s':>10} {'laura.vt MB/s':>14} {'tmux MB/s':>10} "
            f"{'vt/tmux':>8} {'screen = tmux':>14}"
        )
        for name, raw in inputs.items():
            path = work / f"{name}.txt"
            path.write_bytes(raw)
            equivalent = tmux_equivalent(raw)
            tmux_path = work / f"{name}.tmux.txt"
            tmux_path.write_bytes(equivalent)
            data = raw.replace(b"\n", b"\r\n")
            pyte_rate = bench_pyte(data)
            vt_rate, vt_screen = bench_vt(data)
            if has_tmux:
                # The rate on the input itself; the screen from the equivalent one.
                tmux_rate, tmux_screen = bench_tmux(path, work)
                if equivalent != raw:
                    tmux_screen = bench_tmux(tmux_path, work, runs=1)[1]
                ratio = f"{vt_rate / tmux_rate:7.0%}"
                same = "yes" if tmux_screen == laura_view(vt_screen) else "NO"
            else:
                tmux_rate, ratio, same = float("nan"), "n/a", "n/a"
            pyte_text = f"{pyte_rate:10.2f}" if pyte_rate else f"{'n/a':>10}"
            print(
                f"{name:8} {pyte_text} {vt_rate:14.1f} {tmux_rate:10.1f} {ratio:>8} {same:>14}",
                flush=True,
            )
        if has_tmux:
            laura = shutil.which("laura") or str(Path(sys.executable).parent / "laura")
            laura_path = laura if Path(laura).exists() else None
            tmux_s, laura_s = end_to_end(work / "plain.txt", work, laura_path)
            print(f"end to end, cat of {SIZE_MB:g} MB (plain) until a marker after it shows:")
            print(f"  tmux pane:             {tmux_s:6.2f} s")
            if laura_s is not None:
                print(f"  laura shell pane:      {laura_s:6.2f} s  ({laura_s / tmux_s:.1f}x tmux)")
            else:
                print("  laura shell pane:      not measured (no laura executable or timed out)")


if __name__ == "__main__":
    main()
