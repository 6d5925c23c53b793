"""What Laura's own helper processes get of the provider's key: Laura runs
`git diff` for every file pane it opens or reloads, as its child, and a git
is dumpable, so any process of the user (an agent's tool call) reads its
/proc/<git>/environ while it runs. Under `laura --agent` the agent forgets
its key, and Laura hides its own: git was the one process left holding it.
The real `laura` in tmux opens a changed file of a repository; a `git` first
on PATH notes which of the variables it was given, then runs the real one."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

import pytest

from tests.laura.git_helpers import committed
from tests.laura.tmux import BIN, LauraSession

SPY = """#!/bin/sh
for name in ANTHROPIC_API_KEY GROQ_API_KEY ANTHROPIC_AUTH_TOKEN KEEP_ME; do
    eval "value=\\${$name-}"
    if [ -n "$value" ]; then echo "$name given"; else echo "$name not given"; fi
done >> "$SPY_LOG"
exec %s "$@"
"""


@pytest.mark.tmux
@pytest.mark.parametrize("variable", ["ANTHROPIC_API_KEY", "GROQ_API_KEY", "ANTHROPIC_AUTH_TOKEN"])
def test_git_run_for_a_file_pane_never_gets_the_provider_key(
    tmp_path: Path, variable: str
) -> None:
    real_git = shutil.which("git")
    assert real_git
    spy = tmp_path / "spy"
    spy.mkdir()
    (spy / "git").write_text(SPY % real_git)
    os.chmod(spy / "git", 0o755)
    log = tmp_path / "git-environments.txt"
    path = committed(tmp_path, "notes.txt", "one\ntwo\n")
    path.write_text("one\nTWO\n")
    env = {
        variable: "sk-" + secrets.token_hex(24),
        "KEEP_ME": "an-ordinary-setting",
        "SPY_LOG": str(log),
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": f"{spy}:{BIN}:/usr/local/bin:/usr/bin:/bin",
    }
    session = LauraSession(tmp_path, command=["cat"], env=env)
    try:
        session.start()
        opened = session.cli("open", str(path))
        assert opened.returncode == 0, opened.stderr
        session.wait_for("+1 -1")  # git's diff read: the marks show
    finally:
        session.close()
    noted = log.read_text()
    assert "KEEP_ME given" in noted  # the spy ran, and git keeps the rest
    assert f"{variable} given" not in noted, noted
