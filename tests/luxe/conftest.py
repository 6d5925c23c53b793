"""Fixtures for tests that drive the real `luxe --rpc`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.luxe.rpc_driver import LuxeProcess, make_env, make_repo, write_script


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return make_env(tmp_path)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


SpawnLuxe = Callable[..., LuxeProcess]


@pytest.fixture
def spawn(tmp_path: Path, env: dict[str, str], repo: Path) -> Iterator[SpawnLuxe]:
    """spawn(steps, *flags, env_extra=None) -> a started LuxeProcess on a
    scripted model whose script holds `steps`; every one is killed at teardown."""
    started: list[LuxeProcess] = []
    counter = [0]

    def start(
        steps: Sequence[Mapping[str, Any]] | None = None,
        *flags: str,
        env_extra: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> LuxeProcess:
        args = list(flags)
        if steps is not None:
            counter[0] += 1
            script = write_script(tmp_path, steps, f"script{counter[0]}.jsonl")
            args = ["--model", f"scripted:{script}", *args]
        luxe = LuxeProcess.start(args, cwd=cwd or repo, env={**env, **(env_extra or {})})
        started.append(luxe)
        return luxe

    yield start
    for luxe in started:
        luxe.__exit__(None, None, None)
