"""A person's PATH with a relative entry (`.`, `bin`, or the empty entry a
stray colon makes) and a clone that ships its own `git`, `cat`, `rg`, `sh`:
Luxe starts none of them. Before, starting `luxe --rpc` in such a clone ran
its `git` five times before any turn, a read-only `cat README.md` ran its
`cat`, and the grep tool its `rg`. Every child now gets PATH cut to its
absolute entries (program_path). Through the real `luxe --rpc`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .e2e import call, executable, global_config, tool_results, write_json
from .hostile import hostile_luxe, ripgrep_dir, run_turn

PROGRAMS = ("git", "cat", "rg", "sh", "bash", "ls", "head")
# Where the clone's programs are, and the PATH that puts them first.
SPELLINGS = {
    "an empty entry (a leading colon)": ("", ":{path}"),
    "a dot": ("", ".:{path}"),
    "a relative directory": ("bin", "bin:{path}"),
}


def plant(repo: Path, folder: str, ran: Path) -> None:
    """The clone's look-alikes: each notes that it ran, then does the real
    thing (so only the note tells them apart)."""
    for name in PROGRAMS:
        real = next(
            (p for d in ("/usr/bin", "/bin") if os.access(p := f"{d}/{name}", os.X_OK)), None
        ) or (ripgrep_dir() or "/usr/bin") + f"/{name}"
        executable(repo / folder / name, f'#!/bin/sh\necho "{name} $*" >> {ran}\nexec {real} "$@"\n')


def hostile_path(env: dict[str, str], spelling: str) -> dict[str, str]:
    path = env["PATH"]
    if ripgrep_dir():
        path = f"{path}:{ripgrep_dir()}"
    return {**env, "PATH": SPELLINGS[spelling][1].format(path=path)}


def one_turn(
    calls: list[dict[str, Any]], mode: str, *flags: str, repo: Path, env: dict[str, str]
) -> list[str]:
    """The tool results of one turn making `calls`; luxe closed cleanly."""
    steps = [{"tool_calls": calls}, {"text": "done"}]
    with hostile_luxe(steps, mode, *flags, cwd=repo, env=env) as (luxe, server):
        run_turn(luxe)
        results = tool_results(server.bodies[-1])
        assert luxe.close() == 0
    return results


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_read_only_session_runs_none_of_the_clones_programs(
    spelling: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    plant(repo, SPELLINGS[spelling][0], ran)
    (repo / "README.md").write_text("the real readme\n")
    calls = [
        call("bash", command="cat README.md; ls; git log --oneline -1"),
        call("grep", pattern="real readme"),
    ]
    results = one_turn(calls, "read-only", "--auto-approve", repo=repo, env=hostile_path(env, spelling))
    assert "the real readme" in results[0] and "README.md:1:the real readme" in results[1], results
    assert not ran.exists(), ran.read_text()


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_hook_and_a_yolo_command_find_only_the_persons_programs(
    spelling: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    plant(repo, SPELLINGS[spelling][0], ran)
    hook = ["sh", "-c", "cat >/dev/null; git --version > /dev/null"]
    write_json(global_config(env) / "hooks.json", {"BeforeToolUse": [{"command": hook}]})
    calls = [call("bash", command="git status --short; head -1 README.md")]
    results = one_turn(calls, "yolo", repo=repo, env=hostile_path(env, spelling))
    assert "# demo" in results[0], results  # the command ran, with the person's programs
    assert not ran.exists(), ran.read_text()
