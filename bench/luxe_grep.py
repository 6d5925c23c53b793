"""The grep tool with ripgrep: its whole cost against ripgrep's own.

The tool runs rg twice (a `--files` listing, whose secret files an ignore
file keeps out of the search, then the search) and then opens each file a
reported line comes from itself, to judge the descriptor and find the line
there (luxe/tools/confirmed_matches.py). Measured in the same loop, so load
weighs on both alike, for each tree and pattern:

  tool   GrepTool.run in process (a context judging secrets by name and
         by the opened descriptor, as the gate does, redacting nothing)
  floor  the same two rg runs as bare processes, their output discarded

Trees: this checkout, and the interpreter's standard library (thousands of
files). Patterns: one matching in a few files, and one matching past the
tool's cap of 200 lines (the most files it opens again).

With --against CHECKOUT, that checkout's luxe/tools/search.py (loaded
beside this tree's luxe, which it imports from) is measured too, in the
same loop: `against` and the ratio this tree / against.
Run: .venv/bin/python bench/luxe_grep.py [--rounds 10] [--against /path/to/other/checkout]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from luxe.policy.secret_identity import opened_is_secret  # noqa: E402
from luxe.policy.secret_names import is_secret_path  # noqa: E402
from luxe.tools.paths import SKIP_DIRS  # noqa: E402
from luxe.tools.search import GrepTool  # noqa: E402

PATTERNS = {"few": "class GrepTool|class TarFile", "many": "def "}


class BenchContext:
    """What the grep tool uses of its turn, judging as the gate does."""

    call_id = "bench"
    call_token = "bench"

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        return text

    def is_secret_file(self, path: str) -> bool:
        return is_secret_path(path)

    def is_secret_opened(self, fd: int) -> bool:
        return opened_is_secret(fd, frozenset())


def tool_seconds(tool: GrepTool, tree: Path, pattern: str) -> tuple[float, str]:
    """One GrepTool.run over `tree`: seconds, and its summary."""

    async def main() -> tuple[float, str]:
        start = time.perf_counter()
        result = await tool.run({"pattern": pattern}, BenchContext(tree))  # type: ignore[arg-type]
        return time.perf_counter() - start, result.summary

    return trio.run(main)


def floor_seconds(rg: str, tree: Path, pattern: str) -> float:
    """ripgrep's two runs as the tool makes them, output discarded."""
    scope = ["--hidden", "--no-config", *(f"--glob=!{name}/" for name in sorted(SKIP_DIRS))]
    listing = [rg, "--files", "--null", *scope, "--", "."]
    search = [
        rg, "--line-number", "--no-heading", "--color=never", "--null", "--with-filename",
        f"--regexp={pattern}", *scope, "--", ".",
    ]
    start = time.perf_counter()
    for argv in (listing, search):
        subprocess.run(argv, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def grep_tool_of(checkout: str) -> Any:
    """The GrepTool class of another checkout's luxe/tools/search.py."""
    path = Path(checkout, "luxe", "tools", "search.py")
    spec = importlib.util.spec_from_file_location("against_search", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.GrepTool


def measure(rg: str, tree: Path, pattern: str, rounds: int, against: Any) -> dict[str, Any]:
    """Medians of `rounds` runs of the tool, the floor and (if given) the
    other checkout's tool, one of each per round."""
    tools = {"tool": GrepTool(rg), **({"against": against(rg)} if against else {})}
    times: dict[str, list[float]] = {name: [] for name in [*tools, "floor"]}
    summary = ""
    for tool in tools.values():
        tool_seconds(tool, tree, pattern)  # warm the page cache and the imports
    for _ in range(rounds):
        for name, tool in tools.items():
            seconds, summary = tool_seconds(tool, tree, pattern)
            times[name].append(seconds)
        times["floor"].append(floor_seconds(rg, tree, pattern))
    return {"summary": summary, **{name: statistics.median(t) for name, t in times.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--against", default="", help="another checkout, measured side by side")
    args = parser.parse_args()
    against = grep_tool_of(args.against) if args.against else None
    rg = shutil.which("rg")
    if rg is None:
        sys.exit("ripgrep is not installed")
    trees = {"checkout": ROOT, "stdlib": Path(sysconfig.get_paths()["stdlib"])}
    for tree_name, tree in trees.items():
        files = sum(len(names) for _, _, names in os.walk(tree))
        for label, pattern in PATTERNS.items():
            m = measure(rg, tree, pattern, args.rounds, against)
            line = (
                f"{tree_name:8} ({files:>6} files) {label:4} {m['summary']:>12}: "
                f"tool {m['tool'] * 1000:7.1f} ms  floor {m['floor'] * 1000:7.1f} ms  "
                f"tool/floor {m['tool'] / m['floor']:.2f}"
            )
            if against:
                line += f"  against {m['against'] * 1000:7.1f} ms  tool/against {m['tool'] / m['against']:.2f}"
            print(line)


if __name__ == "__main__":
    main()
