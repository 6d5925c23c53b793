"""Laura's one process-group terminator: a grandchild that ignores SIGTERM,
left behind once the leader has exited, still dies, whichever way the group
was started (trio, a blocking Popen, a tab's PTY)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import trio

from laura.terminal import open_terminal
from laura.vt import VirtualTerminal
from process_group import group_alive, terminate_group, terminate_group_blocking
from tests.laura.render_helpers import wait_until
from tests.laura.tmux import alive
from tests.laura.tmux import wait_until as wait_until_sync


def leader_with_stubborn_grandchild(pidfile: Path) -> list[str]:
    """A shell that starts a TERM-ignoring sleeper, notes its pid, and then
    waits; SIGTERM ends the shell (the leader) but not the sleeper."""
    script = f"trap '' TERM; sleep 600 & echo $! > '{pidfile}'; trap - TERM; wait"
    return ["sh", "-c", script]


def grandchild_pid(pidfile: Path) -> int | None:
    text = pidfile.read_text().strip() if pidfile.exists() else ""
    return int(text) if text.isdigit() else None


async def started_grandchild(pidfile: Path) -> int:
    await wait_until(lambda: grandchild_pid(pidfile) is not None)
    return grandchild_pid(pidfile) or 0


async def test_terminate_group_outlives_the_leader_and_kills_the_grandchild(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    process = await trio.lowlevel.open_process(
        leader_with_stubborn_grandchild(pidfile), start_new_session=True
    )
    grandchild = await started_grandchild(pidfile)
    await terminate_group(process)
    assert process.returncode == -signal.SIGTERM  # the leader went at the first signal
    assert not alive(grandchild)
    assert not group_alive(process.pid)


def test_the_blocking_terminator_does_the_same(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    process = subprocess.Popen(
        leader_with_stubborn_grandchild(pidfile), start_new_session=True, stdout=subprocess.PIPE
    )
    grandchild = int(wait_until_sync(lambda: grandchild_pid(pidfile)))
    terminate_group_blocking(process)
    assert process.returncode == -signal.SIGTERM
    assert process.stdout is not None and process.stdout.closed
    assert not alive(grandchild)


async def test_closing_a_terminal_kills_a_grandchild_that_ignores_hangup_and_term(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    script = f"trap '' HUP TERM; sleep 600 & echo $! > '{pidfile}'; trap - HUP TERM; wait"
    async with open_terminal(["sh", "-c", script], {"PATH": "/usr/bin:/bin"}, 5, 20, VirtualTerminal) as terminal:
        grandchild = await started_grandchild(pidfile)
    assert terminal.process.returncode is not None
    assert not alive(grandchild)


async def test_a_group_that_has_already_ended_is_fine(tmp_path: Path) -> None:
    process = await trio.lowlevel.open_process(["true"], start_new_session=True)
    await process.wait()
    await terminate_group(process)
    assert process.returncode == 0
