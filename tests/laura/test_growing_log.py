"""A long log that keeps growing, followed in a pane: every reload keeps the
rows already counted (only the new lines are laid out), and the real
`laura` keeps echoing keys through the reloads (before, deciding that the
old lines were unchanged compared a million lines on the UI loop)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.laura.echo_probe import EchoProbe, assert_keys_echoed
from tests.laura.tmux import LauraSession

Make = Callable[..., LauraSession]


class Appender:
    """Appends a numbered line to `path` every `every` seconds until stopped."""

    def __init__(self, path: Path, every: float) -> None:
        self.path = path
        self.every = every
        self.written = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Appender:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.written += 1
            with self.path.open("a") as log:
                log.write(f"APPENDED {self.written}\n")


@pytest.mark.tmux
@pytest.mark.parametrize("every", [0.3, 2.0], ids=["faster than it loads", "slower than it loads"])
def test_keys_keep_echoing_while_a_long_followed_log_grows(
    laura_session: Make, tmp_path: Path, every: float
) -> None:
    path = tmp_path / "server.log"
    path.write_text("".join(f"GET /index.html 200 {n} {'x' * 16}\n" for n in range(1_000_000)))
    session = laura_session(command=["cat"])
    opened = session.cli("open", str(path), "--no-focus", "--follow")
    assert opened.returncode == 0, opened.stderr
    session.wait_for("1000000 ")
    probe = EchoProbe(session)
    busy: list[float] = []
    try:
        idle = [probe.key("Z") for _ in range(20)]
        with Appender(path, every) as appender:
            # Keys until a second appended line shows, each line a reload.
            deadline = time.monotonic() + 60
            while not re.search(r"APPENDED [2-9]", session.text()):
                assert time.monotonic() < deadline, f"{appender.written} lines appended, none shown"
                busy += [probe.key("Z") for _ in range(10)]
    finally:
        probe.close()
    assert_keys_echoed(idle, busy, "while a followed log of a million lines grew")
