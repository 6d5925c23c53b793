"""Shared by the luxe benchmarks: spawn `luxe --rpc`, time its frames.

Not a benchmark itself (`make bench` runs it and it says so). Reads luxe's
stdout on the calling thread, so a frame's timestamp is when the benchmark
could first have seen it, with no thread hand-off in between.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

BIN = Path(sys.executable).parent
LUXE = BIN / "luxe"


def check_interpreter() -> None:
    """Refuse to run outside the project's venv: a pyenv shim alone costs ~75 ms."""
    if not LUXE.exists():
        sys.exit(
            f"run with the venv interpreter (.venv/bin/python {sys.argv[0]}); {LUXE} is missing"
        )


def isolated_env(root: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """This environment with private XDG and HOME directories under `root`,
    no provider or luxe variable but `extra`'s, and bytecode written and
    read as for any user (this workplace sets PYTHONDONTWRITEBYTECODE,
    which would make every start compile what changed since the last
    cached run)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "OPENAI_", "LUXE_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    for name, sub in (
        ("HOME", "home"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_RUNTIME_DIR", "runtime"),
    ):
        (root / sub).mkdir(exist_ok=True, mode=0o700)
        env[name] = str(root / sub)
    env.update(extra)
    return env


def fake_model_env(root: Path, base_url: str) -> dict[str, str]:
    """`isolated_env` with the default model on the fake model server at `base_url`."""
    return isolated_env(
        root,
        {
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "bench",
            "LUXE_MODEL": "anthropic/claude-sonnet-4-5",
        },
    )


def workspace() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="luxe-bench-")


def project_dir(root: Path) -> Path:
    project = root / "project"
    project.mkdir(exist_ok=True)
    (project / "README.md").write_text("# Bench\nA project to benchmark against.\n")
    return project


class Luxe:
    """One luxe --rpc process; `started_at` is taken just before the spawn."""

    def __init__(self, args: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> None:
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen(
            [str(LUXE), "--rpc", *args],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.stdout = self.proc.stdout

    def send(self, kind: str, content: Any = None) -> None:
        frame: dict[str, Any] = {"kind": kind}
        if content is not None:
            frame["content"] = content
        self.stdin.write(json.dumps(frame).encode() + b"\n")
        self.stdin.flush()

    def until(self, kind: str) -> tuple[float, dict[str, Any]]:
        """Read frames until one of `kind`; (monotonic time it was read, content)."""
        marker = f'"kind":"{kind}"'.encode()
        marker_spaced = f'"kind": "{kind}"'.encode()
        while True:
            line = self.stdout.readline()
            now = time.monotonic()
            if not line:
                raise EOFError(f"luxe exited ({self.proc.poll()}) before {kind}")
            if marker in line or marker_spaced in line:
                frame = json.loads(line)
                if frame["kind"] == kind:
                    return now, frame.get("content") or {}

    def peak_rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        try:
            self.send("close")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self.stdin.close()
        self.stdout.close()


def python_pass_ms(runs: int) -> list[float]:
    """The floor: starting the same interpreter to do nothing."""
    times = []
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((time.monotonic() - start) * 1000)
    return times


def summary(times_ms: Sequence[float]) -> str:
    ordered = sorted(times_ms)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return (
        f"min {ordered[0]:8.3f}   median {statistics.median(ordered):8.3f}   "
        f"p90 {p90:8.3f} ms   (n={len(ordered)})"
    )


if __name__ == "__main__":
    print("bench/_luxe_rpc.py is the luxe benchmarks' helper module; nothing to measure")
