from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.laura.vt.oracle import TmuxOracle


@pytest.fixture(scope="module")
def tmux_oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TmuxOracle]:
    """One private tmux server per test module, killed at the end."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    oracle = TmuxOracle(Path(tmp_path_factory.mktemp("tmux-oracle")))
    try:
        yield oracle
    finally:
        oracle.close()
