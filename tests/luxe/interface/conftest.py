"""Fixtures for the interface's end-to-end tests: the real `luxe` in tmux."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.luxe.interface.tmux import READY, LuxeTmux
from tests.luxe.rpc_driver import write_script

StartUi = Callable[..., LuxeTmux]


@pytest.fixture
def ui(tmp_path: Path, env: dict[str, str], repo: Path) -> Iterator[StartUi]:
    """ui(steps, *flags, width=80, height=24, env_extra=None, wait=READY,
    job_control=False) -> a started LuxeTmux running `luxe` on a scripted
    model holding `steps` (`wait`: READY, the prompt and its status line;
    text to wait for; None. `job_control`: the shell runs luxe as a job, in
    its own process group, as an interactive shell does; `umask`: set
    before luxe starts, e.g. "022")."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed (the interface tests need it; .ci/run installs it)")
    started: list[LuxeTmux] = []
    counter = [0]

    def start(
        steps: Sequence[Mapping[str, Any]] | None = None, *flags: str,
        width: int = 80, height: int = 24, env_extra: Mapping[str, str] | None = None,
        wait: str | None = READY, job_control: bool = False, umask: str | None = None,
    ) -> LuxeTmux:
        args = list(flags)
        if steps is not None:
            counter[0] += 1
            script = write_script(tmp_path, steps, f"ui-script{counter[0]}.jsonl")
            args = ["--model", f"scripted:{script}", *args]
        session = LuxeTmux(tmp_path, repo, {**env, **(env_extra or {})}, args, width, height)
        started.append(session)
        return session.start(wait, job_control=job_control, umask=umask)

    try:
        yield start
    finally:
        for session in started:
            session.close()
