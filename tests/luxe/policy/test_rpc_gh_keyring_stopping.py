"""Stopping while gh is asked for its keyring tokens (the secrets' first
scan, after the handshake): a keyring waiting to be unlocked answers
nothing, and close, EOF, SIGTERM, SIGINT, SIGHUP, `cancel_turn` and
`luxe -p --timeout` all waited for gh's whole deadline (3 s, 3.5 s for a
gh that ignores SIGTERM) before doing anything. Now stopping ends every gh
at once, and a cancelled turn stops waiting while the question goes on for
the next turn.

The deadline is raised here (LUXE_GH_TOKEN_TIMEOUT_S) so that waiting for
it cannot pass for stopping promptly. Through the real `luxe --rpc` (and
`luxe -p`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.luxe.print_driver import LUXE_P
from tests.luxe.rpc_driver import (
    LuxeProcess,
    processes_with_marker,
    session_records,
    unique_duration,
    wait_until,
    write_script,
)

from .e2e import executable

# Far beyond any bound below: a luxe that waits for it fails the test.
DEADLINE_S = "300"
# Stopping takes a grace (0.5 s) at most for a gh that ignores SIGTERM;
# the bound only allows for a loaded machine.
STOP_BOUND_S = 20.0
TOKEN = "gho_Sl0wK3yr1ngT0kenQ7mX2kL9wB4cR6dE"

GH = {
    "never answers": "#!/bin/sh\nexec sleep {marker}\n",
    "ignores SIGTERM, with a child": (
        "#!/bin/sh\ntrap '' TERM\nsleep {marker} &\nwait\nwait\nwait\n"
    ),
}
HOW = ("close", "stdin EOF", "SIGTERM", "SIGINT", "SIGHUP")


def with_gh(text: str, env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    executable(tmp_path / "bin" / "gh", text)
    return {
        **env,
        "PATH": f"{tmp_path / 'bin'}:{env['PATH']}",
        "LUXE_GH_TOKEN_TIMEOUT_S": DEADLINE_S,
    }


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("gh", list(GH))
def test_stopping_while_gh_is_asked_ends_it_at_once(
    gh: str, how: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    marker = unique_duration()
    full = with_gh(GH[gh].format(marker=marker), env, tmp_path)
    script = write_script(tmp_path, [{"text": "unused"}])
    with LuxeProcess.start(["--model", f"scripted:{script}"], cwd=repo, env=full) as luxe:
        luxe.handshake()
        wait_until(lambda: processes_with_marker(marker, scope=full) != [], what="gh to be asked")
        luxe.stop(how)
        assert luxe.wait_exit(timeout=STOP_BOUND_S) == 0, luxe.stderr_text()
        assert "Traceback" not in luxe.stderr_text()
    assert processes_with_marker(marker, scope=full) == []
    assert processes_with_marker(str(tmp_path / "bin" / "gh"), scope=full) == []


SLOW_GH = """#!/bin/sh
# A keyring unlocked when the test says so.
case "$1 $2" in
  "auth token") while [ ! -e {release} ]; do sleep 0.05; done; echo {token} ;;
  *) exit 1 ;;
esac
"""


def test_a_cancelled_turn_stops_waiting_for_gh_and_its_token_is_still_learned(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """The cancelled turn ends without waiting for gh; gh's answer, when it
    comes, is still taken, so the next turn's output is redacted."""
    release = tmp_path / "unlocked"
    full = with_gh(SLOW_GH.format(release=release, token=TOKEN), env, tmp_path)
    script = write_script(tmp_path, [{"text": "unused"}])
    with LuxeProcess.start(
        ["--model", f"scripted:{script}", "--auto-approve"], cwd=repo, env=full
    ) as luxe:
        luxe.handshake()
        luxe.send("run_shell", {"command": "echo first"})
        luxe.expect("turn_started")
        wait_until(
            lambda: processes_with_marker("auth token", scope=full) != [], what="gh to be asked"
        )
        luxe.send("cancel_turn")
        ended = luxe.expect("turn_ended", timeout=STOP_BOUND_S)
        assert ended["reason"] == "cancelled", ended
        release.touch()
        luxe.send("run_shell", {"command": "gh auth token"})
        second = luxe.expect("turn_ended", timeout=STOP_BOUND_S)
        assert second["reason"] != "cancelled", second
        session = luxe.frames[0]["content"]["session_id"]
        assert luxe.close(timeout=STOP_BOUND_S) == 0
    results = str(session_records(full, session))
    assert TOKEN not in results and "[REDACTED:" in results, results[-3000:]
    assert processes_with_marker("auth token", scope=full) == []


def test_luxe_p_reaching_its_timeout_while_gh_is_asked_exits_at_once(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """`luxe -p --timeout`: the turn waits for gh's answer before its tool
    call; at the timeout luxe exits 124 without waiting for gh too."""
    marker = unique_duration()
    full = with_gh(GH["never answers"].format(marker=marker), env, tmp_path)
    steps = [{"tool_calls": [{"name": "bash", "args": {"command": "echo hi"}}]}, {"text": "done"}]
    script = write_script(tmp_path, steps)
    done = subprocess.run(
        [*LUXE_P, "go", "--yolo", "--model", f"scripted:{script}", "--timeout", "2"],
        cwd=repo,
        env=full,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=2 + STOP_BOUND_S,
    )
    assert done.returncode == 124, done.stderr
    assert b"--timeout 2s reached" in done.stderr and b"Traceback" not in done.stderr
    assert processes_with_marker(marker, scope=full) == []
