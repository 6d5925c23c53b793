"""luxe.trio_loader: trio imported without its ldconfig subprocess, and
still naming its threads."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import subprocess, sys
spawned = []
class Recording(subprocess.Popen):
    def __init__(self, args, *a, **k):
        spawned.append(args)
        super().__init__(args, *a, **k)
subprocess.Popen = Recording
{importer}
import ctypes.util
from trio._core import _thread_cache
print(spawned, _thread_cache.set_os_thread_name is not None, ctypes.util.find_library.__module__)
"""


def _probe(importer: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(importer=importer)],
        capture_output=True, text=True, timeout=60, check=True,
    )
    return done.stdout.strip()


def test_trio_loads_without_a_subprocess_and_names_its_threads() -> None:
    assert _probe("from luxe.trio_loader import import_trio; import_trio()") == "[] True ctypes.util"


def test_a_plain_import_of_trio_runs_ldconfig() -> None:
    # The control: what the loader saves (skipped where find_library has no ldconfig).
    out = _probe("import trio")
    if "ldconfig" not in out:
        pytest.skip(f"find_library spawns nothing here: {out}")
    assert out.startswith("[['/sbin/ldconfig', '-p']]")
