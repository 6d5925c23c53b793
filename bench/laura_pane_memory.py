"""What file panes cost in memory: laura's resident size (/proc VmRSS) in
tmux, against the same laura idle in the same run, and against the file's
size. Scenarios, each in a fresh laura:

  log       a 64 MiB log of two-letter lines opened and followed to its
            end (every line's rows counted)
  empty     a 64 MiB file of empty lines, the same way
  cycles    an 8 MiB log of short lines opened, followed to its end and
            closed, six times (an agent opening and closing files)
  rewrite   a 4 MiB Python file shown while it is rewritten ten times (a
            generated file a watcher rebuilds)
  diff      a tracked 32 MiB file with every tenth line changed: its marks
            shown, then its inline diff view to its end
  changed   a tracked 8 MiB file of short lines, every line changed, the same way
  inserted  the same file with a line added after every line (a million hunks)
  headings  a markdown file of one-word headings, just under the 1 MiB up to
            which markdown is laid out: its first screen, its end, then its
            end again at two more widths (a terminal dragged narrower)
  blanks    a markdown file of a heading and a megabyte of newlines: its
            first screen, then its end

    python bench/laura_pane_memory.py [--against /path/to/other/checkout] [--only log,cycles]

With --against, every scenario also runs with that checkout's laura package
(on PYTHONPATH), side by side, so the two are compared on the same machine
in the same run. Prints MB above idle after each step, and for `log` and
`empty` that growth over the file's size.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.laura.git_helpers import committed, git
from tests.laura.tmux import LauraSession

MB = 1 << 20


def shown_to_end(session: LauraSession, path: Path, last: str) -> str:
    pane = session.cli("open", str(path)).stdout.strip()
    session.wait_for(lambda screen: "loading" not in screen and f"#{pane} " in screen, timeout=300)
    session.send_keys("End")
    session.wait_for(last, timeout=300)
    return pane


def big_file(session: LauraSession, path: Path) -> list[int]:
    shown_to_end(session, path, "LAST")
    return [session.resident_bytes()]


def cycles(session: LauraSession, path: Path) -> list[int]:
    sizes = []
    for _ in range(6):
        pane = shown_to_end(session, path, "LAST")
        session.cli("close", pane)
        session.wait_for(lambda screen, pane=pane: f"#{pane} " not in screen)
        sizes.append(session.resident_bytes())
    return sizes


def rewrite(session: LauraSession, path: Path) -> list[int]:
    session.cli("open", str(path))
    session.wait_for("v0 = 1", timeout=120)
    sizes = []
    for version in range(1, 11):
        path.write_bytes(versioned(version))
        session.wait_for(f"v{version} = 1", timeout=120)
        time.sleep(0.5)  # let the reload's colouring start, as a reader would see it
        sizes.append(session.resident_bytes())
    return sizes


def diff_view(session: LauraSession, path: Path) -> list[int]:
    added, deleted = git(path.parent, "diff", "--numstat").split()[:2]
    session.cli("open", str(path))
    session.wait_for(lambda screen: f"+{added}" in screen and f"-{deleted}" in screen, timeout=300)
    sizes = [session.resident_bytes()]
    session.send_keys("d")
    session.wait_for("[diff]", timeout=300)
    session.send_keys("End")
    session.wait_for(lambda screen: "LAST" in screen and "reaching" not in screen, timeout=300)
    sizes.append(session.resident_bytes())
    return sizes


def markdown(session: LauraSession, path: Path) -> list[int]:
    pane = session.cli("open", str(path)).stdout.strip()
    session.wait_for(lambda screen: "loading" not in screen and f"#{pane} " in screen, timeout=300)
    sizes = [session.resident_bytes()]
    for width in (0, 150, 120):
        if width:
            session.tmux("resize-window", "-x", str(width))
            session.send_keys("Home")
            session.wait_for(lambda screen: "LAST" not in screen, timeout=300)
        session.send_keys("End")
        session.wait_for(lambda screen: "LAST" in screen and "reaching" not in screen, timeout=300)
        sizes.append(session.resident_bytes())
        if path.name == "blanks.md":
            break
    return sizes


def tracked(data: Path, name: str) -> Path:
    """A file committed to a repository, then edited as scenario `name` says."""
    if name == "diff":
        lines = [f"value_{n:07} = {n} + some more text to make the line longer\n" for n in range(32 * MB // 60)]
        edit: Callable[[int, str], str] = lambda n, line: line.upper() if n % 10 == 0 else line  # noqa: E731
    else:
        lines = [f"{n:06x}\n" for n in range(8 * MB // 7)]
        edit = (lambda n, line: "x" + line) if name == "changed" else (lambda n, line: line + "+\n")
    (data / name).mkdir()
    path = committed(data / name, "tracked.txt", "".join(lines) + "LAST\n")
    path.write_text("".join(edit(n, line) for n, line in enumerate(lines)) + "LAST\n")
    return path


def versioned(version: int) -> bytes:
    return f"v{version} = 1\n".encode() * (4 * MB // 7)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="", help="another checkout, measured side by side")
    parser.add_argument("--only", default="", help="comma-separated scenarios")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data = root / "data"
        data.mkdir()
        log = data / "short.log"
        log.write_bytes(b"ab\n" * (64 * MB // 3 - 2) + b"LAST\n")
        empty = data / "empty.log"
        empty.write_bytes(b"\n" * (64 * MB - 5) + b"LAST\n")
        small = data / "small.log"
        small.write_bytes(b"ab\n" * (8 * MB // 3 - 2) + b"LAST\n")
        headings = data / "headings.md"
        headings.write_bytes(b"# h\n" * (MB // 4 - 2) + b"LAST\n")
        blanks = data / "blanks.md"
        blanks.write_bytes(b"# top\n" + b"\n" * (MB - 16) + b"LAST\n")
        scenarios: dict[str, tuple[Callable[[LauraSession, Path], list[int]], Path]] = {
            "log": (big_file, log),
            "empty": (big_file, empty),
            "cycles": (cycles, small),
            "rewrite": (rewrite, data / "generated.py"),
            **{name: (diff_view, data / name / "repo" / "tracked.txt") for name in ("diff", "changed", "inserted")},
            "headings": (markdown, headings),
            "blanks": (markdown, blanks),
        }
        only = [name for name in args.only.split(",") if name] or list(scenarios)
        trees = [("this tree", "")] + ([(args.against, args.against)] if args.against else [])
        for name in only:
            run, path = scenarios[name]
            for label, pythonpath in trees:
                if name == "rewrite":
                    path.write_bytes(versioned(0))
                if run is diff_view and not path.exists():
                    tracked(data, name)
                env = {"PYTHONPATH": pythonpath} if pythonpath else None
                session = LauraSession(root / f"{name}-{len(label)}", command=["cat"], env=env).start()
                try:
                    idle = session.resident_bytes()
                    sizes = run(session, path)
                finally:
                    session.close()
                above = [round((size - idle) / MB) for size in sizes]
                ratio = f"  ({above[0] * MB / path.stat().st_size:.1f}x the file)" if name in ("log", "empty") else ""
                print(f"{name:8} {label:30} idle {idle / MB:5.0f} MB; above idle: {above} MB{ratio}", flush=True)


if __name__ == "__main__":
    main()
