"""Stopping while the secrets' first scan asks git for its history (after
the handshake, in a worker thread): a git that hangs (a repository's
`core.fsmonitor`, a dead network mount, a script first on PATH) held close,
stdin EOF, SIGTERM, SIGINT and SIGHUP for its whole deadline, 10 s for
`git log` and 10 s more for `git ls-files`. Now stopping ends that git at
once and runs no other. Through the real `luxe --rpc`, with a `git` first
on an absolute PATH entry that hangs on both and is the real git otherwise."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.luxe.rpc_driver import (
    LuxeProcess,
    processes_with_marker,
    unique_duration,
    wait_until,
    write_script,
)

from .e2e import executable

# Waiting for the first git's deadline and the second's takes 20 s: a luxe
# that does fails this bound. Stopping promptly takes a fraction of a
# second; the rest allows for a loaded machine.
STOP_BOUND_S = 15.0

GIT = """#!/bin/sh
case "$*" in
  *"log --all"*|*"ls-files -s"*) exec sleep {marker} ;;
  *) exec {git} "$@" ;;
esac
"""


@pytest.mark.parametrize("how", ["close", "stdin EOF", "SIGTERM", "SIGINT", "SIGHUP"])
def test_stopping_while_the_secret_scans_git_hangs_ends_it_at_once(
    how: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    marker = unique_duration()
    real = shutil.which("git")
    assert real is not None
    executable(tmp_path / "bin" / "git", GIT.format(marker=marker, git=real))
    full = {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}
    script = write_script(tmp_path, [{"text": "unused"}])
    with LuxeProcess.start(["--model", f"scripted:{script}"], cwd=repo, env=full) as luxe:
        luxe.handshake()
        wait_until(lambda: processes_with_marker(marker, scope=full) != [], what="git to hang")
        luxe.stop(how)
        assert luxe.wait_exit(timeout=STOP_BOUND_S) == 0, luxe.stderr_text()
        assert "Traceback" not in luxe.stderr_text()
    assert processes_with_marker(marker, scope=full) == []
