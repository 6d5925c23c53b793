"""The driver's /proc checks see only the test's own processes: another run's
process with the same command line is never counted, nor killed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.luxe.rpc_driver import (
    kill_processes_with_marker,
    make_env,
    processes_with_marker,
    wait_until,
)


def test_marker_checks_and_kills_stay_inside_the_test(tmp_path: Path) -> None:
    ours, theirs = make_env(tmp_path / "ours"), make_env(tmp_path / "theirs")
    command = ["sh", "-c", "while true; do sleep 0.05; done # 1234.5678"]
    mine = subprocess.Popen(command, env=ours, start_new_session=True)
    other = subprocess.Popen(command, env=theirs, start_new_session=True)
    try:
        # (sh may fork a short-lived copy of itself, which carries the marker too)
        wait_until(lambda: mine.pid in processes_with_marker("1234.5678", scope=ours), what="ours")
        # Until it has exec'd, the other process shows neither marker nor scope.
        wait_until(
            lambda: other.pid in processes_with_marker("1234.5678", scope=theirs), what="theirs"
        )
        assert other.pid not in processes_with_marker("1234.5678", scope=ours)
        kill_processes_with_marker("1234.5678", scope=ours)
        assert mine.wait(timeout=30) == -9
        assert other.poll() is None, "another test's process was killed"
    finally:
        for process in (mine, other):
            process.kill()
            process.wait()
