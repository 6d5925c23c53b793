"""How fast `luxe -p` answers, against `python -c pass` in the same rounds.

For a text answer and for a one-tool answer (`read`, two model requests),
against the fake model server on loopback, interleaved round by round with
the baseline (and with `luxe --rpc` driven as a one-shot client, for
comparison):

  start -> first model request       (target <= 150 ms)
  start -> answer on stdout
  answer -> exit                     (target <= 30 ms)
  peak RSS (the child's ru_maxrss)   (target <= 50 MiB)
  CPU time (user + sys, children included): steadier than wall time when
  the machine is busy, so the ratio to `python -c pass` is the figure to
  compare across runs

Peers on this machine, same fake server (issue 13): first request / exit
after the answer / peak RSS: Claude Code -p 371 ms / 55 ms / 198 MiB,
pi -p 992 ms / 109 ms / 172 MiB, OpenCode run 2.8 s / 166 ms / 595 MiB.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _luxe_rpc import LUXE, check_interpreter, fake_model_env, project_dir, workspace

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
        self.cpu: list[float] = []


def _reap(pid: int) -> tuple[float, float, float]:
    """Wait for `pid`; (monotonic time it was reaped, peak RSS in MiB, CPU ms)."""
    _, _, usage = os.wait4(pid, 0)
    return time.monotonic(), usage.ru_maxrss / 1024, _cpu_ms(usage)


def _cpu_ms(usage: resource.struct_rusage) -> float:
    return (usage.ru_utime + usage.ru_stime) * 1000


Timing = tuple[float, float, float, float, float]


def run_print(args: list[str], project: Path, env: dict[str, str]) -> Timing:
    """One `luxe -p`: (start, answer seen, exit, peak RSS MiB, CPU ms)."""
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
    exited, rss, cpu = _reap(proc.pid)
    proc.returncode = 0  # reaped above; keep Popen from waiting again
    proc.stdout.close()
    return started, answered, exited, rss, cpu


def run_rpc(project: Path, env: dict[str, str]) -> Timing:
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
    exited, rss, cpu = _reap(proc.pid)
    proc.returncode = 0
    proc.stdout.close()
    return started, answered, exited, rss, cpu


# What any trio program pays before its first request: trio's own import, the
# way luxe imports it (luxe.trio_loader), and nothing else; then the same plus
# what any httpx program pays (httpx imported, one AsyncClient made, as luxe
# makes it for a plain-http endpoint). No program on the house's core
# dependencies can send its first request sooner.
TRIO_FLOOR = "import luxe.trio_loader as loader; loader.import_trio()"
HTTPX_FLOOR = TRIO_FLOOR + "; import httpx; httpx.AsyncClient(verify=False)"


def python_pass(code: str = "pass") -> tuple[float, float]:
    """(wall ms, CPU ms) of `python -c CODE` with the same interpreter."""
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code])
    exited, _, cpu = _reap(proc.pid)
    proc.returncode = 0
    return (exited - started) * 1000, cpu


def med(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    check_interpreter()
    baseline: list[float] = []
    baseline_cpu: list[float] = []
    floor: list[float] = []
    floor_httpx: list[float] = []
    kinds = {"-p text": Sample(), "-p one tool": Sample(), "--rpc text": Sample()}
    steps = TEXT + (TEXT + ONE_TOOL + TEXT) * RUNS  # the warm-up run, then the rounds
    with workspace() as tmp, FakeLLMServer(steps) as server:
        root = Path(tmp)
        project = project_dir(root)
        env = fake_model_env(root, server.base_url)
        # One unmeasured run fills __pycache__.
        run_print([], project, env)
        for _ in range(RUNS):
            wall, cpu = python_pass()
            baseline.append(wall)
            baseline_cpu.append(cpu)
            floor.append(python_pass(TRIO_FLOOR)[0])
            floor_httpx.append(python_pass(HTTPX_FLOOR)[0])
            for name, runner in (
                ("-p text", lambda: run_print([], project, env)),
                ("-p one tool", lambda: run_print([], project, env)),
                ("--rpc text", lambda: run_rpc(project, env)),
            ):
                before = len(server.requests)
                started, answered, exited, rss, cpu = runner()
                sample = kinds[name]
                sample.request.append((server.requests[before].received_at - started) * 1000)
                sample.answer.append((answered - started) * 1000)
                sample.exit.append((exited - answered) * 1000)
                sample.rss.append(rss)
                sample.cpu.append(cpu)
    base, base_cpu = med(baseline), med(baseline_cpu)
    print(
        f"python -c pass: median {base:.1f} ms wall, {base_cpu:.1f} ms CPU "
        f"(n={len(baseline)}), same rounds; load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"python -c 'import trio' (the floor of any trio program's first request): "
        f"median {med(floor):.1f} ms wall (baseline x{med(floor) / base:.1f}), same rounds"
    )
    print(
        f"python -c 'import trio, httpx; httpx.AsyncClient()' (trio + httpx floor): "
        f"median {med(floor_httpx):.1f} ms wall (baseline x{med(floor_httpx) / base:.1f}), same rounds"
    )
    print(
        f"{'':16} {'first request':>14} {'answer':>10} {'answer->exit':>13} {'peak RSS':>10}"
        f" {'CPU':>9}   (medians; targets: request <= 150 ms, exit <= 30 ms, RSS <= 50 MiB)"
    )
    figures = {}
    for name, s in kinds.items():
        figures[name] = {
            "request_ms": med(s.request), "answer_ms": med(s.answer),
            "exit_ms": med(s.exit), "rss_mib": max(s.rss), "cpu_ms": med(s.cpu),
        }
        print(
            f"luxe {name:<11} {med(s.request):11.1f} ms {med(s.answer):7.1f} ms "
            f"{med(s.exit):10.1f} ms {max(s.rss):6.1f} MiB {med(s.cpu):6.0f} ms   "
            f"(request = baseline x{med(s.request) / base:.1f} = trio + httpx floor "
            f"+{med(s.request) - med(floor_httpx):.0f} ms, "
            f"CPU = baseline x{med(s.cpu) / base_cpu:.1f})"
        )
    print(json.dumps({
        "python_pass_ms": base, "python_pass_cpu_ms": base_cpu, "trio_import_ms": med(floor),
        "trio_httpx_floor_ms": med(floor_httpx),
        **figures,
    }))


if __name__ == "__main__":
    main()
