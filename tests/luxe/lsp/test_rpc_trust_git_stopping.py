"""Stopping while a Python type checker's start asks git whether the
project's `.venv` is tracked (`git ls-files`, luxe/lsp/trust.py, up to
5 s): a git that hangs, with a child, is ended with its group at close,
stdin EOF, SIGTERM, SIGINT and SIGHUP, and luxe does not wait for git's
deadline; `cancel_turn` ends the turn at once (the start belongs to the
session, which ends that git at close). Through the real `luxe --rpc`, the
`git` first on an absolute PATH entry hanging on that one question and
the real git otherwise. (This held before these tests: none stopped luxe
during that git.)"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from luxe.lsp.trust import GIT_TIMEOUT_S
from tests.fakes import LSP_SERVER as FAKE
from tests.luxe.policy.e2e import call, executable, global_config, write_json
from tests.luxe.rpc_driver import (
    LuxeProcess,
    processes_with_marker,
    unique_duration,
    wait_until,
    write_script,
)

GIT = """#!/bin/sh
case "$*" in
  *"ls-files -z -- .venv"*) sleep {marker} & wait ;;
  *) exec {git} "$@" ;;
esac
"""


@pytest.mark.parametrize("how", ["close", "stdin EOF", "SIGTERM", "SIGINT", "SIGHUP", "cancel"])
def test_stopping_while_the_venv_question_hangs_ends_git_and_does_not_wait(
    how: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    marker = unique_duration()
    real = shutil.which("git")
    assert real is not None
    executable(tmp_path / "bin" / "git", GIT.format(marker=marker, git=real))
    (repo / ".venv").mkdir()
    write_json(
        global_config(env) / "settings.json",
        {"lsp": {"basedpyright": {"command": [sys.executable, FAKE, "serve"]}}},
    )
    full = {
        **env,
        "LUXE_LSP_ON_EDIT": "1",
        "LUXE_LSP_TIMEOUT_S": "30",
        "PATH": f"{tmp_path / 'bin'}:{env['PATH']}",
    }
    steps = [{"tool_calls": [call("write", path="a.py", content="x = 1\n")]}, {"text": "done"}]
    script = write_script(tmp_path, steps)
    args = ["--model", f"scripted:{script}", "--permission-mode", "yolo"]
    with LuxeProcess.start(args, cwd=repo, env=full) as luxe:
        luxe.handshake()
        luxe.send("submit_user_message", {"text": "go"})
        wait_until(lambda: processes_with_marker(marker, scope=full) != [], what="git to hang")
        started = time.monotonic()
        if how == "cancel":
            luxe.send("cancel_turn")
            assert luxe.expect("turn_ended")["reason"] == "cancelled"
            # Less than git's deadline: the turn did not wait for it.
            assert time.monotonic() - started < GIT_TIMEOUT_S - 1
            started = time.monotonic()
            luxe.send("close")
        else:
            luxe.stop(how)
        assert luxe.wait_exit() == 0, luxe.stderr_text()
        assert time.monotonic() - started < GIT_TIMEOUT_S - 1
        assert "Traceback" not in luxe.stderr_text()
    assert processes_with_marker(marker, scope=full) == []
    assert processes_with_marker(str(tmp_path / "bin" / "git"), scope=full) == []
