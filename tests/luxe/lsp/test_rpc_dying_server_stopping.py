"""Stopping while a language server that died is being cleaned up: a
server that exits at once while a child of its own keeps its stderr open
(so Luxe reads that stderr for up to 1 s, for its last words). Close, stdin
EOF, SIGTERM, SIGINT or SIGHUP then ended luxe with "internal error" and
exit status 1: the server's failure (it exited before answering
`initialize`) and the session's cancellation came out together, and the
language-server service let them through. Now luxe exits 0, promptly, and
the server's child is gone. Through the real `luxe --rpc` with diagnostics
on edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.luxe.policy.e2e import call, executable, global_config, write_json
from tests.luxe.rpc_driver import (
    LuxeProcess,
    processes_with_marker,
    unique_duration,
    wait_until,
    write_script,
)

STOP_BOUND_S = 20.0  # the stderr read (1 s) and a grace; the rest is a loaded machine

# Its child keeps stderr (only) open; it dies without a word on stdout.
SERVER = "#!/bin/sh\nsleep {marker} >/dev/null </dev/null &\nexit 1\n"


@pytest.mark.parametrize("how", ["close", "stdin EOF", "SIGTERM", "SIGINT", "SIGHUP"])
def test_stopping_while_a_dead_servers_stderr_is_read_exits_cleanly(
    how: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    marker = unique_duration()
    server = executable(tmp_path / "bin" / "dying-server", SERVER.format(marker=marker))
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"dying": {"ext": [".dy"], "command": [server]}}},
    )
    full = {**env, "LUXE_LSP_ON_EDIT": "1", "LUXE_LSP_TIMEOUT_S": "30"}
    script = write_script(
        tmp_path, [{"tool_calls": [call("write", path="a.dy", content="x\n")]}, {"text": "done"}]
    )
    args = ["--model", f"scripted:{script}", "--permission-mode", "yolo"]
    with LuxeProcess.start(args, cwd=repo, env=full) as luxe:
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "go"})
        # The server has exited; its child still holds the stderr Luxe reads.
        wait_until(
            lambda: processes_with_marker(marker, scope=full) != []
            and processes_with_marker(server, scope=full) == [],
            what="the server to die, its child left",
        )
        luxe.stop(how)
        status = luxe.wait_exit(timeout=STOP_BOUND_S)
        stderr = luxe.stderr_text()
        assert status == 0, stderr
        assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    assert processes_with_marker(marker, scope=full) == []
