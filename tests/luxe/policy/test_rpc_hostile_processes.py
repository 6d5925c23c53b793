"""Issue 17, processes and shutdown: nothing a tool call starts outlives it
(not even what left its process group with `setsid`), and a client that
stops reading stdout cannot keep Luxe alive. Through the real `luxe --rpc`,
in every permission mode; the checks look at /proc."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.helpers.procs import kill_group
from tests.luxe.rpc_driver import (
    EXIT_TIMEOUT_S,
    LUXE,
    processes_with_marker,
    unique_duration,
    wait_until,
    write_script,
)

from .e2e import call, finished_frames
from .hostile import MODES, hostile_luxe, run_turn


def _escapers(marker: str) -> list[str]:
    return [
        f"setsid sleep {marker} &",
        f"setsid -f sleep {marker}",
        f"(setsid sh -c 'sleep {marker}' &)",
        f"nohup setsid bash -c 'exec -a x sleep {marker}' >/dev/null 2>&1 &",
    ]


@pytest.mark.parametrize("mode", MODES)
def test_setsid_children_end_with_their_call(mode: str, repo: Path, env: dict[str, str]) -> None:
    marker = unique_duration()
    calls = [call("bash", command=c) for c in _escapers(marker)]
    with hostile_luxe(
        [{"tool_calls": calls}, {"text": "done"}], mode, "--auto-approve", cwd=repo, env=env
    ) as (luxe, _server):
        done = finished_frames(run_turn(luxe))
        assert len(done) == len(calls)
        if mode == "read-only":  # setsid is no reader: refused, nothing started
            assert all(d["denied"] for d in done)
        # Every call has ended: none of what it started is alive.
        assert processes_with_marker(marker, scope=env) == []
        assert luxe.close() == 0
    assert processes_with_marker(marker, scope=env) == []


ENDINGS = ("cancel", "close", "eof", "sigterm", "sigint", "sighup")


@pytest.mark.parametrize(
    ("ending", "mode"), [(e, MODES[i % len(MODES)]) for i, e in enumerate(ENDINGS)]
    + [(ENDINGS[i % len(ENDINGS)], m) for i, m in enumerate(MODES)]
)  # fmt: skip
def test_setsid_children_die_at_every_ending(
    ending: str, mode: str, repo: Path, env: dict[str, str]
) -> None:
    if mode == "read-only":
        mode = "ask"  # the escape needs a command read-only refuses; see above
    marker = unique_duration()
    command = f"setsid -f sleep {marker}; (setsid sleep {marker} &); sleep {marker}"
    steps = [{"tool_calls": [call("bash", command=command)]}, {"text": "done"}]
    with hostile_luxe(steps, mode, "--auto-approve", cwd=repo, env=env) as (luxe, _server):
        luxe.send("submit_user_message", {"text": "go"})
        luxe.expect("tool_started")
        wait_until(lambda: len(processes_with_marker(marker, scope=env)) >= 3, what="the sleeps")
        if ending == "cancel":
            luxe.send("cancel_turn")
            assert luxe.expect("turn_ended")["reason"] == "cancelled"
        elif ending == "close":
            luxe.send("close")
        elif ending == "eof":
            luxe.close_stdin()
        else:
            os.kill(luxe.pid, getattr(signal, ending.upper()))
        if ending != "cancel":
            luxe.wait_exit()
        wait_until(
            lambda: processes_with_marker(marker, scope=env) == [],
            timeout=EXIT_TIMEOUT_S,
            what="every sleep to die",
        )
        if ending == "cancel":
            assert luxe.close() == 0


# -- 10: a client that stops reading stdout ----------------------------------------------


def _pipe_bytes(fd: int) -> int:
    buf = bytearray(4)
    fcntl.ioctl(fd, termios.FIONREAD, buf)
    return int.from_bytes(buf, sys.byteorder)


@pytest.mark.parametrize(
    ("ending", "mode"),
    [("close", "ask"), ("eof", "accept-edits"), ("sigterm", "read-only"), ("sigint", "yolo"),
     ("sigterm", "ask"), ("close", "read-only")],
)  # fmt: skip
def test_a_client_that_stops_reading_cannot_hold_the_exit(
    ending: str, mode: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """3 MB of tool output nobody reads fills the pipe; close, EOF and the
    signals still end luxe, its children die, and the log says so."""
    (repo / "big.txt").write_text(("a" * 99 + "\n") * 30_000)
    # `tail -f` never ends (a reader: it runs in read-only mode too, asked).
    command = "cat big.txt; cat big.txt; tail -f big.txt"
    steps = [{"tool_calls": [call("bash", command=command)]}, {"text": "ok"}]
    script = write_script(tmp_path, steps)
    log = Path(env["XDG_STATE_HOME"]) / "luxe" / "luxe.log"
    process = subprocess.Popen(
        [*LUXE, "--rpc", "--model", f"scripted:{script}", "--permission-mode", mode,
         "--auto-approve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        cwd=repo, env=env, start_new_session=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    try:
        frame = {"kind": "submit_user_message", "content": {"text": "go"}}
        process.stdin.write(json.dumps(frame).encode() + b"\n")
        process.stdin.flush()
        # Nobody reads: wait until the pipe to us is full.
        fd = process.stdout.fileno()
        wait_until(lambda: _pipe_bytes(fd) >= 60_000, what="a full stdout pipe")
        wait_until(lambda: processes_with_marker("tail -f", scope=env), what="tail running")
        if ending == "close":
            process.stdin.write(b'{"kind": "close"}\n')
            process.stdin.flush()
        elif ending == "eof":
            process.stdin.close()
        else:
            process.send_signal(getattr(signal, ending.upper()))
        process.wait(timeout=20)
        assert processes_with_marker("big.txt", scope=env) == []  # bash, cat and tail
        text = log.read_text()
        assert "closing session" in text and "dropping the remaining frames" in text
    finally:
        kill_group(process)
        process.stdout.close()
        if not process.stdin.closed:
            try:
                process.stdin.close()
            except BrokenPipeError:
                pass
