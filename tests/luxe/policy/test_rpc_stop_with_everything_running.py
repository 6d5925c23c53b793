"""A hook, a bash call and a language server all running when the session
stops: each ending (close, stdin EOF, SIGTERM, SIGINT, SIGHUP) ends luxe
with status 0 and leaves no process of it (the hook's children, the bash
call's, the server's) alive. Other tests stop luxe with one of them
running (a bash call at every ending, a server at SIGTERM, a hook at
`cancel_turn`); here they run together, the hook's with a child of its
own. Through the real `luxe --rpc`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes import LSP_SERVER as FAKE
from tests.luxe.rpc_driver import (
    LuxeProcess,
    processes_with_marker,
    unique_duration,
    wait_until,
    write_script,
)

from .e2e import call, global_config, write_json


@pytest.mark.parametrize("how", ["close", "stdin EOF", "SIGTERM", "SIGINT", "SIGHUP"])
def test_stopping_with_a_hook_a_bash_call_and_a_server_running_leaves_nothing(
    how: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    in_bash, in_hook = unique_duration(), unique_duration()
    # The hook waits (with a child) only before the `ls` call that names it.
    hook = f"if grep -q hang-here; then sleep {in_hook} & sleep {in_hook}; fi"
    write_json(global_config(env) / "hooks.json", {"BeforeToolUse": [{"command": ["sh", "-c", hook]}]})
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"zz": {"ext": [".zz"], "command": [sys.executable, FAKE, "serve"]}}},
    )
    full = {**env, "LUXE_LSP_ON_EDIT": "1", "LUXE_LSP_TIMEOUT_S": "90"}
    steps = [
        {"tool_calls": [call("write", path="a.zz", content="fine\n")]},
        {"tool_calls": [call("bash", command=f"sleep {in_bash}"), call("ls", path="hang-here")]},
        {"text": "unused"},
    ]
    script = write_script(tmp_path, steps)
    args = ["--model", f"scripted:{script}", "--permission-mode", "yolo"]
    with LuxeProcess.start(args, cwd=repo, env=full) as luxe:
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "go"})
        wait_until(
            lambda: processes_with_marker(FAKE, scope=full) != []
            and processes_with_marker(in_bash, scope=full) != []
            and len(processes_with_marker(in_hook, scope=full)) >= 2,
            what="the server, the bash call and the hook to run",
        )
        luxe.stop(how)
        assert luxe.wait_exit() == 0, luxe.stderr_text()
        assert "Traceback" not in luxe.stderr_text()
    assert processes_with_marker("", scope=full) == []
