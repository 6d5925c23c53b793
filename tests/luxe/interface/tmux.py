"""Drive the real `luxe` interface inside a private tmux server, as a person would.

    ui = LuxeTmux(tmp_path, repo, env, ["--model", "scripted:PATH"]).start()
    ui.type("hello"); ui.send_keys("Enter")
    ui.wait_for("the answer")          # poll the visible screen
    ui.history() -> list[str]          # scrollback + screen (capture-pane -S -)
    ui.send_keys("C-c", "C-c"); ui.wait_exit() == 0
    ui.after_exit()                    # `stty -a` recorded by the wrapper shell
    ui.cursor_shown()                  # the pane's cursor is visible
    ui.luxe_pid                        # for /proc checks

The wrapper shell runs luxe, then records its status and the tty modes, then
sleeps, so the pane outlives luxe. A PrivateTmux (tests/laura/tmux.py):
screen, keys, pastes and waits are shared with Laura's sessions.
"""

from __future__ import annotations

import shlex
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

from tests.laura.tmux import PrivateTmux, children_of, close_tmux, tmux_socket_dir, wait_until

LUXE = [sys.executable, "-m", "luxe"]
WAIT_S = 30.0


# `start`'s default: the interface is ready (prompt and status line).
READY = "ready"


class LuxeTmux(PrivateTmux):
    def __init__(
        self, tmp_path: Path, cwd: Path, env: dict[str, str], args: Sequence[str] = (),
        width: int = 80, height: int = 24,
    ) -> None:
        self.root = tmp_path / f"tmux-{uuid.uuid4().hex[:8]}"
        self.root.mkdir(parents=True)
        self.socket = f"lx-{uuid.uuid4().hex[:12]}"
        self.cwd, self.args = cwd, list(args)
        self.width, self.height = width, height
        self.env = {**env, "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                    "TMUX_TMPDIR": tmux_socket_dir(), "SHELL": "/bin/sh"}
        self.env.pop("TMUX", None)
        self.after = self.root / "after"
        self._pid: int | None = None

    def start(
        self, wait: str | None = READY, job_control: bool = False, umask: str | None = None
    ) -> LuxeTmux:
        after = shlex.quote(str(self.after))
        # With job control the shell runs luxe as a job, in its own group,
        # and once luxe stops it waits for a line (Enter) and `fg`s it.
        jobs, resume = ("set -m; ", "; read _; fg") if job_control else ("", "")
        if umask is not None:
            jobs = f"umask {shlex.quote(umask)}; {jobs}"
        script = (
            f"{jobs}cd {shlex.quote(str(self.cwd))}; {shlex.join([*LUXE, *self.args])}{resume}; status=$?; "
            f"stty -a > {after}.stty 2>&1; echo $status > {after}; exec sleep 600"
        )
        self.tmux("new-session", "-d", "-x", str(self.width), "-y", str(self.height), "sh", "-c", script)
        self.tmux("set-option", "-g", "history-limit", "10000")
        if wait == READY:
            self.wait_ready()
        elif wait:
            self.wait_for(wait)
        return self

    def wait_ready(self) -> None:
        """The prompt and, under it, the status line: the prompt is drawn
        before the session is known, the status line with the handshake."""
        def ready(text: str) -> bool:
            return "›" in text and "›" not in self.status_line()

        self.wait_for(ready)

    def history(self) -> list[str]:
        """Every row: the scrollback, then the screen (trailing blanks cut)."""
        rows = self.tmux("capture-pane", "-p", "-S", "-", "-E", "-").split("\n")
        while rows and not rows[-1].strip():
            rows.pop()
        return rows

    def resize(self, width: int, height: int) -> None:
        self.tmux("resize-window", "-x", str(width), "-y", str(height))

    def rows(self) -> list[str]:
        """The screen's rows down to the last one that is not blank."""
        rows = self.screen()
        while rows and not rows[-1].strip():
            rows.pop()
        return rows

    def editor(self) -> str:
        """The row above the status line (a one-line draft), right-trimmed."""
        rows = self.rows()
        return rows[-2].rstrip() if len(rows) >= 2 else ""

    def wait_editor(self, expect: str, timeout: float = WAIT_S) -> None:
        try:
            wait_until(lambda: self.editor() == expect, timeout)
        except AssertionError:
            raise AssertionError(f"editor row never was {expect!r}; screen:\n{self.text()}") from None

    def status_line(self) -> str:
        rows = [r for r in self.screen() if r.strip()]
        return rows[-1] if rows else ""

    @property
    def luxe_pid(self) -> int:
        if self._pid is None:
            wrapper = int(self.tmux("display", "-p", "#{pane_pid}").strip())

            def find() -> int | None:
                for pid in children_of(wrapper):
                    try:
                        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                    except OSError:
                        continue
                    if b"luxe" in cmdline:
                        return pid
                return None

            self._pid = int(wait_until(find, WAIT_S))
        return self._pid

    def harness_pids(self) -> set[int]:
        """The tmux server and the pane's wrapper shell (not luxe's)."""
        server = int(self.tmux("display", "-p", "#{pid}").strip())
        wrapper = int(self.tmux("display", "-p", "#{pane_pid}").strip())
        return {server, wrapper}

    def leftovers(self, marker_pids: list[int]) -> set[int]:
        """Of the processes carrying the test's marker, those not the harness's."""
        return set(marker_pids) - self.harness_pids()

    def wait_exit(self, timeout: float = WAIT_S) -> int:
        wait_until(lambda: self.after.exists() and self.after.read_text().strip(), timeout)
        return int(self.after.read_text().strip())

    def cursor_shown(self) -> bool:
        """Whether the pane's cursor is visible (after exit: luxe showed it again)."""
        return self.tmux("display", "-p", "#{cursor_flag}").strip() == "1"

    def after_exit(self) -> str:
        path = Path(f"{self.after}.stty")
        return path.read_text() if path.exists() else ""

    def close(self) -> None:
        close_tmux(self.socket, self.env, self.tmux)
