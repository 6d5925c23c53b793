"""A process that leaves its call's process group *and* clears its
environment carries no LUXE_CALL token; Luxe, the subreaper, adopts it once
its parent is gone, and ends it as an orphan it did not start
(luxe.orphans): at the end of its call, at cancel_turn, at the end of the
turn. What a sweep must not end: a call still running (its group, its
processes with or without the token), a language server, a hook's daemon.
Through the real `luxe --rpc` on the scripted model; the checks read /proc.

An escapee runs `sleep <marker>` (unique_duration): with no environment
left, the test's scope variable is gone too, so it is found by its exact
command line. Each call waits until its escapee runs (pgrep) before it
ends: a call that ends with `exit 0` started one."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import LSP_SERVER as FAKE_LSP
from tests.helpers.procs import processes
from tests.luxe.conftest import SpawnLuxe
from tests.luxe.policy.e2e import global_config, write_json
from tests.luxe.rpc_driver import (
    LuxeProcess,
    call,
    processes_with_marker,
    tool_results,
    unique_duration,
    wait_until,
)

_PYTHON_DAEMON = (
    "import os; os.fork() and os._exit(0); os.setsid(); os.fork() and os._exit(0); "
    "os.environ.clear(); os.execv('/bin/sleep', ['sleep', '{m}'])"
)

# How a command can leave its group with no token. `{m}` is the marker.
SPELLINGS = {
    # Holds the call's output pipe as well.
    "env -i setsid -f": "env -i setsid -f sleep {m}",
    "env -u LUXE_CALL setsid -f": "env -u LUXE_CALL setsid -f sleep {m} >/dev/null 2>&1",
    "setsid -f env -i": "setsid -f env -i sleep {m} >/dev/null 2>&1",
    "python double fork, environment cleared": (
        f"{shlex.quote(sys.executable)} -c {shlex.quote(_PYTHON_DAEMON)} >/dev/null 2>&1"
    ),
    "nohup env -i setsid & disown": "nohup env -i setsid sleep {m} >/dev/null 2>&1 & disown",
    # An escapee with an escapee of its own, in a session of its own again:
    # Luxe's child only once the first one has been ended.
    "an escapee's own escapee": (
        "env -i setsid -f sh -c 'setsid -f sleep {m}; exec sleep {m}' >/dev/null 2>&1"
    ),
}
# How many `sleep {m}` each spelling leaves running.
COUNT = {"an escapee's own escapee": 2}


def escapees(marker: str) -> list[int]:
    """Living processes running exactly `sleep <marker>`."""
    return [p.pid for p in processes() if p.alive and p.cmdline().strip() == f"sleep {marker}"]


def started(marker: str, count: int = 1) -> str:
    """Shell that waits until `count` escapees run, then says so."""
    return (
        f"until [ \"$(pgrep -cfx 'sleep {marker}')\" -ge {count} ]; do sleep 0.01; done\n"
        "echo started"
    )


@pytest.fixture
def marker() -> Iterator[Callable[[], str]]:
    """New markers; whatever still runs one at the end is killed (a failing
    test must not leave its escapees behind: nothing else would end them)."""
    made: list[str] = []

    def new() -> str:
        made.append(unique_duration())
        return made[-1]

    yield new
    for m in made:
        for pid in escapees(m):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass


def turn(luxe: LuxeProcess) -> None:
    luxe.handshake()
    luxe.send("submit_user_message", {"text": "go"})


def by_command(frames: list[dict[str, Any]], needle: str) -> str:
    """The call id of the bash call whose command holds `needle`."""
    return next(
        f["content"]["call_id"]
        for f in frames
        if f["kind"] == "tool_started" and needle in f["content"]["args"]["command"]
    )


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_an_escapee_without_a_token_is_gone_when_its_call_ends(
    spelling: str, spawn: SpawnLuxe, marker: Callable[[], str]
) -> None:
    m = marker()
    command = SPELLINGS[spelling].format(m=m) + "\n" + started(m, COUNT.get(spelling, 1))
    luxe = spawn(
        [{"tool_calls": [call("bash", command=command, timeout_s=60)]}, {"text": "done"}], "--yolo"
    )
    turn(luxe)
    done = luxe.expect("tool_finished")
    assert done["summary"] == "exit 0"  # it saw its escapee(s) running
    assert escapees(m) == []
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0


@pytest.mark.parametrize(
    "spelling", ["env -i setsid -f", "python double fork, environment cleared", "an escapee's own escapee"]
)
def test_an_escapee_without_a_token_is_gone_after_cancel_turn(
    spelling: str, spawn: SpawnLuxe, env: dict[str, str], marker: Callable[[], str]
) -> None:
    m, own = marker(), marker()
    # The call goes on running (its own sleep, in its group) until cancelled.
    command = (
        SPELLINGS[spelling].format(m=m) + "\n" + started(m, COUNT.get(spelling, 1)) + f"\nsleep {own}"
    )
    luxe = spawn(
        [{"tool_calls": [call("bash", command=command, timeout_s=60)]}, {"text": "done"}], "--yolo"
    )
    turn(luxe)
    assert "started" in luxe.expect("tool_output_delta")["delta"]
    wait_until(lambda: processes_with_marker(own, scope=env), what="the call's own sleep")
    luxe.send("cancel_turn")
    assert luxe.expect("turn_ended")["reason"] == "cancelled"
    assert escapees(m) == []
    assert processes_with_marker(own, scope=env) == []
    assert luxe.close() == 0


def test_a_running_call_keeps_its_processes_while_another_calls_escapee_is_swept(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str], marker: Callable[[], str]
) -> None:
    """Two calls at once: A leaves an escapee without a token and ends
    first; B is still running, with processes of its own outside its group,
    one with its token and one without. B's work all completes, and when B
    ends no escapee of either is left."""
    a_mark = marker()
    a = SPELLINGS["env -i setsid -f"].format(m=a_mark) + " >/dev/null 2>&1\n" + started(a_mark)
    wait_go = "until [ -f b.go ]; do sleep 0.01; done"
    b = "\n".join(
        [
            f"env -i setsid -f sh -c '{wait_go}; echo kept > b.untagged' >/dev/null 2>&1",
            f"setsid -f sh -c '{wait_go}; echo kept > b.tagged' >/dev/null 2>&1",
            "until [ -f a.ended ]; do sleep 0.01; done",
            "touch b.go",
            "until [ -f b.untagged ] && [ -f b.tagged ]; do sleep 0.01; done",
            "echo B done",
        ]
    )
    luxe = spawn(
        [
            {"tool_calls": [call("bash", command=a, timeout_s=60), call("bash", command=b, timeout_s=60)]},
            {"text": "done"},
        ],
        "--yolo",
    )
    turn(luxe)
    first = luxe.expect("tool_finished")
    assert by_command(luxe.frames, "a.ended") != first["call_id"]  # A ended first
    assert first["summary"] == "exit 0"
    (repo / "a.ended").touch()  # only now may B go on
    second = luxe.expect("tool_finished")
    assert second["call_id"] == by_command(luxe.frames, "a.ended")
    assert second["summary"] == "exit 0"
    outputs = "".join(f["content"]["delta"] for f in luxe.frames if f["kind"] == "tool_output_delta")
    assert "B done" in outputs
    assert (repo / "b.untagged").read_text() == (repo / "b.tagged").read_text() == "kept\n"
    # Both calls have ended: nothing of either is left.
    assert escapees(a_mark) == []
    assert [p for p in processes() if p.alive and wait_go in p.cmdline()] == []
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0


def test_a_running_hook_keeps_its_processes_while_another_calls_escapee_is_swept(
    spawn: SpawnLuxe, repo: Path, env: dict[str, str], marker: Callable[[], str]
) -> None:
    """Call B's BeforeToolUse hook still runs, with a helper outside its
    group and without its token, when call A (and its sweep) ends: the
    hook's work completes and B runs; when B ends, A's escapee is gone."""
    a_mark = marker()
    a = SPELLINGS["setsid -f env -i"].format(m=a_mark) + "\n" + started(a_mark)
    wait_go = "until [ -f hook.go ]; do sleep 0.01; done"
    hook = "\n".join(
        [
            "event=$(cat)",
            'case "$event" in *B-CALL*)',
            f"  env -i setsid -f sh -c '{wait_go}; echo kept > hook.untagged' >/dev/null 2>&1",
            "  until [ -f a.ended ]; do sleep 0.01; done",
            "  touch hook.go",
            "  until [ -f hook.untagged ]; do sleep 0.01; done",
            "esac",
            """echo '{"decision":"allow"}'""",
        ]
    )
    write_json(
        global_config(env) / "hooks.json",
        {
            "BeforeToolUse": [
                {"command": ["sh", "-c", hook], "timeout_ms": 60000, "on_timeout": "deny"}
            ]
        },
    )
    luxe = spawn(
        [
            {
                "tool_calls": [
                    call("bash", command=a, timeout_s=60),
                    call("bash", command="echo B-CALL ran", timeout_s=60),
                ]
            },
            {"text": "done"},
        ],
        "--yolo",
    )
    turn(luxe)
    first = luxe.expect("tool_finished")
    assert first["call_id"] != by_command(luxe.frames, "B-CALL")  # A ended first
    assert first["summary"] == "exit 0"
    (repo / "a.ended").touch()  # only now may B's hook go on
    second = luxe.expect("tool_finished")
    assert (second["call_id"], second["denied"]) == (by_command(luxe.frames, "B-CALL"), False)
    assert second["summary"] == "exit 0"
    assert (repo / "hook.untagged").read_text() == "kept\n"
    assert escapees(a_mark) == []
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert luxe.close() == 0




def test_a_sweep_leaves_a_language_server_running(
    spawn: SpawnLuxe, env: dict[str, str], marker: Callable[[], str]
) -> None:
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"zz": {"ext": [".zz"], "command": [sys.executable, FAKE_LSP, "serve"]}}},
    )
    m = marker()
    escape = SPELLINGS["env -u LUXE_CALL setsid -f"].format(m=m) + "\n" + started(m)
    luxe = spawn(
        [
            {"tool_calls": [call("write", path="a.zz", content="BAD\n")]},
            {"tool_calls": [call("bash", command=escape, timeout_s=60)]},
            {"tool_calls": [call("write", path="a.zz", content="BAD\nok\nBAD\n")]},
            {"text": "done"},
        ],
        "--yolo",
        env_extra={"LUXE_LSP_ON_EDIT": "1", "LUXE_LSP_TIMEOUT_S": "60"},
    )
    ready = luxe.handshake()
    luxe.send("submit_user_message", {"text": "go"})
    luxe.expect("tool_finished")
    server = processes_with_marker(FAKE_LSP, scope=env)
    assert server
    assert luxe.expect("tool_finished")["summary"] == "exit 0"
    assert escapees(m) == []  # swept ...
    assert processes_with_marker(FAKE_LSP, scope=env) == server  # ... and the server kept
    luxe.expect("tool_finished")
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    last = tool_results(env, ready["session_id"])[-1]["content"]
    assert "a.zz:3:1: error [fake F1] bad word" in str(last)  # it still answers
    assert luxe.close() == 0


def test_a_sweep_leaves_a_hooks_daemon_running(
    spawn: SpawnLuxe, env: dict[str, str], marker: Callable[[], str]
) -> None:
    """docs/hooks.md: what a hook detaches on its normal exit may live on
    (until the session ends); the turn's sweep, which ends a call's escapee
    without a token, leaves it alone."""
    daemon, m = marker(), marker()
    # It answers once its daemon runs, in a session of its own (so the end
    # of the hook's group cannot take it along).
    hook = (
        f"cat >/dev/null; setsid -f sleep {daemon} >/dev/null 2>&1\n"
        + started(daemon).replace("echo started", "echo '{}'")
    )
    write_json(
        global_config(env) / "hooks.json",
        {"AfterToolUse": [{"command": ["sh", "-c", hook], "timeout_ms": 10000}]},
    )
    escape = SPELLINGS["setsid -f env -i"].format(m=m) + "\n" + started(m)
    luxe = spawn(
        [{"tool_calls": [call("bash", command=escape, timeout_s=60)]}, {"text": "done"}], "--yolo"
    )
    turn(luxe)
    assert luxe.expect("tool_finished")["summary"] == "exit 0"
    assert luxe.expect("turn_ended")["reason"] == "end_turn"
    assert escapees(m) == []
    assert len(processes_with_marker(daemon, scope=env)) == 1
    assert luxe.close() == 0
    wait_until(lambda: not processes_with_marker(daemon, scope=env), what="the daemon ends at exit")
