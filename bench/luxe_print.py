"""How fast `luxe -p` answers, against `python -c pass` in the same rounds.

For a text answer and for a one-tool answer (`read`, two model requests),
against the fake model server on loopback, interleaved round by round with
the baseline (and with `luxe --rpc` driven as a one-shot client, for
comparison):

  start -> first model request       (target <= 150 ms)
  start -> answer on stdout
  answer -> exit                     (target <= 30 ms)
  peak RSS (the child's ru_maxrss)   (target <= 50 MiB)

Peers on this machine, same fake server (issue 13): first request / exit
after the answer / peak RSS: Claude Code -p 371 ms / 55 ms / 198 MiB,
pi -p 992 ms / 109 ms / 172 MiB, OpenCode run 2.8 s / 166 ms / 595 MiB.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import LUXE, check_interpreter, isolated_env, project_dir, workspace

from tests.fakes.llm_server import FakeLLMServer

RUNS = 15
TEXT = [{"text": "It is a demo project."}]
ONE_TOOL = [
    {"tool_calls": [{"name": "read", "args": {"path": "README.md"}}]},
    {"text": "It is a demo project."},
]


class Sample:
    def __init__(self) -> None:
        self.request: list[float] = []
        self.answer: list[float] = []
        self.exit: list[float] = []
        self.rss: list[float] = []


def _reap(pid: int) -> tuple[float, float]:
    """Wait for `pid`; (monotonic time it was reaped, its peak RSS in MiB)."""
    _, _, usage = os.wait4(pid, 0)
    return time.monotonic(), usage.ru_maxrss / 1024


def run_print(args: list[str], project: Path, env: dict[str, str]) -> tuple[float, float, float, float]:
    """One `luxe -p`: (start, answer seen, exit, peak RSS MiB)."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(LUXE), "-p", "what is this?", *args],
        cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    first = os.read(proc.stdout.fileno(), 65536)
    answered = time.monotonic()
    assert first.startswith(b"It is"), first
    exited, rss = _reap(proc.pid)
    proc.returncode = 0  # reaped above; keep Popen from waiting again
    proc.stdout.close()
    return started, answered, exited, rss


def run_rpc(project: Path, env: dict[str, str]) -> tuple[float, float, float, float]:
    """`luxe --rpc` as a one-shot client: submit at once, close at turn_ended."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(LUXE), "--rpc"], cwd=project, env=env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"kind":"submit_user_message","content":{"text":"what is this?"}}\n')
    proc.stdin.flush()
    for line in proc.stdout:
        if b'"turn_ended"' in line:
            break
    answered = time.monotonic()
    proc.stdin.write(b'{"kind":"close"}\n')
    proc.stdin.close()
    exited, rss = _reap(proc.pid)
    proc.returncode = 0
    proc.stdout.close()
    return started, answered, exited, rss


def python_pass() -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.monotonic() - started) * 1000


def med(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    check_interpreter()
    baseline: list[float] = []
    kinds = {"-p text": Sample(), "-p one tool": Sample(), "--rpc text": Sample()}
    steps = TEXT + (TEXT + ONE_TOOL + TEXT) * RUNS  # the warm-up run, then the rounds
    with workspace() as tmp, FakeLLMServer(steps) as server:
        root = Path(tmp)
        project = project_dir(root)
        env = isolated_env(
            root,
            {
                "ANTHROPIC_BASE_URL": server.base_url,
                "ANTHROPIC_API_KEY": "bench",
                "LUXE_MODEL": "anthropic/claude-sonnet-4-5",
            },
        )
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # users run luxe from __pycache__
        # One unmeasured run fills __pycache__.
        run_print([], project, env)
        for _ in range(RUNS):
            baseline.append(python_pass())
            for name, runner in (
                ("-p text", lambda: run_print([], project, env)),
                ("-p one tool", lambda: run_print([], project, env)),
                ("--rpc text", lambda: run_rpc(project, env)),
            ):
                before = len(server.requests)
                started, answered, exited, rss = runner()
                sample = kinds[name]
                sample.request.append((server.requests[before].received_at - started) * 1000)
                sample.answer.append((answered - started) * 1000)
                sample.exit.append((exited - answered) * 1000)
                sample.rss.append(rss)
    base = med(baseline)
    print(f"python -c pass: median {base:.1f} ms (n={len(baseline)}), same rounds")
    print(
        f"{'':14} {'first request':>14} {'answer':>10} {'answer->exit':>13} {'peak RSS':>10}"
        f"   (medians; targets: request <= 150 ms, exit <= 30 ms, RSS <= 50 MiB)"
    )
    figures = {}
    for name, s in kinds.items():
        figures[name] = {
            "request_ms": med(s.request), "answer_ms": med(s.answer),
            "exit_ms": med(s.exit), "rss_mib": max(s.rss),
        }
        print(
            f"luxe {name:<9} {med(s.request):11.1f} ms {med(s.answer):7.1f} ms "
            f"{med(s.exit):10.1f} ms {max(s.rss):6.1f} MiB   "
            f"(request = baseline x{med(s.request) / base:.1f})"
        )
    print(json.dumps({"python_pass_ms": base, **figures}))


if __name__ == "__main__":
    main()
