"""The spec's example client, run verbatim against the real `luxe --rpc`,
and `make demo`'s script: both print the streamed answer and `[read]`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.luxe.rpc_driver import live_descendants, write_script

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def test_spec_client_prints_the_answer_and_the_read_line(
    tmp_path: Path, env: dict[str, str], repo: Path
) -> None:
    answer = "It is a demo project that greets people."
    script = write_script(
        tmp_path,
        [
            {"text": "Reading.", "tool_calls": [{"name": "read", "args": {"path": "README.md"}}]},
            {"text": answer},
        ],
    )
    run_env = {**env, "LUXE_MODEL": f"scripted:{script}", "PATH": f"{BIN}:{env['PATH']}"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "spec_client.py")],
        cwd=repo, env=run_env, capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"Reading.\n[read]\n{answer}\n"
    assert live_descendants(os.getpid()) == [], "luxe exited after close"


def test_make_demo_script(env: dict[str, str]) -> None:
    run_env = {**env, "PATH": f"{BIN}:{env['PATH']}"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")],
        cwd=ROOT, env=run_env, capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert "\n[read]\n" in done.stdout
    assert "Luxe is a coding agent" in done.stdout
    assert "! refused" not in done.stdout
