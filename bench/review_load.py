"""Time to load a Guided Review of a 5,000-line diff over 200 files.

Loading = reading the diff with git (working tree target, so untracked files
are looked for too), parsing it into files and hunks, and the fallback
chapters. The baseline is `git diff HEAD` alone on the same repository in the
same run. Target: within 3x of git.

    .venv/bin/python bench/review_load.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import trio

from luxe.review.load import read_review
from luxe.review.model import WorkingTreeTarget

FILES = 200
LINES_PER_FILE = 120
ROUNDS = 15


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def make_repo(root: Path) -> int:
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.invalid")
    git(root, "config", "user.name", "Bench")
    for n in range(FILES):
        path = root / f"pkg{n % 20}" / f"module_{n}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"value_{n}_{i} = {i}\n" for i in range(LINES_PER_FILE)))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    for n in range(FILES):
        path = root / f"pkg{n % 20}" / f"module_{n}.py"
        lines = path.read_text().splitlines(keepends=True)
        # Two hunks a file, 25 diff lines a file: 5,000 lines over 200 files.
        for i in (10, 11, 80):
            lines[i] = f"def changed_{n}_{i}(): return value_{n}_{i - 1}\n"
        lines.insert(81, f"added_{n} = changed_{n}_80()\n")
        path.write_text("".join(lines))
    return len(git(root, "diff", "HEAD").splitlines())


def time_git(root: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["git", "diff", "HEAD"], cwd=root, check=True, capture_output=True)
    return time.perf_counter() - start


def time_load(root: Path) -> tuple[float, int, int, int]:
    async def load() -> tuple[float, int, int, int]:
        start = time.perf_counter()
        review, _ = await read_review(root, WorkingTreeTarget())
        elapsed = time.perf_counter() - start
        return elapsed, len(review.files), len(review.hunks), len(review.chapters)

    return trio.run(load)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="luxe-bench-review-") as scratch:
        root = Path(scratch)
        os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
        diff_lines = make_repo(root)
        time_git(root), time_load(root)  # warm the page cache and imports
        git_times, load_times = [], []
        shape = (0, 0, 0)
        for _ in range(ROUNDS):
            git_times.append(time_git(root))
            elapsed, *counts = time_load(root)
            load_times.append(elapsed)
            shape = (counts[0], counts[1], counts[2])
        git_ms = statistics.median(git_times) * 1000
        load_ms = statistics.median(load_times) * 1000
        print(f"diff: {diff_lines} lines, {shape[0]} files, {shape[1]} hunks, {shape[2]} chapters")
        print(f"git diff HEAD alone      {git_ms:8.1f} ms (median of {ROUNDS})")
        print(f"load review (read+parse+chapters) {load_ms:8.1f} ms (median of {ROUNDS})")
        print(f"ratio                    {load_ms / git_ms:8.2f}x (target: within 3x)")


if __name__ == "__main__":
    main()
