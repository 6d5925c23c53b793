"""Counts in words (luxe.wording)."""

from __future__ import annotations

import pytest

from luxe.wording import counted


@pytest.mark.parametrize(
    ("count", "noun", "plural", "said"),
    [
        (1, "line", None, "1 line"),
        (0, "line", None, "0 lines"),
        (2, "line", None, "2 lines"),
        (1, "branch", "branches", "1 branch"),
        (3, "branch", "branches", "3 branches"),
        (-1, "line", None, "-1 lines"),
    ],
)
def test_counted(count: int, noun: str, plural: str | None, said: str) -> None:
    assert counted(count, noun, plural) == said
