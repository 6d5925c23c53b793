"""A verb's argument mistakes are caught before any tab is asked: exit 2,
the verb's own usage line, and a message naming the mistake."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    probe = f"import sys\nfrom laura import cli\nsys.exit(cli.main({list(argv)!r}))\n"
    return subprocess.run(
        [sys.executable, "-c", probe],
        env={"PATH": "/usr/bin:/bin", "LAURA_TAB": "laura-1-deadbeef-0"},
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize(
    ("argv", "usage", "message"),
    [
        (
            ("highlight", "12", "11"),
            "usage: laura highlight",
            "END (11) must not be before START (12)",
        ),
        (("highlight", "2", "--off"), "usage: laura highlight", "not both"),
        (
            ("open", "x.md", "--highlight", "9", "3"),
            "usage: laura open",
            "--highlight END (3) must not be before START (9)",
        ),
        (("close", "1", "--all"), "usage: laura close", "not both"),
    ],
)
def test_a_bad_combination_shows_the_verbs_usage(
    argv: tuple[str, ...], usage: str, message: str
) -> None:
    result = run_cli(*argv)
    assert result.returncode == 2, result
    assert result.stderr.startswith(usage), result.stderr
    assert message in result.stderr
    assert "usage: laura [-h]" not in result.stderr
    assert "cannot reach" not in result.stderr  # no tab was asked
