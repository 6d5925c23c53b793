"""Processes, read from /proc: the tests' one scanner and the questions
they ask of it (which processes are alive, whose descendants, in which
group, carrying which marker). A listing is stale as soon as it is taken:
every reader tolerates a process that has gone."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator

import attrs


@attrs.frozen
class Proc:
    """One process as /proc/PID/stat shows it."""

    pid: int
    state: str  # R, S, D, Z (zombie), X (dead), ...
    ppid: int
    pgid: int

    @property
    def alive(self) -> bool:
        return self.state not in ("Z", "X")

    def cmdline(self) -> str:
        """The command line, arguments joined by spaces ("" once gone)."""
        return _read(self.pid, "cmdline").replace(b"\0", b" ").decode("utf-8", "replace")

    def environ(self) -> list[bytes]:
        """`NAME=value` entries ([] once gone, or when not ours to read)."""
        return _read(self.pid, "environ").split(b"\0")


def _read(pid: int, name: str) -> bytes:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read()
    except OSError:
        return b""


def stat_of(pid: int) -> Proc | None:
    """The process `pid`, or None once it has gone."""
    raw = _read(pid, "stat").decode("utf-8", "replace")
    if not raw:
        return None
    # The command name may hold spaces and parentheses: fields follow the last ")".
    fields = raw[raw.rfind(")") + 2 :].split()
    return Proc(pid, fields[0], int(fields[1]), int(fields[2]))


def processes() -> Iterator[Proc]:
    """Every process visible now (the one scan of /proc)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (proc := stat_of(int(entry))) is not None:
            yield proc


def alive(pid: int) -> bool:
    """True if `pid` exists and is not a zombie."""
    proc = stat_of(pid)
    return proc is not None and proc.alive


def peak_rss_kb(pid: int) -> int:
    """The most resident memory `pid` has held so far (VmHWM), in KiB."""
    for line in _read(pid, "status").decode().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmHWM for {pid}: gone?")


def command_name(pid: int) -> str:
    """The `comm` of `pid`, or "" once it has gone."""
    return _read(pid, "comm").decode("utf-8", "replace").strip()


def children_of(pid: int) -> list[int]:
    """Direct children of `pid` (zombies included)."""
    return [p.pid for p in processes() if p.ppid == pid]


def _descendants(table: list[Proc], pid: int) -> list[Proc]:
    result: list[Proc] = []
    pending = [pid]
    while pending:
        parent = pending.pop()
        for child in (p for p in table if p.ppid == parent):
            result.append(child)
            pending.append(child.pid)
    return result


def descendants_of(pid: int) -> list[int]:
    """Every process descended from `pid` by parent links (zombies included)."""
    return [p.pid for p in _descendants(list(processes()), pid)]


def live_descendants(pid: int) -> list[int]:
    """Living (non-zombie) processes descended from `pid`."""
    return [p.pid for p in _descendants(list(processes()), pid) if p.alive]


def live_processes_in_group(pgid: int) -> list[int]:
    """Living processes whose process group is `pgid`."""
    return [p.pid for p in processes() if p.pgid == pgid and p.alive]


def live_pids_with(marker: str) -> list[int]:
    """Living processes whose command line contains `marker`."""
    return [p.pid for p in processes() if p.alive and marker in p.cmdline()]


def live_pids_with_env(entry: bytes | str, *, exact: bool = False) -> list[int]:
    """Living processes (not this one) whose environment holds `entry`:
    as one whole `NAME=value` entry when `exact`, else anywhere in it."""
    needle = entry.encode() if isinstance(entry, str) else entry
    found = []
    for p in processes():
        if p.pid == os.getpid() or not p.alive:
            continue
        environ = p.environ()
        if (needle in environ) if exact else any(needle in e for e in environ):
            found.append(p.pid)
    return found


def kill_group(process: subprocess.Popen[bytes] | subprocess.Popen[str], timeout: float | None = None) -> None:
    """If `process` (started as the leader of its own group) still runs,
    SIGKILL its whole group; then reap it (within `timeout`)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait(timeout=timeout)
