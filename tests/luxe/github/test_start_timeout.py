"""The deadline of each gh and git child of a start from GitHub
(--issue/--from-pr/--worktree): 60 s, or what LUXE_START_TIMEOUT_S says
when that is a positive number."""

from __future__ import annotations

import pytest

from luxe.github.start import TIMEOUT_S, timeout_from


@pytest.mark.parametrize(
    ("value", "seconds"),
    [(None, TIMEOUT_S), ("2", 2.0), ("0.5", 0.5), ("0", TIMEOUT_S), ("-1", TIMEOUT_S),
     ("nan", TIMEOUT_S), ("inf", TIMEOUT_S), ("soon", TIMEOUT_S), ("", TIMEOUT_S)],
)
def test_the_start_deadline(value: str | None, seconds: float) -> None:
    env = {} if value is None else {"LUXE_START_TIMEOUT_S": value}
    assert timeout_from(env) == seconds
