"""How much a big checkout costs luxe's start, against a tiny one in the same rounds.

Luxe looks for the project's secret files (and reads git's history for
their old values) before it checks or redacts anything. That walk grows
with the checkout; the start should not. Measured round by round in two
git repositories, a tiny one (one file) and a big one (FILES files in
DIRS directories, plus a 5,000-file `node_modules`, which the walk also
searches for secret files):

  start -> `ready` of `luxe --rpc`                      (the big / tiny ratio: 1.0 is the goal)
  start -> first model request of `luxe -p`             (against the fake model server)
  start -> exit of `luxe -p` with one `read` tool call  (the scan must be done before the call)
  start -> exit of `luxe -p` with BASH_CALLS `bash` calls  (each may have written files: the
                                                         project is looked over again for new
                                                         secret files after each)

Run: .venv/bin/python bench/luxe_big_checkout.py [--rounds 9] [--files 40000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import LUXE, check_interpreter, fake_model_env, workspace

from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.gitrepo import git

ONE_TOOL = [
    {"tool_calls": [{"name": "read", "args": {"path": "README.md"}}]},
    {"text": "It is a demo project."},
]
BASH_CALLS = 5
BASH_TOOLS = [
    *({"tool_calls": [{"name": "bash", "args": {"command": f"echo step {i}"}}]} for i in range(BASH_CALLS)),
    {"text": "It is done."},
]


def make_repo(root: Path, files: int) -> Path:
    """A git repository with a README and `files` more small files."""
    root.mkdir()
    git(root, "init", "-q")
    (root / "README.md").write_text("# Bench\n")
    per_dir = 100
    for d in range(files // per_dir):
        directory = root / "src" / f"m{d}"
        directory.mkdir(parents=True)
        for f in range(per_dir):
            (directory / f"f{f}.py").write_text("x = 1\n")
    if files:
        for d in range(50):
            directory = root / "node_modules" / f"pkg{d}"
            directory.mkdir(parents=True)
            for f in range(per_dir):
                (directory / f"f{f}.js").write_text("module.exports = 1\n")
    return root


def ready_ms(project: Path, env: dict[str, str]) -> float:
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(LUXE), "--rpc", "--model", "scripted:/dev/null"],
        cwd=project, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdin is not None
    line = proc.stdout.readline()
    took = (time.monotonic() - started) * 1000
    assert b'"ready"' in line, line
    proc.stdin.close()
    proc.wait()
    proc.stdout.close()
    return took


def print_run(
    project: Path, env: dict[str, str], server: FakeLLMServer, *flags: str
) -> tuple[float, float]:
    """`luxe -p` through the server's next script: (first request ms, exit ms)."""
    before = len(server.requests)
    started = time.monotonic()
    done = subprocess.run(
        [str(LUXE), "-p", "what is this?", *flags], cwd=project, env=env, capture_output=True,
        check=False,
    )  # fmt: skip
    exited = (time.monotonic() - started) * 1000
    assert done.stdout.startswith(b"It is"), done.stdout + done.stderr
    return (server.requests[before].received_at - started) * 1000, exited


def main() -> None:
    check_interpreter()
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--files", type=int, default=40_000)
    args = parser.parse_args()
    figures: dict[str, dict[str, list[float]]] = {
        size: {"ready": [], "request": [], "exit": [], "bash": []} for size in ("tiny", "big")
    }
    runs = 2 * args.rounds + 2
    with (
        workspace() as tmp,
        FakeLLMServer(ONE_TOOL * runs) as server,
        FakeLLMServer(BASH_TOOLS * runs) as bash_server,
    ):
        root = Path(tmp)
        repos = {"tiny": make_repo(root / "tiny", 0), "big": make_repo(root / "big", args.files)}
        env = fake_model_env(root, server.base_url)
        bash_env = fake_model_env(root, bash_server.base_url)
        allow = ("--on-ask", "allow")
        for size in ("tiny", "big"):  # one unmeasured run each: caches warm
            ready_ms(repos[size], env)
            print_run(repos[size], env, server)
            print_run(repos[size], bash_env, bash_server, *allow)
        for _ in range(args.rounds):
            for size, project in repos.items():
                figures[size]["ready"].append(ready_ms(project, env))
                request, exited = print_run(project, env, server)
                figures[size]["request"].append(request)
                figures[size]["exit"].append(exited)
                figures[size]["bash"].append(print_run(project, bash_env, bash_server, *allow)[1])
    files = args.files + 5_000
    print(f"{args.rounds} rounds; load average {os.getloadavg()[0]:.1f}; big checkout: {files} files")
    for measure, label in (
        ("ready", "start -> ready (--rpc)"),
        ("request", "start -> first request (-p)"),
        ("exit", "start -> exit, one tool (-p)"),
        ("bash", f"start -> exit, {BASH_CALLS} bash calls (-p)"),
    ):
        tiny = statistics.median(figures["tiny"][measure])
        big = statistics.median(figures["big"][measure])
        print(f"{label:32} tiny {tiny:7.1f} ms   big {big:7.1f} ms   big/tiny {big / tiny:5.2f}")


if __name__ == "__main__":
    main()
