"""Drive the real `luxe --plain` on a pseudo-terminal and read its bytes
exactly, as a screen reader or a script reading lines would.

    with PlainLuxe.start(["go"], cwd=repo, env=env) as luxe:   # a first prompt
        luxe.wait_line("luxe: done.")                        # a whole line, at its start
        output = luxe.finish()                               # Ctrl+D, exit 0, every byte

    with plain_on_fake_model(steps, "go", cwd=repo, env=env) as (luxe, server): ...

The terminal neither echoes input nor turns "\\n" into "\\r\\n" (no ECHO,
no OPOST), so the output is what luxe wrote, byte for byte. A reader
thread collects it; waits poll it (tests/helpers/wait.py).
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLMServer
from tests.helpers.procs import kill_group
from tests.helpers.wait import wait_until
from tests.luxe.rpc_driver import EXIT_TIMEOUT_S, provider_env

LUXE = [sys.executable, "-m", "luxe", "--plain"]
WAIT_S = 30.0


class PlainLuxe:
    """One `luxe --plain` on a pty. Use as a context manager: on exit a
    process still running is killed (its whole group) and reaped."""

    def __init__(self, process: subprocess.Popen[bytes], master: int) -> None:
        self.process = process
        self._master = master
        self._output = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @classmethod
    def start(cls, args: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> PlainLuxe:
        master, slave = pty.openpty()
        modes = termios.tcgetattr(slave)
        modes[1] &= ~termios.OPOST
        modes[3] &= ~termios.ECHO
        termios.tcsetattr(slave, termios.TCSANOW, modes)
        process = subprocess.Popen(
            [*LUXE, *args], cwd=cwd, env={**env, "TERM": "xterm"},
            stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        return cls(process, master)

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:  # EIO: every slave end is closed
                return
            if not data:
                return
            with self._lock:
                self._output += data

    @property
    def output(self) -> str:
        with self._lock:
            return bytes(self._output).decode("utf-8", "replace")

    def wait_line(self, line: str, timeout: float = WAIT_S) -> str:
        """Wait until a whole line (between newlines) equals `line` or starts
        with it; returns the output so far."""

        def seen() -> str:
            text = self.output
            lines = text.split("\n")[:-1]  # the last is not finished
            return text if any(x.startswith(line) for x in lines) else ""

        try:
            return wait_until(seen, timeout, what=f"the line {line!r}")
        except AssertionError as failure:
            raise AssertionError(f"{failure}; output: {self.output[-2000:]!r}") from None

    def type(self, text: str) -> None:
        os.write(self._master, text.encode() + b"\n")

    def finish(self) -> str:
        """Ctrl+D (leave), then the exit status must be 0; every byte written."""
        os.write(self._master, b"\x04")
        status = self.process.wait(timeout=EXIT_TIMEOUT_S)
        self._reader.join(timeout=EXIT_TIMEOUT_S)
        assert status == 0, (status, self.output[-2000:])
        return self.output

    def __enter__(self) -> PlainLuxe:
        return self

    def __exit__(self, *exc: object) -> None:
        kill_group(self.process, EXIT_TIMEOUT_S)
        self._reader.join(timeout=EXIT_TIMEOUT_S)
        os.close(self._master)


@contextmanager
def plain_on_fake_model(
    steps: list[dict[str, Any]], *args: str, cwd: Path, env: Mapping[str, str]
) -> Iterator[tuple[PlainLuxe, FakeLLMServer]]:
    """`luxe --plain ARGS` on the loopback model server (Anthropic's API)."""
    with FakeLLMServer(steps) as server, PlainLuxe.start(
        args, cwd=cwd, env={**env, **provider_env(server, "anthropic")}
    ) as luxe:
        yield luxe, server
