"""The files Luxe is configured with (settings.json, the rules files and
the hooks files, the global ones and a trusted project's) are read only as
regular files of at most 1 MiB: a FIFO there held the start for good, a
link to /dev/zero or a sparse terabyte was read until memory ran out. Now
a settings or rules file that is not one refuses the start (exit 2, naming
the file and why), as an invalid one does; a hooks file's hooks are skipped
and an `error` frame says why, and the session goes on. Through the real
`luxe --rpc`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.special_files import SPELLINGS, plant, said
from tests.luxe.rpc_driver import LuxeProcess, write_script

# A refusal is immediate; this only bounds the hang it replaced.
START_S = 30.0


def _global(name: str) -> Callable[[dict[str, str], Path], Path]:
    return lambda env, repo: Path(env["XDG_CONFIG_HOME"]) / "luxe" / name


def _project(name: str) -> Callable[[dict[str, str], Path], Path]:
    return lambda env, repo: repo / ".luxe" / name


REFUSING = {
    "settings": (_global("settings.json"), "{path}: {why}"),
    "permissions": (_global("permissions.json"), "refusing to start: invalid permissions file: {path}:1: {why}"),
    "project_permissions": (_project("permissions.json"), "refusing to start: invalid permissions file: {path}:1: {why}"),
}  # fmt: skip


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("which", sorted(REFUSING))
def test_a_settings_or_rules_file_that_is_not_a_small_regular_file_refuses_the_start(
    which: str, spelling: str, env: dict[str, str], repo: Path, tmp_path: Path
) -> None:
    where, message = REFUSING[which]
    path = where(env, repo)
    plant(path, spelling)
    script = write_script(tmp_path, [{"text": "unused"}])
    done = subprocess.run(
        [sys.executable, "-m", "luxe", "--rpc", "--model", f"scripted:{script}", "--trust-project"],
        env=env, cwd=repo, capture_output=True, text=True, timeout=START_S, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    expected = "luxe: " + message.format(path=path, why=said(spelling, "1 MiB"))
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert expected in done.stderr, done.stderr


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("project", [False, True], ids=["global", "project"])
def test_a_hooks_file_that_is_not_a_small_regular_file_is_skipped_and_said(
    project: bool, spelling: str, env: dict[str, str], repo: Path, tmp_path: Path
) -> None:
    path = (_project if project else _global)("hooks.json")(env, repo)
    plant(path, spelling)
    script = write_script(tmp_path, [{"text": "still here"}])
    args = ["--model", f"scripted:{script}", "--trust-project"]
    with LuxeProcess.start(args, cwd=repo, env=env) as luxe:
        luxe.handshake(timeout=START_S)
        error = luxe.expect("error", timeout=START_S)
        why = said(spelling, "1 MiB")
        assert error["message"] == f"hooks: {path}:1: {why}; every hook in it is skipped"
        luxe.send("submit_user_message", {"text": "go"})
        assert luxe.expect("turn_ended")["text"] == "still here"
        assert luxe.close() == 0
