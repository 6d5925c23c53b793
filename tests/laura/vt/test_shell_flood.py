"""End to end: laura (in a private tmux) stays live while its shell pane is
flooded with output, now that the pane runs on laura.vt."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.procs import live_pids_with_env
from tests.laura.vt.oracle import WAIT_S, wait_until

pytestmark = pytest.mark.tmux


class LauraInTmux:
    def __init__(self, tmp: Path) -> None:
        self.name = f"lvt-flood-{uuid.uuid4().hex[:8]}"
        self.marker = str(tmp)  # every process of ours has it in its environment
        dirs = {key: tmp / key.lower() for key in
                ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "HOME")}
        for path in dirs.values():
            path.mkdir(mode=0o700)
        laura = Path(sys.executable).parent / "laura"
        self.env = {"PATH": f"{laura.parent}:/usr/bin:/bin", "TERM": "xterm-256color",
                    "LAURA_RUNTIME": str(dirs["XDG_RUNTIME_DIR"]), "TMUX": "",
                    **{key: str(path) for key, path in dirs.items()}}
        self.tmux("new-session", "-d", "-x", "100", "-y", "30",
                  f"{laura} -- bash --norc --noprofile")

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.name, "-f", "/dev/null", *args],
                              capture_output=True, text=True, env=self.env, timeout=WAIT_S).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p")

    def our_processes(self) -> list[int]:
        return live_pids_with_env(self.marker)

    def close(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def laura(tmp_path: Path) -> Iterator[LauraInTmux]:
    session = LauraInTmux(tmp_path)
    try:
        yield session
    finally:
        session.close()
        wait_until(lambda: not session.our_processes(), WAIT_S, "laura and its shell to exit")


def test_keys_are_answered_during_a_flood(laura: LauraInTmux) -> None:
    wait_until(lambda: "bash" in laura.screen(), WAIT_S, "the shell prompt")
    laura.tmux("send-keys", "yes 'flood line'", "Enter")
    wait_until(lambda: laura.screen().count("flood line") > 10, WAIT_S, "the flood")
    # A key for laura itself: the help box opens while the flood goes on.
    laura.tmux("send-keys", "C-h")
    wait_until(lambda: "Ctrl+Q   quit" in laura.screen(), WAIT_S, "the help box")
    laura.tmux("send-keys", "Escape")
    wait_until(lambda: "Ctrl+Q   quit" not in laura.screen(), WAIT_S, "the help box to close")
    # Keys for the shell: interrupt the flood, then run a command.
    laura.tmux("send-keys", "C-c")
    laura.tmux("send-keys", "echo flood-$((6*7))-over", "Enter")
    wait_until(lambda: "flood-42-over" in laura.screen(), WAIT_S, "the command after the flood")
