"""Forget environment variables for good: the provider's API key.

Removing a variable from `os.environ` keeps it out of every child's
environment, but `/proc/<luxe>/environ` (readable by any process of the same
user, e.g. a bash tool call reading `/proc/$PPID/environ`) still shows the
environment Luxe was started with. `forget_variables` therefore also blanks
the values in that original block of memory (Linux, through
/proc/self/mem). The key still lives in Luxe's memory (the provider holds
it), which `/proc/<luxe>/mem` shows to the same processes: a tool call's
script found it there. So Luxe also makes itself non-dumpable, which closes
its /proc/<pid>/mem, environ and maps to every process without
CAP_SYS_PTRACE (the blanking is for those, root among them).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterable

log = logging.getLogger("luxe")

_PR_SET_DUMPABLE = 4


def _env_block() -> tuple[int, int] | None:
    try:
        with open("/proc/self/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 49:
        return None
    return int(fields[47]), int(fields[48])  # env_start, env_end


def _blank_original(names: set[str]) -> bool:
    block = _env_block()
    if block is None:
        return False
    start, end = block
    try:
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            mem.seek(start)
            data = bytearray(mem.read(end - start))
            offset = 0
            for entry in bytes(data).split(b"\0"):
                name, eq, value = entry.partition(b"=")
                if eq and name.decode("utf-8", "replace") in names:
                    at = offset + len(name) + 1
                    data[at : at + len(value)] = b"x" * len(value)
                offset += len(entry) + 1
            mem.seek(start)
            mem.write(bytes(data))
    except (OSError, ValueError):
        return False
    return True


def _not_dumpable() -> None:
    import ctypes  # only when there is a key to hide (1.5 ms)

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def forget_variables(names: Iterable[str]) -> None:
    """Remove `names` from this process's environment, the one its children
    inherit and the one /proc shows."""
    wanted = {n for n in names if n in os.environ}
    if not wanted:
        return
    for name in wanted:
        os.environ.pop(name, None)
    if sys.platform.startswith("linux"):
        if not _blank_original(wanted):
            log.info("could not blank the original environment")
        _not_dumpable()
