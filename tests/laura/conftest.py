"""Fixtures for Laura's end-to-end tests (see tests/laura/tmux.py)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.laura.tmux import LauraSession


@pytest.fixture
def laura_session(tmp_path: Path) -> Iterator[Callable[..., LauraSession]]:
    """Make started LauraSessions (same arguments as LauraSession); all are
    closed at teardown, killing their tmux servers."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed (the end-to-end tests need it)")
    sessions: list[LauraSession] = []

    def make(**kwargs: Any) -> LauraSession:
        session = LauraSession(tmp_path, **kwargs)
        sessions.append(session)
        return session.start()

    try:
        yield make
    finally:
        for session in sessions:
            session.close()


@pytest.fixture(autouse=True)
def private_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process tabs journal under $XDG_STATE_HOME: keep it in tmp_path,
    never the user's real state directory."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
