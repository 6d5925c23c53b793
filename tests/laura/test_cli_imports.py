"""A client verb must cost little more than starting Python: its import path
holds only the standard library and laura's protocol/client modules."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("trio", "blessed", "attrs", "cattrs", "pyte", "wcwidth", "laura.app", "laura.tab")


def test_a_verb_imports_nothing_heavy() -> None:
    probe = (
        "import sys\n"
        "from laura import cli\n"
        "try:\n"
        "    cli.main(['layout'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"heavy = [name for name in {HEAVY!r} if name in sys.modules]\n"
        "print('heavy:', heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env={"PATH": "/usr/bin:/bin", "LAURA_TAB": "laura-1-deadbeef-0"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "heavy: []" in result.stdout, result
    assert "cannot reach the Laura tab" in result.stderr
