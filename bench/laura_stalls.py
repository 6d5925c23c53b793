"""The UI's longest stalls: key -> echo in laura (in tmux) while heavy work
runs, against an idle baseline in the same run (issue 18; target p99 <= 50 ms).

Keys are typed into laura's shell pane through a tmux control-mode client,
and a key's latency is the time until laura draws its echo (see
tests/laura/echo_probe.py). Scenarios, each in a fresh laura:

  idle      nothing else happening
  open      `laura open` of a 1M-line file (about 40 MB), typing until it
            has loaded and a while after
  git diff  a committed 40 MB file with every 10th line changed, opened:
            git diff runs (async) and its 100k hunks are parsed
  diffview  that file's diff view turned on (`laura diff`) once git's
            marks are in, typing until it shows
  longline  `laura open` of a 40 MB file of one line (a minified bundle)
  follow    `laura open --follow` of the 1M-line file, typing until its last
            line is on screen (its rows are counted, then pinned to the end)
  grow      that followed file (a copy), once shown to its end, appended a
            line every 0.25 s, typing until the tenth appended line shows
            (each is a reload)
  rescan    `laura open --highlight 3000` of a 600 KB JavaScript file of
            unclosed `/*` lines (Pygments rescans to the end from each)
  codeend   `laura open --highlight LAST` of a 7 MB Python file of 400,000
            lines, coloured in the background meanwhile
  comment   an agent's `laura comment` near the end of that file (its card
            is placed among rows made as they are read)
  mdend     `laura open --highlight LAST` of a 1 MB markdown file of
            paragraphs, run in the background (laid out in steps down to its
            last line, then lit; 1 MiB is the most laid out as markdown)
  mdlist    the same, of a 1 MB markdown file that is one list of 250,000
            items (made, rendered and laid out in pieces of 50 lines)
  random    100 MB of random bytes `cat` in another tab of the same laura
            (the emulator parses every byte; the typing tab's shell echoes)

    python bench/laura_stalls.py [--lines N] [--random-mb N] [--keys N] [--only random]

Prints p50, p99 and max per scenario, p99 over idle p99, and the CPU
seconds laura used while the keys were typed. The machine is shared: read
the ratios, not the absolute figures, and the load average printed with
them.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.laura.echo_probe import EchoProbe, percentile
from tests.laura.tmux import LAURA, LauraSession, command_name, descendants_of, wait_until

KEY = "Z"


def big_text(path: Path, lines: int) -> Path:
    with path.open("w") as out:
        for start in range(0, lines, 10_000):
            out.write(
                "".join(f"line {n:08d} of the big file, x\n" for n in range(start, start + 10_000))
            )
    return path


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(
    root: Path,
    name: str,
    keys: int,
    setup: Callable[[LauraSession], Callable[[], bool]],
    command: list[str] | None = None,
) -> tuple[list[float], float]:
    """Start laura (tab 1 hosting `command`, default the shell), run `setup`
    (which starts the work and returns "is it done?"), then type until it is
    done and at least `keys` keys were timed; the latencies, and laura's CPU
    seconds while they were typed."""
    # PYTHONPATH passes through, to measure another checkout's laura package.
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    session = LauraSession(root / name, command=command, width=160, height=45, env=env).start()
    probe = EchoProbe(session)
    try:
        probe.key(KEY)  # warm
        done = setup(session)
        cpu = cpu_seconds(session.laura_pid)
        times: list[float] = []
        while len(times) < keys or not done():
            times.append(probe.key(KEY))
            if len(times) % 40 == 0:  # keep the shell's line short; the next
                # echo must change a cell, so wait until the line is cleared
                session.send_keys("C-u")
                wait_until(lambda: KEY * 2 not in session.text())
        return times, cpu_seconds(session.laura_pid) - cpu
    finally:
        probe.close()
        session.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--random-mb", type=float, default=100.0)
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument(
        "--only", default="", help="comma-separated scenarios to run (idle always runs)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for sub in ("data",):
            (root / sub).mkdir()
        data = root / "data"
        text = big_text(data / "big.txt", args.lines)
        repo = data / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        tracked = big_text(repo / "tracked.txt", args.lines)
        git(repo, "add", "tracked.txt")
        git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "big")
        changed = tracked.read_text().splitlines(keepends=True)
        for n in range(0, len(changed), 10):
            changed[n] = changed[n].replace("line", "LINE")
        tracked.write_text("".join(changed))
        one_line = data / "bundle.min.txt"  # a minified bundle: one line of 40 MB
        with one_line.open("w") as out:
            for _ in range(40):
                out.write("function(a){return a+1};" * 43_690)
        rescan = data / "bundle.js"
        rescan.write_text("/*\n" * 200_000)
        long_code = data / "generated.py"
        long_code.write_text("total = total + 1\n" * 400_000)
        notes = data / "notes.md"  # 1 MB: under the size shown as plain text
        paragraph = "A paragraph of prose, long enough to wrap at least once " * 2 + "\n\n"
        notes.write_text(paragraph * (1_000_000 // len(paragraph)) + "FAR_AWAY\n")
        notes_last = 2 * (1_000_000 // len(paragraph)) + 1
        listed = data / "list.md"
        listed.write_text("- a\n" * 250_000 + "\nFAR_AWAY\n")
        noise = data / "random.bin"
        rnd = random.Random(18)
        with noise.open("wb") as out:
            for _ in range(int(args.random_mb)):
                out.write(rnd.randbytes(1 << 20))

        def idle(session: LauraSession) -> Callable[[], bool]:
            return lambda: True

        def opened(path: Path, *extra: str) -> Callable[[LauraSession], Callable[[], bool]]:
            def setup(session: LauraSession) -> Callable[[], bool]:
                result = session.cli("open", str(path), "--no-focus", *extra)
                assert result.returncode == 0, result.stderr
                started = time.monotonic()
                return lambda: "loading…" not in session.text() and time.monotonic() - started > 3

            return setup

        def followed(path: Path, lines: int) -> Callable[[LauraSession], Callable[[], bool]]:
            def setup(session: LauraSession) -> Callable[[], bool]:
                result = session.cli("open", str(path), "--no-focus", "--follow")
                assert result.returncode == 0, result.stderr
                return lambda: f"line {lines - 1:08d}" in session.text()

            return setup

        def grown(path: Path, lines: int) -> Callable[[LauraSession], Callable[[], bool]]:
            def setup(session: LauraSession) -> Callable[[], bool]:
                log = path.with_name("grown.log")
                log.write_bytes(path.read_bytes())
                result = session.cli("open", str(log), "--no-focus", "--follow")
                assert result.returncode == 0, result.stderr
                wait_until(lambda: "loading…" not in session.text())
                wait_until(lambda: f"line {lines - 1:08d}" in session.text(), timeout=60)
                stop = threading.Event()

                def append() -> None:
                    written = 0
                    while not stop.wait(0.25):
                        written += 1
                        with log.open("a") as out:
                            out.write(f"APPENDED {written:04d}\n")

                threading.Thread(target=append, daemon=True).start()

                def done() -> bool:
                    if "APPENDED 0010" not in session.text():
                        return False
                    stop.set()
                    return True

                return done

            return setup

        def diff_viewed(path: Path) -> Callable[[LauraSession], Callable[[], bool]]:
            def setup(session: LauraSession) -> Callable[[], bool]:
                result = session.cli("open", str(path), "--no-focus")
                assert result.returncode == 0, result.stderr
                wait_until(lambda: "-100000" in session.text(), timeout=60)
                subprocess.Popen(
                    [LAURA, "diff", "--pane", result.stdout.strip()],
                    env=session.client_env(None),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                return lambda: "[diff]" in session.text()

            return setup

        def commented(path: Path, line: int) -> Callable[[LauraSession], Callable[[], bool]]:
            def setup(session: LauraSession) -> Callable[[], bool]:
                assert session.cli("ready", "--agent", "bench").returncode == 0
                result = session.cli("open", str(path), "--no-focus")
                assert result.returncode == 0, result.stderr
                wait_until(lambda: "loading…" not in session.text())
                comment = subprocess.Popen(
                    [LAURA, "comment", str(line), "FAR_CARD", "--pane", result.stdout.strip()],
                    env=session.client_env(None),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                started = time.monotonic()
                return lambda: comment.poll() is not None and time.monotonic() - started > 3

            return setup

        def lit_far(path: Path, line: int) -> Callable[[LauraSession], Callable[[], bool]]:
            def setup(session: LauraSession) -> Callable[[], bool]:
                # In the background, as an agent asks: the keys time the open too.
                opening = subprocess.Popen(
                    [LAURA, "open", str(path), "--no-focus", "--highlight", str(line)],
                    env=session.client_env(None),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                return lambda: opening.poll() == 0 and "FAR_AWAY" in session.text()

            return setup

        go = data / "go"

        def flood(session: LauraSession) -> Callable[[], bool]:
            # Tab 1 waits for `go`, then cats the noise. The typing happens in
            # a second tab opened first, so the noise is parsed but never
            # drawn (tmux would drop a control client that falls behind).
            session.send_keys("C-t", "n")
            wait_until(lambda: len(session.tabs()) == 2)
            go.touch()
            wait_until(
                lambda: any(command_name(p) == "cat" for p in descendants_of(session.laura_pid))
            )
            return lambda: (
                not any(command_name(p) == "cat" for p in descendants_of(session.laura_pid))
            )

        waiter = f"while [ ! -e {go} ]; do sleep 0.1; done; cat {noise}; exec sh"
        scenarios: list[tuple[str, Callable[[LauraSession], Callable[[], bool]], list[str] | None]]
        scenarios = [
            ("idle", idle, None),
            ("open", opened(text), None),
            ("gitdiff", opened(tracked), None),
            ("diffview", diff_viewed(tracked), None),
            ("longline", opened(one_line), None),
            ("follow", followed(text, args.lines), None),
            ("grow", grown(text, args.lines), None),
            ("rescan", opened(rescan, "--highlight", "3000"), None),
            ("codeend", opened(long_code, "--highlight", "400000"), None),
            ("comment", commented(long_code, 399_990), None),
            ("mdend", lit_far(notes, notes_last), None),
            ("mdlist", lit_far(listed, 250_002), None),
            ("random", flood, ["sh", "-c", waiter]),
        ]
        if args.only:
            wanted = {"idle", *args.only.split(",")}
            scenarios = [scenario for scenario in scenarios if scenario[0] in wanted]
        results: dict[str, list[float]] = {}
        cpu: dict[str, float] = {}
        for name, setup, command in scenarios:
            results[name], cpu[name] = measure(root, name, args.keys, setup, command)
            print(f"{name}: {len(results[name])} keys", file=sys.stderr, flush=True)
    load = os.getloadavg()[0]
    print(f"key -> echo in laura (tmux), load average {load:.1f} on {os.cpu_count()} cores")
    print(
        f"{'scenario':10s} {'keys':>5s} {'p50 ms':>7s} {'p99 ms':>7s} {'max ms':>7s}"
        f" {'p99/idle':>9s} {'CPU s':>6s}"
    )
    base = percentile(results["idle"], 0.99)
    for name, times in results.items():
        p99 = percentile(times, 0.99)
        print(
            f"{name:10s} {len(times):5d} {percentile(times, 0.5) * 1000:7.1f} {p99 * 1000:7.1f}"
            f" {max(times) * 1000:7.1f} {p99 / base:9.2f} {cpu[name]:6.2f}"
        )


if __name__ == "__main__":
    main()
