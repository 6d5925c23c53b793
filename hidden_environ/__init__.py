"""Keeping a process's environment and memory from the other processes of its
user: the one mechanism Luxe and Laura share.

`/proc/<pid>/environ` shows the block a process was started with, whatever
it did to `os.environ` since, and any process of the same user may read it
(a tool call's script reading `/proc/$PPID/environ`, or its grandparent's).
Two steps close it:

- `not_dumpable` clears the process's dumpable flag: its /proc/<pid>/environ,
  mem and maps, `process_vm_readv` and `ptrace` are then closed to every
  process without CAP_SYS_PTRACE, and it leaves no core. The flag is set
  again by every execve, so the process's children are unaffected.
- `blank_original` overwrites chosen values in the original block (through
  /proc/self/mem), for the readers the flag does not stop (root).

`forget` drops variables for good (the process and its children lose them);
`hide` keeps them in the process (`os.environ` and the C environment hold
fresh copies, so children started either way still get them) while /proc no
longer shows them. Both also clear the flag when there is something to
hide (a process that wants it cleared anyway calls `not_dumpable`, after
them: once it is cleared, /proc/self/mem is closed to a process that is not
root, and the block can no longer be blanked).
`CREDENTIAL_VARIABLE` names what both programs hide: a provider's key or
token. Linux only; elsewhere they change `os.environ` and nothing else.
Imports nothing of either program.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping

# Environment variables that hold a model provider's credentials
# (ANTHROPIC_API_KEY, OPENAI_API_KEY, GROQ_API_KEY, ANTHROPIC_AUTH_TOKEN...).
CREDENTIAL_VARIABLE = re.compile(r"^[A-Z0-9_]*_(API_KEY|AUTH_TOKEN)$")

_PR_SET_DUMPABLE = 4
_LINUX = sys.platform.startswith("linux")


def credential_variables(env: Mapping[str, str]) -> dict[str, str]:
    """The provider credentials in `env` (set, not empty): Luxe removes them
    from every tool's and hook's environment and redacts their values."""
    return {k: v for k, v in env.items() if CREDENTIAL_VARIABLE.match(k) and v}


def forget(names: Iterable[str]) -> bool:
    """Remove `names` from this process's environment, the one its children
    inherit and the one /proc shows. False when the original block could not
    be blanked (the flag is cleared all the same)."""
    wanted = {n for n in names if n in os.environ}
    for name in wanted:
        os.environ.pop(name, None)
    return _close(wanted)


def hide(names: Iterable[str]) -> bool:
    """Keep `names` in this process's environment (and its children's) while
    /proc shows them to no other process. False as for `forget`."""
    wanted = {n for n in names if n in os.environ}
    for name in wanted:
        # The C environment pointed into the original block: it gets a copy
        # of its own before that block is blanked.
        os.putenv(name, os.environ[name])
    return _close(wanted)


def not_dumpable() -> None:
    """Clear this process's dumpable flag (see the module docstring)."""
    if not _LINUX:
        return
    import ctypes  # 1.5 ms, and only on this path

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def blank_original(names: set[str]) -> bool:
    """Overwrite the values of `names` in the block this process was started
    with; False when /proc/self could not be read or written."""
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


def _close(names: set[str]) -> bool:
    if not names or not _LINUX:
        return True
    blanked = blank_original(names)
    not_dumpable()
    return blanked


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
