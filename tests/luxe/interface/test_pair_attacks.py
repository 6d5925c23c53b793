"""Where Laura and Luxe meet, attacked: the real `laura` in tmux hosts the
real `luxe` interface (the loopback model server answers), and what a person
would see, or what is left running, is asserted.

- A stop signal to Laura while a tool of Luxe's ignores SIGTERM: Luxe ends
  its tools' groups with a grace of its own, which Laura must let it have;
  no process of either survives.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.procs import processes
from tests.luxe.interface.test_in_laura import call, start
from tests.luxe.rpc_driver import make_repo, wait_until

pytestmark = pytest.mark.tmux


def carrying(marker: str) -> list[int]:
    """Living processes whose command line holds `marker`."""
    return [p.pid for p in processes() if p.alive and marker in p.cmdline()]


@pytest.mark.parametrize(
    ("signum", "command"),
    [
        (signal.SIGHUP, "trap '' TERM HUP; touch {armed}; sleep 1000 && echo {marker}"),
        (
            signal.SIGTERM,
            "{python} -c 'import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
            " open(sys.argv[1], \"w\"); time.sleep(1000)' {armed} {marker}",
        ),
    ],
    ids=["sighup-shell", "sigterm-python"],
)
def test_a_stop_signal_to_laura_leaves_no_tool_of_luxe_running(
    tmp_path: Path, signum: int, command: str
) -> None:
    marker = f"pair-{os.getpid()}-{signum}"
    armed = tmp_path / "armed"  # the tool ignores SIGTERM from now on
    script = command.format(marker=marker, python=sys.executable, armed=armed)
    repo = make_repo(tmp_path / "repo", {"main.py": "x\n"})
    steps = [{"tool_calls": [call("bash", command=script)]}, {"text": "done"}]
    with FakeLLMServer(steps) as server:
        # Nothing compiled ahead (a first run, or a busy machine): Luxe's
        # own clean-up takes a moment longer, as it may.
        cold = {"PYTHONPYCACHEPREFIX": str(tmp_path / "pyc"), "PYTHONDONTWRITEBYTECODE": "1"}
        laura = start(tmp_path, repo, server, "--yolo", env=cold)
        try:
            laura.type("run it")
            laura.send_keys("Enter")
            wait_until(armed.exists, what="the tool running, ignoring SIGTERM")
            os.kill(laura.laura_pid, signum)
            assert laura.wait_exit() == 128 + signum
            # Laura has exited: whatever is left now was left for good.
            left = carrying(marker)
            assert left == [], f"still running after laura exited: {left}"
        finally:
            for pid in carrying(marker):
                os.kill(pid, signal.SIGKILL)
            laura.close()
